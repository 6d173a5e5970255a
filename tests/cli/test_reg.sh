#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fdma reg on the simulated device (BAR0: the engine's register file) and
# fdma info's channel list. The driver's side (other BARs, CAP_SYS_RAWIO)
# is tested in the guests (tests/vm/guest/fdma_ioc_reg.c, e2e.sh).
#
#   FDMA=build/fdma sh tests/cli/test_reg.sh

. tests/cli/lib.sh

# The engine's ID ("FDMA") and VERSION (1.3) read back as the spec says.
fdma reg sim: 0 --json
json "fdma reg sim: 0 reads the engine's ID" \
	'len(L) == 1 and L[0]["bar"] == 0 and L[0]["offset"] == 0 and L[0]["value"] == 0x46444d41 and L[0]["written"] is False'
fdma reg sim: bar0:0x4
if [ "$rc" -eq 0 ] && grep -q '^BAR0 0x0004 = 0x00010003 (65539)$' "$T/out"; then
	ok "fdma reg sim: bar0:0x4 prints VERSION 1.3 in hex and decimal"
else
	bad "fdma reg sim: bar0:0x4 prints VERSION 1.3 in hex and decimal" "exit $rc: $(head -n 1 "$T/out")"
fi

# Writes: the engine's registers need --force; with it the write lands.
expect_fail "fdma reg write of CTRL without --force exits 1 naming --force" "--force" \
	reg sim: 0x20 0
fdma reg sim: 0x138 7 --force
if [ "$rc" -eq 0 ] && grep -q '^BAR0 0x0138 := 0x00000007$' "$T/out"; then
	ok "fdma reg --force writes an engine register"
else
	bad "fdma reg --force writes an engine register" "exit $rc: $(errline)"
fi

# Numbers are decimal or 0x hex, never octal: 0100 is one hundred.
fdma reg sim: 0x138 0100 --force
if [ "$rc" -eq 0 ] && grep -q '^BAR0 0x0138 := 0x00000064$' "$T/out"; then
	ok "fdma reg reads 0100 as decimal 100, not octal"
else
	bad "fdma reg reads 0100 as decimal 100, not octal" "exit $rc: $(head -n 1 "$T/out") $(errline)"
fi
fdma reg sim: 0100 --json
json "fdma reg sim: 0100 reads offset 100 (0x64)" 'L[0]["offset"] == 100'

# Bad addresses: named, exit 1 (refused by the device) or 2 (malformed).
expect_fail "fdma reg beyond BAR0 exits 1 with its size" "4096 bytes" reg sim: 0x1000
expect_fail "fdma reg on BAR2 of the simulated device exits 1" "BAR0 only" reg sim: 2:0
expect_usage "fdma reg on BAR6 exits 2" reg sim: 6:0
expect_usage "fdma reg with a bad offset exits 2" reg sim: 0xzz
expect_usage "fdma reg with a value over 32 bits exits 2" reg sim: 0x100 0x100000000
expect_usage "fdma reg without an offset exits 2" reg sim:
# An offset off the access's width is malformed, like a bad number: exit 2.
expect_usage "fdma reg sim: 0x3 (not a multiple of 4) exits 2" reg sim: 0x3
if grep -q "multiple of 4" "$T/err" && grep -q -- "--width" "$T/err"; then
	ok "fdma reg sim: 0x3 names the rule and --width"
else
	bad "fdma reg sim: 0x3 names the rule and --width" "$(errline)"
fi
expect_usage "fdma reg --width 16 at an odd offset exits 2" reg sim: 0x5 --width 16
expect_usage "fdma reg --width 12 exits 2" reg sim: 0 --width 12
expect_usage "fdma reg --width 8 with a value over 8 bits exits 2" reg sim: 0x138 0x100 --width 8

# 8- and 16-bit reads: the lanes of the 32-bit word (ID "FDMA", little-endian).
fdma reg sim: 3 --width 8 --json
json "fdma reg --width 8 at 3: the ID's top byte, 'F'" \
	'L[0]["value"] == 0x46 and L[0]["width"] == 8 and L[0]["offset"] == 3'
fdma reg sim: 2 --width 16
if [ "$rc" -eq 0 ] && grep -q '^BAR0 0x0002 = 0x4644 (17988)$' "$T/out"; then
	ok "fdma reg --width 16 at 2 prints 0x4644 in four digits"
else
	bad "fdma reg --width 16 at 2" "exit $rc: $(head -n 1 "$T/out") $(errline)"
