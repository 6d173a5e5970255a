#!/bin/sh
# Reproduces docs/studies/threads.md: one thread, then two, each on its own
# channel of one unpaced simulated device, through the public library
# only. Run from the top of the tree after `make`; prints JSON lines.
#   sh docs/studies/threads.sh [RUNS] [LIB]
# LIB: the library archive to link (default: the build's internal archive;
# give an older tree's archive to compare against it).
set -eu
RUNS=${1:-3}
LIB=${2:-build/libfdma-internal.a}
BIN=${TMPDIR:-/tmp}/fdma-threads-bench.$$
trap 'rm -f "$BIN"' EXIT
# liburing where the library was built with it (its kdev: backend's synchronous transfers).
URING=$([ -e /usr/include/liburing.h ] && echo -luring)
cc -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Iinclude docs/studies/threads_bench.c "$LIB" \
	$URING -lz -lm -pthread -o "$BIN"
for i in $(seq "$RUNS"); do
	echo "# spin 256x8" >&2
	"$BIN" 1.5 256 8 spin
	echo "# sleep 256x32" >&2
	"$BIN" 1.5 256 32 sleep | grep '"xfer"'
done
