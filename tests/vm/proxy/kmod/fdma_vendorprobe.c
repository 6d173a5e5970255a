// SPDX-License-Identifier: GPL-2.0
/*
 * fdma_vendorprobe: what a vendor XDMA driver does at probe, to test the
 * config space of the function behind QEMU's proxy: enable it, take its
 * MSI-X vectors (nvec: its channels plus 16 user interrupts, as Xilinx's
 * driver asks even in poll mode), request each one, and read the table
 * back through the BAR the capability names: every vector the kernel
 * programmed holds an address and is unmasked, every other one is still
 * masked. No interrupt is expected (none reaches a TCG guest through the
 * proxy). Bound by hand through driver_override; the probe's result is
 * the bind's, with one line in the kernel log either way.
 */
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/pci.h>

static unsigned int nvec = 20;
module_param(nvec, uint, 0444);
MODULE_PARM_DESC(nvec, "MSI-X vectors to take (default 20: 4 channels and 16 user interrupts)");

static irqreturn_t vp_irq(int irq, void *data)
{
	return IRQ_NONE;
}

/* Every vector below want programmed (an address, unmasked), the others masked. */
static int vp_check_table(struct pci_dev *pdev, int cap, unsigned int n, unsigned int want)
{
	void __iomem *tbl;
	unsigned int i, bad = 0;
	u32 where;
	u16 flags;

	pci_read_config_word(pdev, cap + PCI_MSIX_FLAGS, &flags);
	if (!(flags & PCI_MSIX_FLAGS_ENABLE)) {
		dev_err(&pdev->dev, "fdma_vendorprobe: MSI-X enable reads 0 (flags 0x%04x)\n",
			flags);
		return -EIO;
	}
	pci_read_config_dword(pdev, cap + PCI_MSIX_TABLE, &where);
	tbl = pci_iomap_range(pdev, where & PCI_MSIX_TABLE_BIR, where & PCI_MSIX_TABLE_OFFSET,
			      n * PCI_MSIX_ENTRY_SIZE);
	if (!tbl) {
		dev_err(&pdev->dev, "fdma_vendorprobe: cannot map the table (BAR %u at 0x%x)\n",
			where & PCI_MSIX_TABLE_BIR, where & PCI_MSIX_TABLE_OFFSET);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		void __iomem *e = tbl + i * PCI_MSIX_ENTRY_SIZE;
		u32 lo = ioread32(e + PCI_MSIX_ENTRY_LOWER_ADDR);
		u32 ctl = ioread32(e + PCI_MSIX_ENTRY_VECTOR_CTRL);
		bool masked = ctl & PCI_MSIX_ENTRY_CTRL_MASKBIT;

		if (i < want ? !lo || masked : !masked) {
			dev_err(&pdev->dev,
				"fdma_vendorprobe: vector %u: address 0x%08x, control 0x%08x\n",
				i, lo, ctl);
			bad++;
		}
	}
	pci_iounmap(pdev, tbl);
	return bad ? -EIO : 0;
}

static int vp_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int cap, n, ret;
	unsigned int i;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	cap = pci_find_capability(pdev, PCI_CAP_ID_MSIX);
	n = pci_msix_vec_count(pdev);
	if (!cap || n < 0) {
		dev_err(&pdev->dev, "fdma_vendorprobe: no MSI-X capability\n");
		return -ENODEV;
	}
	if (nvec > (unsigned int)n) {
		dev_err(&pdev->dev, "fdma_vendorprobe: %u vectors wanted, the table has %d\n",
			nvec, n);
		return -ENOSPC;
	}
	ret = pci_alloc_irq_vectors(pdev, nvec, nvec, PCI_IRQ_MSIX);
	if (ret < 0) {
		dev_err(&pdev->dev, "fdma_vendorprobe: pci_alloc_irq_vectors(%u, MSI-X): %d\n",
			nvec, ret);
		return ret;
	}
	for (i = 0; i < nvec; i++) {
		ret = request_irq(pci_irq_vector(pdev, i), vp_irq, 0, "fdma_vendorprobe", pdev);
		if (ret)
			goto out;
	}
	ret = vp_check_table(pdev, cap, n, nvec);
	if (!ret) {
		dev_info(&pdev->dev, "fdma_vendorprobe: %u MSI-X vectors of %d, table as written\n",
			 nvec, n);
		return 0;
	}
out:
	while (i--)
		free_irq(pci_irq_vector(pdev, i), pdev);
	pci_free_irq_vectors(pdev);
	return ret;
}

static void vp_remove(struct pci_dev *pdev)
{
	unsigned int i;

	for (i = 0; i < nvec; i++)
		free_irq(pci_irq_vector(pdev, i), pdev);
	pci_free_irq_vectors(pdev);
}

/* No IDs: bound only through driver_override. */
static struct pci_driver vp_driver = {
	.name = "fdma_vendorprobe",
	.probe = vp_probe,
	.remove = vp_remove,
};
module_pci_driver(vp_driver);

MODULE_DESCRIPTION("fdma test: a vendor driver's MSI-X probe of an XDMA function");
MODULE_LICENSE("GPL");
