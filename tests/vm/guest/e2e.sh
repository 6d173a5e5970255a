#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/vm/guest/e2e.sh: libfdma's kdev: backend against fdma.ko, inside the
# VM (run-guest.sh calls it with the driver bound to the FDMA engine).
#
# 1. The foundation's end-to-end tests (tests/sim/), the same binaries the
#    host runs, with FDMA_TEST_DEVICE=kdev:/dev/fdmaN: every test that opens
#    "sim:..." gets the driver instead, or is skipped when it needs a
#    simulated device's options (ring size, faults, link); cmocka names
#    each skip. A test binary passes when none of its tests fails and at
#    least one ran.
# 2. The fdma command: info, bench both ways, stream, each checked for its
#    exit status and for zero integrity errors in its JSON.
# 3. The GStreamer elements, where the guest has them.
# Usage: e2e.sh DIR [TAG]: the binaries in DIR; TAG (e.g. asan, for the
# AddressSanitizer + UBSan builds) is added to every test name, and a
# sanitizer report fails the program that printed it.
# Prints "VMTEST PASS <name>" or "VMTEST FAIL <name>: <why>".
E=${1:-/e2e}
TAG=${2:+_$2}
export ASAN_OPTIONS=abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=99

# pass, fail: vmlib.sh, beside this script.
. "${0%/*}/vmlib.sh"

dev=$(ls /sys/class/fdma/ 2>/dev/null | grep '^fdma[0-9]' | head -1)
if [ -z "$dev" ]; then
	fail e2e "no /sys/class/fdma/fdmaN: the driver is not bound"
	exit 0
fi
URI=kdev:/dev/$dev
export FDMA_TEST_DEVICE=$URI
# The RTL behind the proxy runs at a fraction of real time: the tests that
# hold the device against the wall clock skip, and the waits are longer.
[ "${fdmavm_engine:-}" = rtl ] && export FDMA_TEST_DEVICE_RTL=1
# test_dmabuf's exporter on kernels without udmabuf (6.1).
modprobe vgem 2>/dev/null

for b in $E/test_*; do
	[ -x "$b" ] || continue
	n=e2e${TAG}_${b##*/test_}
	"$b" >/tmp/e2e.out 2>&1
	rc=$?
	sed 's/^/    /' /tmp/e2e.out
	ok=$(grep -c '^\[       OK \]' /tmp/e2e.out)
	sk=$(grep '^\[  SKIPPED \] test' /tmp/e2e.out | sort -u | wc -l)
	if grep -q 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' /tmp/e2e.out; then
		fail "$n" "sanitizer report: $(grep -m1 'ERROR: \|runtime error:' /tmp/e2e.out)"
	elif [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
		fail "$n" "exit status $rc: $(grep '^\[  FAILED  \] test' /tmp/e2e.out | sed 's/.*\] //' | tr '\n' ' ')"
	elif [ "$ok" = 0 ]; then	# every test skipped (exit 77): each binary must run some here
		fail "$n" "no test ran against $URI ($sk skipped)"
	else
		pass "$n ($ok passed, $sk skipped on $URI)"
	fi
done

# json_ok NAME FILE: every line has "errors":0, and there is at least one.
json_ok() {
	if [ ! -s "$2" ]; then
		fail "$1" "no JSON output"
	elif grep -v '"errors":0[,}]' "$2" | grep -q .; then
		fail "$1" "integrity errors: $(grep -v '"errors":0[,}]' "$2" | head -1)"
	else
		pass "$1"
	fi
}

# check_dmabuf_rows NAME: every row of /tmp/NAME.json moved dma-buf memory
# and checked every byte of it.
check_dmabuf_rows() {
	if grep -v '"mem":"dmabuf"' /tmp/"$1".json | grep -q . ||
	   grep -q '"bytes":0,' /tmp/"$1".json; then
		fail "$1"_rows "not every row moved dma-buf memory: $(head -1 /tmp/"$1".json)"
		return 1
	fi
	for row in $(sed 's/.*"bytes":\([0-9]*\).*"bytes_checked":\([0-9]*\).*/\1=\2/' /tmp/"$1".json); do
		if [ "${row%=*}" != "${row#*=}" ]; then
			fail "$1"_rows "bytes and bytes_checked differ: $row"
			return 1
		fi
	done
}

# run NAME CMD...: CMD must exit 0 (and, sanitized, report nothing); its
# stdout is kept in /tmp/NAME.json.
run() {
	name=$1
	shift
	if "$@" >/tmp/"$name".json 2>/tmp/"$name".err; then
		sed 's/^/    /' /tmp/"$name".json
		if grep -q 'ERROR: \|runtime error:' /tmp/"$name".err; then
			fail "$name" "sanitizer report: $(grep -m1 'ERROR: \|runtime error:' /tmp/"$name".err)"
			return 1
		fi
		return 0
	fi
	fail "$name" "'$*' exited with status $?: $(tail -2 /tmp/"$name".err)"
	return 1
}

if run fdma_info$TAG $E/fdma info "$URI"; then
	if grep -q 'kdev' /tmp/fdma_info$TAG.json; then
		pass fdma_info$TAG
	else
		fail fdma_info$TAG "'fdma info $URI' does not name the kdev backend"
	fi
fi

# What the engine is and can do: its registers' places, coalescing by time
# or not, memory-to-memory channels or not.
$E/fdma info --json "$URI" >/tmp/info$TAG.json 2>&1
ENGINE=$(sed -n 's/.*"engine":"\([a-z]*\)".*/\1/p' /tmp/info$TAG.json)
case $ENGINE in
xdma)	# XDMA: the config block's ID in the DMA BAR (BAR1), the test block's
	# scratch word in the user BAR (BAR0), H2C 0's control register.
	REG_ID=1:0x3000 ID_VAL=532873222 REG_USER=0:0x8 REG_ENGINE=1:0x4
	COAL=32 ;;
*)	# FDMA: the register file at the start of BAR0 (a function of its
	# own, as behind QEMU's proxy) or of BAR2 (behind ivshmem).
	B=2
	$E/fdma reg "$URI" 0:0 --json 2>/dev/null | grep -q '"value":1178881345' && B=0
	REG_ID=$B:0 ID_VAL=1178881345 REG_USER=$B:0x2000 REG_ENGINE=$B:0x20
	COAL=32,1000 ;;
