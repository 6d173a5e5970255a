# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# tests/vm/proxy/run.sh --net: fdma.ko's network interfaces on the proxied
# model's two joined stream pairs (loop=1,streams=2), with the traffic of
# tests/vm/guest/net.sh (which ends by removing fdma.ko with a flood running).
. /tests/vmlib.sh
ENGINE=${fdmavm_engine:-xdma}
export fdmavm_engine=$ENGINE
args="irq_carrier=1 net=1"
[ "$ENGINE" = xdma ] && args="$args xdma_card_size=0x40000000"
if ! insmod /fdma.ko $args 2>/tmp/ins.err; then
	fail net_probe "insmod /fdma.ko $args: $(cat /tmp/ins.err)"
	return 0
fi
sh /tests/net.sh
