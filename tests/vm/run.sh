#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/run.sh: the FDMA engine behind a QEMU guest (docs/vm-harness.md).
#
# fdma-modeld is "the FPGA" (an ivshmem-doorbell peer, DMA straight into the
# guest's RAM file); the guest boots Debian's kernel with a busybox initramfs
# whose /init (tests/vm/init.sh) runs the driverless smoke tests
# (tests/vm/smoke/*.c), then tests/vm/guest/run-guest.sh (the kernel
# driver's tests), then prints its kernel log. Each test prints
# "VMTEST PASS <name>" or "VMTEST FAIL <name>: <why>" on the serial console.
#
# x86_64 guests (q35) boot the host's own kernels; arm64 guests (virt,
# GICv3, Cortex-A57) boot Debian's arm64 kernels from a sysroot that
# tests/vm/arm64-sysroot.sh fetches, with the driver and the guest programs
# cross-built for them.
#
# Exit: 0 all passed, 1 a failure, 2 a usage error, 77 skipped (no QEMU,
# busybox, cross compiler, sysroot or kernel).
set -u

usage() {
	cat <<'EOF'
usage: tests/vm/run.sh [--arch x86_64|arm64] [--kernel VERSION]... [--noncoherent]
                       [--append ARGS] [--no-asan] [--sysroot DIR] [--keep] [--timeout S]
                       [--opts OPTIONS] [--debug-kernel] [--coverage]

  --arch ARCH       x86_64 (q35, the host's kernels; default) or arm64 (virt, the
                    kernels of the arm64 sysroot, everything cross-built)
  --kernel VERSION  boot that kernel (e.g. 6.1.0-57-amd64), or every kernel of a
                    series (6.1, 6.12); repeatable (default: every 6.1 and 6.12
                    kernel of the architecture, in turn)
  --noncoherent     arm64: boot with a device tree whose PCIe host is not
                    dma-coherent, so the driver's streaming DMA syncs run
                    (every arm64 guest's device tree also names the FDMA
                    function, slot 0x10, and has an fdma_dmac.ko video group:
                    tests/vm/guest/v4l2-dmac.sh dt)
  --append ARGS     more guest kernel arguments, e.g. "swiotlb=force" (repeatable)
  --no-asan         skip the ASan+UBSan copy of the end-to-end tests
  --sysroot DIR     the arm64 sysroot (default build/arm64-sysroot)
  --keep            keep the temp dir (console logs, initramfs, model log) and say where
  --timeout S       wall-clock limit per VM, seconds (default 300; arm64 600)
  --debug-kernel    x86_64: boot the debug kernel (tests/vm/debug-kernel.sh builds it
                    once and caches it: KASAN, lockdep, DMA-API debug, kmemleak,
                    UBSAN, fault injection, KCOV); its reports fail the run
  --coverage        --debug-kernel, with fdma.ko and fdma_dmac.ko built for coverage
                    (FDMA_COV=y): the table of the points reached per source file,
                    and the coverage-guided fuzzer (ioc_fuzz_cov) for 60 s
  --opts OPTIONS    fdma-modeld --opts (sim: URI options), e.g. "channels=2,fault=desc@3";
                    memcpy=2 is added unless the options set memcpy=;
                    the guest sees them as $fdmavm_opts
EOF
}

ROOT=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
cd "$ROOT" || exit 1

# usage_error MESSAGE: say it and exit 2.
usage_error() { echo "run.sh: $*" >&2; exit 2; }

ARCH=x86_64
KERNELS_ARG=()
KEEP=0
TIMEOUT=""
OPTS=""
APPEND=""
NONCOHERENT=0
ASAN=1
DEBUGK=0
COV=0
SYSROOT=build/arm64-sysroot
while [ $# -gt 0 ]; do
	case $1 in
	--arch) [ $# -ge 2 ] || usage_error "--arch needs x86_64 or arm64"
		ARCH=$2; shift 2 ;;
	--arch=*) ARCH=${1#*=}; shift ;;
	--kernel) [ $# -ge 2 ] || usage_error "--kernel needs a VERSION"
		KERNELS_ARG+=("$2"); shift 2 ;;
	--kernel=*) KERNELS_ARG+=("${1#*=}"); shift ;;
	--noncoherent) NONCOHERENT=1; shift ;;
	--append) [ $# -ge 2 ] || usage_error "--append needs kernel arguments"
		APPEND="${APPEND:+$APPEND }$2"; shift 2 ;;
	--append=*) APPEND="${APPEND:+$APPEND }${1#*=}"; shift ;;
	--no-asan) ASAN=0; shift ;;
	--debug-kernel) DEBUGK=1; shift ;;
	--coverage) COV=1; DEBUGK=1; shift ;;
	--sysroot) [ $# -ge 2 ] || usage_error "--sysroot needs a directory"
		SYSROOT=$2; shift 2 ;;
	--sysroot=*) SYSROOT=${1#*=}; shift ;;
	--keep) KEEP=1; shift ;;
	--timeout) [ $# -ge 2 ] || usage_error "--timeout needs seconds"
		TIMEOUT=$2; shift 2 ;;
	--timeout=*) TIMEOUT=${1#*=}; shift ;;
	--opts) [ $# -ge 2 ] || usage_error "--opts needs a value"
		OPTS=$2; shift 2 ;;
	--opts=*) OPTS=${1#*=}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
case $ARCH in
x86_64|arm64) ;;
amd64) ARCH=x86_64 ;;
aarch64) ARCH=arm64 ;;
*) usage_error "bad --arch '$ARCH': expected x86_64 or arm64" ;;
esac
TIMEOUT_SET=$TIMEOUT
[ -n "$TIMEOUT" ] || { [ "$ARCH" = arm64 ] && TIMEOUT=600 || TIMEOUT=300; }
case $TIMEOUT in
''|*[!0-9]*|0) usage_error "bad --timeout '$TIMEOUT': expected seconds > 0" ;;
esac
case $OPTS in
*[[:space:]]*) usage_error "--opts must not contain spaces" ;;
esac
case $APPEND in
*[\"\'\\]*|*$'\n'*) usage_error "--append: no quotes, backslashes or newlines, please" ;;
esac
[ $NONCOHERENT = 0 ] || [ "$ARCH" = arm64 ] ||
	usage_error "--noncoherent is for --arch arm64 (a q35 guest's PCI DMA is coherent)"
[ $DEBUGK = 0 ] || [ "$ARCH" = x86_64 ] || usage_error "--debug-kernel is for --arch x86_64"
[ $DEBUGK = 0 ] || [ ${#KERNELS_ARG[@]} -eq 0 ] || usage_error "--debug-kernel boots its own kernel: no --kernel"

# The run's variant, for the result tags "(KERNEL VARIANT...)": the device
# tree, the extra kernel arguments (swiotlb=...force... reads "swiotlb"),
# the model's options.
VARIANT=""
SWIOTLB=0
[ $DEBUGK = 1 ] && VARIANT="$VARIANT debug"
[ $COV = 1 ] && VARIANT="$VARIANT coverage"
[ $NONCOHERENT = 1 ] && VARIANT="$VARIANT noncoherent"
for w in $APPEND; do
	case $w in
	swiotlb=*force*) SWIOTLB=1; VARIANT="$VARIANT swiotlb" ;;
	*) VARIANT="$VARIANT $w" ;;
	esac
done
[ -n "$OPTS" ] && VARIANT="$VARIANT $OPTS"
# Two memory-to-memory channels after the others (engine 1.2), unless the
# options say how many: the copy tests need them, the rest ignore them.
case ,$OPTS, in
*,memcpy=*) ;;
*) OPTS=${OPTS:+$OPTS,}memcpy=2 ;;
esac

