# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Step of tests/vm/versal/init.sh (sourced): fdma_dmac.ko, user-space DMA
# over dmaengine, on the unmodified upstream zynqmp_dma driver and QEMU's
# ZDMA model. run.sh put two nodes `compatible = "fdma,dmaengine"` in the
# tree, each naming one ZDMA controller "mem0" (fdma-dmac0 with
# fdma,ring-size 1024: registered memory comes in 4 KiB pieces; fdma-dmac1
# with 128); fdma_dmac binds them as platform devices, so each
# becomes a /dev/fdmaN. On the first: the ioctl copy tests
# (fdma_ioc_copy: every size class, registered memory at odd page phases,
# bad inputs, buffers busy in flight, no leaks) and the client's own checks
# (fdma_dmac: one issue_pending per batch, coalesced callbacks, eventfd
# with epoll, SIGIO with F_SETSIG, more pieces than ZDMA's 32 descriptors,
# reset, close and kill in flight); libfdma's test_copy through kdev: and
# fdma info/bench --dir copy (arm64 builds with their libraries, /e2e);
# every byte checked. Then rmmod while open (refused), rmmod, and the ZDMA
# channel free again.
B=/modules
for m in fdma fdma_dmac; do
	[ -e $B/$m.ko ] || { fail dmac_zdma "no $B/$m.ko"; return 1; }
done
for p in fdma_ioc_copy fdma_dmac; do
	[ -x /bin/$p ] || { fail dmac_zdma "no /bin/$p"; return 1; }
done
kmark dmac
insmod $B/fdma.ko || { fail dmac_zdma "insmod fdma.ko"; return 1; }
insmod $B/fdma_dmac.ko || { fail dmac_zdma "insmod fdma_dmac.ko"; rmmod fdma; return 1; }
klog_since dmac | grep 'fdma' | say

# Two nodes, one channel each: which ZDMA controller carries each, its ring.
devs=""
for d in /sys/class/fdma/fdma*; do
	[ "$(cat "$d/backend" 2>/dev/null)" = dmaengine ] && devs="$devs ${d##*/}"
done
set -- $devs
why=""
[ $# = 2 ] || why="$why; $# dmaengine nodes, not 2"
for d in $devs; do
	src=$(cat /sys/class/fdma/$d/ch0/source)
	say "$d: $(cat /sys/class/fdma/$d/channels) channel, ring $(cat /sys/class/fdma/$d/ring_size), ch0 $src"
	case $src in
	*"of ffaa0000.dma (xilinx-zynqmp-dma)") [ "$(cat /sys/class/fdma/$d/ring_size)" = 1024 ] ||
		why="$why; $d (fdma-dmac0) has ring $(cat /sys/class/fdma/$d/ring_size), not fdma,ring-size 1024"; dev=$d ;;
	*"of ffab0000.dma (xilinx-zynqmp-dma)") [ "$(cat /sys/class/fdma/$d/ring_size)" = 128 ] ||
		why="$why; $d (fdma-dmac1) has ring $(cat /sys/class/fdma/$d/ring_size), not fdma,ring-size 128" ;;
	*) why="$why; $d carried by '$src'" ;;
	esac
done
[ -n "${dev:-}" ] || why="$why; no node on ffaa0000.dma"
if [ -z "$why" ]; then pass dmac_zdma_probe; else fail dmac_zdma_probe "${why#; }"; fi
if [ -z "${dev:-}" ]; then
	rmmod fdma_dmac
	rmmod fdma
	return 1
fi
ch=$(sed -n 's/^\([^ ]*\) of .*/\1/p' /sys/class/fdma/$dev/ch0/source)

i0=$(zdma_irqs)
# QEMU's ZDMA copies at once: a copy may be reaped before a free (FDMA_VM_FAST).
FDMA_VM_DEV=$dev FDMA_VM_TAG=_zdma FDMA_VM_FAST=1 /bin/fdma_ioc_copy
FDMA_VM_DEV=$dev FDMA_VM_TAG=_zdma /bin/fdma_dmac

# libfdma's kdev: backend on the node: the copy tests of tests/sim/
# (every size class, batches, every wait mode, bad inputs, busy buffers)
# and the fdma command (info, bench --dir copy with every byte checked).
URI=kdev:/dev/$dev
if [ -x /e2e/test_copy ]; then
	FDMA_TEST_DEVICE=$URI /e2e/test_copy >/tmp/e2e.out 2>&1
	rc=$?
	ok=$(grep -c '^\[       OK \]' /tmp/e2e.out)
	if [ $rc = 0 ] && [ "$ok" != 0 ]; then
		pass "e2e_copy_zdma ($ok passed)"
	else
		say </tmp/e2e.out
		fail e2e_copy_zdma "exit status $rc, $ok passed: $(grep '^\[  FAILED  \] test' /tmp/e2e.out | sed 's/.*\] //' | tr '\n' ' ')"
	fi
	if /e2e/fdma info $URI >/tmp/info.out 2>&1 && grep -q 'xilinx-zynqmp-dma' /tmp/info.out; then
		say </tmp/info.out
		pass fdma_info_zdma
	else
		fail fdma_info_zdma "$(tail -1 /tmp/info.out)"
	fi
	if /e2e/fdma bench $URI --dir copy --sizes 4K,64K --batch 16 --seconds 1 --json >/tmp/bench.json 2>/tmp/bench.err &&
		[ -s /tmp/bench.json ] && ! grep -v '"errors":0[,}]' /tmp/bench.json | grep -q .; then
		say </tmp/bench.json
		pass fdma_bench_copy_zdma
	else
		fail fdma_bench_copy_zdma "$(tail -1 /tmp/bench.err) $(head -c 300 /tmp/bench.json)"
	fi
else
	fail e2e_copy_zdma "no /e2e/test_copy (run.sh could not build the arm64 e2e programs)"
fi
say "ZDMA interrupts during the copies: $(($(zdma_irqs) - i0))"
say "$dev/ch0: $(cat /sys/class/fdma/$dev/ch0/transfers) transfers, $(cat /sys/class/fdma/$dev/ch0/descriptors) pieces, $(cat /sys/class/fdma/$dev/ch0/doorbells) issue_pending, $(cat /sys/class/fdma/$dev/ch0/interrupts) callbacks"

# rmmod while a file is open: refused; after the close it goes, the
# channel is free for another client, and the kernel log stays clean.
exec 3<>/dev/$dev
if rmmod fdma_dmac 2>/dev/null; then
	fail dmac_zdma_rmmod_open "rmmod fdma_dmac went through with /dev/$dev open"
else
	pass dmac_zdma_rmmod_open
fi
exec 3<&-
if ! rmmod fdma_dmac; then
	fail dmac_zdma_rmmod "rmmod fdma_dmac after the close"
elif [ "$(cat /sys/class/dma/$ch/in_use 2>/dev/null)" != 0 ] || [ -e /sys/class/fdma/$dev ]; then
	fail dmac_zdma_rmmod "$ch in_use $(cat /sys/class/dma/$ch/in_use 2>/dev/null), or /sys/class/fdma/$dev left"
else
	pass dmac_zdma_rmmod
fi
rmmod fdma
