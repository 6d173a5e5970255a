# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# tests/vm/proxy/run.sh --net: fdma.ko's network interfaces on the proxied
# model's two joined stream pairs (loop=1,streams=2), with the traffic of
# tests/vm/guest/net.sh (which ends by removing fdma.ko with a flood running).
. /tests/vmlib.sh
ENGINE=${fdmavm_engine:-xdma}
export fdmavm_engine=$ENGINE
args="irq_carrier=1"
[ "$ENGINE" = xdma ] && args="$args xdma_card_size=0x40000000"

# XDMA's joined streams have no test block, so the engine cannot drop a
# frame: the character device refuses FDMA_IOC_DROP (-EOPNOTSUPP) and
# fdma stream --drop says why, as the interface refuses ethtool -A tx off.
if [ "$ENGINE" = xdma ]; then
	if ! insmod /fdma.ko $args 2>/tmp/ins.err; then
		fail net_drop_refused "insmod /fdma.ko $args: $(cat /tmp/ins.err)"
	elif ! node=$(fdma_wait_node engine); then
		fail net_drop_refused "no /sys/class/fdma/fdmaN after insmod"
	elif /e2e/fdma stream kdev:/dev/$node --drop --seconds 1 >/tmp/drop.out 2>&1; then
		fail net_drop_refused "fdma stream --drop ran: $(tr '\n' ' ' </tmp/drop.out)"
	elif grep -q 'cannot drop frames' /tmp/drop.out; then
		pass net_drop_refused
	else
		fail net_drop_refused "$(tr '\n' ' ' </tmp/drop.out)"
	fi
	rmmod fdma 2>/dev/null
fi

args="$args net=1"
if ! insmod /fdma.ko $args 2>/tmp/ins.err; then
	fail net_probe "insmod /fdma.ko $args: $(cat /tmp/ins.err)"
	return 0
fi
sh /tests/net.sh
