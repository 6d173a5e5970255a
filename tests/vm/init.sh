#!/bin/sh
# SPDX-License-Identifier: MIT
# /init of the fdma test VM (tests/vm/run.sh builds the initramfs around it).
#
# Runs the driverless smoke tests in /smoke (they must see the device
# unbound), then /tests/run-guest.sh if present (the kernel driver's tests),
# prints the kernel log between markers and powers off. Every test prints
# "VMTEST PASS <name>" or "VMTEST FAIL <name>: <why>"; run.sh on the host
# counts them. Kernel command-line parameters fdmavm_* reach us (and the
# tests) as environment variables: fdmavm_nchan (channels the model has),
# fdmavm_opts (fdma-modeld's --opts), fdmavm_arch (x86_64 or arm64),
# fdmavm_coherent (1, or 0 when the PCIe host is not dma-coherent),
# fdmavm_swiotlb (1 when booted with swiotlb=force), fdmavm_edu_dma_bits
# (the DMA mask QEMU's edu device was given: 28, QEMU's default, or 32).
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm /tmp /run /sys/kernel/debug
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
[ -e /dev/null ] || mknod -m 666 /dev/null c 1 3
[ -e /dev/console ] || mknod -m 600 /dev/console c 5 1
ln -sf /proc/self/fd /dev/fd 2>/dev/null
hostname fdma-vm
export fdmavm_nchan fdmavm_opts fdmavm_arch fdmavm_coherent fdmavm_swiotlb fdmavm_edu_dma_bits fdmavm_debug fdmavm_cov fdmavm_fuzz_secs fdmavm_fuzz_seed fdmavm_only fdmavm_ring net_cycles net_drop_free study_secs study_sizes study_rates

echo "VMTEST BEGIN $(uname -r)"
echo "fdma-vm: ${fdmavm_arch:-?}, coherent ${fdmavm_coherent:-?}, swiotlb ${fdmavm_swiotlb:-?}, edu DMA mask ${fdmavm_edu_dma_bits:-?} bits"
echo "fdma-vm: tests start" > /dev/kmsg

# The guest runs as run.sh meant: the PCIe host's coherence in the device
# tree (arm64 boots with or without its dma-coherent property), bounce
# buffers set up when booted with swiotlb=force.
why=""
if [ "${fdmavm_arch:-}" = arm64 ]; then
	dt=0
	[ -e /proc/device-tree/pcie@10000000/dma-coherent ] && dt=1
	[ "$dt" = "${fdmavm_coherent:-1}" ] ||
		why="$why; /pcie@10000000 dma-coherent is $dt in the device tree, fdmavm_coherent=${fdmavm_coherent:-}"
fi
if [ "${fdmavm_swiotlb:-0}" = 1 ]; then
	n=$(cat /sys/kernel/debug/swiotlb/io_tlb_nslabs 2>/dev/null)
	[ "${n:-0}" -gt 0 ] 2>/dev/null ||
		why="$why; swiotlb=force but no bounce buffers (io_tlb_nslabs: ${n:-missing})"
fi
if [ -z "$why" ]; then
	echo "VMTEST PASS vm_setup"
else
	echo "VMTEST FAIL vm_setup: ${why#; }"
fi

# run_test NAME CMD...: run it with its output on the console; a test that
# reports nothing, or exits non-zero without reporting a failure, fails.
run_test() {
	name=$1
	shift
	rm -f /tmp/rc /tmp/out
	{ "$@"; echo $? > /tmp/rc; } 2>&1 | tee /tmp/out
	rc=$(cat /tmp/rc 2>/dev/null || echo 255)
	if ! grep -q 'VMTEST \(PASS\|FAIL\|SKIP\) ' /tmp/out; then
		echo "VMTEST FAIL $name: exited with status $rc and reported no result"
	elif [ "$rc" != 0 ] && ! grep -q 'VMTEST FAIL ' /tmp/out; then
		echo "VMTEST FAIL $name: exited with status $rc"
	fi
}

# The debug kernel (fdmavm_debug=1): what kmemleak suspects after boot is
# not ours; the check at the end reports only what is new.
KML=/sys/kernel/debug/kmemleak
if [ "${fdmavm_debug:-0}" = 1 ] && [ -e $KML ]; then
	echo scan > $KML
	echo clear > $KML
	# Its scans are the end's, with everything of ours unloaded: a scan
	# in the middle of a transfer may take memory the device holds by
	# bus address alone for a leak.
	echo scan=off > $KML
