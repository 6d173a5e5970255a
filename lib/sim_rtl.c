// SPDX-License-Identifier: MIT
/*
 * The rtl: device: the engine's RTL (rtl/), Verilated, behind the same
 * simulated-device backend as the models. libfdma-rtl.so holds the
 * Verilated engine and the harness that plays the root complex
 * (rtl/sim/fdma_rtl.h); it is loaded here with dlopen() so that libfdma
 * itself needs neither Verilator nor a C++ runtime. Registers are trapped:
 * every access is a memory request TLP to the engine's BAR0, as on a PCIe
 * card.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdma_internal.h"
#include "fdma_rtl.h"

struct sim_rtl {
	void *dl;
	const struct fdma_rtl_plugin *pl;
	struct fdma_rtl *r;
};

/* BAR0: the register file (4 KiB), then the MSI-X table and PBA. */
#define RTL_BAR0_BYTES 8192u

static u32 rtl_rd(void *ctx, u32 off)
{
	struct sim_rtl *s = ctx;

	return s->pl->read(s->r, off);
}

static void rtl_wr(void *ctx, u32 off, u32 val)
{
	struct sim_rtl *s = ctx;

	s->pl->write(s->r, off, val);
}

/*
 * Where libfdma-rtl.so is: $FDMA_RTL_LIB, else beside the running program
 * (the build directory's fdma and tests), else the loader's search path
 * (an installed library).
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

int fdma_rtl_plugin_load(void **dl, const struct fdma_rtl_plugin **pl, char *err, size_t errlen)
{
	*dl = open_plugin(err, errlen);
	if (!*dl)
		return -ENOENT;
	*pl = dlsym(*dl, "fdma_rtl_plugin");
	if (!*pl || (*pl)->abi != FDMA_RTL_ABI) {
		dlclose(*dl);
		*dl = NULL;
		snprintf(err, errlen, "libfdma-rtl.so is not this library's plugin (ABI %u wanted)",
			 FDMA_RTL_ABI);
		return -ENOEXEC;
	}
	return 0;
}

static int rtl_create(struct fdma_dev *dev, const struct fdma_sim_opts *o)
{
	struct fdma_model_host host;
	struct fdma_model_cfg cfg = o->model;
	struct sim_rtl *s = calloc(1, sizeof(*s));
	char why[200] = "";
	int ret;

	if (!s)
		return fdma_err(dev, -ENOMEM, "out of memory");
	ret = fdma_rtl_plugin_load(&s->dl, &s->pl, why, sizeof(why));
	if (ret) {
		free(s);
		return fdma_err(dev, ret, "%s", why);
	}
	if (!o->mem_given)
		cfg.card_size = 0;
	fdma_sim_host(dev, &host);
	ret = s->pl->create(&cfg, &host, &s->r, why, sizeof(why));
	if (ret) {
		dlclose(s->dl);
		free(s);
		return fdma_err(dev, ret, "cannot start the RTL engine: %s", why[0] ? why : strerror(-ret));
	}
	dev->model = s;
	dev->plat.rd = rtl_rd;
	dev->plat.wr = rtl_wr;
	dev->plat.trap_ctx = s;
	return 0;
}

static void rtl_destroy(struct fdma_dev *dev)
{
	struct sim_rtl *s = dev->model;

	s->pl->destroy(s->r);
	dlclose(s->dl);
	free(s);
}

static double rtl_cpu(struct fdma_dev *dev)
{
	struct sim_rtl *s = dev->model;

	return s->pl->cpu_seconds(s->r);
}

static int rtl_reg(struct fdma_dev *dev, unsigned int bar, u64 off, u32 *val, bool write,
		   unsigned int flags)
{
	struct sim_rtl *s = dev->model;

	if (bar != 0)
		return fdma_err(dev, -ENXIO, "the RTL engine has BAR0 only, not BAR%u", bar);
	if (off >= RTL_BAR0_BYTES || (off & 3))
		return fdma_err(dev, -ERANGE,
				"offset 0x%llx is not a 32-bit word of BAR0's %u bytes (registers, MSI-X table, PBA)",
				(unsigned long long)off, RTL_BAR0_BYTES);
	if (write && !(flags & FDMA_REG_FORCE))
		return fdma_err(dev, -EPERM,
				"BAR0 0x%llx is the engine's register: writing it under the library can break the device (FDMA_REG_FORCE to insist)",
				(unsigned long long)off);
	if (write)
		s->pl->write(s->r, (u32)off, *val);
	else
		*val = s->pl->read(s->r, (u32)off);
	return 0;
}

int fdma_rtl_counts_get(struct fdma_dev *dev, struct fdma_rtl_counts *out)
{
	struct sim_rtl *s;

	if (dev->sm != &fdma_sim_rtl || !dev->model)
		return -ENODEV;
	s = dev->model;
	s->pl->counts(s->r, out);
	return 0;
}

const struct fdma_sim_model fdma_sim_rtl = {
	.eng = &fdma_eng_fdma,
	.name = "RTL FDMA (Verilated)",
	.create = rtl_create,
	.destroy = rtl_destroy,
	.cpu_seconds = rtl_cpu,
	.reg = rtl_reg,
};
