#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/install/check_symbols.sh HEADER LIB...: every LIB (libfdma.a: its
# global defined symbols; libfdma.so*: its dynamic ones) exports exactly the
# functions HEADER declares: none missing, none extra. Also: every exported
# name starts with fdma_, and known internals (fdma_err, the engine core,
# the models) are not among them.
#
# The header's list comes from packaging/exports.sh, the same derivation the
# build uses, and a second time from the header's text (a prototype at the
# start of a line), so a build that derived a wrong list cannot agree with
# itself. NM names the nm to use (default: nm, which reads every
# architecture's ELF files on Debian).
# Prints one "ok"/"FAIL" line per check and "N passed, M failed"; exit 1 on
# any failure.
set -u
[ $# -ge 2 ] || { echo "usage: tests/install/check_symbols.sh HEADER LIB..." >&2; exit 2; }
HDR=$1; shift
NM=${NM:-nm}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/fdma-sym.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -z "${2:-}" ] || sed 's/^/    /' "$2"; }

if sh "$HERE/packaging/exports.sh" "$HDR" >"$T/api" 2>"$T/err"; then
	ok "$HDR: $(wc -l <"$T/api") functions (compiler's list)"
else
	bad "packaging/exports.sh $HDR" "$T/err"
	echo "$pass passed, $fail failed"; exit 1
fi
# The same from the text: "type fdma_name(" at the start of a line,
# outside comments and preprocessor lines.
sed -e 's|/\*.*\*/||g' -e '/\/\*/,/\*\//d' "$HDR" |
	grep -E '^[A-Za-z_][A-Za-z0-9_ *]*[ *]fdma_[a-z0-9_]+\(' | grep -vE '^(typedef|static|#)' |
	sed -E 's/^.*[ *](fdma_[a-z0-9_]+)\(.*/\1/' | sort -u >"$T/api2"
if cmp -s "$T/api" "$T/api2"; then
	ok "the header's text declares the same functions"
else
	diff "$T/api" "$T/api2" | sed -n 's/^[<>]/&/p' >"$T/d"
	bad "the compiler's list and the header's text disagree (< compiler, > text)" "$T/d"
fi
grep -v '^fdma_' "$T/api" >"$T/odd"
if [ -s "$T/odd" ]; then bad "API names without the fdma_ prefix" "$T/odd"; else ok "every API name starts with fdma_"; fi

for lib in "$@"; do
	case $lib in *.a) what="global defined symbols" ;; *) what="dynamic symbols" ;; esac
	case $lib in
	*.a) "$NM" -g --defined-only "$lib" 2>"$T/err" | awk 'NF == 3 { print $3 }' ;;
	*)   "$NM" -D --defined-only "$lib" 2>"$T/err" | awk 'NF == 3 && $2 != "A" { sub(/@.*/, "", $3); print $3 }' ;;
	esac | sort -u >"$T/got"
	if [ ! -s "$T/got" ]; then
		bad "$lib: no $what (nm failed?)" "$T/err"
		continue
	fi
	comm -13 "$T/api" "$T/got" >"$T/extra"
	comm -23 "$T/api" "$T/got" >"$T/missing"
	if [ -s "$T/extra" ]; then bad "$lib exports $(wc -l <"$T/extra") symbols the header does not declare" "$T/extra"
	else ok "$lib: no $what beyond the header's"; fi
	if [ -s "$T/missing" ]; then bad "$lib lacks $(wc -l <"$T/missing") of the header's functions" "$T/missing"
	else ok "$lib: all $(wc -l <"$T/api") of the header's functions"; fi
	for s in fdma_err fdma_model_create fdma_ering_post fdma_link_defaults fdma_parse_sim_uri; do
		if grep -qx "$s" "$T/got"; then bad "$lib exports the internal $s"; fi
	done
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
