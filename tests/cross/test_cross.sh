#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/cross/test_cross.sh [ARCH...]: the cross builds (make test-cross).
# For each ARCH (default: arm64 armhf), with Debian's cross compiler
# (gcc-aarch64-linux-gnu, gcc-arm-linux-gnueabihf):
#   - make CROSS_COMPILE=TRIPLET- all tests: libfdma.a, libfdma.so, the fdma
#     command, fdma-modeld and the unit and sim test binaries, in
#     build-ARCH, against the target's zlib and cmocka in build/ARCH-sysroot
#     (tests/vm/arm64-sysroot.sh --arch ARCH --libs-only fetches them);
#   - the products are the target's ELF (machine, class), libfdma.so has
#     its soname, and both libraries export exactly the header's functions
#     (tests/install/check_symbols.sh with the cross nm);
#   - every unit and sim test binary, then the command-line tests
#     (tests/cli/test_*.sh) with the fdma command, run under qemu-user
#     (qemu-aarch64-static, qemu-arm-static from qemu-user-static) with -L
#     the sysroot, so the target's own libc, zlib and cmocka are loaded.
# All of them run: under qemu-user's TCG the suite takes seconds, not
# minutes (docs/install.md has the times).
#
# Then the kernel modules, fdma.ko and fdma_dmac.ko, as a user builds them
# for a board's kernel (make -C kernel KDIR=... ARCH=... CROSS_COMPILE=...,
# without FDMA_HARNESS: the VM harness's build with it is test-vm's), W=1,
# against Debian's kernel headers in the sysroots (the ARCH lines of
# build/ARCH-sysroot/.complete): arm64 6.1 and 6.12 (the arm64 VM guests'),
# armhf 6.1 armmp as Debian ships it and 6.12 armmp with a 32-bit
# dma_addr_t (below: "dma32"; tests/vm/arm64-sysroot.sh --arch armhf fetches
# both): 32-bit ARM on both kernels, with both widths of dma_addr_t, in
# two builds rather than four. Each in its own
# copy of the sources under build/kmod-cross/ (kernel/ stays clean; a copy
# is touched only where a file changed, so a second run recompiles only
# that), with make -j$(nproc); a build passes when make succeeds (modpost
# fails on an unresolved symbol: a 64-bit division on 32-bit ARM is
# __aeabi_uldivmod, which no kernel exports), nothing printed a warning,
# both modules are the target's ELF (class, machine), their vermagic
# names the headers' release, and their aliases (the device tables, which
# modpost reads with the target's structure sizes) are those of the other
# builds and name the FDMA function and the device tree's
# "fdma,dmaengine".
# dma32: Debian's armmp kernel has Xen, which makes dma_addr_t 64-bit; a
# Zynq-7000's own kernel (multi_v7_defconfig, Xilinx's
# xilinx_zynq_defconfig: no LPAE, no Xen) has a 32-bit dma_addr_t. The
# build/kmod-cross/ copy of the 6.12 armmp headers has CONFIG_XEN*,
# CONFIG_SWIOTLB_XEN and CONFIG_ARCH_DMA_ADDR_T_64BIT taken out of its
# configuration: the same compiler checks with a 32-bit dma_addr_t (a
# build check only: such a module would load on no kernel). Nor has it
# CONFIG_PAGE_POOL, which such a kernel lacks too (only drivers select it,
# and neither of the Zynq's Ethernet drivers does): fdma.ko then builds
# without its network interfaces (kernel/Kbuild).
#
# An architecture whose compiler, QEMU or sysroot is missing is skipped,
# with a line naming what to install; the exit status is then still 0.
# So is a module build whose compiler or headers are missing.
#
# qemu-user runs the process, not a machine: what needs the kernel's
# ioctls for /dev/fdma* cannot run there (qemu-user does not translate
# ioctl numbers it does not know: they fail with ENOSYS). XFAIL below names
# the cmocka tests that fail for that reason alone (none today: libfdma
# takes ENOSYS for "not an fdma.ko device" as it takes ENOTTY); a binary
# whose only failures are those counts as passed and says so.
#
# Environment: SUMMARY (default build/cross-summary) gets "passed failed"
# (checks: each build, each test binary, each script, each module build);
# JOBS (default 2) for make -j; KJOBS (default: nproc) for the modules'
# make -j (Kbuild runs outside make's job server).
set -u
cd "$(dirname "$0")/../.." || exit 1
SUMMARY=${SUMMARY:-build/cross-summary}
JOBS=${JOBS:-2}
KJOBS=${KJOBS:-$(nproc 2>/dev/null || echo 2)}
MAKE=${MAKE:-make}
[ $# -gt 0 ] || set -- arm64 armhf

# "TEST: reason" per entry.
XFAIL=()

T=$(mktemp -d "${TMPDIR:-/tmp}/fdma-cross.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM
pass=0 fail=0 skipped=0 kskipped=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -z "${2:-}" ] || [ ! -s "$2" ] || tail -n "${3:-20}" "$2" | sed 's/^/    /'; }
t00=$SECONDS

