#!/bin/sh
# SPDX-License-Identifier: MIT
# The RTL's small 4-state benches under Icarus (X-sensitive, unlike
# Verilator): each prints PASS or FAIL lines. usage: rtl/tb/run.sh [OUTDIR]
set -eu
cd "$(dirname "$0")/../.."
OUT=${1:-build/tb}
mkdir -p "$OUT"
fail=0
for tb in rtl/tb/tb_*.v; do
	name=$(basename "$tb" .v)
	if ! iverilog -g2005 -Wall -Wno-timescale -Irtl -y rtl -o "$OUT/$name" "$tb" 2>"$OUT/$name.log"; then
		echo "FAIL: $name does not compile: $(head -3 "$OUT/$name.log")"
		fail=$((fail + 1))
		continue
	fi
	vvp -n "$OUT/$name" >>"$OUT/$name.log" 2>&1 || true
	grep -E '^(PASS|FAIL)' "$OUT/$name.log" || { echo "FAIL: $name printed no result"; fail=$((fail + 1)); }
	grep -q '^FAIL' "$OUT/$name.log" && fail=$((fail + 1))
done
[ "$fail" -eq 0 ]
