#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fdma stream (C2H capture) and fdma play (H2C): frames captured to a file
# are checked byte by byte here (header, sequence, every payload word, CRC);
# a captured file played into the H2C test checker counts every frame good.
# Runs are short and assert counts, bytes and exit statuses, not timing.

. tests/cli/lib.sh

# wait_nonempty FILE: up to 10 s for FILE (removed before the run started)
# to hold something, the sign that a run in the background is under way (a
# fixed sleep races a slow start).
wait_nonempty() {
	_i=0
	while [ ! -s "$1" ] && [ "$_i" -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

# json_fail DESC EXPR: the last run exited 1 (what it counted was an
# error) and its JSON report makes EXPR true, as json checks it.
json_fail() {
	if [ "$rc" -ne 1 ]; then
		bad "$1" "exit $rc, want 1: $(errline)"
		return
	fi
	rc=0
	json "$@"
}

# ---- capture ----------------------------------------------------------------

fdma stream sim:paced=0 --testgen --fps 0 --frame-size 64K --frames 12 -o "$T/cap.raw" --json
json "stream --testgen --frames 12 -o FILE: 12 frames, all written, none dropped" \
	'len(L) == 1 and L[0]["frames"] == 12 and L[0]["bytes_written"] == 12 * 65536 and L[0]["dropped"] == 0 and L[0]["errors"] == 0 and L[0]["mode"] == "hold"'
check_frames "$T/cap.raw" 65536 12 "the captured file: 12 intact frames, sequence 0..11, every byte"

# Odd frame size: not a multiple of 8 or of the alignment; zero tail bytes.
fdma stream sim:paced=0 --testgen --fps 0 --frame-size 1000 --frames 7 -o "$T/odd.raw" --json
json "stream --frame-size 1000: 7 frames" 'L[0]["frames"] == 7 and L[0]["errors"] == 0'
check_frames "$T/odd.raw" 1000 7 "1000-byte frames: every byte right"

# Frames into dma-bufs the CPU never touches: each seen through the card,
# checked, and written from the host copy.
fdma stream sim:paced=0 --mem dmabuf --testgen --fps 0 --frame-size 1000 --frames 9 -o "$T/dmabuf.raw" --json
json "stream --mem dmabuf: 9 frames seen through the card, checked and written" \
	'L[0]["frames"] == 9 and L[0]["errors"] == 0 and L[0]["mem"] == "dmabuf" and L[0]["exporter"] and L[0]["bytes_checked"] == L[0]["bytes"] == 9000 and L[0]["bytes_written"] == 9000'
check_frames "$T/dmabuf.raw" 1000 9 "stream --mem dmabuf: the file's 9 frames, every byte"
expect_usage "stream --mem gpu exits 2" stream sim: --mem gpu

# To standard output (a pipe): the frames on stdout, the report on stderr.
$TO "$FDMA" stream sim:paced=0 --testgen --fps 0 --frame-size 4K --frames 5 -o - --json \
	>"$T/pipe.raw" 2>"$T/err"
rc=$?
if [ "$rc" -eq 0 ] && grep -q '"frames":5' "$T/err"; then
	ok "stream -o -: exit 0, the JSON report on stderr"
else
	bad "stream -o -" "exit $rc: $(errline)"
fi
check_frames "$T/pipe.raw" 4096 5 "stream -o -: 5 intact frames on stdout"

# A reader that goes away (head) ends the run without a failure.
$TO "$FDMA" stream sim:paced=0 --testgen --fps 0 --frame-size 4K --seconds 2 -o - 2>"$T/err" | head -c 8192 >"$T/head.raw"
if [ "$(wc -c <"$T/head.raw")" -eq 8192 ] && grep -q "closed the pipe" "$T/err"; then
	ok "stream -o - into head: ends when the reader closes the pipe"
else
	bad "stream -o - into head" "$(errline)"
fi

# What the report says of a pipe's reader: written is what write() took,
# and a reader that closed early took that less what it left in the pipe.
{ $TO "$FDMA" stream sim:paced=0 --testgen --fps 0 --frame-size 4K --seconds 2 -o - --json \
	2>"$T/out"; echo $? >"$T/rc"; } | head -c 10000 >"$T/head2.raw"
rc=$(cat "$T/rc")
json "stream -o - | head -c 10000: bytes_written less bytes_unread is the 10000 head took" \
	'L[0]["bytes_written"] - L[0]["bytes_unread"] == 10000 and L[0]["bytes_written"] >= 10000 and L[0]["errors"] == 0'
$TO "$FDMA" stream sim:paced=0 --testgen --fps 0 --frame-size 4K --seconds 2 -o - \
	2>"$T/err" | head -c 5000 >/dev/null
if grep -q "closed the pipe after reading 5000 " "$T/err"; then
	ok "stream -o - | head -c 5000: the text says the reader read 5000 bytes"
else
	bad "stream -o - | head -c 5000: the text says what the reader read" "$(grep written "$T/err")"
fi

# Errors counted apart: the output's, timeouts and the device's are not
# integrity errors (a frame that fails its check).
fdma stream sim:paced=0 --testgen --fps 0 --frame-size 4K --frames 3 -o /dev/full --json
json_fail "stream -o /dev/full: a write error, counted apart; no integrity error" \
	'L[0]["write_errors"] == 1 and L[0]["data_errors"] == 0 and L[0]["timeouts"] == 0 and L[0]["device_errors"] == 0 and L[0]["errors"] == 1 and L[0]["bytes_checked"] > 0'
fdma stream sim:paced=0 --testgen --fps 0 --frame-size 4K --frames 3 -o /dev/full
if [ "$rc" -eq 1 ] && grep -q "^  integrity errors 0 " "$T/out" && grep -q "writing the output 1" "$T/out"; then
	ok "stream -o /dev/full text: integrity errors 0, the write error said apart, exit 1"
else
	bad "stream -o /dev/full text" "exit $rc: $(grep -i error "$T/out" | tr '\n' '|')"
fi
fdma stream sim:paced=0 --testgen --fps 0.25 --frame-size 4K --timeout 0.3 --seconds 3 --json
json_fail "stream --timeout 0.3 at 0.25 fps: a timeout, counted apart; no integrity error" \
	'L[0]["timeouts"] == 1 and L[0]["data_errors"] == 0 and L[0]["write_errors"] == 0 and L[0]["errors"] == 1'
fdma stream sim:paced=0,fault=data@3 --testgen --fps 0 --frame-size 4K --frames 6 --json
json_fail "stream on a device that poisons a buffer: a device error, counted apart; no integrity error" \
	'L[0]["device_errors"] >= 1 and L[0]["data_errors"] == 0 and L[0]["errors"] == L[0]["device_errors"]'

# A rate needs two frames: one frame has none ('-', null), not a figure
# from the run's set-up time.
fdma stream sim:paced=0 --testgen --fps 0 --frame-size 4K --frames 1 --json
json "stream --frames 1: fps and mbps null" \
	'L[0]["frames"] == 1 and L[0]["fps"] is None and L[0]["mbps"] is None'
fdma stream sim:paced=0 --testgen --fps 0 --frame-size 4K --frames 1
if [ "$rc" -eq 0 ] && grep -q "^  frames 1 (- fps, - MB/s)" "$T/out"; then
	ok "stream --frames 1 text: '- fps, - MB/s'"
else
	bad "stream --frames 1 text" "exit $rc: $(sed -n 2p "$T/out")"
fi
head -c 65536 "$T/cap.raw" >"$T/one.raw"
fdma play sim:paced=0 "$T/one.raw" --frame-size 64K --testgen --json
json "play of one frame: fps and mbps null, the frame good" \
	'L[0]["frames"] == 1 and L[0]["fps"] is None and L[0]["mbps"] is None and L[0]["checker_frames"] == 1'
expect_fail "stream --require-fps with one frame: no rate, exit 1 saying so" "give no rate" \
	stream sim:paced=0 --testgen --fps 0 --frame-size 4K --frames 1 --require-fps 1
expect_usage "stream --drop --hold: opposites, exit 2" stream sim: --testgen --drop --hold

# Without --testgen nothing on sim: feeds the channel: a clear failure.
expect_fail "stream without --testgen on sim: times out naming --testgen" "testgen" \
	stream sim:paced=0 --timeout 0.2 --seconds 1
expect_usage "stream --fps without --testgen exits 2" stream sim: --fps 30
expect_usage "stream --frames 0 exits 2" stream sim: --frames 0
expect_usage "stream --dir sideways exits 2" stream sim: --dir sideways
expect_fail "stream --chan 0 (a memory-mapped channel) exits 1" "not a C2H stream" \
	stream sim: --chan 0 --testgen --seconds 0.1
expect_fail "stream -o into a missing folder exits 1" "cannot write" \
	stream sim:paced=0 --testgen --frames 1 -o "$T/no/such/file"

# ---- honest rates (item 7) -------------------------------------------------------

# 1080p frames at 200 fps over gen2 x1 (about 450 MB/s: some 145 fps at most).
fdma stream sim: --testgen --fps 200 --seconds 0.3 --json
json "1080p at 200 fps, camera (drop) mode: drops counted, sequence gaps match, target missed" \
	'L[0]["dropped"] > 0 and L[0]["seq_gaps"] <= L[0]["dropped"] and L[0]["seq_gaps"] > 0 and L[0]["target_met"] is False and L[0]["errors"] == 0'
if grep -q "missed target" "$T/err"; then
	ok "a missed target is said on stderr"
else
	bad "a missed target is said on stderr" "$(errline)"
fi
expect_fail "--require-fps above what the link carries exits 1" "require-fps" \
	stream sim: --testgen --fps 200 --seconds 0.3 --require-fps 190
fdma stream sim: --testgen --fps 200 --hold --seconds 0.3 --json
json "1080p at 200 fps held back: nothing dropped, target missed" \
	'L[0]["dropped"] == 0 and L[0]["seq_gaps"] == 0 and L[0]["target_met"] is False and L[0]["mode"] == "hold"'
# A rate the link carries, held back: never a drop or a gap (drop mode could
# lose a frame to a model thread stalled for a period on a loaded machine).
fdma stream sim: --testgen --frame-size 64K --fps 100 --hold --seconds 0.3 --json
json "64K frames at 100 fps held back: nothing dropped, no gaps" \
	'L[0]["dropped"] == 0 and L[0]["seq_gaps"] == 0 and L[0]["frames"] >= 2 and L[0]["errors"] == 0'

# ---- play (H2C) ---------------------------------------------------------------

fdma play sim:paced=0 "$T/cap.raw" --frame-size 64K --testgen --json
json "play a captured file into the H2C checker: 12 good, 0 bad" \
	'L[0]["frames"] == 12 and L[0]["checker_frames"] == 12 and L[0]["checker_errors"] == 0 and L[0]["errors"] == 0 and L[0]["bytes"] == 12 * 65536'
fdma stream sim:paced=0 --dir h2c --input "$T/cap.raw" --frame-size 64K --testgen --frames 5 --json
json "stream --dir h2c --input FILE --frames 5 is play: 5 good" \
	'L[0]["dir"] == "h2c" and L[0]["frames"] == 5 and L[0]["checker_frames"] == 5 and L[0]["checker_errors"] == 0'
# 1 MiB frames, with descriptors of 256 KiB: each frame in 4 pieces.
fdma stream sim:paced=0 --testgen --fps 0 --frame-size 1M --frames 3 -o "$T/big.raw"
fdma play sim:paced=0,maxdesc=256K "$T/big.raw" --frame-size 1M --testgen --json
json "1 MiB frames in 256 KiB pieces: 3 good" \
	'L[0]["frames"] == 3 and L[0]["checker_frames"] == 3 and L[0]["checker_errors"] == 0'

# Paced: 5 frames at 10 fps are 4 periods from the first submission to the
# last completion, so the rate can only come out at 10 or below (slower if
# the machine is slow), and target_met agrees with the rate shown.
fdma play sim: "$T/cap.raw" --frame-size 64K --fps 10 --frames 5 --testgen --json
json "play --fps 10 of 5 frames: at most 10 fps measured, target_met agrees with it" \
	'L[0]["frames"] == 5 and 0 < L[0]["fps"] <= 10.5 and L[0]["checker_frames"] == 5 and ((L[0]["target_met"] is True and L[0]["fps"] >= 9.795) or (L[0]["target_met"] is False and L[0]["fps"] <= 9.805))'
if grep -q "missed target" "$T/err"; then _said=False; else _said=True; fi
json "play --fps 10: 'missed target' on stderr exactly when target_met is false" \
	'L[0]["target_met"] is '"$_said"
fdma play sim: "$T/cap.raw" --frame-size 64K --fps 10 --frames 5
if [ "$rc" -eq 0 ] && awk '/^  frames 5 \(/ { sub(/^\(/, "", $3); ok = $3 + 0 > 0 && $3 + 0 <= 10.5 } END { exit !ok }' "$T/out"; then
	ok "play --fps 10 text: at most 10 fps"
else
	bad "play --fps 10 text" "exit $rc: $(sed -n 2p "$T/out")"
fi

# A frame needs more descriptors than the ring has: a clear failure.
expect_fail "play: a frame of 16 descriptors on a ring of 8 exits 1 naming both" \
	"needs 16 descriptors, the ring holds 8" \
	play 'sim:paced=0,ring=8,maxdesc=64K' "$T/big.raw" --frame-size 1M
# --buffers more than the ring holds: fewer, said on stderr, all frames good.
fdma play 'sim:paced=0,ring=8,maxdesc=256K' "$T/big.raw" --frame-size 1M --buffers 4 --testgen --json
json "play --buffers 4 of 4-descriptor frames on a ring of 8: 2 buffers, 3 good" \
	'L[0]["buffers"] == 2 and L[0]["frames"] == 3 and L[0]["checker_frames"] == 3 and L[0]["checker_errors"] == 0'
if grep -q "buffers 4 reduced to 2" "$T/err"; then
	ok "play: --buffers reduced to fit the ring is said on stderr"
else
	bad "play: --buffers reduced to fit the ring is said on stderr" "$(errline)"
fi

# A corrupted frame: the checker says so, play exits 1.
cp "$T/cap.raw" "$T/bad.raw"
printf 'X' | dd of="$T/bad.raw" bs=1 seek=70000 conv=notrunc 2>/dev/null
expect_fail "play a file with one corrupted byte: exit 1, the checker counts it" "1 bad" \
	play sim:paced=0 "$T/bad.raw" --frame-size 64K --testgen
# A partial last frame is reported and not sent.
head -c 100000 "$T/cap.raw" >"$T/part.raw"
expect_fail "play a file ending in a partial frame exits 1 naming it" "not a whole" \
	play sim:paced=0 "$T/part.raw" --frame-size 64K --testgen
# Every frame size stream writes, play sends on the same kind of channel:
# 1000-byte frames on byte streams (FDMA 1.3, XDMA); an engine whose
# streams keep to 64-byte units (bytes=0) cannot send them, and says so.
fdma play sim:paced=0 "$T/odd.raw" --frame-size 1000 --testgen --json
json "play --frame-size 1000 of stream's 1000-byte frames: the checker counts 7 good" \
	'L[0]["frames"] == 7 and L[0]["checker_frames"] == 7 and L[0]["checker_errors"] == 0 and L[0]["bytes"] == 7000'
fdma stream sim:paced=0,engine=xdma --testgen --fps 0 --frame-size 1000 --frames 6 -o "$T/xodd.raw" --json
json "stream --frame-size 1000 on the XDMA model (C2H buffers in 64-byte units): 6 frames" \
	'L[0]["frames"] == 6 and L[0]["errors"] == 0 and L[0]["bytes_written"] == 6000'
check_frames "$T/xodd.raw" 1000 6 "XDMA's 1000-byte frames: every byte right"
fdma play sim:paced=0,engine=xdma "$T/xodd.raw" --frame-size 1000 --testgen --json
json "play --frame-size 1000 on the XDMA model: 6 good" \
	'L[0]["checker_frames"] == 6 and L[0]["checker_errors"] == 0'
expect_usage "play --frame-size 1000 where streams keep to 64-byte units (bytes=0) exits 2" \
	play sim:bytes=0 "$T/odd.raw" --frame-size 1000
expect_usage "play without a file exits 2" play sim:
expect_fail "play a missing file exits 1" "cannot read" play sim: "$T/nope.raw"

# ---- long runs: Ctrl-C and the progress line ------------------------------------

# SIGINT (Ctrl-C) ends the run and the summary is still printed, exit 0;
# the file holds whole frames, as many bytes as the summary says. --hold:
# a capture that drops frames (a slow machine: armhf under qemu-user did)
# leaves gaps in their numbers, which the checker counts as bad frames
# when the file is played back below.
rm -f "$T/sig.raw"
"$FDMA" stream sim: --testgen --frame-size 64K --fps 100 --hold --seconds 20 -o "$T/sig.raw" --json \
	>"$T/out" 2>"$T/err" &
pid=$!
wait_nonempty "$T/sig.raw"
kill -INT "$pid"
wait "$pid"
rc=$?
sz=$(wc -c <"$T/sig.raw")
json "stream interrupted by SIGINT: the summary, interrupted true, frames counted" \
	'L[0]["interrupted"] is True and L[0]["frames"] > 0 and L[0]["seconds"] < 15 and L[0]["errors"] == 0'
json "stream -o FILE interrupted: the file is $sz bytes, whole frames, bytes_written" \
	'L[0]["bytes_written"] == '"$sz"' and '"$sz"' % 65536 == 0 and '"$sz"' > 0'
fdma play sim:paced=0 "$T/sig.raw" --frame-size 64K --testgen --json
json "the interrupted capture plays back: every frame good" \
	'L[0]["frames"] * 65536 == '"$sz"' and L[0]["checker_frames"] == L[0]["frames"] and L[0]["checker_errors"] == 0'
# The table's header is flushed when the first size starts: then signal
# (the old output removed first, or it would pass for the new one).
rm -f "$T/out"
"$FDMA" bench sim: --sizes 4K,64K,1M --seconds 20 >"$T/out" 2>"$T/err" &
pid=$!
wait_nonempty "$T/out"
kill -INT "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 0 ] && [ "$(grep -c 'KiB' "$T/out")" -eq 1 ]; then
	ok "bench interrupted by SIGINT: the current size's row, no more, exit 0"
else
	bad "bench interrupted by SIGINT" "exit $rc: $(tail -n 1 "$T/out")"
fi
# Not a terminal: no progress line (no carriage returns) on stderr.
fdma stream sim:paced=0 --testgen --fps 0 --frame-size 4K --seconds 0.7
if [ "$rc" -eq 0 ] && ! grep -q "$(printf '\r')" "$T/err"; then
	ok "no progress line when stderr is not a terminal"
else
	bad "no progress line when stderr is not a terminal" "exit $rc"
fi

finish
