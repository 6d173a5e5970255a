/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Kernel platform shim for the FDMA engine core (see the contract at the top
 * of engine/fdma_engine.h; lib/ holds the user-space twin).
 *
 * Registers are 32-bit words behind an __iomem mapping: BAR0 of a real FDMA
 * function, or the start of BAR2 of QEMU's ivshmem-doorbell in the VM
 * harness. A real engine sees its register writes, so the kick is nothing;
 * behind ivshmem the register file is plain shared memory and the kick is a
 * write of (peer << 16 | channel) to the ivshmem Doorbell register.
 */
#ifndef FDMA_PLAT_H
#define FDMA_PLAT_H

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/io.h>
#include <linux/iopoll.h>
#include <linux/pci.h>
#include <linux/compiler.h>
#include <asm/barrier.h>
#include <asm/byteorder.h>

/*
 * The engine core writes descriptors and reads completion records and the
 * write-back block in CPU byte order, and the engine's memory formats are
 * little-endian (docs/engine.md, section 2).
 */
#ifdef __BIG_ENDIAN
#error "fdma: the engine core assumes a little-endian CPU"
#endif

struct fdma_plat {
	struct pci_dev *pdev;		/* to tell a dead link from a busy engine */
	void __iomem *regs;		/* the engine's registers */
	void __iomem *user;		/* the second (user) BAR, or NULL */
	void __iomem *doorbell;		/* ivshmem Doorbell register, or NULL */
	u32 peer;			/* ivshmem peer id of the device model */
};

/* Offsets from 0x10000 (FDMA_PLAT_BAR1) reach the user BAR, where there is one. */
#define FDMA_PLAT_USER_OFF	0x10000u

static inline u32 fdma_plat_rd32(struct fdma_plat *p, u32 off)
{
	if (unlikely(off >= FDMA_PLAT_USER_OFF))
		return p->user ? readl(p->user + off - FDMA_PLAT_USER_OFF) : 0;
	return readl(p->regs + off);
}

static inline void fdma_plat_wr32(struct fdma_plat *p, u32 off, u32 val)
{
	if (unlikely(off >= FDMA_PLAT_USER_OFF)) {
		if (p->user)
			writel(val, p->user + off - FDMA_PLAT_USER_OFF);
		return;
	}
	writel(val, p->regs + off);
}

static inline void fdma_plat_kick(struct fdma_plat *p, unsigned int ch)
{
	if (p->doorbell)
		writel(p->peer << 16 | ch, p->doorbell);
}

/*
 * Handshakes (resets, quiescing) poll a device-written register, sleeping
 * between looks, in process context; the bound is real time. A register
 * that reads all ones may be a device gone from the bus (surprise removal,
 * a link down): then give up at once.
 */
static inline int fdma_plat_poll32(struct fdma_plat *p, u32 off, u32 mask,
				   u32 want, u32 timeout_us)
{
	u32 v;
	int ret;

	ret = readl_poll_timeout(p->regs + off, v,
				 (v & mask) == want ||
				 (v == ~0u && !pci_device_is_present(p->pdev)),
				 20, timeout_us);
	if (!ret && (v & mask) != want)
		return -ENODEV;
	return ret;
}

/*
 * Barriers against the device. The engine core uses them to order its
 * descriptor stores before the doorbell write (wmb), and the IRQ_EN store
 * before its next read of the write-back block (mb, docs/engine.md
 * section 7); rmb is part of the contract.
 */
#define fdma_wmb()	wmb()	/* host stores before a register write */
#define fdma_rmb()	rmb()	/* device-written memory before later reads */
#define fdma_mb()	mb()	/* a store before a later load */

/*
 * A read of device-written coherent memory (the write-back block), ordered
 * before the reads of what it covers (completion records).
 */
static inline u32 fdma_load_acquire32(const u32 *p)
{
	u32 v = READ_ONCE(*p);

	dma_rmb();
	return v;
}

#endif /* FDMA_PLAT_H */
