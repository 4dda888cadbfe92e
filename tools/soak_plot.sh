#!/usr/bin/env bash
# Plots a soak CSV (tests/soak --csv): resident memory and CUDA's allocated and reserved bytes
# per step, as a PNG (gnuplot). Usage: tools/soak_plot.sh CSV PNG TITLE
set -euo pipefail
CSV="${1:?usage: tools/soak_plot.sh CSV PNG TITLE}"; PNG="${2:?}"; TITLE="${3:-soak}"
gnuplot <<GP
set terminal pngcairo size 900,500 noenhanced
set output "$PNG"
set datafile separator ","
set key autotitle columnhead left center
set xlabel "step"
set ylabel "MiB"
set yrange [0:*]
set title "$TITLE"
plot "$CSV" using 1:2 with lines lw 2, "" using 1:3 with lines lw 2, "" using 1:4 with lines lw 2
GP
