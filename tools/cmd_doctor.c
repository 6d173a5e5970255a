// SPDX-License-Identifier: MIT
/*
 * fdma doctor: check a real system for what makes DMA slow or fail (the
 * link's training, MPS/MRRS, the interrupt mode, the IOMMU, the CPU
 * governor, locked-memory limits, huge pages, CMA, the driver) and say,
 * per finding, ok/info/warn/fail with the reason and the fix.
 *
 * It reads /sys and /proc only, so --sysroot DIR can point it at a
 * recorded tree (the tests' fixtures). doctor_sys.c reads, and
 * doctor_checks.c judges; this file finds the devices and prints.
 */
#include <ctype.h>
#include <dirent.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor.h"
#include "fdma_cmds.h"
#include "fdma_tools.h"
#include "util.h"

#define TEXT_WIDTH	99	/* text output stays under 100 columns */
#define ID_WIDTH	14
#define MAX_DEVS	64

static const char doctor_usage[] =
	"usage: fdma doctor [URI|BDF] [--json] [--sysroot DIR] [--help]\n"
	"\n"
	"Check this system for what slows or breaks DMA with an FDMA device:\n"
	"the PCIe link's negotiated speed and width against the device's and\n"
	"its slot's maximum, MPS and MRRS, the interrupt mode in use, the\n"
	"IOMMU, the fdma driver, the CPU frequency governor, RLIMIT_MEMLOCK,\n"
	"huge pages, CMA, and the link model's ceilings for the link as\n"
	"negotiated and at its best. Each finding: an id, ok/info/warn/fail,\n"
	"the reason, and the fix.\n"
	"\n"
	"  URI|BDF        one device: kdev:/dev/fdmaN, /dev/fdmaN, or a PCI\n"
	"                 address (0000:01:00.0 or 01:00.0); without one, every\n"
	"                 device bound to fdma or with the ID it claims (10ee:fd3a)\n"
	"  --json         one JSON object per line, one per finding, then a\n"
	"                 summary object (\"id\":\"summary\")\n"
	"  --sysroot DIR  read DIR/sys and DIR/proc (a recorded tree) instead of\n"
	"                 the live ones; a file missing there is \"unknown\"\n"
	"  --help         this text\n"
	"\n"
	"Config space past 64 bytes (MPS, MRRS, MSI/MSI-X capabilities) needs\n"
	"root unless the fdma driver is bound (its sysfs shows them).\n"
	"exit status: 0 no fail, 1 at least one fail, 2 usage error\n";

static const char *const level_name[] = { "ok", "info", "warn", "fail" };
static const char *const level_text[] = { "ok", "info", "WARN", "FAIL" };

void doc_add(struct doc_ctx *c, const char *dev, const char *id,
	     enum doc_level lv, const char *fix, const char *extra,
	     const char *fmt, ...)
{
	struct doc_finding *f;
	va_list ap;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 32;
		struct doc_finding *nf = realloc(c->f, cap * sizeof(*nf));

		if (!nf)
			return;	/* out of memory: this finding is lost, not the run */
		c->f = nf;
		c->cap = cap;
	}
	f = &c->f[c->n++];
	memset(f, 0, sizeof(*f));
	snprintf(f->dev, sizeof(f->dev), "%s", dev);
	snprintf(f->id, sizeof(f->id), "%s", id);
	f->level = lv;
	snprintf(f->fix, sizeof(f->fix), "%s", fix);
	snprintf(f->extra, sizeof(f->extra), "%s", extra);
	va_start(ap, fmt);
	vsnprintf(f->reason, sizeof(f->reason), fmt, ap);
	va_end(ap);
}

/* ---- finding the devices ------------------------------------------------------ */

struct devlist {
	char bdf[MAX_DEVS][16];
	size_t n;
};

static void dev_add(struct devlist *l, const char *bdf)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->bdf[i], bdf))
			return;
	if (l->n < MAX_DEVS)
		snprintf(l->bdf[l->n++], sizeof(l->bdf[0]), "%s", bdf);
}

static int bdf_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Every function bound to fdma (its class nodes), and every function with
 * an ID it claims (FDMA's, XDMA's defaults) whether bound or not. */
