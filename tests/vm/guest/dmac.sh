#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/vm/guest/dmac.sh: fdma_dmac.ko, user-space DMA over dmaengine,
# over fdma.ko's own provider (run-guest.sh has loaded fdma.ko with
# dmaengine=1: the model's two memory-to-memory channels are private
# DMA_MEMCPY channels of Linux's dmaengine). The client's node is a second
# /dev/fdmaN whose rings are those dmaengine channels; the same programs
# that test fdma.ko's own copy channels run against it (FDMA_VM_DEV names
# the node, FDMA_VM_TAG=_dmac their results), then the end-to-end tests of
# libfdma's kdev: backend and the fdma command, and the client's own
# checks (fdma_dmac: notification, close and kill in flight, coalescing).
# Prints "VMTEST PASS <name>" or "VMTEST FAIL <name>: <why>".
T=/tests
KO=/fdma_dmac.ko

# pass, fail, t NAME CMD..., fdma_node BACKEND: vmlib.sh.
. "$T/vmlib.sh"

[ -e $KO ] || { fail dmac_ko "$KO is missing"; exit 0; }

# Bad parameters: refused at load with a message naming them, and every
# channel a refused load took is given back (the last load takes both).
bad=""
for p in chans=bogus chans=memcpy*0 chans=memcpy*3 'chans=memcpy,,memcpy' \
	ring_size=3 ring_size=131072 max_piece=100 max_piece=2147483648; do
	kmark
	if insmod $KO "$p" 2>/dev/null; then
		bad="$bad $p(loaded)"
		rmmod fdma_dmac
	elif ! klog | grep -q 'fdma_dmac: '; then
		bad="$bad $p(no message)"
	fi
done
if [ -z "$bad" ]; then pass dmac_bad_params; else fail dmac_bad_params "$bad"; fi

# The default: one group of every free memcpy channel.
if ! insmod $KO 2>/tmp/dm.err; then
	fail dmac_load "insmod $KO: $(cat /tmp/dm.err)"
	exit 0
fi
dev=$(fdma_node dmaengine) || { fail dmac_load "no fdma node with backend dmaengine"; rmmod fdma_dmac; exit 0; }
S=/sys/class/fdma/$dev
# Its channels' dmaengine names, from its log lines.
c0=$(dmesg | sed -n "s/.*$dev: channel 0: \([^ ]*\) of .*/\1/p" | tail -1)
c1=$(dmesg | sed -n "s/.*$dev: channel 1: \([^ ]*\) of .*/\1/p" | tail -1)
if [ "$(cat $S/channels)" = 2 ] && [ "$(cat $S/link_speed)" = n/a ] &&
	[ "$(cat /sys/class/dma/$c0/in_use)" = 1 ]; then
	pass dmac_load
else
	fail dmac_load "$dev: channels $(cat $S/channels), link $(cat $S/link_speed), $c0 in_use $(cat /sys/class/dma/$c0/in_use)"
fi
dmesg | grep "$dev" | sed 's/^/    /'

# A copy may be reaped before the free that ioc_copy_busy tries
# (FDMA_VM_FAST): the client reaps by tx_status as soon as it looks.
export FDMA_VM_DEV=$dev FDMA_VM_TAG=_dmac FDMA_VM_FAST=1
t ioc_copy_dmac $T/fdma_ioc_copy
t dmac $T/fdma_dmac
unset FDMA_VM_DEV FDMA_VM_TAG FDMA_VM_FAST

