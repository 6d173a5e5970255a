/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the VM harness's files share (fdma_harness.h has the hooks fdma.ko
 * calls, fdma_harness.c implements them over these).
 */
#ifndef FDMA_HARNESS_PRIV_H
#define FDMA_HARNESS_PRIV_H

#include <linux/pci.h>

struct dentry;
struct fdma_device;
struct fdma_shim_ops;

/* fdma_ivshmem.c */
extern bool fdma_param_ivshmem;
extern const struct fdma_shim_ops fdma_ivshmem_shim;

/* fdma_carrier.c */
extern bool fdma_param_irq_carrier;
int fdma_carrier_probe(struct pci_dev *pdev);
void fdma_carrier_remove(struct pci_dev *pdev);
struct pci_dev *fdma_carrier_get(void);
void fdma_carrier_put(struct pci_dev *carrier);

/* fdma_edu.c: edu=1 registers its driver */
int fdma_edu_init(void);
void fdma_edu_exit(void);

/* fdma_mdbg.c */
void fdma_mdbg_debugfs(struct fdma_device *fdev, struct dentry *dir);

#endif /* FDMA_HARNESS_PRIV_H */