esac

# Registers through the driver: the engine's ID, a word of the design's
# own written and read back, and an engine register's write refused
# without --force.
if run fdma_reg$TAG $E/fdma reg "$URI" $REG_ID --json; then
	if grep -q "\"value\":$ID_VAL" /tmp/fdma_reg$TAG.json; then
		pass fdma_reg$TAG
	else
		fail fdma_reg$TAG "$REG_ID is not the engine's ID: $(cat /tmp/fdma_reg$TAG.json)"
	fi
fi
if run fdma_reg_user$TAG $E/fdma reg "$URI" $REG_USER 0x5a5a1234 &&
	run fdma_reg_user$TAG $E/fdma reg "$URI" $REG_USER --json; then
	if grep -q '"value":1515852340' /tmp/fdma_reg_user$TAG.json; then
		pass fdma_reg_user$TAG
	else
		fail fdma_reg_user$TAG "$REG_USER did not keep 0x5a5a1234: $(cat /tmp/fdma_reg_user$TAG.json)"
	fi
fi
if $E/fdma reg "$URI" $REG_ENGINE 0 >/tmp/fdma_reg_refused$TAG.out 2>&1; then
	fail fdma_reg_refused$TAG "a write of the engine's CTRL without --force went through"
elif grep -q -- '--force' /tmp/fdma_reg_refused$TAG.out; then
	pass fdma_reg_refused$TAG
else
	fail fdma_reg_refused$TAG "refused without naming --force: $(head -1 /tmp/fdma_reg_refused$TAG.out)"
fi

# XDMA's performance monitor through the driver: armed on H2C 0, a bench
# of 64 KiB writes from page-aligned buffers counts 8192 data beats each.
if [ "$ENGINE" = xdma ]; then
	if run fdma_reg_pmon$TAG $E/fdma reg "$URI" 1:0xc0 4 --force &&
		run fdma_reg_pmon$TAG $E/fdma bench "$URI" --dir h2c --sizes 64K --batch 8 \
			--seconds 1 --json; then
		cyc=$($E/fdma reg "$URI" 1:0xc4 --json 2>/dev/null | sed -n 's/.*"value":\([0-9]*\).*/\1/p')
		dat=$($E/fdma reg "$URI" 1:0xcc --json 2>/dev/null | sed -n 's/.*"value":\([0-9]*\).*/\1/p')
		$E/fdma reg "$URI" 1:0xc0 0 --force >/dev/null 2>&1
		if [ "${cyc:-0}" -gt 0 ] && [ "${dat:-0}" -gt 0 ] && [ $((dat % 8192)) = 0 ]; then
			pass fdma_reg_pmon$TAG
		else
			fail fdma_reg_pmon$TAG "H2C 0's monitor: '${cyc}' cycles, '${dat}' data beats (want > 0, beats a multiple of 8192)"
		fi
	fi
fi

