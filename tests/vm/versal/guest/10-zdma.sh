# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Step of tests/vm/versal/init.sh (sourced): the upstream zynqmp_dma driver
# binds QEMU's 8 ZDMA controllers (ffa80000.dma .. ffaf0000.dma), each a
# dmaengine device with one channel: dma0chan0 .. dma7chan0.
# count FILES...: how many of them exist (a glob that matched nothing is 0)
count() { n=0; for f; do [ -e "$f" ] && n=$((n + 1)); done; echo $n; }
ndev=$(count /sys/bus/platform/devices/ffa[89a-f]0000.dma)
if ! insmod /modules/zynqmp_dma.ko; then
	fail zdma_probe "insmod zynqmp_dma.ko failed"
	return 1
fi
nbound=$(count /sys/bus/platform/drivers/xilinx-zynqmp-dma/ffa[89a-f]0000.dma)
chans=$(cd /sys/class/dma && echo *)
say "ZDMA platform devices: $ndev, bound to xilinx-zynqmp-dma: $nbound" "channels: $chans"
head -20 /sys/kernel/debug/dmaengine/summary 2>/dev/null | say
want="dma0chan0 dma1chan0 dma2chan0 dma3chan0 dma4chan0 dma5chan0 dma6chan0 dma7chan0"
if [ "$ndev" = 8 ] && [ "$nbound" = 8 ] && [ "$chans" = "$want" ]; then
	pass zdma_probe
else
	fail zdma_probe "expected 8 ZDMA controllers bound with channels $want; got $ndev devices, $nbound bound, channels '$chans'"
fi