static void scan(const struct doc_ctx *c, struct devlist *l)
{
	char path[PATH_MAX], bdf[64], canon[16];
	struct dirent *e;
	long ven, dev;
	DIR *d;

	if (!doc_path(c, path, sizeof(path), "/sys/class/fdma") && (d = opendir(path))) {
		while ((e = readdir(d))) {
			if (strncmp(e->d_name, "fdma", 4) || !isdigit((unsigned char)e->d_name[4]))
				continue;
			if (doc_link_base(c, bdf, sizeof(bdf), "/sys/class/fdma/%s/device",
					  e->d_name) == 0 &&
			    doc_parse_bdf(bdf, canon, sizeof(canon)) == 0)
				dev_add(l, canon);
		}
		closedir(d);
	}
	if (!doc_path(c, path, sizeof(path), "/sys/bus/pci/devices") && (d = opendir(path))) {
		while ((e = readdir(d))) {
			if (doc_parse_bdf(e->d_name, canon, sizeof(canon)))
				continue;
			if (doc_read_long(c, &ven, "/sys/bus/pci/devices/%s/vendor", e->d_name) ||
			    doc_read_long(c, &dev, "/sys/bus/pci/devices/%s/device", e->d_name))
				continue;
			if ((ven == FDMA_PCI_VENDOR && dev == FDMA_PCI_DEVICE) ||
			    doc_xdma_id((unsigned long)ven, (unsigned long)dev))
				dev_add(l, canon);
		}
		closedir(d);
	}
	qsort(l->bdf, l->n, sizeof(l->bdf[0]), bdf_cmp);
}

/*
 * The argument: a device node (kdev:/dev/fdmaN, /dev/fdmaN, fdmaN) or a
 * PCI address. 0 with bdf set, 1 when it names nothing on this system
 * (a finding says so), 2 when it is not a device name at all.
 */
static int resolve(struct doc_ctx *c, const char *arg, char *bdf, size_t len)
{
	const char *node = arg;
	char buf[64];

	if (!strncmp(arg, "sim", 3) && (arg[3] == 0 || arg[3] == ':')) {
		fprintf(stderr, "fdma doctor: '%s' is the simulated device: there is no "
			"system to check (use kdev:/dev/fdmaN or a PCI address)\n", arg);
		return 2;
	}
	if (doc_parse_bdf(arg, bdf, len) == 0) {
		if (doc_exists(c, "/sys/bus/pci/devices/%s", bdf))
			return 0;
		doc_add(c, bdf, "device", DOC_FAIL, "lspci -D lists the PCI functions there are",
			"", "no PCI function %s on this system", bdf);
		return 1;
	}
	if (!strncmp(node, "kdev:", 5))
		node += 5;
	if (!strncmp(node, "/dev/", 5))
		node += 5;
	if (strncmp(node, "fdma", 4) || !isdigit((unsigned char)node[4]) ||
	    strlen(node) > 16 || strchr(node, '/')) {
		fprintf(stderr, "fdma doctor: '%s' is not a device (expected kdev:/dev/fdmaN, "
			"/dev/fdmaN or a PCI address like 0000:01:00.0)\n", arg);
		return 2;
	}
	if (doc_link_base(c, buf, sizeof(buf), "/sys/class/fdma/%s/device", node) ||
	    doc_parse_bdf(buf, bdf, len)) {
		doc_add(c, "", "device", DOC_FAIL,
			"ls /sys/class/fdma lists the fdma devices; is the driver loaded?", "",
			"no /sys/class/fdma/%s: no such fdma device", node);
		return 1;
	}
	return 0;
}

/* ---- output --------------------------------------------------------------------- */

static void print_json(const struct doc_ctx *c, const unsigned *count,
		       enum doc_level worst, size_t ndev, const char *sysroot)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct doc_finding *f = &c->f[i];

		printf("{\"id\":");
		tool_json_str(stdout, f->id);
		printf(",\"level\":\"%s\",\"device\":", level_name[f->level]);
		if (f->dev[0])
			tool_json_str(stdout, f->dev);
		else
			printf("null");
		printf(",\"reason\":");
		tool_json_str(stdout, f->reason);
		printf(",\"fix\":");
		tool_json_str(stdout, f->fix);
		printf("%s}\n", f->extra);
	}
	printf("{\"id\":\"summary\",\"level\":\"%s\",\"device\":null,"
	       "\"reason\":\"%u ok, %u info, %u warn, %u fail\",\"fix\":\"\",\"devices\":%zu,"
	       "\"ok\":%u,\"info\":%u,\"warn\":%u,\"fail\":%u,\"sysroot\":",
	       level_name[worst], count[DOC_OK], count[DOC_INFO], count[DOC_WARN],
	       count[DOC_FAIL], ndev, count[DOC_OK], count[DOC_INFO], count[DOC_WARN],
	       count[DOC_FAIL]);
	if (sysroot)
		tool_json_str(stdout, sysroot);
	else
		printf("null");
	printf("}\n");
}

/* Prints text from column col on, wrapping at word boundaries to lines
 * that start at column indent. */
