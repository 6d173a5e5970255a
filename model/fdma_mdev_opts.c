// SPDX-License-Identifier: MIT
/*
 * A simulated device's options (fdma_mdev_opts.h): the text after sim: or
 * rtl: in a URI, and fdma-modeld's and fdma-proxyd's --opts.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdma_mdev_opts.h"
#include "fdma_plat.h"
#include "fdma_engine.h"

/* Parse a size: decimal or 0x hex, optional K/M/G/T (powers of 1024). */
int fdma_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case 0:
		break;
	case 'K':
		mult = 1ull << 10;
		end++;
		break;
	case 'M':
		mult = 1ull << 20;
		end++;
		break;
	case 'G':
		mult = 1ull << 30;
		end++;
		break;
	case 'T':
		mult = 1ull << 40;
		end++;
		break;
	default:
		return -EINVAL;
	}
	if (*end == 'i' || *end == 'B')	/* tolerate KiB / KB spellings */
		end++;
	if (*end == 'B')
		end++;
	if (*end || (v && mult > UINT64_MAX / v))
		return -EINVAL;
	*out = v * mult;
	return 0;
}

/* A bound as the user would write it: 2G rather than 2147483648. */
static const char *fmt_bound(uint64_t v, char *buf, size_t len)
{
	static const char unit[] = "KMGT";
	int u = -1;

	while (v >= 1024 && !(v & 1023) && u < 3) {
		v >>= 10;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, unit[u]);
	return buf;
}

int fdma_mdev_opt_num(const char *key, const char *val, uint64_t min, uint64_t max,
		      uint64_t *out, char *why, size_t whylen)
{
	char lo[24], hi[24];

	if (fdma_parse_size(val, out) || *out < min || *out > max) {
		snprintf(why, whylen, "bad value '%.40s' for option '%s': expected %s..%s", val, key,
			 fmt_bound(min, lo, sizeof(lo)), fmt_bound(max, hi, sizeof(hi)));
		return -EINVAL;
	}
	return 0;
}

static int parse_fault(const char *val, struct fdma_model_cfg *m, char *why, size_t whylen)
{
	static const struct {
		const char *name;
		enum fdma_fault f;
	} kinds[] = {
		{ "none", FDMA_FAULT_NONE }, { "desc", FDMA_FAULT_DESC },
		{ "data", FDMA_FAULT_DATA }, { "stuck", FDMA_FAULT_STUCK },
		{ "irq", FDMA_FAULT_IRQ }, { "noack", FDMA_FAULT_NOACK },
		{ "magic", FDMA_FAULT_MAGIC },
	};
	const char *at = strchr(val, '@');
	size_t klen = at ? (size_t)(at - val) : strlen(val);

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strlen(kinds[i].name) != klen || strncmp(kinds[i].name, val, klen))
			continue;
		m->fault = kinds[i].f;
		m->fault_at = 1;
		if (!at)
			return 0;
		if (fdma_parse_size(at + 1, &m->fault_at) || m->fault_at == 0) {
			snprintf(why, whylen,
				 "bad value '%.40s' for option 'fault': @N counts descriptors from 1 (the first is @1)",
				 val);
			return -EINVAL;
		}
		return 0;
	}
	snprintf(why, whylen,
		 "bad value '%s' for option 'fault': expected desc, data, stuck, irq, noack or magic, optionally @N (the Nth descriptor)",
		 val);
	return -EINVAL;
}

/*
 * cpus=N or N-M: the CPUs the model's channel threads run on. Not a list:
 * commas separate the URI's options. Any CPU the machine has will do, not
 * only those this process runs on: taskset -c 0 fdma ... 'sim:cpus=1'
 * keeps the host's threads and the device's apart.
 */
static int parse_cpus(const char *val, cpu_set_t *set, char *why, size_t whylen)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	unsigned long lo, hi;
	const char *p = val;
	char *end;

	if (ncpu < 1 || ncpu > CPU_SETSIZE)
		ncpu = CPU_SETSIZE;
	/* Decimal, as taskset -c reads CPU numbers: no 0x, no sign, no K. */
	lo = hi = ULONG_MAX;
	if (isdigit((unsigned char)*p)) {
		errno = 0;
		lo = hi = strtoul(p, &end, 10);
		p = errno ? "" : end;
		if (*p == '-' && isdigit((unsigned char)p[1])) {
			hi = strtoul(p + 1, &end, 10);
			p = errno ? "" : end;
		}
	}
	if (p == val || *p || lo > hi || hi >= (unsigned long)ncpu) {
		snprintf(why, whylen,
			 "bad value '%.40s' for option 'cpus': expected a CPU or a range N-M of CPUs 0..%ld",
			 val, ncpu - 1);
		return -EINVAL;
	}
	CPU_ZERO(set);
	for (unsigned long i = lo; i <= hi; i++)
		CPU_SET((int)i, set);
	return 0;
}

