#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Command-line tests of the fdma tool: exit statuses, usage texts, JSON
# output and short runs on the simulated device.
#
#   FDMA=build/fdma sh tests/cli/run.sh
#
# `make check-tests` runs it from the repository root, also for the
# sanitizer builds (FDMA=build-asan/fdma, build-tsan/fdma). Prints one line
# per check, then "N passed, M failed"; exits 1 if any check failed.
# Runs take --seconds 0.3 or less, so the whole script takes a few seconds
# (well under 40 s on two cores, sanitizers included).

set -u

FDMA=${FDMA:-build/fdma}
pass=0
fail=0
rc=0

if [ ! -x "$FDMA" ]; then
	echo "FAIL $FDMA is not an executable (build it first: make)"
	echo "0 passed, 1 failed"
	exit 1
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/fdma-cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM

# A run that hangs fails its check instead of hanging the suite.
if command -v timeout >/dev/null 2>&1; then
	TO="timeout 120"
else
	TO=
fi

HAVE_PY=0
if command -v python3 >/dev/null 2>&1; then
	HAVE_PY=1
fi

ok() {
	pass=$((pass + 1))
	echo "ok   $1"
}

bad() {
	fail=$((fail + 1))
	echo "FAIL $1${2:+ ($2)}"
}

# First line of the last run's stderr, for failure messages.
errline() {
	head -n 1 "$T/err" 2>/dev/null | cut -c 1-200
}