# libfdma's kdev: backend on the node: the copy tests of tests/sim/ and the
# fdma command (info, bench --dir copy, every byte checked).
URI=kdev:/dev/$dev
for E in /e2e /e2e-asan; do
	[ -x $E/test_copy ] || continue
	tag=${E#/e2e}; tag=${tag:+_asan}
	n=e2e${tag}_copy_dmac
	FDMA_TEST_DEVICE=$URI ASAN_OPTIONS=abort_on_error=0:exitcode=99 $E/test_copy >/tmp/dm.e2e 2>&1
	rc=$?
	sed 's/^/    /' /tmp/dm.e2e
	ok=$(grep -c '^\[       OK \]' /tmp/dm.e2e)
	if grep -q 'ERROR: AddressSanitizer\|runtime error:' /tmp/dm.e2e; then
		fail $n "sanitizer report: $(grep -m1 'ERROR: \|runtime error:' /tmp/dm.e2e)"
	elif [ $rc != 0 ] || [ "$ok" = 0 ]; then
		fail $n "exit status $rc, $ok passed: $(grep '^\[  FAILED  \] test' /tmp/dm.e2e | sed 's/.*\] //' | tr '\n' ' ')"
	else
		pass "$n ($ok passed)"
	fi
done
if /e2e/fdma info $URI >/tmp/dm.info 2>&1; then
	sed 's/^/    /' /tmp/dm.info
	if grep -q dmaengine /tmp/dm.info; then pass fdma_info_dmac; else fail fdma_info_dmac "does not say dmaengine"; fi
else
	fail fdma_info_dmac "$(tail -1 /tmp/dm.info)"
fi
if /e2e/fdma bench $URI --dir copy --sizes 4K,64K,256K --batch 16 --seconds 1 --json >/tmp/dm.json 2>/tmp/dm.err; then
	sed 's/^/    /' /tmp/dm.json
	if [ ! -s /tmp/dm.json ] || grep -v '"errors":0[,}]' /tmp/dm.json | grep -q .; then
		fail fdma_bench_copy_dmac "integrity errors or no rows"
	else
		pass fdma_bench_copy_dmac
	fi
else
	fail fdma_bench_copy_dmac "$(tail -2 /tmp/dm.err)"
fi

# rmmod while a file is open: refused (the node's owner is fdma_dmac);
# after the close it goes, and the provider's channels are free again.
exec 3<>/dev/$dev
if rmmod fdma_dmac 2>/dev/null; then
	fail dmac_rmmod_open "rmmod fdma_dmac went through with /dev/$dev open"
else
	pass dmac_rmmod_open
fi
exec 3<&-
if rmmod fdma_dmac 2>/tmp/dm.err; then
	if [ "$(cat /sys/class/dma/$c0/in_use)" = 0 ] && ! [ -e /sys/class/fdma/$dev ]; then
		pass dmac_rmmod
	else
		fail dmac_rmmod "$c0 in_use $(cat /sys/class/dma/$c0/in_use) or /sys/class/fdma/$dev left"
	fi
else
	fail dmac_rmmod "$(cat /tmp/dm.err)"
fi

# Slave channels: fdma.ko's stream channels through its DMA_SLAVE provider
# (named by the provider's device: the client tries its free slave channels
# for the direction), the engine's test generator feeding the C2H one and
# its checker draining the H2C one: every frame checked on both sides.
eng=$(fdma_node engine)
bdf=$(basename "$(readlink /sys/class/fdma/$eng/device)")
tg() { FDMA_VM_DEV=$eng $T/fdma_tg "$@"; }
if ! tg c2h on 4096 >/tmp/dm.tg 2>&1 || ! tg h2c reset >>/tmp/dm.tg 2>&1 ||
	! tg h2c on 4096 >>/tmp/dm.tg 2>&1; then
	fail dmac_slave "the test generator and checker of $eng: $(tail -1 /tmp/dm.tg)"
elif ! insmod $KO "chans=c2h:$bdf,h2c:$bdf" 2>/tmp/dm.err; then
	fail dmac_slave "insmod $KO chans=c2h:$bdf,h2c:$bdf: $(cat /tmp/dm.err)"
else
	sdev=$(fdma_node dmaengine)
	for c in 0 1; do
		echo "    $sdev ch$c: $(cat /sys/class/fdma/$sdev/ch$c/dir) $(cat /sys/class/fdma/$sdev/ch$c/kind), $(cat /sys/class/fdma/$sdev/ch$c/source)"
	done
	if /e2e/fdma stream kdev:/dev/$sdev --frame-size 4096 --buffers 8 --seconds 1 --json \
		>/tmp/dm.json 2>/tmp/dm.err && ! grep -q '"frames":0[,}]' /tmp/dm.json; then
		sed 's/^/    /' /tmp/dm.json
		pass fdma_stream_dmac
	else
		fail fdma_stream_dmac "$(tail -1 /tmp/dm.err) $(cat /tmp/dm.json)"
	fi
	FDMA_VM_DEV=$sdev FDMA_VM_TAG= $T/fdma_dmac_stream
	rmmod fdma_dmac
	got=$(tg h2c query)
	if [ "$got" = "frames 40 errors 0" ]; then
		pass dmac_h2c_checked
	else
		fail dmac_h2c_checked "the checker counted '$got' of 40 frames sent through the client"
	fi
fi
tg c2h off >/dev/null 2>&1
tg h2c off >/dev/null 2>&1

# The comparison's program (docs/studies/dmaengine.md), briefly, in each
# mode: it runs and every byte arrives; its figures are the study's, not a
# test's (TCG, two seconds).
for m in sync async signal; do
	p=""
	[ $m = sync ] && p=sync_wait=1
	if ! insmod $KO $p 2>/tmp/dm.err; then
		fail dmac_study_$m "insmod $KO $p: $(cat /tmp/dm.err)"
		continue
	fi
	if FDMA_VM_DEV=$(fdma_node dmaengine) $T/fdma_dmac_study $m 65536 500 1 >/tmp/dm.st 2>&1 &&
		grep -q '^STUDY {' /tmp/dm.st; then
		sed 's/^/    /' /tmp/dm.st
		pass dmac_study_$m
	else
		fail dmac_study_$m "$(tail -1 /tmp/dm.st)"
	fi
	rmmod fdma_dmac
done

# Channels named one by one, by their dmaengine names: two groups of one.
if insmod $KO "chans=$c0;$c1" 2>/tmp/dm.err; then
	n=0
	for d in /sys/class/fdma/fdma*; do
		[ "$(cat "$d/backend" 2>/dev/null)" = dmaengine ] &&
			[ "$(cat "$d/channels")" = 1 ] && n=$((n + 1))
	done
	if [ $n = 2 ]; then pass dmac_named; else fail dmac_named "chans=$c0;$c1 made $n nodes of one channel, not 2"; fi
	rmmod fdma_dmac || fail dmac_named "rmmod"
else
	fail dmac_named "insmod chans=$c0;$c1: $(cat /tmp/dm.err)"
fi

# A provider that holds its descriptors and whose terminate fails on demand
# (fdma_testexp.ko's), an imported dma-buf in flight: fdma_dmac.ko stays
# while the provider may still call back, a move keeps the mapping, a late
# callback finds the module, and all goes once terminate works again.
if [ ! -e /fdma_testexp.ko ]; then
	fail dmac_broken "no /fdma_testexp.ko"
elif insmod /fdma_testexp.ko 2>/tmp/dm.err; then
	t dmac_broken $T/fdma_dmac_broken
	rmmod fdma_testexp || fail dmac_broken "rmmod fdma_testexp"
else
	fail dmac_broken "insmod /fdma_testexp.ko: $(cat /tmp/dm.err)"
fi

exit 0
