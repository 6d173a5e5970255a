#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/vm/guest/v4l2-dmac.sh [dt]: video devices on fdma_dmac.ko's
# channels, the way a SoC's AXI DMA is seen: run-guest.sh loads fdma.ko with
# dmaengine=1 (its stream channels are DMA_SLAVE channels of Linux's
# dmaengine) and v4l2=1 with GREY 128x64 (8192 bytes, two pages: a frame
# dma-sg would cut in two pieces); fdma_dmac.ko takes the
# two slave channels as a device of its own, whose stream channels become
# a capture and an output device. dmaengine marks no frames (a C2H
# transfer receives one frame into one buffer), so these devices take
# their buffers from vb2's dma-contig allocator. Checked:
# - fdma info lists them on the client's node;
# - v4l2-compliance on both, streaming included, with vivid's dma-contig
#   buffers (allocators=1) as the DMABUF exporter;
# - frames of the engine's test generator captured to a file, played
#   back through the output to the engine's checker: all 40 good, so none
#   lost, cut or out of order, both ways;
# - the FDMA function's own video device over the same channel is refused
#   (EBUSY) while the client holds it;
# - fdma_dmac.ko removed while both devices stream: the streams end by
#   themselves, the nodes go (run-guest.sh checks the log for splats).
# Each part starts from a fresh client over freshly reset test blocks
# (setup), so that the checker's numbering starts at 0.
#
# dt (arm64 rows): the group is the device tree's /fdma-video node
# (tests/vm/run.sh puts it there), its channels named through the FDMA
# function's own node, its format in fdma,video-* properties: GREY 128x64
# at 100 fps where fdma.ko's parameters say 64x48, so the format seen is
# the node's. The node is bound by driver_override (its compatible is not
# fdma_dmac.ko's, so that other loads leave it alone); the override is
# cleared at the end.
T=/tests
KO=/fdma_dmac.ko
MODE=${1:-chans}
TAG=""
[ "$MODE" = dt ] && TAG=_dt
PDEV=/sys/bus/platform/devices/fdma-video
# pass, fail, fdma_node: vmlib.sh; vivid_load, compliance, streams_*: v4l2lib.sh.
. "$T/vmlib.sh"
. "$T/v4l2lib.sh"

[ -e $KO ] || { fail v4l2_dmac_ko "$KO is missing"; exit 0; }
if ! command -v v4l2-ctl >/dev/null 2>&1; then
	echo "VMTEST SKIP v4l2_dmac: no v4l-utils in this guest"
	exit 0
fi
eng=$(fdma_node engine)
bdf=$(basename "$(readlink /sys/class/fdma/$eng/device)")
tg() { FDMA_VM_DEV=$eng $T/fdma_tg "$@"; }
size=8192	# GREY 128x64: two pages, so that dma-sg would cut a frame in two

# setup: fdma_dmac.ko (again) over the slave channels, the generator and
# the checker reset and on; cap and out its video devices.
setup() {
	rmmod fdma_dmac 2>/dev/null
	cap=""
	out=""
	if ! tg c2h reset >/tmp/vd.tg 2>&1 || ! tg c2h on $size >>/tmp/vd.tg 2>&1 ||
	   ! tg h2c reset >>/tmp/vd.tg 2>&1 || ! tg h2c on $size >>/tmp/vd.tg 2>&1; then
		fail "$1" "the test generator and checker of $eng: $(tail -1 /tmp/vd.tg)"
		return 1
	fi
	if [ "$MODE" = dt ]; then
		# The memcpy channels' default group, and the node's.
		if ! insmod $KO 2>/tmp/vd.err; then
			fail "$1" "insmod $KO: $(cat /tmp/vd.err)"
			return 1
		fi
		# The probe may run a moment later (deferred). (w: n is the
		# callers' frame count.)
		w=0
		while [ ! -d $PDEV/fdma ] && [ $w -lt 50 ]; do
			sleep 0.1
			w=$((w + 1))
		done
		sdev=$(ls $PDEV/fdma 2>/dev/null | head -1)
		if [ -z "$sdev" ]; then
			fail "$1" "no fdma device of $PDEV: $(dmesg | grep -i 'fdma-video\|fdma_dmac' | tail -2 | tr '\n' '|')"
			return 1
		fi
	elif ! insmod $KO "chans=c2h:$bdf,h2c:$bdf" 2>/tmp/vd.err; then
		fail "$1" "insmod $KO chans=c2h:$bdf,h2c:$bdf: $(cat /tmp/vd.err)"
		return 1
	else
		sdev=$(fdma_node dmaengine)
	fi
	cap=/dev/$(dmesg | sed -n "s/.*$sdev: channel 0 as \(video[0-9]*\) (capture).*/\1/p" | tail -1)
	out=/dev/$(dmesg | sed -n "s/.*$sdev: channel 1 as \(video[0-9]*\) (output).*/\1/p" | tail -1)
	if [ ! -c "$cap" ] || [ ! -c "$out" ]; then
		fail "$1" "no capture and output device on $sdev: $(dmesg | grep "$sdev" | tail -2 | tr '\n' '|')"
		return 1
	fi
}

if [ "$MODE" = dt ]; then
	if [ ! -e $PDEV ]; then
		fail v4l2_dmac_dt "no $PDEV: the device tree has no /fdma-video node"
		exit 0
	fi
	echo fdma_dmac >$PDEV/driver_override
