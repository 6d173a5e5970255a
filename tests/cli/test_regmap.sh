#!/bin/sh
# SPDX-License-Identifier: MIT
#
# One register map, three hand-written copies: the specification
# (docs/engine.md), the C header (engine/fdma_regs.h) and the RTL's defines
# (rtl/fdma_defs.vh). Nothing generates one from another, so this script
# checks that they agree, in two pairs, with the header's macro names as the
# common key:
#
# rtl/fdma_defs.vh <-> engine/fdma_regs.h. Every `define maps to a header
#   macro by its prefix (R_X: FDMA_REG_X; C_X: FDMA_CH_X; CTRL_X, ST_X:
#   FDMA_CH_CTRL_X, FDMA_CH_ST_X; D_X: FDMA_DESC_X; CPL_F_X: FDMA_CPL_F_X;
#   CPL_X: FDMA_CPL_X; FRAME_MAGIC: FDMA_FRAME_MAGIC; FDMA_ID_MAGIC and
#   FDMA_VERSION, the latter against FDMA_VERSION_MAJOR << 16 | MINOR) and
#   must have its value; bit numbers in the RTL are compared with the
#   header's (1u << n) masks. The channel block's base and stride are read
#   from the comment "CH_BASE(ch) = 0x100 + ch * 0x80" of fdma_defs.vh and
#   compared with FDMA_CH_BASE(ch). A define that maps to nothing fails
#   unless RTL_ONLY below lists it; a header macro the RTL lacks fails
#   unless C_ONLY below lists it. So a register or constant added to one
#   side only fails here until it is added to the other or listed, with its
#   reason.
#
# docs/engine.md <-> engine/fdma_regs.h. The doc writes the header's names
#   without FDMA_ (global registers without FDMA_REG_):
#   - the register tables (header "| offset | name |": FDMA_REG_<name>;
#     "| off | name |", the channel block: FDMA_<name>), offset for offset;
#     the reset values of ID (FDMA_ID_MAGIC) and VERSION (FDMA_VERSION);
#   - "bit N `X`" in a table row: field X of the row's register;
#   - bit tables ("| bit | name |", "| bits | name |"): fields of the
#     register the paragraph above the table names first (`CH_STATUS`
#     bits...), bit ranges against the header's FDMA_CAPS_X(c) extractors;
#   - the completion status table ("| status | value |"): FDMA_CPL_*;
#   - a table cell "0x... (`NAME`)": FDMA_NAME (vendor and device IDs,
#     FRAME_MAGIC); the title's "version X.Y"; "CH_BASE(ch) = B + ch * S";
#   - FDMA_CH_ST_ERR_MASK against the CH_STATUS bits the table marks W1C,
#     FDMA_CH_CAP_KNOWN against the CH_CAPS bits the CH_CAPS row names.
#   Every register and constant of the header must be in the doc, unless
#   DOC_EXEMPT below lists it.
#
# Each file also gets a sanity check of its own: register offsets 4-byte
# aligned, inside their block (global < 0x100, channel < 0x80) and unique;
# Verilog literals that fit their width; the header's opening comment
# naming the version FDMA_VERSION_MAJOR/MINOR give.
#
# POSIX sh, awk, sed and grep only (no python). REGMAP_ROOT points the
# script at another tree (a scratch copy of the three files, say).
# Exit 0: they agree; 1: a mismatch, named with both files and values;
# 77: a file is missing (skip).
#
#   sh tests/cli/test_regmap.sh
#   REGMAP_ROOT=/tmp/copy sh tests/cli/test_regmap.sh

set -u

