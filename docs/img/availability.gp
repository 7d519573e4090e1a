# availability: written by faultmesh plot; run `gnuplot docs/img/availability.gp` from the same directory to redraw
data = 'docs/img/availability.dat'
set title 'Goodput of a 28-day job, 1024 chips, board MTBF 8760 h (95 % CI)'
set ylabel 'goodput'
set style data histograms
set style histogram errorbars gap 2 lw 1.5
set style fill solid 0.85 border -1
set grid ytics
set yrange [0.20:1]
set key below
set terminal pngcairo size 800,500 noenhanced font 'Sans,11'
set output 'docs/img/availability.png'
plot data index 'block d:' using 2:3:xtic(1) title '(a) stop-and-repair' lc 2, data index 'block d:' using 4:5 title '(b) route around (ft2d)' lc 1, data index 'block d:' using 6:7 title '(b) fastest algorithm' lc 3
unset output
set terminal svg size 800,500 noenhanced font 'Sans,11' background rgb 'white'
set output 'docs/img/availability.svg'
plot data index 'block d:' using 2:3:xtic(1) title '(a) stop-and-repair' lc 2, data index 'block d:' using 4:5 title '(b) route around (ft2d)' lc 1, data index 'block d:' using 6:7 title '(b) fastest algorithm' lc 3
unset output
