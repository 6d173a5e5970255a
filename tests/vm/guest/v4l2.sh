#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/vm/guest/v4l2.sh DROP: fdma.ko's video devices (v4l2=1), loaded by
# run-guest.sh with v4l2_drop=DROP and a small GREY format: a capture
# device on the C2H stream channel (frames from its test generator) and an
# output device on the H2C one (frames to its checker). Checked with the
# V4L2 subsystem's own tools (Debian's v4l-utils, copied in by run.sh):
# - v4l2-compliance on both, streaming tests included (MMAP, and DMABUF
#   with vivid's capture node as the exporter): no failure but those vivid
#   itself shows with this v4l2-compliance on this kernel; its warnings
#   are printed;
# - v4l2-ctl --stream-mmap capturing frames to a file, each one checked
#   by the H2C checker, first played back through fdma play --testgen,
#   then through the output device (--stream-out-mmap, and fdma_v4l2 play,
#   which waits for every buffer): header, CRC and
#   numbering from 0, so a frame lost, cut or out of order fails; the
#   same file with one byte changed makes the checker count one error;
# - GStreamer's v4l2src (io-mode mmap and dmabuf) capturing frames, each
#   checked, and its v4l2sink playing them to the output's checker;
# - capture looped to output with no copy, both ways round (--stream-dmabuf
#   into the output's buffers, --stream-out-dmabuf from the capture's), the
#   checker counting every frame good;
# - vivid importing fdma's exported dma-bufs on its video output and
#   looping them to its capture (fdma_v4l2 vivid);
# - the character device is refused the channel while it streams (EBUSY),
#   and has it back after a capture killed while streaming;
# - the device's own settings in sysfs (width changed, frames of that size
#   checked; a bad value and a change while streaming refused);
# - the PCI function unbound while both devices stream, and bound again;
# - DROP=1: a reader that stalls (fdma_v4l2 stall): the frames lost show
#   as a sequence gap equal to the channel's drops, and nothing else is.
# The module is removed after (run-guest.sh), its log checked for splats.
T=/tests
E=/e2e
DROP=${1:-0}
# pass, fail: vmlib.sh; vivid_load, compliance, streams_*: v4l2lib.sh.
. "$T/vmlib.sh"
. "$T/v4l2lib.sh"
TAG=""
[ "$DROP" = 1 ] && TAG=_drop