for arch in "$@"; do
	case $arch in
	arm64) triplet=aarch64-linux-gnu qemu=qemu-aarch64-static machine=AArch64 class=ELF64
	       pkgs="gcc-aarch64-linux-gnu libc6-dev-arm64-cross" ;;
	armhf) triplet=arm-linux-gnueabihf qemu=qemu-arm-static machine=ARM class=ELF32
	       pkgs="gcc-arm-linux-gnueabihf libc6-dev-armhf-cross" ;;
	*) echo "test_cross.sh: unknown architecture '$arch' (arm64, armhf)" >&2; exit 2 ;;
	esac
	B=build-$arch
	S=build/$arch-sysroot
	echo "== $arch ($triplet, $qemu, $B)"
	if ! command -v "$triplet-gcc" >/dev/null; then
		echo "SKIP $arch: no $triplet-gcc (apt-get install $pkgs)"; skipped=$((skipped + 1)); continue
	fi
	if ! command -v "$qemu" >/dev/null; then
		echo "SKIP $arch: no $qemu (apt-get install qemu-user-static)"; skipped=$((skipped + 1)); continue
	fi
	if [ ! -r "$S/usr/include/zlib.h" ] || [ ! -r "$S/usr/include/cmocka.h" ] ||
	   [ ! -e "$S/lib/$triplet/libc.so.6" ]; then
		echo "SKIP $arch: no zlib, cmocka or libc in $S (tests/vm/arm64-sysroot.sh --arch $arch --libs-only)"
		skipped=$((skipped + 1)); continue
	fi
	S=$(cd "$S" && pwd)
	t0=$SECONDS

	# ---- build ----
	if $MAKE -s -j"$JOBS" CROSS_COMPILE="$triplet-" BUILD="$B" SYSROOT="$S" all tests >"$T/make-$arch.log" 2>&1; then
		ok "$arch: make CROSS_COMPILE=$triplet- all tests ($((SECONDS - t0)) s)"
	else
		bad "$arch: make CROSS_COMPILE=$triplet- all tests" "$T/make-$arch.log" 30
		continue
	fi
	e=""
	for f in "$B/fdma" "$B/fdma-modeld" "$B/libfdma.so.0" "$B/tests/sim/test_transfer"; do
		h=$(readelf -h "$f" 2>/dev/null)
		echo "$h" | grep -q "Class:[[:space:]]*$class" && echo "$h" | grep -q "Machine:.*$machine" ||
			e="$e $f"
	done
	if [ -z "$e" ]; then ok "$arch: fdma, fdma-modeld, libfdma.so, the tests are $class $machine"
	else bad "$arch: not $class $machine:$e"; fi
	soname=$(readelf -d "$B/libfdma.so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
	if [ "$soname" = libfdma.so.0 ]; then ok "$arch: libfdma.so's soname $soname"
	else bad "$arch: libfdma.so's soname '$soname'"; fi
	if NM=$triplet-nm sh tests/install/check_symbols.sh include/fdma.h "$B/libfdma.a" "$B/libfdma.so" >"$T/sym-$arch" 2>&1; then
		ok "$arch: libfdma.a and libfdma.so export exactly the header's functions"
	else
		bad "$arch: exported symbols" "$T/sym-$arch"
	fi

	# ---- the test binaries under qemu-user ----
	t1=$SECONDS
	for t in "$B"/tests/unit/test_* "$B"/tests/sim/test_*; do
		case $t in *.d) continue ;; esac
		[ -x "$t" ] || continue
		log=$T/$(basename "$t")-$arch.log
		s=$SECONDS
		timeout 600 "$qemu" -L "$S" "$t" >"$log" 2>&1
		rc=$?
		name="$arch: $(basename "$(dirname "$t")")/$(basename "$t")"
		if [ $rc = 0 ]; then
			ok "$name ($(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s)\.$/\1 passed/p' "$log" | tail -n 1), $((SECONDS - s)) s)"
			continue
		fi
		# 77: every test skipped, each saying why (tests/common/test_exit.h).
		if [ $rc = 77 ]; then
			echo "skip $name: nothing here to test ($(grep -c '^\[  SKIPPED \] test' "$log") skipped)"
			continue
		fi
		# Failed: only the tests XFAIL names?
		failed=$(sed -n 's/^\[  FAILED  \] \(test_[A-Za-z0-9_]*\)$/\1/p' "$log" | sort -u)
		other=""
		why=""
		for f in $failed; do
			r=""
			for x in "${XFAIL[@]}"; do
				[ "${x%%:*}" = "$f" ] && r=${x#*: }
			done
			if [ -n "$r" ]; then why="$why; $f: $r"; else other="$other $f"; fi
		done
		if [ -n "$failed" ] && [ -z "$other" ] && grep -q '^\[==========\] .* test(s) run\.' "$log"; then
			ok "$name (XFAIL under qemu-user${why}, $((SECONDS - s)) s)"
		else
			bad "$name: exit $rc${other:+, failed:$other}" "$log" 30
		fi
	done
	# The command-line tests, with the fdma command under qemu-user.
	printf '#!/bin/sh\nexec %s -L %s %s "$@"\n' "$qemu" "$S" "$PWD/$B/fdma" >"$T/fdma-$arch"
	chmod +x "$T/fdma-$arch"
	for sh in tests/cli/test_*.sh; do
		s=$SECONDS
		FDMA=$T/fdma-$arch BUILD=$B sh "$sh" >"$T/cli-$arch.log" 2>&1
		rc=$?
		if [ $rc = 0 ]; then
			ok "$arch: $sh ($(tail -n 1 "$T/cli-$arch.log"), $((SECONDS - s)) s)"
		elif [ $rc = 77 ]; then
			echo "skip $arch: $sh: $(grep -m1 '^skip ' "$T/cli-$arch.log")"
		else
			bad "$arch: $sh" "$T/cli-$arch.log"
		fi
	done
	echo "$arch: tests under qemu-user $((SECONDS - t1)) s, build and tests $((SECONDS - t0)) s"
done

# ---- the kernel modules ----
KB=build/kmod-cross

# kmod_copy DIR: DIR/kernel, DIR/engine and DIR/include/fdma_ioctl.h a copy
# of what the modules are built from (as tests/vm/lib/kbuild.sh copies
# them); a file is written only where it differs, and one gone from the
# tree goes from the copy (a stale header there would shadow a moved one).
kmod_copy() {
	local d=$1 f
	for f in "$d"/kernel/*.[ch] "$d"/kernel/dmac/*.[ch] "$d"/kernel/harness/*.[ch] \
		"$d"/kernel/include/*.h "$d"/engine/*.[ch]; do
		[ -f "$f" ] && [ ! -L "$f" ] || continue
		case $f in *.mod.c) continue ;; esac
		[ -e "${f#"$d"/}" ] || rm -f "$f"
	done
	for f in kernel/Kbuild kernel/Makefile kernel/*.[ch] kernel/include/*.h \
		kernel/dmac/Kbuild kernel/dmac/*.[ch] kernel/harness/*.[ch] \
		engine/*.[ch] include/fdma_ioctl.h; do
		[ -L "$f" ] && continue		# the engine links of an in-place build
		case $f in *.mod.c) continue ;; esac
		cmp -s "$f" "$d/$f" || { mkdir -p "$(dirname "$d/$f")" && cp "$f" "$d/$f"; } || return 1
	done
}

# kmod_dma32 SRC DST: DST a copy of the armmp headers SRC whose
# configuration has no Xen, a 32-bit dma_addr_t and no page_pool (the top). Made again
# only when SRC changed, so that Kbuild's dependencies on the
# configuration keep the objects of a second run.
kmod_dma32() {
	local src=$1 dst=$2 id l f
	id="no-xen,no-page-pool $(stat -c %Y "$src/include/generated/autoconf.h") $src"
	[ -f "$dst/.fdma-from" ] && [ "$(cat "$dst/.fdma-from")" = "$id" ] && return 0
	rm -rf "$dst" && mkdir -p "$(dirname "$dst")" && cp -a "$src" "$dst" || return 1
	# scripts, tools: relative links into the sysroot's linux-kbuild.
	for l in scripts tools; do
		[ ! -L "$src/$l" ] || ln -sfn "$(readlink -f "$src/$l")" "$dst/$l" || return 1
	done
	sed -i -E '/^#define CONFIG_(ARCH_DMA_ADDR_T_64BIT|XEN|XEN_[A-Z0-9_]+|SWIOTLB_XEN|PAGE_POOL|PAGE_POOL_STATS) /d' \
		"$dst/include/generated/autoconf.h" || return 1
	for f in "$dst/include/config/auto.conf" "$dst/.config"; do
		sed -i -E '/^CONFIG_(ARCH_DMA_ADDR_T_64BIT|XEN|XEN_[A-Z0-9_]+|SWIOTLB_XEN|PAGE_POOL|PAGE_POOL_STATS)=/d' "$f" ||
			return 1
	done
	! grep -qE 'CONFIG_(ARCH_DMA_ADDR_T_64BIT|PHYS_ADDR_T_64BIT|XEN|PAGE_POOL) ' "$dst/include/generated/autoconf.h" ||
		return 1
	echo "$id" >"$dst/.fdma-from"
}

# modfield FILE KEY: the values of KEY in the module FILE's .modinfo, one a
# line (modinfo -F KEY, without /usr/sbin in PATH, for any target).
modfield() {
	readelf -p .modinfo "$1" 2>/dev/null | sed -n "s/^ *\[ *[0-9a-f]*\] *$2=//p"
}

# kmod_build ARCH KARCH TRIPLET CLASS MACHINE HEADERS NAME: fdma.ko and
# fdma_dmac.ko for the kernel headers HEADERS, in $KB/NAME; checked as the
# top says.
kmod_build() {
	local arch=$1 karch=$2 triplet=$3 class=$4 machine=$5 hdr=$6 name=$7
	local d=$KB/$name log=$T/kmod-$name.log rel e f h v s=$SECONDS
	# (Debian's include/config/kernel.release holds the upstream version.)
	rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$hdr/include/generated/utsrelease.h" 2>/dev/null)
	if ! kmod_copy "$d"; then
		bad "$arch: modules for $name: cannot copy the sources to $d"; return
	fi
	rm -f "$d"/kernel/*.ko "$d"/kernel/dmac/*.ko
	# A make of its own (not the jobserver of a make test -j above: with
	# -j given, make warns that it resets it, and a warning fails the build).
	if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$d/kernel" -j"$KJOBS" \
		KDIR="$(cd "$hdr" && pwd)" ARCH="$karch" CROSS_COMPILE="$triplet-" W=1 >"$log" 2>&1; then
		bad "$arch: make -C kernel KDIR=<$name headers> ARCH=$karch CROSS_COMPILE=$triplet- W=1" "$log" 30
		return
	fi
	e=""
	if grep -qiE '(^|: )warning:' "$log"; then
		e="$e; warnings: $(grep -ciE '(^|: )warning:' "$log")"
		grep -iE -B1 -A3 '(^|: )warning:' "$log" >"$log.warn"
		log=$log.warn
	fi
	for f in "$d/kernel/fdma.ko" "$d/kernel/dmac/fdma_dmac.ko"; do
		h=$(readelf -h "$f" 2>/dev/null)
		echo "$h" | grep -q "Class:[[:space:]]*$class" && echo "$h" | grep -q "Machine:.*$machine" ||
			e="$e; ${f##*/} is not $class $machine"
		v=$(modfield "$f" vermagic)
		[ -n "$rel" ] && [ "${v%% *}" = "$rel" ] || e="$e; ${f##*/}'s vermagic '$v' (the headers: '$rel')"
		modfield "$f" alias >"$T/alias-$name-${f##*/}"
		if [ -s "$T/alias-ref-${f##*/}" ]; then
			cmp -s "$T/alias-ref-${f##*/}" "$T/alias-$name-${f##*/}" ||
				e="$e; ${f##*/}'s aliases differ from $(cat "$T/alias-ref-${f##*/}.name")'s"
		fi
	done
	grep -qx 'pci:v000010EEd0000FD3Asv\*sd\*bc\*sc\*i\*' "$T/alias-$name-fdma.ko" ||
		e="$e; fdma.ko lacks the alias of the FDMA function (10ee:fd3a)"
	grep -qx 'of:N\*T\*Cfdma,dmaengine' "$T/alias-$name-fdma_dmac.ko" ||
		e="$e; fdma_dmac.ko lacks the alias of \"fdma,dmaengine\""
	# The network interfaces are built exactly where the kernel has page_pool.
	h=absent
	readelf -s "$d/kernel/fdma.ko" 2>/dev/null | grep -q ' fdma_net_register$' && h=present
	v=present
	grep -q '^#define CONFIG_PAGE_POOL 1' "$hdr/include/generated/autoconf.h" || v=absent
	[ "$h" = "$v" ] || e="$e; the network interfaces are $h in fdma.ko, page_pool $v in the kernel"
	if [ -n "$e" ]; then
		bad "$arch: modules for $name:${e#;}" "$log" 30
		return
	fi
	for f in fdma.ko fdma_dmac.ko; do
		[ -s "$T/alias-ref-$f" ] && continue
		cp "$T/alias-$name-$f" "$T/alias-ref-$f"
		echo "$name" >"$T/alias-ref-$f.name"
	done
	ok "$arch: fdma.ko, fdma_dmac.ko for $name (W=1, no warning; $class $machine, vermagic $rel; network interfaces $h; $((SECONDS - s)) s)"
}

tk=$SECONDS
for arch in "$@"; do
	case $arch in
	arm64) triplet=aarch64-linux-gnu karch=arm64 machine=AArch64 class=ELF64 pkgs=gcc-aarch64-linux-gnu
	       fetch="tests/vm/arm64-sysroot.sh" ;;
	armhf) triplet=arm-linux-gnueabihf karch=arm machine=ARM class=ELF32 pkgs=gcc-arm-linux-gnueabihf
	       fetch="tests/vm/arm64-sysroot.sh --arch armhf" ;;
	esac
	S=build/$arch-sysroot
	echo "== $arch: fdma.ko and fdma_dmac.ko (ARCH=$karch CROSS_COMPILE=$triplet-, $KB)"
	if ! command -v "$triplet-gcc" >/dev/null; then
		echo "SKIP $arch modules: no $triplet-gcc (apt-get install $pkgs)"; kskipped=$((kskipped + 1)); continue
	fi
	# The armhf headers' modpost is Debian's armhf one under qemu-user.
	if [ "$arch" = armhf ] && ! command -v qemu-arm-static >/dev/null; then
		echo "SKIP $arch modules: no qemu-arm-static for the headers' modpost (apt-get install qemu-user-static)"
		kskipped=$((kskipped + 1)); continue
	fi
	kernels=$(cut -d' ' -f1 "$S/.complete" 2>/dev/null)
	n=0
	for rel in $kernels; do
		hdr=$S/usr/src/linux-headers-$rel
		[ -r "$hdr/Makefile" ] || continue
		n=$((n + 1))
		case $arch-$rel in
		armhf-6.1.*|arm64-*)
			kmod_build "$arch" "$karch" "$triplet" "$class" "$machine" "$hdr" "$rel" ;;
		armhf-*)
			if kmod_dma32 "$hdr" "$KB/headers-$rel-dma32"; then
				kmod_build "$arch" "$karch" "$triplet" "$class" "$machine" \
					"$KB/headers-$rel-dma32" "$rel-dma32"
			else
				bad "$arch: the headers of $rel with a 32-bit dma_addr_t ($KB/headers-$rel-dma32)"
			fi ;;
		esac
	done
	if [ $n = 0 ]; then
		echo "SKIP $arch modules: no kernel headers in $S ($fetch)"; kskipped=$((kskipped + 1))
	fi
done
echo "modules: $((SECONDS - tk)) s"

mkdir -p "$(dirname "$SUMMARY")"
echo "$pass $fail" >"$SUMMARY"
echo "cross: $pass passed, $fail failed, $skipped architectures skipped, $kskipped architectures' modules skipped ($((SECONDS - t00)) s)"
[ $fail -eq 0 ]