# Speed means nothing under TCG: short runs, checked for integrity, and the
# driver's costs per transfer (syscalls, interrupts) printed for the record.
run fdma_bench_c2h$TAG $E/fdma bench "$URI" --dir c2h --sizes 4K,64K --batch 32 \
	--coalesce $COAL --seconds 1 --json && json_ok fdma_bench_c2h$TAG /tmp/fdma_bench_c2h$TAG.json
run fdma_bench_h2c$TAG $E/fdma bench "$URI" --dir h2c --sizes 4K,64K --batch 32 \
	--coalesce $COAL --seconds 1 --json && json_ok fdma_bench_h2c$TAG /tmp/fdma_bench_h2c$TAG.json
run fdma_bench_sleep$TAG $E/fdma bench "$URI" --sizes 64K --batch 8 --wait sleep \
	--seconds 1 --json && json_ok fdma_bench_sleep$TAG /tmp/fdma_bench_sleep$TAG.json
# Copies on a memory-to-memory channel (the model's memcpy=2), every byte checked.
if ! grep -q '"kind":"mem"' /tmp/info$TAG.json; then
	echo "VMTEST SKIP fdma_bench_copy$TAG: no memory-to-memory channel on $ENGINE"
elif run fdma_bench_copy$TAG $E/fdma bench "$URI" --dir copy --sizes 4K,64K --batch 32 \
	--seconds 1 --json && json_ok fdma_bench_copy$TAG /tmp/fdma_bench_copy$TAG.json; then
	grep -q '"dir":"copy"' /tmp/fdma_bench_copy$TAG.json ||
		fail fdma_bench_copy_dir$TAG "the rows do not say dir copy"
fi

# fdma soak through the driver: two card windows, both directions,
# buffers given back and taken again at every sample (driver memory and
# registered, pinned, memory in turn), the driver's counts read at each
# sample's end with nothing held: no buffer and no pinned page left over.
# A poll of the driver's count beside the run sees that pages were pinned
# meanwhile. Then without cycling: the driver's buffers flat.
soak_counts() {	# soak_counts FILE KEY: the KEY values of FILE's samples, one per line
	grep '"type":"sample"' "$1" | sed -n "s/.*\"$2\":\([0-9a-z]*\).*/\1/p"
}
rm -f /tmp/soak_done
echo 0 >/tmp/soak_pinmax
(max=0
 while [ ! -e /tmp/soak_done ]; do
	v=$(cat /sys/class/fdma/$dev/pinned_pages)
	[ "$v" -gt "$max" ] && max=$v && echo "$max" >/tmp/soak_pinmax
	sleep 0.02
 done) &
pinpoll=$!
if run fdma_soak$TAG $E/fdma soak "$URI" --duration 8s --every 2s --sizes 64K \
	--card-sweep 0..16M/8M --buffers 4 --cycle-buffers --json; then
	f=/tmp/fdma_soak$TAG.json
	n=$(grep -c '"type":"sample"' $f)
	if ! grep -q '"type":"verdict","pass":true' $f || grep -q '"errors":[1-9]' $f; then
		fail fdma_soak$TAG "the verdict did not pass: $(grep -o '"type":"verdict".\{0,300\}' $f)"
	elif [ "$n" -lt 2 ] || grep '"type":"sample"' $f | sed 's/.*"series":\[\([^]]*\)\].*/\1/' |
			grep -q '"bytes":0,'; then
		fail fdma_soak$TAG "$n samples, or a series that moved nothing"
	elif [ "$(soak_counts $f drv_pinned_pages | sort -u)" != 0 ] ||
	     [ "$(soak_counts $f drv_buffers | sort -u)" != 0 ] ||
	     [ "$(soak_counts $f lib_buffers | sort -u)" != 0 ]; then
		fail fdma_soak$TAG "left held at a sample's end: pinned $(soak_counts $f drv_pinned_pages | tr '\n' ' ')buffers $(soak_counts $f drv_buffers | tr '\n' ' ')"
	elif [ "$(cat /tmp/soak_pinmax)" -le 0 ]; then
		fail fdma_soak$TAG "no page was ever pinned: registered memory was not cycled"
	else
		pass "fdma_soak$TAG ($n samples, up to $(cat /tmp/soak_pinmax) pages pinned, none left)"
	fi
