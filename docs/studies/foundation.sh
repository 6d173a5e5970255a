#!/bin/sh
# Reproduces docs/studies/foundation.md: the foundation's performance targets
# and the tables around them, on the simulated device. Run from the top of
# the tree after `make`; prints JSON lines (one per measurement) to stdout.
# Throughput on the unpaced device depends on the machine's caches and on
# its neighbours: each target is run several times and every run is kept.
set -eu
FDMA=${FDMA:-build/fdma}
RUNS=${RUNS:-5}

run() { echo "# $*" >&2; "$@"; }

# Target 1: unpaced, C2H 64 KiB, batch 32, against memcpy of the same bytes.
for i in $(seq "$RUNS"); do
	run "$FDMA" bench sim:paced=0 --dir c2h --sizes 64K --batch 32 --seconds 3 --json
done
# Target 2: unpaced, 256 B transfers, batch 32: transfers per second.
for i in $(seq "$RUNS"); do
	run "$FDMA" bench sim:paced=0 --dir c2h --sizes 256 --batch 32 --seconds 3 --json
done
# Target 3: paced gen2 x1 MPS 256, 1 MiB, sleep + coalescing: % of ceiling and CPU.
for i in $(seq 3); do
	run "$FDMA" bench sim:gen=2,lanes=1,mps=256 --dir c2h --sizes 1M --batch 32 \
		--wait sleep --coalesce 8 --seconds 3 --json
done
# Around the targets: sizes, both directions, on the paced gen2 x1 link.
for dir in c2h h2c; do
	run "$FDMA" bench sim:gen=2,lanes=1,mps=256 --dir "$dir" --sizes 4K..4M --batch 32 \
		--wait sleep --coalesce 8 --seconds 2 --json
done
# Wait modes and coalescing at 64 KiB on the paced link.
for w in spin sleep adaptive; do
	run "$FDMA" bench sim:gen=2,lanes=1,mps=256 --sizes 64K --wait "$w" --seconds 2 --json
done
for c in 0 8 32,200; do
	run "$FDMA" bench sim:gen=2,lanes=1,mps=256 --sizes 64K --wait sleep --coalesce "$c" --seconds 2 --json
done
# A faster link: gen3 x4, where the software's cost starts to show.
run "$FDMA" bench sim:gen=3,lanes=4,mps=256 --dir c2h --sizes 4K..4M --batch 32 \
	--wait sleep --coalesce 8 --seconds 2 --json
# Camera stream: 1080p (3110400-byte frames) at 30 fps on the gen2 x1 link.
run "$FDMA" stream sim:gen=2,lanes=1,mps=256 --frame-size 3110400 --fps 30 --seconds 10 --json
