// SPDX-License-Identifier: MIT
/*
 * fdma-proxyd: a device model (the XDMA model, or the FDMA model) as a
 * real PCI function of a QEMU guest, with trapped registers.
 *
 *   fdma-proxyd [options] -- qemu-system-x86_64 ... -device x-pci-proxy-dev,fd=4 ...
 *
 * It starts QEMU itself, with its end of a socket pair as QEMU's fd 4, and
 * serves QEMU 7.2's x-pci-proxy-dev protocol on it (proxy_srv.c): the
 * function's config space (the engine's IDs, 32-bit BARs, a PCIe
 * capability reporting the link the model paces), every access to its
 * BARs (a call into the model: XDMA's clear-on-read and W1S/W1C registers
 * behave as on a card; an FDMA register write is seen by the engine as on
 * an FPGA, with no doorbell kick beside it), and guest RAM handed over as
 * file descriptors, into which the model's channels DMA directly (only
 * while the guest has bus mastering on).
 *
 * XDMA (--opts engine=xdma): 10ee:90GL, BAR0 the user BAR (the model's
 * test block), BAR1 XDMA's DMA BAR. FDMA (the default): 10ee:fd3a, BAR0
 * the engine's register file.
 *
 * Interrupts: the proxy cannot deliver any to a TCG guest. With --ivshmem
 * the same process serves an ivshmem-doorbell device's protocol, and the
 * model's interrupt on vector v becomes that device's MSI-X vector v; the
 * driver takes the function's vectors from it (fdma.ko irq_carrier=1,
 * test only). Without it, the guest polls.
 *
 * Exit status: QEMU's (or 1 if this program fails, 2 on a usage error).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdma_mdev_opts.h"
#include "fdma_plat.h"
#include "fdma_regs.h"
#include "xdma_regs.h"
#include "ivshmem_srv.h"
#include "proxy_srv.h"

#define PROG		"fdma-proxyd"
#define QEMU_FD		4		/* x-pci-proxy-dev,fd=4 */
#define MAX_VECTORS	32u
#define IVS_SHM_BYTES	(1u << 16)
#define LOG_MAX		8u
#define USER_BAR_BYTES	0x10000u	/* XDMA's BAR0; the model's user registers are its first 4 KiB */
#define FDMA_BAR0_BYTES	0x10000u	/* FDMA's BAR0: the register file, then the design's */
#define PCIE_CAP	0x40u
#define MSIX_CAP	0x80u		/* after the PCIe capability's 0x3c bytes */
#define MAX_MAPS	64u

enum { TAG_PROXY = 1, TAG_IVS_LISTEN, TAG_IVS, TAG_SIGNAL };

/* Guest RAM: regions the proxy handed over, and every mapping made of them. */
struct gmap {
	dev_t dev;
	ino_t ino;
	int64_t off;
	uint64_t size;
	uint8_t *p;
};

struct region {
	uint64_t gpa, size;
	uint8_t *p;
};

struct proxyd;

/*
 * A simulated device (fdma_mdev.h) as a PCI function: its identity, its
 * BARs, and which of the device's BARs each one is. Where design_regs is
 * set, a BAR runs past the device's registers into the design's own
 * (plain memory here), as on an FPGA whose BAR0 the engine shares.
 */
struct pmodel {
	const char *engine;		/* fdma_eng_ops.name */
	bool rtl;			/* the engine's RTL (rtl=1), not a model */
	uint16_t device_id;		/* 0: XDMA's default for the link */
	uint32_t bar_size[6];
	unsigned int dev_bar[6];	/* the device's BAR behind each of the function's */
	bool design_regs;
	/* An MSI-X table in a BAR, as the IP has it (msix_vectors 0: no capability). */
	unsigned int msix_vectors, msix_bar;
	uint32_t msix_table, msix_pba;
};

struct proxyd {
	const char *ivs_path, *opts;
	unsigned int nvec;
	bool verbose;
	struct fdma_mdev_opts so;
	const struct pmodel *pm;
	struct fdma_mdev *mdev;
	uint32_t *user;			/* design_regs: the rest of BAR0, the design's */

	/* PCI function */
	uint8_t cfg[256];
	uint32_t bar_size[6];

