#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/vm/guest/dmatest.sh NAME [polled|unbind]: Linux's own dmaengine test
# client (/dmatest.ko, built by tests/vm/run.sh from the kernel series'
# source) against fdma.ko's provider (loaded with dmaengine=1): two threads
# on each of the engine's memory-to-memory channels, 16 KiB buffers,
# iterations copies each, every byte checked by dmatest itself. polled:
# dmatest waits with dma_sync_wait() (a busy loop on tx_status) instead of
# the completion callback. Passes when every thread's summary says
# 0 failures and as many threads reported as were started.
# unbind: the fdma device is unbound from the driver while the threads
# copy: every thread must still end with its summary (what was in flight
# completes aborted, later preps fail: failures are expected), then, with
# dmatest gone, the device binds again.
# Prints "VMTEST PASS NAME" or "VMTEST FAIL NAME: why".
# kmark, klog: vmlib.sh (its fail is replaced below).
. "$(dirname "$0")/vmlib.sh"
name=${1:?usage: dmatest.sh NAME [polled|unbind]}
mode=${2:-irq}
iters=${dmatest_iters:-500}

fail() { echo "VMTEST FAIL $name: $1"; exit 1; }

nchan=$(cat /sys/class/fdma/fdma*/ch*/kind 2>/dev/null | grep -c "^mem")
[ "$nchan" -gt 0 ] || fail "no memory-to-memory channel in /sys/class/fdma/fdma*/ch*/kind"
polled=0
[ "$mode" = polled ] && polled=1
kmark
insmod /dmatest.ko timeout=10000 iterations=$iters threads_per_chan=2 \
	test_buf_size=16384 max_channels="$nchan" polled=$polled 2>/tmp/dt.err ||
	fail "insmod /dmatest.ko: $(cat /tmp/dt.err)"
echo 1 >/sys/module/dmatest/parameters/run || { rmmod dmatest; fail "cannot start dmatest"; }
threads=$((nchan * 2))
if [ "$mode" = unbind ]; then
	dev=$(ls /sys/class/fdma/ | grep '^fdma[0-9]' | head -1)
	bdf=$(basename "$(readlink /sys/class/fdma/$dev/device)")
	sleep 1
	echo "$bdf" >/sys/bus/pci/drivers/fdma/unbind || fail "cannot unbind $bdf"
	# The threads now fail every copy (a prep refused, then a 100 ms nap): stop them.
	sleep 1
	echo 0 >/sys/module/dmatest/parameters/run
	cat /sys/module/dmatest/parameters/wait >/dev/null
	sums=$(klog | grep -c 'dmatest: .*summary')
	klog | grep 'dmatest: .*summary' | sed 's/^/    /'
	# The core lists an unbound provider until its last client goes.
	cat /sys/kernel/debug/dmaengine/summary >/tmp/dt.sum 2>&1 ||
		fail "reading debugfs dmaengine/summary after the unbind: $(tail -1 /tmp/dt.sum)"
	sed 's/^/    /' /tmp/dt.sum
	rmmod dmatest || fail "rmmod dmatest after the unbind"
	[ "$sums" -eq "$threads" ] || fail "$sums of $threads threads ended with a summary after the unbind"
	echo "$bdf" >/sys/bus/pci/drivers/fdma/bind || fail "cannot bind $bdf again"
	ls /sys/class/fdma/ | grep -q '^fdma[0-9]' || fail "no fdma device after binding $bdf again"
	echo "VMTEST PASS $name"
	exit 0
fi
# wait blocks while a thread runs, but not for one that has not run yet
# (dmatest counts a thread as running once it has been scheduled:
# is_threaded_test_run() in dmatest.c), so a read soon after run=1 may come
# back before the copies started: read it until every thread printed its
# summary (each copy has its own timeout; 10 s more at most once none runs).
n=0
while cat /sys/module/dmatest/parameters/wait >/dev/null &&
	[ "$(klog | grep -c 'dmatest: .*summary')" -lt "$threads" ] && [ $n -lt 100 ]; do
	n=$((n + 1))
	sleep 0.1
done
klog | grep 'dmatest' | sed 's/^/    /'
sums=$(klog | grep -c 'dmatest: .*summary [0-9]* tests, 0 failures')
bad=$(klog | grep 'dmatest: .*summary' | grep -vc ', 0 failures')
# The channels stay held until dmatest goes: the caller checks that.
if [ "$sums" -ne "$threads" ] || [ "$bad" -ne 0 ]; then
	fail "$sums of $threads threads reported 0 failures, $bad reported failures (log above)"
fi
echo "VMTEST INFO $name: $threads threads on $nchan channels, $iters copies each, 0 failures ($mode)"
echo "VMTEST PASS $name"
