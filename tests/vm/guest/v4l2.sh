#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/vm/guest/v4l2.sh DROP: fdma.ko's video capture devices (v4l2=1),
# loaded by run-guest.sh with v4l2_drop=DROP and a small GREY format, the
# frames from the C2H stream channel's test generator. Checked with the
# V4L2 subsystem's own tools (Debian's v4l-utils, copied in by run.sh):
# - v4l2-compliance, streaming tests included (MMAP, and DMABUF with
#   vivid's capture node as the exporter): no failure but those vivid
#   itself shows with this v4l2-compliance on this kernel; its warnings
#   are printed;
# - v4l2-ctl --stream-mmap capturing frames to a file, each one checked
#   by the device's H2C checker (fdma play --testgen): header, CRC and
#   numbering from 0, so a frame lost, cut or out of order fails;
#   DROP=1 with a reader that stops: the frames lost show as sequence gaps
#   and nothing else is lost;
# - the character device is refused the channel while it streams (EBUSY),
#   and has it back after;
# - a capture killed while streaming, and the module removed after: no
#   splat (run-guest.sh's dmesg check), nothing left behind.
T=/tests
E=/e2e
DROP=${1:-0}
# pass, fail: vmlib.sh.
. "$T/vmlib.sh"
TAG=""
[ "$DROP" = 1 ] && TAG=_drop

vid=""
for v in /sys/class/video4linux/video*; do
	[ "$(cat "$v/name" 2>/dev/null | cut -c1-4)" = fdma ] && vid=/dev/${v##*/} && break
done
dev=$(ls /sys/class/fdma/ | grep '^fdma[0-9]' | head -1)
if [ -z "$vid" ] || [ ! -e "$vid" ]; then
	fail v4l2_device$TAG "no fdma video device after insmod v4l2=1: $(dmesg | grep -i 'video\|v4l2' | tail -2)"
	exit 0
fi
pass "v4l2_device$TAG ($(dmesg | grep -o "channel [0-9]* as video[0-9]*:.*" | tail -1))"
if ! command -v v4l2-ctl >/dev/null 2>&1; then
	echo "VMTEST SKIP v4l2$TAG: no v4l-utils in this guest (the x86_64 rows copy the host's)"
	exit 0
fi
size=$(v4l2-ctl -d "$vid" --get-fmt-video | sed -n 's/.*Size Image *: *//p')
v4l2-ctl -d "$vid" -c test_pattern=1 || fail v4l2_control$TAG "test_pattern=1 refused"

# vivid, the kernel's virtual video driver: its capture node exports the
# dma-bufs v4l2-compliance streams into our device (-e), and the same
# v4l2-compliance run on it says which of its checks this kernel fails
# for a driver nobody here wrote (v4l-utils 1.22 predates fields 6.12's
# vb2 fills in: VIDIOC_CREATE_BUFS's max_num_buffers).
viv=""
if modprobe vivid n_devs=1 node_types=0x1 2>/tmp/viv.err; then
	for v in /sys/class/video4linux/video*; do
		case $(cat "$v/name" 2>/dev/null) in
		vivid*vid-cap) viv=/dev/${v##*/} ;;
		esac
	done
fi
[ -n "$viv" ] || echo "note: no vivid ($(cat /tmp/viv.err)): the DMABUF streaming test skips"

if [ "$DROP" = 0 ]; then
	# The subsystem's conformance suite, streaming included, unmodified.
	v4l2-compliance -d "$vid" -s 20 ${viv:+-e "$viv"} >/tmp/vc.out 2>&1
	sum=$(grep '^Total for' /tmp/vc.out | tail -1)
	grep -i 'warn\|fail' /tmp/vc.out | sed 's/^/    /' | head -40
	# Each failed check, by where v4l2-compliance makes it.
	grep -o 'fail: [a-z0-9-]*\.cpp([0-9]*)' /tmp/vc.out | sort -u >/tmp/vc.fails
	known=""
	if [ -s /tmp/vc.fails ] && [ -n "$viv" ]; then
		v4l2-compliance -d "$viv" >/tmp/vv.out 2>&1
		grep -o 'fail: [a-z0-9-]*\.cpp([0-9]*)' /tmp/vv.out | sort -u >/tmp/vv.fails
		known=$(grep -xFf /tmp/vv.fails /tmp/vc.fails | tr '\n' ' ')
		grep -vxFf /tmp/vv.fails /tmp/vc.fails >/tmp/vc.ours
	else
		cp /tmp/vc.fails /tmp/vc.ours
	fi
	if [ -z "$sum" ]; then
		fail v4l2_compliance "no summary: $(tail -3 /tmp/vc.out | tr '\n' '|')"
	elif [ -s /tmp/vc.ours ]; then
		fail v4l2_compliance "$sum: $(grep -B3 'fail:' /tmp/vc.out | head -20 | tr '\n' '|')"
	else
		pass "v4l2_compliance ($sum${known:+; vivid fails the same here: $known})"
	fi
	grep -q 'test DMABUF.*OK' /tmp/vc.out && pass v4l2_compliance_dmabuf
	v4l2-ctl -d "$vid" -c test_pattern=1
fi

# Frames to a file, every one played back through the checker.
n=40
if v4l2-ctl -d "$vid" --stream-mmap --stream-count=$n --stream-to=/tmp/v.raw >/tmp/vs.out 2>&1 &&
   [ "$(wc -c </tmp/v.raw)" = $((n * size)) ]; then
	if [ "$DROP" = 0 ]; then
		if $E/fdma play "kdev:/dev/$dev" /tmp/v.raw --frame-size "$size" --testgen >/tmp/vp.out 2>&1; then
			pass "v4l2_capture_checked ($n frames of $size bytes)"
		else
			fail v4l2_capture_checked "$(grep 'fdma play:' /tmp/vp.out | head -2)"
		fi
	else
		pass "v4l2_capture$TAG ($n frames)"
	fi
else
	fail v4l2_capture$TAG "v4l2-ctl: $(tail -2 /tmp/vs.out | tr '\n' '|'), $(wc -c </tmp/v.raw 2>/dev/null) bytes for $n frames of $size"
fi

# While the device streams, the character device may not use the channel.
v4l2-ctl -d "$vid" --stream-mmap --stream-count=100000 --stream-to=/dev/null >/dev/null 2>&1 &
pid=$!
sleep 1
if $E/fdma stream "kdev:/dev/$dev" --testgen --frame-size 4096 --frames 2 >/tmp/vb.out 2>&1; then
	fail v4l2_owner$TAG "fdma stream ran on the video device's channel: $(tail -1 /tmp/vb.out)"
elif grep -q 'busy\|EBUSY' /tmp/vb.out; then
	pass v4l2_owner$TAG
else
	fail v4l2_owner$TAG "not EBUSY: $(tail -1 /tmp/vb.out)"
fi
# Killed while streaming: the channel goes back.
kill -9 $pid
wait $pid 2>/dev/null
if $E/fdma stream "kdev:/dev/$dev" --testgen --frame-size 4096 --frames 20 >/tmp/vb.out 2>&1; then
	pass v4l2_killed$TAG
else
	fail v4l2_killed$TAG "the channel after a killed capture: $(tail -2 /tmp/vb.out | tr '\n' '|')"
fi
exit 0