fi
# The DMA API's debug prints its first error only, unless told.
[ "${fdmavm_debug:-0}" = 1 ] && echo 1000 > /sys/kernel/debug/dma-api/num_errors 2>/dev/null

# Driverless smoke tests first: nothing may be bound to the device yet.
# With an injected fault they would use it up (the model counts
# descriptors from its start), so the driver's tests get it instead.
run_test bar2_id /smoke/bar2_id "${fdmavm_nchan:-0}"
case "${fdmavm_opts:-}" in
*fault=*) echo "smoke DMA tests skipped: fault injection is for the driver's tests" ;;
*)
	for t in /smoke/*; do
		case $t in */bar2_id) continue ;; esac
		[ -x "$t" ] && run_test "${t##*/}" "$t"
	done
	;;
esac

# What fdma.ko needs loaded before an insmod of it (V4L2 and vb2, where the
# kernel builds them as modules): tests/vm/lib/moddeps.sh lists them.
for m in $(cat /fdma.deps 2>/dev/null); do
	modprobe "$m" || echo "VMTEST FAIL fdma_deps: modprobe $m"
done

# Coverage (fdmavm_cov=1, run.sh --coverage): the store the modules record into, first.
[ "${fdmavm_cov:-0}" = 1 ] && sh /tests/coverage.sh start

# The kernel driver's tests (tests/vm/guest/run-guest.sh).
if [ -e /tests/run-guest.sh ]; then
	cd /tests || true
	run_test run-guest.sh sh /tests/run-guest.sh
	cd /
fi

# Coverage: what the whole row reached, for run.sh (tests/vm/cov-report.sh);
# it unloads the modules, fdma_covstore last.
[ "${fdmavm_cov:-0}" = 1 ] && sh /tests/coverage.sh end

# The debug kernel's own verdicts, with every module of ours unloaded:
# kmemleak finds nothing new since the tests began, the DMA API's debug
# counted no error and did not give up (out of entries).
if [ "${fdmavm_debug:-0}" = 1 ]; then
	for pass in 1 2; do
		for m in fdma_slavetest fdma_testexp dmatest fdma_dmac fdma fdma_nvp2p_standin pktgen; do
			grep -q "^$m " /proc/modules && rmmod $m 2>/dev/null
		done
	done
	left=$(grep -o '^\(fdma[a-z0-9_]*\|dmatest\|pktgen\) ' /proc/modules | tr -d '\n')
	if [ -n "$left" ]; then
		echo "VMTEST FAIL debug_rmmod: still loaded: $left"
	else
		echo "VMTEST PASS debug_rmmod"
	fi
	if [ -e $KML ]; then
		# An object is a suspect once it is 5 s old and unreferenced in a scan.
		sleep 6
		echo scan > $KML
		echo scan > $KML
		# (A debugfs file has no size: its text is read.)
		cat $KML >/tmp/kmemleak
		if [ -s /tmp/kmemleak ]; then
			echo "VMTEST FAIL debug_kmemleak: $(grep -c '^unreferenced object' /tmp/kmemleak) unreferenced objects:"
			head -300 /tmp/kmemleak
		else
			echo "VMTEST PASS debug_kmemleak"
		fi
	else
		echo "VMTEST FAIL debug_kmemleak: no $KML"
	fi
	D=/sys/kernel/debug/dma-api
	if [ ! -e $D/error_count ]; then
		echo "VMTEST FAIL debug_dma_api: no $D/error_count"
	elif [ "$(cat $D/error_count)" != 0 ]; then
		echo "VMTEST FAIL debug_dma_api: error_count $(cat $D/error_count) (the reports are in the kernel log)"
	elif [ "$(cat $D/disabled)" != N ]; then
		echo "VMTEST FAIL debug_dma_api: the DMA API's debug disabled itself (out of entries?)"
	else
		echo "VMTEST PASS debug_dma_api"
	fi
fi

echo "VMTEST DMESG BEGIN"
# The whole log: busybox reads 16 KiB unless told, the debug kernel's holds 2 MiB.
dmesg -s 4194304
echo "VMTEST DMESG END"
echo "VMTEST END"
sync
poweroff -f