for t in cpio gzip timeout cc make modinfo depmod; do
	command -v $t >/dev/null || { echo "SKIP: $t not found"; exit 77; }
done

# ---- the architecture ------------------------------------------------------------
# KBOOT: where vmlinuz-VERSION is; MODROOT: the root whose lib/modules/VERSION
# holds the kernel's modules ("" for the host); kdir VERSION: the headers.
case $ARCH in
x86_64)
	QEMU=$(command -v qemu-system-x86_64) ||
		{ echo "SKIP: qemu-system-x86_64 not found (apt-get install qemu-system-x86)"; exit 77; }
	BUSYBOX=""
	for b in /bin/busybox /usr/bin/busybox $(command -v busybox 2>/dev/null); do
		if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then BUSYBOX=$b; break; fi
	done
	[ -n "$BUSYBOX" ] || { echo "SKIP: no static busybox (apt-get install busybox-static)"; exit 77; }
	APPLETS=$("$BUSYBOX" --list-full)
	GCC=cc
	KBOOT=/boot
	MODROOT=""
	GUEST_MEM=512M	# the initramfs (ASan e2e copies, v4l-utils, vivid and their libraries) unpacks in RAM
	RAM_BASE=""
	CONSOLE=ttyS0
	EDU_DEV=edu
	EDU_BITS=28		# QEMU's default dma_mask
	# shellcheck disable=SC2054  # commas inside QEMU option values
	QMACHINE=(-machine q35,memory-backend=mem)
	KMAKE=()
	NV_P2P=dgpu		# the stand-in of NVIDIA's P2P API: a discrete GPU's
	XMAKE=()		# make arguments for the e2e binaries
	XCFLAGS=()		# and for the static guest programs
	XLIBS=()
	ABUILD=build		# where libfdma-internal.a for the guest programs is
	kdir() { echo "/lib/modules/$1/build"; }
	KPKG="linux-image-amd64 linux-headers-amd64"
	;;
arm64)
	QEMU=$(command -v qemu-system-aarch64) ||
		{ echo "SKIP: qemu-system-aarch64 not found (apt-get install qemu-system-arm)"; exit 77; }
	for t in aarch64-linux-gnu-gcc aarch64-linux-gnu-ar aarch64-linux-gnu-readelf; do
		command -v $t >/dev/null ||
			{ echo "SKIP: $t not found (apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross)"; exit 77; }
	done
	command -v fdtput >/dev/null ||
		{ echo "SKIP: fdtput not found (apt-get install device-tree-compiler)"; exit 77; }
	if [ ! -s "$SYSROOT/.complete" ] || [ ! -x "$SYSROOT/bin/busybox" ]; then
		echo "SKIP: no arm64 sysroot in $SYSROOT (tests/vm/arm64-sysroot.sh $SYSROOT fetches it)"
		exit 77
	fi
	SYSROOT=$(cd "$SYSROOT" && pwd) || exit 1
	BUSYBOX=$SYSROOT/bin/busybox
	# The arm64 busybox cannot run here: the host's (same Debian release)
	# lists the applets.
	HOSTBB=""
	for b in /bin/busybox /usr/bin/busybox $(command -v busybox 2>/dev/null); do
		[ -x "$b" ] && HOSTBB=$b && break
	done
	[ -n "$HOSTBB" ] || { echo "SKIP: no host busybox to list the applets (apt-get install busybox-static)"; exit 77; }
	APPLETS=$("$HOSTBB" --list-full)
	GCC=aarch64-linux-gnu-gcc
	KBOOT=$SYSROOT/boot
	MODROOT=$SYSROOT
	GUEST_MEM=512M
	RAM_BASE=0x40000000	# virt's RAM, one range
	CONSOLE=ttyAMA0
	EDU_DEV=edu,dma_mask=0xffffffff	# the default 28 bits is below virt's RAM
	EDU_BITS=32
	# shellcheck disable=SC2054
	QMACHINE=(-machine virt,gic-version=3,memory-backend=mem -cpu cortex-a57)
	KMAKE=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- W=1)
	NV_P2P=jetson		# Jetson's (arm64)
	LIBDIRS=("$SYSROOT/lib/aarch64-linux-gnu" "$SYSROOT/usr/lib/aarch64-linux-gnu" /usr/aarch64-linux-gnu/lib)
	XMAKE=(CC=aarch64-linux-gnu-gcc AR=aarch64-linux-gnu-ar LD=aarch64-linux-gnu-ld
	       OBJCOPY=aarch64-linux-gnu-objcopy "CPPFLAGS=-I$SYSROOT/usr/include"
	       "LDFLAGS=-L$SYSROOT/usr/lib/aarch64-linux-gnu -L$SYSROOT/lib/aarch64-linux-gnu")
	XCFLAGS=("-I$SYSROOT/usr/include")
	XLIBS=("-L$SYSROOT/usr/lib/aarch64-linux-gnu" "-L$SYSROOT/lib/aarch64-linux-gnu")
	ABUILD=build-a64
	kdir() { echo "$SYSROOT/usr/src/linux-headers-$1"; }
	KPKG="tests/vm/arm64-sysroot.sh"
	;;
