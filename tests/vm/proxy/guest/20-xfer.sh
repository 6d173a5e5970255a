# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# The driver's own checks on the XDMA function: every size class both ways
# through read()/write() and the ioctls, every byte checked; wait modes;
# bad inputs; interrupts arriving (MSI-X through the carrier).
. /tests/vmlib.sh
T=/tests
t irq_msix $T/fdma_irqmode msix auto
t rw_patterns $T/fdma_rw
t bad_inputs $T/fdma_badio
t ioc_xfer $T/fdma_ioc_xfer
t ioc_poll $T/fdma_ioc_poll
t ioc_invalid $T/fdma_ioc_invalid
t ioc_fuzz $T/fdma_ioc_fuzz
t ioc_uapi $T/fdma_ioc_uapi
# XDMA: the FPGA's own interrupts as eventfds (FDMA_IOC_USER_IRQ).
if [ "${fdmavm_engine:-xdma}" = xdma ]; then
	t user_irq $T/fdma_uirq
fi