	/* guest RAM */
	pthread_rwlock_t ram_lock;
	struct region reg[MPQ_MAX_FDS];
	unsigned int nreg;
	struct gmap maps[MAX_MAPS];
	unsigned int nmaps;

	/* the interrupt carrier */
	int ivs_listen, ivs_fd, shm_fd;
	int model_efd[MAX_VECTORS], guest_efd[MAX_VECTORS];
	atomic_bool ivs_up;

	int proxy_fd, irqfd[2], sig_fd, ep;
	bool intx_mode;			/* the model told INTx (no carrier, MSI-X off) */
	pid_t qemu;

	/* statistics */
	uint64_t bar_reads, bar_writes, cfg_ops, syncs, narrow_writes;
	atomic_uint_fast64_t irqs, irq_dropped, dma_refused, intx_asserts;
};

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs(PROG ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--ivshmem PATH] [--vectors N] [--opts OPTIONS] [--verbose]\n"
		"                   -- QEMU-COMMAND...\n"
		"\n"
		"A device model (FDMA, or XDMA with engine=xdma) as a PCI function of a\n"
		"QEMU guest, through QEMU's x-pci-proxy-dev: runs QEMU-COMMAND with its end\n"
		"of the proxy's socket as fd %d (give QEMU -device x-pci-proxy-dev,fd=%d and\n"
		"guest RAM as -object memory-backend-memfd,share=on). See docs/xdma.md.\n"
		"\n"
		"  --ivshmem PATH   also serve the ivshmem protocol on this UNIX socket: the\n"
		"                   model's interrupts become that ivshmem-doorbell device's\n"
		"                   MSI-X vectors (fdma.ko irq_carrier=1)\n"
		"  --vectors N      its vectors, 1..%u (default 8)\n"
		"  --opts OPTIONS   the model's options, as for the sim: URI, e.g.\n"
		"                   \"engine=xdma,channels=2,fault=magic@5\" (default paced=0)\n"
		"  --verbose        log every config access\n"
		"  --help           this text\n"
		"\n"
		"Exit status: QEMU's; 1 if the model fails, 2 on a usage error.\n",
		QEMU_FD, QEMU_FD, MAX_VECTORS);
}

/* ---- guest RAM ------------------------------------------------------------ */

static bool bus_master(struct proxyd *d)
{
	return __atomic_load_n(&d->cfg[4], __ATOMIC_ACQUIRE) & 0x4;
}

static void *xd_dma(void *ctx, uint64_t bus, uint64_t len)
{
	struct proxyd *d = ctx;
	void *p = NULL;

	/* A function without bus mastering cannot reach memory (the proxy does not check). */
	if (bus_master(d)) {
		pthread_rwlock_rdlock(&d->ram_lock);
		for (unsigned int i = 0; i < d->nreg; i++) {
			const struct region *r = &d->reg[i];

			if (bus >= r->gpa && len <= r->size && bus - r->gpa <= r->size - len) {
				p = r->p + (bus - r->gpa);
				break;
			}
		}
		pthread_rwlock_unlock(&d->ram_lock);
	}
	if (!p && atomic_fetch_add(&d->dma_refused, 1) < LOG_MAX)
		msg("DMA to 0x%llx..0x%llx refused: %s", (unsigned long long)bus,
		    (unsigned long long)(bus + len),
		    bus_master(d) ? "not guest RAM" : "bus mastering is off");
	return p;
}

static void xd_irq(void *ctx, unsigned int vector)
{
	struct proxyd *d = ctx;
	uint64_t one = 1;

	if (!atomic_load(&d->ivs_up) || vector >= d->nvec) {
		if (atomic_fetch_add(&d->irq_dropped, 1) < LOG_MAX)
			msg("interrupt on vector %u dropped: %s", vector,
			    atomic_load(&d->ivs_up) ? "beyond --vectors" : "no ivshmem carrier");
		return;
	}
	atomic_fetch_add(&d->irqs, 1);
	if (write(d->guest_efd[vector], &one, sizeof(one)) < 0) {
		/* Only if the counter would overflow: the guest is interrupted anyway. */
	}
}