esac

# The debug kernel (x86_64): built once and cached outside the clone
# (tests/vm/debug-kernel.sh), booted instead of Debian's. Everything under
# it runs slower (KASAN, lockdep, kmemleak, KCOV on every function), and
# KASAN's shadow and kmemleak's records take memory.
if [ $DEBUGK = 1 ]; then
	DK=$(tests/vm/debug-kernel.sh 2>"${TMPDIR:-/tmp}/fdma-debug-kernel.$$.log")
	rc=$?
	if [ $rc = 77 ]; then
		grep '^SKIP' "${TMPDIR:-/tmp}/fdma-debug-kernel.$$.log" | head -1
		rm -f "${TMPDIR:-/tmp}/fdma-debug-kernel.$$.log"
		exit 77
	fi
	sed 's/^/   /' "${TMPDIR:-/tmp}/fdma-debug-kernel.$$.log"
	rm -f "${TMPDIR:-/tmp}/fdma-debug-kernel.$$.log"
	if [ $rc != 0 ] || [ ! -s "$DK/release" ]; then
		echo "FAIL debug-kernel: tests/vm/debug-kernel.sh failed (exit status $rc)"
		echo "vm: 0 passed, 1 failed"
		exit 1
	fi
	KBOOT=$DK/boot
	MODROOT=$DK
	DKBUILD=$DK/build
	kdir() { echo "$DKBUILD"; }
	KERNELS_ARG=("$(cat "$DK/release")")
	GUEST_MEM=768M
	[ -n "$TIMEOUT_SET" ] || TIMEOUT=1500
fi

