#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/versal/run.sh: the dmaengine baseline on QEMU's xlnx-versal-virt
# machine (docs/vm-harness.md, "The versal-virt row"; docs/dmaengine.md 1.3).
#
# Per kernel (Debian's arm64 6.1 and 6.12 from the arm64 sysroot): the
# unmodified upstream zynqmp_dma driver and dmatest, built out of tree from
# that series' Debian linux-source (their files extracted once into
# build/linux-src-SERIES/), with the test's own modules (tests/vm/versal/*.c),
# in build/versal/VERSION/; a busybox initramfs whose /init
# (tests/vm/lib/steps-init.sh) runs the steps tests/vm/versal/guest/*.sh in
# name order. Each step prints "VMTEST PASS <name>" or "VMTEST FAIL <name>:
# <why>" on the console; this script reports them as tests/vm/run.sh does
# ("PASS name (tag)", "FAIL name (tag): why"), with its own checks (kbuild,
# the device tree, the guest's end, a clean kernel log), then
# "vm: N passed, M failed" for tests/vm/matrix.sh.
#
# A later check is one more step file in guest/ (and, if it needs a module,
# one more .c beside this script or one more entry in FIXTURE_FILES).
#
# Exit: 0 all passed, 1 a failure, 2 a usage error, 77 skipped (QEMU, the
# cross compiler, fdtput, the arm64 sysroot or a linux-source tarball missing).
set -u