/* The device's options; a host adds its own (struct fdma_mdev_host_opts). */
#define DEV_OPTS \
	"engine gen lanes mps mrrs rcb addr dllp tags rtt_ns paced channels streams loop wire bytes memcpy mem maxdesc fault rtl cpus poll_us busy_us align"

/* The option's bit in the "seen" mask (its place in known), or -1. */
static int opt_index(const char *known, const char *key)
{
	const char *p = known;
	size_t klen = strlen(key);

	for (int i = 0; *p; i++) {
		size_t len = strcspn(p, " ");

		if (len == klen && !strncmp(p, key, len))
			return i;
		p += len;
		p += *p == ' ';
	}
	return -1;
}

/* A link option (fdma_link.h) into l: 0, 1 if key is none, or -EINVAL with why. */
static int set_link_opt(struct fdma_link_cfg *l, const char *key, const char *val,
			char *why, size_t whylen)
{
	uint64_t v = 0;
	int ret;

	if (!strcmp(key, "gen")) {
		ret = fdma_mdev_opt_num(key, val, 1, 5, &v, why, whylen);
		l->gen = (unsigned int)v;
	} else if (!strcmp(key, "lanes")) {
		ret = fdma_mdev_opt_num(key, val, 1, 16, &v, why, whylen);
		if (!ret && (v & (v - 1))) {
			snprintf(why, whylen, "bad value '%s' for option 'lanes': expected 1, 2, 4, 8 or 16", val);
			ret = -EINVAL;
		}
		l->lanes = (unsigned int)v;
	} else if (!strcmp(key, "mps")) {
		ret = fdma_mdev_opt_num(key, val, 128, 4096, &v, why, whylen);
		l->mps = (unsigned int)v;
	} else if (!strcmp(key, "mrrs")) {
		ret = fdma_mdev_opt_num(key, val, 128, 4096, &v, why, whylen);
		l->mrrs = (unsigned int)v;
	} else if (!strcmp(key, "rcb")) {
		ret = fdma_mdev_opt_num(key, val, 0, 128, &v, why, whylen);
		l->rcb = (unsigned int)v;
	} else if (!strcmp(key, "addr")) {
		ret = fdma_mdev_opt_num(key, val, 32, 64, &v, why, whylen);
		if (!ret && v != 32 && v != 64) {
			snprintf(why, whylen, "bad value '%s' for option 'addr': expected 32 or 64", val);
			ret = -EINVAL;
		}
		l->addr64 = v == 64;
	} else if (!strcmp(key, "dllp")) {
		ret = fdma_mdev_opt_num(key, val, 0, 1, &v, why, whylen);
		l->dllp = v;
	} else if (!strcmp(key, "tags")) {
		ret = fdma_mdev_opt_num(key, val, 1, 1024, &v, why, whylen);
		l->tags = (unsigned int)v;
	} else if (!strcmp(key, "rtt_ns")) {
		ret = fdma_mdev_opt_num(key, val, 1, 100000000, &v, why, whylen);
		l->rtt_ns = (unsigned int)v;
	} else {
		return 1;
	}
	return ret;
}

/*
 * One of the device's options into o: 0, 1 if key is none of them (the
 * host's, or unknown), or -EINVAL with why.
 */
