// SPDX-License-Identifier: MIT
/*
 * fdma reg: read or write one 32-bit device register through the library
 * (on kdev: through the driver, which checks the BAR and the range), for
 * the FPGA's own registers beside the engine. The engine's registers can
 * be read; writing them needs --force.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fdma_cmds.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fdma reg URI [BAR:]OFFSET [VALUE] [--force] [--json]\n"
		"  Reads the 32-bit register at OFFSET of memory BAR BAR (default 0), or\n"
		"  writes VALUE to it. BAR is 0..5, written 2: or bar2:; OFFSET and VALUE\n"
		"  are decimal or 0x hex, OFFSET a multiple of 4.\n"
		"  The engine's own registers (its register file) and the MSI-X table\n"
		"  can be read; writing them needs --force (and CAP_SYS_RAWIO on kdev:),\n"
		"  since a wrong value can stop the engine or point its DMA anywhere.\n"
		"  --force   allow writing a register the engine owns\n"
		"  --json    one JSON object: bar, offset, value, written\n"
		"  e.g. fdma reg kdev:/dev/fdma0 0x24          (engine STATUS)\n"
		"       fdma reg kdev:/dev/fdma0 2:0x10 0x1    (BAR2 0x10 := 1)\n"
		"       fdma reg kdev:/dev/fdma0 1:0xc0 4 --force  (XDMA H2C 0: arm the\n"
		"         performance monitor; 1:0xc4 cycles, 1:0xcc data beats; docs/xdma.md)\n");
}

/*
 * A number as the help says: decimal, or hexadecimal after 0x. Not
 * strtoull()'s base 0, which reads a leading 0 as octal: "0100" written to
 * an FPGA register must be 100, not 64.
 */
static int parse_num(const char *s, unsigned long long *v)
{
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

/* "[bar|BAR]N:" prefix, then the offset. */
static int parse_where(const char *s, unsigned int *bar, uint64_t *off)
{
	const char *colon = strchr(s, ':');
	unsigned long long v;
	char *end;

	*bar = 0;
	if (colon) {
		const char *b = s;
		unsigned long n;

		if (!strncasecmp(b, "bar", 3))
			b += 3;
		errno = 0;
		n = strtoul(b, &end, 10);
		if (errno || end == b || end != colon || n > 5)
			return -1;
		*bar = (unsigned int)n;
		s = colon + 1;
	}
	if (parse_num(s, &v))
		return -1;
	*off = v;
	return 0;
}

static int parse_u32(const char *s, uint32_t *v)
{
	unsigned long long x;

	if (parse_num(s, &x) || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int fdma_cmd_reg(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fdma_dev *dev;
	unsigned int bar;
	uint64_t off;
	uint32_t val = 0;
	int opt, force = 0, json = 0, write, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			force = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind < 2 || argc - optind > 3) {
		fprintf(stderr, "fdma reg: expected URI [BAR:]OFFSET [VALUE]\n");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (parse_where(argv[optind + 1], &bar, &off)) {
		fprintf(stderr, "fdma reg: bad register '%s': expected [BAR:]OFFSET, BAR 0..5 (e.g. 0x24 or 2:0x1000)\n",
			argv[optind + 1]);
		return EXIT_USAGE;
	}
	write = argc - optind == 3;
	if (write && parse_u32(argv[optind + 2], &val)) {
		fprintf(stderr, "fdma reg: bad value '%s': expected 0..0xffffffff\n", argv[optind + 2]);
		return EXIT_USAGE;
	}
	if (force && !write) {
		fprintf(stderr, "fdma reg: --force only applies to a write\n");
		return EXIT_USAGE;
	}
	if (tool_open(argv[optind], &dev))
		return EXIT_FAIL;
	ret = write ? fdma_reg_write(dev, bar, off, val, force ? FDMA_REG_FORCE : 0)
		    : fdma_reg_read(dev, bar, off, &val);
	if (ret) {
		fprintf(stderr, "fdma reg: %s%s\n", fdma_errmsg(dev),
			ret == -EPERM && !force && write ? " (see --force)" : "");
		fdma_close(dev);
		return EXIT_FAIL;
	}
	if (json)
		printf("{\"bar\":%u,\"offset\":%" PRIu64 ",\"value\":%" PRIu32 ",\"written\":%s}\n",
		       bar, off, val, write ? "true" : "false");
	else if (write)
		printf("BAR%u 0x%04" PRIx64 " := 0x%08" PRIx32 "\n", bar, off, val);
	else
		printf("BAR%u 0x%04" PRIx64 " = 0x%08" PRIx32 " (%" PRIu32 ")\n", bar, off, val, val);
	fdma_close(dev);
	return EXIT_OK;
}
