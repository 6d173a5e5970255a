/* SPDX-License-Identifier: MIT */
/*
 * fdma_mdev.h - a simulated device, whatever plays it: the FDMA model
 * (fdma_model.c), the XDMA model (xdma_model.c) or the engine's RTL
 * (libfdma-rtl.so, rtl/sim/fdma_rtl.h, loaded by fdma_mdev_rtl.c). Three
 * hosts run one through this interface and nothing else: libfdma's sim:
 * and rtl: backends (lib/sim.c), fdma-modeld (behind QEMU's ivshmem) and
 * fdma-proxyd (behind QEMU's x-pci-proxy-dev). A host finds the device for
 * an engine by name (fdma_mdev_find()), with its options parsed from a
 * URI's text (fdma_mdev_opts.h).
 *
 * The device reaches its host through struct fdma_model_host: DMA into the
 * host's memory by bus address, and interrupts by vector. The host reaches
 * the device as a PCI function's BARs of 32-bit registers: fdma_mdev_read()
 * and fdma_mdev_write() are the accesses a card sees (trapped: a register
 * with side effects behaves as on the card). A device whose register file
 * is plain memory (the FDMA model's) also lends it to the host
 * (fdma_mdev_regs()), which then loads and stores there and tells the
 * device which channel to look at (fdma_mdev_kick()): the seam an
 * ivshmem-doorbell has, and the fast path of the in-process backend.
 */
#ifndef FDMA_MDEV_H
#define FDMA_MDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fdma_model.h"

#define FDMA_MDEV_MAX_BARS	2

struct fdma_mdev;

/*
 * A device's kind. Every call but create takes the device it made; read
 * and write take a 4-byte aligned offset below the BAR's size.
 */
struct fdma_mdev_ops {
	const char *engine;	/* the engine it plays: fdma_eng_ops.name ("fdma", "xdma") */
	bool rtl;		/* the engine's RTL, not a model */
	const char *name;	/* for people: "simulated FDMA" */
	unsigned int nbars;
	uint32_t bar_bytes[FDMA_MDEV_MAX_BARS];	/* what each BAR decodes */
	const char *bar_what[FDMA_MDEV_MAX_BARS];	/* and holds, for messages */
	/*
	 * regs: FDMA_MODEL_REGS_BYTES of zeroed memory the host provides for
	 * the register file (fdma-modeld's shared memory), or NULL: the
	 * device's own. 0, or a negative errno with a message in why:
	 * -EINVAL (a configuration this device cannot be, or regs given to a
	 * device whose registers are trapped), -ENOMEM, -ENOENT or -ENOEXEC
	 * (the RTL's library not found, or not this ABI).
	 */
	int (*create)(const struct fdma_model_cfg *cfg, const struct fdma_model_host *host,
		      volatile uint32_t *regs, struct fdma_mdev **out, char *why, size_t whylen);
	void (*destroy)(struct fdma_mdev *m);
	uint32_t (*read)(struct fdma_mdev *m, unsigned int bar, uint32_t off);
	void (*write)(struct fdma_mdev *m, unsigned int bar, uint32_t off, uint32_t val);
	/* Optional (NULL: none): the register file as memory, and its kick. */
	volatile uint32_t *(*regs)(struct fdma_mdev *m);
	void (*kick)(struct fdma_mdev *m, unsigned int ch);
	/* Optional: the function's interrupt mode from its config space (XDMA). */
	void (*set_intx)(struct fdma_mdev *m, bool intx);
	double (*cpu_seconds)(struct fdma_mdev *m);
};

/* Every device starts with this; its kind's code finds the rest around it. */
struct fdma_mdev {
	const struct fdma_mdev_ops *ops;
};

/* The device of kind type (a struct with a struct fdma_mdev mdev) that m is. */
#define FDMA_MDEV_OF(m, type) ((type *)((char *)(m) - offsetof(type, mdev)))

/*
 * The device that plays engine (fdma_eng_ops.name), as a model or, with
 * rtl, as the RTL; NULL if there is none.
 */
const struct fdma_mdev_ops *fdma_mdev_find(const char *engine, bool rtl);

extern const struct fdma_mdev_ops fdma_mdev_fdma;	/* fdma_mdev.c */
extern const struct fdma_mdev_ops fdma_mdev_xdma;
extern const struct fdma_mdev_ops fdma_mdev_rtl;	/* fdma_mdev_rtl.c */

static inline int fdma_mdev_create(const struct fdma_mdev_ops *ops,
				   const struct fdma_model_cfg *cfg,
				   const struct fdma_model_host *host, volatile uint32_t *regs,
				   struct fdma_mdev **out, char *why, size_t whylen)
{
	return ops->create(cfg, host, regs, out, why, whylen);
}

static inline void fdma_mdev_destroy(struct fdma_mdev *m)
{
	m->ops->destroy(m);
}

static inline uint32_t fdma_mdev_read(struct fdma_mdev *m, unsigned int bar, uint32_t off)
{
	return m->ops->read(m, bar, off);
}

static inline void fdma_mdev_write(struct fdma_mdev *m, unsigned int bar, uint32_t off,
				   uint32_t val)
{
	m->ops->write(m, bar, off, val);
}

/* The register file as memory, or NULL where every access must be a call. */
static inline volatile uint32_t *fdma_mdev_regs(struct fdma_mdev *m)
{
	return m->ops->regs ? m->ops->regs(m) : NULL;
}

/* After stores to fdma_mdev_regs(): channel ch (0 for the engine's registers) looks. */
static inline void fdma_mdev_kick(struct fdma_mdev *m, unsigned int ch)
{
	if (m->ops->kick)
		m->ops->kick(m, ch);
}

static inline double fdma_mdev_cpu_seconds(struct fdma_mdev *m)
{
	return m->ops->cpu_seconds(m);
}

/*
 * The RTL's own counts (clocks, TLPs, MSI-X messages; rtl/sim/fdma_rtl.h):
 * 0, or -ENODEV where m is not the RTL.
 */
struct fdma_rtl_counts;
int fdma_mdev_rtl_counts(struct fdma_mdev *m, struct fdma_rtl_counts *out);

#endif /* FDMA_MDEV_H */