ROOT=${REGMAP_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
DOC=docs/engine.md
HDR=engine/fdma_regs.h
VH=rtl/fdma_defs.vh

for f in "$DOC" "$HDR" "$VH"; do
	if [ ! -f "$ROOT/$f" ]; then
		skip "every check: no $ROOT/$f"
		finish
	fi
done

# Header macros with no `define in rtl/fdma_defs.vh, and why.
C_ONLY="
FDMA_PCI_VENDOR FDMA_PCI_DEVICE
FDMA_CAPS_NCHAN FDMA_CAPS_ALIGN_LOG2 FDMA_CAPS_MAKE
FDMA_CAPS_COALESCE FDMA_CAPS_TESTGEN FDMA_CAPS_MEM2MEM
FDMA_CAPS_STREAM_BYTES FDMA_CAPS_H2C_BYTES
FDMA_CTRL_ENABLE FDMA_STATUS_READY FDMA_STATUS_BUSY
FDMA_MAX_CHANNELS
FDMA_CH_CAP_C2H FDMA_CH_CAP_STREAM FDMA_CH_CAP_TESTGEN FDMA_CH_CAP_KNOWN
FDMA_CH_CAP_MEM2MEM FDMA_CH_CTRL_M2M
FDMA_CH_ST_ERR_MASK
FDMA_CPL_TRUNC
"
# - PCI_VENDOR, PCI_DEVICE: the PCI identity is the PCIe core's
#   configuration, not the register file.
# - CAPS_*, CTRL_ENABLE, STATUS_READY, STATUS_BUSY, MAX_CHANNELS,
#   CH_CAP_C2H/STREAM/TESTGEN/KNOWN: the RTL composes CAPS, CH_CAPS, CTRL
#   and STATUS from its parameters in rtl/fdma_engine.v and rtl/fdma_chan.v
#   (literal bit positions there, not checked here) and has a fixed NCH.
# - CH_CAP_MEM2MEM, CH_CTRL_M2M: the RTL has no MEM2MEM channels
#   (docs/engine.md section 8).
# - CH_ST_ERR_MASK: a mask of the ST_ error bits, not a fact of its own
#   (checked against the doc's W1C bits).
# - CPL_TRUNC: reserved in 1.x; a 1.x device never writes it
#   (docs/engine.md section 13).

# Defines of rtl/fdma_defs.vh that are not the engine's register map.
RTL_ONLY="
MSIX_TABLE_OFF MSIX_PBA_OFF
TLP_FMT_3DW_ND TLP_FMT_4DW_ND TLP_FMT_3DW_D TLP_FMT_4DW_D
TLP_TYPE_MEM TLP_TYPE_CPL
CPL_SC CPL_UR CPL_CA
"
# - MSIX_TABLE_OFF, MSIX_PBA_OFF: where this design's MSI-X capability puts
#   them; the spec only says "outside the 4 KiB register file" (section 7),
#   which is checked below.
# - TLP_*, CPL_SC/UR/CA: PCIe Base Specification values (TLP formats and
#   types, completion status), not FDMA's.

# Header macros the doc does not state in a form this script reads.
DOC_EXEMPT="
FDMA_CAPS_MAKE
FDMA_MAX_CHANNELS
"
# - CAPS_MAKE: a C helper that builds a CAPS value.
# - MAX_CHANNELS: prose ("up to 16 channels", NCHAN "1..16").

# Field prefixes: the header's name for field X of register R is
# FIELD[R] X. `ctrl` and `flags` are the descriptor's and the completion
# record's fields, whose doc names already carry DESC_ and CPL_F_.
FIELDS="CAPS:FDMA_CAPS_ CTRL:FDMA_CTRL_ STATUS:FDMA_STATUS_
CH_CAPS:FDMA_CH_CAP_ CH_CTRL:FDMA_CH_CTRL_ CH_STATUS:FDMA_CH_ST_
ctrl:FDMA_ flags:FDMA_"

T=$(mktemp -d "${TMPDIR:-/tmp}/fdma-regmap.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM

[ -n "${REGMAP_ROOT:-}" ] && echo "regmap: checking the files under $ROOT"

# Lists: one entry a line, tab-separated: header macro name (the key; "-"
# for a name listed as one side's own, "?" for one that maps to nothing),
# value (a decimal number, or "bits H:L", or "base B stride S"), the value
# as the file writes it, line, the file's own name for it, kind (offset-g,
# offset-c for global and channel registers, else const).
LIB='
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function digval(s, base,   i, c, v) {
	v = 0
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "_") continue
		c = index("0123456789abcdef", c) - 1
		if (c < 0 || c >= base) return -1
		v = v * base + c
	}
	return length(s) ? v : -1
}
# A C or Verilog integer literal; VW is set to a Verilog size (0: none).
function num(s,   q, b) {
	s = tolower(trim(s)); VW = 0
	q = index(s, "\047")
	if (q) {
		if (q > 1) { VW = digval(substr(s, 1, q - 1), 10); if (VW <= 0) return -1 }
		b = substr(s, q + 1, 1)
		if (b == "h") return digval(substr(s, q + 2), 16)
		if (b == "d") return digval(substr(s, q + 2), 10)
		if (b == "b") return digval(substr(s, q + 2), 2)
		if (b == "o") return digval(substr(s, q + 2), 8)
		return -1
	}
	sub(/u$/, "", s)
	if (s ~ /^0x[0-9a-f]+$/) return digval(substr(s, 3), 16)
	if (s ~ /^0[0-7]+$/) return digval(substr(s, 2), 8)
	if (s ~ /^[0-9]+$/) return digval(s, 10)
	return -1
}
function hx(v,   s, d) {
	if (v == 0) return "0x0"
	s = ""
	while (v > 0) { d = v % 16; s = substr("0123456789abcdef", d + 1, 1) s; v = (v - d) / 16 }
	return "0x" s
}
function p2(n,   v) { v = 1; while (n-- > 0) v *= 2; return v }
function bitof(v,   n) {
	if (v < 1) return -1
	for (n = 0; v > 1; n++) { if (v % 2) return -1; v /= 2 }
	return n
}
# How a value reads in a message: as written, and in hex where that differs.
function show(v) { return (v ~ /^[0-9]+$/) ? hx(v) : v }
function both(as, v) { return (v !~ /^[0-9]+$/ || tolower(as) == hx(v) || as ~ /^[0-9]+$/) ? as : as " (" hx(v) ")" }
function emit(f, key, v, as, line, own, kind) {
	printf "%s\t%s\t%s\t%d\t%s\t%s\n", key, v, as, line, own, kind > f
}
function fail(msg) { print "FAIL " msg }
'

