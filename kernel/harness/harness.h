/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The one thing the VM harness's files share beyond the hooks of
 * fdma_harness.h (each implemented in the file it belongs to): ivshmem's
 * claim (fdma_ivshmem.c) binds the interrupt carrier (fdma_carrier.c).
 */
#ifndef FDMA_HARNESS_PRIV_H
#define FDMA_HARNESS_PRIV_H

#include <linux/pci.h>

extern bool fdma_param_irq_carrier;
int fdma_carrier_probe(struct pci_dev *pdev);

#endif /* FDMA_HARNESS_PRIV_H */
