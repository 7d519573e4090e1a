# slowdown_16x32_torus: written by faultmesh plot; run `gnuplot slowdown_16x32_torus.gp` to redraw
$d << EOD
"faultfree" 1.00000 1.00000 0.89099
"board_centre" 1.06136 0.83356 0.89290
"board_edge" 1.06136 0.83356 0.89333
"board_corner" 1.06743 0.83356 0.89333
"two_boards" 1.50521 1.72894 1.64656
"one_link" 1.25041 3.18295 0.89099
"board_mid" 1.77604 1.54824 1.53905
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
