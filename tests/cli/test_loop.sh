#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fdma loop: frames out and back through the model's joined stream pairs
# (sim:loop=1), every byte and the order checked, per ring discipline:
# per-packet rings a doorbell per frame on each side, batched fewer than
# one. Short runs, no timing targets.

. tests/cli/lib.sh

fdma loop sim:loop=1,paced=0 --sizes 64,1500 --seconds 0.3 --json
json "loop: both modes for each size, every frame back, none lost" \
	'len(L) == 4 and all(o["errors"] == 0 and o["frames"] > 0 and o["pps"] > 0 for o in L) and [(o["mode"], o["size"]) for o in L] == [("per-packet", 64), ("batched", 64), ("per-packet", 1500), ("batched", 1500)]'
json "loop: per-packet rings two doorbells a frame (send, give the buffer back), batched fewer than one" \
	'all(abs(o["doorbells_per_packet"] - 2) < 0.01 for o in L if o["mode"] == "per-packet") and all(o["doorbells_per_packet"] < 1 for o in L if o["mode"] == "batched")'

fdma loop sim:loop=1,streams=2,paced=0 --sizes 100 --mode batched --seconds 0.2 --json
json "loop on two joined pairs: pair 0's H2C to pair 1's C2H" \
	'L[0]["tx"] == 3 and L[0]["rx"] == 4 and L[0]["errors"] == 0 and L[0]["frames"] > 0'

fdma loop sim:loop=1,wire=100 --sizes 1000 --mode batched --seconds 0.5 --json
json "loop over a 100 Mbit/s wire: at most the wire's rate (1000-byte frames take 1024 bytes of it)" \
	'L[0]["errors"] == 0 and 0 < L[0]["mbit_s"] <= 100 * 1000 / 1024 * 1.02'
# One unit per key across the commands: mbps is MB/s (10^6 bytes/s) here as
# in bench, stream and dump; Mbit/s is mbit_s.
json "loop: mbps is MB/s, mbit_s Mbit/s, both of the frames' bytes over the window" \
	'abs(L[0]["mbps"] * 8 - L[0]["mbit_s"]) <= 0.02 * L[0]["mbit_s"] + 0.1 and abs(L[0]["pps"] * 1000 / 1e6 - L[0]["mbps"]) <= 0.02 * L[0]["mbps"] + 0.1'

# XDMA's AXI-ST (the XDMA model, engine=xdma): frames of any length out,
# into C2H buffers of 64-byte multiples; no interrupt timer.
fdma loop sim:engine=xdma,loop=1,paced=0 --sizes 65,1500 --seconds 0.3 --json
json "loop on the XDMA model: odd sizes into 64-byte-unit buffers, every frame back" \
	'len(L) == 4 and all(o["errors"] == 0 and o["frames"] > 0 for o in L) and all(o["doorbells_per_packet"] < 1 for o in L if o["mode"] == "batched")'

expect_fail "loop on a stream channel fed by its test generator names loop=1" "loop=1" \
	loop sim: --sizes 64 --seconds 0.1
expect_fail "loop without stream channels says what it needs" "stream channel" \
	loop sim:streams=0 --sizes 64 --seconds 0.1
expect_usage "loop --mode sideways exits 2" loop sim:loop=1 --mode sideways
expect_usage "loop --sizes 0 exits 2" loop sim:loop=1 --sizes 0
expect_usage "loop --burst 1000 exits 2" loop sim:loop=1 --burst 1000
expect_usage "loop without a URI exits 2" loop

# Ctrl-C: the run in progress ends with its row, interrupted, exit 0, as
# bench and stream end; no other size or mode starts.
"$FDMA" loop sim:loop=1 --sizes 64,1500 --seconds 20 --json >"$T/out" 2>"$T/err" &
pid=$!
wait_caught "$pid"
sleep 0.5
kill -INT "$pid"
wait "$pid"
rc=$?
json "loop interrupted by SIGINT: one row, interrupted true, frames checked, exit 0" \
	'len(L) == 1 and L[0]["interrupted"] is True and L[0]["frames"] > 0 and L[0]["errors"] == 0 and L[0]["seconds"] < 15'
if grep -q "interrupted during the 64-byte per-packet run" "$T/err"; then
	ok "loop interrupted: stderr says during which run"
else
	bad "loop interrupted: stderr says during which run" "$(errline)"
fi
fdma loop sim:loop=1,paced=0 --sizes 64 --mode batched --seconds 0.2 --json
json "loop not interrupted: interrupted false" 'L[0]["interrupted"] is False'

# A progress line on a terminal (script(1) gives the run one), none in a pipe.
if command -v script >/dev/null 2>&1; then
	script -qec "$FDMA loop sim:loop=1,paced=0 --sizes 64 --mode batched --seconds 1.2" \
		/dev/null >"$T/tty" 2>&1
	if grep -q "batched 64 bytes: [0-9.]* s of 1.2" "$T/tty"; then
		ok "loop on a terminal: a progress line"
	else
		bad "loop on a terminal: a progress line" "$(tr '\r' '|' <"$T/tty" | head -c 200)"
	fi
else
	skip "loop's progress line on a terminal (no script: apt-get install bsdutils)"
fi
fdma loop sim:loop=1,paced=0 --sizes 64 --mode batched --seconds 0.7
if [ "$rc" -eq 0 ] && ! grep -q "s of 0.7" "$T/err"; then
	ok "loop in a pipe: no progress line"
else
	bad "loop in a pipe: no progress line" "exit $rc: $(errline)"
fi
finish
