#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The fdma command on the RTL engine (rtl:, docs/rtl.md): info names it,
# bench moves checked bytes both ways, a stream captured from the RTL's test
# generator is checked here frame by frame (magic, sequence, length, CRC,
# every payload word), and played back into the RTL's checker, which counts
# every frame good. Skipped, saying so, where libfdma-rtl.so was not built
# (no Verilator, or a sanitizer build).

. tests/cli/lib.sh

RTLLIB=${BUILD:-build}/libfdma-rtl.so
if [ ! -f "$RTLLIB" ]; then
	skip "every check: no $RTLLIB (make builds it where Verilator is installed)"
	finish
fi
FDMA_RTL_LIB=$(cd "$(dirname "$RTLLIB")" && pwd)/libfdma-rtl.so
export FDMA_RTL_LIB

fdma info rtl: --json
json "info rtl: is the RTL engine with its four channels" \
	'L[0]["backend"] == "rtl" and "RTL" in L[0]["name"] and L[0]["channels"] == 4 and len(L[0]["channel_list"]) == 4'
json "info rtl: is engine 1.3 with H2C byte streams alone (align 1 on the H2C stream, 64 elsewhere)" \
	'L[0]["version"] == "1.3" and [(c["dir"], c["kind"], c["align"]) for c in L[0]["channel_list"]] == [("h2c", "mm", 64), ("c2h", "mm", 64), ("c2h", "stream", 64), ("h2c", "stream", 1)]'

for dir in h2c c2h; do
	fdma bench rtl:paced=0 --dir $dir --sizes 64K --seconds 1 --json
	json "bench rtl: $dir moves checked bytes with no error" \
		'L[-1]["backend"] == "rtl" and num(L[-1], "mbps") > 0 and L[-1]["errors"] == 0'
done

expect_rc "stream rtl: captures 20 generator frames of 4100 bytes" 0 \
	stream rtl:paced=0 --testgen --fps 0 --frame-size 4100 --frames 20 -o "$T/cap"
check_frames "$T/cap" 4100 20 "the RTL generator's frames are intact, in sequence, CRC right"

expect_rc "stream rtl: captures 16 frames of 4096 bytes" 0 \
	stream rtl:paced=0 --testgen --fps 0 --frame-size 4096 --frames 16 -o "$T/cap2"
fdma play rtl:paced=0 "$T/cap2" --frame-size 4096 --testgen --json
json "play rtl: the RTL checker counts the 16 frames good" \
	'L[-1]["checker_frames"] == 16 and L[-1]["checker_errors"] == 0'

# A frame changed by one bit fails the RTL checker's CRC.
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[5000] ^= 1; open(sys.argv[1], "wb").write(d)' "$T/cap2"
fdma play rtl:paced=0 "$T/cap2" --frame-size 4096 --testgen --json
if [ "$rc" -eq 1 ] && python3 -c 'import json, sys; d = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]; sys.exit(not (d["checker_errors"] == 1 and d["checker_frames"] == 15))' "$T/out"; then
	ok "play rtl: one corrupted frame of 16: the RTL checker counts 15 good, 1 bad"
else
	bad "play rtl: a corrupted frame" "exit $rc: $(tail -n 1 "$T/out" | cut -c 1-200) $(errline)"
fi

expect_fail "rtl: refuses what the RTL cannot be (memcpy channels)" "memory-to-memory" \
	info rtl:memcpy=1

# rtl: paces its link in the RTL's clocks, not in real time: info says so,
# bench shows no ceiling, and a stream at a set rate suggests --fps 0.
fdma info rtl:
if [ "$rc" -eq 0 ] && grep -q "^link .*not in real time" "$T/out" && ! grep -q "paced in real time" "$T/out"; then
	ok "info rtl: says its link is not paced in real time"
else
	bad "info rtl: says its link is not paced in real time" "exit $rc: $(grep '^link' "$T/out")"
fi
fdma info rtl: --json
json "info rtl: --json: paced false (not in real time)" 'L[0]["paced"] is False'
fdma bench rtl: --sizes 64K --seconds 0.5 --json
json "bench rtl: no real-time ceiling (null), no memcpy beside, bytes checked" \
	'L[0]["ceiling_mbps"] is None and L[0]["pct_ceiling"] is None and L[0]["memcpy_mbps"] is None and L[0]["paced"] is False and L[0]["errors"] == 0 and L[0]["bytes_checked"] > 0'
fdma bench rtl: --sizes 64K --seconds 0.5
if [ "$rc" -eq 0 ] && grep -q "not in real time: no ceiling" "$T/out" &&
	grep "^ *size " "$T/out" | grep -qv "ceiling"; then
	ok "bench rtl: text: no ceiling column, the header says why"
else
	bad "bench rtl: text: no ceiling column, the header says why" "exit $rc: $(head -n 4 "$T/out" | tr '\n' '|')"
fi
fdma stream rtl: --testgen --frame-size 4K --fps 30 --seconds 1
if grep -q -- "--fps 0" "$T/err" && grep -q "not paced in real time" "$T/err"; then
	ok "stream rtl: --fps 30: suggests --fps 0"
else
	bad "stream rtl: --fps 30: suggests --fps 0" "exit $rc: $(errline)"
fi

finish