fi
fdma reg sim: 0 --width 32 --json
json "fdma reg --width 32: as without it" 'L[0]["value"] == 0x46444d41 and L[0]["width"] == 32'
# The simulated engine's registers are 32-bit words: a narrower write is refused.
expect_fail "fdma reg --width 8 write on sim: exits 1: 32-bit writes only" "32-bit writes only" \
	reg sim: 0x138 7 --width 8 --force
# XDMA's status that clears when read: read only with --force, at any width.
expect_fail "fdma reg of XDMA's clear-on-read status without --force exits 1 naming --force" \
	"--force" reg sim:engine=xdma 0x44
fdma reg sim:engine=xdma 0x44 --force --json
json "fdma reg --force reads XDMA's clear-on-read status" 'L[0]["offset"] == 0x44 and L[0]["written"] is False'
fdma reg sim:engine=xdma 0x46 --width 16 --force --json
json "fdma reg --width 16 --force on XDMA's status" 'L[0]["width"] == 16'

# Without a URI: FDMA_DEVICE, and the offset comes first.
FDMA_DEVICE=sim: $TO "$FDMA" reg 0x4 --json >"$T/out" 2>"$T/err"
rc=$?
json "FDMA_DEVICE=sim: fdma reg 0x4: VERSION" 'L[0]["value"] == 0x10003'
FDMA_DEVICE=sim: $TO "$FDMA" reg 0x138 9 --force >"$T/out" 2>"$T/err"
rc=$?
if [ "$rc" -eq 0 ] && grep -q '^BAR0 0x0138 := 0x00000009$' "$T/out"; then
	ok "FDMA_DEVICE=sim: fdma reg 0x138 9 --force writes"
else
	bad "FDMA_DEVICE=sim: fdma reg 0x138 9 --force" "exit $rc: $(errline)"
fi

# fdma info --json: the channels as a list.
fdma info sim: --json
json "fdma info --json lists the channels (dir, kind, ring, testgen)" \
	'len(L) == 1 and [(c["index"], c["dir"], c["kind"], c["testgen"]) for c in L[0]["channel_list"]] == [(0, "h2c", "mm", False), (1, "c2h", "mm", False), (2, "c2h", "stream", True), (3, "h2c", "stream", True)] and all(c["ring"] == 1024 for c in L[0]["channel_list"])'
fdma info sim:channels=2,streams=0,ring=64 --json
json "fdma info --json: 2 channel pairs without streams, ring 64" \
	'len(L[0]["channel_list"]) == 4 and all(c["kind"] == "mm" and c["ring"] == 64 for c in L[0]["channel_list"])'
fdma info sim:streams=2,loop=1 --json
json "fdma info --json: two joined stream pairs, byte streams (align 1), no generator" \
	'[(c["dir"], c["kind"], c["testgen"], c["align"]) for c in L[0]["channel_list"]] == [("h2c", "mm", False, 64), ("c2h", "mm", False, 64), ("c2h", "stream", False, 1), ("h2c", "stream", False, 1), ("c2h", "stream", False, 1), ("h2c", "stream", False, 1)]'
fdma info sim:bytes=0 --json
json "fdma info --json: bytes=0, an engine before 1.3: streams keep the alignment" \
	'[c["align"] for c in L[0]["channel_list"]] == [64, 64, 64, 64]'
fdma info sim:bytes=h2c --json
json "fdma info --json: bytes=h2c, H2C byte streams alone: C2H stream buffers keep the alignment" \
	'[c["align"] for c in L[0]["channel_list"]] == [64, 64, 64, 1]'
expect_fail "bytes=h2c on XDMA names why not" "an FDMA engine's" info sim:engine=xdma,bytes=h2c
expect_fail "sim:loop=1 without stream pairs names what it needs" "needs streams" info sim:loop=1,streams=0
fdma info sim:memcpy=2 --json
json "fdma info --json: memcpy=2 adds two memory-to-memory channels after the others" \
	'[c["kind"] for c in L[0]["channel_list"]] == ["mm", "mm", "stream", "stream", "mem", "mem"] and L[0]["version"] == "1.3"'
fdma info sim:memcpy=1
if [ "$rc" -eq 0 ] && grep -q '^channel 4  memory-to-memory, ring 1024$' "$T/out" &&
	grep -q 'MB/s copies (memory to memory)$' "$T/out"; then
	ok "fdma info names a memory-to-memory channel and its copy ceiling"
else
	bad "fdma info with memcpy=1" "exit $rc: $(tail -n 2 "$T/out" | tr '\n' '|')"
fi
expect_fail "sim: with more than 16 channels says so" "over the engine's 16 channels" \
	info sim:channels=7,memcpy=3

finish