fi
if setup v4l2_dmac_device$TAG; then
	fmt=$(v4l2-ctl -d "$cap" --get-fmt-video | sed -n 's/.*Width\/Height *: *//p')
	if ! dmesg | grep "$sdev: channel [0-9] as video" | tail -2 | grep -c "vb2's dma-contig" | grep -qx 2; then
		fail v4l2_dmac_device$TAG "not dma-contig: $(dmesg | grep "$sdev: channel [0-9] as video" | tail -2 | tr '\n' '|')"
	elif [ "$fmt" != 128/64 ]; then
		fail v4l2_dmac_device$TAG "$cap is ${fmt:-?}, not 128/64"
	else
		pass "v4l2_dmac_device$TAG ($sdev: capture $cap, output $out, $fmt, dma-contig)"
	fi
	# fdma info names them on the client's node as on the function's.
	/e2e/fdma info "kdev:/dev/$sdev" >/tmp/vd.info 2>&1
	if grep -q "C2H stream.*$cap (GREY 128x64 at 100 fps" /tmp/vd.info &&
	   grep -q "H2C stream.*$out (GREY 128x64 at 100 fps" /tmp/vd.info; then
		pass v4l2_dmac_info$TAG
	else
		fail v4l2_dmac_info$TAG "$(grep -i 'stream\|fdma info' /tmp/vd.info | tr '\n' '|')"
	fi
	vivid_load allocators=1
	# Bounce buffers come in pieces of at most 256 KiB (swiotlb's
	# IO_TLB_SEGSIZE slots), and a dma-contig importer needs the whole
	# buffer in one: vivid's (1.8 MB, its 1280x720) cannot be imported
	# where every mapping bounces. The MMAP streaming tests still run.
	unset CEXP
	if grep -q 'swiotlb=[^ ]*force' /proc/cmdline; then
		echo "note: swiotlb=force: no DMABUF tests on these dma-contig devices: swiotlb bounces at most 256 KiB in one piece (docs/v4l2.md)"
		# shellcheck disable=SC2034 # read by compliance (v4l2lib.sh)
		CEXP=""
	fi
	compliance v4l2_dmac_compliance$TAG "$cap"
	compliance v4l2_dmac_compliance_output$TAG "$out"
	unset CEXP
	rmmod vivid 2>/dev/null
fi

# 40 frames captured, then sent through the output to the checker, which
# waits for frame 0 (fdma_v4l2 play waits for every buffer: no reset).
n=40
if setup v4l2_dmac_checked$TAG; then
	if ! v4l2-ctl -d "$cap" --stream-mmap --stream-count=$n --stream-to=/tmp/vd.raw >/tmp/vd.out 2>&1 ||
	   [ "$(wc -c </tmp/vd.raw)" != $((n * size)) ]; then
		fail v4l2_dmac_checked$TAG "capture: $(tail -2 /tmp/vd.out | tr '\n' '|'), $(wc -c </tmp/vd.raw) bytes for $n frames of $size"
	elif ! $T/fdma_v4l2 play "$out" /tmp/vd.raw >/tmp/vd.out 2>&1; then
		fail v4l2_dmac_checked$TAG "play: $(tail -2 /tmp/vd.out | tr '\n' '|')"
	else
		got=$(tg h2c query)
		if [ "$got" = "frames $n errors 0" ]; then
			pass "v4l2_dmac_checked$TAG ($n frames captured and sent through fdma_dmac.ko, all good)"
		else
			fail v4l2_dmac_checked$TAG "the checker counted '$got' of $n frames"
		fi
	fi
fi

# One owner per channel: the function's own video device on the channel
# the client holds is refused.
fcap=$(dmesg | sed -n "s/.*$eng: channel [0-9]* as \(video[0-9]*\) (capture).*/\1/p" | tail -1)
fcap=${fcap:+/dev/$fcap}
if [ ! -c "$fcap" ]; then
	fail v4l2_dmac_owner$TAG "no capture device of $eng: '$fcap'"
else
	# v4l2-ctl says why STREAMON failed, and may exit 0 all the same.
	v4l2-ctl -d "$fcap" --stream-mmap --stream-count=1 --stream-to=/tmp/vd.one >/tmp/vd.out 2>&1
	if grep -q 'STREAMON.*busy' /tmp/vd.out && [ ! -s /tmp/vd.one ]; then
		pass "v4l2_dmac_owner$TAG ($fcap: $(grep STREAMON /tmp/vd.out | head -1))"
	else
		fail v4l2_dmac_owner$TAG "$fcap on the channel fdma_dmac.ko holds: $(tail -2 /tmp/vd.out | tr '\n' '|'), $(wc -c </tmp/vd.one) bytes"
	fi
fi

# The client removed while both devices stream.
if setup v4l2_dmac_rmmod$TAG; then
	streams_start
	if ! rmmod fdma_dmac 2>/tmp/vd.err; then
		# The video files hold fdma.ko, not the client: nothing may hold it.
		fail v4l2_dmac_rmmod$TAG "refused while streaming: $(cat /tmp/vd.err)"
		streams_kill
	else
		streams_gone v4l2_dmac_rmmod$TAG rmmod
	fi
fi
rmmod fdma_dmac 2>/dev/null
[ "$MODE" = dt ] && echo >$PDEV/driver_override
tg c2h off >/dev/null 2>&1
tg h2c off >/dev/null 2>&1
exit 0
