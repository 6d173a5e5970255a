// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: probe and remove of an FDMA function.
 *
 * Bring-up follows docs/engine.md section 4: identify the engine, reset it,
 * set CTRL.ENABLE, then set up and start the channels. Every step that
 * programs the engine goes through the engine core.
 *
 * Lifetime: struct fdma_device embeds the class device; open files hold it
 * through the character device, so it outlives remove() until the last
 * close. remove() marks it dead, wakes every sleeper, stops the channels
 * with a bounded wait under their locks (everything in flight is handed
 * back to its owner), then stops the device mastering the bus: CTRL.ENABLE
 * cleared and STATUS.BUSY waited for (a read, which also flushes the
 * posted write), then bus mastering off. Only then does it give back what
 * the engine could reach: interrupts, the bounce buffers' mappings, every
 * buffer of every open file (revoked: user mappings zapped, DMA mappings
 * undone, pages unpinned or freed), the rings. Nothing of the DMA API is
 * used on the device after remove() returns: it may be unplugged, or
 * bound to another driver (vfio-pci). If the engine never stopped, what a
 * broken channel or a tainted buffer holds is kept for good instead.
 * remove() never waits for a read() or write(): the bounce pages they copy
 * through are freed at the device's release.
 */
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "fdma_drv.h"
#include "fdma_harness.h"

/* The VM harness's build adds its stand-in (fdma_harness.h), left out of the aliases. */
static const struct pci_device_id fdma_pci_ids[] = {
	{ PCI_DEVICE(FDMA_PCI_VENDOR, FDMA_PCI_DEVICE) },
	FDMA_HARNESS_PCI_IDS
	{ }
};

static const struct pci_device_id fdma_pci_alias_ids[] = {
	{ PCI_DEVICE(FDMA_PCI_VENDOR, FDMA_PCI_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, fdma_pci_alias_ids);

/* Map the register file: BAR0 of an FDMA function, or where its shim has it. */
static int fdma_map(struct fdma_device *fdev)
{
	struct pci_dev *pdev = fdev->pdev;

	if (fdev->shim)
		return fdev->shim->map(fdev);

	if (!(pci_resource_flags(pdev, 0) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, 0) < FDMA_REGS_BYTES) {
		dev_err(&pdev->dev, "BAR0 is not a memory BAR of at least %u bytes\n",
			FDMA_REGS_BYTES);
		return -ENODEV;
	}
	fdev->regs = pci_iomap(pdev, 0, FDMA_REGS_BYTES);
	if (!fdev->regs)
		return -ENOMEM;
	fdev->regs_bar = 0;
	fdev->regs_len = FDMA_REGS_BYTES;
	fdev->plat.regs = fdev->regs;
	fdev->plat.pdev = pdev;
	return 0;
}

static void fdma_unmap(struct fdma_device *fdev)
{
	if (fdev->user)
		pci_iounmap(fdev->pdev, fdev->user);
	fdev->user = NULL;
	if (fdev->shim)
		fdev->shim->unmap(fdev);
	if (fdev->regs)
		pci_iounmap(fdev->pdev, fdev->regs);
	fdev->regs = NULL;
}

static int fdma_identify(struct fdma_device *fdev)
{
	struct device *dev = &fdev->pdev->dev;
	struct fdma_eng_caps *caps = &fdev->caps;
	int ret;

	if (fdev->xdma) {
		fdma_xdma_limits(fdev);
		ret = fdma_eng_probe(&fdma_eng_xdma, &fdev->plat, caps);
		if (ret) {
			dev_err(dev, "XDMA engine not recognised (%d): no channels, or an alignment over 4 KiB\n",
				ret);
			return ret;
		}
	} else {
		ret = fdma_eng_probe(&fdma_eng_fdma, &fdev->plat, caps);
		if (ret == -ENODEV) {
			dev_info(dev, "no FDMA engine here (ID register 0x%08x, expected 0x%08x)\n",
				 fdma_plat_rd32(&fdev->plat, FDMA_REG_ID),
				 FDMA_ID_MAGIC);
			return ret;
		}
		if (ret) {
			dev_err(dev, "FDMA engine version 0x%08x or capabilities not supported (%d)\n",
				fdma_plat_rd32(&fdev->plat, FDMA_REG_VERSION), ret);
			return ret;
		}
	}
	if (!caps->nchan) {
		dev_err(dev, "engine without channels\n");
		return -EPROTO;
	}
	/* Keep every split piece of a card range aligned and in range. */
	fdev->card_size = round_down(caps->card_size, caps->align);
	if (fdev->card_size != caps->card_size)
		dev_warn(dev, "card memory size %llu is not a multiple of the alignment %u: using %llu bytes\n",
			 caps->card_size, caps->align, fdev->card_size);
	fdev->ring_size = min(fdma_param_ring_size, caps->ring_max);
	if (fdev->ring_size != fdma_param_ring_size)
		dev_info(dev, "ring_size %u clamped to the engine's RING_MAX %u\n",
			 fdma_param_ring_size, caps->ring_max);
	return 0;
}

/*
 * The DMA mask, the longest segment an IOMMU may merge (the driver cuts
 * requests at segment ends, and builds segments up to FDMA_MAX_SEG), and
 * the alignment of memory the engine moves to or from: the engine's, and
 * at least the architecture's DMA cache line, so that the per-request
 * syncs of a non-coherent device never touch a line that holds anything
 * but the request's bytes.
 */
static int fdma_set_dma_mask(struct fdma_device *fdev)
{
	struct pci_dev *pdev = fdev->pdev;

	fdev->dma_align = max_t(u32, fdev->caps.align,
				dma_get_cache_alignment());
	dma_set_max_seg_size(&pdev->dev, FDMA_MAX_SEG);
	if (!dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64))) {
		fdev->dma_bits = 64;
		return 0;
	}
	if (!dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32))) {
		dev_info(&pdev->dev, "64-bit DMA refused: using 32-bit addresses\n");
		fdev->dma_bits = 32;
		return 0;
	}
	dev_err(&pdev->dev, "no usable DMA mask\n");
	return -EIO;
}