# ---- engine/fdma_regs.h --------------------------------------------------
parse_h() {
	awk -v F="$HDR" -v OUT="$T/h" "$LIB"'
	!indef && /^#/ { indef = 1 }
	!indef && !cver && match($0, /version [0-9]+\.[0-9]+/) {
		cver = substr($0, RSTART + 8, RLENGTH - 8); cline = FNR
	}
	cont { cont = ($0 ~ /\\[ \t]*$/); next }
	$1 == "#define" {
		name = $2
		rest = $0
		sub(/\/\*.*$/, "", rest)
		cont = (rest ~ /\\[ \t]*$/)
		sub(/^[ \t]*#[ \t]*define[ \t]+/, "", rest)
		if (index(name, "(")) {
			name = substr(name, 1, index(name, "(") - 1)
			sub(/^[^)]*\)/, "", rest)
			rest = trim(rest); gsub(/[ \t]+/, " ", rest)
			v = "macro"
			if (rest ~ /^\(+[a-z]+\)( >> [0-9]+\))? & (0x[0-9a-fA-F]+|[0-9]+)u?\)$/) {
				sh = 0
				if (match(rest, />> [0-9]+/)) sh = substr(rest, RSTART + 3, RLENGTH - 3) + 0
				match(rest, /& [0-9a-fA-Fx]+/)
				m = num(substr(rest, RSTART + 2, RLENGTH - 2))
				w = bitof(m + 1)
				if (w > 0) v = "bits " (sh + w - 1) ":" sh
			} else if (rest ~ /^\(0x[0-9a-fA-F]+u? \+ .*\* 0x[0-9a-fA-F]+u?\)$/) {
				match(rest, /0x[0-9a-fA-F]+/)
				b = num(substr(rest, RSTART, RLENGTH))
				match(rest, /\* 0x[0-9a-fA-F]+/)
				s = num(substr(rest, RSTART + 2, RLENGTH - 2))
				v = "base " hx(b) " stride " hx(s)
			}
			emit(OUT, name, v, rest, FNR, name, "const")
			next
		}
		sub(/^[^ \t]+/, "", rest)
		rest = trim(rest); gsub(/[ \t]+/, " ", rest)
		if (rest == "") next		# include guard
		if (rest ~ /^\(1u? << [0-9]+\)$/) {
			n = rest; sub(/^.*<< /, "", n); sub(/\)$/, "", n)
			v = p2(n + 0)
		} else {
			v = num(rest)
		}
		if (v < 0) { fail(F ":" FNR " " name ": cannot read the value \"" rest "\""); next }
		if (name == "FDMA_VERSION_MAJOR") { maj = v; majs = rest; next }
		if (name == "FDMA_VERSION_MINOR") { min = v; mins = rest; minl = FNR; next }
		kind = "const"
		if (name ~ /^FDMA_REG_/) kind = "offset-g"
		else if (name ~ /^FDMA_CH_/ && name !~ /^FDMA_CH_(CAP|CTRL|ST)_/) kind = "offset-c"
		emit(OUT, name, v, rest, FNR, name, kind)
	}
	END {
		if (majs == "" || mins == "") {
			fail(F ": no FDMA_VERSION_MAJOR or FDMA_VERSION_MINOR")
		} else {
			emit(OUT, "FDMA_VERSION", maj * 65536 + min, "MAJOR " majs ", MINOR " mins, minl, "FDMA_VERSION_MAJOR/MINOR", "const")
			if (cver != "" && cver != maj "." min)
				fail(F ":" cline ": its opening comment says version " cver "; FDMA_VERSION_MAJOR/MINOR say " maj "." min)
		}
	}' "$ROOT/$HDR"
}