/*
 * INTx (XDMA without a carrier and with MSI-X off, as the IP signals in
 * legacy mode): the level goes into Status's Interrupt Status bit, and an
 * assert to the proxy's INTx irqfd unless Command's INTx Disable is set.
 * QEMU routes that irqfd only with KVM: a TCG guest never sees it, and
 * the count says that the function asserted it. The irqfd is set once, at
 * QEMU's start, before any guest driver runs.
 */
static void xd_intx(void *ctx, bool level)
{
	struct proxyd *d = ctx;
	uint64_t one = 1;
	int fd;

	if (level)
		__atomic_fetch_or(&d->cfg[0x06], 0x08, __ATOMIC_ACQ_REL);
	else
		__atomic_fetch_and(&d->cfg[0x06], (uint8_t)~0x08, __ATOMIC_ACQ_REL);
	if (!level)
		return;
	atomic_fetch_add(&d->intx_asserts, 1);
	fd = __atomic_load_n(&d->irqfd[0], __ATOMIC_ACQUIRE);
	if ((__atomic_load_n(&d->cfg[0x05], __ATOMIC_ACQUIRE) & 0x04) || fd < 0)
		return;
	if (write(fd, &one, sizeof(one)) < 0) {
		/* Only if the counter would overflow: asserted anyway. */
	}
}

/* A mapping of fd's [off, off + size), made once per file range and kept. */
static uint8_t *map_range(struct proxyd *d, int fd, int64_t off, uint64_t size)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st))
		return NULL;
	for (unsigned int i = 0; i < d->nmaps; i++) {
		struct gmap *g = &d->maps[i];

		if (g->dev == st.st_dev && g->ino == st.st_ino && g->off == off && g->size == size)
			return g->p;
	}
	if (d->nmaps == MAX_MAPS)
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (p == MAP_FAILED)
		return NULL;
	d->maps[d->nmaps++] = (struct gmap){ st.st_dev, st.st_ino, off, size, p };
	return p;
}

/*
 * The proxy resends the memory layout at every change. The model's threads
 * may hold pointers into a mapping: mappings are never unmapped while we
 * run, only the table of regions changes (under the lock).
 */
static void sync_sysmem(struct proxyd *d, const struct mpq_msg *m)
{
	struct region reg[MPQ_MAX_FDS];
	unsigned int n = 0;

	for (int i = 0; i < m->nfds; i++) {
		uint8_t *p = map_range(d, m->fds[i], m->d.sysmem.offset[i], m->d.sysmem.size[i]);

		if (!p) {
			msg("cannot map guest RAM 0x%llx (+%llu bytes): %s",
			    (unsigned long long)m->d.sysmem.gpa[i],
			    (unsigned long long)m->d.sysmem.size[i], strerror(errno));
			continue;
		}
		reg[n++] = (struct region){ m->d.sysmem.gpa[i], m->d.sysmem.size[i], p };
	}
	pthread_rwlock_wrlock(&d->ram_lock);
	memcpy(d->reg, reg, sizeof(reg[0]) * n);
	d->nreg = n;
	pthread_rwlock_unlock(&d->ram_lock);
	d->syncs++;
}

/* ---- config space ------------------------------------------------------------ */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static unsigned int log2u(unsigned int v)
{
	unsigned int l = 0;

	while (v > 1) {
		v >>= 1;
		l++;
	}
	return l;
}

/*
 * The function's config space: the model's device ID (XDMA: an
 * UltraScale+ XDMA's default for the link, 9GL), class "memory controller,
 * other", the model's 32-bit BARs, a PCIe capability with the link the
 * model paces, and (XDMA) the IP's MSI-X capability: 32 vectors, the table
 * and pending bits in the DMA BAR, where the model keeps them. A guest
 * driver can enable it and program the table; no message it describes
 * reaches a TCG guest (the model's messages go to the carrier instead).
 */