fi
touch /tmp/soak_done
wait $pinpoll 2>/dev/null
if run fdma_soak_held$TAG $E/fdma soak "$URI" --duration 4s --every 2s --sizes 64K --dir c2h \
	--buffers 4 --json; then
	f=/tmp/fdma_soak_held$TAG.json
	b=$(soak_counts $f drv_buffers | sort -u)
	if ! grep -q '"type":"verdict","pass":true' $f || grep -q '"errors":[1-9]' $f; then
		fail fdma_soak_held$TAG "the verdict did not pass: $(grep -o '"type":"verdict".\{0,300\}' $f)"
	elif [ "$(echo "$b" | wc -l)" != 1 ] || [ "${b:-0}" -le 0 ]; then
		fail fdma_soak_held$TAG "the driver's buffers were not one count above 0: $b"
	else
		pass "fdma_soak_held$TAG (the driver's $b buffers at every sample)"
	fi
fi

# dma-buf memory, GPU memory's path: the CPU never touches it, every byte
# is checked through the card. The exporters the command can use are
# udmabuf and the system dma-heap (6.12 guests; 6.1 guests have vgem only).
# A stream buffer is one bus-contiguous piece: a page, for udmabuf.
if [ ! -e /dev/dma_heap/system ] && [ ! -e /dev/udmabuf ]; then
	echo "VMTEST SKIP fdma_bench_dmabuf$TAG: no udmabuf or dma-heap in this kernel"
else
	for d in c2h h2c; do
		run fdma_bench_dmabuf_$d$TAG $E/fdma bench "$URI" --mem dmabuf --dir $d --sizes 4K,64K \
			--batch 8 --seconds 1 --json &&
			json_ok fdma_bench_dmabuf_$d$TAG /tmp/fdma_bench_dmabuf_$d$TAG.json &&
			check_dmabuf_rows fdma_bench_dmabuf_$d$TAG
	done
	run fdma_stream_dmabuf$TAG $E/fdma stream "$URI" --mem dmabuf --testgen --frame-size 4096 \
		--fps 0 --frames 64 --buffers 8 --json &&
		json_ok fdma_stream_dmabuf$TAG /tmp/fdma_stream_dmabuf$TAG.json &&
		check_dmabuf_rows fdma_stream_dmabuf$TAG
fi

# Small frames (TCG) from the test generator, every frame checked. Under
# TCG the guest may not keep up with 200 fps: the source drops and counts
# what it cannot deliver (as a camera), which is no integrity error.
if run fdma_stream$TAG $E/fdma stream "$URI" --testgen --frame-size 65536 --fps 200 --seconds 2 \
	--buffers 8 --json; then
	if grep -q '"frames":0[,}]' /tmp/fdma_stream$TAG.json; then
		fail fdma_stream$TAG "no frames arrived"
	else
		json_ok fdma_stream$TAG /tmp/fdma_stream$TAG.json
	fi
fi

# played_back NAME FILE: FILE's 64 test generator frames of 64 KiB played
# into the checker, every one good: pass NAME$TAG, else fail it.
played_back() {
	if run "$1_play$TAG" $E/fdma play "$URI" "$2" --frame-size 65536 --testgen --json &&
	   grep -q '"checker_frames":64,"checker_errors":0' "/tmp/$1_play$TAG.json"; then
		pass "$1$TAG"
	else
		fail "$1$TAG" "played back: $(grep -o '"checker_[a-z]*":[0-9]*' "/tmp/$1_play$TAG.json" | tr '\n' ' ')"
	fi
}

# Recording through the driver's buffers (tools/frameio.c): the frames are
# written from fdma.ko's buffers through io_uring, registered as fixed
# buffers where the kernel pins a driver's file mapping for that (6.2 and
# later) and plain io_uring writes where it does not (6.1: EOPNOTSUPP),
# which the report says; the guest's root is in memory, so no O_DIRECT.
# Every frame checked, then played back into the checker, all good.
if run fdma_record$TAG $E/fdma stream "$URI" --testgen --fps 0 --frame-size 65536 --frames 64 \
	--buffers 8 -o /tmp/rec.raw --json; then
	j=/tmp/fdma_record$TAG.json
	case $(uname -r) in 6.1.*) want='io_uring, 8 buffers in flight (not registered: ' ;;
			    *) want='io_uring, 8 registered buffers' ;; esac
	if ! grep -q '"frames":64,.*"errors":0,.*"bytes_written":4194304,' $j; then
		fail fdma_record$TAG "not 64 frames written without errors: $(cat $j)"
	elif ! grep -qF "$want" $j; then
		fail fdma_record$TAG "the writes did not go as on $(uname -r) ('$want'): $(grep -o '"io":"[^"]*"' $j)"
	else
		played_back fdma_record /tmp/rec.raw
	fi
	rm -f /tmp/rec.raw
fi

# The recipe (examples/fdma_record.c): on 6.12 each buffer goes round a
# chain in the example's own ring, the capture into it (an fdma.ko
# io_uring command) linked to its write; 6.1 cannot cancel commands, so
# the driver takes none on a stream channel, the example says so and
# records through the stream API. Either way the file is played back into
# the checker, every frame good.
if [ -x $E/fdma-record ]; then
	case $(uname -r) in 6.1.*) want='^stream API: 64 frames of 65536 bytes'; why='^not linked: .*cannot cancel' ;;
			    *) want='^linked: 64 frames of 65536 bytes'; why=. ;; esac
	$E/fdma-record "$URI" /tmp/rl.raw 64 65536 >/tmp/rl.out 2>&1
	rc=$?
	sed 's/^/    /' /tmp/rl.out
	if [ $rc != 0 ] || ! grep -q "$want" /tmp/rl.out || ! grep -q "$why" /tmp/rl.out; then
		fail fdma_record_example$TAG "exit $rc, not as on $(uname -r) ('$want'): $(tail -1 /tmp/rl.out)"
	else
		played_back fdma_record_example /tmp/rl.raw
	fi
	rm -f /tmp/rl.raw
