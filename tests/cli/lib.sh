# SPDX-License-Identifier: MIT
#
# tests/cli/lib.sh: what the command-line test scripts (tests/cli/test_*.sh)
# share. A script sources it (. tests/cli/lib.sh), runs its checks and ends
# with `finish`, which exits by the tests' one contract (tests/common/
# test_exit.h): 0 passed, 1 failed, 77 skipped (every check skipped:
# nothing here to test). FDMA names the tool under test (default
# build/fdma); $T is a private temporary folder, removed at exit.

set -u

FDMA=${FDMA:-build/fdma}
pass=0
fail=0
skipped=0
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

# skip WHAT: a check (or, before any, the whole script) that cannot run here.
skip() {
	skipped=$((skipped + 1))
	echo "skip $1"
}

# wait_caught PID: up to 10 s for PID to catch SIGINT (bit 2 of SigCgt in
# /proc/PID/status, the last hex digit's bit 1) and to have started the
# simulated device's threads (more than 2), which it does after it set its
# handler. Under qemu-user (the cross tests) SigCgt is qemu's own, set for
# every signal from the start, and a SIGINT before the program's handler
# would be lost: a background job ignores SIGINT until then. Without
# /proc, a second.
wait_caught() {
	_i=0
	while [ "$_i" -lt 100 ]; do
		_m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
		_t=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
		if [ -z "$_m" ]; then
			sleep 1
			return
		fi
		[ $((0x${_m#"${_m%?}"} & 2)) -ne 0 ] && [ "${_t:-0}" -gt 2 ] && return
		sleep 0.1
		_i=$((_i + 1))
	done
}

# host_elf FILE: FILE is an ELF of this machine's kind (class and machine
# as /bin/sh's), one the host can load: not so for a cross build's
# library, which the cross tests' scripts see through BUILD.
host_elf() {
	[ "$(od -An -tu1 -j4 -N1 "$1" 2>/dev/null)$(od -An -tu2 -j18 -N2 "$1" 2>/dev/null)" = \
	  "$(od -An -tu1 -j4 -N1 /bin/sh)$(od -An -tu2 -j18 -N2 /bin/sh)" ]
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

# check_frames FILE FRAME_SIZE COUNT DESC: FILE holds COUNT test generator
# frames of FRAME_SIZE bytes with consecutive sequence numbers from 0, all
# intact (header, CRC, every payload word).
check_frames() {
	if [ "$HAVE_PY" -eq 0 ]; then
		skip "$4 (no python3)"
		return
	fi
	if _why=$(python3 - "$1" "$2" "$3" <<'PY'
import struct, sys, zlib
path, size, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
if len(data) != size * count:
    print("%d bytes, want %d frames of %d" % (len(data), count, size)); sys.exit(1)
for k in range(count):
    f = data[k * size:(k + 1) * size]
    magic, seq, ln, crc, ts, rsvd = struct.unpack_from("<IIIIQQ", f, 0)
    if magic != 0x304d5246 or ln != size or rsvd != 0:
        print("frame %d: header magic %#x len %d rsvd %d" % (k, magic, ln, rsvd)); sys.exit(1)
    if seq != k:
        print("frame %d has sequence number %d" % (k, seq)); sys.exit(1)
    if zlib.crc32(f[32:]) & 0xffffffff != crc:
        print("frame %d: CRC mismatch" % k); sys.exit(1)
    n = (size - 32) // 8
    want = b"".join(struct.pack("<Q", seq << 32 | i) for i in range(n)) + bytes((size - 32) % 8)
    if f[32:] != want:
        print("frame %d: payload differs" % k); sys.exit(1)
PY
	); then
		ok "$4"
	else
		bad "$4" "$_why"
	fi
}

# json DESC EXPR: the last run exited 0 and its stdout, one JSON value per
# non-empty line as the list L, makes the Python expression EXPR true. The
# helpers has(o, keys) and num(o, key) are defined for EXPR.
json() {
	_d=$1
	if [ "$HAVE_PY" -eq 0 ]; then
		skip "$_d (no python3)"
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

# finish: print the summary; exit 1 if any check failed.
finish() {
	if [ "$skipped" -gt 0 ]; then
		echo "$pass passed, $fail failed, $skipped skipped"
	else
		echo "$pass passed, $fail failed"
	fi
	[ "$fail" -eq 0 ] || exit 1
	[ "$pass" -eq 0 ] && [ "$skipped" -gt 0 ] && exit 77
	exit 0
}
