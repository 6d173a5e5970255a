#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/proxy/run.sh: fdma.ko on a device model that is a real PCI
# function with trapped registers, behind QEMU's x-pci-proxy-dev
# (docs/xdma.md, "In a guest"): the XDMA model (--engine xdma, the
# default: 10ee:9021, BAR0 user, BAR1 DMA), or the FDMA model (--engine
# fdma: 10ee:fd3a, the production register path with no ivshmem doorbell).
# Per kernel (Debian's x86_64 6.1 and 6.12): fdma.ko built for it in
# build/proxy/VERSION/ (a copy of the sources, as the DKMS tree lays them
# out), the guest programs of tests/vm/guest/ and libfdma's end-to-end
# tests, in a busybox initramfs whose /init (tests/vm/lib/steps-init.sh) runs
# the steps tests/vm/proxy/guest/*.sh in name order; fdma-proxyd runs QEMU
# with the model behind the proxy and an ivshmem-doorbell function that
# carries its interrupts. Each step prints "VMTEST PASS
# <name>" or "VMTEST FAIL <name>: <why>"; this script reports them as
# tests/vm/run.sh does, with its own checks (kbuild, the guest's end, a
# clean kernel log, the model's own counts), then "vm: N passed, M failed"
# for tests/vm/matrix.sh.
#
# Exit: 0 all passed, 1 a failure, 2 a usage error, 77 skipped (QEMU, a
# static busybox or a kernel with headers missing).
set -u

usage() {
	cat <<'EOF'
usage: tests/vm/proxy/run.sh [--engine xdma|fdma|rtl] [--kernel 6.1|6.12|VERSION]...
                             [--opts OPTIONS] [--net] [--keep] [--timeout S]

  --engine E     the model behind the proxy: xdma (default) or fdma, or rtl: the
                 FDMA engine's RTL, Verilated (libfdma-rtl.so, make rtl), in place
                 of a model; no test block, so no fault steps, and no --net
  --kernel K     a series (6.1, 6.12) or one kernel (e.g. 6.1.0-57-amd64) with headers;
                 repeatable (default: 6.1 and 6.12)
  --opts OPTS    more model options (fdma-proxyd --opts), e.g. "channels=2"
  --net          the network interfaces instead of the steps of guest/: the model's
                 two stream pairs joined (loop=1,streams=2), fdma.ko net=1, and
                 tests/vm/guest/net.sh with traffic (docs/net.md)
  --study        also the runs of docs/studies/xdma.md (study/70-study.sh); the
                 figures are printed as "STUDY {json}" lines
  --keep         keep the temp dir (console logs, initramfs, the model's log) and say where
  --timeout S    wall-clock limit per VM, seconds (default 400)
EOF
}

ROOT=$(cd "$(dirname "$0")/../../.." && pwd) || exit 1
cd "$ROOT" || exit 1
HERE=tests/vm/proxy

usage_error() { echo "proxy/run.sh: $*" >&2; exit 2; }

KERNELS_ARG=()
ENGINE=xdma
OPTS=""
KEEP=0
STUDY=0
NET=0
TIMEOUT=400
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) [ $# -ge 2 ] || usage_error "--kernel needs 6.1, 6.12 or a VERSION"
		KERNELS_ARG+=("$2"); shift 2 ;;
	--kernel=*) KERNELS_ARG+=("${1#*=}"); shift ;;
	--engine) [ $# -ge 2 ] || usage_error "--engine needs xdma or fdma"
		ENGINE=$2; shift 2 ;;
	--engine=*) ENGINE=${1#*=}; shift ;;
	--opts) [ $# -ge 2 ] || usage_error "--opts needs a value"
		OPTS=$2; shift 2 ;;
	--opts=*) OPTS=${1#*=}; shift ;;
	--keep) KEEP=1; shift ;;
	--study) STUDY=1; shift ;;
	--net) NET=1; shift ;;
	--timeout) [ $# -ge 2 ] || usage_error "--timeout needs seconds"
		TIMEOUT=$2; shift 2 ;;
	--timeout=*) TIMEOUT=${1#*=}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "proxy/run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
	esac
done
case $TIMEOUT in
''|*[!0-9]*|0) usage_error "bad --timeout '$TIMEOUT': expected seconds > 0" ;;
esac
case $OPTS in
*[[:space:]]*) usage_error "--opts must not contain spaces" ;;
*engine=*) usage_error "--opts: the engine is --engine's" ;;
esac
case $ENGINE in
xdma|fdma) ;;
rtl) [ $NET = 0 ] || usage_error "--net: the RTL has no joined stream pairs" ;;
*) usage_error "bad --engine '$ENGINE': expected xdma, fdma or rtl" ;;
esac
[ $NET = 1 ] && OPTS=loop=1,streams=2${OPTS:+,$OPTS}
if [ "$ENGINE" = rtl ]; then
	MOPTS=engine=fdma,rtl=1${OPTS:+,$OPTS}
