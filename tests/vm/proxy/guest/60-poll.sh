# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Poll mode (XDMA's; any engine's here): no interrupts at all
# (irq_mode=poll, no carrier); the driver's thread reaps. The same
# transfers pass, and no interrupt is taken.
. /tests/vmlib.sh
args=$(sed 's/irq_carrier=1//' /tmp/koargs)
if ! insmod /fdma.ko irq_mode=poll $args ring_size=256 2>/tmp/ins.err; then
	fail poll "insmod irq_mode=poll: $(cat /tmp/ins.err)"
	return 0
fi
dev=$(fdma_wait_node engine)
mode=$(cat /sys/class/fdma/$dev/irq_mode 2>/dev/null)
[ "$mode" = poll ] && pass poll_mode || fail poll_mode "irq_mode is '$mode', not poll"
T=/tests
t poll_rw_patterns $T/fdma_rw
t poll_ioc_xfer $T/fdma_ioc_xfer
t poll_ioc_poll $T/fdma_ioc_poll
irqs=$(awk '/fdma/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts)
[ "$irqs" = 0 ] && pass poll_no_interrupts || fail poll_no_interrupts "$irqs fdma interrupts in /proc/interrupts"
rmmod fdma
