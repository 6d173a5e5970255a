#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/cov-report.sh [--markdown] [--missed] HITS KO...: the share of a
# module's coverage points that a guest reached, per source file.
#
# KO is a module built with FDMA_COV=y (kernel/Kbuild): fdma.ko,
# fdma_dmac.ko. HITS is what the guest read from
# /sys/kernel/debug/fdma_cov/hits (tests/vm/kmod/fdma_covstore.c), alone or
# inside a console log: for each module a line "module NAME points N
# outside M", then a line "core OFFSET" or "init OFFSET" (hex) per point
# reached, OFFSET from the start of the module's core or init text.
#
# The points are the .ko's calls of __sanitizer_cov_trace_pc (objdump -dr:
# each call's relocation; the point is its return address). The loader
# lays a module's executable sections out one after the other in their
# ELF order, each at its own alignment, those named .init* in the init
# text and the others in the core text (kernel/module/main.c,
# layout_sections()); the same layout here turns a hit back into
# (section, offset), which must be one of the points: a hit that is not
# is reported, and the exit status is 1 (a layout that differs, or a .ko
# other than the one the guest ran). addr2line -i names a point's source
# file and line: the outermost function's, so that a point in an inline
# helper counts for the file it was inlined into.
#
# Prints per KO a table: file, points, reached, share, and the total; with
# --markdown as a Markdown table; with --missed also each file's source
# lines with a point not reached.
#
# Exit: 0, 1 (a hit that is no point, no points in a KO, no hits for it),
# 2 usage.
set -u

usage() { sed -n '3,31p' "$0" | sed 's/^# \{0,1\}//'; }

MD=0
MISSED=0
while [ $# -gt 0 ]; do
	case $1 in
	--markdown) MD=1; shift ;;
	--missed) MISSED=1; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "cov-report.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || { usage >&2; exit 2; }
HITS=$1
shift
[ -r "$HITS" ] || { echo "cov-report.sh: cannot read $HITS" >&2; exit 2; }
for t in objdump readelf addr2line awk; do
	command -v $t >/dev/null || { echo "cov-report.sh: $t not found (binutils)" >&2; exit 2; }
done

# awk (mawk too) has no strtonum: hex(S) is S's value, with or without 0x.
HEXFN='function hex(s,   i, v) {
	v = 0; s = tolower(s); sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}'

TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT
STATUS=0

