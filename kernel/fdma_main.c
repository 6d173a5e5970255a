// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: module parameters, init and exit, device numbers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "fdma_drv.h"
#include "fdma_harness.h"

bool fdma_param_net;
module_param_named(net, fdma_param_net, bool, 0444);
MODULE_PARM_DESC(net,
		 "Make every stream channel pair of an FDMA engine with byte streams (1.3) a network interface fdmaNnK; the character device cannot use those channels (default 0)");

bool fdma_param_v4l2;
module_param_named(v4l2, fdma_param_v4l2, bool, 0444);
MODULE_PARM_DESC(v4l2,
		 "Make every stream channel a V4L2 video device (C2H: capture, H2C: output), of every fdma device (fdma_dmac.ko's too), its frame format from the v4l2_* parameters (docs/v4l2.md); while it streams, the character device cannot use the channel (default 0)");

bool fdma_param_dmaengine;
module_param_named(dmaengine, fdma_param_dmaengine, bool, 0444);
MODULE_PARM_DESC(dmaengine,
		 "Register the engine's memory-to-memory channels with dmaengine as private DMA_MEMCPY channels; while a client holds one, the character device cannot use it (default 0)");

unsigned int fdma_param_ring_size = 1024;
module_param_named(ring_size, fdma_param_ring_size, uint, 0444);
MODULE_PARM_DESC(ring_size,
		 "Descriptors per channel ring, a power of two >= 2, clamped to the engine's RING_MAX (default 1024)");

/* An unsigned parameter with a range, checked at load and at every write. */
static int fdma_param_set_range(const char *val, const struct kernel_param *kp,
				unsigned int lo, unsigned int hi)
{
	int ret = param_set_uint_minmax(val, kp, lo, hi);

	if (ret)
		pr_err("%s=%s: expected %u..%u\n", kp->name, val, lo, hi);
	return ret;
}

#define FDMA_PARAM_RANGE(name, var, lo, hi, perm)			\
static int fdma_set_##name(const char *val, const struct kernel_param *kp) \
{									\
	return fdma_param_set_range(val, kp, lo, hi);			\
}									\
static const struct kernel_param_ops fdma_ops_##name = {		\
	.set = fdma_set_##name,						\
	.get = param_get_uint,						\
};									\
module_param_cb(name, &fdma_ops_##name, &(var), perm)

unsigned int fdma_param_timeout_ms = 5000;
FDMA_PARAM_RANGE(timeout_ms, fdma_param_timeout_ms, 100, 600000, 0644);
MODULE_PARM_DESC(timeout_ms,
		 "A memory-mapped channel that owes completions and completes nothing for this many ms is reset, its requests failing with ETIMEDOUT (100..600000, default 5000)");

unsigned int fdma_param_watchdog_ms = 100;
FDMA_PARAM_RANGE(watchdog_ms, fdma_param_watchdog_ms, 10, 10000, 0644);
MODULE_PARM_DESC(watchdog_ms,
		 "While transfers are in flight, look every this many ms for completions no interrupt announced and for channels without progress (10..10000, default 100)");

unsigned int fdma_param_cq_entries = 4096;
module_param_named(cq_entries, fdma_param_cq_entries, uint, 0444);
MODULE_PARM_DESC(cq_entries,
		 "Completion queue entries per open file and channel, a power of two, 64..65536 (default 4096)");

unsigned int fdma_param_max_bufs = FDMA_BUFS_PER_FILE;
module_param_named(max_bufs_per_file, fdma_param_max_bufs, uint, 0444);
MODULE_PARM_DESC(max_bufs_per_file,
		 "Buffers (allocated + registered) one open file may hold, 1..65535 (default 1024)");

enum fdma_irq_mode fdma_param_irq_mode = FDMA_IRQ_AUTO;

static const char * const fdma_irq_mode_names[] = {
	[FDMA_IRQ_AUTO] = "auto",
	[FDMA_IRQ_MSIX] = "msix",
	[FDMA_IRQ_MSI] = "msi",
	[FDMA_IRQ_INTX] = "intx",
	[FDMA_IRQ_POLL] = "poll",
};

const char *fdma_irq_mode_name(enum fdma_irq_mode mode)
{
	if ((unsigned int)mode >= ARRAY_SIZE(fdma_irq_mode_names))
		return "none";
	return fdma_irq_mode_names[mode];
}

static int fdma_irq_mode_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(fdma_irq_mode_names, val);

	if (i < 0) {
		pr_err("irq_mode=%s: expected auto, msix, msi, intx or poll\n", val);
		return -EINVAL;
	}
	*(enum fdma_irq_mode *)kp->arg = i;
	return 0;
}

static int fdma_irq_mode_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  fdma_irq_mode_name(*(enum fdma_irq_mode *)kp->arg));
}

static const struct kernel_param_ops fdma_irq_mode_ops = {
	.set = fdma_irq_mode_set,
	.get = fdma_irq_mode_get,
};