HAVE_KMOD=0
[ -f kernel/Makefile ] && HAVE_KMOD=1
# A kernel is usable with its image, and headers when there is a module to build.
kernel_ok() {
	[ -r "$KBOOT/vmlinuz-$1" ] && { [ $HAVE_KMOD = 0 ] || [ -d "$(kdir "$1")" ]; }
}
# find_kernels GLOB: the usable kernels whose version matches GLOB, oldest first.
find_kernels() {
	local f v
	# shellcheck disable=SC2086  # $1 is a glob
	for f in $(printf '%s\n' "$KBOOT"/vmlinuz-$1 | sort -V); do
		[ -e "$f" ] || continue
		v=${f#"$KBOOT"/vmlinuz-}
		kernel_ok "$v" && echo "$v"
	done
}
KERNELS=()
if [ ${#KERNELS_ARG[@]} -eq 0 ]; then
	while read -r v; do KERNELS+=("$v"); done < <(find_kernels '6.1.*'; find_kernels '6.12.*')
	[ ${#KERNELS[@]} -gt 0 ] || { echo "SKIP: no $ARCH 6.1 or 6.12 kernel with headers in $KBOOT ($KPKG)"; exit 77; }
else
	for k in "${KERNELS_ARG[@]}"; do
		if [ -e "$KBOOT/vmlinuz-$k" ]; then
			kernel_ok "$k" || { echo "SKIP: kernel $k has no headers (need $(kdir "$k"))"; exit 77; }
			KERNELS+=("$k")
		elif [[ $k =~ ^[0-9]+\.[0-9]+$ ]] && [ -n "$(find_kernels "$k.*")" ]; then
			while read -r v; do KERNELS+=("$v"); done < <(find_kernels "$k.*")
		else
			echo "SKIP: $ARCH kernel $k not installed (need $KBOOT/vmlinuz-$k$([ $HAVE_KMOD = 1 ] && echo " and $(kdir "$k")"), or a series such as 6.12; $KPKG)"
			exit 77
		fi
	done
fi

# shellcheck source=tests/vm/lib/runner.sh
. tests/vm/lib/runner.sh
vm_runner_start vm
# fail_context CONSOLE RESULTLINE: what the guest printed between the result
# before RESULTLINE and it (outside the kernel-log section), indented: the
# lines that look like errors (cmocka's ERROR/LINE/FAILED, sanitizer
# reports, kernel warnings), at most 20, or else the last 10.
fail_context() {
	awk -v want="$2" '
	/^VMTEST DMESG BEGIN/ { d = 1; next }
	/^VMTEST DMESG END/ { d = 0; next }
	d { next }
	{ i = index($0, "VMTEST ") }
	i && substr($0, i) == want {
		for (k = 0; k < n; k++)
			if (buf[k] ~ /ERROR|LINE  |FAILED|[Ee]rror|[Ff]ail|BUG|WARNING|Oops|runtime error/ && m++ < 20)
				print buf[k]
		if (!m)
			for (k = (n > 10 ? n - 10 : 0); k < n; k++) print buf[k]
		exit
	}
	i && substr($0, i) ~ /^VMTEST (PASS|FAIL|SKIP|BEGIN)/ { n = 0; next }
	{ buf[n++] = $0 }' "$1" | sed 's/^/    | /'
}

echo "== $ARCH${VARIANT}: kernels ${KERNELS[*]}${APPEND:+, kernel arguments \"$APPEND\"}$([ $ASAN = 0 ] && echo ", no ASan e2e")"

# shellcheck source=tests/vm/lib/kbuild.sh
. tests/vm/lib/kbuild.sh
vm_build_lock

# ---- host side: the model ------------------------------------------------------
MODELD=build/fdma-modeld
if ! make -s build/libfdma-internal.a >"$TMP/make.log" 2>&1 ||
   { ! make -s "$MODELD" >>"$TMP/make.log" 2>&1 &&
     ! cc -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	  -O2 -g -D_GNU_SOURCE -Iengine -Iengine/user -Imodel -Irtl/sim -Imodel/ivshmem model/modeld/*.c \
	  model/ivshmem/*.c build/libfdma-internal.a \
	  -lz -lm -pthread -o "$MODELD" >>"$TMP/make.log" 2>&1; }; then
	fail build-modeld "cannot build $MODELD"
	show "$TMP/make.log"
	echo "vm: $NPASS passed, $NFAIL failed"
	exit 1
fi

# The daemon on its own: this program plays QEMU and the guest (no VM needed).
if cc -std=c11 -Wall -Wextra -Werror -O2 -g -D_GNU_SOURCE -Iinclude -Iengine -Iengine/user -Ilib -Imodel \
	tests/vm/host/modeld_selftest.c build/libfdma-internal.a -lz -lm -pthread \
	-o "$TMP/modeld_selftest" >"$TMP/selftest.log" 2>&1 &&
   timeout 60 "$TMP/modeld_selftest" "$MODELD" >>"$TMP/selftest.log" 2>&1; then
	pass modeld_selftest
else
	fail modeld_selftest "fdma-modeld without QEMU (log below)"
	show "$TMP/selftest.log"
fi

# ---- guest programs (static, kernel-independent) ---------------------------------
GBIN=$TMP/guest-bin
mkdir -p "$GBIN/tests" "$GBIN/smoke" "$GBIN/libs"
# The library the guest programs link, built for the guest's architecture.
if [ "$ABUILD" != build ] &&
   ! make -s BUILD="$ABUILD" "${XMAKE[@]}" "$ABUILD/libfdma-internal.a" >"$TMP/make-$ABUILD.log" 2>&1; then
	fail "build-libfdma-$ARCH" "make BUILD=$ABUILD ${XMAKE[*]} failed"
	show "$TMP/make-$ABUILD.log" 20
fi
# shellcheck source=tests/vm/lib/guests.sh
. tests/vm/lib/guests.sh
vm_guest_setup "$GCC" "$ARCH" "$ABUILD" "${XCFLAGS[@]}" -- "${XLIBS[@]}"
build_guests "$GBIN/smoke" tests/vm/smoke/*.c
build_guests "$GBIN/tests" tests/vm/guest/*.c
for sh in tests/vm/guest/*.sh; do
	[ -e "$sh" ] && install -m 755 "$sh" "$GBIN/tests/"
done

# The foundation's end-to-end tests and the fdma command, built for the
# guest's architecture (dynamically linked: cmocka has no static library),
# with the shared libraries they need; in the guest they run against the
# driver through libfdma's kdev: backend.
E2E=(build/fdma build/tests/sim/test_transfer build/tests/sim/test_wait
     build/tests/sim/test_coalesce build/tests/sim/test_stream build/tests/sim/test_errors
     build/tests/sim/test_errmsg build/tests/sim/test_copy build/tests/sim/test_dmabuf
     build/tests/sim/test_export build/tests/sim/test_uring build/examples/fdma-record)

# copy_libs_host, copy_progs, find_lib, copy_libs_arm64 ELF DEST:
# tests/vm/lib/guest-libs.sh (LIBDIRS).
# shellcheck source=tests/vm/lib/guest-libs.sh
. tests/vm/lib/guest-libs.sh
# shellcheck source=tests/vm/lib/moddeps.sh
. tests/vm/lib/moddeps.sh
# e2e_copy BUILDDIR DEST MAKEARGS...: build the e2e binaries in BUILDDIR, copy
# them and every shared library they load.
e2e_copy() {
	local bdir=$1 dest=$2 b targets=()
	shift 2
	for b in "${E2E[@]}"; do targets+=("$bdir/${b#build/}"); done
	if ! make -s BUILD="$bdir" "$@" "${targets[@]}" >"$TMP/e2e-build-$bdir.log" 2>&1; then
		fail "build-e2e-$bdir" "make BUILD=$bdir $* failed"
		show "$TMP/e2e-build-$bdir.log" 20
		return
	fi
	mkdir -p "$GBIN/$dest"
	for b in "${targets[@]}"; do
		cp "$b" "$GBIN/$dest/"
		if [ "$ARCH" = arm64 ]; then
			copy_libs_arm64 "$b" "$GBIN/libs" >"$TMP/libs.log" 2>&1 ||
				{ fail "build-e2e-$bdir" "$(cat "$TMP/libs.log")"; rm -rf "${GBIN:?}/$dest"; return; }
		else
			copy_libs_host "$b" "$GBIN/libs"
		fi
	done
}
if [ "$ARCH" = arm64 ]; then
	e2e_copy build-a64 e2e "${XMAKE[@]}"
else
	e2e_copy build e2e
fi
# Debian's iperf3 and ethtool for the network interface's tests (net.sh),
# with their libraries: the host's, or the arm64 sysroot's.
if [ "$ARCH" = x86_64 ]; then
	NETPROGS=(copy_libs_host iperf3 ethtool)
else
	NETPROGS=(copy_libs_arm64 "$SYSROOT/usr/bin/iperf3" "$SYSROOT/usr/sbin/ethtool")
	[ -x "$SYSROOT/usr/sbin/ethtool" ] || NETPROGS[2]=$SYSROOT/sbin/ethtool
fi
if copy_progs "$GBIN/libs" "${NETPROGS[@]}" >"$TMP/libs.log" 2>&1; then
	cat "$TMP/libs.log"
else
	fail "net-tools ($ARCH)" "$(cat "$TMP/libs.log")"
fi
# The V4L2 subsystem's own tools for the video devices (v4l2.sh):
# v4l2-compliance and v4l2-ctl from Debian's v4l-utils, with their
# libraries: the host's, or the arm64 sysroot's.
if [ "$ARCH" = x86_64 ]; then
	V4LPROGS=(copy_libs_host v4l2-compliance v4l2-ctl)
else
	V4LPROGS=(copy_libs_arm64 "$SYSROOT/usr/bin/v4l2-compliance" "$SYSROOT/usr/bin/v4l2-ctl")
fi
if [ "$ARCH" != x86_64 ] || command -v v4l2-compliance >/dev/null; then
	if copy_progs "$GBIN/libs" "${V4LPROGS[@]}" >"$TMP/v4l.log" 2>&1; then
		cat "$TMP/v4l.log"
	else
		fail "v4l-utils ($ARCH)" "$(cat "$TMP/v4l.log")"
	fi
fi
# The GStreamer elements over the driver (e2e.sh): gst-launch-1.0, the
# plugin with libfdma.so.0, and GStreamer's core elements and videotestsrc,
# with the host's libraries, in /usr/lib/fdma-gst; also GStreamer's own
# v4l2src and v4l2sink, rawvideoparse and videoconvert, which v4l2.sh points at the
# video devices. x86_64 only: the arm64 sysroot holds no GStreamer, and
# e2e.sh says so there.
if [ "$ARCH" = x86_64 ] && [ -f build/gst/libgstfdma.so ] && command -v gst-launch-1.0 >/dev/null; then
	GSTDIR=$(pkg-config --variable=pluginsdir gstreamer-1.0 2>/dev/null)
	mkdir -p "$GBIN/libs/usr/lib/fdma-gst" "$GBIN/libs/lib/x86_64-linux-gnu"
	if copy_progs "$GBIN/libs" copy_libs_host gst-launch-1.0 >"$TMP/gst.log" 2>&1 &&
	   cp build/gst/libgstfdma.so "$GSTDIR/libgstcoreelements.so" "$GSTDIR/libgstvideotestsrc.so" \
		"$GBIN/libs/usr/lib/fdma-gst/" 2>>"$TMP/gst.log" &&
	   { [ ! -f "$GSTDIR/libgstvideo4linux2.so" ] ||
	     cp "$GSTDIR/libgstvideo4linux2.so" "$GSTDIR/libgstrawparse.so" \
		"$GSTDIR/libgstvideoconvertscale.so" \
		"$GBIN/libs/usr/lib/fdma-gst/"; } 2>>"$TMP/gst.log" &&
	   cp -L build/libfdma.so.0 "$GBIN/libs/lib/x86_64-linux-gnu/" 2>>"$TMP/gst.log"; then
		for f in "$GBIN"/libs/usr/lib/fdma-gst/*.so; do
			LD_LIBRARY_PATH=build copy_libs_host "$f" "$GBIN/libs"
		done
		rm -rf "$GBIN/libs$(pwd)"	# libfdma.so.0 again, at its build path
	else
		fail "gst ($ARCH)" "$(cat "$TMP/gst.log")"
	fi
fi
# The same built with AddressSanitizer and UBSan (as make test-asan builds
# them): the kdev: backend's memory handling checked where it runs.
if [ $ASAN = 0 ]; then
	:
elif [ "$ARCH" = arm64 ]; then
	e2e_copy build-a64-asan e2e-asan SAN=address,undefined OPT=-O1 "${XMAKE[@]}"
else
	e2e_copy build-asan e2e-asan SAN=address,undefined OPT=-O1
fi

# ---- the device tree (arm64) -----------------------------------------------------------
# QEMU's own virt device tree, dumped for this machine and RAM size (without
# the ivshmem chardev: QEMU would wait for its server), with:
# - a node for the FDMA function (the ivshmem device, put in slot 0x10 of
#   the PCIe host: reg names its devfn) with #dma-cells, so that other
#   nodes name its stream channels (fdma.ko's provider, dmaengine=1);
# - /fdma-video, an fdma_dmac.ko group over those two channels with a
#   video format (docs/v4l2.md): v4l2-dmac.sh dt binds it. Its compatible
#   is not "fdma,dmaengine", which every fdma_dmac.ko load would bind,
#   taking the channels dmac.sh's tests need: the test binds it by
#   driver_override instead;
# - on non-coherent rows, no dma-coherent on the PCIe host.
DTB=""
IVADDR=""
if [ "$ARCH" = arm64 ]; then
	DTB=$TMP/virt-fdma.dtb
	IVADDR=0x10
	FN=/pcie@10000000/fdma@10,0
	if ! "$QEMU" -accel tcg -machine "virt,gic-version=3,dumpdtb=$TMP/virt.dtb" -cpu cortex-a57 \
		-m "$GUEST_MEM" -smp 1 -nographic >"$TMP/dumpdtb.log" 2>&1 </dev/null ||
	   ! cp "$TMP/virt.dtb" "$DTB" ||
	   ! { fdtput -c "$DTB" $FN &&
	       fdtput -t x "$DTB" $FN reg 0x8000 0 0 0 0 &&
	       fdtput -t x "$DTB" $FN '#dma-cells' 1 &&
	       fdtput -t x "$DTB" $FN phandle 0xfd01 &&
	       fdtput -c "$DTB" /fdma-video &&
	       fdtput -t s "$DTB" /fdma-video compatible fdma,test-video &&
	       fdtput -t x "$DTB" /fdma-video dmas 0xfd01 0 0xfd01 1 &&
	       fdtput -t s "$DTB" /fdma-video dma-names c2h h2c &&
	       fdtput -t s "$DTB" /fdma-video fdma,video-format GREY &&
	       fdtput -t u "$DTB" /fdma-video fdma,video-width 128 &&
	       fdtput -t u "$DTB" /fdma-video fdma,video-height 64 &&
	       fdtput -t u "$DTB" /fdma-video fdma,video-fps 100; } >>"$TMP/dumpdtb.log" 2>&1 ||
	   { [ $NONCOHERENT = 1 ] &&
	     ! fdtput -d "$DTB" /pcie@10000000 dma-coherent >>"$TMP/dumpdtb.log" 2>&1; }; then
		fail "dtb ($ARCH${VARIANT})" "cannot make the guest's device tree (log below)"
		show "$TMP/dumpdtb.log"
		echo "vm: $NPASS passed, $NFAIL failed"
		exit 1
	fi
fi

# ---- one VM per kernel -----------------------------------------------------------------
run_kernel() { # VERSION
	local v=$1
	local tag="($v${VARIANT})" R="$TMP/root-$v" INITRD="$TMP/initrd-$v.gz" LOG="$TMP/console-$v.log"
	local MLOG="$TMP/modeld-$v.log" SOCK="$TMP/ivshmem-$v.sock" RAM="$TMP/guest-ram-$v"
	local KDIR t0 t1 tq nchan qrc mrc mods=() cmdline
	KDIR=$(kdir "$v")

	echo "== kernel $v${VARIANT}: $KBOOT/vmlinuz-$v"
	t0=$(date +%s)
	# The driver, built for this kernel from a copy of its sources in
	# build/vm-kmod/VERSION-fdma (tests/vm/lib/kbuild.sh: rows on the same
	# kernel share the objects); a .ko is used only after a successful
	# build and only if its vermagic names this kernel.
	if [ $HAVE_KMOD = 1 ]; then
		# With NVIDIA's P2P API, from its stand-in (tests/vm/kmod/nvp2p/:
		# the header, and a module exporting the calls, built first so
		# that fdma.ko links against it), so that fdma_nvp2p.c runs too.
		local nvd="build/vm-kmod/$v-nvp2p" fdir="build/vm-kmod/$v-fdma"
		mkdir -p "$nvd"
		vm_put tests/vm/kmod/nvp2p/fdma_nvp2p_standin.c "$nvd/fdma_nvp2p_standin.c"
		{
			echo "obj-m := fdma_nvp2p_standin.o"
			echo "ccflags-y := -I$PWD/tests/vm/kmod/nvp2p$([ $NV_P2P = jetson ] && echo ' -DFDMA_NV_P2P_JETSON')"
		} >"$TMP/nvp2p-Kbuild"
		vm_put "$TMP/nvp2p-Kbuild" "$nvd/Kbuild"
		if vm_kbuild_ext "$KDIR" "$PWD/$nvd" "${KMAKE[@]}" >"$TMP/nvp2p-$v.log" 2>&1; then
			mods+=("$nvd/fdma_nvp2p_standin.ko")
		else
			fail "kbuild_nvp2p_standin $tag" "the stand-in of NVIDIA's P2P API did not build"
			show "$TMP/nvp2p-$v.log" 20
		fi
		# --coverage: fdma_covstore.ko first (the modules link against
		# it), then fdma.ko and fdma_dmac.ko with FDMA_COV=y in a folder
		# of their own (docs/vm-harness.md, "Coverage").
		local covmake=() covsyms=""
		if [ $COV = 1 ]; then
			local covd="build/vm-kmod/$v-covstore"
			fdir="build/vm-kmod/$v-fdma-cov"
			mkdir -p "$covd"
			vm_put tests/vm/kmod/fdma_covstore.c "$covd/fdma_covstore.c"
			echo "obj-m := fdma_covstore.o" >"$TMP/cov-Kbuild"
			vm_put "$TMP/cov-Kbuild" "$covd/Kbuild"
			if ! vm_kbuild_ext "$KDIR" "$PWD/$covd" "${KMAKE[@]}" >"$TMP/covstore-$v.log" 2>&1; then
				fail "kbuild_covstore $tag" "fdma_covstore.ko did not build"
				show "$TMP/covstore-$v.log" 20
			fi
			covmake=(FDMA_COV=y)
			covsyms=" $PWD/$covd/Module.symvers"
		fi
		if vm_kbuild_fdma "$fdir" "$KDIR" "${KMAKE[@]}" "${covmake[@]}" NV_P2P_INC="$PWD/tests/vm/kmod/nvp2p" \
			NV_P2P=$NV_P2P KBUILD_EXTRA_SYMBOLS="$PWD/$nvd/Module.symvers$covsyms" \
			>"$TMP/kbuild-$v.log" 2>&1; then
			for ko in "$fdir"/kernel/*.ko "$fdir"/kernel/dmac/*.ko; do
				[ -e "$ko" ] || continue
				if [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" != "$v" ]; then
					fail "kbuild $tag" "$ko is for kernel '$(modinfo -F vermagic "$ko")'"
					continue
				fi
				mods+=("$ko")
			done
			if [ ! -e "$fdir/kernel/fdma.ko" ]; then
				fail "kbuild $tag" "the build succeeded but made no $fdir/kernel/fdma.ko"
			else
				pass "kbuild $tag"
				# (W=1 for arm64: the warnings of what was compiled this time, for the record)
				grep 'warning:' "$TMP/kbuild-$v.log" | head -20 | sed 's/^/    | /'
			fi
		else
			fail "kbuild $tag" "make -C $fdir/kernel KDIR=$KDIR ${KMAKE[*]} failed"
			show "$TMP/kbuild-$v.log" 40
		fi
	fi

	# Test client modules, built for this kernel in build/vm-kmod/VERSION/:
	# dmatest, Linux's own dmaengine test client, from this kernel series'
	# source (no Debian kernel package ships it), and tests/vm/kmod/*.c
	# (fdma_slavetest): the dmaengine provider's tests. They go to /.
	if [ $HAVE_KMOD = 1 ]; then
		local series=${v%%-*} kb="build/vm-kmod/$v" src f objs=()
		series=${series%.*}
		mkdir -p "$kb"
		if src=$(tests/vm/lib/linux-src.sh "/usr/src/linux-source-$series.tar.xz" 2>"$TMP/dmatest-src-$v.log"); then
			vm_put "$src/drivers/dma/dmatest.c" "$kb/dmatest.c"
			objs+=(dmatest.o)
		else
			rm -f "$kb/dmatest.c"
			skip "dmatest $tag" "$(tail -1 "$TMP/dmatest-src-$v.log") (apt-get install linux-source-$series)"
		fi
		for f in tests/vm/kmod/*.c; do
			[ -e "$f" ] || continue
			vm_put "$f" "$kb/${f##*/}"
			objs+=("$(basename "$f" .c).o")
		done
		echo "obj-m := ${objs[*]}" >"$TMP/kmod-Kbuild"
		vm_put "$TMP/kmod-Kbuild" "$kb/Kbuild"
		if vm_kbuild_ext "$KDIR" "$PWD/$kb" "${KMAKE[@]}" >"$TMP/kmod-$v.log" 2>&1; then
			for f in "${objs[@]}"; do mods+=("$kb/${f%.o}.ko"); done
		else
			fail "kbuild_test_modules $tag" "the out-of-tree build of ${objs[*]} in $kb failed"
			show "$TMP/kmod-$v.log" 20
		fi
	fi

	# initramfs: busybox, /init, smoke tests, driver tests, modules
	rm -rf "$R"
	mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,root,tests,smoke}
	cp "$BUSYBOX" "$R/bin/busybox"
	for a in $APPLETS; do
		[ -e "$R/$a" ] || ln -s /bin/busybox "$R/$a"
	done
	install -m 755 tests/vm/init.sh "$R/init"
	cp -a "$GBIN/smoke/." "$R/smoke/"
	cp -a "$GBIN/tests/." "$R/tests/"
	for d in e2e e2e-asan; do
		[ -d "$GBIN/$d" ] && cp -a "$GBIN/$d" "$R/"
	done
	cp -a "$GBIN/libs/." "$R/"
	if [ ${#mods[@]} -gt 0 ]; then
		local md="$R/lib/modules/$v"
		mkdir -p "$md/extra"
		for ko in "${mods[@]}"; do
			cp "$ko" "$R/"
			cp "$ko" "$md/extra/"
		done
		# Modules ours depend on, so "modprobe fdma" works in the guest
		# (and /fdma.deps: init.sh loads them), vgem (test_dmabuf's
		# exporter where there is no udmabuf, 6.1), pktgen, and vivid
		# (a V4L2 driver nobody here wrote, to import fdma's dma-bufs).
		vm_mod_deps "$R" "$v" "$MODROOT" "${mods[@]}" vgem pktgen vivid \
			2>>"$TMP/depmod-$v.log"
	fi
	if ! (cd "$R" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$INITRD"; then
		fail "initramfs $tag" "cpio/gzip failed"
		return
	fi

	# The builds are done: other rows may build while this guest runs.
	vm_build_unlock
	# The model: listening before QEMU starts (QEMU connects at device realize).
	rm -f "$SOCK" "$RAM"
	"$MODELD" --socket "$SOCK" --guest-mem "$RAM" --guest-mem-size "$GUEST_MEM" --vectors 8 \
		${RAM_BASE:+--ram-base "$RAM_BASE"} ${OPTS:+--opts "$OPTS"} --foreground 2>"$MLOG" &
	MPID=$!
	for _ in $(seq 100); do
		[ -S "$SOCK" ] && grep -q 'listening on' "$MLOG" && break
		kill -0 "$MPID" 2>/dev/null || break
		sleep 0.1
	done
	if ! [ -S "$SOCK" ] || ! kill -0 "$MPID" 2>/dev/null; then
		fail "modeld $tag" "fdma-modeld did not start"
		show "$MLOG"
		wait "$MPID" 2>/dev/null
		MPID=""
		vm_build_lock
		return
	fi
	nchan=$(sed -n 's/.*listening on .*: \([0-9]*\) channels.*/\1/p' "$MLOG" | head -1)

	# The guest learns its setting from fdmavm_* arguments (init.sh exports them).
	cmdline="console=$CONSOLE panic=-1 quiet loglevel=4 page_poison=1 fdmavm_nchan=${nchan:-0}"
	cmdline="$cmdline fdmavm_arch=$ARCH fdmavm_coherent=$((1 - NONCOHERENT)) fdmavm_swiotlb=$SWIOTLB"
	cmdline="$cmdline fdmavm_edu_dma_bits=$EDU_BITS fdmavm_debug=$DEBUGK fdmavm_cov=$COV${OPTS:+ fdmavm_opts=$OPTS}${APPEND:+ $APPEND}"
	# shellcheck disable=SC2054  # commas inside QEMU option values
	QCMD=("$QEMU" -accel tcg "${QMACHINE[@]}" -m "$GUEST_MEM"
	      -object "memory-backend-file,id=mem,size=$GUEST_MEM,mem-path=$RAM,share=on"
	      -smp 1 -nographic -no-reboot
	      -kernel "$KBOOT/vmlinuz-$v" -initrd "$INITRD" ${DTB:+-dtb "$DTB"}
	      -append "$cmdline"
	      -chardev "socket,path=$SOCK,id=ivs" -device "ivshmem-doorbell,chardev=ivs,vectors=8${IVADDR:+,addr=$IVADDR}"
	      -device "$EDU_DEV")
	echo "${QCMD[*]}" >"$TMP/qemu-$v.cmd"
	tq=$(date +%s)
	timeout -k 5 "$TIMEOUT" "${QCMD[@]}" </dev/null >"$LOG" 2>&1 &
	QPID=$!
	wait "$QPID"
	qrc=$?
	QPID=""
	vm_build_lock
	# QEMU is gone, so the model sees the disconnect and exits on its own.
	for _ in $(seq 50); do
		kill -0 "$MPID" 2>/dev/null || break
		sleep 0.1
	done
	kill "$MPID" 2>/dev/null
	wait "$MPID"
	mrc=$?
	MPID=""
	t1=$(date +%s)

	# Results, from the console outside the kernel-log section.
	tr -d '\r' <"$LOG" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' >"$LOG.txt"
	awk '/VMTEST DMESG BEGIN/ { d = 1; next } /VMTEST DMESG END/ { d = 0; next }
	     !d && match($0, /VMTEST (PASS|FAIL|SKIP) .*/) { print substr($0, RSTART) }' "$LOG.txt" >"$TMP/results-$v"
	local ntests=0 line name why
	while IFS= read -r line; do
		case $line in
		"VMTEST PASS "*) ntests=$((ntests + 1)); pass "${line#VMTEST PASS } $tag" ;;
		"VMTEST FAIL "*)
			ntests=$((ntests + 1))
			fail_context "$LOG.txt" "$line" >"$TMP/context"
			line=${line#VMTEST FAIL }
			name=${line%%:*}
			why=${line#*: }
			[ "$why" = "$line" ] && why="(no reason given)"
			fail "$name $tag" "$why"
			cat "$TMP/context" ;;
		"VMTEST SKIP "*)
			line=${line#VMTEST SKIP }
			name=${line%%:*}
			why=${line#*: }
			[ "$why" = "$line" ] && why="(no reason given)"
			skip "$name $tag" "$why" ;;
		esac
	done <"$TMP/results-$v"
	[ $ntests -gt 0 ] || fail "guest $tag" "no test ran"
	# What --no-asan left out (with a fault injected, run-guest.sh runs no e2e test at all).
	if [ $ASAN = 0 ] && [ ${#mods[@]} -gt 0 ] && [[ $OPTS != *fault=* ]]; then
		skip "e2e_asan $tag" "the ASan+UBSan end-to-end tests were not built (run.sh --no-asan)"
	fi
	# What the kernel's checkers print (the debug kernel's above all):
	# KASAN, KFENCE and the sleep-in-atomic check print "BUG:", lockdep and
	# the DMA API's debug "WARNING:"; UBSAN, the DMA API's leak report at
	# unbind, kmemleak, hung tasks and RCU stalls have words of their own.
	local ended=0 bad='WARNING|BUG|Oops|scheduling while atomic|general protection|Kernel panic|memory corruption'
	bad="$bad|UBSAN:|DMA-API:|dma-debug disabled|unreferenced object|suspected memory leak|blocked for more than|soft lockup|detected stall"
	# What the DMA API's debug says of itself at boot is no report.
	local benign='DMA-API: (preallocated [0-9]+ debug entries|debugging enabled by kernel config)$'
	grep -q '^VMTEST END' "$LOG.txt" && ended=1
	if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
		fail "guest $tag" "timed out after ${TIMEOUT}s$([ $ended = 0 ] && echo ", before the end marker (console tail below)")"
	elif [ $ended = 0 ]; then
		fail "guest $tag" "did not reach the end marker: hang, panic or crash (console tail below)"
	elif [ $qrc -ne 0 ]; then
		fail "guest $tag" "qemu exited with status $qrc"
	fi
	[ $ended = 0 ] && show "$LOG.txt" 40
	# The guest kernel's log must be clean.
	if [ $ended = 1 ]; then
		sed -n '/^VMTEST DMESG BEGIN/,/^VMTEST DMESG END/p' "$LOG.txt" >"$TMP/dmesg-$v"
		if grep -E "$bad" "$TMP/dmesg-$v" | grep -vE "$benign" >"$TMP/dmesg-bad-$v"; then
			fail "dmesg $tag" "the guest kernel log has warnings or errors:"
			sed 's/^/    | /' "$TMP/dmesg-bad-$v"
			# Each report whole: from its first line, up to 80 lines.
			echo "    the reports in full:"
			awk -v re="$bad" -v ok="$benign" '$0 ~ re && $0 !~ ok && left <= 0 { left = 80 }
				left > 0 { print "    | " $0; left-- }' \
				"$TMP/dmesg-$v" | head -400
		else
			pass "dmesg $tag"
		fi
	elif grep -E "$bad" "$LOG.txt" | grep -vE "$benign" >"$TMP/dmesg-bad-$v"; then
		# No kernel log printed: what reached the console is all we have.
		fail "dmesg $tag" "the guest console shows kernel errors:"
		sed 's/^/    | /' "$TMP/dmesg-bad-$v"
	fi
	# --coverage: the points the guest reached (coverage.sh end), kept in
	# build/vm-coverage-RELEASE.txt, and the table per source file.
	if [ $COV = 1 ] && [ $ended = 1 ]; then
		sed -n '/^VMTEST COVERAGE BEGIN/,/^VMTEST COVERAGE END/p' "$LOG.txt" >"$TMP/coverage-$v"
		cp "$TMP/coverage-$v" "build/vm-coverage-$v.txt"
		if tests/vm/cov-report.sh "$TMP/coverage-$v" "$fdir/kernel/fdma.ko" "$fdir/kernel/dmac/fdma_dmac.ko" \
			>"$TMP/cov-report-$v" 2>&1; then
			pass "coverage_report $tag"
		else
			fail "coverage_report $tag" "tests/vm/cov-report.sh failed"
		fi
		sed 's/^/    /' "$TMP/cov-report-$v"
	fi
	if [ $mrc -ne 0 ]; then
		fail "modeld $tag" "fdma-modeld exited with status $mrc"
		show "$MLOG"
	fi
	sed -n 's/^fdma-modeld: kicks/fdma-modeld: kicks/p' "$MLOG"
	echo "== kernel $v${VARIANT}: $((t1 - t0)) s (QEMU $((t1 - tq)) s)"
	rm -f "$RAM"
}

for v in "${KERNELS[@]}"; do
	run_kernel "$v"
done
echo "== $ARCH${VARIANT}: $(($(date +%s) - T_START)) s in all"
echo "vm: $NPASS passed, $NFAIL failed"
[ $NFAIL -eq 0 ] && [ $NPASS -gt 0 ]
