# slowdown_32x32_torus: written by faultmesh plot; run `gnuplot docs/img/slowdown_32x32_torus.gp` from the same directory to redraw
data = 'docs/img/slowdown_32x32_torus.dat'
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
plot data index 'block d:' using 2:xtic(1) title 'ft2d' lc 1, data index 'block d:' using 3 title 'shrink' lc 2
unset output
set terminal svg size 900,500 noenhanced font 'Sans,11' background rgb 'white'
set output 'docs/img/slowdown_32x32_torus.svg'
plot data index 'block d:' using 2:xtic(1) title 'ft2d' lc 1, data index 'block d:' using 3 title 'shrink' lc 2
unset output