static void fdma_find_mm_chans(struct fdma_device *fdev)
{
	u32 i;

	fdev->h2c = -1;
	fdev->c2h = -1;
	for (i = 0; i < fdev->caps.nchan; i++) {
		u32 caps = fdev->caps.chan_caps[i];

		/* Only memory-mapped channels reach card memory (not copies, not later kinds). */
		if (caps & ~(FDMA_CH_CAP_C2H | FDMA_CH_CAP_TESTGEN))
			continue;
		if ((caps & FDMA_CH_CAP_C2H) && fdev->c2h < 0)
			fdev->c2h = i;
		else if (!(caps & FDMA_CH_CAP_C2H) && fdev->h2c < 0)
			fdev->h2c = i;
	}
}

/*
 * Stop the engine mastering the bus (docs/engine.md, section 4): clear
 * CTRL.ENABLE and read STATUS until BUSY drops (each read also flushes
 * the posted write), then bus mastering off. fdev->quiesced says whether
 * memory the engine could reach may be freed.
 */
static void fdma_quiesce(struct fdma_device *fdev)
{
	int ret = fdma_eng_quiesce(&fdev->plat, &fdev->caps,
				   FDMA_RESET_TIMEOUT_US);

	/* A function gone from the bus masters nothing any more. */
	if (ret == -ENODEV || pci_dev_is_disconnected(fdev->pdev)) {
		dev_info(&fdev->pdev->dev, "engine gone from the bus\n");
		ret = 0;
	}
	if (ret)
		dev_err(&fdev->pdev->dev, "engine did not stop mastering the bus (%d): memory it may still write is kept\n",
			ret);
	pci_clear_master(fdev->pdev);
	fdev->quiesced = !ret;
}

/*
 * Memory that a channel whose reset was not acknowledged may still write
 * is being taken away, and cannot wait (an exporter's move, NVIDIA's free
 * callback): the whole engine is stopped as remove() stops it, bus
 * mastering off, so that it writes nothing more before the memory goes.
 * The device is dead from here (every operation -ENODEV) until it is
 * unbound and bound again. 0, or -EOPNOTSUPP for a backend without a PCI
 * function of its own (dmaengine), which cannot be stopped so.
 */