static void wrap(const char *text, unsigned col, unsigned indent)
{
	const char *s = text;

	while (*s) {
		const char *e = s;
		unsigned wl;

		while (*e && *e != ' ')
			e++;
		wl = (unsigned)(e - s);
		if (col > indent && col + 1 + wl > TEXT_WIDTH) {
			printf("\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)wl, s);
		col += wl;
		s = e;
		while (*s == ' ')
			s++;
	}
	putchar('\n');
}

static void print_text(const struct doc_ctx *c, const unsigned *count,
		       const struct doc_pci *devs, size_t ndev, const char *sysroot)
{
	const unsigned indent = 2 + 4 + 1 + ID_WIDTH + 1;
	const char *group = NULL;

	printf("fdma doctor: %s%s\n", sysroot ? "recorded tree " : "this system",
	       sysroot ? sysroot : "");
	for (size_t i = 0; i < c->n; i++) {
		const struct doc_finding *f = &c->f[i];

		if (!group || strcmp(group, f->dev)) {
			group = f->dev;
			if (!f->dev[0]) {
				printf("system\n");
			} else {
				const struct doc_pci *p = NULL;

				for (size_t d = 0; d < ndev; d++)
					if (!strcmp(devs[d].bdf, f->dev))
						p = &devs[d];
				if (p && p->present)
					printf("%s  %04x:%04x  %s  driver %s\n", p->bdf, p->vendor,
					       p->device, p->node[0] ? p->node : "-",
					       p->driver[0] ? p->driver : "none");
				else
					printf("%s\n", f->dev);
			}
		}
		printf("  %-4s %-*s ", level_text[f->level], ID_WIDTH, f->id);
		wrap(f->reason, indent, indent);
		/* An ok finding's fix is "nothing to do": not printed. */
		if (f->fix[0] && f->level != DOC_OK) {
			printf("%*sfix: ", (int)indent, "");
			wrap(f->fix, indent + 5, indent + 5);
		}
	}
	printf("%u ok, %u info, %u warn, %u fail\n", count[DOC_OK], count[DOC_INFO],
	       count[DOC_WARN], count[DOC_FAIL]);
}

/* ---- the command ------------------------------------------------------------- */

static int usage_error(void)
{
	fprintf(stderr, "try 'fdma doctor --help'\n");
	return EXIT_USAGE;
}

int fdma_cmd_doctor(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "sysroot", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct doc_ctx c = { .root = "", .live = true };
	const char *sysroot = NULL, *arg = NULL;
	char root[PATH_MAX], bdf[16];
	struct devlist *l = NULL;
	struct doc_pci *devs = NULL;
	unsigned count[4] = { 0 };
	enum doc_level worst = DOC_OK;
	bool json = false;
	int opt, rc = EXIT_OK;
	struct stat st;

	optind = 0;	/* restarts glibc's getopt */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 's':
			sysroot = optarg;
			break;
		case 'h':
			fputs(doctor_usage, stdout);
			return EXIT_OK;
		case ':':
			fprintf(stderr, "fdma doctor: option '%s' needs a value\n", argv[optind - 1]);
			return usage_error();
		default:
			fprintf(stderr, "fdma doctor: unknown option '%s'\n", argv[optind - 1]);
			return usage_error();
		}
	}
	if (optind < argc)
		arg = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "fdma doctor: one device at most, not also '%s'\n", argv[optind]);
		return usage_error();
	}
	if (sysroot) {
		size_t n;

		if (stat(sysroot, &st) || !S_ISDIR(st.st_mode) || !realpath(sysroot, root)) {
			fprintf(stderr, "fdma doctor: --sysroot '%s' is not a directory\n", sysroot);
			return usage_error();
		}
		/* "/" is the live tree read as if recorded; no trailing slash. */
		n = strlen(root);
		while (n > 0 && root[n - 1] == '/')
			root[--n] = 0;
		c.root = root;
		c.live = false;
	}

	l = calloc(1, sizeof(*l));
	devs = calloc(MAX_DEVS, sizeof(*devs));
	if (!l || !devs) {
		fprintf(stderr, "fdma doctor: out of memory\n");
		rc = EXIT_FAIL;
		goto out;
	}
	if (arg) {
		int r = resolve(&c, arg, bdf, sizeof(bdf));

		if (r == 2) {
			rc = usage_error();
			goto out;
		}
		if (r == 0)
			dev_add(l, bdf);
	} else {
		scan(&c, l);
		if (!l->n)
			doc_add(&c, "", "devices", DOC_WARN,
				"check that the card is seated and enumerated (lspci -d 10ee:); "
				"rescan: echo 1 > /sys/bus/pci/rescan", "",
				"no FDMA device: none bound to fdma, no %04x:%04x on the PCI bus",
				FDMA_PCI_VENDOR, FDMA_PCI_DEVICE);
	}
	for (size_t i = 0; i < l->n; i++) {
		doc_pci_read(&c, l->bdf[i], &devs[i]);
		doc_check_pci(&c, &devs[i]);
	}
	doc_check_system(&c);

	for (size_t i = 0; i < c.n; i++) {
		count[c.f[i].level]++;
		if (c.f[i].level > worst)
			worst = c.f[i].level;
	}
	if (json)
		print_json(&c, count, worst, l->n, sysroot);
	else
		print_text(&c, count, devs, l->n, sysroot);
	if (fflush(stdout))
		rc = EXIT_FAIL;
	else
		rc = count[DOC_FAIL] ? EXIT_FAIL : EXIT_OK;
out:
	free(c.f);
	free(devs);
	free(l);
	return rc;
}
