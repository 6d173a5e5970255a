// SPDX-License-Identifier: MIT
/*
 * The device models behind fdma_mdev.h: the FDMA model, whose register
 * file is memory it polls (lent to the host, or the host's), and the XDMA
 * model, whose registers are trapped. fdma_mdev_rtl.c has the RTL.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdma_mdev.h"
#include "fdma_plat.h"
#include "fdma_regs.h"
#include "xdma_model.h"

/* Why a model's threads may not start: cpus= names CPUs outside this process's cpuset. */
static const char *model_hint(const struct fdma_model_cfg *cfg, int ret)
{
	return ret == -EINVAL && CPU_COUNT(&cfg->cpus) ?
		" (cpus=: none of those CPUs is one this process may use)" : "";
}

/* ---- the FDMA model: its register file is memory ------------------------------- */

struct mdev_fdma {
	struct fdma_mdev mdev;
	struct fdma_model *model;
	volatile uint32_t *regs;
	bool own_regs;		/* allocated here, not the host's */
};

static struct mdev_fdma *to_fm(struct fdma_mdev *m)
{
	return FDMA_MDEV_OF(m, struct mdev_fdma);
}

static int fm_create(const struct fdma_model_cfg *cfg, const struct fdma_model_host *host,
		     volatile uint32_t *regs, struct fdma_mdev **out, char *why, size_t whylen)
{
	struct mdev_fdma *f = calloc(1, sizeof(*f));
	int ret;

	if (!f) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	f->mdev.ops = &fdma_mdev_fdma;
	f->regs = regs;
	if (!regs) {
		f->regs = aligned_alloc(4096, FDMA_MODEL_REGS_BYTES);
		f->own_regs = true;
		if (!f->regs) {
			free(f);
			snprintf(why, whylen, "out of memory for the register file");
			return -ENOMEM;
		}
		memset((void *)f->regs, 0, FDMA_MODEL_REGS_BYTES);
	}
	ret = fdma_model_create(cfg, f->regs, host, &f->model);
	if (ret) {
		snprintf(why, whylen, "cannot start the device model: %s%s", strerror(-ret),
			 model_hint(cfg, ret));
		if (f->own_regs)
			free((void *)f->regs);
		free(f);
		return ret;
	}
	*out = &f->mdev;
	return 0;
}

static void fm_destroy(struct fdma_mdev *m)
{
	struct mdev_fdma *f = to_fm(m);

	fdma_model_destroy(f->model);
	if (f->own_regs)
		free((void *)f->regs);
	free(f);
}

static uint32_t fm_read(struct fdma_mdev *m, unsigned int bar, uint32_t off)
{
	(void)bar;
	return __atomic_load_n(&to_fm(m)->regs[off / 4], __ATOMIC_ACQUIRE);
}

/*
 * On an FPGA the register write is the kick: the channel whose block was
 * written looks at its registers, channel 0 at the engine's (it runs the
 * engine reset and the bus-master switch); the test block is looked at
 * on every descriptor fetch.
 */
static void fm_write(struct fdma_mdev *m, unsigned int bar, uint32_t off, uint32_t val)
{
	struct mdev_fdma *f = to_fm(m);

	(void)bar;
	__atomic_store_n(&f->regs[off / 4], val, __ATOMIC_RELEASE);
	if (off >= FDMA_CH_BASE(0) && off < FDMA_CH_BASE(FDMA_MAX_CHANNELS))
		fdma_model_kick(f->model, (off - FDMA_CH_BASE(0)) / (FDMA_CH_BASE(1) - FDMA_CH_BASE(0)));
	else
		fdma_model_kick(f->model, 0);
}

static volatile uint32_t *fm_regs(struct fdma_mdev *m)
{
	return to_fm(m)->regs;
}

static void fm_kick(struct fdma_mdev *m, unsigned int ch)
{
	fdma_model_kick(to_fm(m)->model, ch);
}

static double fm_cpu(struct fdma_mdev *m)
{
	return fdma_model_cpu_seconds(to_fm(m)->model);
}

const struct fdma_mdev_ops fdma_mdev_fdma = {
	.engine = "fdma",
	.name = "simulated FDMA",
	.nbars = 1,
	.bar_bytes = { FDMA_MODEL_REGS_BYTES },
	.bar_what = { "the engine's registers" },
	.create = fm_create,
	.destroy = fm_destroy,
	.read = fm_read,
	.write = fm_write,
	.regs = fm_regs,
	.kick = fm_kick,
	.cpu_seconds = fm_cpu,
};

/* ---- the XDMA model: trapped registers, BAR 0 (DMA) and BAR 1 (user) ----------- */

struct mdev_xdma {
	struct fdma_mdev mdev;
	struct xdma_model *model;
};

static struct xdma_model *to_xm(struct fdma_mdev *m)
{
	return FDMA_MDEV_OF(m, struct mdev_xdma)->model;
}

static int xm_create(const struct fdma_model_cfg *cfg, const struct fdma_model_host *host,
		     volatile uint32_t *regs, struct fdma_mdev **out, char *why, size_t whylen)
{
	struct mdev_xdma *x;
	int ret;

	if (regs) {
		snprintf(why, whylen,
			 "the XDMA model's registers have side effects: they cannot be shared memory (its host traps them)");
		return -EINVAL;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	x->mdev.ops = &fdma_mdev_xdma;
	ret = xdma_model_create(cfg, host, &x->model);
	if (ret) {
		snprintf(why, whylen, "cannot start the XDMA model: %s%s", strerror(-ret),
			 model_hint(cfg, ret));
		free(x);
		return ret;
	}
	*out = &x->mdev;
	return 0;
}

static void xm_destroy(struct fdma_mdev *m)
{
	xdma_model_destroy(to_xm(m));
	free(FDMA_MDEV_OF(m, struct mdev_xdma));
}

static uint32_t xm_read(struct fdma_mdev *m, unsigned int bar, uint32_t off)
{
	return xdma_model_read(to_xm(m), bar, off);
}

static void xm_write(struct fdma_mdev *m, unsigned int bar, uint32_t off, uint32_t val)
{
	xdma_model_write(to_xm(m), bar, off, val);
}

static void xm_set_intx(struct fdma_mdev *m, bool intx)
{
	xdma_model_set_intx(to_xm(m), intx);
}

static double xm_cpu(struct fdma_mdev *m)
{
	return xdma_model_cpu_seconds(to_xm(m));
}

const struct fdma_mdev_ops fdma_mdev_xdma = {
	.engine = "xdma",
	.name = "simulated XDMA",
	.nbars = 2,
	.bar_bytes = { XDMA_MODEL_BAR0_BYTES, XDMA_MODEL_BAR1_BYTES },
	.bar_what = { "DMA", "user" },
	.create = xm_create,
	.destroy = xm_destroy,
	.read = xm_read,
	.write = xm_write,
	.set_intx = xm_set_intx,
	.cpu_seconds = xm_cpu,
};

/* ---- finding one ----------------------------------------------------------------- */

const struct fdma_mdev_ops *fdma_mdev_find(const char *engine, bool rtl)
{
	static const struct fdma_mdev_ops *const all[] = {
		&fdma_mdev_fdma, &fdma_mdev_xdma, &fdma_mdev_rtl,
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i]->rtl == rtl && !strcmp(all[i]->engine, engine))
			return all[i];
	return NULL;
}
