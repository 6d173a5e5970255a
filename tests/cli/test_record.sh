#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Recording: fdma stream -o FILE writes frames from the DMA buffers with
# O_DIRECT through io_uring, fdma play reads them back the same way, and
# every fallback says why: --no-direct, --no-uring, frames not in whole
# direct-I/O units, tmpfs, a pipe. Every recording is checked byte by byte
# and played back into the device's checker. Then a disk slower than the
# link (the block layer's own throttle, where this machine has one): in
# hold mode nothing is lost, in drop mode the drops are counted and the
# report names the output as the bottleneck. Counts and bytes, not timing.

. tests/cli/lib.sh

BUILD=${BUILD:-build}
# The recordings go beside the build (a disk), not in $T (/tmp is tmpfs on many systems).
D=$(mktemp -d "$BUILD/record.XXXXXX") || exit 1
trap 'rm -rf "$T" "$D"' EXIT

# direct_ok: the file system under $D takes O_DIRECT.
direct_ok() {
	[ "$HAVE_PY" -eq 1 ] && python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_DIRECT)
os.close(fd)
' "$D/probe" 2>/dev/null
	_r=$?
	rm -f "$D/probe"
	return $_r
}
# Under qemu-user (the cross tests' fdma) statx() loses the file's
# direct-I/O alignment (the mask comes through, the fields do not), which
# the command takes for no O_DIRECT, as it should for a file system that
# says 0.
if direct_ok && host_elf "$FDMA"; then DIRECT=True; else DIRECT=False; fi

# record DESC FILE SIZE N ARGS...: record N test generator frames of SIZE
# bytes to FILE (hold mode: nothing may be lost), check the JSON report
# and every byte of the file, then play it into the checker (ARGS too,
# where they are play's: --no-direct, --no-uring) and see N frames good.
# EXPR (a Python expression on the stream's report R) in $WANT.
record() {
	_d=$1 _f=$2 _sz=$3 _n=$4
	shift 4
	fdma stream sim:paced=0 --testgen --fps 0 --frame-size "$_sz" --frames "$_n" -o "$_f" --json "$@"
	json "$_d: $_n frames written, none lost" \
		"(R := L[0]) is not None and R['frames'] == $_n and R['bytes_written'] == $_n * $_sz and R['errors'] == 0 and R['dropped'] == 0 and ($WANT)"
	check_frames "$_f" "$_sz" "$_n" "$_d: every byte of the file"
	fdma play sim:paced=0 "$_f" --frame-size "$_sz" --testgen --json "$@"
	json "$_d: played back, the checker counts $_n good" \
		"(R := L[0]) is not None and R['checker_frames'] == $_n and R['checker_errors'] == 0 and ($WANT)"
}

# ---- the default: O_DIRECT through io_uring -------------------------------------