# fdma ARGS...: run it; stdout in $T/out, stderr in $T/err, status in $rc.
fdma() {
	$TO "$FDMA" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# expect_rc DESC STATUS ARGS...: run fdma ARGS, check the exit status.
expect_rc() {
	_d=$1
	_want=$2
	shift 2
	fdma "$@"
	if [ "$rc" -eq "$_want" ]; then
		ok "$_d"
	else
		bad "$_d" "exit $rc, want $_want: $(errline)"
	fi
}

# expect_usage DESC ARGS...: exit 2, a message on stderr, nothing on stdout.
expect_usage() {
	_d=$1
	shift
	fdma "$@"
	if [ "$rc" -ne 2 ]; then
		bad "$_d" "exit $rc, want 2: $(errline)"
	elif [ ! -s "$T/err" ]; then
		bad "$_d" "exit 2 but nothing on stderr"
	elif [ -s "$T/out" ]; then
		bad "$_d" "usage error wrote to stdout: $(head -n 1 "$T/out")"
	else
		ok "$_d"
	fi
}

# expect_fail DESC WORD ARGS...: exit 1 with a message naming WORD on stderr.
expect_fail() {
	_d=$1
	_word=$2
	shift 2
	fdma "$@"
	if [ "$rc" -ne 1 ]; then
		bad "$_d" "exit $rc, want 1: $(errline)"
	elif ! grep -q -- "$_word" "$T/err"; then
		bad "$_d" "stderr does not name '$_word': $(errline)"
	else
		ok "$_d"
	fi
}

# json DESC EXPR: the last run exited 0 and its stdout, one JSON value per
# non-empty line as the list L, makes the Python expression EXPR true. The
# helpers has(o, keys) and num(o, key) are defined for EXPR.
json() {
	_d=$1
	if [ "$HAVE_PY" -eq 0 ]; then
		echo "skip $_d (no python3)"
		return
	fi
	if [ "$rc" -ne 0 ]; then
		bad "$_d" "exit $rc: $(errline)"
		return
	fi
	if _why=$(python3 -c '
import json, sys
try:
    L = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
except ValueError as e:
    print("not JSON: %s" % e)
    sys.exit(1)
if not all(isinstance(o, dict) for o in L):
    print("a line is not a JSON object")
    sys.exit(1)
def has(o, keys):
    return all(k in o for k in keys.split())
def num(o, k):
    v = o[k]
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else float("nan")
try:
    good = eval(sys.argv[2])
except Exception as e:
    print("%s: %s" % (type(e).__name__, e))
    sys.exit(1)
if not good:
    print("got: " + " | ".join(json.dumps(o)[:300] for o in L)[:600])
    sys.exit(1)
' "$T/out" "$2" 2>&1); then
		ok "$_d"
	else
		bad "$_d" "$_why"
	fi
}

# ---- the dispatcher --------------------------------------------------------

fdma
if [ "$rc" -eq 2 ] && [ -s "$T/err" ]; then
	ok "fdma without arguments exits 2 with usage on stderr"
else
	bad "fdma without arguments exits 2 with usage on stderr" "exit $rc"
fi

fdma --help
_miss=
for c in info bench stream model; do
	grep -q "^  $c " "$T/out" || _miss="$_miss $c"
done
if [ "$rc" -ne 0 ]; then
	bad "fdma --help exits 0" "exit $rc"
elif [ -n "$_miss" ]; then
	bad "fdma --help lists info, bench, stream, model" "missing:$_miss"
else
	ok "fdma --help exits 0 and lists info, bench, stream, model"
fi

expect_usage "fdma nosuchcommand exits 2" nosuchcommand

fdma --version
if [ "$rc" -eq 0 ] && grep -q '^fdma [0-9]' "$T/out"; then
	ok "fdma --version exits 0 and prints the version"
else
	bad "fdma --version exits 0 and prints the version" "exit $rc"
fi

# ---- --help and bad options of every subcommand -------------------------------

for c in info bench stream model; do
	fdma "$c" --help
	if [ "$rc" -ne 0 ]; then
		bad "fdma $c --help exits 0" "exit $rc: $(errline)"
	elif ! grep -q "^usage: fdma $c" "$T/out"; then
		bad "fdma $c --help prints usage on stdout" "$(head -n 1 "$T/out")"
	else
		ok "fdma $c --help exits 0 and prints usage on stdout"
	fi
	expect_usage "fdma $c --no-such-option exits 2" "$c" sim: --no-such-option
done

# ---- info -------------------------------------------------------------------

fdma info sim:
if [ "$rc" -eq 0 ] && grep -q '^channel 0 ' "$T/out"; then
	ok "fdma info sim: exits 0 and lists channels"
else
	bad "fdma info sim: exits 0 and lists channels" "exit $rc: $(errline)"
fi
expect_fail "fdma info nosuch: exits 1 naming the URI" "nosuch" info nosuch:
# The message names the option itself, not just the URI it echoes.
expect_fail "fdma info sim:bogus=1 exits 1 naming the option" "option 'bogus'" info sim:bogus=1
expect_fail "fdma info sim:gen=9 exits 1 naming the option" "option 'gen'" info sim:gen=9
expect_usage "fdma info without a URI exits 2" info

fdma info sim: --json
json "fdma info sim: --json is one object with the link" \
	'len(L) == 1 and has(L[0], "gen lanes mps write_mbps read_mbps") and L[0]["gen"] == 2 and L[0]["lanes"] == 1 and L[0]["mps"] == 256 and num(L[0], "write_mbps") > 0 and num(L[0], "read_mbps") > 0'

fdma info sim:gen=3,lanes=8,channels=2,streams=0 --json
json "fdma info applies sim: options (gen3 x8, 2 channel pairs, no streams)" \
	'len(L) == 1 and L[0]["gen"] == 3 and L[0]["lanes"] == 8 and L[0]["channels"] == 4'

# ---- model ------------------------------------------------------------------

fdma model --json
json "fdma model --json: one object per line with the ceilings" \
	'len(L) == 25 and all(has(o, "gen lanes mps write_mbps read_mbps") for o in L)'

fdma model --gen 2 --lanes 1 --mps 256 --json
# Hand-computed: 500e6 B/s * 0.997 (SKP) * 256 / (256 + 8 framing + 16 4DW header).
json "fdma model gen2 x1 MPS 256: write_mbps 455.8 (by hand)" \
	'len(L) == 1 and abs(num(L[0], "write_mbps") - 500e6 * 0.997 * 256 / (256 + 24) / 1e6) <= 0.2'

fdma model --gen 3 --lanes 8 --json
json "fdma model --gen 3 --lanes 8 --json: one row" \
	'len(L) == 1 and L[0]["gen"] == 3 and L[0]["lanes"] == 8'

expect_usage "fdma model --gen 6 exits 2" model --gen 6
expect_usage "fdma model --lanes 3 exits 2" model --lanes 3

# ---- bench ------------------------------------------------------------------

BENCH_KEYS="size mbps ceiling_mbps cpu_pct wakeups_per_s transfers_per_s p50_us p99_us bytes_checked errors"

fdma bench sim:paced=0 --sizes 4K,64K --seconds 0.3 --json
json "fdma bench unpaced C2H 4K,64K: 2 rows, all bytes checked, no errors, memcpy" \
	'len(L) == 2 and [o["size"] for o in L] == [4096, 65536] and all(has(o, "'"$BENCH_KEYS"' memcpy_mbps") and o["errors"] == 0 and o["bytes_checked"] > 0 for o in L)'

fdma bench sim: --sizes 64K --seconds 0.3 --json
json "fdma bench paced 64K: no memcpy_mbps, no errors" \
	'len(L) == 1 and has(L[0], "'"$BENCH_KEYS"'") and "memcpy_mbps" not in L[0] and L[0]["errors"] == 0 and L[0]["bytes_checked"] > 0'

fdma bench sim:paced=0 --dir h2c --sizes 64K --seconds 0.3 --json
json "fdma bench --dir h2c: read back and checked, no errors" \
	'len(L) == 1 and L[0]["dir"] == "h2c" and has(L[0], "'"$BENCH_KEYS"'") and L[0]["errors"] == 0 and L[0]["bytes_checked"] > 0'

fdma bench sim:paced=0 --sizes 4K..16K --seconds 0.1 --json
json "fdma bench --sizes 4K..16K: 3 rows (4K, 8K, 16K)" \
	'len(L) == 3 and [o["size"] for o in L] == [4096, 8192, 16384] and all(o["errors"] == 0 for o in L)'

expect_usage "fdma bench --sizes 0 exits 2" bench sim: --sizes 0
expect_usage "fdma bench --batch 0 exits 2" bench sim: --batch 0
expect_usage "fdma bench --wait nope exits 2" bench sim: --wait nope
expect_usage "fdma bench --dir sideways exits 2" bench sim: --dir sideways
expect_usage "fdma bench without a URI exits 2" bench --sizes 4K
expect_fail "fdma bench nosuch: exits 1 naming the URI" "nosuch" bench nosuch: --sizes 4K --seconds 0.1

# ---- stream -----------------------------------------------------------------

fdma stream sim:paced=0 --frame-size 65536 --fps 200 --seconds 0.5 --json
json "fdma stream 64K frames at 200 fps: frames, no errors, no drops" \
	'len(L) == 1 and num(L[0], "frames") > 0 and L[0]["errors"] == 0 and L[0]["dropped"] == 0'

expect_usage "fdma stream --frame-size 10 exits 2" stream sim: --frame-size 10
expect_usage "fdma stream --buffers 1 exits 2" stream sim: --buffers 1
expect_fail "fdma stream on a device without streams exits 1" "stream" \
	stream sim:streams=0 --seconds 0.1

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