else
	MOPTS=engine=$ENGINE${OPTS:+,$OPTS}
fi
[ ${#KERNELS_ARG[@]} -gt 0 ] || KERNELS_ARG=(6.1 6.12)

# ---- what it needs ----------------------------------------------------------------
for t in cpio gzip timeout make modinfo cc ldd; do
	command -v $t >/dev/null || { echo "SKIP: $t not found"; exit 77; }
done
QEMU=$(command -v qemu-system-x86_64) ||
	{ echo "SKIP: qemu-system-x86_64 not found (apt-get install qemu-system-x86)"; exit 77; }
"$QEMU" -device help 2>/dev/null | grep -q '"x-pci-proxy-dev"' ||
	{ echo "SKIP: this QEMU has no x-pci-proxy-dev (Debian 12's 7.2 has)"; exit 77; }
BUSYBOX=""
for b in /bin/busybox /usr/bin/busybox $(command -v busybox 2>/dev/null); do
	if [ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1; then BUSYBOX=$b; break; fi
done
[ -n "$BUSYBOX" ] || { echo "SKIP: no static busybox (apt-get install busybox-static)"; exit 77; }
kernel_ok() { [ -r "/boot/vmlinuz-$1" ] && [ -d "/lib/modules/$1/build" ]; }
KERNELS=()
for k in "${KERNELS_ARG[@]}"; do
	if [[ $k =~ ^[0-9]+\.[0-9]+$ ]]; then
		found=0
		for f in $(printf '%s\n' /boot/vmlinuz-"$k".* | sort -V); do
			v=${f#/boot/vmlinuz-}
			kernel_ok "$v" && KERNELS+=("$v") && found=1
		done
		[ $found = 1 ] || { echo "SKIP: no x86_64 $k kernel with headers (linux-image-amd64 linux-headers-amd64)"; exit 77; }
	elif kernel_ok "$k"; then
		KERNELS+=("$k")
	else
		echo "SKIP: kernel $k not installed (need /boot/vmlinuz-$k and /lib/modules/$k/build)"
		exit 77
	fi
done

# shellcheck source=tests/vm/lib/runner.sh
. tests/vm/lib/runner.sh
vm_runner_start proxy
# shellcheck source=tests/vm/lib/steps-report.sh
. tests/vm/lib/steps-report.sh
# shellcheck source=tests/vm/lib/kbuild.sh
. tests/vm/lib/kbuild.sh
vm_build_lock

echo "== proxy $ENGINE: kernels ${KERNELS[*]}${OPTS:+, model options $OPTS}"

# ---- host side: the model, the guest programs, libfdma's e2e tests ----------------------
PROXYD=build/fdma-proxyd
if [ "$ENGINE" = rtl ]; then
	command -v verilator >/dev/null || { echo "SKIP: --engine rtl needs Verilator (apt-get install verilator)"; exit 77; }
	if ! make -s rtl >"$TMP/make-rtl.log" 2>&1 || [ ! -e build/libfdma-rtl.so ]; then
		fail build-rtl "cannot build build/libfdma-rtl.so (log below)"
		show "$TMP/make-rtl.log"
		echo "vm: $NPASS passed, $NFAIL failed"
		exit 1
	fi
fi
if ! make -s build/libfdma-internal.a "$PROXYD" >"$TMP/make.log" 2>&1; then
	fail build-proxyd "cannot build $PROXYD (log below)"
	show "$TMP/make.log"
	echo "vm: $NPASS passed, $NFAIL failed"
	exit 1
fi
GBIN=$TMP/guest
mkdir -p "$GBIN/tests" "$GBIN/e2e" "$GBIN/libs"
# The kernel driver's test programs (static), and the guest scripts they share.
GUEST_PROGS=(fdma_rw.c fdma_badio.c fdma_ioc_xfer.c fdma_ioc_poll.c fdma_ioc_invalid.c fdma_ioc_fuzz.c
	     fdma_ioc_uapi.c fdma_openrm.c fdma_unbind_fault.c fdma_revoke.c fdma_irqmode.c
	     fdma_xfault.c fdma_uirq.c)
# shellcheck source=tests/vm/lib/guests.sh
. tests/vm/lib/guests.sh
vm_guest_setup cc x86_64 build
build_guests "$GBIN/tests" "${GUEST_PROGS[@]/#/tests/vm/guest/}"
install -m 755 tests/vm/guest/vmlib.sh tests/vm/guest/e2e.sh tests/vm/guest/net.sh "$GBIN/tests/"
# copy_libs_host, copy_progs: tests/vm/lib/guest-libs.sh.
# shellcheck source=tests/vm/lib/guest-libs.sh
. tests/vm/lib/guest-libs.sh
# shellcheck source=tests/vm/lib/moddeps.sh
. tests/vm/lib/moddeps.sh
# libfdma's end-to-end tests and the fdma command (dynamically linked:
# cmocka has no static library), with every shared library they load.
E2E=(build/fdma build/tests/sim/test_transfer build/tests/sim/test_wait
     build/tests/sim/test_coalesce build/tests/sim/test_stream build/tests/sim/test_errors
     build/tests/sim/test_errmsg)
if make -s "${E2E[@]}" >"$TMP/e2e.log" 2>&1; then
	for b in "${E2E[@]}"; do
		cp "$b" "$GBIN/e2e/"
		copy_libs_host "$b" "$GBIN/libs"
	done
else
	fail build-e2e "make ${E2E[*]} failed (log below)"
	show "$TMP/e2e.log" 20
fi
# --net: Debian's iperf3 and ethtool, with their libraries.
if [ $NET = 1 ]; then
	copy_progs "$GBIN/libs" copy_libs_host iperf3 ethtool || fail net-tools "copying iperf3 or ethtool failed"
fi

# fdma.ko for one kernel, from a copy of the sources in the DKMS layout in
# build/proxy/VERSION/ (tests/vm/lib/kbuild.sh; without the P2P stand-in that
# tests/vm/run.sh builds in, so the two never share a directory).
build_fdma() { # VERSION
	local v=$1 b="build/proxy/$1"
	vm_kbuild_fdma "$b" "/lib/modules/$v/build" W=1 >"$TMP/kbuild-$v.log" 2>&1 || return 1
	[ "$(modinfo -F vermagic "$b/kernel/fdma.ko" 2>/dev/null | cut -d' ' -f1)" = "$v" ]
}

# ---- one VM per kernel -----------------------------------------------------------------------
run_kernel() { # VERSION
	local v=$1 tag="($1 proxy $ENGINE${OPTS:+ $OPTS})" R="$TMP/root-$1" INITRD="$TMP/initrd-$1.gz"
	local LOG="$TMP/console-$1.log" MLOG="$TMP/proxyd-$1.log" SOCK="$TMP/ivs-$1.sock"
	local t0 tq t1 qrc a ended=0
	echo "== kernel $v (proxy $ENGINE): /boot/vmlinuz-$v"
	t0=$(date +%s)
	if ! build_fdma "$v"; then
		fail "kbuild $tag" "the build in build/proxy/$v failed (log below)"
		show "$TMP/kbuild-$v.log" 30
		return
	fi
	pass "kbuild $tag"
	# A vendor driver's MSI-X probe (kmod/fdma_vendorprobe.c, guest step 70-vendor.sh).
	local kb="build/proxy/$v/vendorprobe"
	vm_put "$HERE/kmod/fdma_vendorprobe.c" "$kb/fdma_vendorprobe.c"
	echo "obj-m := fdma_vendorprobe.o" >"$TMP/vp-Kbuild"
	vm_put "$TMP/vp-Kbuild" "$kb/Kbuild"
	if ! vm_kbuild_ext "/lib/modules/$v/build" "$PWD/$kb" W=1 >"$TMP/kbuild-vp-$v.log" 2>&1; then
		fail "kbuild_vendorprobe $tag" "the build of $kb/fdma_vendorprobe.ko failed (log below)"
		show "$TMP/kbuild-vp-$v.log" 20
	fi

	rm -rf "$R"
	mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,steps,modules}
	cp "$BUSYBOX" "$R/bin/busybox"
	for a in $("$BUSYBOX" --list-full); do
		[ -e "$R/$a" ] || ln -s /bin/busybox "$R/$a"
	done
	install -m 755 tests/vm/lib/steps-init.sh "$R/init"
	if [ $NET = 1 ]; then
		install -m 644 "$HERE"/net/*.sh "$R/steps/"
	else
		install -m 644 "$HERE"/guest/*.sh "$R/steps/"
	fi
	# What fdma.ko needs (V4L2 and vb2, where the kernel builds them as
	# modules; /fdma.deps), and pktgen for net.sh (Debian builds it as a
	# module; net.sh runs without it where there is none).
	vm_mod_deps "$R" "$v" "" "build/proxy/$v/kernel/fdma.ko" pktgen >/dev/null 2>&1
	if [ $STUDY = 1 ]; then
		install -m 644 "$HERE"/study/*.sh "$R/steps/"
	fi
	cp "build/proxy/$v/kernel/fdma.ko" "$R/fdma.ko"
	[ -e "$kb/fdma_vendorprobe.ko" ] && cp "$kb/fdma_vendorprobe.ko" "$R/"
	cp -a "$GBIN/tests" "$GBIN/e2e" "$R/"
	cp -a "$GBIN/libs/." "$R/"
	if ! (cd "$R" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$INITRD"; then
		fail "initramfs $tag" "cpio/gzip failed"
		return
	fi

	# Guest RAM in a memfd the proxy hands to the model; the model's
	# function behind the proxy; the ivshmem-doorbell function that carries
	# its interrupts (32 vectors: 4 channels and XDMA's 16 user interrupts).
	# shellcheck disable=SC2054  # commas inside QEMU option values
	QCMD=("$QEMU" -accel tcg -machine q35,memory-backend=mem -m 256M
	      -object memory-backend-memfd,id=mem,size=256M,share=on
	      -device x-pci-proxy-dev,id=xdma0,fd=4
	      -chardev "socket,path=$SOCK,id=ivs" -device ivshmem-doorbell,chardev=ivs,vectors=32
	      -nographic -no-reboot -kernel "/boot/vmlinuz-$v" -initrd "$INITRD"
	      -append "console=ttyS0 panic=-1 quiet loglevel=4 page_poison=1 fdmavm_name=proxy fdmavm_engine=$ENGINE${OPTS:+ fdmavm_opts=$OPTS}")
	echo "$PROXYD --ivshmem $SOCK --vectors 32 --opts $MOPTS -- ${QCMD[*]}" >"$TMP/qemu-$v.cmd"
	tq=$(date +%s)
	# The builds are done: other rows may build while this guest runs.
	vm_build_unlock
	timeout -k 5 "$TIMEOUT" "$PROXYD" --ivshmem "$SOCK" --vectors 32 --opts "$MOPTS" -- "${QCMD[@]}" \
		</dev/null >"$LOG" 2>"$MLOG" &
	QPID=$!
	wait "$QPID"
	qrc=$?
	QPID=""
	vm_build_lock
	t1=$(date +%s)

	# Results, from the console outside the kernel-log section.
	steps_results "$LOG" "$tag"
	ended=$STEPS_ENDED
	grep '^STUDY ' "$LOG.txt"
	if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
		fail "guest $tag" "timed out after ${TIMEOUT}s$([ $ended = 0 ] && echo ", before the end marker (console tail below)")"
	elif [ $ended = 0 ]; then
		fail "guest $tag" "did not reach the end marker: hang, panic or crash (console and model log below)"
		show "$MLOG" 10
	elif [ $qrc -ne 0 ]; then
		fail "guest $tag" "fdma-proxyd or qemu exited with status $qrc (model log below)"
		show "$MLOG" 10
	fi
	[ $ended = 0 ] && show "$LOG.txt" 40
	steps_dmesg "$LOG" "$tag" "$TMP/dmesg-$v"
	# The model's own counts: what crossed the proxy and the carrier.
	grep '^fdma-proxyd: config accesses' "$MLOG" | sed 's/^/    /'
	echo "== kernel $v (proxy $ENGINE): $((t1 - t0)) s (QEMU $((t1 - tq)) s)"
}

for v in "${KERNELS[@]}"; do
	run_kernel "$v"
done
echo "== proxy $ENGINE: $(($(date +%s) - T_START)) s in all"
echo "vm: $NPASS passed, $NFAIL failed"
[ $NFAIL -eq 0 ] && [ $NPASS -gt 0 ]
