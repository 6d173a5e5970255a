# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Each fault, armed at run time in the model's test block, on each
# memory-mapped channel: the transfer fails (or, irq, is only late), the
# channel is recovered without reloading the module. (magic is XDMA's; the
# FDMA model takes it as a descriptor fetch error.)
. /tests/vmlib.sh
if [ "${fdmavm_engine:-}" = rtl ]; then
	echo "VMTEST SKIP faults: the RTL has no test block to arm them"
	return 0
fi
rmmod fdma
if ! insmod /fdma.ko $(cat /tmp/koargs) timeout_ms=1000 2>/tmp/ins.err; then
	fail faults "insmod: $(cat /tmp/ins.err)"
	return 0
fi
fdma_wait_node engine >/dev/null
for k in desc magic data stuck irq; do
	for ch in 0 1; do
		t "xfault_${k}_ch$ch" /tests/fdma_xfault $k $ch
	done
done
