# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# tests/vm/proxy/run.sh --net: fdma.ko's network interfaces on the proxied
# model's two joined stream pairs (loop=1,streams=2), with the traffic of
# tests/vm/guest/net.sh; then fdma.ko removed with a flood still running.
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
if rmmod fdma 2>/tmp/rm.err; then
	pass net_rmmod
else
	fail net_rmmod "$(cat /tmp/rm.err)"
fi
# What net.sh left flowing into the rmmod, and B's namespace.
[ -s /tmp/net.pids ] && kill $(cat /tmp/net.pids) 2>/dev/null
if dmesg | grep -q 'NETDEV WATCHDOG\|BUG:\|WARNING:'; then
	fail net_dmesg "$(dmesg | grep -m1 'NETDEV WATCHDOG\|BUG:\|WARNING:')"
else
	pass net_dmesg
fi