static void cfg_init(struct proxyd *d)
{
	const struct fdma_link_cfg *l = &d->so.model.link;
	uint8_t *c = d->cfg, *x = c + PCIE_CAP;
	unsigned int gen = l->gen > 3 ? 3 : l->gen, lanes = l->lanes > 8 ? 8 : l->lanes;

	memset(c, 0, sizeof(d->cfg));
	put16(c + 0x00, 0x10ee);
	put16(c + 0x02, d->pm->device_id ? d->pm->device_id : (uint16_t)(0x9000 | gen << 4 | lanes));
	put16(c + 0x06, 0x0010);		/* status: capabilities list */
	c[0x0a] = 0x80;				/* class 0x058000 */
	c[0x0b] = 0x05;
	put16(c + 0x2c, 0x10ee);
	put16(c + 0x2e, 0x0007);
	c[0x34] = PCIE_CAP;
	c[0x3d] = 1;				/* INTA (unusable under TCG: see above) */
	memcpy(d->bar_size, d->pm->bar_size, sizeof(d->bar_size));
	x[0] = 0x10;				/* PCI Express */
	put16(x + 0x02, 0x0002);		/* version 2, endpoint */
	put32(x + 0x04, 2);			/* max payload supported: 512 */
	put16(x + 0x08, (uint16_t)((log2u(l->mps) - 7) << 5 | (log2u(l->mrrs) - 7) << 12));
	put32(x + 0x0c, gen | lanes << 4);	/* link capabilities */
	put16(x + 0x12, (uint16_t)(gen | lanes << 4));	/* link status: as negotiated */
	put32(x + 0x2c, ((1u << gen) - 1) << 1);	/* supported speeds vector */
	if (d->pm->msix_vectors) {
		uint8_t *mx = c + MSIX_CAP;

		x[1] = MSIX_CAP;
		mx[0] = 0x11;				/* MSI-X */
		put16(mx + 0x02, (uint16_t)(d->pm->msix_vectors - 1));	/* table size - 1 */
		put32(mx + 0x04, d->pm->msix_table | d->pm->msix_bar);
		put32(mx + 0x08, d->pm->msix_pba | d->pm->msix_bar);
	}
}

/* Bytes a config write may change: command, BARs, interrupt line, device and link control. */
static uint8_t cfg_wmask(const struct proxyd *d, unsigned int a)
{
	if (a == 0x04)
		return 0x06;			/* memory space, bus master */
	if (a == 0x05)
		return 0x04;			/* INTx disable */
	if (a >= 0x10 && a < 0x28) {
		unsigned int bar = (a - 0x10) / 4, byte = a & 3;
		uint32_t mask = d->bar_size[bar] ? ~(d->bar_size[bar] - 1) & ~0xfu : 0;

		return (uint8_t)(mask >> (8 * byte));
	}
	if (a == 0x3c)
		return 0xff;
	if (a == PCIE_CAP + 0x08 || a == PCIE_CAP + 0x09 || a == PCIE_CAP + 0x10)
		return 0xff;
	if (d->pm->msix_vectors && a == MSIX_CAP + 0x03)
		return 0xc0;			/* MSI-X enable, function mask */
	return 0;
}

/*
 * The IP signals by messages once MSI-X is enabled, else by INTx. With a
 * carrier (--ivshmem) the model always sends messages: the carrier is how
 * they reach the guest, whatever the function's config space says.
 */
static void intx_mode_update(struct proxyd *d)
{
	bool intx = !d->ivs_path && !(d->cfg[MSIX_CAP + 3] & 0x80);

	if (!d->mdev || !d->mdev->ops->set_intx || intx == d->intx_mode)
		return;
	d->intx_mode = intx;
	d->mdev->ops->set_intx(d->mdev, intx);
}

static void cfg_write(struct proxyd *d, uint32_t addr, uint32_t val, int len)
{
	for (int i = 0; i < len && addr + (uint32_t)i < sizeof(d->cfg); i++) {
		unsigned int a = addr + (unsigned int)i;
		uint8_t m = cfg_wmask(d, a), v = (uint8_t)(val >> (8 * i));

		__atomic_store_n(&d->cfg[a], (uint8_t)((d->cfg[a] & ~m) | (v & m)), __ATOMIC_RELEASE);
	}
	if (d->verbose)
		msg("config write 0x%02x = 0x%x (%d)", addr, val, len);
	intx_mode_update(d);
}

