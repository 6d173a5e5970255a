#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The GStreamer elements (gst/: fdmasrc, fdmasink) as a user runs them,
# with gst-launch-1.0 and gst-inspect-1.0 on the simulated device: every
# frame that goes through a pipeline is checked (by the test generator's
# rule here, or by the device's own checker), then the element test
# program (tests/gst/test_gstfdma, gst-check) on the FDMA and XDMA models.
# Under the sanitizer builds the plugin is built with them: their runtime
# is preloaded into GStreamer's tools (the test program has it linked in).

. tests/cli/lib.sh

BUILD=${BUILD:-build}
PLUGIN=$BUILD/gst/libgstfdma.so
GSTTEST=$BUILD/tests/gst/test_gstfdma

if [ ! -f "$PLUGIN" ]; then
	skip "the GStreamer elements: not built (no GStreamer development files: libgstreamer-plugins-base1.0-dev)"
	finish
fi
if ! command -v gst-launch-1.0 >/dev/null 2>&1; then
	skip "the GStreamer pipelines: no gst-launch-1.0 (gstreamer1.0-tools)"
	finish
fi

# Only this build's plugin, in a registry of its own.
GST_PLUGIN_PATH=$BUILD/gst
GST_REGISTRY=$T/registry.bin
LD_LIBRARY_PATH=$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GST_PLUGIN_PATH GST_REGISTRY LD_LIBRARY_PATH
unset FDMA_DEVICE
# ThreadSanitizer cannot check code beside libraries built without it:
# GLib's mutexes are futexes it does not see, so GStreamer's own threads
# read as races. The elements' threads are checked under ASan instead
# (and by the assertions of tests/gst/).
if nm -D "$BUILD/libfdma.so" 2>/dev/null | grep -q ' U __tsan_init'; then
	skip "the GStreamer elements under ThreadSanitizer: GStreamer and GLib are not built with it"
	finish
fi
PRELOAD=
if nm -D "$BUILD/libfdma.so" 2>/dev/null | grep -q ' U __asan_init'; then
	PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)
fi

# gst ARGS...: gst-launch-1.0 -m ARGS (its messages printed); output in $T/out, status in $rc.
gst() {
	LD_PRELOAD=$PRELOAD $TO gst-launch-1.0 -m "$@" >"$T/out" 2>&1
	rc=$?
}

# expect_gst DESC PATTERN ARGS...: the pipeline ran to its end and printed PATTERN.
expect_gst() {
	_d=$1
	_pat=$2
	shift 2
	gst "$@"
	if [ "$rc" -ne 0 ]; then
		bad "$_d" "exit $rc: $(grep -m 1 -i error "$T/out" | cut -c 1-200)"
	elif ! grep -q -- "$_pat" "$T/out"; then
		bad "$_d" "no '$_pat' in its output"
	else
		ok "$_d"
	fi
}

# expect_gst_fail DESC PATTERN ARGS...: the pipeline failed, saying PATTERN.
expect_gst_fail() {
	_d=$1
	_pat=$2
	shift 2
	gst "$@"
	if [ "$rc" -eq 0 ]; then
		bad "$_d" "exit 0"
	elif ! grep -q -- "$_pat" "$T/out"; then
		bad "$_d" "exit $rc without '$_pat': $(grep -m 1 -i error "$T/out" | cut -c 1-200)"
	else
		ok "$_d"
	fi
}

# ---- the plugin ---------------------------------------------------------------

if LD_PRELOAD=$PRELOAD gst-inspect-1.0 fdmasrc >"$T/out" 2>&1 && grep -q testgen "$T/out" &&
	LD_PRELOAD=$PRELOAD gst-inspect-1.0 fdmasink >>"$T/out" 2>&1 && grep -q check-errors "$T/out"; then
	ok "gst-inspect-1.0 finds fdmasrc and fdmasink with their properties"
else
	bad "gst-inspect-1.0 fdmasrc / fdmasink" "$(head -n 1 "$T/out")"
fi

# ---- fdmasrc: every frame checked ------------------------------------------------

SRC="fdmasrc device=sim: testgen=true drop=false format=bytes"
gst $SRC frame-size=4096 num-buffers=50 ! filesink location="$T/cap.raw"
if [ "$rc" -eq 0 ]; then
	check_frames "$T/cap.raw" 4096 50 "fdmasrc ! filesink: 50 intact frames in order, every byte"
else
	bad "fdmasrc ! filesink" "exit $rc: $(grep -m 1 -i error "$T/out")"
fi

# Pixels: GRAY8 frames of the generator through videoconvert and pngenc,
# decoded back by pngdec; the pixels are the frames, checked here and by
# the device's checker.
gst fdmasrc device=sim: testgen=true drop=false format=GRAY8 width=64 height=48 num-buffers=3 ! \
	videoconvert ! pngenc ! multifilesink location="$T/f%d.png"
if [ "$rc" -ne 0 ]; then
	bad "fdmasrc ! videoconvert ! pngenc" "exit $rc: $(grep -m 1 -i error "$T/out")"
