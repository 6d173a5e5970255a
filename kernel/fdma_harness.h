/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fdma.ko's hooks for the VM harness (docs/vm-harness.md), whose code is
 * in harness/ and built into fdma.ko only with FDMA_HARNESS=y (Kbuild):
 *
 *   harness/fdma_ivshmem.c  QEMU's ivshmem-doorbell holding the device
 *                           model's register file (ivshmem=1)
 *   harness/fdma_carrier.c  the interrupt carrier of a function behind
 *                           QEMU's proxy (irq_carrier=1)
 *   harness/fdma_edu.c      QEMU's edu device as /dev/fdma-eduN (edu=1)
 *   harness/fdma_mdbg.c     the device model's test block in debugfs
 *
 * Each hook below is implemented in the file it belongs to.
 *
 * The fdma.ko a user builds (DKMS, make -C kernel) has none of them: each
 * hook is then an empty inline, and the PCI table has no ivshmem entry.
 */
#ifndef FDMA_HARNESS_H
#define FDMA_HARNESS_H

#include <linux/err.h>
#include <linux/pci.h>

struct dentry;
struct fdma_device;

#define FDMA_ID_IVSHMEM		1	/* pci_device_id.driver_data */

#ifdef FDMA_HARNESS

/*
 * QEMU's ivshmem is a generic device: it is bound only with ivshmem=1 (or
 * irq_carrier=1), and left out of the module alias table so that it does
 * not load this module by itself.
 */
#define FDMA_HARNESS_PCI_IDS \
	{ PCI_DEVICE(0x1af4, 0x1110), .driver_data = FDMA_ID_IVSHMEM },

int fdma_harness_init(void);
void fdma_harness_exit(void);

/*
 * An ivshmem function, before it becomes a device: 1 if the harness took
 * it (the interrupt carrier), 0 to go on (fdma_harness_attach() then
 * makes fdev its stand-in), -ENODEV without ivshmem=1.
 */
int fdma_harness_claim(struct pci_dev *pdev);
void fdma_harness_attach(struct fdma_device *fdev);
/* remove() of a function that is no device of ours: the carrier. */
void fdma_harness_release(struct pci_dev *pdev);

/*
 * Whose vectors fdev's interrupts use: NULL for its own function's, the
 * carrier (irq_carrier=1), or ERR_PTR(-EPROBE_DEFER) until the carrier is
 * bound. A carrier is given back with fdma_harness_irq_put().
 */
struct pci_dev *fdma_harness_irq_pdev(struct fdma_device *fdev);
void fdma_harness_irq_put(struct fdma_device *fdev, struct pci_dev *irq_pdev);

/* The model's test block, where fdev is a device model: fdmaN/model. */
void fdma_harness_debugfs(struct fdma_device *fdev, struct dentry *dir);

#else	/* a card's fdma.ko */

#define FDMA_HARNESS_PCI_IDS

static inline int fdma_harness_init(void)
{
	return 0;
}

static inline void fdma_harness_exit(void)
{
}

static inline int fdma_harness_claim(struct pci_dev *pdev)
{
	return -ENODEV;
}

static inline void fdma_harness_attach(struct fdma_device *fdev)
{
}

static inline void fdma_harness_release(struct pci_dev *pdev)
{
}

static inline struct pci_dev *fdma_harness_irq_pdev(struct fdma_device *fdev)
{
	return NULL;
}

static inline void fdma_harness_irq_put(struct fdma_device *fdev,
					struct pci_dev *irq_pdev)
{
}

static inline void fdma_harness_debugfs(struct fdma_device *fdev,
					struct dentry *dir)
{
}

#endif /* FDMA_HARNESS */
#endif /* FDMA_HARNESS_H */