module_param_cb(irq_mode, &fdma_irq_mode_ops, &fdma_param_irq_mode, 0444);
MODULE_PARM_DESC(irq_mode,
		 "Interrupt mode: auto (MSI-X, then MSI, then INTx), or force msix, msi or intx; poll: no interrupts, a thread reaps every poll_us");

unsigned int fdma_param_poll_us = 50;
FDMA_PARAM_RANGE(poll_us, fdma_param_poll_us, 10, 100000, 0644);
MODULE_PARM_DESC(poll_us,
		 "irq_mode=poll: microseconds between looks while requests are in flight (10..100000, default 50; idle channels are looked at every ms)");

struct class fdma_class = {
	.name = FDMA_DRV_NAME,
};

static dev_t fdma_devt_base;
static DEFINE_IDA(fdma_minor_ida);

int fdma_minor_get(bool edu)
{
	unsigned int base = edu ? FDMA_EDU_MINOR_BASE : 0;

	return ida_alloc_range(&fdma_minor_ida, base,
			       base + FDMA_MAX_DEVS - 1, GFP_KERNEL);
}

void fdma_minor_put(int minor)
{
	ida_free(&fdma_minor_ida, minor);
}

dev_t fdma_devt(int minor)
{
	return MKDEV(MAJOR(fdma_devt_base), minor);
}

static int __init fdma_init(void)
{
	int ret;

	if (fdma_param_ring_size < 2 || !is_power_of_2(fdma_param_ring_size)) {
		pr_err("ring_size=%u: expected a power of two >= 2\n",
		       fdma_param_ring_size);
		return -EINVAL;
	}
	if (fdma_param_cq_entries < FDMA_CQ_ENTRIES_MIN ||
	    fdma_param_cq_entries > FDMA_CQ_ENTRIES_MAX ||
	    !is_power_of_2(fdma_param_cq_entries)) {
		pr_err("cq_entries=%u: expected a power of two, %u..%u\n",
		       fdma_param_cq_entries, FDMA_CQ_ENTRIES_MIN,
		       FDMA_CQ_ENTRIES_MAX);
		return -EINVAL;
	}
	if (fdma_param_net && !IS_ENABLED(CONFIG_PAGE_POOL)) {
		pr_err("net=1: built without network interfaces (the kernel has no CONFIG_PAGE_POOL)\n");
		return -EOPNOTSUPP;
	}
#ifndef FDMA_V4L2
	if (fdma_param_v4l2) {
		pr_err("v4l2=1: built without video devices (the kernel has no CONFIG_VIDEO_DEV or CONFIG_VIDEOBUF2_DMA_SG)\n");
		return -EOPNOTSUPP;
	}
#endif
	if (!fdma_param_max_bufs || fdma_param_max_bufs > FDMA_HANDLE_MAX) {
		pr_err("max_bufs_per_file=%u: expected 1..%u\n",
		       fdma_param_max_bufs, FDMA_HANDLE_MAX);
		return -EINVAL;
	}

	ret = alloc_chrdev_region(&fdma_devt_base, 0, FDMA_MINORS,
				  FDMA_DRV_NAME);
	if (ret)
		return ret;

	ret = class_register(&fdma_class);
	if (ret)
		goto err_region;
	fdma_debugfs_init();

	ret = pci_register_driver(&fdma_pci_driver);
	if (ret)
		goto err_class;
	/* After fdma_pci_driver: the VM harness's interrupt carrier is bound by that one. */
	ret = pci_register_driver(&fdma_xdma_driver);
	if (ret)
		goto err_pci;

	/* The VM harness's build: its edu driver (fdma_harness.h). */
	ret = fdma_harness_init();
	if (ret)
		goto err_xdma;
	return 0;

err_xdma:
	pci_unregister_driver(&fdma_xdma_driver);
err_pci:
	pci_unregister_driver(&fdma_pci_driver);
err_class:
	fdma_debugfs_exit();
	class_unregister(&fdma_class);
err_region:
	unregister_chrdev_region(fdma_devt_base, FDMA_MINORS);
	return ret;
}

static void __exit fdma_exit(void)
{
	fdma_harness_exit();
	pci_unregister_driver(&fdma_xdma_driver);
	pci_unregister_driver(&fdma_pci_driver);
	/* dmaengine providers released since: their memory (see there). */
	fdma_dmae_exit();
	/* Charges of buffers unmapped last may still be on their way back. */
	fdma_buf_exit();
	fdma_debugfs_exit();
	class_unregister(&fdma_class);
	unregister_chrdev_region(fdma_devt_base, FDMA_MINORS);
	ida_destroy(&fdma_minor_ida);
}

module_init(fdma_init);
module_exit(fdma_exit);

MODULE_DESCRIPTION("FDMA engine: PCIe DMA between an FPGA and Linux");
MODULE_AUTHOR("The fdma authors");
MODULE_LICENSE("Dual MIT/GPL");