usage() {
	cat <<'EOF'
usage: tests/vm/versal/run.sh [--kernel 6.1|6.12|VERSION]... [--sysroot DIR]
                              [--source TARBALL] [--keep] [--timeout S]

  --kernel K        a series (6.1, 6.12: its kernels in the sysroot) or one kernel
                    (e.g. 6.1.0-57-arm64); repeatable (default: 6.1 and 6.12)
  --sysroot DIR     the arm64 sysroot (default build/arm64-sysroot;
                    tests/vm/arm64-sysroot.sh makes it)
  --source TARBALL  the Debian linux-source-SERIES.tar.xz to take the drivers from,
                    for every kernel (default /usr/src/linux-source-SERIES.tar.xz
                    of each kernel's series)
  --keep            keep the temp dir (console logs, initramfs, device tree) and say where
  --timeout S       wall-clock limit per VM, seconds (default 300)
EOF
}

ROOT=$(cd "$(dirname "$0")/../../.." && pwd) || exit 1
cd "$ROOT" || exit 1
HERE=tests/vm/versal

usage_error() { echo "versal/run.sh: $*" >&2; exit 2; }

KERNELS_ARG=()
SYSROOT=build/arm64-sysroot
SOURCE=""
KEEP=0
TIMEOUT=300
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) [ $# -ge 2 ] || usage_error "--kernel needs 6.1, 6.12 or a VERSION"
		KERNELS_ARG+=("$2"); shift 2 ;;
	--kernel=*) KERNELS_ARG+=("${1#*=}"); shift ;;
	--sysroot) [ $# -ge 2 ] || usage_error "--sysroot needs a directory"
		SYSROOT=$2; shift 2 ;;
	--sysroot=*) SYSROOT=${1#*=}; shift ;;
	--source) [ $# -ge 2 ] || usage_error "--source needs a tarball"
		SOURCE=$2; shift 2 ;;
	--source=*) SOURCE=${1#*=}; shift ;;
	--keep) KEEP=1; shift ;;
	--timeout) [ $# -ge 2 ] || usage_error "--timeout needs seconds"
		TIMEOUT=$2; shift 2 ;;
	--timeout=*) TIMEOUT=${1#*=}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "versal/run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
case $TIMEOUT in
''|*[!0-9]*|0) usage_error "bad --timeout '$TIMEOUT': expected seconds > 0" ;;
esac
DEFAULT=0
[ ${#KERNELS_ARG[@]} -gt 0 ] || { KERNELS_ARG=(6.1 6.12); DEFAULT=1; }

# ---- what it needs ----------------------------------------------------------------
for t in cpio gzip tar xz timeout make modinfo; do
	command -v $t >/dev/null || { echo "SKIP: $t not found"; exit 77; }
done
command -v qemu-system-aarch64 >/dev/null ||
	{ echo "SKIP: qemu-system-aarch64 not found (apt-get install qemu-system-arm)"; exit 77; }
command -v aarch64-linux-gnu-gcc >/dev/null ||
	{ echo "SKIP: aarch64-linux-gnu-gcc not found (apt-get install gcc-aarch64-linux-gnu)"; exit 77; }
for t in fdtput dtc; do
	command -v $t >/dev/null || { echo "SKIP: $t not found (apt-get install device-tree-compiler)"; exit 77; }
done
if [ ! -s "$SYSROOT/.complete" ] || [ ! -x "$SYSROOT/bin/busybox" ]; then
	echo "SKIP: no arm64 sysroot in $SYSROOT (tests/vm/arm64-sysroot.sh $SYSROOT fetches it)"
	exit 77
fi
SYSROOT=$(cd "$SYSROOT" && pwd) || exit 1
# The arm64 busybox cannot run here: the host's (same Debian release) lists the applets.
HOSTBB=""
for b in /bin/busybox /usr/bin/busybox $(command -v busybox 2>/dev/null); do
	[ -x "$b" ] && HOSTBB=$b && break
done
[ -n "$HOSTBB" ] || { echo "SKIP: no host busybox to list the applets (apt-get install busybox-static)"; exit 77; }
if [ -n "$SOURCE" ]; then
	[ -r "$SOURCE" ] || usage_error "--source $SOURCE: no such file"
	[[ ${SOURCE##*/} =~ ^linux-source-[0-9]+\.[0-9]+\.tar\.xz$ ]] ||
		usage_error "--source $SOURCE: expected a Debian linux-source-SERIES.tar.xz"
fi

# series VERSION: 6.1.0-57-arm64 -> 6.1, 6.12.117+deb12-arm64 -> 6.12
series() { [[ $1 =~ ^([0-9]+\.[0-9]+) ]] && echo "${BASH_REMATCH[1]}"; }
# tarball SERIES: where that series' source is
tarball() { echo "${SOURCE:-/usr/src/linux-source-$1.tar.xz}"; }
kernel_ok() { [ -r "$SYSROOT/boot/vmlinuz-$1" ] && [ -r "$SYSROOT/usr/src/linux-headers-$1/Makefile" ]; }
# A kernel needs its image and headers; one asked for that is missing skips
# the run (exit 77), as tests/vm/run.sh does.
KERNELS=()
for k in "${KERNELS_ARG[@]}"; do
	if [[ $k =~ ^[0-9]+\.[0-9]+$ ]]; then
		found=0
		for f in $(printf '%s\n' "$SYSROOT/boot/vmlinuz-$k".* | sort -V); do
			v=${f#"$SYSROOT"/boot/vmlinuz-}
			kernel_ok "$v" && KERNELS+=("$v") && found=1
		done
		[ $found = 1 ] || { echo "SKIP: no arm64 $k kernel with headers in $SYSROOT (tests/vm/arm64-sysroot.sh)"; exit 77; }
	elif kernel_ok "$k" && [ -n "$(series "$k")" ]; then
		KERNELS+=("$k")
	else
		echo "SKIP: arm64 kernel $k not in $SYSROOT (need boot/vmlinuz-$k and usr/src/linux-headers-$k; tests/vm/arm64-sysroot.sh)"
		exit 77
	fi
done
# Each series builds from its own source: 6.1's zynqmp_dma.c does not
# build against the 6.12 headers (platform_driver.remove returns void
# there). Without --kernel, a kernel whose source is missing is left out
# and a SKIP line says so; a kernel asked for by name skips the run.
RUN=()
SKIPPED=()
for v in "${KERNELS[@]}"; do
	s=$(series "$v")
	if [ -r "$(tarball "$s")" ]; then
		RUN+=("$v")
	elif [ $DEFAULT = 1 ]; then
		SKIPPED+=("SKIP versal ($v): no $(tarball "$s") (apt-get install linux-source-$s)")
	else
		echo "SKIP: no $(tarball "$s") for kernel $v (apt-get install linux-source-$s)"
		exit 77
	fi
done
if [ ${#RUN[@]} -eq 0 ]; then
	printf '%s\n' "${SKIPPED[@]}"
	echo "SKIP: no linux-source tarball for any kernel"
	exit 77
fi
KERNELS=("${RUN[@]}")

# shellcheck source=tests/vm/lib/runner.sh
. tests/vm/lib/runner.sh
vm_runner_start versal
# shellcheck source=tests/vm/lib/steps-report.sh
. tests/vm/lib/steps-report.sh
# shellcheck source=tests/vm/lib/kbuild.sh
. tests/vm/lib/kbuild.sh
vm_build_lock

echo "== versal-virt: kernels ${KERNELS[*]}"
[ ${#SKIPPED[@]} -eq 0 ] || printf '%s\n' "${SKIPPED[@]}"

# ---- the drivers' sources, once per series ------------------------------------------
# tests/vm/lib/linux-src.sh extracts them once into build/linux-src-SERIES/.
FIXTURE_FILES=(drivers/dma/dmatest.c drivers/dma/dmaengine.h drivers/dma/xilinx/zynqmp_dma.c)
FIXTURE_OBJS=(dmatest.o xilinx/zynqmp_dma.o)
sources() { tests/vm/lib/linux-src.sh "$1" 2>"$TMP/tar.log"; }

# ---- the modules, per kernel ------------------------------------------------------------
# One out-of-tree build in build/versal/VERSION/: the fixtures under their
# drivers/dma/ paths (zynqmp_dma.c includes ../dmaengine.h) and every
# tests/vm/versal/*.c as a module of its own. Files are copied only when
# they differ, so a second run's make finds nothing to do.
build_modules() { # VERSION SRCDIR: 0 when every module was built
	local v=$1 src=$2 b="build/versal/$1" f objs=("${FIXTURE_OBJS[@]}")
	for f in "${FIXTURE_FILES[@]}"; do vm_put "$src/$f" "$b/${f#drivers/dma/}" || return 1; done
	for f in "$HERE"/*.c; do
		[ -e "$f" ] || continue
		vm_put "$f" "$b/${f##*/}" || return 1
		objs+=("$(basename "$f" .c).o")
	done
	echo "obj-m += ${objs[*]}" >"$TMP/Kbuild"
	vm_put "$TMP/Kbuild" "$b/Kbuild" || return 1
	vm_kbuild_ext "$SYSROOT/usr/src/linux-headers-$v" "$ROOT/$b" ARCH=arm64 \
		CROSS_COMPILE=aarch64-linux-gnu- >"$TMP/kbuild-$v.log" 2>&1 || return 1
	MODS=()
	for f in "${objs[@]}"; do
		[ -e "$b/${f%.o}.ko" ] || { echo "no $b/${f%.o}.ko" >>"$TMP/kbuild-$v.log"; return 1; }
		[ "$(modinfo -F vermagic "$b/${f%.o}.ko" | cut -d' ' -f1)" = "$v" ] ||
			{ echo "$b/${f%.o}.ko is not for $v" >>"$TMP/kbuild-$v.log"; return 1; }
		MODS+=("$b/${f%.o}.ko")
	done
	build_fdma "$v"
}

# fdma.ko and fdma_dmac.ko for this kernel, from a copy of the sources in
# the DKMS layout (kernel/, engine/, include/, model/) in
# build/versal/VERSION/fdma (tests/vm/lib/kbuild.sh).
build_fdma() { # VERSION: 0 when both modules were built
	local v=$1 b="build/versal/$1/fdma" m
	vm_kbuild_fdma "$b" "$SYSROOT/usr/src/linux-headers-$v" ARCH=arm64 \
		CROSS_COMPILE=aarch64-linux-gnu- >>"$TMP/kbuild-$v.log" 2>&1 || return 1
	for m in fdma dmac/fdma_dmac; do
		[ "$(modinfo -F vermagic "$b/kernel/$m.ko" 2>/dev/null | cut -d' ' -f1)" = "$v" ] ||
			{ echo "no $b/kernel/$m.ko for $v" >>"$TMP/kbuild-$v.log"; return 1; }
		MODS+=("$b/kernel/$m.ko")
	done
}

# The guest programs the client's step runs (tests/vm/guest/, static).
GUEST_PROGS=(fdma_ioc_copy fdma_dmac)
build_progs() {
	local p
	mkdir -p "$TMP/bin"
	for p in "${GUEST_PROGS[@]}"; do
		aarch64-linux-gnu-gcc -static -O2 -g -Wall -D_GNU_SOURCE -Iinclude -Iengine -Iengine/user -Ilib -Imodel \
			"tests/vm/guest/$p.c" -o "$TMP/bin/$p" >>"$TMP/progs.log" 2>&1 || return 1
	done
}

# ---- the device tree (the same for every kernel) -------------------------------------------
# QEMU's own tree for the machine, dumped, then: phandles and #dma-cells on
# the first four ZDMA controllers (QEMU gives them neither, so nothing could
# name them); a node `compatible = "fdma,dtprobe"` whose dmas/dma-names name
# the first two "tx" and "rx" (for dtprobe.ko, the dt_* checks of the
# binding); and two nodes `compatible = "fdma,dmaengine"`, fdma_dmac.ko's
# binding (docs/dmaengine.md 2.2), each naming one more controller "mem0"
# (a group maps buffers for one device, and every ZDMA controller is a
# device of its own).
MACHINE=xlnx-versal-virt
MEM=1G
DTB=$TMP/versal.dtb
if ! qemu-system-aarch64 -M "$MACHINE,dumpdtb=$TMP/qemu.dtb" -m "$MEM" -nographic \
	</dev/null >"$TMP/dtb.log" 2>&1 ||
   ! dtc -I dtb -O dts -o "$TMP/qemu.dts" "$TMP/qemu.dtb" 2>>"$TMP/dtb.log"; then
	fail "dtb (versal-virt)" "cannot dump QEMU's device tree (log below)"
	show "$TMP/dtb.log"
	echo "vm: $NPASS passed, $NFAIL failed"
	exit 1
fi
why=""
for n in /dma@ffa80000 /dma@ffa90000 /dma@ffaa0000 /dma@ffab0000; do
	grep -q "^	${n#/} {" "$TMP/qemu.dts" || why="$why; no $n node"
done
grep -qiE 'phandle = <0xfd0[0-3]>' "$TMP/qemu.dts" && why="$why; QEMU's tree already uses a phandle 0xfd00..0xfd03"
cp "$TMP/qemu.dtb" "$DTB"
if [ -z "$why" ] &&
   fdtput -t x "$DTB" /dma@ffa80000 phandle 0xfd00 &&
   fdtput -t x "$DTB" /dma@ffa80000 '#dma-cells' 1 &&
   fdtput -t x "$DTB" /dma@ffa90000 phandle 0xfd01 &&
   fdtput -t x "$DTB" /dma@ffa90000 '#dma-cells' 1 &&
   fdtput -t x "$DTB" /dma@ffaa0000 phandle 0xfd02 &&
   fdtput -t x "$DTB" /dma@ffaa0000 '#dma-cells' 1 &&
   fdtput -t x "$DTB" /dma@ffab0000 phandle 0xfd03 &&
   fdtput -t x "$DTB" /dma@ffab0000 '#dma-cells' 1 &&
   fdtput -c "$DTB" /fdma-dtprobe &&
   fdtput -t s "$DTB" /fdma-dtprobe compatible fdma,dtprobe &&
   fdtput -t x "$DTB" /fdma-dtprobe dmas 0xfd00 0 0xfd01 0 &&
   fdtput -t s "$DTB" /fdma-dtprobe dma-names tx rx &&
   fdtput -c "$DTB" /fdma-dmac0 &&
   fdtput -t s "$DTB" /fdma-dmac0 compatible fdma,dmaengine &&
   fdtput -t x "$DTB" /fdma-dmac0 dmas 0xfd02 0 &&
   fdtput -t s "$DTB" /fdma-dmac0 dma-names mem0 &&
   fdtput -t u "$DTB" /fdma-dmac0 fdma,ring-size 1024 &&
   fdtput -c "$DTB" /fdma-dmac1 &&
   fdtput -t s "$DTB" /fdma-dmac1 compatible fdma,dmaengine &&
   fdtput -t x "$DTB" /fdma-dmac1 dmas 0xfd03 0 &&
   fdtput -t s "$DTB" /fdma-dmac1 dma-names mem0 &&
   fdtput -t u "$DTB" /fdma-dmac1 fdma,ring-size 128 2>>"$TMP/dtb.log"; then
	pass "dtb (versal-virt)"
else
	fail "dtb (versal-virt)" "cannot add the fdma,dtprobe and fdma,dmaengine nodes to QEMU's tree${why:+: ${why#; }}"
	show "$TMP/dtb.log"
	echo "vm: $NPASS passed, $NFAIL failed"
	exit 1
fi

if build_progs; then
	pass "build_guest_programs (versal-virt)"
else
	fail "build_guest_programs (versal-virt)" "aarch64-linux-gnu-gcc failed (log below)"
	show "$TMP/progs.log"
fi

# libfdma's copy tests and the fdma command for arm64, dynamically linked
# (cmocka has no static library), in build-a64/ as the arm64 rows of
# tests/vm/run.sh build them, with the libraries they load from the
# sysroot: the kdev: end-to-end checks on the ZDMA node (guest/40-dmac.sh).
LIBDIRS=("$SYSROOT/lib/aarch64-linux-gnu" "$SYSROOT/usr/lib/aarch64-linux-gnu" /usr/aarch64-linux-gnu/lib)
# shellcheck source=tests/vm/lib/guest-libs.sh
. tests/vm/lib/guest-libs.sh
# shellcheck source=tests/vm/lib/moddeps.sh
. tests/vm/lib/moddeps.sh
E2E=(build-a64/fdma build-a64/tests/sim/test_copy)
build_e2e() {
	local b
	make -s BUILD=build-a64 CC=aarch64-linux-gnu-gcc AR=aarch64-linux-gnu-ar \
		"CPPFLAGS=-I$SYSROOT/usr/include" \
		"LDFLAGS=-L$SYSROOT/usr/lib/aarch64-linux-gnu -L$SYSROOT/lib/aarch64-linux-gnu" \
		"${E2E[@]}" >"$TMP/e2e.log" 2>&1 || return 1
	mkdir -p "$TMP/e2e/e2e"
	for b in "${E2E[@]}"; do
		cp "$b" "$TMP/e2e/e2e/" && copy_libs_arm64 "$b" "$TMP/e2e" >>"$TMP/e2e.log" 2>&1 || return 1
	done
}
if build_e2e; then
	pass "build_e2e (versal-virt)"
else
	fail "build_e2e (versal-virt)" "the arm64 e2e build or its libraries (log below)"
	show "$TMP/e2e.log"
	rm -rf "$TMP/e2e"
fi

# ---- one VM per kernel -----------------------------------------------------------------------
run_kernel() { # VERSION
	local v=$1 s tag="($1 versal)" R="$TMP/root-$1" INITRD="$TMP/initrd-$1.gz" LOG="$TMP/console-$1.log"
	local src t0 tq t1 qrc f a ended=0
	s=$(series "$v")
	echo "== kernel $v (versal-virt): $SYSROOT/boot/vmlinuz-$v, $(tarball "$s")"
	t0=$(date +%s)
	if ! src=$(sources "$(tarball "$s")"); then
		fail "sources $tag" "cannot extract ${FIXTURE_FILES[*]} from $(tarball "$s")"
		show "$TMP/tar.log" 10
		return
	fi
	if ! build_modules "$v" "$src"; then
		fail "kbuild $tag" "the out-of-tree build in build/versal/$v failed (log below)"
		show "$TMP/kbuild-$v.log" 30
		return
	fi
	pass "kbuild $tag"
	grep 'warning:' "$TMP/kbuild-$v.log" | head -20 | sed 's/^/    | /'

	# initramfs: busybox and its applets, /init, the steps, the modules.
	rm -rf "$R"
	mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,steps,modules}
	cp "$SYSROOT/bin/busybox" "$R/bin/busybox"
	for a in $("$HOSTBB" --list-full); do
		[ -e "$R/$a" ] || ln -s /bin/busybox "$R/$a"
	done
	install -m 755 tests/vm/lib/steps-init.sh "$R/init"
	for f in "$HERE"/guest/*.sh; do
		[ -e "$f" ] && install -m 644 "$f" "$R/steps/"
	done
	cp "${MODS[@]}" "$R/modules/"
	# What fdma.ko needs loaded first (V4L2 and vb2, where Debian's
	# kernel builds them as modules): /fdma.deps, steps-init.sh loads it.
	vm_mod_deps "$R" "$v" "$SYSROOT" "$R/modules/fdma.ko" >/dev/null 2>&1
	cp "$TMP"/bin/* "$R/bin/" 2>/dev/null
	[ -d "$TMP/e2e" ] && cp -a "$TMP/e2e/." "$R/"
	if ! (cd "$R" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$INITRD"; then
		fail "initramfs $tag" "cpio/gzip failed"
		return
	fi

	# The machine as QEMU makes it: two Cortex-A72 of which the guest
	# starts one (QEMU's tree gives cpu@1 no enable-method), GICv3, the
	# console on the PL011 (ttyAMA0).
	QCMD=(qemu-system-aarch64 -M "$MACHINE" -m "$MEM" -nographic -no-reboot -dtb "$DTB"
	      -kernel "$SYSROOT/boot/vmlinuz-$v" -initrd "$INITRD"
	      -append "console=ttyAMA0 panic=-1 quiet loglevel=4 fdmavm_name=versal")
	echo "${QCMD[*]}" >"$TMP/qemu-$v.cmd"
	tq=$(date +%s)
	# The builds are done: other rows may build while this guest runs.
	vm_build_unlock
	timeout -k 5 "$TIMEOUT" "${QCMD[@]}" </dev/null >"$LOG" 2>&1 &
	QPID=$!
	wait "$QPID"
	qrc=$?
	QPID=""
	vm_build_lock
	t1=$(date +%s)

	# Results, from the console outside the kernel-log section.
	steps_results "$LOG" "$tag"
	ended=$STEPS_ENDED
	if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
		fail "guest $tag" "timed out after ${TIMEOUT}s$([ $ended = 0 ] && echo ", before the end marker (console tail below)")"
	elif [ $ended = 0 ]; then
		fail "guest $tag" "did not reach the end marker: hang, panic or crash (console tail below)"
	elif [ $qrc -ne 0 ]; then
		fail "guest $tag" "qemu exited with status $qrc"
	fi
	[ $ended = 0 ] && show "$LOG.txt" 40
	steps_dmesg "$LOG" "$tag" "$TMP/dmesg-$v"
	echo "== kernel $v (versal-virt): $((t1 - t0)) s (QEMU $((t1 - tq)) s)"
}

for v in "${KERNELS[@]}"; do
	run_kernel "$v"
done
echo "== versal-virt: $(($(date +%s) - T_START)) s in all"
echo "vm: $NPASS passed, $NFAIL failed"
[ $NFAIL -eq 0 ] && [ $NPASS -gt 0 ]
