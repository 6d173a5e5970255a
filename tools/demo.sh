#!/bin/sh
# make demo: the main job on the built-in simulated device (gen2 x1, MPS 256).
set -e
FDMA=${1:-build/fdma}
DEV=sim:gen=2,lanes=1,mps=256,paced=1

echo "== fdma info $DEV"
"$FDMA" info "$DEV"
echo
echo "== 1080p frames (3110400 bytes, YUV 4:2:0) at 30 fps for 4 s, every frame checked"
"$FDMA" stream "$DEV" --frame-size 3110400 --fps 30 --seconds 4
echo
echo "== C2H bench, sleep + coalescing, beside the link ceiling"
"$FDMA" bench "$DEV" --dir c2h --sizes 4K,64K,1M --batch 32 --wait sleep --coalesce 8 --seconds 1
echo
echo "== H2C bench, same link"
"$FDMA" bench "$DEV" --dir h2c --sizes 64K,1M --batch 32 --wait sleep --coalesce 8 --seconds 1
echo
echo "== unpaced: the software's own limit, beside memcpy of the same bytes"
"$FDMA" bench sim:paced=0 --dir c2h --sizes 256,64K,1M --batch 32 --wait adaptive --seconds 1
