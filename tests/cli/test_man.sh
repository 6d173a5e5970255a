#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The manual: every page renders without a warning under `man --warnings`
# (from a man1/man3/man7 tree, as installed, so that .so links resolve),
# every function include/fdma.h declares has its page, every fdma command
# its page or a section of fdma(1), and every page names itself.
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

finish
