#!/bin/sh
# make demo: the main job on the built-in simulated device (gen2 x1, MPS 256).
set -e
FDMA=${1:-build/fdma}
DEV=sim:gen=2,lanes=1,mps=256,paced=1

echo "== fdma info $DEV"
"$FDMA" info "$DEV"
echo
echo "== 1080p frames (3110400 bytes, YUV 4:2:0) from the test generator at 30 fps for 4 s, every frame checked"
"$FDMA" stream "$DEV" --testgen --frame-size 3110400 --fps 30 --seconds 4 --require-fps 29
echo
echo "== captured to a file (raw frames), then played back into the H2C test checker"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fdma-demo.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$FDMA" stream "$DEV" --testgen --frame-size 3110400 --fps 30 --frames 30 -o "$TMP/frames.raw"
"$FDMA" play "$DEV" "$TMP/frames.raw" --frame-size 3110400 --testgen
echo
echo "== C2H bench, sleep + coalescing, beside the link ceiling"
"$FDMA" bench "$DEV" --dir c2h --sizes 4K,64K,1M --batch 32 --wait sleep --coalesce 8 --seconds 1
echo
echo "== H2C bench, same link"
"$FDMA" bench "$DEV" --dir h2c --sizes 64K,1M --batch 32 --wait sleep --coalesce 8 --seconds 1
echo
echo "== unpaced: the software's own limit, beside memcpy of the same bytes"
echo "   (both share the CPUs with whatever else runs: the load they met is said under the table)"
"$FDMA" bench sim:paced=0 --dir c2h --sizes 256,64K,1M --batch 32 --wait adaptive --seconds 1