static uint32_t cfg_read(struct proxyd *d, uint32_t addr, int len)
{
	uint32_t v = 0;

	for (int i = 0; i < len && addr + (uint32_t)i < sizeof(d->cfg); i++)
		v |= (uint32_t)d->cfg[addr + (unsigned int)i] << (8 * i);
	if (d->verbose)
		msg("config read 0x%02x = 0x%x (%d)", addr, v, len);
	return v;
}

/* ---- BARs ------------------------------------------------------------------------ */

/* The BAR holding bus address addr, and the offset in it; -1 if none. */
static int bar_of(const struct proxyd *d, uint64_t addr, uint32_t *off)
{
	for (int i = 0; i < 6; i++) {
		uint64_t base = get32(d->cfg + 0x10 + 4 * i) & ~0xfull;

		if (d->bar_size[i] && addr >= base && addr - base < d->bar_size[i]) {
			*off = (uint32_t)(addr - base);
			return i;
		}
	}
	return -1;
}

/*
 * Within the BAR only: an 8-byte access at its last word must not run past
 * it. Past the device's registers: the design's (design_regs), else the
 * device's to answer (XDMA's model reads 0 where it has nothing).
 */
static uint32_t bar_rd32(struct proxyd *d, int bar, uint32_t off)
{
	unsigned int db = d->pm->dev_bar[bar];
	uint32_t regs = d->mdev->ops->bar_bytes[db];

	if (off > d->bar_size[bar] - 4)
		return ~0u;
	if (d->pm->design_regs && off >= regs)
		return d->user[(off - regs) / 4];
	return fdma_mdev_read(d->mdev, db, off);
}

/* On an FPGA the register write is the kick: the device sees it (fdma_mdev_write()). */
static void bar_wr32(struct proxyd *d, int bar, uint32_t off, uint32_t val)
{
	unsigned int db = d->pm->dev_bar[bar];
	uint32_t regs = d->mdev->ops->bar_bytes[db];

	if (off > d->bar_size[bar] - 4)
		return;
	if (d->pm->design_regs && off >= regs)
		d->user[(off - regs) / 4] = val;
	else
		fdma_mdev_write(d->mdev, db, off, val);
}

static uint64_t bar_read(struct proxyd *d, const struct mpq_bar *b)
{
	uint32_t off, w;
	int bar = bar_of(d, b->addr, &off);

	d->bar_reads++;
	if (bar < 0)
		return ~0ull;
	if (b->size == 8)
		return bar_rd32(d, bar, off) | (uint64_t)bar_rd32(d, bar, off + 4) << 32;
	w = bar_rd32(d, bar, off & ~3u);
	w >>= 8 * (off & 3);
	return b->size >= 4 ? w : w & ((1u << (8 * b->size)) - 1);
}

static void bar_write(struct proxyd *d, const struct mpq_bar *b)
{
	uint32_t off;
	int bar = bar_of(d, b->addr, &off);

	d->bar_writes++;
	if (bar < 0)
		return;
	if (b->size == 8) {
		bar_wr32(d, bar, off, (uint32_t)b->val);
		bar_wr32(d, bar, off + 4, (uint32_t)(b->val >> 32));
	} else if (b->size == 4 && !(off & 3)) {
		bar_wr32(d, bar, off, (uint32_t)b->val);
	} else if (d->narrow_writes++ < LOG_MAX) {
		/* The engines' registers are 32-bit: a narrower write has no defined effect. */
		msg("%u-byte write to BAR%d 0x%x ignored", b->size, bar, off);
	}
}

/* ---- the devices ------------------------------------------------------------------ */

/*
 * FDMA (the model or the RTL): 10ee:fd3a, BAR0 the engine's registers
 * (the RTL's with its MSI-X table and PBA), then the design's. XDMA:
 * BAR0 the user BAR (the model's test block), BAR1 XDMA's DMA BAR, with
 * the IP's MSI-X table.
 */
