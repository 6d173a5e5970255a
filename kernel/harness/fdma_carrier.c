// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko, the VM harness's build: the interrupt carrier (irq_carrier=1).
 *
 * QEMU's x-pci-proxy-dev makes a device model (XDMA's, or FDMA's) a PCI
 * function with trapped registers, but cannot deliver its interrupts to a
 * TCG guest. The model's process (fdma-proxyd) also serves an
 * ivshmem-doorbell function and raises that function's MSI-X vectors for
 * the model's. With irq_carrier=1 fdma.ko binds the ivshmem function as a
 * carrier, and fdma_irq.c allocates the proxied function's vectors on it
 * (fdma_harness_irq_pdev()):
 * the handlers, the threads and the hot path are the ones a card uses. A
 * function probed before the carrier waits for it (-EPROBE_DEFER). One
 * carrier serves one function. docs/xdma.md, "In a guest".
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>

#include "fdma_drv.h"
#include "fdma_harness.h"
#include "harness.h"

bool fdma_param_irq_carrier;
module_param_named(irq_carrier, fdma_param_irq_carrier, bool, 0444);
MODULE_PARM_DESC(irq_carrier,
		 "VM harness only: take a proxied function's interrupts from an ivshmem-doorbell function its device model serves (default 0)");

static DEFINE_MUTEX(carrier_lock);
static struct pci_dev *carrier;		/* bound, not yet taken */
static bool carrier_taken;

int fdma_carrier_probe(struct pci_dev *pdev)
{
	int ret;

	mutex_lock(&carrier_lock);
	if (carrier) {
		mutex_unlock(&carrier_lock);
		return -EBUSY;
	}
	ret = pci_enable_device(pdev);
	if (!ret) {
		/* QEMU drops MSI-X messages of a device that is not a bus master. */
		pci_set_master(pdev);
		carrier = pci_dev_get(pdev);
		carrier_taken = false;
		dev_info(&pdev->dev, "interrupt carrier (VM harness, irq_carrier=1)\n");
	}
	mutex_unlock(&carrier_lock);
	return ret;
}

void fdma_harness_release(struct pci_dev *pdev)
{
	mutex_lock(&carrier_lock);
	if (carrier == pdev) {
		if (carrier_taken)
			dev_warn(&pdev->dev, "carrier removed while a proxied function uses its vectors: unbind that first\n");
		else
			pci_disable_device(pdev);
		pci_dev_put(carrier);
		carrier = NULL;
	}
	mutex_unlock(&carrier_lock);
}

/* The carrier for one function, or NULL if none is bound (yet) or it is taken. */
static struct pci_dev *carrier_get(void)
{
	struct pci_dev *c = NULL;

	mutex_lock(&carrier_lock);
	if (carrier && !carrier_taken) {
		carrier_taken = true;
		c = pci_dev_get(carrier);
	}
	mutex_unlock(&carrier_lock);
	return c;
}

void fdma_harness_irq_put(struct fdma_device *fdev, struct pci_dev *c)
{
	mutex_lock(&carrier_lock);
	if (c == carrier)
		carrier_taken = false;
	mutex_unlock(&carrier_lock);
	pci_dev_put(c);
}

struct pci_dev *fdma_harness_irq_pdev(struct fdma_device *fdev)
{
	struct pci_dev *c;

	if (fdev->shim || !fdma_param_irq_carrier)
		return NULL;
	/* The model's ivshmem function carries the proxied function's vectors. */
	c = carrier_get();
	if (!c) {
		dev_info(&fdev->pdev->dev, "irq_carrier=1: waiting for the ivshmem carrier\n");
		return ERR_PTR(-EPROBE_DEFER);
	}
	return c;
}
