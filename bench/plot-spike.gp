# plot-spike.gp: plots of the memory-spike run (called by bench/spike.sh).
# Variables (gnuplot -e): csv = spike-samples.csv, outdir = where the PNGs go,
# prefix = the PNG names' prefix (spike, coll),
# methods = "forkless fork redis", runs = the run to draw for each method
# (same order), cond = one line of conditions for the titles; event = what
# starts at t = 2 s (default "BGSAVE"; bench/replication.sh: "REPLICAOF"),
# target = the worst-PING target line in ms (default 2).
# CSV columns: method,run,t_ms,pss_bytes,sets_per_s,ping_ms,saving (then
# rss_bytes,obuf_bytes, unused here)

set datafile separator ","
if (!exists("event")) event = "BGSAVE"
if (!exists("target")) target = 2
set terminal pngcairo size 1200,760 font ",11"
set grid
set key below horizontal
set xlabel "time since load start (s)"

m(i) = word(methods, i)
r(i) = word(runs, i) + 0
sel(i) = (strcol(1) eq m(i) && column(2) == r(i))
lbl(i) = sprintf("%s (run %d)", m(i) eq "redis" ? "redis-server 7.0 fork" : "verso ".m(i), r(i))
set arrow 1 from 2, graph 0 to 2, graph 1 nohead dashtype 2 lc rgb "gray40"
set label 1 event at 2, graph 0.04 offset 0.5, 0 tc rgb "gray40"

# Memory: summed Pss of server and children; thick where a save is running.
set output outdir."/".prefix."-memory.png"
set title "Memory during ".event.": Pss of server + children, sampled every 100 ms\n".cond
set ylabel "Pss (MiB)"
plot for [i=1:words(methods)] csv skip 1 \
        using (sel(i) ? $3 / 1000.0 : NaN):($4 / 1048576.0) \
        with lines lw 2 lc i title lbl(i), \
     for [i=1:words(methods)] csv skip 1 \
        using (sel(i) && column(7) == 1 ? $3 / 1000.0 : NaN):($4 / 1048576.0) \
        with points pt 7 ps 0.5 lc i notitle

# Latency and throughput: worst PING of each 100 ms, SETs per second.
set output outdir."/".prefix."-ping.png"
set multiplot layout 2, 1 title "PING every 2 ms and SET throughput, dots = ".(event eq "BGSAVE" ? "save" : "sync")." running\n".cond
set title sprintf("worst PING round trip per 100 ms (target during the %s: <= %g ms)", event eq "BGSAVE" ? "save" : "sync", target)
set ylabel "ms"
set logscale y
set yrange [0.01:*]
set arrow 2 from graph 0, first target to graph 1, first target nohead lc rgb "red" dashtype 3
plot for [i=1:words(methods)] csv skip 1 \
        using (sel(i) ? $3 / 1000.0 : NaN):($6 > 0 ? $6 : NaN) \
        with lines lw 1.5 lc i title lbl(i), \
     for [i=1:words(methods)] csv skip 1 \
        using (sel(i) && column(7) == 1 ? $3 / 1000.0 : NaN):($6 > 0 ? $6 : NaN) \
        with points pt 7 ps 0.5 lc i notitle
unset arrow 2
unset logscale y
set yrange [0:*]
set title "SETs completed per second (100 ms windows)"
set ylabel "SET/s"
plot for [i=1:words(methods)] csv skip 1 \
        using (sel(i) ? $3 / 1000.0 : NaN):5 \
        with lines lw 1.5 lc i title lbl(i), \
     for [i=1:words(methods)] csv skip 1 \
        using (sel(i) && column(7) == 1 ? $3 / 1000.0 : NaN):5 \
        with points pt 7 ps 0.5 lc i notitle
unset multiplot