static const struct pmodel pmodels[] = {
	{ .engine = "fdma", .device_id = FDMA_PCI_DEVICE,
	  .bar_size = { FDMA_BAR0_BYTES }, .design_regs = true },
	{ .engine = "xdma", .bar_size = { USER_BAR_BYTES, XDMA_BAR_BYTES }, .dev_bar = { 1, 0 },
	  .msix_vectors = XDMA_MSIX_VECTORS, .msix_bar = 1,
	  .msix_table = XDMA_BLK_MSIX + XDMA_MSIX_TABLE, .msix_pba = XDMA_BLK_MSIX + XDMA_MSIX_PBA },
	{ .engine = "fdma", .rtl = true, .device_id = FDMA_PCI_DEVICE,
	  .bar_size = { FDMA_BAR0_BYTES }, .design_regs = true },
};

/* The device for the options, started; 0, or 1 having said why. */
static int device_create(struct proxyd *d, const struct fdma_model_host *host)
{
	const struct fdma_mdev_ops *mops = d->so.dev;
	char why[256] = "";

	if (d->pm->design_regs) {
		d->user = calloc(1, FDMA_BAR0_BYTES - mops->bar_bytes[0]);
		if (!d->user) {
			msg("out of memory");
			return 1;
		}
	}
	if (fdma_mdev_create(mops, &d->so.model, host, NULL, &d->mdev, why, sizeof(why))) {
		msg("%s", why);
		d->mdev = NULL;
		return 1;
	}
	return 0;
}

static void device_destroy(struct proxyd *d)
{
	if (d->mdev)
		fdma_mdev_destroy(d->mdev);
	d->mdev = NULL;
	free(d->user);
	d->user = NULL;
}

/* ---- the proxy ------------------------------------------------------------------- */

/* One message from the proxy; false when it is gone. */
static bool proxy_serve(struct proxyd *d)
{
	struct mpq_msg m;
	uint64_t ret = 0;
	int r = mpq_recv(d->proxy_fd, &m);
	bool reply = true;

	if (r) {
		if (r != -EPIPE)
			msg("proxy: %s", strerror(-r));
		return false;
	}
	switch (m.h.cmd) {
	case MPQ_SYNC_SYSMEM:
		sync_sysmem(d, &m);
		reply = false;
		break;
	case MPQ_CFG_WRITE:
		d->cfg_ops++;
		cfg_write(d, m.d.cfg.addr, m.d.cfg.val, m.d.cfg.len);
		break;
	case MPQ_CFG_READ:
		d->cfg_ops++;
		ret = cfg_read(d, m.d.cfg.addr, m.d.cfg.len);
		break;
	case MPQ_BAR_WRITE:
		bar_write(d, &m.d.bar);
		break;
	case MPQ_BAR_READ:
		ret = bar_read(d, &m.d.bar);
		break;
	case MPQ_SET_IRQFD:
		/* INTx's irqfd and its resample fd: xd_intx() asserts it; no TCG guest sees it. */
		for (int i = 0; i < m.nfds && i < 2; i++) {
			int old = __atomic_exchange_n(&d->irqfd[i], m.fds[i], __ATOMIC_ACQ_REL);

			if (old >= 0)
				close(old);
			m.fds[i] = -1;
		}
		reply = false;
		break;
	case MPQ_DEVICE_RESET:
		/* A reset function masters nothing: bus mastering off, the BARs' decode off, MSI-X off. */
		__atomic_store_n(&d->cfg[4], 0, __ATOMIC_RELEASE);
		__atomic_store_n(&d->cfg[5], 0, __ATOMIC_RELEASE);
		if (d->pm->msix_vectors)
			__atomic_store_n(&d->cfg[MSIX_CAP + 3], 0, __ATOMIC_RELEASE);
		intx_mode_update(d);
		break;
	default:
		msg("proxy: unknown command %d (%llu bytes)", m.h.cmd, (unsigned long long)m.h.size);
		ret = ~0ull;
		break;
	}
	for (int i = 0; i < m.nfds; i++)
		if (m.fds[i] >= 0)
			close(m.fds[i]);
	if (reply && (r = mpq_ret(d->proxy_fd, ret))) {
		msg("proxy: reply: %s", strerror(-r));
		return false;
	}
	return true;
}

/* ---- the interrupt carrier ---------------------------------------------------------- */

