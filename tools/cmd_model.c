// SPDX-License-Identifier: MIT
/*
 * fdma model: print the PCIe link model's ceilings for one link or a table
 * over generations and widths. Every figure is computed, not measured, and
 * the output says so. docs/link-model.md explains the numbers.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdma_cmds.h"
#include "fdma_tools.h"

#define EXIT_USAGE 2

static const char model_usage[] =
	"usage: fdma model [--gen G] [--lanes L] [--mps M] [--mrrs R] [--rcb B]\n"
	"                  [--addr32] [--ecrc] [--dllp] [--tags N] [--rtt-ns N]\n"
	"                  [--json] [--help]\n"
	"\n"
	"Print the PCIe link model's payload ceilings (computed, not measured;\n"
	"MB = 10^6 bytes, per direction). Without --gen/--lanes: a table over\n"
	"gens 1-5 and x1, x2, x4, x8, x16; each given one fixes that column.\n"
	"\n"
	"  --gen G      PCIe generation, 1..5\n"
	"  --lanes L    link width: 1, 2, 4, 8 or 16\n"
	"  --mps M      max payload size, 128..4096, power of 2 (default 256)\n"
	"  --mrrs R     max read request size, 128..4096, power of 2 (default 512)\n"
	"  --rcb B      read completion boundary: 0 (completions up to MPS), 64\n"
	"               or 128 (default 0)\n"
	"  --addr32     3DW request headers (buffers below 4 GiB); default 4DW\n"
	"  --ecrc       add the 4-byte ECRC to every TLP\n"
	"  --dllp       subtract pcie-bench's conservative Ack/FC DLLP term\n"
	"  --tags N     reads the device keeps in flight, 1..1024 (default 32)\n"
	"  --rtt-ns N   device read round trip to host memory (default 800)\n"
	"  --json       one JSON object per line\n"
	"  --help       this text\n"
	"\n"
	"Columns: raw = after encoding and SKP; write = C2H posted writes;\n"
	"read = H2C reads (bound by the link or by tags * MRRS / rtt);\n"
	"efficiency = payload / raw.\n";

enum {
	OPT_GEN = 256,
	OPT_LANES,
	OPT_MPS,
	OPT_MRRS,
	OPT_RCB,
	OPT_ADDR32,
	OPT_ECRC,
	OPT_DLLP,
	OPT_TAGS,
	OPT_RTT,
	OPT_JSON,
};

static const struct option model_opts[] = {
	{ "gen", required_argument, NULL, OPT_GEN },
	{ "lanes", required_argument, NULL, OPT_LANES },
	{ "mps", required_argument, NULL, OPT_MPS },
	{ "mrrs", required_argument, NULL, OPT_MRRS },
	{ "rcb", required_argument, NULL, OPT_RCB },
	{ "addr32", no_argument, NULL, OPT_ADDR32 },
	{ "ecrc", no_argument, NULL, OPT_ECRC },
	{ "dllp", no_argument, NULL, OPT_DLLP },
	{ "tags", required_argument, NULL, OPT_TAGS },
	{ "rtt-ns", required_argument, NULL, OPT_RTT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int usage_error(void)
{
	fprintf(stderr, "try 'fdma model --help'\n");
	return EXIT_USAGE;
}

/* Decimal unsigned int, nothing else: no sign, no suffix, no overflow. */
static int parse_uint(const char *opt, const char *arg, unsigned *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	if (arg[0] < '0' || arg[0] > '9')
		goto bad;
	v = strtoul(arg, &end, 10);
	if (*end)
		goto bad;
	if (errno || v > UINT_MAX) {
		fprintf(stderr, "fdma model: --%s: '%s' is out of range\n",
			opt, arg);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
bad:
	fprintf(stderr, "fdma model: --%s: '%s' is not a decimal number\n",
		opt, arg);
	return -1;
}

/* The command-line option that sets a fdma_link_cfg field. */
static const char *field_opt(const char *field)
{
	return strcmp(field, "rtt_ns") == 0 ? "rtt-ns" : field;
}

static void print_header(const struct fdma_link_cfg *c)
{
	printf("# PCIe link model: computed ceilings, not measurements "
	       "(MB/s = 10^6 bytes/s per direction)\n");
	printf("# RCB %s, %s request headers, %s, DLLP term %s, "
	       "reads: %u tags, rtt %u ns\n",
	       c->rcb == 64 ? "64" : c->rcb == 128 ? "128" : "none (MPS)",
	       c->addr64 ? "4DW" : "3DW", c->ecrc ? "ECRC" : "no ECRC",
	       c->dllp ? "on" : "off", c->tags, c->rtt_ns);
	printf("%3s %5s %5s %5s %11s %11s %11s %11s %7s %7s %s\n", "gen",
	       "lanes", "mps", "mrrs", "raw MB/s", "write MB/s", "read MB/s",
	       "copy MB/s", "write%", "read%", "read bound");
}

static void print_row(const struct fdma_link_cfg *c, bool json)
{
	double raw = fdma_link_raw_Bps(c);
	double wr = fdma_link_write_Bps(c);
	double rd = fdma_link_read_Bps(c);
	double cp = fdma_link_copy_Bps(c);
	const char *bound = fdma_link_read_limit(c);

	if (json) {
		printf("{\"gen\":%u,\"lanes\":%u,\"mps\":%u,\"mrrs\":%u,"
		       "\"rcb\":%u,\"addr64\":%s,\"ecrc\":%s,\"dllp\":%s,"
		       "\"tags\":%u,\"rtt_ns\":%u,"
		       "\"raw_mbps\":%.1f,\"write_mbps\":%.1f,"
		       "\"read_mbps\":%.1f,\"copy_mbps\":%.1f,\"write_eff_pct\":%.1f,"
		       "\"read_eff_pct\":%.1f,\"read_bound\":\"%s\","
		       "\"source\":\"model\"}\n",
		       c->gen, c->lanes, c->mps, c->mrrs, c->rcb,
		       c->addr64 ? "true" : "false",
		       c->ecrc ? "true" : "false",
		       c->dllp ? "true" : "false", c->tags, c->rtt_ns,
		       raw / 1e6, wr / 1e6, rd / 1e6, cp / 1e6, 100.0 * wr / raw,
		       100.0 * rd / raw, bound);
		return;
	}
	printf("%3u %5u %5u %5u %11.1f %11.1f %11.1f %11.1f %7.1f %7.1f %s\n",
	       c->gen, c->lanes, c->mps, c->mrrs, raw / 1e6, wr / 1e6,
	       rd / 1e6, cp / 1e6, 100.0 * wr / raw, 100.0 * rd / raw, bound);
}

int fdma_cmd_model(int argc, char **argv)
{
	static const unsigned all_gens[] = { 1, 2, 3, 4, 5 };
	static const unsigned all_lanes[] = { 1, 2, 4, 8, 16 };
	const size_t ngens = sizeof(all_gens) / sizeof(all_gens[0]);
	const size_t nlanes = sizeof(all_lanes) / sizeof(all_lanes[0]);
	struct fdma_link_cfg c;
	unsigned gen = 0, lanes = 0;
	bool have_gen = false, have_lanes = false, json = false;
	char why[160];
	const char *bad;
	size_t gi, li;
	int opt;

	fdma_link_defaults(&c);
	/* 0 restarts glibc's getopt: the dispatcher may have used it. */
	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", model_opts, NULL)) != -1) {
		switch (opt) {
		case OPT_GEN:
			if (parse_uint("gen", optarg, &gen))
				return usage_error();
			have_gen = true;
			break;
		case OPT_LANES:
			if (parse_uint("lanes", optarg, &lanes))
				return usage_error();
			have_lanes = true;
			break;
		case OPT_MPS:
			if (parse_uint("mps", optarg, &c.mps))
				return usage_error();
			break;
		case OPT_MRRS:
			if (parse_uint("mrrs", optarg, &c.mrrs))
				return usage_error();
			break;
		case OPT_RCB:
			if (parse_uint("rcb", optarg, &c.rcb))
				return usage_error();
			break;
		case OPT_ADDR32:
			c.addr64 = false;
			break;
		case OPT_ECRC:
			c.ecrc = true;
			break;
		case OPT_DLLP:
			c.dllp = true;
			break;
		case OPT_TAGS:
			if (parse_uint("tags", optarg, &c.tags))
				return usage_error();
			break;
		case OPT_RTT:
			if (parse_uint("rtt-ns", optarg, &c.rtt_ns))
				return usage_error();
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			fputs(model_usage, stdout);
			return 0;
		case ':':
			fprintf(stderr,
				"fdma model: option '%s' needs a value\n",
				argv[optind - 1]);
			return usage_error();
		default:
			/* optopt names a bad short option; a bad long one is
			 * the word getopt just stepped over. */
			if (optopt)
				fprintf(stderr,
					"fdma model: unknown option '-%c'\n",
					optopt);
			else
				fprintf(stderr,
					"fdma model: unknown or ambiguous option '%s'\n",
					argv[optind - 1]);
			return usage_error();
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fdma model: unexpected argument '%s'\n",
			argv[optind]);
		return usage_error();
	}

	/* Check every given value once, with 1 standing in for a sweep. */
	c.gen = have_gen ? gen : 1;
	c.lanes = have_lanes ? lanes : 1;
	bad = fdma_link_bad_field(&c);
	if (bad) {
		fdma_link_validate(&c, why, sizeof(why));
		fprintf(stderr, "fdma model: bad --%s: %s\n", field_opt(bad),
			why);
		return usage_error();
	}

	if (!json)
		print_header(&c);
	for (gi = 0; gi < ngens; gi++) {
		if (have_gen && all_gens[gi] != gen)
			continue;
		for (li = 0; li < nlanes; li++) {
			if (have_lanes && all_lanes[li] != lanes)
				continue;
			c.gen = all_gens[gi];
			c.lanes = all_lanes[li];
			print_row(&c, json);
		}
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
