# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Step of tests/vm/versal/init.sh (sourced): the device-tree binding a
# dmaengine client uses. run.sh gave the first two ZDMA nodes phandles and
# #dma-cells and added a node `compatible = "fdma,dtprobe"` with dmas =
# <ZDMA0 0>, <ZDMA1 0> and dma-names = "tx", "rx"; dtprobe.ko
# (tests/vm/versal/dtprobe.c) binds to it, requests the channels by name
# and runs a batch of memcpys on "tx" with one issue_pending.
if [ ! -e /proc/device-tree/fdma-dtprobe/compatible ]; then
	fail dt_binding "no /fdma-dtprobe node in the device tree the guest booted"
	return 1
fi
kmark dt-binding
insmod /modules/dtprobe.ko || { fail dt_binding "insmod dtprobe.ko failed"; return 1; }
log=$(klog_since dt-binding | grep 'dtprobe')
rmmod dtprobe
say "$log"

# dma_request_chan() resolves both names through the ZDMA xlate to each
# controller's single channel (memcpy-only, taken private); an unknown name
# and a second request of a held channel are -ENODEV.
why=""
echo "$log" | grep -q 'tx -> dma0chan0 (xilinx-zynqmp-dma ffa80000\.dma) memcpy 1 slave 0 cyclic 0 private 1 ' ||
	why="$why; tx did not resolve to dma0chan0 of ffa80000.dma (memcpy, private)"
echo "$log" | grep -q 'rx -> dma1chan0 (xilinx-zynqmp-dma ffa90000\.dma) memcpy 1 slave 0 cyclic 0 private 1 ' ||
	why="$why; rx did not resolve to dma1chan0 of ffa90000.dma (memcpy, private)"
echo "$log" | grep -q 'dma_request_chan(nosuch): -19$' || why="$why; an unknown dma-name was not -ENODEV"
echo "$log" | grep -q 'tx requested twice: -19$' || why="$why; a held channel could be requested again"
if [ -z "$why" ]; then pass dt_binding; else fail dt_binding "${why#; }"; fi

# The batch: every prepared memcpy called back once, no error, every byte
# right. (ZDMA has 32 descriptors a channel: the 33rd prep is NULL; the
# client must take that as "full", so the count is said, not required.)
b=$(echo "$log" | sed -n 's/.*batch: \([0-9]*\) memcpy of [0-9]* B, one issue_pending, \([0-9]*\) callbacks (softirq [0-9]* hardirq [0-9]*, err \([0-9]*\)), \([0-9]*\) bad bytes.*/\1 \2 \3 \4/p')
# shellcheck disable=SC2086  # four numbers, split on purpose
set -- $b
if [ $# -ne 4 ]; then
	fail dt_memcpy_batch "dtprobe printed no batch result"
elif [ "$1" -gt 0 ] && [ "$2" = "$1" ] && [ "$3" = 0 ] && [ "$4" = 0 ]; then
	pass dt_memcpy_batch
else
	fail dt_memcpy_batch "$1 prepared, $2 callbacks, $3 with an error result, $4 bad bytes"
fi