fi

# fdma doctor on the guest's device: fdma bound, MSI-X in use, no finding a
# fail (ivshmem is conventional PCI here: no link checks); then every device
# and the system-wide checks. Its output is kept in the log for the record.
if run fdma_doctor$TAG $E/fdma doctor "$URI" --json; then
	d=/tmp/fdma_doctor$TAG.json
	if ! grep -q '"id":"driver","level":"ok"' $d; then
		fail fdma_doctor$TAG "driver not ok: $(grep '"id":"driver"' $d)"
	elif ! grep -q '"id":"irq.mode","level":"ok".*"mode":"msix"' $d; then
		fail fdma_doctor$TAG "interrupts not MSI-X: $(grep '"id":"irq.mode"' $d)"
	elif ! grep -q '"id":"summary".*"devices":1,.*"fail":0' $d; then
		fail fdma_doctor$TAG "not one device without a fail: $(grep '"id":"summary"' $d)"
	else
		pass fdma_doctor$TAG
	fi
fi
run fdma_doctor_all$TAG $E/fdma doctor && pass fdma_doctor_all$TAG

# The GStreamer elements over the driver (tests/vm/run.sh copies them into
# the x86_64 guests): the C2H stream channel's test generator through
# fdmasrc into fdmasink on the H2C one, each frame counted by the device's
# checker; fdmasrc into a file played back through the checker; and
# videotestsrc writing into fdmasink's own DMA buffers (no frame copied).
gst() {
	GST_PLUGIN_SYSTEM_PATH=/usr/lib/fdma-gst GST_REGISTRY=/tmp/gst.bin GST_REGISTRY_FORK=no \
		gst-launch-1.0 -m "$@" >/tmp/gst.out 2>&1
}
if [ -n "$TAG" ]; then
	:	# once, with the plain build's plugin
elif ! command -v gst-launch-1.0 >/dev/null 2>&1 || [ ! -e /usr/lib/fdma-gst/libgstfdma.so ]; then
	echo "VMTEST SKIP gst: no GStreamer in this guest (the x86_64 rows copy the host's)"
else
	SRC="fdmasrc device=/dev/$dev testgen=true drop=false format=bytes frame-size=4096"
	if gst $SRC num-buffers=200 ! queue ! fdmasink device=/dev/$dev testgen=true sync=false &&
	   grep -q 'fdmasink-check, frames=(guint64)200, good=(guint64)200, bad=(guint64)0' /tmp/gst.out; then
		pass gst_src_sink
	else
		fail gst_src_sink "$(grep -m 1 -i 'error\|fdmasink-check' /tmp/gst.out)"
	fi
	if gst $SRC num-buffers=50 ! filesink location=/tmp/gst.raw &&
	   $E/fdma play "$URI" /tmp/gst.raw --frame-size 4096 --testgen >/tmp/gst.play 2>&1; then
		pass gst_src_file
	else
		fail gst_src_file "$(grep -m 1 -i 'error' /tmp/gst.out; grep 'fdma play:' /tmp/gst.play)"
	fi
	if gst videotestsrc num-buffers=30 ! video/x-raw,format=GRAY8,width=320,height=240 ! \
		fdmasink device=/dev/$dev &&
	   grep -q 'fdmasink-stats, frames=(guint64)30, bytes=(guint64)2304000, copies=(guint64)0' /tmp/gst.out; then
		pass gst_sink_zero_copy
	else
		fail gst_sink_zero_copy "$(grep -m 1 -i 'error\|fdmasink-stats' /tmp/gst.out)"
	fi
fi
exit 0