# io_uring: wherever the command was built with liburing (as the recipe
# is), runs natively (qemu-user has none) and the kernel allows it. The
# buffers registered, or not and why (a memlock limit, for one).
URING="True"
if [ -x "$BUILD/examples/fdma-record" ] && host_elf "$FDMA" &&
   [ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" = 0 ]; then
	URING="('registered buffers' in R['io'] or 'buffers in flight (not registered: ' in R['io'])"
fi
if [ "$DIRECT" = True ]; then
	WANT="R['io_direct'] and R['io'].startswith('O_DIRECT, ') and $URING"
else
	WANT="not R['io_direct'] and 'through the page cache' in R['io'] and $URING"
fi
record "stream -o FILE (64K frames, 8 buffers)" "$D/rec.raw" 65536 40
record "stream -o FILE --buffers 2" "$D/rec2.raw" 65536 20 --buffers 2

# 1080p YUV 4:2:0: 3110400 bytes, in whole 512-byte units but not pages:
# direct where the file system's unit is 512 bytes (ext4 on most disks).
WANT="R['io_direct'] == $DIRECT or 'not in whole' in R['io']"
record "stream -o FILE of 1080p YUV 4:2:0 frames" "$D/yuv.raw" 3110400 6

# ---- the fallbacks, each saying why -------------------------------------------

WANT="not R['io_direct'] and 'through the page cache (asked for)' in R['io']"
record "--no-direct" "$D/nodirect.raw" 65536 16 --no-direct
WANT="R['io_direct'] == $DIRECT and 'pread/pwrite one at a time (asked for)' in R['io']"
record "--no-uring" "$D/nouring.raw" 65536 16 --no-uring
WANT="not R['io_direct'] and 'through the page cache' in R['io']"
[ "$DIRECT" = True ] && WANT="$WANT and 'units of the file\'s direct-I/O alignment' in R['io']"
record "1000-byte frames (not in whole direct-I/O units)" "$D/odd.raw" 1000 30
if [ "$DIRECT" = True ] && grep -q "through the page cache from here on" "$T/err"; then
	ok "1000-byte frames: play says on stderr that it leaves O_DIRECT, and why"
elif [ "$DIRECT" = True ]; then
	bad "1000-byte frames: play says it leaves O_DIRECT" "$(errline)"
fi

if [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	S=$(mktemp -d /dev/shm/fdma-record.XXXXXX)
	WANT="not R['io_direct'] and 'tmpfs keeps files in memory' in R['io']"
	record "a file on tmpfs" "$S/tmpfs.raw" 65536 16
	rm -rf "$S"
else
	skip "a file on tmpfs (no writable tmpfs at /dev/shm)"
fi

# A named pipe: written as a pipe is (write(2) in order; a reader that goes
# away ends the run), read in order. The other ends are bounded in time, so
# that a failure here cannot hang the suite.
mkfifo "$D/fifo"
timeout 60 cat "$D/fifo" >"$D/fromfifo.raw" &
fdma stream sim:paced=0 --testgen --fps 0 --frame-size 4096 --frames 25 -o "$D/fifo" --json
wait
json "stream -o FIFO: written in order as a pipe" \
	"(R := L[0]) is not None and R['frames'] == 25 and R['bytes_written'] == 25 * 4096 and R['io'] is None"
check_frames "$D/fromfifo.raw" 4096 25 "stream -o FIFO: every byte, in order"
timeout 60 sh -c 'cat "$1" >"$2"' sh "$D/fromfifo.raw" "$D/fifo" &
fdma play sim:paced=0 "$D/fifo" --frame-size 4096 --testgen --json
wait
json "play FIFO: read(2) in order, 25 good" \
	"(R := L[0]) is not None and R['checker_frames'] == 25 and R['checker_errors'] == 0 and 'not a regular file' in R['io']"
timeout 60 head -c 10000 "$D/fifo" >/dev/null &
fdma stream sim:paced=0 --testgen --fps 0 --frame-size 4096 --frames 1000 -o "$D/fifo" --json
wait
json "stream -o FIFO whose reader goes away: the run ends, exit 0" \
	"(R := L[0]) is not None and 0 < R['frames'] < 1000 and R['errors'] == 0"

# Ctrl-C while play waits on a pipe whose writer sends nothing: the run
# ends with its summary, interrupted (the read-ahead stops there too).
# (The writer's open meets play's; it then holds the pipe for 30 s.)
timeout 30 sh -c 'sleep 30 >"$1"' sh "$D/fifo" &
wpid=$!
"$FDMA" play sim:paced=0 "$D/fifo" --frame-size 4096 --json >"$T/out" 2>"$T/err" &
pid=$!
wait_caught "$pid"
sleep 0.5
kill -INT "$pid"
t0=$(date +%s)
wait "$pid"
rc=$?
kill "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null
if [ $(($(date +%s) - t0)) -le 10 ]; then
	json "play of a silent pipe, Ctrl-C: ends with the summary, interrupted" \
		'L[0]["interrupted"] is True and L[0]["frames"] == 0 and L[0]["errors"] == 0'
else
	bad "play of a silent pipe, Ctrl-C" "still running $(($(date +%s) - t0)) s later"
fi

# ---- the recipe: examples/fdma_record.c (the public API and liburing alone) --------

EX=$BUILD/examples/fdma-record
if [ ! -x "$EX" ]; then
	skip "examples/fdma_record.c (not built: no liburing)"
elif ! host_elf "$EX"; then
	skip "examples/fdma_record.c (a cross build's: the cross tests run the fdma command only)"
elif [ "$DIRECT" = False ]; then
	skip "examples/fdma_record.c (no O_DIRECT under $BUILD)"
else
	$TO "$EX" sim:paced=0 "$D/example.raw" 30 65536 >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" -eq 0 ] && grep -q "^not linked: .*kdev: does" "$T/out" &&
	   grep -q "^stream API: 30 frames of 65536 bytes written .* 0 dropped" "$T/out"; then
		ok "examples/fdma_record.c: not linked on sim: (it says why), 30 frames written with O_DIRECT from registered buffers"
	else
		bad "examples/fdma_record.c" "exit $rc: $(errline)"
	fi
	check_frames "$D/example.raw" 65536 30 "examples/fdma_record.c: every byte of the file"
fi

# ---- errors --------------------------------------------------------------------

expect_rc "stream -o into a folder that is not there exits 1" 1 \
	stream sim: --testgen --fps 0 --frame-size 4K --frames 2 -o "$D/none/x.raw"
if grep -q "cannot write '$D/none/x.raw'" "$T/err"; then
	ok "... naming the file"
else
	bad "stream -o into a missing folder names the file" "$(errline)"
fi
# A file size limit: the write that crosses it is cut short, the rest fails (EFBIG).
(trap '' XFSZ && exec prlimit --fsize=102400 "$FDMA" stream sim:paced=0 --testgen --fps 0 \
	--frame-size 64K --frames 8 -o "$D/big.raw" --json) >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "File too large" "$T/err" && [ "$(stat -c %s "$D/big.raw")" -eq 102400 ]; then
	ok "stream -o past the file size limit: exit 1, 'File too large', the file stops at the limit"
else
	bad "stream -o past the file size limit" "exit $rc, $(stat -c %s "$D/big.raw" 2>/dev/null) bytes: $(errline)"
fi

# ---- a disk slower than the link --------------------------------------------------

# throttle_setup: a cgroup whose writes to the disk under $D go at 20 MB/s
# (cgroup v1 blkio or v2 io); its cgroup.procs in $CG. Needs root.
CG=""
throttle_setup() {
	[ "$(id -u)" -eq 0 ] || { WHY="not root"; return 1; }
	mm=$(stat -c '%Hd:%Ld' "$D") || return 1
	# A partition's writes are throttled on its disk.
	[ -e "/sys/dev/block/$mm/partition" ] && mm=$(cat "/sys/dev/block/$mm/../dev")
	[ -e "/sys/dev/block/$mm" ] || { WHY="$D is not on a block device ($mm)"; return 1; }
	if [ -w /sys/fs/cgroup/blkio/blkio.throttle.write_bps_device ]; then
		G=/sys/fs/cgroup/blkio/fdma-record-$$
		mkdir "$G" && echo "$mm 20971520" >"$G/blkio.throttle.write_bps_device" ||
			{ WHY="cannot set blkio.throttle.write_bps_device"; return 1; }
	elif grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
		G=/sys/fs/cgroup/fdma-record-$$
		echo +io >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
		mkdir "$G" && echo "$mm wbps=20971520" >"$G/io.max" ||
			{ WHY="cannot set io.max"; return 1; }
	else
		WHY="no blkio or io cgroup controller"
		return 1
	fi
	CG=$G
	trap 'rm -rf "$T" "$D"; [ -n "$CG" ] && rmdir "$CG" 2>/dev/null' EXIT
}
# throttled ARGS...: fdma ARGS in the throttled cgroup.
throttled() {
	$TO sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" "$FDMA" "$@" \
		>"$T/out" 2>"$T/err"
	rc=$?
}

WHY=""
if [ "$DIRECT" = True ] && throttle_setup; then
	# 100 fps of 1 MiB frames (100 MB/s) against 20 MB/s: held back, nothing lost.
	throttled stream sim:paced=0 --testgen --fps 100 --frame-size 1M --buffers 4 --hold \
		--seconds 1.5 -o "$D/slow.raw" --json
	json "a 20 MB/s disk, --hold: every buffer waited on the disk, nothing dropped" \
		'(R := L[0]) is not None and R["output_waits"] > 0 and R["dropped"] == 0 and R["seq_gaps"] == 0 and R["bytes_written"] == R["bytes"] == R["frames"] * 1048576 and R["io_direct"]'
	n=$(stat -c %s "$D/slow.raw")
	check_frames "$D/slow.raw" 1048576 $((n / 1048576)) "a 20 MB/s disk, --hold: every frame in the file"
	# The same with --drop: the device drops what the disk cannot take, and says who.
	throttled stream sim:paced=0 --testgen --fps 100 --frame-size 1M --buffers 4 --drop \
		--seconds 1.5 -o "$D/slow.raw" --json
	json "a 20 MB/s disk, --drop: frames dropped by the device and counted, the rest written" \
		'(R := L[0]) is not None and R["output_waits"] > 0 and R["dropped"] > 0 and R["seq_gaps"] > 0 and R["dropped"] >= R["seq_gaps"] and R["data_errors"] == 0 and R["bytes_written"] == R["bytes"]'
	if grep -q "the output is the bottleneck" "$T/err"; then
		ok "a 20 MB/s disk, --drop: the report names the output as the bottleneck"
	else
		bad "a 20 MB/s disk, --drop: the report names the output" "$(errline)"
	fi
else
	skip "a disk slower than the link: ${WHY:-no O_DIRECT under $BUILD}"
fi

finish
