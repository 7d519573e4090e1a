# slowdown_16x32_mesh: written by faultmesh plot; run `gnuplot slowdown_16x32_mesh.gp` to redraw
$d << EOD
"faultfree" 1.00000 1.00000 1.24189
"board_centre" 0.94461 1.00249 1.23219
"board_edge" 0.97919 0.99875 1.23219
"board_corner" 0.99998 0.99875 1.23219
"two_boards" 0.99129 1.01050 1.22247
"one_link" 0.99640 1.00792 1.24189
"board_mid" 1.56238 1.61151 1.96330
EOD
set title 'Allreduce time vs fault-free ft2d, BERT-large fp32 (fit), 16x32 mesh'
set ylabel 'slowdown (x)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set grid ytics
set yrange [0:*]
set key top left
set xtics rotate by -20
set terminal pngcairo size 900,500 noenhanced font 'Sans,11'
set output 'docs/img/slowdown_16x32_mesh.png'
plot $d using 2:xtic(1) title 'ft2d' lc 1, '' using 3 title 'shrink' lc 2, '' using 4 title 'snake' lc 3
unset output
set terminal svg size 900,500 noenhanced font 'Sans,11' background rgb 'white'
set output 'docs/img/slowdown_16x32_mesh.svg'
plot $d using 2:xtic(1) title 'ft2d' lc 1, '' using 3 title 'shrink' lc 2, '' using 4 title 'snake' lc 3
unset output
