#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Draws the studies' figures, docs/studies/fig/*.svg, from the JSON rows
# kept beside them (docs/studies/*.jsonl), with the fdma command's own SVG
# writer (fdma plot, docs/plots.md): one figure per table that has rows,
# linked beside it in the study. Nothing is measured here: every point is
# a row of a file. Run from the top of the tree after `make`:
#
#   sh docs/studies/figures.sh            # all of them
#   sh docs/studies/figures.sh net-64b    # those whose name starts so
#
# With rsvg-convert (Debian's librsvg2-bin) each figure is also rendered
# to build/fig/NAME.png, to look at.
set -eu
FDMA=${FDMA:-build/fdma}
D=docs/studies
OUT=$D/fig
ONLY=${1:-}
mkdir -p "$OUT"

# fig NAME ARGS...: fdma plot ARGS -o fig/NAME.svg, then its PNG.
fig() {
	name=$1
	shift
	case $name in "$ONLY"*) ;; *) return 0 ;; esac
	"$FDMA" plot "$@" -o "$OUT/$name.svg"
	echo "$OUT/$name.svg"
	if command -v rsvg-convert >/dev/null 2>&1; then
		mkdir -p build/fig
		rsvg-convert "$OUT/$name.svg" -o "build/fig/$name.png"
	fi
}

# netfig NAME ARGS...: a figure of net rows, their devices named as the tables name them.
netfig() {
	fig "$@" --rename "sim:engine=xdma,loop=1=XDMA model" --rename "sim:loop=1=FDMA model" \
		--rename ",wire=100= + 100 Mbit/s wire" --rename ",cpus=1=" --rename ",poll_us=1000="
}
MODEL="The models' figures (fdma loop on sim:, every frame checked) on a 2-core VM: not a card's."

# ---- net.md: fdma loop over the models' joined stream pairs ----
# These rows are from before the JSON units were made one: their mbps is
# Mbit/s of frame bytes (fdma loop's mbit_s now), as the tables say.

fig net-wire100 "$D/net-wire100.jsonl" --x size --logx --xlabel "frame size" \
	--y mbps --ylabel "Mbit/s of frame bytes" --group mode \
	--y2 irqs_per_packet --y2label "interrupts per frame" \
	--title "FDMA model, gen2 x1 and a 100 Mbit/s wire: per-packet against batched" \
	--note "$MODEL Measured at 87979cc, 2 s per size."
fig net-gen2x1 "$D/net-gen2x1.jsonl" --x size --logx --xlabel "frame size" \
	--y pps --logy --ylabel "frames/s" --group mode \
	--y2 cpu_pct --y2label "CPU %, both threads" \
	--title "FDMA model, gen2 x1 link alone: per-packet against batched" \
	--note "$MODEL Measured at 87979cc, 2 s per size."
# Ten (or three, five) runs of 64-byte frames per device: each run a point, per-packet and
# batched a decade or more apart on the log axis when the ratio reaches 10.
runs() {
	name=$1
	file=$2
	shift 2
	netfig "$name" "$D/$file" --x @run --y pps --logy --ylabel "frames/s (64 bytes)" \
		--group uri,mode --points "$@"
}
runs net-64b-reps net-64b-reps.jsonl --title "64-byte frames, three runs per device (ab1f70e)" \
	--note "$MODEL Each run a point; a decade apart is the issue's 10 times."
fig net-64b-spin-yield "$D/net-64b-spin.jsonl" "$D/net-64b-yield.jsonl" --where "uri=sim:loop=1" \
	--x @run --y pps --logy --ylabel "frames/s (64 bytes)" --group @file,mode --points \
	--rename "net-64b-spin.jsonl=idle spin: pause" \
	--rename "net-64b-yield.jsonl=idle spin: sched_yield()" \
	--title "FDMA model, gen2 x1: the idle spin, pause or sched_yield() (14a1ff6)" \
	--note "$MODEL Five runs each, in turn."
runs net-64b-fetch net-64b-fetch.jsonl \
	--title "64-byte frames with the descriptor fetch charged, ten runs per device (7f2cf10)" \
	--note "$MODEL"
fig net-64b-fetch-ab "$D/net-64b-fetch-ab.jsonl" --x @run --y pps --logy \
	--ylabel "per-packet frames/s (64 bytes)" --group fetch_rtt --points \
	--rename "false=model without the fetch's round trip" --rename "true=model with it" \
	--title "FDMA model, gen2 x1, per-packet: without and with the fetch's round trip" \
	--note "$MODEL Eight runs each, in turn."
runs net-64b-sf net-64b-sf.jsonl \
	--title "64-byte frames with store and forward on the wire, ten runs per device (b5fc503)" \
	--note "$MODEL"
runs net-64b-msi net-64b-msi.jsonl \
	--title "64-byte frames, the XDMA model's interrupt sent after its lock (efbc6cc)" \
	--note "$MODEL"
