# slowdown_32x32_torus: written by faultmesh plot; run `gnuplot slowdown_32x32_torus.gp` to redraw
$d << EOD
"faultfree" 1.00000 1.00000 0.71686
"board_centre" 1.20670 1.00847 1.37316
"board_edge" 1.20670 1.00847 1.36238
"board_corner" 1.19019 1.00847 1.36238
"two_boards" 1.79728 2.17347 1.37540
"one_link" 1.38495 5.09477 0.71686
"board_mid" 1.94399 1.74576 1.95754
EOD
set title 'Allreduce time vs fault-free ft2d, BERT-large fp32 (fit), 32x32 torus'
set ylabel 'slowdown (x)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set grid ytics
set yrange [0:*]
set key top left
set xtics rotate by -20
set terminal pngcairo size 900,500 noenhanced font 'Sans,11'
set output 'docs/img/slowdown_32x32_torus.png'
plot $d using 2:xtic(1) title 'ft2d' lc 1, '' using 3 title 'shrink' lc 2, '' using 4 title 'snake' lc 3
unset output
set terminal svg size 900,500 noenhanced font 'Sans,11' background rgb 'white'
set output 'docs/img/slowdown_32x32_torus.svg'
plot $d using 2:xtic(1) title 'ft2d' lc 1, '' using 3 title 'shrink' lc 2, '' using 4 title 'snake' lc 3
unset output