# ---- rtl/fdma_defs.vh ----------------------------------------------------
parse_vh() {
	awk -v F="$VH" -v OUT="$T/v" -v ONLY="$RTL_ONLY" "$LIB"'
	BEGIN { n = split(ONLY, L, /[ \t\n]+/); for (i = 1; i <= n; i++) if (L[i] != "") ro[L[i]] = 1 }
	/CH_BASE\(ch\) *= *0x[0-9a-fA-F]+ *\+ *ch *\* *0x[0-9a-fA-F]+/ {
		s = $0; sub(/^.*CH_BASE\(ch\) *= */, "", s)
		match(s, /^0x[0-9a-fA-F]+/); b = num(substr(s, 1, RLENGTH))
		sub(/^.*\* */, "", s); match(s, /^0x[0-9a-fA-F]+/); st = num(substr(s, 1, RLENGTH))
		emit(OUT, "FDMA_CH_BASE", "base " hx(b) " stride " hx(st), hx(b) " + ch * " hx(st), FNR, "the comment CH_BASE(ch)", "const")
	}
	$1 == "`define" {
		name = $2; lit = $3
		if (lit == "" || lit ~ /^\/\//) next	# include guard
		v = num(lit)
		if (v < 0) { fail(F ":" FNR " `" name ": cannot read the value \"" lit "\""); next }
		if (VW && v >= p2(VW)) fail(F ":" FNR " `" name " = " lit ": the value does not fit in " VW " bits")
		kind = "const"; bit = 0
		if (name in ro) key = "-"
		else if (name ~ /^R_/) { key = "FDMA_REG_" substr(name, 3); kind = "offset-g" }
		else if (name ~ /^C_/) { key = "FDMA_CH_" substr(name, 3); kind = "offset-c" }
		else if (name ~ /^CTRL_/) { key = "FDMA_CH_CTRL_" substr(name, 6); bit = 1 }
		else if (name ~ /^ST_/) { key = "FDMA_CH_ST_" substr(name, 4); bit = 1 }
		else if (name ~ /^D_/) { key = "FDMA_DESC_" substr(name, 3); bit = 1 }
		else if (name ~ /^CPL_F_/) { key = "FDMA_CPL_F_" substr(name, 7); bit = 1 }
		else if (name ~ /^CPL_/) key = "FDMA_" name
		else if (name == "FRAME_MAGIC") key = "FDMA_FRAME_MAGIC"
		else if (name == "FDMA_ID_MAGIC" || name == "FDMA_VERSION") key = name
		else key = "?"
		if (name in ro) seen[name] = 1
		if (name == "MSIX_TABLE_OFF" || name == "MSIX_PBA_OFF") {
			if (v < 4096 || v % 8)
				fail(F ":" FNR " `" name " = " lit ": the MSI-X table and PBA must lie outside the 4 KiB register file (docs/engine.md section 7), 8-byte aligned")
			msix[name] = v
		}
		if (bit) emit(OUT, key, p2(v), "bit " v, FNR, "`" name, kind)
		else emit(OUT, key, v, lit, FNR, "`" name, kind)
	}
	END {
		for (k in ro) if (!(k in seen))
			fail("RTL_ONLY in tests/cli/test_regmap.sh lists " k ", which " F " does not define: take it off the list")
		if (("MSIX_TABLE_OFF" in msix) && ("MSIX_PBA_OFF" in msix) && msix["MSIX_TABLE_OFF"] == msix["MSIX_PBA_OFF"])
			fail(F ": MSIX_TABLE_OFF and MSIX_PBA_OFF are the same offset")
	}' "$ROOT/$VH"
}

# ---- docs/engine.md ------------------------------------------------------
parse_doc() {
	awk -v F="$DOC" -v OUT="$T/d" -v FIELDS="$FIELDS" "$LIB"'
	function bq(s) { s = trim(s); return (s ~ /^`[A-Za-z_][A-Za-z0-9_]*`$/) ? substr(s, 2, length(s) - 2) : "" }
	function firstname(s) { return match(s, /`[A-Za-z_][A-Za-z0-9_]*`/) ? substr(s, RSTART + 1, RLENGTH - 2) : "" }
	BEGIN { n = split(FIELDS, L, /[ \t\n]+/); for (i = 1; i <= n; i++) if (split(L[i], p, ":") == 2) FP[p[1]] = p[2] }
	FNR == 1 && match($0, /version [0-9]+\.[0-9]+/) {
		s = substr($0, RSTART + 8, RLENGTH - 8); split(s, p, ".")
		emit(OUT, "FDMA_VERSION", p[1] * 65536 + p[2], s, FNR, "the version in the title", "const")
	}
	/`CH_BASE\(ch\) = 0x[0-9a-f]+ \+ ch \* 0x[0-9a-f]+`/ {
		s = $0; sub(/^.*`CH_BASE\(ch\) = /, "", s); sub(/`.*$/, "", s)
		split(s, p, " ")
		emit(OUT, "FDMA_CH_BASE", "base " hx(num(p[1])) " stride " hx(num(p[5])), s, FNR, "`CH_BASE(ch)`", "const")
	}
	/^\|/ {
		if (!intab) { intab = 1; split($0, c, "|"); hdr = trim(c[2]); lead = firstname(para); next }
		if ($0 ~ /^\|[-| :]*$/) next
		nc = split($0, c, "|")
		for (i = 1; i <= nc; i++) c[i] = trim(c[i])
		rname = bq(c[3])
		if (hdr == "offset" || hdr == "off") {
			if (c[3] == "-") next		# reserved
			if (c[2] !~ /^0x[0-9a-f]+$/ || rname == "") {
				fail(F ":" FNR ": a register table row this script cannot read: " substr($0, 1, 60)); next
			}
			key = (hdr == "offset" ? "FDMA_REG_" : "FDMA_") rname
			emit(OUT, key, num(c[2]), c[2], FNR, "`" rname "`", hdr == "offset" ? "offset-g" : "offset-c")
			if (hdr == "offset" && rname == "ID")
				emit(OUT, "FDMA_ID_MAGIC", num(c[6]), c[6], FNR, "ID reset value", "const")
			if (hdr == "offset" && rname == "VERSION")
				emit(OUT, "FDMA_VERSION", num(c[6]), c[6], FNR, "VERSION reset value", "const")
		} else if (hdr == "bit" || hdr == "bits") {
			if (c[3] == "-") next		# reserved
			if (!(lead in FP)) {
				fail(F ":" FNR ": a bit table after a paragraph naming `" lead "`, a register FIELDS in this script does not know"); next
			}
			if (c[2] ~ /^[0-9]+$/ && rname != "") {
				emit(OUT, FP[lead] rname, p2(c[2] + 0), "bit " c[2], FNR, "`" rname "` (" lead ")", "const")
				if (lead == "CH_STATUS" && c[4] ~ /^W1C/) { errmask += p2(c[2] + 0); errl = FNR }
			} else if (c[2] ~ /^[0-9]+:[0-9]+$/ && rname != "") {
				emit(OUT, FP[lead] rname, "bits " c[2], "bits " c[2], FNR, "`" rname "` (" lead ")", "const")
			} else {
				fail(F ":" FNR ": a bit table row this script cannot read: " substr($0, 1, 60))
			}
			next
		} else if (hdr == "status") {
			sname = bq(c[2])
			if (sname ~ /^CPL_/) {
				v = num(c[3])
				if (v < 0) fail(F ":" FNR ": `" sname "` has the value \"" c[3] "\", not a number")
				else emit(OUT, "FDMA_" sname, v, c[3], FNR, "`" sname "`", "const")
			}
		}
		# "bit N `X`" in a row: field X of the row`s register or field
		s = $0
		while (match(s, /[Bb]it [0-9]+ `[A-Za-z_][A-Za-z0-9_]*`/)) {
			m = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
			split(m, p, " "); gsub(/`/, "", p[3])
			if (!(rname in FP)) {
				fail(F ":" FNR ": \"" m "\" in the row of `" rname "`, a register FIELDS in this script does not know"); continue
			}
			emit(OUT, FP[rname] p[3], p2(p[2] + 0), "bit " p[2], FNR, "`" p[3] "` (" rname ")", "const")
			if (rname == "CH_CAPS") { capknown += p2(p[2] + 0); capl = FNR }
		}
		# a cell "0x... (`NAME`)": the constant NAME
		for (i = 2; i < nc; i++)
			if (match(c[i], /^0x[0-9a-f]+/) && (c[i] ~ /\(`[A-Z][A-Z0-9_]*`\)/)) {
				v = num(substr(c[i], 1, RLENGTH)); as = substr(c[i], 1, RLENGTH)
				match(c[i], /\(`[A-Z][A-Z0-9_]*`\)/)
				nm = substr(c[i], RSTART + 2, RLENGTH - 4)
				emit(OUT, "FDMA_" nm, v, as, FNR, "`" nm "`", "const")
			}
		next
	}
	{ intab = 0; if ($0 ~ /[^ \t]/) para = $0 }
	END {
		if (errl) emit(OUT, "FDMA_CH_ST_ERR_MASK", errmask, hx(errmask), errl, "the CH_STATUS bits marked W1C", "const")
		if (capl) emit(OUT, "FDMA_CH_CAP_KNOWN", capknown, hx(capknown), capl, "the CH_CAPS bits named", "const")
	}' "$ROOT/$DOC"
}

# compare OTHER-FILE OTHER-LIST HEADER-ONLY-LIST LISTNAME WHAT: every entry
# of OTHER-LIST against the header's; every header macro in OTHER-LIST or
# in HEADER-ONLY-LIST. Writes "compared other-only header-only" to $T/n.
compare() {
	awk -F '\t' -v H="$HDR" -v O="$1" -v ONLY="$3" -v LN="$4" -v CNT="$T/n" "$LIB"'
	FNR == NR { hv[$1] = $2; ha[$1] = $3; hl[$1] = $4; ord[++nh] = $1; next }
	$1 == "-" { oonly++; next }
	$1 == "?" { fail(O ":" $4 " " $5 " = " $3 ": maps to no macro of " H "; add it there, or to RTL_ONLY in tests/cli/test_regmap.sh"); next }
	!($1 in hv) { fail($1 ": " O ":" $4 " has " $5 " = " $3 ", " H " has no " $1); next }
	{
		seen[$1] = 1; n++
		if (hv[$1] != $2)
			fail($1 ": " O ":" $4 " has " $5 " = " both($3, $2) ", " H ":" hl[$1] " has " both(ha[$1], hv[$1]))
	}
	END {
		c = split(ONLY, L, /[ \t\n]+/)
		for (i = 1; i <= c; i++) {
			if (L[i] == "") continue
			ex[L[i]] = 1
			if (!(L[i] in hv)) fail(LN " in tests/cli/test_regmap.sh lists " L[i] ", which " H " does not define: take it off the list")
			else if (L[i] in seen) fail(LN " in tests/cli/test_regmap.sh lists " L[i] ", but " O " has it (line " hl[L[i]] " of " H "): take it off the list")
			else honly++
		}
		for (i = 1; i <= nh; i++) {
			k = ord[i]
			if (!(k in seen) && !(k in ex))
				fail(k ": " H ":" hl[k] " defines it (" ha[k] "), " O " does not; add it there, or to " LN " in tests/cli/test_regmap.sh with the reason")
		}
		print n + 0, oonly + 0, honly + 0 > CNT
	}' "$T/h" "$2"
}

# sane FILE LIST: register offsets aligned, inside their block, unique.
sane() {
	awk -F '\t' -v F="$1" "$LIB"'
	$6 ~ /^offset/ {
		lim = ($6 == "offset-g") ? 256 : 128
		blk = ($6 == "offset-g") ? "global block (< 0x100)" : "channel block (< 0x80)"
		if ($2 % 4) fail(F ":" $4 " " $5 " = " $3 ": not a multiple of 4")
		if ($2 >= lim) fail(F ":" $4 " " $5 " = " $3 ": outside the " blk)
		k = $6 " " $2
		if (k in at) fail(F ": " at[k] " and " $5 " (line " $4 ") are both at " show($2))
		else at[k] = $5 " (line " $4 ")"
	}' "$2"
}

pass=0
fail=0
# check DESC COMMAND...: the command prints FAIL lines or nothing.
check() {
	_d=$1
	shift
	"$@" >"$T/out"
	_n=$(grep -c '^FAIL' "$T/out")
	cat "$T/out"
	if [ "$_n" -gt 0 ]; then
		fail=$((fail + _n))
	else
		pass=$((pass + 1))
		echo "ok   $_d"
	fi
}

: >"$T/h"
: >"$T/v"
: >"$T/d"
check "$HDR reads, and its opening comment names its version" parse_h
check "$VH reads, every value fits its width, MSI-X outside the register file" parse_vh
check "$DOC's register and bit tables read" parse_doc
for f in h v d; do
	case $f in h) n=$HDR ;; v) n=$VH ;; d) n=$DOC ;; esac
	check "$n: register offsets aligned, inside their block, unique" sane "$n" "$T/$f"
done

check "$VH agrees with $HDR" compare "$VH" "$T/v" "$C_ONLY" C_ONLY
read -r rc_n rc_ro rc_co <"$T/n"
check "$DOC agrees with $HDR" compare "$DOC" "$T/d" "$DOC_EXEMPT" DOC_EXEMPT
read -r dc_n _ dc_ex <"$T/n"

echo "regmap: $VH vs $HDR: $rc_n registers/constants compared ($rc_ro RTL-only, $rc_co header-only, listed); $DOC vs $HDR: $dc_n compared ($dc_ex header-only, listed)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
