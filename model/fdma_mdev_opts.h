/* SPDX-License-Identifier: MIT */
/*
 * fdma_mdev_opts.h - a simulated device's options as text: what follows
 * sim: or rtl: in a libfdma URI ("gen=3,lanes=4,fault=desc@3"), and the
 * --opts of fdma-modeld and fdma-proxyd. docs/uri.md lists them. A host
 * may take options of its own in the same text (libfdma's ring=, coal=):
 * it names them and parses their values (struct fdma_mdev_host_opts).
 */
#ifndef FDMA_MDEV_OPTS_H
#define FDMA_MDEV_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fdma_mdev.h"

struct fdma_eng_ops;

struct fdma_mdev_opts {
	const struct fdma_mdev_ops *dev;	/* the device that plays the engine */
	const struct fdma_eng_ops *eng;		/* engine= (fdma, the default, or xdma) */
	bool rtl;				/* rtl=1: the engine's RTL plays it */
	bool mem_given;				/* mem= was given */
	/* For fdma_mdev_create(); card_size 0: the RTL's own */
	struct fdma_model_cfg model;
};

/* A host's own options, given among the device's. */
struct fdma_mdev_host_opts {
	const char *keys;	/* their names, separated by single spaces */
	/* key (one of keys) = val: 0, or -EINVAL with a message in why */
	int (*parse)(void *ctx, const char *key, const char *val, char *why, size_t whylen);
	void *ctx;
};

/*
 * Parse "name=value,name=value..." (empty: every default) into o, with
 * host's options (NULL: none) handed to it. 0, or with a message in why:
 * -EINVAL (an unknown option, one given twice, a bad value, or options
 * that do not go together), -ENOMEM.
 */
int fdma_mdev_parse_opts(const char *opts, struct fdma_mdev_opts *o,
			 const struct fdma_mdev_host_opts *host, char *why, size_t whylen);

/*
 * A number as options write it: decimal or 0x hex, optionally K, M, G or T
 * (powers of 1024, "KiB" and "KB" taken too). 0, or -EINVAL.
 */
int fdma_parse_size(const char *s, uint64_t *out);

/* An option's number in min..max: 0, or -EINVAL with a message naming the bounds. */
int fdma_mdev_opt_num(const char *key, const char *val, uint64_t min, uint64_t max,
		      uint64_t *out, char *why, size_t whylen);

#endif /* FDMA_MDEV_OPTS_H */
