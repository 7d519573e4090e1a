# slowdown_32x32_mesh: written by faultmesh plot; run `gnuplot slowdown_32x32_mesh.gp` to redraw
$d << EOD
"faultfree" 1.00000 1.00000 0.97101
"board_centre" 2.45107 0.99904 0.96726
"board_edge" 2.87945 0.99810 0.96726
"board_corner" 2.87945 0.96378 0.96726
"two_boards" 3.50939 1.00923 0.96977
"one_link" 2.08085 0.98264 0.97101
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
