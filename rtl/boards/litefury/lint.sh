#!/bin/sh
# SPDX-License-Identifier: MIT
# Checks the LiteFury top without Vivado:
#  1. verilator --lint-only -Wall of fdma_litefury_top with the core and
#     IBUFDS_GTE2 as black boxes (stub/), for x1, x2 and x4 and without the
#     loopback: any warning fails;
#  2. yosys synth_xilinx -family xc7 of the x4 top, the core black-boxed:
#     prints LUTs, flip-flops, block RAM, DSP and `ltp -noff`'s longest
#     path (cells on it, flip-flops cut).
# usage: rtl/boards/litefury/lint.sh [OUTDIR]   (SKIP_SYNTH=1: lint only)

set -eu
cd "$(dirname "$0")/../../.."
B=rtl/boards/litefury
OUT=${1:-build/litefury}
mkdir -p "$OUT"
fail=0

# 1. Verilator. -y rtl finds the engine's modules by file name, so a module
# added to the engine later needs no change here.
lint() {
	name=$1; shift
	if verilator --lint-only -Wall -Irtl -y rtl --top-module fdma_litefury_top "$@" \
		"$B/fdma_litefury_top.v" "$B/stub/pcie_7x_0_stub.v" "$B/stub/IBUFDS_GTE2_stub.v" \
		>"$OUT/lint-$name.log" 2>&1; then
		echo "PASS: verilator --lint-only -Wall, $name"
	else
		echo "FAIL: verilator --lint-only -Wall, $name; warnings in:" \
			$(sed -n 's/^%[A-Za-z]*-[A-Z0-9]*: \([^:]*\):.*/\1/p' "$OUT/lint-$name.log" | sort -u)
		head -20 "$OUT/lint-$name.log"
		fail=$((fail + 1))
	fi
}
lint x1 -DPCIE_LANES=1 -GLANES=1
lint x2 -DPCIE_LANES=2 -GLANES=2
lint x4 -DPCIE_LANES=4 -GLANES=4
lint x1-noloop -DPCIE_LANES=1 -GLANES=1 -GLOOPBACK=0

# 2. Yosys. No I/O buffers (-noiopad): the lane pads are the GTs', not
# I/O, and the counts should be the design's own logic. ltp looks at the
# combinational cells only (LUTs, carry chains, wide-function muxes, the
# LUT RAM's asynchronous reads): with the flip-flops and the black-boxed
# core left out of the selection, each path it finds runs from a
# flip-flop (or the core) to a flip-flop (or the core).
if [ "${SKIP_SYNTH:-0}" != 1 ] && [ "$fail" -eq 0 ]; then
	cat >"$OUT/synth.ys" <<EOF
verilog_defaults -add -Irtl -DPCIE_LANES=4
read_verilog -lib $B/stub/pcie_7x_0_stub.v
read_verilog $B/fdma_litefury_top.v
chparam -set LANES 4 fdma_litefury_top
hierarchy -libdir rtl -top fdma_litefury_top
synth_xilinx -family xc7 -top fdma_litefury_top -flatten -noiopad
tee -o $OUT/synth-stat.txt stat
write_rtlil $OUT/synth.il
tee -o $OUT/synth-ltp.txt ltp -noff t:LUT* t:CARRY4 t:MUXF* t:INV t:RAM32M t:RAM64M w:* %u %u %u %u %u %u
EOF
	t0=$(date +%s)
	if yosys -q -l "$OUT/synth.log" -s "$OUT/synth.ys" >/dev/null 2>&1; then
		t1=$(date +%s)
		echo "PASS: yosys synth_xilinx -family xc7, x4 ($((t1 - t0)) s; $OUT/synth-stat.txt)"
		awk '
			/^ +[A-Za-z0-9_]+ +[0-9]+$/ { n[$1] = $2 }
			END {
				lut = n["LUT1"] + n["LUT2"] + n["LUT3"] + n["LUT4"] + n["LUT5"] + n["LUT6"]
				ff = n["FDRE"] + n["FDSE"] + n["FDCE"] + n["FDPE"]
				printf "  LUTs (LUT1..LUT6)  %d, and %d INV (Vivado folds them into LUTs)\n", lut, n["INV"]
				printf "  LUT RAM            RAM64M %d, RAM32M %d (4 LUTs each)\n", n["RAM64M"], n["RAM32M"]
				printf "  flip-flops         %d (FDRE %d, FDSE %d, FDCE %d, FDPE %d)\n", \
					ff, n["FDRE"], n["FDSE"], n["FDCE"], n["FDPE"]
				printf "  block RAM          RAMB36E1 %d, RAMB18E1 %d\n", n["RAMB36E1"], n["RAMB18E1"]
				printf "  DSP48E1            %d\n", n["DSP48E1"]
				printf "  CARRY4 %d, MUXF7 %d, MUXF8 %d; black boxes: pcie_7x_0 %d, IBUFDS_GTE2 %d\n", \
					n["CARRY4"], n["MUXF7"], n["MUXF8"], n["pcie_7x_0"], n["IBUFDS_GTE2"]
			}' "$OUT/synth-stat.txt"
		# the longest path and the cells it is made of
		awk '/^  cell /{ print $3, $2 }' "$OUT/synth.il" >"$OUT/synth-celltypes.txt"
		grep -o '(via [^)]*)' "$OUT/synth-ltp.txt" | sed 's/^(via //; s/)$//' \
			>"$OUT/synth-ltp-cells.txt" || true
		len=$(sed -n 's/^Longest topological path in .* (length=\([0-9]*\)).*/\1/p' "$OUT/synth-ltp.txt")
		what=$(awk 'NR == FNR { t[$1] = $2; next }
			{ k = ($0 in t) ? t[$0] : "other"; sub(/^\\/, "", k); c[k]++ }
			END { for (k in c) printf " %s %d", k, c[k] }' \
			"$OUT/synth-celltypes.txt" "$OUT/synth-ltp-cells.txt")
		echo "  ltp -noff          longest path $len cells:$what"
		start=$(sed -n 's/^ *0: \(.*\)/\1/p' "$OUT/synth-ltp.txt")
		printf '    from %s\n' "$start" | cut -c1-100
		end=$(sed -n '$s/^ *[0-9]*: \(.*\) (via .*/\1/p' "$OUT/synth-ltp.txt")
		# the flip-flop whose D is the last wire (a carry chain's CO bit
		# is its sum's Y bit under another name)
		ff=$(D="$end" D2=$(printf '%s' "$end" | sed 's/\.CO \[/.Y [/') awk '
			/^  cell / { dd = ""; q = "" }
			$1 == "connect" && $2 == "\\D" { $1 = ""; $2 = ""; sub(/^  /, ""); dd = $0 }
			$1 == "connect" && $2 == "\\Q" { q = $3 " " $4 }
			/^  end/ && (dd == ENVIRON["D"] || dd == ENVIRON["D2"]) && q != "" { print q; exit }' \
			"$OUT/synth.il")
		printf '    to   %s\n' "${ff:-$end}" | cut -c1-100
	else
		echo "FAIL: yosys synth_xilinx (see $OUT/synth.log):"
		grep '^ERROR' "$OUT/synth.log" | head -5
		fail=$((fail + 1))
	fi
fi
[ "$fail" -eq 0 ]
