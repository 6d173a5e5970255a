// SPDX-License-Identifier: MIT
/*
 * fdma reg: read or write one device register (32 bits, or 16 or 8 with
 * --width) through the library (on kdev: through the driver, which checks
 * the BAR and the range), for the FPGA's own registers beside the engine.
 * The engine's registers can be read; writing them needs --force.
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
		"usage: fdma reg [URI] [BAR:]OFFSET [VALUE] [--width 8|16|32] [--force] [--json]\n"
		"  Reads the register at OFFSET of memory BAR BAR (default 0), or writes\n"
		"  VALUE to it: 32 bits, or 16 or 8 with --width. BAR is 0..5, written 2: or\n"
		"  bar2:; OFFSET and VALUE are decimal or 0x hex, OFFSET a multiple of the\n"
		"  width in bytes. URI: default $FDMA_DEVICE (then OFFSET comes first).\n"
		"  The engine's own registers (its register file) and the MSI-X table\n"
		"  can be read; writing them needs --force (and CAP_SYS_RAWIO on kdev:),\n"
		"  since a wrong value can stop the engine or point its DMA anywhere.\n"
		"  --width N  bits per access: 32 (default), 16 or 8 (reg_rw's w, h, b)\n"
		"  --force    allow writing a register the engine owns, or reading one that\n"
		"             clears when read (XDMA's status registers)\n"
		"  --json     one JSON object: bar, offset, width, value, written\n"
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

/* A value that fits in width bits. */
static int parse_val(const char *s, unsigned int width, uint32_t *v)
{
	unsigned long long x;

	if (parse_num(s, &x) || x > (width == 32 ? UINT32_MAX : (1ull << width) - 1))
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int fdma_cmd_reg(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "width", required_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fdma_dev *dev;
	unsigned int bar, width = 32;
	const char *uri = NULL;
	uint64_t off, w;
	uint32_t val = 0;
	int opt, force = 0, json = 0, write, ret, n, flags;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			force = 1;
			break;
		case 'w':
			if (tool_parse_uint(optarg, 8, 32, &w) || (w != 8 && w != 16 && w != 32)) {
				fprintf(stderr, "fdma reg: --width must be 8, 16 or 32, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			width = (unsigned int)w;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return tool_usage_hint("reg");
		}
	}
	/* URI [BAR:]OFFSET [VALUE], or without the URI (FDMA_DEVICE) when OFFSET comes first. */
	n = argc - optind;
	if (n >= 1 && parse_where(argv[optind], &bar, &off)) {
		uri = argv[optind++];
		n--;
	}
	if (n < 1 || n > 2) {
		fprintf(stderr, "fdma reg: expected [URI] [BAR:]OFFSET [VALUE]\n");
		return tool_usage_hint("reg");
	}
	if (parse_where(argv[optind], &bar, &off)) {
		fprintf(stderr, "fdma reg: bad register '%s': expected [BAR:]OFFSET, BAR 0..5 (e.g. 0x24 or 2:0x1000)\n",
			argv[optind]);
		return EXIT_USAGE;
	}
	/* The offset's alignment is the access's own rule: a malformed address, not a refusal. */
	if (off % (width / 8)) {
		fprintf(stderr, "fdma reg: offset 0x%" PRIx64 " is not a multiple of %u: a %u-bit "
			"register%s\n", off, width / 8, width,
			width > 8 ? " (--width 8 or 16 for a narrower one)" : "");
		return EXIT_USAGE;
	}
	write = n == 2;
	if (write && parse_val(argv[optind + 1], width, &val)) {
		fprintf(stderr, "fdma reg: bad value '%s': expected 0..0x%llx (%u bits)\n",
			argv[optind + 1], width == 32 ? 0xffffffffull : (1ull << width) - 1, width);
		return EXIT_USAGE;
	}
	uri = tool_uri("reg", uri);
	if (!uri)
		return EXIT_USAGE;
	if (tool_open(uri, &dev))
		return EXIT_FAIL;
	flags = (force ? FDMA_REG_FORCE : 0) | (width == 8 ? FDMA_REG_8 : 0) |
		(width == 16 ? FDMA_REG_16 : 0);
	ret = write ? fdma_reg_write(dev, bar, off, val, (unsigned int)flags)
		    : fdma_reg_read_flags(dev, bar, off, &val, (unsigned int)flags);
	if (ret) {
		fprintf(stderr, "fdma reg: %s%s\n", fdma_errmsg(dev),
			ret == -EPERM && !force ? " (see --force)" : "");
		fdma_close(dev);
		return EXIT_FAIL;
	}
	if (json)
		printf("{\"bar\":%u,\"offset\":%" PRIu64 ",\"width\":%u,\"value\":%" PRIu32
		       ",\"written\":%s}\n", bar, off, width, val, write ? "true" : "false");
	else if (write)
		printf("BAR%u 0x%04" PRIx64 " := 0x%0*" PRIx32 "\n", bar, off, (int)width / 4, val);
	else
		printf("BAR%u 0x%04" PRIx64 " = 0x%0*" PRIx32 " (%" PRIu32 ")\n", bar, off,
		       (int)width / 4, val, val);
	fdma_close(dev);
	return EXIT_OK;
}
