// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko, the VM harness's build: the hooks of fdma_harness.h, over the
 * harness's stand-in (fdma_ivshmem.c), interrupt carrier (fdma_carrier.c),
 * edu driver (fdma_edu.c) and the model's test block (fdma_mdbg.c).
 */
#include <linux/pci.h>

#include "fdma_drv.h"
#include "fdma_harness.h"
#include "harness.h"

int fdma_harness_init(void)
{
	return fdma_edu_init();
}

void fdma_harness_exit(void)
{
	fdma_edu_exit();
}

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

void fdma_harness_release(struct pci_dev *pdev)
{
	fdma_carrier_remove(pdev);
}

struct pci_dev *fdma_harness_irq_pdev(struct fdma_device *fdev)
{
	struct pci_dev *c;

	if (fdev->shim || !fdma_param_irq_carrier)
		return NULL;
	/* The model's ivshmem function carries the proxied function's vectors. */
	c = fdma_carrier_get();
	if (!c) {
		dev_info(&fdev->pdev->dev, "irq_carrier=1: waiting for the ivshmem carrier\n");
		return ERR_PTR(-EPROBE_DEFER);
	}
	return c;
}

void fdma_harness_irq_put(struct fdma_device *fdev, struct pci_dev *irq_pdev)
{
	fdma_carrier_put(irq_pdev);
}

void fdma_harness_debugfs(struct fdma_device *fdev, struct dentry *dir)
{
	fdma_mdbg_debugfs(fdev, dir);
}
