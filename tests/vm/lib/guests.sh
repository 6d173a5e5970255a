# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# tests/vm/lib/guests.sh: the guest's static test programs
# (tests/vm/guest/*.c, tests/vm/smoke/*.c), as the VM runners build them.
# Sourced from the repository root, after tests/vm/lib/runner.sh (fail,
# show, $TMP).
#
#   vm_guest_setup CC ARCH LIBBUILD [CFLAGS...] -- [LIBFLAGS...]
#       how to build them: with CC, for ARCH, against LIBBUILD's
#       libfdma-internal.a (the caller has built it), with the extra
#       CFLAGS and LIBFLAGS (a sysroot's)
#   build_guests OUTDIR SRC...
#       each SRC's program built where stale and copied into OUTDIR
#
# Programs are built once per architecture into build/vm-guest/ARCH/ and
# copied from there: one is compiled again only when its source, a header
# or the library is newer than it, so the matrix's later rows (and the
# other runners) compile nothing. Compiles run side by side, one per CPU.

vm_guest_setup() {
	local cflags=() libs=()

	GCC=$1
	GCACHE=build/vm-guest/$2
	GLIB="$3/libfdma-internal.a"
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do cflags+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	libs=("$@")
	GCFLAGS=(-static -O2 -g -Wall -D_GNU_SOURCE -Iinclude -Iengine -Iengine/user -Ilib -Imodel "${cflags[@]}")
	GLIBS=("$GLIB" "${libs[@]}" -lz -lm -pthread)
	# liburing where the compiler (and its sysroot) links it statically:
	# fdma_uring skips without. (-print-file-name does not search -L.)
	if printf '#include <liburing.h>\nint main(void) { struct io_uring r; return io_uring_queue_init(1, &r, 0); }\n' |
	   $GCC -static "${cflags[@]}" -x c - "${libs[@]}" -luring -o "$TMP/uring-probe" >/dev/null 2>&1; then
		GCFLAGS+=(-DFDMA_HAVE_LIBURING)
		GLIBS=("$GLIB" "${libs[@]}" -luring -lz -lm -pthread)
	fi
	GDEPS=("$GLIB" include/*.h engine/*.h engine/user/*.h lib/*.h model/*.h
	       tests/vm/guest/*.h tests/vm/smoke/*.h)
}

guest_stale() { # BIN SRC: 0 when BIN must be built
	local d
	[ -e "$1" ] || return 0
	for d in "$2" "${GDEPS[@]}"; do
		[ "$d" -nt "$1" ] && return 0
	done
	return 1
}
build_guests() { # OUTDIR SRC...: build (where stale) and copy each SRC's program
	local out=$1 src name n=0 jobs
	shift
	jobs=$(nproc 2>/dev/null || echo 2)
	mkdir -p "$GCACHE"
	for src; do
		[ -e "$src" ] || continue
		name=$(basename "$src" .c)
		guest_stale "$GCACHE/$name" "$src" || continue
		rm -f "$GCACHE/$name"
		# -o to a temporary name: an interrupted compile leaves no program that looks new.
		{ $GCC "${GCFLAGS[@]}" "$src" "${GLIBS[@]}" -o "$GCACHE/$name.tmp" >"$TMP/cc-$name.log" 2>&1 &&
		  mv "$GCACHE/$name.tmp" "$GCACHE/$name"; } &
		n=$((n + 1))
		if [ "$n" -ge "$jobs" ]; then
			wait -n
			n=$((n - 1))
		fi
	done
	wait
	for src; do
		[ -e "$src" ] || continue
		name=$(basename "$src" .c)
		if [ -e "$GCACHE/$name" ]; then
			cp "$GCACHE/$name" "$out/"
		else
			fail "build-$name" "$GCC failed for $src"
			show "$TMP/cc-$name.log" 20
		fi
	done
}