# report KO: one module's table.
report() {
	local ko=$1 mod
	mod=$(basename "$ko" .ko)
	[ -r "$ko" ] || { echo "cov-report.sh: cannot read $ko" >&2; STATUS=1; return; }

	# The loader's layout of the executable sections: "SECTION core|init BASE SIZE".
	readelf -SW "$ko" | sed -n 's/^ *\[ *[0-9]*\] //p' | awk "$HEXFN"'
	{
		# Name Type Address Off Size ES [Flg] Lk Inf Al (no Flg: nine fields)
		flg = NF == 10 ? $7 : ""
		if (flg !~ /A/ || flg !~ /X/)
			next
		size = hex($5); al = $NF + 0
		kind = $1 ~ /^\.init/ ? "init" : "core"
		if (al < 1)
			al = 1
		base = int((end[kind] + al - 1) / al) * al
		end[kind] = base + size
		printf "%s %s %d %d\n", $1, kind, base, size
	}' >"$TMP/layout"

	# The points: "SECTION OFFSET" of each return address (decimal).
	objdump -dr "$ko" | awk -v ko="$ko" "$HEXFN"'
	/^Disassembly of section / { sec = $4; sub(/:$/, "", sec); next }
	/^ *[0-9a-f]+:\t/ && $0 !~ /R_[A-Z0-9_]+\t/ {
		# an instruction: "ADDR:<tab>BYTES<tab>MNEMONIC ..."
		n = split($0, f, "\t")
		if (n >= 3) { last = f[3]; sub(/^ +/, "", last) }
		next
	}
	/R_[A-Z0-9_]+\t__sanitizer_cov_trace_pc/ {
		off = $1; sub(/:$/, "", off)
		if (last ~ /^(call|bl)/) {
			print sec, hex(off) + 4
		} else {
			bad++
			printf "cov-report.sh: %s: %s+0x%s reaches the hook by \"%s\", not a call\n", ko, sec, off, last > "/dev/stderr"
		}
	}
	END { exit bad > 0 }' >"$TMP/points" || STATUS=1
	if [ ! -s "$TMP/points" ]; then
		echo "cov-report.sh: $ko has no coverage points (not built with FDMA_COV=y?)" >&2
		STATUS=1
		return
	fi

	# Each point's source file: that of the function it is in, as the
	# symbol table groups the local functions under their object's FILE
	# symbol (an inline helper's out-of-line copy counts for the file that
	# made it); for a global function, addr2line's outermost frame. The
	# line: addr2line's outermost frame of the call (the return address
	# less one). "SECTION OFFSET FILE LINE".
	readelf -SW "$ko" | sed -n 's/^ *\[ *\([0-9]*\)\] \([^ ]*\).*/\1 \2/p' >"$TMP/secnames"
	readelf -sW "$ko" | awk "$HEXFN"'
	FILENAME == ARGV[1] { name[$1] = $2; next }
	$4 == "FILE" { file = $NF; next }
	$4 == "FUNC" && $7 ~ /^[0-9]+$/ && ($7 in name) {
		print name[$7], hex($2), $3 + 0, $5 == "LOCAL" ? file : "-"
	}' "$TMP/secnames" - | sort -k1,1 -k2,2n >"$TMP/funcs"
	: >"$TMP/where"
	local sec
	cut -d' ' -f1 "$TMP/points" | sort -u >"$TMP/sections"
	while read -r sec; do
		awk -v s="$sec" '$1 == s { printf "0x%x\n", $2 - 1 }' "$TMP/points" |
			addr2line -a -i -e "$ko" -j "$sec" | awk -v s="$sec" "$HEXFN"'
			function flush() { if (addr != "") print s, addr + 1, loc }
			/^0x/ { flush(); addr = hex($1); loc = "?:?"; next }
			{ loc = $1 }
			END { flush() }' >>"$TMP/where"
	done <"$TMP/sections"
	awk '
	FILENAME == ARGV[1] { n[$1]++; fs[$1, n[$1]] = $2; fe[$1, n[$1]] = $2 + $3; ff[$1, n[$1]] = $4; next }
	{
		sec = $1; at = $2 - 1; lo = 1; hi = n[sec]; k = 0
		while (lo <= hi) {	# the last function starting at or before the call
			mid = int((lo + hi) / 2)
			if (fs[sec, mid] <= at) { k = mid; lo = mid + 1 } else hi = mid - 1
		}
		file = $3; sub(/:[^:]*$/, "", file)
		line = $3; sub(/^.*:/, "", line)
		if (k && at < fe[sec, k] && ff[sec, k] != "-")
			file = ff[sec, k]
		print sec, $2, file, line
	}' "$TMP/funcs" "$TMP/where" >"$TMP/where2"

	# This module's hits, from the dump (or a console log around it).
	tr -d '\r' <"$HITS" | awk -v m="$mod" '
	/^module / { on = ($2 == m); if (on) found = 1; next }
	on && /^(core|init) [0-9a-f]+$/ { print $1, $2 }
	/VMTEST COVERAGE END/ { on = 0 }
	END { exit !found }' >"$TMP/hits"
	local found=$?
	if [ $found != 0 ]; then
		echo "cov-report.sh: $HITS has no hits of module $mod" >&2
		STATUS=1
	fi

	# The table.
	awk -v md=$MD -v missed=$MISSED -v ko="$mod.ko" "$HEXFN"'
	FILENAME == ARGV[1] { lsec[NR] = $1; lkind[NR] = $2; lbase[NR] = $3; lsize[NR] = $4; nl = NR; next }
	FILENAME == ARGV[2] {
		key = $1 " " $2
		file = $3; line = $4
		# No source line: functions of the compiler (KASAN constructors
		# and destructors), not code of the module.
		if (line !~ /^[0-9]+$/) {
			noline++
			nolinepoint[key] = 1
			next
		}
		n = split(file, p, "/"); base = p[n]
		fileof[key] = base; lineof[key] = line
		points[base]++
		npoints++
		next
	}
	{
		off = hex($2); hit = ""
		for (i = 1; i <= nl; i++)
			if (lkind[i] == $1 && off >= lbase[i] && off < lbase[i] + lsize[i]) {
				hit = lsec[i] " " (off - lbase[i])
				break
			}
		if (!(hit in fileof)) {
			if (hit in nolinepoint)
				next
			if (unmatched++ < 5)
				printf "cov-report.sh: %s: %s text offset 0x%s is no coverage point\n", ko, $1, $2 > "/dev/stderr"
			next
		}
		if (!(hit in reached)) {
			reached[hit] = 1
			got[fileof[hit]]++
			ngot++
		}
	}
	END {
		nf = 0
		for (f in points) files[++nf] = f
		# sorted by name
		for (i = 2; i <= nf; i++)
			for (j = i; j > 1 && files[j - 1] > files[j]; j--) {
				t = files[j]; files[j] = files[j - 1]; files[j - 1] = t
			}
		if (md) {
			printf "| %s | points | reached | share |\n|---|---:|---:|---:|\n", ko
			for (i = 1; i <= nf; i++) {
				f = files[i]
				printf "| `%s` | %d | %d | %.1f%% |\n", f, points[f], got[f], 100 * got[f] / points[f]
			}
			printf "| all | %d | %d | %.1f%% |\n", npoints, ngot, npoints ? 100 * ngot / npoints : 0
		} else {
			printf "%-28s %7s %8s %7s\n", ko, "points", "reached", "share"
			for (i = 1; i <= nf; i++) {
				f = files[i]
				printf "%-28s %7d %8d %6.1f%%\n", f, points[f], got[f], 100 * got[f] / points[f]
			}
			printf "%-28s %7d %8d %6.1f%%\n", "all", npoints, ngot, npoints ? 100 * ngot / npoints : 0
		}
		if (noline)
			printf "(%d points without a source line, the compiler\047s own functions, left out)\n", noline
		if (missed) {
			for (k in fileof)
				if (!(k in reached))
					miss[fileof[k] ":" lineof[k]] = 1
			for (i = 1; i <= nf; i++) {
				f = files[i]; s = ""; nm = 0
				for (m in miss)
					if (substr(m, 1, length(f) + 1) == f ":")
						lines[++nm] = substr(m, length(f) + 2) + 0
				for (a = 2; a <= nm; a++)
					for (b = a; b > 1 && lines[b - 1] > lines[b]; b--) {
						t = lines[b]; lines[b] = lines[b - 1]; lines[b - 1] = t
					}
				for (a = 1; a <= nm; a++)
					s = s (a > 1 ? "," : "") lines[a]
				if (nm)
					printf "missed %s: %s\n", f, s
			}
		}
		if (unmatched) {
			printf "cov-report.sh: %s: %d hits are no coverage point of this .ko (another build, or another layout)\n", ko, unmatched > "/dev/stderr"
			exit 1
		}
	}' "$TMP/layout" "$TMP/where2" "$TMP/hits" || STATUS=1
}

first=1
for ko; do
	[ $first = 1 ] || echo
	first=0
	report "$ko"
done
exit $STATUS