static int ivs_setup(struct proxyd *d)
{
	char err[256];

	d->shm_fd = memfd_create("fdma-proxyd-ivshmem", MFD_CLOEXEC);
	if (d->shm_fd < 0 || ftruncate(d->shm_fd, IVS_SHM_BYTES)) {
		msg("memfd: %s", strerror(errno));
		return -1;
	}
	for (unsigned int v = 0; v < d->nvec; v++) {
		d->model_efd[v] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		d->guest_efd[v] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (d->model_efd[v] < 0 || d->guest_efd[v] < 0) {
			msg("eventfd: %s", strerror(errno));
			return -1;
		}
	}
	d->ivs_listen = ivs_listen(d->ivs_path, err, sizeof(err));
	if (d->ivs_listen < 0) {
		msg("%s", err);
		return -1;
	}
	return 0;
}

static void ivs_accept(struct proxyd *d)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = TAG_IVS };
	char err[256];
	int fd = accept4(d->ivs_listen, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (d->ivs_fd >= 0) {
		msg("a second ivshmem client: refused");
		close(fd);
		return;
	}
	if (ivs_handshake(fd, d->shm_fd, d->model_efd, d->guest_efd, d->nvec, err, sizeof(err))) {
		msg("ivshmem handshake: %s", err);
		close(fd);
		return;
	}
	d->ivs_fd = fd;
	epoll_ctl(d->ep, EPOLL_CTL_ADD, fd, &ev);
	atomic_store(&d->ivs_up, true);
}

/* ---- QEMU ---------------------------------------------------------------------------- */

static int spawn_qemu(struct proxyd *d, char **argv)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		msg("socketpair: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		msg("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigset_t none;

		/* QEMU gets the signals we take through the signalfd, and fd 4. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* fd 4, without close-on-exec: QEMU's end of the proxy's socket. */
		if (dup2(sv[1], QEMU_FD) < 0)
			_exit(127);
		if (sv[1] == QEMU_FD)
			fcntl(QEMU_FD, F_SETFD, 0);
		execvp(argv[0], argv);
		fprintf(stderr, PROG ": cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(sv[1]);
	d->proxy_fd = sv[0];
	d->qemu = pid;
	return 0;
}

static int parse_args(struct proxyd *d, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "ivshmem", required_argument, NULL, 'i' },
		{ "vectors", required_argument, NULL, 'v' },
		{ "opts", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char why[256], *opts;
	u64 v;
	int c;

	d->nvec = 8;
	d->opts = "";
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			d->ivs_path = optarg;
			break;
		case 'v':
			if (fdma_parse_size(optarg, &v) || !v || v > MAX_VECTORS) {
				msg("bad --vectors '%s': expected 1..%u", optarg, MAX_VECTORS);
				return 2;
			}
			d->nvec = (unsigned int)v;
			break;
		case 'o':
			d->opts = optarg;
			break;
		case 'V':
			d->verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			msg("%s needs a value", argv[optind - 1]);
			return 2;
		default:
			msg("unknown option '%s' (--help lists them)", argv[optind - 1]);
			return 2;
		}
	}
	if (optind >= argc) {
		msg("no QEMU command after the options (fdma-proxyd [options] -- qemu-system-x86_64 ...)");
		return 2;
	}
	/* The model's options: paced=0 by default (guest timings mean nothing under TCG). */
	if (asprintf(&opts, "%s%s%s", strstr(d->opts, "paced=") ? "" : "paced=0",
		     d->opts[0] && !strstr(d->opts, "paced=") ? "," : "", d->opts) < 0)
		return 1;
	if (fdma_mdev_parse_opts(opts, &d->so, NULL, why, sizeof(why))) {
		msg("bad --opts: %s", why);
		free(opts);
		return 2;
	}
	free(opts);
	for (size_t i = 0; i < sizeof(pmodels) / sizeof(pmodels[0]); i++)
		if (!strcmp(pmodels[i].engine, d->so.dev->engine) && pmodels[i].rtl == d->so.rtl)
			d->pm = &pmodels[i];
	return d->pm ? 0 : 2;
}

