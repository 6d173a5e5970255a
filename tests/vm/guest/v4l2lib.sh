# SPDX-License-Identifier: MIT
#
# tests/vm/guest/v4l2lib.sh: what the video tests (v4l2.sh, v4l2-dmac.sh)
# share, sourced after vmlib.sh (pass, fail).

# vivid_load [PARAM...]: vivid, the kernel's virtual video driver, as one
# HDMI capture node and one HDMI output node, no cropping or scaling (what
# its loop from output to capture needs to copy frames as they are), with
# PARAMs added (allocators=1: its buffers from vb2's dma-contig, which a
# dma-contig importer needs). Sets viv and vivout to the nodes, empty
# without vivid. Its capture node exports the dma-bufs v4l2-compliance
# streams into our devices (-e), and the same v4l2-compliance run on it
# says which of its checks this kernel fails for a driver nobody here
# wrote (v4l-utils 1.22 predates fields 6.12's vb2 fills in:
# VIDIOC_CREATE_BUFS's max_num_buffers). Its output is the importer of
# fdma_v4l2 vivid.
vivid_load() {
	viv=""
	vivout=""
	rm -f /tmp/vv.fails
	# Loaded again if it is there: its parameters are taken at load.
	rmmod vivid 2>/dev/null
	if modprobe vivid n_devs=1 node_types=0x101 num_inputs=1 input_types=0x3 num_outputs=1 \
		output_types=0x1 ccs_cap_mode=0 ccs_out_mode=0 "$@" 2>/tmp/viv.err; then
		for v in /sys/class/video4linux/video*; do
			case $(cat "$v/name" 2>/dev/null) in
			vivid*vid-cap) viv=/dev/${v##*/} ;;
			vivid*vid-out) vivout=/dev/${v##*/} ;;
			esac
		done
	fi
	[ -n "$viv" ] || echo "note: no vivid ($(cat /tmp/viv.err)): the DMABUF streaming tests skip"
}

# compliance NAME NODE: the subsystem's conformance suite, streaming
# included, unmodified; a failure vivid shows too is reported, not failed.
# The DMABUF tests import vivid's capture buffers, unless CEXP is set and
# empty (then they are not run: v4l2-compliance needs an exporter).
compliance() {
	cexp=${CEXP-$viv}
	v4l2-compliance -d "$2" -s 20 ${cexp:+-e "$cexp"} >/tmp/vc.out 2>&1
	sum=$(grep '^Total for' /tmp/vc.out | tail -1)
	grep -i 'warn\|fail' /tmp/vc.out | sed 's/^/    /' | head -40
	# Each failed check, by where v4l2-compliance makes it.
	grep -o 'fail: [a-z0-9-]*\.cpp([0-9]*)' /tmp/vc.out | sort -u >/tmp/vc.fails
	known=""
	if [ -s /tmp/vc.fails ] && [ -n "$viv" ]; then
		[ -s /tmp/vv.fails ] || {
			v4l2-compliance -d "$viv" >/tmp/vv.out 2>&1
			v4l2-compliance -d "$vivout" >>/tmp/vv.out 2>&1
			grep -o 'fail: [a-z0-9-]*\.cpp([0-9]*)' /tmp/vv.out | sort -u >/tmp/vv.fails
		}
		known=$(grep -xFf /tmp/vv.fails /tmp/vc.fails | tr '\n' ' ')
		grep -vxFf /tmp/vv.fails /tmp/vc.fails >/tmp/vc.ours
	else
		cp /tmp/vc.fails /tmp/vc.ours
	fi
	if [ -z "$sum" ]; then
		fail "$1" "no summary: $(tail -3 /tmp/vc.out | tr '\n' '|')"
	elif [ -s /tmp/vc.ours ]; then
		fail "$1" "$sum: $(grep -B3 'fail:' /tmp/vc.out | head -20 | tr '\n' '|')"
	else
		# Warnings are not failures; said where the result is kept.
		warns=$(grep -o 'warn: .*' /tmp/vc.out | sort -u | head -3 | tr '\n' ' ')
		pass "$1 ($sum${known:+; vivid fails the same here: $known}${warns:+; $warns})"
	fi
	grep -q 'test DMABUF.*OK' /tmp/vc.out && pass "${1}_dmabuf"
}

# streams_start: both devices ($cap, $out: the sourcing script's)
# streaming until stopped, as p1 and p2, a second in.
# shellcheck disable=SC2154
streams_start() {
	v4l2-ctl -d "$cap" --stream-mmap --stream-count=100000 --stream-to=/dev/null >/tmp/vu1.out 2>&1 &
	p1=$!
	v4l2-ctl -d "$out" --stream-out-mmap --stream-count=100000 >/tmp/vu2.out 2>&1 &
	p2=$!
	sleep 1
}

# streams_gone NAME WHAT: after WHAT took the devices away (an unbind, an
# rmmod), both streams end by themselves within 10 s and the nodes go.
streams_gone() {
	w=0
	while { kill -0 $p1 || kill -0 $p2; } 2>/dev/null && [ $w -lt 20 ]; do
		sleep 0.5
		w=$((w + 1))
	done
	if { kill -0 $p1 || kill -0 $p2; } 2>/dev/null; then
		fail "$1" "a stream still runs 10 s after $2"
		streams_kill
		return
	elif [ -e "$cap" ] || [ -e "$out" ]; then
		fail "$1" "$cap or $out still there after $2"
	else
		pass "$1 (both streams ended by themselves, the nodes went)"
	fi
	wait $p1 $p2 2>/dev/null
}

# streams_kill: both streams killed, and gone.
streams_kill() {
	kill -9 $p1 $p2 2>/dev/null
	wait $p1 $p2 2>/dev/null
}