# find_devices: cap and out, the fdma video devices, by the direction
# the driver's log names for each node.
find_devices() {
	cap=""
	out=""
	for v in /sys/class/video4linux/video*; do
		case $(cat "$v/name" 2>/dev/null) in
		fdma*) ;;
		*) continue ;;
		esac
		if [ -z "$cap" ] && dmesg | grep -q "as ${v##*/} (capture)"; then
			cap=/dev/${v##*/}
		elif [ -z "$out" ] && dmesg | grep -q "as ${v##*/} (output)"; then
			out=/dev/${v##*/}
		fi
	done
}
find_devices
dev=$(fdma_node engine)
if [ -z "$cap" ] || [ -z "$out" ] || [ ! -e "$cap" ] || [ ! -e "$out" ]; then
	fail v4l2_device$TAG "capture '$cap', output '$out' after insmod v4l2=1: $(dmesg | grep -i 'video\|v4l2' | tail -2)"
	exit 0
fi
pass "v4l2_device$TAG ($(dmesg | grep -o "channel [0-9]* as video[0-9]* ([a-z]*)" | tail -2 | tr '\n' ' '))"
if [ "$DROP" = 1 ]; then
	# test_pattern is taken at STREAMON: set it without v4l2-ctl, which
	# an arm64 guest may lack (fdma_v4l2 sets nothing itself).
	if command -v v4l2-ctl >/dev/null 2>&1; then
		v4l2-ctl -d "$cap" -c test_pattern=1 &&
			$T/fdma_v4l2 stall "$cap"
	else
		echo "VMTEST SKIP v4l2_stall: no v4l-utils in this guest (the x86_64 rows copy the host's)"
	fi
	exit 0
fi
if ! command -v v4l2-ctl >/dev/null 2>&1; then
	echo "VMTEST SKIP v4l2: no v4l-utils in this guest (the x86_64 rows copy the host's)"
	exit 0
fi
size=$(v4l2-ctl -d "$cap" --get-fmt-video | sed -n 's/.*Size Image *: *//p')

# fdma info names each channel's video device, its format and rate;
# fdma doctor weighs that rate against the link.
$E/fdma info "kdev:/dev/$dev" >/tmp/vi.out 2>&1
if grep -q "C2H stream.*$cap (GREY 64x48 at 100 fps: 0.3 MB/s)" /tmp/vi.out &&
   grep -q "H2C stream.*$out (GREY 64x48 at 100 fps" /tmp/vi.out; then
	pass v4l2_info
else
	fail v4l2_info "$(grep stream /tmp/vi.out | tr '\n' '|')"
fi
$E/fdma doctor "kdev:/dev/$dev" --json >/tmp/vd.out 2>&1
if grep '"id":"video.rate"' /tmp/vd.out | grep -q "$cap (GREY 64x48 at 100 fps).*0.3 MB/s"; then
	pass "v4l2_doctor ($(grep '"id":"video.rate"' /tmp/vd.out | sed 's/.*"reason":"\([^"]*\)".*/\1/'))"
else
	fail v4l2_doctor "no video.rate finding for $cap: $(grep -c . /tmp/vd.out) lines"
fi
v4l2-ctl -d "$cap" -c test_pattern=1 || fail v4l2_control "test_pattern=1 refused"

# vivid's capture node exports the dma-bufs of v4l2-compliance's DMABUF
# tests; its output imports fdma's in fdma_v4l2 vivid.
vivid_load
compliance v4l2_compliance "$cap"
compliance v4l2_compliance_output "$out"
v4l2-ctl -d "$cap" -c test_pattern=1

# counts: good and bad, the output's checker's counts for its last stream.
counts() {
	good=$(v4l2-ctl -d "$out" -C checked_frames | sed -n 's/.*: *//p')
	bad=$(v4l2-ctl -d "$out" -C checker_errors | sed -n 's/.*: *//p')
}
# checked NAME N: the output's checker counted N frames good (0: some) and none bad.
checked() {
	counts
	if [ "${bad:-x}" = 0 ] && { [ "$2" = 0 ] && [ "${good:-0}" -gt 0 ] || [ "$good" = "$2" ]; }; then
		pass "$1 ($good frames checked)"
	else
		fail "$1" "the checker counted ${good:-?} good, ${bad:-?} bad, where ${2#0} were sent"
	fi
}

# Frames to a file, every one played back through the checker: by the
# character device, then by the output device.
n=40
if v4l2-ctl -d "$cap" --stream-mmap --stream-count=$n --stream-to=/tmp/v.raw >/tmp/vs.out 2>&1 &&
   [ "$(wc -c </tmp/v.raw)" = $((n * size)) ]; then
	if $E/fdma play "kdev:/dev/$dev" /tmp/v.raw --frame-size "$size" --testgen >/tmp/vp.out 2>&1; then
		pass "v4l2_capture_checked ($n frames of $size bytes)"
	else
		fail v4l2_capture_checked "$(grep 'fdma play:' /tmp/vp.out | head -2)"
	fi
	v4l2-ctl -d "$out" -c frame_checker=1 || fail v4l2_output_control "frame_checker=1 refused"
	# Sent by v4l2-ctl, which stops without waiting for its last buffers;
	# then by fdma_v4l2 play, which waits, so that every frame is counted.
	if v4l2-ctl -d "$out" --stream-out-mmap --stream-count=$n --stream-from=/tmp/v.raw >/tmp/vo.out 2>&1; then
		checked v4l2_output_mmap 0
	else
		fail v4l2_output_mmap "v4l2-ctl: $(tail -2 /tmp/vo.out | tr '\n' '|')"
	fi
	if $T/fdma_v4l2 play "$out" /tmp/v.raw >/tmp/vo.out 2>&1; then
		checked v4l2_output_checked $n
	else
		fail v4l2_output_checked "$(tail -2 /tmp/vo.out | tr '\n' '|')"
	fi
	# One byte of frame 5's payload changed: the checker must see it.
	cp /tmp/v.raw /tmp/vbad.raw
	printf 'X' | dd of=/tmp/vbad.raw bs=1 seek=$((5 * size + 100)) conv=notrunc 2>/dev/null
	$T/fdma_v4l2 play "$out" /tmp/vbad.raw >/dev/null 2>&1
	counts
	if [ "$bad" = 1 ] && [ "$good" = $((n - 1)) ]; then
		pass v4l2_output_checker_sees
	else
		fail v4l2_output_checker_sees "a changed byte: ${good:-?} good, ${bad:-?} bad"
	fi
else
	fail v4l2_capture "v4l2-ctl: $(tail -2 /tmp/vs.out | tr '\n' '|'), $(wc -c </tmp/v.raw 2>/dev/null) bytes for $n frames of $size"
fi

# GStreamer's own elements (gst-plugins-good), where the guest has them
# (run.sh copies them into the x86_64 guests): v4l2src takes frames by
# mmap and as dma-bufs (io-mode=dmabuf: each frame exported, then mapped
# by filesink), every one checked by fdma play; v4l2sink plays the
# captured file to the output, its checker counting.
gstl() {
	GST_PLUGIN_SYSTEM_PATH=/usr/lib/fdma-gst GST_REGISTRY=/tmp/gst.bin GST_REGISTRY_FORK=no \
		gst-launch-1.0 "$@" >/tmp/vg.out 2>&1
}
if [ ! -e /usr/lib/fdma-gst/libgstvideo4linux2.so ]; then
	echo "VMTEST SKIP v4l2_gst: no GStreamer v4l2 elements in this guest (the x86_64 rows copy the host's)"
else
	for mode in mmap dmabuf; do
		rm -f /tmp/vg.raw
		if ! gstl v4l2src device="$cap" num-buffers=$n io-mode=$mode ! filesink location=/tmp/vg.raw ||
		   [ "$(wc -c </tmp/vg.raw)" != $((n * size)) ]; then
			fail v4l2_gst_src_$mode "$(grep -i 'error\|warn' /tmp/vg.out | head -3 | tr '\n' '|'), $(wc -c </tmp/vg.raw 2>/dev/null) bytes for $n frames"
		elif $E/fdma play "kdev:/dev/$dev" /tmp/vg.raw --frame-size "$size" --testgen >/tmp/vp.out 2>&1; then
			pass "v4l2_gst_src_$mode ($n frames from v4l2src io-mode=$mode, all checked)"
		else
			fail v4l2_gst_src_$mode "$(grep 'fdma play:' /tmp/vp.out | head -2)"
		fi
	done
	v4l2-ctl -d "$out" -c frame_checker=1
	# videoconvert gives the frames the device's colorimetry (v4l2sink
	# takes no caps without it); full range both sides, so the bytes stay.
	# A video sink shows its preroll frame, then that frame again when
	# it plays: show-preroll-frame=false sends each frame once (else the
	# checker counts the repeat as a frame out of sequence). v4l2sink
	# stops at the end without waiting for the frames still queued to
	# the device, which are then canceled whole: at least half counted
	# good, none bad. sync=false: a sink that keeps the clock drops
	# frames that come late (the swiotlb row under CI's load: 2 gaps,
	# each a frame out of sequence at the checker), and every frame is
	# to be sent here.
	if GST_DEBUG=2 gstl filesrc location=/tmp/v.raw ! rawvideoparse format=gray8 width=64 height=48 \
		framerate=100/1 ! videoconvert ! v4l2sink device="$out" show-preroll-frame=false \
		sync=false; then
		counts
		if [ "${bad:-x}" = 0 ] && [ "${good:-0}" -ge $((n / 2)) ]; then
			pass "v4l2_gst_sink ($good of $n frames checked, none bad)"
		else
			fail v4l2_gst_sink "the checker counted ${good:-?} good, ${bad:-?} bad, of $n sent"
		fi
	else
		fail v4l2_gst_sink "$(grep -i 'error\|warn' /tmp/vg.out | head -6 | tr '\n' '|')"
	fi
fi

# Capture looped to output, no copy: frames captured into the output's
# buffers (dma-bufs the output device exports), then the other way round.
# Both ends are vb2's: its dma-sg exporter maps a dma-buf once per
# attachment and syncs only then (videobuf2-dma-sg.c, dmabuf_ops_map), and
# its importer leaves the syncs to the exporter (videobuf2-core.c,
# init_buffer_cache_hints). With bounce buffers (swiotlb=force) the
# frames therefore never leave the bounce buffer: a limit of vb2, said in
# docs/v4l2.md, so these two skip there.
if grep -q 'swiotlb=[^ ]*force' /proc/cmdline; then
	echo "VMTEST SKIP v4l2_loop_dmabuf: swiotlb=force, where vb2's exporter and importer sync a shared buffer only when first mapped (docs/v4l2.md)"
else
	if v4l2-ctl -d "$cap" --stream-dmabuf --out-device "$out" --stream-out-mmap \
		--stream-count=$n >/tmp/vl.out 2>&1; then
		checked v4l2_loop_dmabuf_capture 0
	else
		fail v4l2_loop_dmabuf_capture "v4l2-ctl: $(tail -2 /tmp/vl.out | tr '\n' '|')"
	fi
	if v4l2-ctl -d "$cap" --stream-mmap --out-device "$out" --stream-out-dmabuf \
		--stream-count=$n >/tmp/vl.out 2>&1; then
		checked v4l2_loop_dmabuf_output 0
	else
		fail v4l2_loop_dmabuf_output "v4l2-ctl: $(tail -2 /tmp/vl.out | tr '\n' '|')"
	fi
fi
v4l2-ctl -d "$out" -c frame_checker=0

# fdma's exported dma-bufs on vivid's output, looped to vivid's capture.
if [ -n "$vivout" ]; then
	# shellcheck disable=SC2154 # viv: set by vivid_load (v4l2lib.sh)
	$T/fdma_v4l2 vivid "$vivout" "$viv"
fi

# While the device streams, the character device may not use the channel.
v4l2-ctl -d "$cap" --stream-mmap --stream-count=100000 --stream-to=/dev/null >/dev/null 2>&1 &
pid=$!
sleep 1
if $E/fdma stream "kdev:/dev/$dev" --testgen --frame-size 4096 --frames 2 >/tmp/vb.out 2>&1; then
	fail v4l2_owner "fdma stream ran on the video device's channel: $(tail -1 /tmp/vb.out)"
elif grep -q 'busy\|EBUSY' /tmp/vb.out; then
	pass v4l2_owner
else
	fail v4l2_owner "not EBUSY: $(tail -1 /tmp/vb.out)"
fi
# Killed while streaming: the channel goes back.
kill -9 $pid
wait $pid 2>/dev/null
if $E/fdma stream "kdev:/dev/$dev" --testgen --frame-size 4096 --frames 20 >/tmp/vb.out 2>&1; then
	pass v4l2_killed
else
	fail v4l2_killed "the channel after a killed capture: $(tail -2 /tmp/vb.out | tr '\n' '|')"
fi

# The device's own settings (sysfs): a change takes while the queue holds
# no buffers, frames of the new size come, a bad value and a change while
# streaming are refused, and the setting stays as it was.
S=/sys/class/video4linux/${cap##*/}
if [ "$(cat $S/format 2>/dev/null)" != GREY ] || [ "$(cat $S/width 2>/dev/null)" != 64 ]; then
	fail v4l2_settings "format '$(cat $S/format 2>&1)', width '$(cat $S/width 2>&1)': GREY, 64 expected"
elif ! echo 32 >$S/width || [ "$(v4l2-ctl -d "$cap" --get-fmt-video | sed -n 's/.*Size Image *: *//p')" != 1536 ]; then
	fail v4l2_settings "width 32: $(v4l2-ctl -d "$cap" --get-fmt-video | tr '\n' ' ')"
elif ! v4l2-ctl -d "$cap" --stream-mmap --stream-count=10 --stream-to=/tmp/v32.raw >/dev/null 2>&1 ||
     ! $E/fdma play "kdev:/dev/$dev" /tmp/v32.raw --frame-size 1536 --testgen >/tmp/vp.out 2>&1; then
	fail v4l2_settings "10 frames of 32x48: $(grep 'fdma play:' /tmp/vp.out | head -1), $(wc -c </tmp/v32.raw) bytes"
elif echo 0 >$S/width 2>/dev/null || [ "$(cat $S/width)" != 32 ]; then
	fail v4l2_settings "width 0 taken, or the width changed: $(cat $S/width)"
else
	v4l2-ctl -d "$cap" --stream-mmap --stream-count=100000 --stream-to=/dev/null >/dev/null 2>&1 &
	pid=$!
	sleep 1
	if echo 48 >$S/width 2>/tmp/vw.err; then
		fail v4l2_settings "width changed while streaming"
	elif ! grep -q -i busy /tmp/vw.err; then
		fail v4l2_settings "not EBUSY while streaming: $(cat /tmp/vw.err)"
	else
		pass "v4l2_settings (10 frames of 32x48 checked; 0 and a change while streaming refused)"
	fi
	kill -9 $pid
	wait $pid 2>/dev/null
fi
echo 64 >$S/width

# Unbound while both devices stream: the streams end with an error by
# themselves, the nodes go, and nothing is left behind (run-guest.sh's
# dmesg check; the debug row's kmemleak). Bound again, the devices come
# back and capture.
bdf=$(basename "$(readlink "/sys/class/fdma/$dev/device")")
streams_start
if ! echo "$bdf" >/sys/bus/pci/drivers/fdma/unbind; then
	fail v4l2_unbind "cannot unbind $bdf"
	streams_kill
else
	streams_gone v4l2_unbind "the unbind"
	echo "$bdf" >/sys/bus/pci/drivers/fdma/bind || fail v4l2_rebind "cannot bind $bdf again"
	find_devices
	if [ -z "$cap" ]; then
		fail v4l2_rebind "no capture device after binding $bdf again"
	elif v4l2-ctl -d "$cap" -c test_pattern=1 &&
	     v4l2-ctl -d "$cap" --stream-mmap --stream-count=5 --stream-to=/tmp/v5.raw >/dev/null 2>&1 &&
	     [ "$(wc -c </tmp/v5.raw)" = $((5 * size)) ]; then
		pass v4l2_rebind
	else
		fail v4l2_rebind "no 5 frames from $cap after binding $bdf again"
	fi
fi
rmmod vivid 2>/dev/null
exit 0
