// SPDX-License-Identifier: MIT
/*
 * The engine's RTL (rtl/), Verilated, as a simulated device (fdma_mdev.h).
 * libfdma-rtl.so holds the Verilated engine and the harness that plays the
 * root complex (rtl/sim/fdma_rtl.h); it is loaded here with dlopen() so
 * that its hosts (libfdma, fdma-proxyd) need neither Verilator nor a C++
 * runtime. Registers are trapped: every access is a memory request TLP to
 * the engine's BAR0, as on a PCIe card.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdma_mdev.h"
#include "fdma_rtl.h"

/* BAR0: the register file (4 KiB), then the MSI-X table and PBA. */
#define RTL_BAR0_BYTES 8192u

struct mdev_rtl {
	struct fdma_mdev mdev;
	void *dl;
	const struct fdma_rtl_plugin *pl;
	struct fdma_rtl *r;
};

static struct mdev_rtl *to_rm(struct fdma_mdev *m)
{
	return FDMA_MDEV_OF(m, struct mdev_rtl);
}

/*
 * Where libfdma-rtl.so is: $FDMA_RTL_LIB, else beside the running program
 * (the build directory's fdma, tests and daemons), else the loader's
 * search path (an installed library).
 */
static void *open_plugin(char *err, size_t errlen)
{
	const char *env = getenv("FDMA_RTL_LIB");
	char path[PATH_MAX];
	ssize_t n;
	void *dl;

	if (env && *env) {
		dl = dlopen(env, RTLD_NOW | RTLD_LOCAL);
		if (!dl)
			snprintf(err, errlen, "FDMA_RTL_LIB=%s: %s", env, dlerror());
		return dl;
	}
	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	if (n > 0) {
		char *slash;

		path[n] = '\0';
		slash = strrchr(path, '/');
		if (slash) {
			strcpy(slash + 1, "libfdma-rtl.so");
			if (access(path, R_OK) == 0) {
				dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
				if (dl)
					return dl;
			}
		}
	}
	dl = dlopen("libfdma-rtl.so", RTLD_NOW | RTLD_LOCAL);
	if (!dl)
		snprintf(err, errlen,
			 "the RTL device needs libfdma-rtl.so ('make rtl' builds it, with Verilator): %s",
			 dlerror());
	return dl;
}

static int rm_create(const struct fdma_model_cfg *cfg, const struct fdma_model_host *host,
		     volatile uint32_t *regs, struct fdma_mdev **out, char *why, size_t whylen)
{
	struct mdev_rtl *s;
	char msg[200] = "";
	int ret;

	if (regs) {
		snprintf(why, whylen,
			 "the RTL's registers are the engine's, reached by TLPs: they cannot be shared memory");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	s->mdev.ops = &fdma_mdev_rtl;
	s->dl = open_plugin(why, whylen);
	if (!s->dl) {
		free(s);
		return -ENOENT;
	}
	s->pl = dlsym(s->dl, "fdma_rtl_plugin");
	if (!s->pl || s->pl->abi != FDMA_RTL_ABI) {
		dlclose(s->dl);
		free(s);
		snprintf(why, whylen, "libfdma-rtl.so is not this library's plugin (ABI %u wanted)",
			 FDMA_RTL_ABI);
		return -ENOEXEC;
	}
	ret = s->pl->create(cfg, host, &s->r, msg, sizeof(msg));
	if (ret) {
		dlclose(s->dl);
		free(s);
		snprintf(why, whylen, "cannot start the RTL engine: %s", msg[0] ? msg : strerror(-ret));
		return ret;
	}
	*out = &s->mdev;
	return 0;
}

static void rm_destroy(struct fdma_mdev *m)
{
	struct mdev_rtl *s = to_rm(m);

	s->pl->destroy(s->r);
	dlclose(s->dl);
	free(s);
}

static uint32_t rm_read(struct fdma_mdev *m, unsigned int bar, uint32_t off)
{
	struct mdev_rtl *s = to_rm(m);

	(void)bar;
	return s->pl->read(s->r, off);
}

static void rm_write(struct fdma_mdev *m, unsigned int bar, uint32_t off, uint32_t val)
{
	struct mdev_rtl *s = to_rm(m);

	(void)bar;
	s->pl->write(s->r, off, val);
}

static double rm_cpu(struct fdma_mdev *m)
{
	struct mdev_rtl *s = to_rm(m);

	return s->pl->cpu_seconds(s->r);
}

const struct fdma_mdev_ops fdma_mdev_rtl = {
	.engine = "fdma",
	.rtl = true,
	.name = "RTL FDMA (Verilated)",
	.nbars = 1,
	.bar_bytes = { RTL_BAR0_BYTES },
	.bar_what = { "registers, MSI-X table, PBA" },
	.create = rm_create,
	.destroy = rm_destroy,
	.read = rm_read,
	.write = rm_write,
	.cpu_seconds = rm_cpu,
};

int fdma_mdev_rtl_counts(struct fdma_mdev *m, struct fdma_rtl_counts *out)
{
	struct mdev_rtl *s;

	if (!m || m->ops != &fdma_mdev_rtl)
		return -ENODEV;
	s = to_rm(m);
	s->pl->counts(s->r, out);
	return 0;
}
