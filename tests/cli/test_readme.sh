#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The README's recipes on the simulated device: every ```sh block of
# README.md whose first line is "# on the simulated device" runs as it is
# printed, with `set -e`, in a folder of its own, with this build's fdma,
# GStreamer plugin and Python module first in the paths. A recipe that
# fails fails the check; one whose tools are missing here (gst-launch-1.0,
# a python3 with numpy) is skipped, saying which.

. tests/cli/lib.sh

BUILD=${BUILD:-build}
ROOT=$(pwd)
README=${README:-README.md}

# This build's tools under the names a user types.
mkdir -p "$T/bin"
ln -s "$(cd "$(dirname "$FDMA")" && pwd)/$(basename "$FDMA")" "$T/bin/fdma"
PY=
for p in ${PYTHON:-} /usr/bin/python3 python3; do
	if "$p" -c 'import numpy' >/dev/null 2>&1; then
		PY=$(command -v "$p")
		break
	fi
done
[ -z "$PY" ] || ln -s "$PY" "$T/bin/python3"

# The sanitizer builds' libraries need their runtime first in a program
# that is not built with it (gst-launch-1.0, python3); TSan cannot run
# beside GStreamer and GLib built without it (tests/cli/test_gst.sh).
PRELOAD=
SAN=
if nm -D "$BUILD/libfdma.so" 2>/dev/null | grep -q ' U __asan_init'; then
	PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)
	SAN=asan
elif nm -D "$BUILD/libfdma.so" 2>/dev/null | grep -q ' U __tsan_init'; then
	SAN=tsan
fi

# The recipes, one file each.
awk -v dir="$T" '
	/^```sh$/ { inb = 1; first = 1; next }
	/^```$/ && inb { if (keep) close(f); inb = 0; keep = 0; next }
	inb && first { first = 0; if ($0 == "# on the simulated device") { n++; f = dir "/recipe" n ".sh"; keep = 1 } }
	inb && keep { print > f }
' "$README"

n=0
for r in "$T"/recipe*.sh; do
	[ -f "$r" ] || continue
	n=$((n + 1))
	what="README recipe $n: $(sed -n 2p "$r" | cut -c 1-60)"
	if grep -q 'gst-launch-1.0' "$r"; then
		if [ ! -f "$BUILD/gst/libgstfdma.so" ] || ! command -v gst-launch-1.0 >/dev/null 2>&1; then
			skip "$what (no GStreamer plugin or gst-launch-1.0 here)"
			continue
		fi
		if [ "$SAN" = tsan ]; then
			skip "$what (GStreamer under ThreadSanitizer)"
			continue
		fi
	fi
	if grep -q 'python3' "$r"; then
		if [ -z "$PY" ]; then
			skip "$what (no python3 with numpy)"
			continue
		fi
		if ! host_elf "$BUILD/libfdma.so.0"; then
			skip "$what ($BUILD/libfdma.so.0 is a cross build's: the host's python3 cannot load it)"
			continue
		fi
		if [ "$SAN" = tsan ]; then
			skip "$what (Python under ThreadSanitizer)"
			continue
		fi
	fi
	mkdir -p "$T/run$n"
	ln -s "$ROOT/examples" "$T/run$n/examples"
	if (cd "$T/run$n" &&
		PATH=$T/bin:$PATH GST_PLUGIN_PATH=$ROOT/$BUILD/gst GST_REGISTRY=$T/registry.bin \
		LD_LIBRARY_PATH=$ROOT/$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		PYTHONPATH=$ROOT/python FDMA_LIBRARY=$ROOT/$BUILD/libfdma.so.0 \
		PYTHONDONTWRITEBYTECODE=1 LD_PRELOAD=$PRELOAD ASAN_OPTIONS=${PRELOAD:+detect_leaks=0} \
		$TO sh -e "$r") >"$T/out" 2>&1 </dev/null; then
		ok "$what"
	else
		bad "$what" "$(tail -n 3 "$T/out" | tr '\n' ' ' | cut -c 1-300)"
	fi
done
[ "$n" -gt 0 ] || bad "README.md has no recipe on the simulated device"

finish
