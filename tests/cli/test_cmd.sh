#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Command-line tests of the fdma tool: exit statuses, usage texts, JSON
# output and short runs on the simulated device.
#
#   FDMA=build/fdma sh tests/cli/test_cmd.sh
#
# `make check-tests` runs every tests/cli/test_*.sh from the repository
# root, also for the sanitizer builds (FDMA=build-asan/fdma,
# build-tsan/fdma). Prints one line per check, then "N passed, M failed";
# exits 1 if any check failed. Runs take --seconds 0.3 or less, so the
# whole script takes a few seconds.

. tests/cli/lib.sh

# ---- the dispatcher --------------------------------------------------------

fdma
if [ "$rc" -eq 2 ] && [ -s "$T/err" ]; then
	ok "fdma without arguments exits 2 with usage on stderr"
else
	bad "fdma without arguments exits 2 with usage on stderr" "exit $rc"
fi

fdma --help
_miss=
for c in info bench stream model; do
	grep -q "^  $c " "$T/out" || _miss="$_miss $c"
done
if [ "$rc" -ne 0 ]; then
	bad "fdma --help exits 0" "exit $rc"
elif [ -n "$_miss" ]; then
	bad "fdma --help lists info, bench, stream, model" "missing:$_miss"
else
	ok "fdma --help exits 0 and lists info, bench, stream, model"
fi

expect_usage "fdma nosuchcommand exits 2" nosuchcommand
if [ "$(wc -l <"$T/err")" -eq 2 ] && grep -q "^try 'fdma --help'$" "$T/err"; then
	ok "fdma nosuchcommand: one line and a hint, not the whole usage"
else
	bad "fdma nosuchcommand: one line and a hint" "$(wc -l <"$T/err") lines: $(errline)"
fi

# fdma help CMD is fdma CMD --help.
for c in stream info reg; do
	fdma help "$c"
	if [ "$rc" -eq 0 ] && grep -q "^usage: fdma $c" "$T/out" && [ ! -s "$T/err" ]; then
		ok "fdma help $c prints fdma $c's usage, exit 0"
	else
		bad "fdma help $c" "exit $rc: $(head -n 1 "$T/out") $(errline)"
	fi
done
expect_usage "fdma help nosuchcommand exits 2" help nosuchcommand

fdma --version
if [ "$rc" -eq 0 ] && grep -q '^fdma [0-9]' "$T/out"; then
	ok "fdma --version exits 0 and prints the version"
else
	bad "fdma --version exits 0 and prints the version" "exit $rc"
fi

# ---- --help and bad options of every subcommand -------------------------------

for c in info bench stream model; do
	fdma "$c" --help
	if [ "$rc" -ne 0 ]; then
		bad "fdma $c --help exits 0" "exit $rc: $(errline)"
	elif ! grep -q "^usage: fdma $c" "$T/out"; then
		bad "fdma $c --help prints usage on stdout" "$(head -n 1 "$T/out")"
	else
		ok "fdma $c --help exits 0 and prints usage on stdout"
	fi
	expect_usage "fdma $c --no-such-option exits 2" "$c" sim: --no-such-option
done
# An unknown option: getopt's line naming it, and a hint; not the whole usage.
for c in info bench stream play loop dump load reg model doctor; do
	fdma "$c" --no-such-option
	if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 2 ] && grep -q "no-such-option" "$T/err" &&
		grep -q "^try 'fdma $c --help'$" "$T/err"; then
		ok "fdma $c --no-such-option: one line naming it and a hint, exit 2"
	else
		bad "fdma $c --no-such-option: one line naming it and a hint" \
			"exit $rc, $(wc -l <"$T/err") lines: $(errline)"
	fi
done

# ---- the device: a URI, a node, or FDMA_DEVICE ----------------------------------

_keep=${FDMA_DEVICE-}
unset FDMA_DEVICE
for c in info bench stream loop; do
	fdma "$c"
	if [ "$rc" -eq 2 ] && grep -q "FDMA_DEVICE" "$T/err" && [ ! -s "$T/out" ]; then
		ok "fdma $c without a URI or FDMA_DEVICE: exit 2 naming FDMA_DEVICE"
	else
		bad "fdma $c without a URI or FDMA_DEVICE" "exit $rc: $(errline)"
	fi
done
FDMA_DEVICE=sim:gen=3,lanes=4
export FDMA_DEVICE
fdma info --json
json "FDMA_DEVICE=sim:gen=3,lanes=4 fdma info: that device" 'L[0]["gen"] == 3 and L[0]["lanes"] == 4'
fdma info sim: --json
json "a URI given beats FDMA_DEVICE" 'L[0]["gen"] == 2 and L[0]["lanes"] == 1'
FDMA_DEVICE=sim:paced=0
fdma bench --sizes 64K --seconds 0.1 --json
json "FDMA_DEVICE with bench: rows of that device, checked" \
	'len(L) == 1 and L[0]["uri"] == "sim:paced=0" and L[0]["errors"] == 0 and L[0]["bytes_checked"] > 0'
