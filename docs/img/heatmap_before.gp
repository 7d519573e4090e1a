# heatmap_before: written by faultmesh plot; run `gnuplot docs/img/heatmap_before.gp` from the same directory to redraw
data = 'docs/img/heatmap_before.dat'
out = 'docs/img/heatmap_before'
title = 'Link utilization, point before (32x32 mesh, ft2d, fault-free)'
W = 32
H = 32
cmax = 0.55404373
has_dead = 0
has_cut = 0
px = 1400
py = 1400
# Link-utilization heatmap of one run, for `faultmesh plot` and `faultmesh report paper`
# (sim/plot.cpp). Every live link direction is an arrow beside its link, coloured by its
# utilization; chips are squares, failed chips filled grey, links that failed on their own
# (not with a chip) dashed red. faultmesh writes NAME.gp as the variables below followed by
# this file, and the data to NAME.dat, whose blocks are:
#   block links:  x y dx dy utilization   (one arrow per live link direction)
#   block live:   x y                     (working chips)
#   block dead:   x y                     (failed chips; only when has_dead)
#   block cut:    x y dx dy               (links failed on their own; only when has_cut)
# Variables: data (the .dat file), out (output path without extension), title, W, H (mesh
# size), cmax (the colour range's top), has_dead, has_cut (0/1), px, py (pixels).
step = (W > H ? W : H) / 16
if (step < 1) step = 1
set title title
set size ratio -1
set xrange [-0.7:W - 0.3]
set yrange [-0.7:H - 0.3]
set xtics 0, step
set ytics 0, step
set xlabel 'x'
set ylabel 'y (N up)'
set palette defined (0 '#f7fbff', 0.25 '#9ecae1', 0.5 '#fdae6b', 0.75 '#e6550d', 1 '#67000d')
set cbrange [0:(cmax > 1e-6 ? cmax : 1e-6)]
set cblabel 'flits/cycle per link direction'
set key below
p = "data index 'block links:' using 1:2:3:4:5 with vectors head size 0.08,25 filled lw 2.5 lc palette notitle"
p = p . ", data index 'block live:' using 1:2:(0.2):(0.2) with boxxyerror fs empty lc rgb 'black' lw 1 notitle"
if (has_dead) p = p . ", data index 'block dead:' using 1:2:(0.45):(0.45) with boxxyerror fs solid 1.0 noborder lc rgb '#303030' title 'failed chip'"
if (has_cut) p = p . ", data index 'block cut:' using 1:2:3:4 with vectors nohead dt 2 lw 3 lc rgb '#d00000' title 'failed link'"
do for [kind in "png svg"] {
  if (kind eq "png") {
    set terminal pngcairo size px, py noenhanced font 'Sans,11'
  } else {
    set terminal svg size px, py noenhanced font 'Sans,11' background rgb 'white'
  }
  set output out . "." . kind
  eval "plot " . p
  unset output
}