else
	: >"$T/png.raw"
	for i in 0 1 2; do
		gst filesrc location="$T/f$i.png" ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 ! \
			filesink location="$T/png$i.raw"
		cat "$T/png$i.raw" >>"$T/png.raw"
	done
	if [ "$(head -c 4 "$T/f0.png" | od -An -c | tr -d ' ')" = "211PNG" ]; then
		ok "fdmasrc ! videoconvert ! pngenc: PNG files"
	else
		bad "fdmasrc ! videoconvert ! pngenc" "$T/f0.png is not a PNG"
	fi
	check_frames "$T/png.raw" 3072 3 "the PNGs' pixels: 3 intact 64x48 GRAY8 generator frames"
	expect_rc "the PNGs' pixels played into the device's checker: all good" 0 \
		play sim: "$T/png.raw" --frame-size 3072 --testgen
fi

# ---- fdmasink: the device's checker counts every frame ------------------------------

fdma stream sim:paced=0 --testgen --fps 0 --frame-size 4096 --frames 30 -o "$T/s.raw"
expect_gst "filesrc ! fdmasink testgen=true: 30 frames, the checker counts 30 good" \
	'good=(guint64)30, bad=(guint64)0' \
	filesrc location="$T/s.raw" blocksize=4096 ! fdmasink device=sim: testgen=true
# One bit flipped in frame 10: the checker finds it and the pipeline fails.
cp "$T/s.raw" "$T/bad.raw"
printf '\377' | dd of="$T/bad.raw" bs=1 seek=$((10 * 4096 + 100)) conv=notrunc 2>/dev/null
expect_gst_fail "filesrc ! fdmasink testgen=true: a corrupted frame fails the pipeline" \
	"checker found bad frames" \
	filesrc location="$T/bad.raw" blocksize=4096 ! fdmasink device=sim: testgen=true

expect_gst "fdmasrc ! queue ! fdmasink: 200 frames from one device to another, all good" \
	'good=(guint64)200, bad=(guint64)0' \
	$SRC frame-size=8192 num-buffers=200 ! queue ! fdmasink device=sim: testgen=true sync=false

# Ctrl-C (gst-launch -e: an end of stream) on an endless paced stream,
# sent 1 s after the pipeline plays (not after a fixed time from the
# start: on a loaded machine gst-launch may not yet have its SIGINT
# handler, and dies of the signal, exit 130): the frames in flight
# finish, every one is counted good, and gst-launch exits 0.
LD_PRELOAD=$PRELOAD gst-launch-1.0 -e -m \
	fdmasrc device=sim: testgen=true drop=false format=bytes frame-size=2048 framerate=500/1 ! \
	queue ! fdmasink device=sim: testgen=true >"$T/out" 2>&1 &
pid=$!
n=0
while ! grep -q 'Setting pipeline to PLAYING' "$T/out" && kill -0 $pid 2>/dev/null &&
	[ $n -lt 600 ]; do
	sleep 0.1
	n=$((n + 1))
done
sleep 1
kill -INT $pid 2>/dev/null
# At most a minute to end, as timeout -k 60 gave it.
n=0
while kill -0 $pid 2>/dev/null && [ $n -lt 600 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill -9 $pid 2>/dev/null
wait $pid
rc=$?
good=$(sed -n 's/.*fdmasink-check, frames=(guint64)\([0-9]*\), good=(guint64)\([0-9]*\), bad=(guint64)0.*/\1 \2/p' "$T/out")
if [ "$rc" -eq 0 ] && [ -n "$good" ] && [ "${good% *}" = "${good#* }" ] && [ "${good% *}" -gt 0 ]; then
	ok "Ctrl-C on an endless stream: ends cleanly, ${good% *} frames sent, all good"
else
	bad "Ctrl-C on an endless stream" "exit $rc, frames/good: '$good'"
fi

# ---- the device and its errors ---------------------------------------------------

FDMA_DEVICE=sim: expect_gst "no device property: FDMA_DEVICE names it" "EOS" \
	fdmasrc testgen=true format=bytes frame-size=1024 num-buffers=5 ! fakesink
expect_gst_fail "no device property and no FDMA_DEVICE: the error says how to name one" \
	"FDMA_DEVICE" fdmasrc format=bytes frame-size=1024 ! fakesink
expect_gst_fail "a device that does not exist: the error names it" \
	"Could not open fdma device 'kdev:/dev/fdma-none'" \
	fdmasrc device=/dev/fdma-none format=bytes frame-size=1024 ! fakesink
expect_gst_fail "fdmasrc on an H2C channel: refused, naming the channel" \
	"Channel 3 .* is not a C2H stream channel" \
	fdmasrc device=sim: channel=3 format=bytes frame-size=1024 ! fakesink

# ---- the element tests (gst-check) --------------------------------------------------

if [ -x "$GSTTEST" ]; then
	for sim in "" engine=xdma; do
		if FDMA_TEST_SIM=$sim $TO "$GSTTEST" >"$T/out" 2>&1; then
			ok "tests/gst/test_gstfdma${sim:+ on $sim}: $(grep -m 1 'Checks' "$T/out")"
		else
			bad "tests/gst/test_gstfdma${sim:+ on $sim}" \
				"$(grep -m 3 -E ':F:|:E:|ERROR' "$T/out" | tr '\n' ' ' | cut -c 1-300)"
		fi
	done
else
	skip "tests/gst/test_gstfdma: not built (no gstreamer-check-1.0: libgstreamer1.0-dev)"
fi

finish
