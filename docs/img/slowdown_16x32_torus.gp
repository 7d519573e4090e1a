# slowdown_16x32_torus: written by faultmesh plot; run `gnuplot slowdown_16x32_torus.gp` to redraw
$d << EOD
"faultfree" 1.00000 1.00000 0.99386
"board_centre" 2.63594 1.71870 0.99599
"board_edge" 1.94969 1.02748 0.99648
"board_corner" 1.94670 1.02748 0.99648
"two_boards" 3.50860 11.31840 3.49435
"one_link" 4.30547 6.48857 0.99386
EOD
set title 'Allreduce time vs fault-free ft2d, BERT-large fp32 (fit), 16x32 torus'
set ylabel 'slowdown (x)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set grid ytics
set yrange [0:*]
set key top left
set xtics rotate by -20
set terminal pngcairo size 900,500 noenhanced font 'Sans,11'
set output 'docs/img/slowdown_16x32_torus.png'
plot $d using 2:xtic(1) title 'ft2d' lc 1, '' using 3 title 'shrink' lc 2, '' using 4 title 'snake' lc 3
unset output
set terminal svg size 900,500 noenhanced font 'Sans,11' background rgb 'white'
set output 'docs/img/slowdown_16x32_torus.svg'
plot $d using 2:xtic(1) title 'ft2d' lc 1, '' using 3 title 'shrink' lc 2, '' using 4 title 'snake' lc 3
unset output