int main(int argc, char **argv)
{
	static struct proxyd dd;
	struct proxyd *d = &dd;
	struct fdma_model_host host = { .dma = xd_dma, .irq = xd_irq, .intx = xd_intx, .ctx = d };
	struct epoll_event ev;
	sigset_t ss;
	int ret, status = 0;

	d->ivs_fd = d->ivs_listen = d->shm_fd = -1;
	d->irqfd[0] = d->irqfd[1] = -1;
	ret = parse_args(d, argc, argv);
	if (ret)
		return ret;
	/*
	 * Signals blocked before the model's threads exist (they inherit the
	 * mask): QEMU's SIGCHLD must reach the signalfd, not a thread that
	 * would let it be ignored.
	 */
	sigemptyset(&ss);
	sigaddset(&ss, SIGCHLD);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);
	pthread_rwlock_init(&d->ram_lock, NULL);
	cfg_init(d);
	if (device_create(d, &host))
		return 1;
	/* Out of reset MSI-X is off: without a carrier, the function starts in INTx mode. */
	intx_mode_update(d);
	if (d->ivs_path && ivs_setup(d))
		return 1;
	d->sig_fd = signalfd(-1, &ss, SFD_CLOEXEC);
	d->ep = epoll_create1(EPOLL_CLOEXEC);
	if (d->sig_fd < 0 || d->ep < 0) {
		msg("signalfd/epoll: %s", strerror(errno));
		return 1;
	}
	if (spawn_qemu(d, argv + optind))
		return 1;
	ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = TAG_PROXY };
	epoll_ctl(d->ep, EPOLL_CTL_ADD, d->proxy_fd, &ev);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = TAG_SIGNAL };
	epoll_ctl(d->ep, EPOLL_CTL_ADD, d->sig_fd, &ev);
	if (d->ivs_listen >= 0) {
		ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = TAG_IVS_LISTEN };
		epoll_ctl(d->ep, EPOLL_CTL_ADD, d->ivs_listen, &ev);
	}
	for (bool run = true; run;) {
		struct epoll_event evs[4];
		int n = epoll_wait(d->ep, evs, 4, -1);

		for (int i = 0; i < n && run; i++) {
			switch (evs[i].data.u32) {
			case TAG_PROXY:
				if (!proxy_serve(d)) {
					epoll_ctl(d->ep, EPOLL_CTL_DEL, d->proxy_fd, NULL);
					close(d->proxy_fd);
					d->proxy_fd = -1;
				}
				break;
			case TAG_IVS_LISTEN:
				ivs_accept(d);
				break;
			case TAG_IVS: {
				char buf[64];

				/* The client says nothing after the setup; EOF when QEMU goes. */
				if (read(d->ivs_fd, buf, sizeof(buf)) <= 0) {
					atomic_store(&d->ivs_up, false);
					epoll_ctl(d->ep, EPOLL_CTL_DEL, d->ivs_fd, NULL);
					close(d->ivs_fd);
					d->ivs_fd = -1;
				}
				break;
			}
			case TAG_SIGNAL: {
				struct signalfd_siginfo si;

				if (read(d->sig_fd, &si, sizeof(si)) != sizeof(si))
					break;
				if (si.ssi_signo == SIGCHLD) {
					if (waitpid(d->qemu, &status, WNOHANG) == d->qemu)
						run = false;
				} else {
					kill(d->qemu, SIGTERM);
				}
				break;
			}
			}
		}
	}
	if (d->intx_mode || atomic_load(&d->intx_asserts))
		msg("INTx asserted %llu times (QEMU routes no INTx irqfd without KVM)",
		    (unsigned long long)atomic_load(&d->intx_asserts));
	msg("config accesses %llu, BAR reads %llu, BAR writes %llu, memory syncs %llu, interrupts %llu (dropped %llu), DMA refused %llu",
	    (unsigned long long)d->cfg_ops, (unsigned long long)d->bar_reads,
	    (unsigned long long)d->bar_writes, (unsigned long long)d->syncs,
	    (unsigned long long)atomic_load(&d->irqs),
	    (unsigned long long)atomic_load(&d->irq_dropped),
	    (unsigned long long)atomic_load(&d->dma_refused));
	device_destroy(d);
	if (d->ivs_path)
		unlink(d->ivs_path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
