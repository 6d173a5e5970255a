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
: >"$T/empty.bin"
expect_fail "load an empty file exits 1" "empty" load sim: --card 0 "$T/empty.bin"

finish