int fdma_pci_stop_dma(struct fdma_device *fdev, const char *why)
{
	u32 i;

	if (!fdev->pdev)
		return -EOPNOTSUPP;
	dev_crit(&fdev->pdev->dev, "%s: engine stopped, bus mastering off: a channel that did not acknowledge its reset may still write memory being taken away (%s); unbind and bind the device to use it again\n",
		 dev_name(&fdev->dev), why);
	WRITE_ONCE(fdev->dead, true);
	for (i = 0; i < fdev->caps.nchan; i++) {
		wake_up_all(&fdev->chan[i].wq);
		fdma_chan_gone(&fdev->chan[i]);
	}
	fdma_files_wake(fdev);
	fdma_quiesce(fdev);
	return 0;
}

/*
 * Every channel stopped (bounded reset, everything handed back), the
 * engine stopped, interrupts freed; then, with the engine no longer
 * mastering the bus, the bounce buffers unmapped, the buffers revoked and
 * the rings freed. free_bounce: no file can be open (probe failed), so
 * the bounce pages go too.
 */
static void fdma_chans_teardown(struct fdma_device *fdev, bool free_bounce)
{
	fdma_dev_chans_stop(fdev);
	fdma_quiesce(fdev);
	fdma_irq_teardown(fdev);
	fdma_dev_chans_free(fdev, free_bounce);
}

int fdma_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct fdma_device *fdev;
	u32 i;
	int ret;

	/* The VM harness's stand-in: its interrupt carrier, or an FDMA function's. */
	if (id->driver_data & FDMA_ID_IVSHMEM) {
		ret = fdma_harness_claim(pdev);
		if (ret)
			return ret < 0 ? ret : 0;
	}

	fdev = fdma_dev_alloc(&pdev->dev, &pdev->dev);
	if (IS_ERR(fdev))
		return PTR_ERR(fdev);
	/* Kept for the log and the class device until the last close. */
	fdev->pdev = pci_dev_get(pdev);
	if (id->driver_data & FDMA_ID_IVSHMEM)
		fdma_harness_attach(fdev);
	fdev->xdma = id->driver_data & FDMA_ID_XDMA;
	for (i = 0; i < FDMA_MAX_CHANNELS; i++)
		fdev->chan[i].ops = &fdma_ring_engine_ops;

	ret = pci_enable_device(pdev);
	if (ret)
		goto err_put;
	ret = pci_request_regions(pdev, FDMA_DRV_NAME);
	if (ret)
		goto err_disable;
	ret = fdev->xdma ? fdma_xdma_map(fdev) : fdma_map(fdev);
	if (ret)
		goto err_unmap;
	ret = fdma_identify(fdev);
	if (ret)
		goto err_unmap;
	ret = fdma_set_dma_mask(fdev);
	if (ret)
		goto err_unmap;

	/*
	 * Reset first, bus mastering after: an engine left running (by a
	 * driver that died, or before a kexec) stops before it can write.
	 */
	ret = fdma_eng_reset(&fdev->plat, &fdev->caps, FDMA_RESET_TIMEOUT_US);
	if (ret) {
		dev_err(&pdev->dev, "engine did not acknowledge its reset (%d)\n",
			ret);
		goto err_unmap;
	}
	/* Without bus mastering the engine's DMA and MSI/MSI-X writes are refused. */
	pci_set_master(pdev);
	fdma_eng_enable(&fdev->plat, &fdev->caps, true);

	ret = fdma_irq_setup(fdev);
	if (ret)
		goto err_enable;
	/* The vectors granted: an engine routing its own (XDMA) shares them as the handlers do. */
	fdma_eng_route_irqs(&fdev->plat, &fdev->caps, fdev->nvec);

	/* Every channel, or none: then the engine is quiesced below. */
	for (i = 0; i < fdev->caps.nchan; i++) {
		ret = fdma_chan_init(fdev, i);
		if (ret)
			goto err_chans;
	}
	fdma_find_mm_chans(fdev);

	pci_set_drvdata(pdev, fdev);
	ret = fdma_dev_publish(fdev, THIS_MODULE);
	if (ret)
		goto err_drvdata;
	/* Optional, both: the character device works without them. */
	if (fdma_param_net)
		fdma_net_register(fdev);
	fdma_v4l2_register(fdev);
	if (fdma_param_dmaengine) {
		ret = fdma_dmae_register(fdev);
		if (ret)
			dev_warn(&pdev->dev, "%s: not registered with dmaengine (%d)\n",
				 dev_name(&fdev->dev), ret);
	}

	dev_info(&pdev->dev,
		 "%s: %s %u.%u%s%s, %u channels, card memory %llu bytes, align %u (DMA %u), max descriptor %u, ring %u, %d-bit DMA\n",
		 dev_name(&fdev->dev), fdev->xdma ? "XDMA" : "FDMA", fdev->caps.version >> 16,
		 fdev->caps.version & 0xffff,
		 fdev->shim ? " behind " : "", fdev->shim ? fdev->shim->name : "", fdev->caps.nchan,
		 fdev->card_size, fdev->caps.align, fdev->dma_align,
		 fdev->caps.max_desc_len, fdev->ring_size, fdev->dma_bits);
	return 0;

