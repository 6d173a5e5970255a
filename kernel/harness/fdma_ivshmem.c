// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko, the VM harness's build: QEMU's ivshmem-doorbell (1af4:1110) as
 * an FDMA function's stand-in, bound with ivshmem=1 (docs/vm-harness.md).
 * fdma-modeld, the device model, is its peer: the register file is in the
 * shared memory (BAR2), and a register write is announced to the model by
 * a doorbell write to BAR0 (the engine core's kick, fdma_plat.h). Its
 * interrupts are ivshmem's: MSI-X, or INTx with ivshmem's IntrStatus read
 * to clear (QEMU docs/specs/ivshmem-spec.rst).
 */
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "fdma_drv.h"
#include "fdma_harness.h"
#include "harness.h"

/* ivshmem-doorbell BAR0 registers (QEMU docs/specs/ivshmem-spec.rst) */
#define IVSHMEM_INTR_MASK	0x00
#define IVSHMEM_INTR_STATUS	0x04	/* reading clears it */
#define IVSHMEM_DOORBELL	0x0c
#define IVSHMEM_REGS_BAR	0
#define IVSHMEM_SHM_BAR		2
#define IVSHMEM_MODEL_PEER	1	/* the device model's ivshmem peer id */

static bool fdma_param_ivshmem;
module_param_named(ivshmem, fdma_param_ivshmem, bool, 0444);
MODULE_PARM_DESC(ivshmem,
		 "VM harness only: bind QEMU ivshmem-doorbell (1af4:1110) devices holding an FDMA register file in BAR2 (default 0)");

/* The register file in BAR2, the doorbell in BAR0. */
static int ivshmem_map(struct fdma_device *fdev)
{
	struct pci_dev *pdev = fdev->pdev;

	if (!(pci_resource_flags(pdev, IVSHMEM_SHM_BAR) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, IVSHMEM_SHM_BAR) < FDMA_REGS_BYTES) {
		dev_err(&pdev->dev, "BAR%d is not a memory BAR of at least %u bytes\n",
			IVSHMEM_SHM_BAR, FDMA_REGS_BYTES);
		return -ENODEV;
	}
	if (!(pci_resource_flags(pdev, IVSHMEM_REGS_BAR) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, IVSHMEM_REGS_BAR) < IVSHMEM_DOORBELL + 4) {
		dev_err(&pdev->dev, "ivshmem without its register BAR\n");
		return -ENODEV;
	}
	fdev->regs = pci_iomap(pdev, IVSHMEM_SHM_BAR, FDMA_REGS_BYTES);
	if (!fdev->regs)
		return -ENOMEM;
	fdev->regs_bar = IVSHMEM_SHM_BAR;
	fdev->regs_len = FDMA_REGS_BYTES;
	fdev->plat.regs = fdev->regs;
	fdev->plat.pdev = pdev;
	fdev->shim_regs = pci_iomap(pdev, IVSHMEM_REGS_BAR, 0);
	if (!fdev->shim_regs)
		return -ENOMEM;
	fdev->plat.doorbell = fdev->shim_regs + IVSHMEM_DOORBELL;
	fdev->plat.peer = IVSHMEM_MODEL_PEER;
	return 0;
}

/* BAR0's mapping; fdma_pci.c unmaps the register file. */
static void ivshmem_unmap(struct fdma_device *fdev)
{
	if (fdev->shim_regs)
		pci_iounmap(fdev->pdev, fdev->shim_regs);
	fdev->shim_regs = NULL;
	fdev->plat.doorbell = NULL;
}

/* INTx, possibly shared with other devices. */
static irqreturn_t ivshmem_intx(int irq, void *data)
{
	struct fdma_vec *v = data;
	struct fdma_device *fdev = v->fdev;

	if (!readl(fdev->shim_regs + IVSHMEM_INTR_STATUS))
		return IRQ_NONE;
	fdma_irq_count(fdev, v->chan_mask);
	return IRQ_WAKE_THREAD;
}

/* ivshmem raises INTx only for unmasked status. */
static void ivshmem_intx_enable(struct fdma_device *fdev, bool on)
{
	writel(on ? ~0u : 0, fdev->shim_regs + IVSHMEM_INTR_MASK);
}

/* BAR0 rings the model: FDMA_IOC_REG leaves it to the driver. */
static bool ivshmem_owns_bar(struct fdma_device *fdev, u32 bar)
{
	return bar == IVSHMEM_REGS_BAR;
}

static const struct fdma_shim_ops fdma_ivshmem_shim = {
	.name = "ivshmem",
	.map = ivshmem_map,
	.unmap = ivshmem_unmap,
	.intx = ivshmem_intx,
	.intx_enable = ivshmem_intx_enable,
	.owns_bar = ivshmem_owns_bar,
};

int fdma_harness_claim(struct pci_dev *pdev)
{
	int ret;

	if (fdma_param_irq_carrier) {
		ret = fdma_carrier_probe(pdev);
		return ret ? ret : 1;
	}
	return fdma_param_ivshmem ? 0 : -ENODEV;
}

void fdma_harness_attach(struct fdma_device *fdev)
{
	fdev->shim = &fdma_ivshmem_shim;
}
