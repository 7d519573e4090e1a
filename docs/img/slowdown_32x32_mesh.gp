# slowdown_32x32_mesh: written by faultmesh plot; run `gnuplot slowdown_32x32_mesh.gp` to redraw
$d << EOD
"faultfree" 1.00000 1.00000 1.12387
"board_centre" 1.46874 0.99293 1.11953
"board_edge" 1.16871 1.10897 1.11953
"board_corner" 1.48195 1.23685 1.11953
"two_boards" 1.35149 1.15406 1.11514
"one_link" 1.18843 1.16170 1.12387
"board_mid" 2.09368 1.61807 1.80779
EOD
set title 'Allreduce time vs fault-free ft2d, BERT-large fp32 (fit), 32x32 mesh'
set ylabel 'slowdown (x)'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set grid ytics
set yrange [0:*]
set key top left
set xtics rotate by -20
set terminal pngcairo size 900,500 noenhanced font 'Sans,11'
set output 'docs/img/slowdown_32x32_mesh.png'
plot $d using 2:xtic(1) title 'ft2d' lc 1, '' using 3 title 'shrink' lc 2, '' using 4 title 'snake' lc 3
unset output
set terminal svg size 900,500 noenhanced font 'Sans,11' background rgb 'white'
set output 'docs/img/slowdown_32x32_mesh.svg'
plot $d using 2:xtic(1) title 'ft2d' lc 1, '' using 3 title 'shrink' lc 2, '' using 4 title 'snake' lc 3
unset output
