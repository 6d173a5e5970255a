#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fdma dump / fdma load: card memory to a file and back. On sim: each run
# is a fresh device, so load checks its own read-back (--verify) and dump
# of a fresh card must be all zeros; every byte is compared.

. tests/cli/lib.sh

head -c 3000000 /dev/urandom >"$T/rand.bin"
fdma load sim: --card 1M "$T/rand.bin" --verify --json
json "load 3000000 random bytes (not a multiple of 64) with --verify: no mismatch" \
	'L[0]["bytes"] == 3000000 and L[0]["mismatches"] == 0 and L[0]["op"] == "load"'
fdma load sim: --card 0 --input "$T/rand.bin" --len 4097 --verify
if [ "$rc" -eq 0 ] && grep -q "verified" "$T/out"; then
	ok "load --input FILE --len 4097 --verify: verified"
else
	bad "load --len 4097 --verify" "exit $rc: $(errline)"
fi

fdma dump sim: --card 0x1000 --len 5000 -o "$T/dump.bin"
head -c 5000 /dev/zero >"$T/zero.bin"
if [ "$rc" -eq 0 ] && cmp -s "$T/dump.bin" "$T/zero.bin"; then
	ok "dump 5000 bytes of a fresh card: 5000 zero bytes"
else
	bad "dump 5000 bytes of a fresh card" "exit $rc: $(errline)"
fi
$TO "$FDMA" dump sim: --card 0 --len 64K -o - >"$T/dump2.bin" 2>"$T/err"
rc=$?
if [ "$rc" -eq 0 ] && [ "$(wc -c <"$T/dump2.bin")" -eq 65536 ]; then
	ok "dump -o -: 65536 bytes on stdout"
else
	bad "dump -o -" "exit $rc: $(errline)"
fi

# A file name that JSON must escape (quote, backslash, tab): the exact name.
_f="$T/a\"b\\c$(printf '\t')d"
fdma dump sim: --card 0 --len 4K -o "$_f" --json
json "dump --json to a name with a quote, a backslash and a tab: valid JSON, the exact name" \
	'L[0]["file"] == "'"$T"'/a\"b\\c\td" and L[0]["bytes"] == 4096 and L[0]["uri"] == "sim:"'
if [ "$(wc -c <"$_f")" -eq 4096 ]; then
	ok "dump to a name with a quote, a backslash and a tab: the file written"
else
	bad "dump to a name with a quote, a backslash and a tab: the file written"
fi

expect_usage "dump without --len exits 2" dump sim: --card 0 -o "$T/x"
expect_usage "dump without -o exits 2" dump sim: --card 0 --len 4K
expect_usage "load without --card exits 2" load sim: "$T/rand.bin"
expect_usage "dump --card not aligned exits 2" dump sim: --card 3 --len 4K -o "$T/x"
expect_usage "dump past the card's end exits 2" dump sim:mem=1M --card 1M --len 4K -o "$T/x"
expect_usage "load of a file larger than the card exits 2" load sim:mem=1M --card 0 "$T/rand.bin"
# A length that wraps around when aligned (to 0) or added to the address:
# refused up front, naming the card's size, nothing copied or created.
fdma dump sim:mem=1M --card 0 --len 0xffffffffffffffc1 -o "$T/wrap.bin"
if [ "$rc" -eq 2 ] && grep -q "1048576 bytes" "$T/err" && [ ! -e "$T/wrap.bin" ]; then
	ok "dump --len 0xffffffffffffffc1: exit 2 naming the card size, no file written"
else
	bad "dump --len 0xffffffffffffffc1" "exit $rc: $(errline)"
fi
fdma dump sim:mem=1M --card 64 --len 0xffffffffffffffc0 -o "$T/wrap.bin"
if [ "$rc" -eq 2 ] && grep -q "1048576 bytes" "$T/err" && [ ! -e "$T/wrap.bin" ]; then
	ok "dump --card 64 --len 2^64-64 (the end wraps): exit 2, no file written"
else
	bad "dump --card 64 --len 2^64-64" "exit $rc: $(errline)"