static int set_dev_opt(struct fdma_mdev_opts *o, const char *key, const char *val,
		       char *why, size_t whylen)
{
	uint64_t v = 0;
	int ret = 0;

	if (!strcmp(key, "engine")) {
		o->eng = fdma_eng_by_name(val);
		if (!o->eng) {
			snprintf(why, whylen, "bad value '%.40s' for option 'engine': expected fdma or xdma", val);
			ret = -EINVAL;
		}
	} else if (!strcmp(key, "rtl")) {
		ret = fdma_mdev_opt_num(key, val, 0, 1, &v, why, whylen);
		o->rtl = v;
	} else if (!strcmp(key, "paced")) {
		ret = fdma_mdev_opt_num(key, val, 0, 1, &v, why, whylen);
		o->model.paced = v;
	} else if (!strcmp(key, "channels")) {
		ret = fdma_mdev_opt_num(key, val, 1, 7, &v, why, whylen);
		o->model.mm_pairs = (unsigned int)v;
	} else if (!strcmp(key, "streams")) {
		ret = fdma_mdev_opt_num(key, val, 0, 4, &v, why, whylen);
		o->model.streams = (unsigned int)v;
	} else if (!strcmp(key, "loop")) {
		ret = fdma_mdev_opt_num(key, val, 0, 1, &v, why, whylen);
		o->model.loop = v;
	} else if (!strcmp(key, "wire")) {
		ret = fdma_mdev_opt_num(key, val, 1, 400000, &v, why, whylen);
		o->model.wire_mbps = (unsigned int)v;
	} else if (!strcmp(key, "bytes")) {
		/* h2c: the H2C_BYTES engine (C2H buffers aligned), as the RTL */
		if (!strcmp(val, "h2c"))
			v = FDMA_BYTES_H2C;
		else
			ret = fdma_mdev_opt_num(key, val, 0, 1, &v, why, whylen);
		o->model.stream_bytes = (unsigned int)v;
	} else if (!strcmp(key, "memcpy")) {
		ret = fdma_mdev_opt_num(key, val, 0, 4, &v, why, whylen);
		o->model.memcpy_chans = (unsigned int)v;
	} else if (!strcmp(key, "mem")) {
		ret = fdma_mdev_opt_num(key, val, 0, 1ull << 40, &v, why, whylen);
		o->model.card_size = v;
		o->mem_given = true;
	} else if (!strcmp(key, "maxdesc")) {
		ret = fdma_mdev_opt_num(key, val, 64, 1ull << 31, &v, why, whylen);
		o->model.max_desc_len = (uint32_t)v;
	} else if (!strcmp(key, "fault")) {
		ret = parse_fault(val, &o->model, why, whylen);
	} else if (!strcmp(key, "cpus")) {
		ret = parse_cpus(val, &o->model.cpus, why, whylen);
	} else if (!strcmp(key, "poll_us")) {
		ret = fdma_mdev_opt_num(key, val, 0, 1000000, &v, why, whylen);
		o->model.poll_us = (unsigned int)v;
	} else if (!strcmp(key, "align")) {
		/* A design built with a larger alignment than the IP's 1 byte. */
		ret = fdma_mdev_opt_num(key, val, 1, 4096, &v, why, whylen);
		if (!ret && (v & (v - 1))) {
			snprintf(why, whylen, "bad value '%s' for option 'align': expected a power of 2 in 1..4096", val);
			ret = -EINVAL;
		}
		if (!ret)
			o->model.align_log2 = (unsigned int)__builtin_ctzll(v);
	} else if (!strcmp(key, "busy_us")) {
		/* Below the library's and the driver's reset timeouts, which wait for BUSY. */
		ret = fdma_mdev_opt_num(key, val, 0, 100000, &v, why, whylen);
		o->model.busy_us = (unsigned int)v;
	} else {
		return set_link_opt(&o->model.link, key, val, why, whylen);
	}
	return ret;
}

/*
 * What the options are together: 0, or -EINVAL with why. seen: each
 * option given, by its place in known.
 */
