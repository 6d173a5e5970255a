#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The CUDA example (examples/gpu/fdma_gpu_stream.cu, make gpu-example):
# bad options are refused (exit 2, a message); without a GPU it says "no
# GPU" and exits 77 in every mode; with one, the dma-buf and host modes
# stream frames from the simulated device and check every payload word on
# the GPU (exit 0, "errors":0), and the NVIDIA P2P mode is refused there
# (exit 2: it needs fdma.ko).
#
#   sh tests/cli/test_gpu.sh

. tests/cli/lib.sh

G=${BUILD:-build}/examples/fdma-gpu-stream
if [ ! -x "$G" ]; then
	skip "every check: $G not built (no nvcc: make gpu-example)"
	finish
fi

# run ARGS...: the example; output in $T/out and $T/err, status in $rc.
run() {
	$TO "$G" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

run --mode bogus
if [ "$rc" -eq 2 ] && grep -q "gpu, nvp2p or host" "$T/err"; then ok "a bad --mode is refused"; else bad "a bad --mode is refused" "exit $rc"; fi
run --frames
if [ "$rc" -eq 2 ] && grep -q 'needs a value' "$T/err"; then ok "a missing value is refused"; else bad "a missing value is refused" "exit $rc"; fi
run --help
if [ "$rc" -eq 0 ] && grep -q '^usage: fdma-gpu-stream' "$T/out"; then ok "--help"; else bad "--help" "exit $rc"; fi

for mode in gpu nvp2p host; do
	run --mode $mode --frames 200 --frame-len 65536
	if [ "$rc" -eq 77 ]; then
		if grep -q '^fdma-gpu-stream: no GPU' "$T/out"; then
			ok "$mode: no GPU here, said so (exit 77)"
		else
			bad "$mode: exit 77 without saying no GPU"
		fi
	elif [ $mode = nvp2p ] && [ "$rc" -eq 2 ] && grep -q "the kernel driver's: kdev:" "$T/err"; then
		ok "$mode: refused on the simulated device, saying why"
	elif [ "$rc" -eq 0 ] && grep -q "\"mode\":\"$mode\",\"frames\":200,.*\"errors\":0," "$T/out"; then
		ok "$mode: 200 frames checked on the GPU: $(cat "$T/out")"
	else
		bad "$mode" "exit $rc: $(cat "$T/out") $(errline)"
	fi
done
finish