fi
for _a in "0 0xffffffffffffffc1" "64 0xffffffffffffffc0"; do
	set -- $_a
	fdma load sim:mem=1M --card "$1" --len "$2" "$T/rand.bin"
	if [ "$rc" -eq 2 ] && grep -q "1048576 bytes" "$T/err" && ! grep -q "ended after" "$T/err" &&
	   [ ! -s "$T/out" ]; then
		ok "load --card $1 --len $2: exit 2 naming the card size, nothing written"
	else
		bad "load --card $1 --len $2" "exit $rc: $(errline)"
	fi
done
expect_fail "load a missing file exits 1" "cannot read" load sim: --card 0 "$T/nope.bin"

# --chan: a channel of the right kind and direction (XDMA's tools' -d
# /dev/xdma0_h2c_1): sim:channels=2 has H2C 0 and 2, C2H 1 and 3.
fdma load sim:channels=2 --chan 2 --card 64K "$T/rand.bin" --verify --json
json "load --chan 2 (the second H2C channel) with --verify: no mismatch" \
	'L[0]["chan"] == 2 and L[0]["bytes"] == 3000000 and L[0]["mismatches"] == 0'
fdma dump sim:channels=2 --chan 3 --card 0 --len 4100 -o "$T/ch3.bin" --json
json "dump --chan 3 (the second C2H channel): 4100 bytes" 'L[0]["chan"] == 3 and L[0]["bytes"] == 4100'
head -c 4100 /dev/zero >"$T/zero4100.bin"
if cmp -s "$T/ch3.bin" "$T/zero4100.bin"; then
	ok "dump --chan 3 of a fresh card: 4100 zero bytes"
else
	bad "dump --chan 3 of a fresh card: 4100 zero bytes"
fi
expect_fail "dump --chan 0 (an H2C channel) exits 1 naming it" "not a C2H memory-mapped" \
	dump sim: --chan 0 --card 0 --len 4K -o "$T/x"
[ ! -e "$T/x" ] && ok "dump --chan of the wrong kind: no file created" ||
	bad "dump --chan of the wrong kind: no file created"
expect_fail "load --chan 3 (a C2H channel) exits 1 naming it" "not an H2C memory-mapped" \
	load sim:channels=2 --chan 3 --card 0 "$T/rand.bin"
expect_fail "load --chan 2 on one channel pair exits 1" "not an H2C memory-mapped" \
	load sim: --chan 2 --card 0 "$T/rand.bin"
expect_usage "dump --chan 16 exits 2" dump sim: --chan 16 --card 0 --len 4K -o "$T/x"

# Ctrl-C ends a long dump or load between chunks with the summary of what
# was copied, exit 0, as the other commands end: the file holds it all.
# (gen1 x1: some 200 MB/s, so 900 MiB take seconds.)
rm -f "$T/big.bin"
"$FDMA" dump sim:gen=1 --card 0 --len 900M -o "$T/big.bin" --json >"$T/out" 2>"$T/err" &
pid=$!
_i=0
while [ "$(cat "$T/big.bin" 2>/dev/null | wc -c)" -lt 8388608 ] && [ "$_i" -lt 100 ]; do
	sleep 0.1
	_i=$((_i + 1))
done
kill -INT "$pid"
wait "$pid"
rc=$?
sz=$(wc -c <"$T/big.bin")
json "dump interrupted by SIGINT: exit 0, interrupted true, bytes = the file's $sz" \
	'L[0]["interrupted"] is True and L[0]["bytes"] == '"$sz"' and 0 < '"$sz"' < 900 * 2**20'
if grep -q "interrupted after $sz of" "$T/err"; then
	ok "dump interrupted: stderr says how far"
else
	bad "dump interrupted: stderr says how far" "$(errline)"
fi
head -c 629145600 /dev/zero >"$T/zero600.bin"
"$FDMA" load sim:gen=1 --card 0 "$T/zero600.bin" --json >"$T/out" 2>"$T/err" &
pid=$!
sleep 0.3
kill -INT "$pid"
wait "$pid"
rc=$?
json "load interrupted by SIGINT: exit 0, interrupted true, part of the file copied" \
	'L[0]["interrupted"] is True and L[0]["bytes"] < 629145600 and L[0]["bytes"] % 4194304 == 0'
rm -f "$T/zero600.bin" "$T/big.bin"
: >"$T/empty.bin"
expect_fail "load an empty file exits 1" "empty" load sim: --card 0 "$T/empty.bin"

finish