err_drvdata:
	pci_set_drvdata(pdev, NULL);
err_chans:
	/* Interrupts are freed there too, once the engine stopped. */
	fdma_chans_teardown(fdev, true);
	goto err_unmap;
err_enable:
	fdma_quiesce(fdev);
err_unmap:
	fdma_unmap(fdev);
	pci_release_regions(pdev);
err_disable:
	pci_disable_device(pdev);
err_put:
	fdma_dev_put(fdev);
	return ret;
}

void fdma_pci_remove(struct pci_dev *pdev)
{
	struct fdma_device *fdev = pci_get_drvdata(pdev);

	/* Only the VM harness's interrupt carrier is bound without a device of ours. */
	if (!fdev) {
		fdma_harness_release(pdev);
		return;
	}

	/* The interfaces stop first, with traffic flowing and the engine still there. */
	fdma_net_unregister(fdev);
	fdma_v4l2_unregister(fdev);
	/* Dead first: the provider's descriptors fail from here on. */
	WRITE_ONCE(fdev->dead, true);
	/* No new dmaengine clients; those holding a channel keep its memory. */
	fdma_dmae_unregister(fdev);
	/* New operations fail from here; sleeping ones wake up and leave. */
	fdma_dev_unpublish(fdev);

	fdma_chans_teardown(fdev, false);
	/* What an interface kept for a channel that never let go, now that the engine stopped. */
	fdma_net_release(fdev);
	fdma_dmae_detach(fdev);
	fdma_unmap(fdev);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
	pci_set_drvdata(pdev, NULL);
	if (atomic64_read(&fdev->leaked_bytes))
		dev_crit(&pdev->dev, "%s removed; %lld bytes kept for good (the engine never stopped)\n",
			 dev_name(&fdev->dev),
			 (long long)atomic64_read(&fdev->leaked_bytes));
	else
		dev_info(&pdev->dev, "%s removed\n", dev_name(&fdev->dev));
	/* Freed now, or at the last close of a file still open. */
	fdma_dev_put(fdev);
}

/*
 * Reboot, kexec, power off: the engine must not write into memory the next
 * kernel owns. No lock is taken (a stuck holder must not stop a reboot):
 * the device is marked dead, the engine stopped and bus mastering cleared.
 */
void fdma_pci_shutdown(struct pci_dev *pdev)
{
	struct fdma_device *fdev = pci_get_drvdata(pdev);

	if (!fdev)
		return;
	WRITE_ONCE(fdev->dead, true);
	fdma_quiesce(fdev);
}

struct pci_driver fdma_pci_driver = {
	.name = FDMA_DRV_NAME,
	.id_table = fdma_pci_ids,
	.probe = fdma_pci_probe,
	.remove = fdma_pci_remove,
	.shutdown = fdma_pci_shutdown,
};
