#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The Python module (python/fdma, docs/python.md): its pytest suite
# (tests/python: transfers, streams, errors, the structures' layout against
# fdma.h, the ADC example) over $BUILD/libfdma.so.0, on the FDMA and the
# XDMA models. The interpreter: $PYTHON, then /usr/bin/python3, then the
# PATH's python3, the first with numpy and pytest; none: skipped. In a
# sanitizer build the library needs the sanitizer's runtime loaded first:
# it is preloaded into the interpreter (ASan without its leak check: CPython
# leaves memory to the exit on purpose; and with PYTHONMALLOC=malloc, below).
#
#   BUILD=build sh tests/cli/test_python.sh

. tests/cli/lib.sh

BUILD=${BUILD:-build}
LIB=$BUILD/libfdma.so.0

PY=
for p in ${PYTHON:-} /usr/bin/python3 python3; do
	if "$p" -c 'import numpy, pytest' >/dev/null 2>&1; then
		PY=$p
		break
	fi
done
if [ -z "$PY" ]; then
	skip "the Python module's tests: no python3 with numpy and pytest (apt-get install python3-numpy python3-pytest)"
	finish
fi
if [ ! -f "$LIB" ]; then
	bad "the Python module's tests" "no $LIB: build it first (make $BUILD/libfdma.so.0.1.0)"
	finish
fi
if ! host_elf "$LIB"; then
	skip "the Python module's tests: $LIB is a cross build's (the host's python3 cannot load it)"
	finish
fi
LIB=$(cd "$(dirname "$LIB")" && pwd)/libfdma.so.0

# The sanitizer runtime the library was linked with, to preload.
PRELOAD=
SANENV=
needed=$(readelf -d "$LIB" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(lib[at]san\)\.so.*/\1/p' | head -n 1)
if [ -n "$needed" ]; then
	PRELOAD=$(${CC:-cc} -print-file-name="$needed.so" 2>/dev/null)
	if [ ! -f "$PRELOAD" ]; then
		skip "the Python module's tests: $LIB needs $needed, whose runtime cc does not find to preload"
		finish
	fi
	# Python's objects from malloc, not its own arenas, so that ASan sees
	# their bounds: a structure libfdma writes past is reported at the call.
	[ "$needed" = libasan ] &&
		SANENV="PYTHONMALLOC=malloc ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
fi

# The suite, once: pytest exits 0 (passed, some maybe skipped), 1 (failed)
# or else (could not run them).
env FDMA_LIBRARY="$LIB" PYTHONPATH="python${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1 \
	${PRELOAD:+LD_PRELOAD=$PRELOAD} $SANENV \
	$TO "$PY" -m pytest -p no:cacheprovider -q -rs tests/python >"$T/pytest" 2>&1
rc=$?
sed 's/^/    /' "$T/pytest"
summary=$(tail -n 1 "$T/pytest" | sed 's/^=* *//; s/ *=*$//')
ver=$("$PY" -c 'import sys; print("python %d.%d" % sys.version_info[:2])')
what="pytest tests/python ($ver${needed:+, $needed preloaded})"
if [ "$rc" -eq 0 ] && echo "$summary" | grep -q '[1-9][0-9]* passed'; then
	ok "$what: $summary"
elif [ "$rc" -eq 0 ]; then
	skip "$what: every test skipped: $summary"
else
	bad "$what" "exit $rc: $summary"
fi
finish
