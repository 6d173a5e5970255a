// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko on Xilinx XDMA functions (PG195): what differs from an FDMA
 * function at the PCI level. The engine itself is programmed by the engine
 * core (engine/fdma_eng_xdma.c) behind the same interface as FDMA, and
 * everything above it (rings, files, buffers, interrupts) is shared.
 *
 * - IDs: the XDMA IP's default device IDs (FDMA_XDMA_PCI_IDS, 10ee:7011
 *   .. 10ee:9038); others through new_id or driver_override.
 * - BARs: the DMA BAR is the one whose config block (0x3000) identifies
 *   itself as XDMA's; the BAR before it, if any, is the user BAR (the
 *   design's AXI-Lite registers), reached at FDMA_PLAT_BAR1.
 * - What XDMA has no register for comes from parameters: card memory
 *   size (xdma_card_size), the longest descriptor (xdma_max_desc), and
 *   whether completions come from the poll-mode write-back (xdma_poll_wb).
 *
 * In the VM harness the XDMA model is a PCI function behind QEMU's
 * x-pci-proxy-dev, whose interrupts come through harness/fdma_carrier.c.
 */
#include <linux/module.h>
#include <linux/pci.h>

#include "fdma_drv.h"
#include "xdma_regs.h"

static unsigned long long fdma_param_xdma_card_size;
module_param_named(xdma_card_size, fdma_param_xdma_card_size, ullong, 0444);
MODULE_PARM_DESC(xdma_card_size,
		 "XDMA: bytes of card (AXI) memory the memory-mapped channels may address, from 0 (default: 4 GiB)");

static unsigned int fdma_param_xdma_max_desc;
module_param_named(xdma_max_desc, fdma_param_xdma_max_desc, uint, 0444);
MODULE_PARM_DESC(xdma_max_desc,
		 "XDMA: longest descriptor in bytes (default and maximum: the engine's 268435455, rounded to the alignment)");

static bool fdma_param_xdma_poll_wb = true;
module_param_named(xdma_poll_wb, fdma_param_xdma_poll_wb, bool, 0444);
MODULE_PARM_DESC(xdma_poll_wb,
		 "XDMA: read completions from the poll-mode write-back in host memory, not from a register (default 1)");

/*
 * The XDMA IP's default IDs, 10ee:FGL: F the family (7: 7-series, 8:
 * UltraScale, 9: UltraScale+), G the PCIe generation, L the lanes.
 */
#define XDMA(d)	{ PCI_DEVICE(0x10ee, (d)), .driver_data = FDMA_ID_XDMA }
static const struct pci_device_id fdma_xdma_ids[] = {
	XDMA(0x7011), XDMA(0x7012), XDMA(0x7014), XDMA(0x7018),
	XDMA(0x7021), XDMA(0x7022), XDMA(0x7024), XDMA(0x7028),
	XDMA(0x7031), XDMA(0x7032), XDMA(0x7034), XDMA(0x7038),
	XDMA(0x8011), XDMA(0x8012), XDMA(0x8014), XDMA(0x8018),
	XDMA(0x8021), XDMA(0x8022), XDMA(0x8024), XDMA(0x8028),
	XDMA(0x8031), XDMA(0x8032), XDMA(0x8034), XDMA(0x8038),
	XDMA(0x9011), XDMA(0x9012), XDMA(0x9014), XDMA(0x9018),
	XDMA(0x9021), XDMA(0x9022), XDMA(0x9024), XDMA(0x9028),
	XDMA(0x9031), XDMA(0x9032), XDMA(0x9034), XDMA(0x9038),
	{ }
};
MODULE_DEVICE_TABLE(pci, fdma_xdma_ids);

/*
 * Its own driver, "fdma_xdma", so that a system can prefer Xilinx's xdma
 * driver for these IDs (unbind, driver_override) without losing fdma.ko's
 * FDMA functions; the probe and remove are fdma.ko's one pair.
 */
struct pci_driver fdma_xdma_driver = {
	.name = "fdma_xdma",
	.id_table = fdma_xdma_ids,
	.probe = fdma_pci_probe,
	.remove = fdma_pci_remove,
	.shutdown = fdma_pci_shutdown,
};

/* Is bar a memory BAR holding XDMA's config block? */
static bool is_dma_bar(struct pci_dev *pdev, int bar)
{
	void __iomem *p;
	u32 id;

	if (!(pci_resource_flags(pdev, bar) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, bar) < XDMA_BAR_BYTES)
		return false;
	p = pci_iomap(pdev, bar, XDMA_BAR_BYTES);
	if (!p)
		return false;
	id = readl(p + XDMA_BLK_CFG + XDMA_ID);
	pci_iounmap(pdev, p);
	return XDMA_ID_SUBSYS(id) == XDMA_ID_SUBSYS_VAL && XDMA_ID_TARGET(id) == XDMA_TARGET_CFG;
}

int fdma_xdma_map(struct fdma_device *fdev)
{
	struct pci_dev *pdev = fdev->pdev;
	int bar, dbar = -1, ubar = -1;

	for (bar = 0; bar < PCI_STD_NUM_BARS && dbar < 0; bar++)
		if (is_dma_bar(pdev, bar))
			dbar = bar;
	if (dbar < 0) {
		dev_err(&pdev->dev, "no BAR with an XDMA config block (ID 0x1fc3xxxx at 0x3000)\n");
		return -ENODEV;
	}
	/* The user BAR comes before the DMA BAR (PG195's BAR layout), if there is one. */
	for (bar = dbar - 1; bar >= 0 && ubar < 0; bar--)
		if ((pci_resource_flags(pdev, bar) & IORESOURCE_MEM) && pci_resource_len(pdev, bar))
			ubar = bar;
	fdev->regs = pci_iomap(pdev, dbar, XDMA_BAR_BYTES);
	if (!fdev->regs)
		return -ENOMEM;
	fdev->regs_bar = dbar;
	fdev->regs_len = XDMA_BAR_BYTES;
	if (ubar >= 0) {
		fdev->user = pci_iomap(pdev, ubar, 0);
		if (!fdev->user)
			return -ENOMEM;
	}
	fdev->plat.regs = fdev->regs;
	fdev->plat.user = fdev->user;
	fdev->plat.pdev = pdev;
	dev_info(&pdev->dev, "XDMA: DMA BAR%d, %s\n", dbar,
		 ubar >= 0 ? "user BAR before it" : "no user BAR");
	if (ubar >= 0)
		dev_info(&pdev->dev, "XDMA: user BAR%d, %llu bytes\n", ubar,
			 (unsigned long long)pci_resource_len(pdev, ubar));
	return 0;
}

/* The host's limits, which XDMA has no register for (struct fdma_eng_caps). */
void fdma_xdma_limits(struct fdma_device *fdev)
{
	fdev->caps.card_size = fdma_param_xdma_card_size;
	fdev->caps.max_desc_len = fdma_param_xdma_max_desc;
	fdev->caps.poll_wb = fdma_param_xdma_poll_wb;
}