fig net-64b-placement "$D/net-64b-placement.jsonl" --x @run --y pps --logy \
	--ylabel "frames/s (64 bytes)" --group host_cpus,mode --points \
	--rename "0-1=threads free on both CPUs" --rename "0, =all on CPU 0 (taskset -c 0), " \
	--title "FDMA model, gen2 x1: where the threads run, six runs each (d94fdd4)" \
	--note "$MODEL"
runs net-64b-apart net-64b-apart.jsonl \
	--title "64-byte frames, the model's threads on CPU 1, the host's on CPU 0 (98386ed)" \
	--note "$MODEL Ten runs per device."
runs net-64b-apart-poll net-64b-apart-poll.jsonl \
	--title "The same, the channels polling 1 ms before they sleep (d94fdd4)" \
	--note "$MODEL Ten runs per device."
netfig net-sizes-apart "$D/net-sizes-apart.jsonl" \
	--where "uri=sim:loop=1,cpus=1|sim:engine=xdma,loop=1,cpus=1" \
	--x size --logx --xlabel "frame size" --y pps --logy --ylabel "frames/s" \
	--group uri,mode \
	--title "Frame sizes, the model on CPU 1 and the host on CPU 0: the link alone (98386ed)" \
	--note "$MODEL One run per size."
netfig net-sizes-apart-wire "$D/net-sizes-apart.jsonl" \
	--where "uri=sim:loop=1,wire=100,cpus=1|sim:engine=xdma,loop=1,wire=100,cpus=1" \
	--x size --logx --xlabel "frame size" --y mbps --ylabel "Mbit/s of frame bytes" \
	--group uri,mode \
	--title "Frame sizes over a 100 Mbit/s wire, the model on CPU 1, the host on CPU 0 (98386ed)" \
	--note "$MODEL One run per size."
fig net-wakeup "$D/net-wakeup.jsonl" --x @run --y cross_cpu_wake_us,same_cpu_wake_us --points \
	--ylabel "microseconds" \
	--rename "cross_cpu_wake_us=a thread woken from the other CPU" \
	--rename "same_cpu_wake_us=woken on its own CPU" \
	--title "fdma doctor's cpu.wakeup on this 2-vCPU VM, twenty runs on an idle host (d94fdd4)" \
	--note "The machine's figure, measured by fdma doctor (half the median round trip of a token between two threads)."

# ---- dmaengine.md: fdma_dmac.ko in a QEMU guest (TCG) ----

TCG="A guest under TCG: its CPU shares compare the modes with each other; they are not hardware's."
# Log y: the result is a ratio (at most 1/10), a decade on the axis.
fig dmaengine-3s "$D/dmaengine-3s.jsonl" --x copies_per_s --logx --xlabel "copies/s reached" \
	--y guest_cpu_pct --logy --ylabel "guest CPU, % of a vCPU" --group mode,size \
	--rename ", 4096=, 4 KiB" --rename ", 65536=, 64 KiB" --rename ", 1048576=, 1 MiB" \
	--title "dmaengine memcpy in a guest: sync, async and signal, 3 s per run" \
	--note "$TCG Asked 100, 1000 and 4000 copies/s; sync reaches 1468 and 1978 of 4000. At d6178cb."
fig dmaengine-10s "$D/dmaengine-10s.jsonl" --x size --logx --xlabel "copy size" \
	--y guest_cpu_pct --logy --ylabel "guest CPU, % of a vCPU" --group mode --points \
	--title "dmaengine memcpy in a guest at 100 copies/s, 10 s per run" \
	--note "$TCG At d6178cb."

# ---- threads.md: one thread, then two, on channels of their own (16-core machine) ----

# threadfig NAME ARGS...: the sections (tb_new, tb_old: the library after and before) named.
threadfig() {
	fig "$@" --rename "tb_new=after" --rename "tb_old=before" \
		--rename ": t0_per_s=, thread 0" --rename ": t1_per_s=, thread 1" \
		--rename " spin 256x8=, spin, batch 8" --rename " sleep 256x32=, sleep, batch 32"
}
threadfig threads-calls "$D/threads-16core.jsonl" --where bench=calls --x threads --xlabel "threads" \
	--y t0_per_s,t1_per_s --ylabel "fdma_inflight() calls/s, per thread" --group @section \
	--points \
	--title "Calls on channels of their own: before and after (3 runs each)" \
	--note "sim:paced=0 on an idle 16-core x86-64 machine; before is the library at 3123ba6."
threadfig threads-xfer "$D/threads-16core.jsonl" --where bench=xfer --x threads --xlabel "threads" \
	--y t0_per_s,t1_per_s --ylabel "256-byte transfers/s, per thread" --group @section \
	--points \
	--title "Transfers on channels of their own: before and after (3 runs each)" \
	--note "sim:paced=0 on an idle 16-core x86-64 machine; before is the library at 3123ba6; every byte checked."