static int check_opts(struct fdma_mdev_opts *o, uint32_t seen, const char *known,
		      char *why, size_t whylen)
{
	char lwhy[160];
	int ret = fdma_link_validate(&o->model.link, lwhy, sizeof(lwhy));

	if (ret)
		snprintf(why, whylen, "%s", lwhy);
	if (!ret && o->model.wire_mbps && !o->model.loop) {
		snprintf(why, whylen, "wire=%u is the rate of the loop=1 wire: it needs loop=1",
			 o->model.wire_mbps);
		ret = -EINVAL;
	}
	if (!ret && o->model.loop && !o->model.streams) {
		snprintf(why, whylen, "loop=1 joins stream pairs: it needs streams=1 or more");
		ret = -EINVAL;
	}
	if (!ret && o->rtl && (o->model.streams > 1 || o->model.loop)) {
		snprintf(why, whylen, "the RTL has one stream pair and no loop: streams=%u%s",
			 o->model.streams, o->model.loop ? ", loop=1" : "");
		ret = -EINVAL;
	}
	if (!ret && o->eng == &fdma_eng_xdma && o->model.stream_bytes == FDMA_BYTES_H2C) {
		snprintf(why, whylen, "bytes=h2c is an FDMA engine's: XDMA's AXI-ST takes bytes=0 or 1");
		ret = -EINVAL;
	}
	if (!ret && o->eng == &fdma_eng_xdma &&
	    (o->model.mm_pairs + o->model.streams > 4 || o->model.memcpy_chans)) {
		snprintf(why, whylen,
			 "XDMA has at most 4 channels per direction and no memcpy channels: %u memory-mapped pairs and %u stream pairs%s",
			 o->model.mm_pairs, o->model.streams,
			 o->model.memcpy_chans ? " and memcpy channels" : "");
		ret = -EINVAL;
	}
	if (!ret && o->model.mm_pairs * 2 + o->model.streams * 2 + o->model.memcpy_chans >
		    FDMA_MAX_CHANNELS) {
		snprintf(why, whylen,
			 "%u memory-mapped pairs, %u stream channels and %u memcpy channels are over the engine's %u channels",
			 o->model.mm_pairs, o->model.streams * 2, o->model.memcpy_chans,
			 FDMA_MAX_CHANNELS);
		ret = -EINVAL;
	}
	if (!ret && o->rtl && (seen & (1u << opt_index(known, "cpus") | 1u << opt_index(known, "poll_us")))) {
		snprintf(why, whylen,
			 "cpus= and poll_us= are for the models' channel threads: the RTL has none");
		ret = -EINVAL;
	}
	if (!ret && o->model.busy_us && o->eng != &fdma_eng_xdma) {
		snprintf(why, whylen,
			 "busy_us= is the XDMA model's (BUSY after a chain's end): it needs engine=xdma");
		ret = -EINVAL;
	}
	if (!ret && (seen & 1u << opt_index(known, "align")) && o->eng != &fdma_eng_xdma) {
		snprintf(why, whylen,
			 "align= is the XDMA model's (a design's memory-mapped alignment): it needs engine=xdma; the FDMA model's is 64");
		ret = -EINVAL;
	}
	/*
	 * XDMA's memory-mapped channels take any address and length (PG195,
	 * "Address Alignment", "Length Granularity"; a card reads 0x00010140
	 * at 0x4C): the IP's alignment unless align= says the design's.
	 */
	if (!ret && o->eng == &fdma_eng_xdma && !(seen & 1u << opt_index(known, "align")))
		o->model.align_log2 = 0;
	if (!ret && o->rtl && o->eng != &fdma_eng_fdma) {
		snprintf(why, whylen, "the RTL is the FDMA engine: rtl=1 does not go with engine=%s",
			 o->eng->name);
		ret = -EINVAL;
	}
	if (!ret && (o->model.max_desc_len & 63)) {
		snprintf(why, whylen, "bad value for option 'maxdesc': must be a multiple of 64");
		ret = -EINVAL;
	}
	if (!ret) {
		o->dev = fdma_mdev_find(o->eng->name, o->rtl);
		if (!o->dev) {
			snprintf(why, whylen, "no simulated device for engine %s", o->eng->name);
			ret = -EINVAL;
		}
	}
	/* The RTL's card memory is the engine's own unless mem= says otherwise. */
	if (!ret && o->rtl && !o->mem_given)
		o->model.card_size = 0;
	return ret;
}

int fdma_mdev_parse_opts(const char *opts, struct fdma_mdev_opts *o,
			 const struct fdma_mdev_host_opts *host, char *why, size_t whylen)
{
	char *copy, *tok, *next, known[sizeof(DEV_OPTS) + 128];
	unsigned int n;
	uint32_t seen = 0;
	int ret = 0;

	memset(o, 0, sizeof(*o));
	fdma_model_cfg_defaults(&o->model);
	o->eng = &fdma_eng_fdma;
	snprintf(known, sizeof(known), "%s%s%s", DEV_OPTS, host ? " " : "", host ? host->keys : "");
	copy = strdup(opts);
	if (!copy) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	/*
	 * Split by hand, not with strtok(): it skips empty fields, and
	 * "gen=2,,lanes=1" or "sim:," is a typo to report, not to guess at.
	 */
	for (tok = copy, n = 1; !ret && *opts; tok = next, n++) {
		char *comma = strchr(tok, ',');
		char *eq = strchr(tok, '=');
		const char *key = tok, *val;
		int k;

		next = comma ? comma + 1 : NULL;
		if (comma)
			*comma = 0;
		if (eq && comma && eq > comma)
			eq = NULL;
		if (!*tok) {
			snprintf(why, whylen,
				 "empty option %u in sim:%.80s (options are name=value, separated by single commas)",
				 n, opts);
			ret = -EINVAL;
			break;
		}
		if (!eq) {
			snprintf(why, whylen, "option '%.40s' has no value (expected %.40s=VALUE)", tok, tok);
			ret = -EINVAL;
			break;
		}
		*eq = 0;
		val = eq + 1;
		k = opt_index(known, key);
		if (k >= 0 && (seen & (1u << k))) {
			snprintf(why, whylen, "option '%s' is given twice in sim:%.80s", key, opts);
			ret = -EINVAL;
			break;
		}
		if (k >= 0)
			seen |= 1u << k;
		ret = set_dev_opt(o, key, val, why, whylen);
		if (ret == 1 && k >= 0 && host) {
			ret = host->parse(host->ctx, key, val, why, whylen);
		} else if (ret == 1) {
			snprintf(why, whylen,
				 "unknown option '%.40s' in sim: URI (known: %s)", key, known);
			ret = -EINVAL;
		}
		if (!next)
			break;
	}
	free(copy);
	return ret ? ret : check_opts(o, seen, known, why, whylen);
}