fdma stream --testgen --fps 0 --frame-size 4K --frames 3 --json
json "FDMA_DEVICE with stream: 3 frames checked" 'L[0]["frames"] == 3 and L[0]["errors"] == 0'
fdma dump --card 0 --len 4K -o "$T/env.bin" --json
json "FDMA_DEVICE with dump: 4096 bytes" 'L[0]["bytes"] == 4096 and L[0]["uri"] == "sim:paced=0"'
# play and load take FILE alone then (and still a URI before it).
fdma stream --testgen --fps 0 --frame-size 4K --frames 4 -o "$T/env.raw"
fdma play "$T/env.raw" --frame-size 4K --testgen --json
json "FDMA_DEVICE with play FILE: the checker counts 4 good" \
	'L[0]["uri"] == "sim:paced=0" and L[0]["checker_frames"] == 4 and L[0]["checker_errors"] == 0'
fdma load --card 0 "$T/env.raw" --verify --json
json "FDMA_DEVICE with load FILE --verify: no mismatch" \
	'L[0]["uri"] == "sim:paced=0" and L[0]["bytes"] == 16384 and L[0]["mismatches"] == 0'
fdma load sim:gen=3 --card 0 "$T/env.raw" --json
json "load URI FILE beside FDMA_DEVICE: the URI given" 'L[0]["uri"] == "sim:gen=3"'
if [ -n "$_keep" ]; then FDMA_DEVICE=$_keep; else unset FDMA_DEVICE; fi
# A device node is a kdev: URI, as fdma doctor takes it.
expect_fail "fdma info /dev/fdma_nosuch: read as kdev:/dev/fdma_nosuch" "kdev:/dev/fdma_nosuch" \
	info /dev/fdma_nosuch
if ! grep -q "scheme" "$T/err"; then
	ok "fdma info /dev/fdma_nosuch: no 'unknown scheme'"
else
	bad "fdma info /dev/fdma_nosuch: no 'unknown scheme'" "$(errline)"
fi
expect_fail "fdma info fdma99 (a node's name): kdev:/dev/fdma99" "kdev:/dev/fdma99" info fdma99

# ---- one unit per JSON key, across the commands ----------------------------------

# mbps is MB/s (10^6 bytes/s) everywhere, paced a JSON boolean everywhere.
fdma info sim: --json
json "info: paced is a boolean" 'L[0]["paced"] is True'
fdma info sim:paced=0 --json
json "info paced=0: paced false" 'L[0]["paced"] is False'
fdma bench sim:paced=0 --sizes 64K --seconds 0.2 --json
json "bench: mbps is bytes / elapsed_s / 10^6, paced a boolean" \
	'abs(L[0]["mbps"] - L[0]["bytes"] / L[0]["elapsed_s"] / 1e6) <= 0.01 * L[0]["mbps"] + 0.1 and L[0]["paced"] is False'
fdma stream sim: --testgen --frame-size 64K --fps 100 --hold --seconds 0.3 --json
json "stream: mbps is MB/s over the frames' window (fps x frame size), paced a boolean" \
	'abs(L[0]["mbps"] - L[0]["fps"] * 65536 / 1e6) <= 0.01 * L[0]["mbps"] + 0.01 and L[0]["paced"] is True'
fdma dump sim: --card 0 --len 32M -o "$T/u.bin" --json
json "dump: mbps is bytes / seconds / 10^6" \
	'L[0]["seconds"] == 0 or abs(L[0]["mbps"] - L[0]["bytes"] / L[0]["seconds"] / 1e6) <= 0.05 * L[0]["mbps"] + 1'

# ---- info -------------------------------------------------------------------

fdma info sim:
if [ "$rc" -eq 0 ] && grep -q '^channel 0 ' "$T/out"; then
	ok "fdma info sim: exits 0 and lists channels"
else
	bad "fdma info sim: exits 0 and lists channels" "exit $rc: $(errline)"
fi
# XDMA: any byte on the memory-mapped channels, 64-byte units for C2H stream buffers.
fdma info sim:engine=xdma
if [ "$rc" -eq 0 ] && grep -q '1-byte alignment' "$T/out" &&
	grep -q '^channel 3  C2H stream.*64-byte units' "$T/out" &&
	! grep -q '^channel [0-2] .*units' "$T/out"; then
	ok "fdma info sim:engine=xdma: 1-byte alignment, C2H stream buffers in 64-byte units"
else
	bad "fdma info sim:engine=xdma: 1-byte alignment, C2H stream buffers in 64-byte units" \
		"exit $rc: $(cat "$T/out")"
fi
expect_fail "fdma info nosuch: exits 1 naming the URI" "nosuch" info nosuch:
# The message names the option itself, not just the URI it echoes.
expect_fail "fdma info sim:bogus=1 exits 1 naming the option" "option 'bogus'" info sim:bogus=1
expect_fail "fdma info sim:gen=9 exits 1 naming the option" "option 'gen'" info sim:gen=9
expect_usage "fdma info without a URI exits 2" info

