# slowdown_32x32_torus: written by faultmesh plot; run `gnuplot slowdown_32x32_torus.gp` to redraw
$d << EOD
"faultfree" 1.00000 1.00000 0.65007
"board_centre" 0.69805 1.03154 1.24522
"board_edge" 0.69805 1.03154 1.23545
"board_corner" 0.67819 1.03154 1.23545
"two_boards" 1.33098 1.50832 1.24725
"one_link" 1.09879 2.87079 0.65007
"board_mid" 1.40803 1.74152 1.77516
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
