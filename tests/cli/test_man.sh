#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The manual: every page renders without a warning under `man --warnings`
# (from a man1/man3/man7 tree, as installed, so that .so links resolve),
# every function include/fdma.h declares has its page, every fdma command
# its page or a section of fdma(1), and every page names itself. Each page
# also reads in the source tree (man -l docs/man/X: a link page too);
# fdma(1) and fdma(7) name every command and fdma(7) every function; the
# channel orders fdma(7) shows are fdma info's; the headers fit 100
# columns.
#
#   sh tests/cli/test_man.sh

. tests/cli/lib.sh

M=$T/man
mkdir -p "$M/man1" "$M/man3" "$M/man7"
for f in docs/man/*.[137]; do
	cp "$f" "$M/man${f##*.}/"
done

if ! command -v man >/dev/null 2>&1; then
	skip "rendering (no man: apt-get install man-db)"
else
	for f in "$M"/man*/*; do
		page=${f#"$M"/}
		out=$(cd "$M" && LC_ALL=C MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
		if [ -n "$out" ]; then
			bad "man $page renders clean" "$(echo "$out" | head -n 2 | tr '\n' ' ')"
		else
			ok "man $page renders clean"
		fi
	done
fi

# A page per call: the header's functions, each with docs/man/NAME.3.
_miss=
for fn in $(sed -n 's/^[a-z].*[ *]\(fdma_[a-z0-9_]*\)(.*/\1/p' include/fdma.h | sort -u); do
	[ -f "docs/man/$fn.3" ] || _miss="$_miss $fn"
done
if [ -n "$_miss" ]; then
	bad "every function of fdma.h has a man page" "missing:$_miss"
else
	ok "every function of fdma.h has a man page"
fi

# Every command fdma --help lists: fdma-CMD.1, or a section in fdma.1.
fdma --help
_miss=
for c in $(sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' "$T/out"); do
	[ -f "docs/man/fdma-$c.1" ] && continue
	grep -q "^\.SS.*$c" docs/man/fdma.1 || _miss="$_miss $c"
done
if [ -n "$_miss" ]; then
	bad "every fdma command has a man page" "missing:$_miss"
else
	ok "every fdma command has a man page (fdma-CMD.1 or a section of fdma.1)"
fi

# In the tree, as a reader of the sources opens them: a link page (the
# second name of a call) must read too, not fail a .so to man3/.
if command -v man >/dev/null 2>&1; then
	_miss=
	for f in docs/man/*.[137]; do
		out=$(LC_ALL=C MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
		[ -z "$out" ] || _miss="$_miss $f"
	done
	if [ -n "$_miss" ]; then
		bad "every page reads in the tree (man -l docs/man/X)" "$_miss"
	else
		ok "every page reads in the tree (man -l docs/man/X), link pages too"
	fi
fi

# fdma(1)'s synopsis and fdma(7) name every command fdma --help lists.
fdma --help
_m1=
_m7=
for c in $(sed -n 's/^  \([a-z][a-z]*\) .*/\1/p' "$T/out"); do
	grep -q "^\.B[IR]* \"fdma $c" docs/man/fdma.1 || _m1="$_m1 $c"
	grep -q "^\.BR* $c\b" docs/man/fdma.7 || _m7="$_m7 $c"
done
[ -z "$_m1" ] && ok "fdma(1)'s synopsis names every command" ||
	bad "fdma(1)'s synopsis names every command" "missing:$_m1"
[ -z "$_m7" ] && ok "fdma(7) names every command" || bad "fdma(7) names every command" "missing:$_m7"

# fdma(7)'s list of functions: every call include/fdma.h declares.
_miss=
for fn in $(sed -n 's/^[a-z].*[ *]\(fdma_[a-z0-9_]*\)(.*/\1/p' include/fdma.h | sort -u); do
	grep -q "^\.BR $fn (3)" docs/man/fdma.7 || _miss="$_miss $fn"
done
[ -z "$_miss" ] && ok "fdma(7) names every function of fdma.h" ||
	bad "fdma(7) names every function of fdma.h" "missing:$_miss"
grep -q "FDMA_DEVICE" docs/man/fdma.1 && ok "fdma(1) documents FDMA_DEVICE" ||
	bad "fdma(1) documents FDMA_DEVICE"

# The channel orders fdma(7) shows (FDMA: stream pairs C2H first; XDMA: H2C
# first) are what fdma info lists, less the ring and unit details.
for dev in sim: sim:engine=xdma; do
	fdma info "$dev"
	sed -n 's/^\(channel [0-9]*  [^,]*\), ring [0-9]*\(, test [a-z]*\)\{0,1\}.*/\1\2/p' "$T/out" >"$T/chans"
	if [ "$rc" -eq 0 ] && [ -s "$T/chans" ] && awk -v want="$(cat "$T/chans")" '
		/^\.EX/ { n = 0; got = ""; inex = 1; next }
		/^\.EE/ { if (got == want) found = 1; inex = 0; next }
		inex { got = got (n++ ? "\n" : "") $0 }
		END { exit !found }' docs/man/fdma.7; then
		ok "fdma(7) shows the channels of $dev as fdma info lists them"
	else
		bad "fdma(7) shows the channels of $dev as fdma info lists them" \
			"$(tr '\n' '|' <"$T/chans")"
	fi
done
# The alignment rule as it is: streams by fdma_chan_align(), not 64 bytes for all.
grep -q "^\.BR fdma_chan_align (3):" docs/man/fdma.7 && ! grep -q "alignment (64 bytes): unaligned" docs/man/fdma.7 &&
	ok "fdma(7): the alignment rule names fdma_chan_align() for streams" ||
	bad "fdma(7): the alignment rule names fdma_chan_align() for streams"

# The public headers fit 100 columns (a tab is 8).
_miss=
for h in include/*.h; do
	_w=$(expand -t 8 "$h" | awk '{ if (length($0) > m) { m = length($0); l = NR } } END { if (m > 100) print l ":" m }')
	[ -z "$_w" ] || _miss="$_miss $h:$_w"
done
[ -z "$_miss" ] && ok "include/*.h within 100 columns" || bad "include/*.h within 100 columns" "$_miss"

finish
