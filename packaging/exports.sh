#!/bin/sh
# SPDX-License-Identifier: MIT
#
# packaging/exports.sh [--map] HEADER [CC...]: the functions HEADER declares,
# one name a line, sorted: the public API, and so exactly what libfdma.so and
# libfdma.a export. With --map, a linker version script that makes those
# names global and everything else local.
#
# The list comes from the compiler, not from a pattern over the text: GCC's
# -aux-info writes one line per function declaration it parsed, with the
# file and line it came from, so a prototype split over lines, a macro in a
# return type or a function-pointer member cannot fool it. Only extern
# declarations made in HEADER itself count (not static inline helpers, not
# what <stdint.h> declares). CC defaults to "cc", then "gcc" is tried (clang
# has no -aux-info); the list does not depend on the target, so a cross
# build may use the host's compiler.
#
# The Makefile runs this at build time, so a function added to the header
# is exported by the next build without anyone editing a list.
set -eu

map=0
if [ "${1:-}" = --map ]; then map=1; shift; fi
[ $# -ge 1 ] || { echo "usage: packaging/exports.sh [--map] HEADER [CC...]" >&2; exit 2; }
hdr=$1; shift
[ -r "$hdr" ] || { echo "exports.sh: cannot read $hdr" >&2; exit 1; }
[ $# -ge 1 ] || set -- cc

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
ok=0
for c in "$@" gcc; do
	# -aux-info names the file as given: pass an absolute path and match it.
	if $c -std=c11 -fsyntax-only -aux-info "$tmp/aux" -x c "$(cd "$(dirname "$hdr")" && pwd)/$(basename "$hdr")" \
		-o /dev/null 2>"$tmp/err"; then
		ok=1
		break
	fi
done
[ $ok = 1 ] || { cat "$tmp/err" >&2; echo "exports.sh: no compiler with -aux-info (gcc) found" >&2; exit 1; }

abs=$(cd "$(dirname "$hdr")" && pwd)/$(basename "$hdr")
# /* /abs/include/fdma.h:92:NC */ extern int fdma_open (struct fdma_dev **, ...);
awk -v f="$abs" '
	$1 == "/*" && index($2, f ":") == 1 && $3 == "*/" && $4 == "extern" {
		s = $0
		sub(/ \(.*/, "", s)			# drop the parameter list
		n = split(s, w, /[ *]+/)
		print w[n]
	}' "$tmp/aux" | sort -u >"$tmp/names"
[ -s "$tmp/names" ] || { echo "exports.sh: no function declarations found in $hdr" >&2; exit 1; }

if [ $map = 1 ]; then
	echo "/* Generated from $hdr by packaging/exports.sh: do not edit. */"
	echo "{"
	echo "global:"
	sed 's/^/	/; s/$/;/' "$tmp/names"
	echo "local:"
	echo "	*;"
	echo "};"
else
	cat "$tmp/names"
fi