fdma info sim: --json
json "fdma info sim: --json is one object with the link" \
	'len(L) == 1 and has(L[0], "gen lanes mps write_mbps read_mbps") and L[0]["gen"] == 2 and L[0]["lanes"] == 1 and L[0]["mps"] == 256 and num(L[0], "write_mbps") > 0 and num(L[0], "read_mbps") > 0'

fdma info sim:gen=3,lanes=8,channels=2,streams=0 --json
json "fdma info applies sim: options (gen3 x8, 2 channel pairs, no streams)" \
	'len(L) == 1 and L[0]["gen"] == 3 and L[0]["lanes"] == 8 and L[0]["channels"] == 4'

# ---- model ------------------------------------------------------------------

fdma model --json
json "fdma model --json: one object per line with the ceilings" \
	'len(L) == 25 and all(has(o, "gen lanes mps write_mbps read_mbps copy_mbps") for o in L)'
json "fdma model --json: the copy ceiling is the slower direction's in every row" \
	'all(o["copy_mbps"] == min(o["write_mbps"], o["read_mbps"]) for o in L) and any(o["read_mbps"] < o["write_mbps"] for o in L) and any(o["write_mbps"] < o["read_mbps"] for o in L)'

fdma model --gen 2 --lanes 1 --mps 256 --json
# Hand-computed: 500e6 B/s * 0.997 (SKP) * 256 / (256 + 8 framing + 16 4DW header).
json "fdma model gen2 x1 MPS 256: write_mbps 455.8 (by hand)" \
	'len(L) == 1 and abs(num(L[0], "write_mbps") - 500e6 * 0.997 * 256 / (256 + 24) / 1e6) <= 0.2'

fdma model --gen 3 --lanes 8 --json
json "fdma model --gen 3 --lanes 8 --json: one row" \
	'len(L) == 1 and L[0]["gen"] == 3 and L[0]["lanes"] == 8'

expect_usage "fdma model --gen 6 exits 2" model --gen 6
expect_usage "fdma model --lanes 3 exits 2" model --lanes 3

# ---- bench ------------------------------------------------------------------

BENCH_KEYS="size mbps ceiling_mbps cpu_pct wakeups_per_s transfers_per_s p50_us p99_us bytes_checked errors"

fdma bench sim:paced=0 --sizes 4K,64K --seconds 0.3 --json
json "fdma bench unpaced C2H 4K,64K: 2 rows, all bytes checked, no errors, memcpy" \
	'len(L) == 2 and [o["size"] for o in L] == [4096, 65536] and all(has(o, "'"$BENCH_KEYS"' memcpy_mbps") and o["errors"] == 0 and o["bytes_checked"] > 0 for o in L)'

fdma bench sim: --sizes 64K --seconds 0.3 --json
json "fdma bench paced 64K: memcpy_mbps null, no errors" \
	'len(L) == 1 and has(L[0], "'"$BENCH_KEYS"'") and L[0]["memcpy_mbps"] is None and L[0]["errors"] == 0 and L[0]["bytes_checked"] > 0'

fdma bench sim:paced=0 --dir h2c --sizes 64K --seconds 0.3 --json
json "fdma bench --dir h2c: read back and checked, no errors" \
	'len(L) == 1 and L[0]["dir"] == "h2c" and has(L[0], "'"$BENCH_KEYS"'") and L[0]["errors"] == 0 and L[0]["bytes_checked"] > 0'

fdma bench sim:paced=0 --sizes 4K..16K --seconds 0.1 --json
json "fdma bench --sizes 4K..16K: 3 rows (4K, 8K, 16K)" \
	'len(L) == 3 and [o["size"] for o in L] == [4096, 8192, 16384] and all(o["errors"] == 0 for o in L)'

expect_usage "fdma bench --sizes 0 exits 2" bench sim: --sizes 0
expect_usage "fdma bench --batch 0 exits 2" bench sim: --batch 0
expect_usage "fdma bench --wait nope exits 2" bench sim: --wait nope
expect_usage "fdma bench --dir sideways exits 2" bench sim: --dir sideways
expect_usage "fdma bench without a URI exits 2" bench --sizes 4K
expect_fail "fdma bench nosuch: exits 1 naming the URI" "nosuch" bench nosuch: --sizes 4K --seconds 0.1
# (settings in rows, null ceilings, 100 columns: tests/cli/test_bench.sh)

# ---- stream -----------------------------------------------------------------

fdma stream sim:paced=0 --testgen --frame-size 65536 --fps 200 --hold --seconds 0.3 --json
json "fdma stream --testgen 64K frames at 200 fps: held back: frames, no errors, no drops" \
	'len(L) == 1 and num(L[0], "frames") > 0 and L[0]["errors"] == 0 and L[0]["dropped"] == 0'

expect_usage "fdma stream --frame-size 10 exits 2" stream sim: --frame-size 10
expect_usage "fdma stream --buffers 1 exits 2" stream sim: --buffers 1
expect_fail "fdma stream on a device without streams exits 1" "stream" \
	stream sim:streams=0 --seconds 0.1
# (capture, play and honest rates: tests/cli/test_stream.sh)

finish
