// SPDX-License-Identifier: MIT
/*
 * libfdma: a sim: or rtl: URI's options. The device's are parsed beside
 * the device (model/fdma_mdev_opts.c); the library's own are here: how it
 * drives the device (ring size, coalescing, XDMA's write-back).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fdma_internal.h"
#include "fdma_mdev_opts.h"

static int lib_opt(void *ctx, const char *key, const char *val, char *why, size_t whylen)
{
	struct fdma_sim_opts *o = ctx;
	uint64_t v = 0;
	int ret;

	if (!strcmp(key, "ring")) {
		ret = fdma_mdev_opt_num(key, val, 2, 4096, &v, why, whylen);
		if (!ret && (v & (v - 1))) {
			snprintf(why, whylen, "bad value '%s' for option 'ring': expected a power of 2 in 2..4096", val);
			ret = -EINVAL;
		}
		o->ring = (u32)v;
	} else if (!strcmp(key, "coal")) {
		ret = fdma_mdev_opt_num(key, val, 0, 65536, &v, why, whylen);
		o->coal_count = (u32)v;
	} else if (!strcmp(key, "coal_us")) {
		ret = fdma_mdev_opt_num(key, val, 0, 1000000, &v, why, whylen);
		o->coal_usecs = (u32)v;
	} else {	/* wb */
		ret = fdma_mdev_opt_num(key, val, 0, 1, &v, why, whylen);
		o->no_wb = !v;
	}
	return ret;
}

int fdma_parse_sim_uri(const char *opts, struct fdma_sim_opts *o, char *why, size_t whylen)
{
	const struct fdma_mdev_host_opts host = {
		.keys = "ring coal coal_us wb", .parse = lib_opt, .ctx = o,
	};

	memset(o, 0, sizeof(*o));
	o->ring = FDMA_DEFAULT_RING;
	return fdma_mdev_parse_opts(opts, &o->dev, &host, why, whylen);
}
