/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fdma.ko: PCIe driver for the FDMA engine (docs/engine.md), built on the
 * OS-agnostic engine core in engine/. Objects, one file each:
 *
 *   fdma_main.c   module parameters, init and exit, device numbers
 *   fdma_pci.c    probe and remove of an FDMA function
 *   fdma_irq.c    MSI-X, MSI or INTx, per-channel interrupt handlers
 *   fdma_chan.c   channel rings, transfers, completion reaping, recovery
 *   fdma_cdev.c   /dev/fdmaN: read/write/pread/pwrite/lseek
 *   fdma_sysfs.c  attributes of /sys/class/fdma/fdmaN
 *   fdma_edu.c    QEMU's edu device as a second, independent DMA target
 */
#ifndef FDMA_DRV_H
#define FDMA_DRV_H

#include <linux/atomic.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "fdma_engine.h"

#define FDMA_DRV_NAME		"fdma"

/* Device numbers: fdma0..31, then fdma-edu0..31. */
#define FDMA_MAX_DEVS		32
#define FDMA_EDU_MINOR_BASE	FDMA_MAX_DEVS
#define FDMA_MINORS		(2 * FDMA_MAX_DEVS)

/* Bound on every reset handshake with the engine (libfdma uses the same). */
#define FDMA_RESET_TIMEOUT_US	200000

/* Largest chunk of a read() or write(): the channel's bounce buffer. */
#define FDMA_BOUNCE_SIZE	SZ_1M

/* Upper bound of the coalescing timer accepted through sysfs. */
#define FDMA_COAL_USECS_MAX	1000000

/* PCI ids */
#define FDMA_IVSHMEM_VENDOR	0x1af4
#define FDMA_IVSHMEM_DEVICE	0x1110
#define FDMA_ID_IVSHMEM		1	/* pci_device_id.driver_data */

/* ivshmem-doorbell BAR0 registers (QEMU docs/specs/ivshmem-spec.rst) */
#define IVSHMEM_INTR_MASK	0x00
#define IVSHMEM_INTR_STATUS	0x04	/* reading clears it */
#define IVSHMEM_IV_POSITION	0x08
#define IVSHMEM_DOORBELL	0x0c
#define IVSHMEM_REGS_BAR	0
#define IVSHMEM_SHM_BAR		2
#define FDMA_IVSHMEM_PEER	1	/* the device model's ivshmem peer id */

#define FDMA_REGS_BYTES		4096	/* the register file (docs/engine.md) */

enum fdma_irq_mode {
	FDMA_IRQ_AUTO = 0,	/* as a parameter: MSI-X, then MSI, then INTx */
	FDMA_IRQ_MSIX,
	FDMA_IRQ_MSI,
	FDMA_IRQ_INTX,
};

/* Module parameters (fdma_main.c) */
extern bool fdma_param_ivshmem;
extern unsigned int fdma_param_ring_size;
extern unsigned int fdma_param_timeout_ms;
extern enum fdma_irq_mode fdma_param_irq_mode;

extern struct class fdma_class;

int fdma_minor_get(bool edu);
void fdma_minor_put(int minor);
dev_t fdma_devt(int minor);
const char *fdma_irq_mode_name(enum fdma_irq_mode mode);

struct fdma_dev;

struct fdma_chan_stats {
	atomic64_t irqs;	/* interrupts on this channel's vector */
	atomic64_t completions;	/* requests completed without error */
	atomic64_t bytes;	/* bytes those requests moved */
	atomic64_t errors;	/* requests failed: error status or timeout */
	atomic64_t resets;	/* channel resets (recovery and abort) */
	atomic64_t canceled;	/* requests handed back by a reset */
	atomic64_t lost_irqs;	/* found complete only when the wait timed out */
};

struct fdma_chan {
	struct fdma_dev *fdev;
	u32 idx;
	u32 caps;		/* FDMA_CH_CAP_* */
	u32 vec;		/* interrupt vector, written to CH_IRQ_VEC */
	bool up;		/* ring allocated and started */
	bool broken;		/* a reset was never acknowledged */

	/*
	 * Serialises everything that drives the ring (the engine core wants
	 * one caller at a time) and owns the bounce buffer; held across a
	 * whole read() or write(). Never taken in interrupt context.
	 */
	struct mutex lock;
	wait_queue_head_t wq;	/* woken by the channel's interrupt */

	struct fdma_ering ring;
	struct fdma_eslot *slot;
	void *ring_mem;		/* descriptors, completions, write-back */
	dma_addr_t ring_bus;
	size_t ring_bytes;

	void *bounce;		/* memory-mapped channels only */
	dma_addr_t bounce_bus;
	size_t bounce_size;

	u32 coal_count;		/* CH_COAL_COUNT, under lock */
	u32 coal_usecs;		/* CH_COAL_USECS, under lock */
	u64 cookie;

	struct fdma_chan_stats st;
};

struct fdma_vec {
	struct fdma_dev *fdev;
	u32 idx;
	int irq;		/* Linux irq number, 0 if not requested */
	u32 chan_mask;		/* channels raising this vector */
	char name[32];
};

struct fdma_sysfs;

struct fdma_dev {
	struct device dev;	/* /sys/class/fdma/fdmaN; release frees this */
	struct cdev cdev;
	struct pci_dev *pdev;
	int minor;
	bool ivshmem;		/* the VM harness's shim: ivshmem-doorbell */
	bool dead;		/* removed: every operation fails with -ENODEV */

	void __iomem *ivs_regs;	/* ivshmem BAR0 (ivshmem only) */
	void __iomem *regs;	/* the register file */
	struct fdma_plat plat;
	struct fdma_eng_caps caps;
	u64 card_size;		/* usable card memory: caps.card_size aligned */
	u32 ring_size;
	int dma_bits;

	enum fdma_irq_mode irq_mode;	/* granted */
	bool irq_forced;
	u32 nvec;
	struct fdma_vec vec[FDMA_MAX_CHANNELS];

	struct fdma_chan chan[FDMA_MAX_CHANNELS];
	int h2c;		/* first memory-mapped H2C channel, or -1 */
	int c2h;		/* first memory-mapped C2H channel, or -1 */

	struct fdma_sysfs *sysfs;
};

static inline struct fdma_dev *to_fdma_dev(struct device *dev)
{
	return container_of(dev, struct fdma_dev, dev);
}

/* fdma_pci.c */
extern struct pci_driver fdma_pci_driver;

/* fdma_irq.c */
int fdma_irq_setup(struct fdma_dev *fdev);
void fdma_irq_teardown(struct fdma_dev *fdev);

/* fdma_chan.c */
int fdma_chan_init(struct fdma_dev *fdev, u32 idx);
void fdma_chan_stop(struct fdma_chan *c);
void fdma_chan_free(struct fdma_chan *c);
int fdma_chan_xfer(struct fdma_chan *c, u64 card, dma_addr_t bus, u32 len);
int fdma_chan_set_coalesce(struct fdma_chan *c, u32 count, u32 usecs);
ssize_t fdma_chan_read(struct fdma_chan *c, char __user *buf, size_t count,
		       u64 pos);
ssize_t fdma_chan_write(struct fdma_chan *c, struct fdma_chan *rd,
			const char __user *buf, size_t count, u64 pos);

/* fdma_cdev.c */
extern const struct file_operations fdma_cdev_fops;
int fdma_range_check(u64 size, loff_t pos, size_t *count, bool write);

/* fdma_sysfs.c */
int fdma_sysfs_init(struct fdma_dev *fdev);
void fdma_sysfs_free(struct fdma_dev *fdev);

/* fdma_edu.c */
extern struct pci_driver fdma_edu_driver;

#endif /* FDMA_DRV_H */
