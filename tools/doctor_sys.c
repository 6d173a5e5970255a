// SPDX-License-Identifier: MIT
/*
 * fdma doctor: reading /sys and /proc, live or recorded (--sysroot), and a
 * PCI function's state from sysfs and its config space. Facts from the
 * PCI Local Bus and PCI Express Base specifications and from Linux's
 * Documentation/ABI/testing/sysfs-bus-pci.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>

#include "doctor.h"
#include "util.h"

/* Config space offsets and bits (PCI Local Bus 3.0, PCI Express Base). */
#define CFG_STATUS		0x06
#define CFG_STATUS_CAPS		0x10
#define CFG_CAP_PTR		0x34
#define CFG_INT_PIN		0x3d
#define CAP_ID_MSI		0x05
#define CAP_ID_EXP		0x10
#define CAP_ID_MSIX		0x11
#define MSI_CTL			0x02	/* bit 0: enable */
#define MSIX_CTL		0x02	/* bit 15: enable; 10:0 table size - 1 */
#define EXP_DEVCAP		0x04	/* bits 2:0: MPS supported */
#define EXP_DEVCTL		0x08	/* bits 7:5 MPS, 14:12 MRRS */

static int vpath(const struct doc_ctx *c, char *buf, size_t len,
		 const char *fmt, va_list ap)
{
	size_t n = strlen(c->root);
	int m;

	if (n + 1 >= len)
		return -1;
	memcpy(buf, c->root, n);
	m = vsnprintf(buf + n, len - n, fmt, ap);
	if (m < 0 || (size_t)m >= len - n)
		return -1;
	return 0;
}

int doc_path(const struct doc_ctx *c, char *buf, size_t len,
	     const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vpath(c, buf, len, fmt, ap);
	va_end(ap);
	return r;
}

/* Reads up to len bytes of a file; -1 if it cannot be opened or read. */
static ssize_t read_file(const char *path, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long long n;

	if (fd < 0)
		return -1;
	n = tool_read_full(fd, buf, len);
	close(fd);
	return n < 0 ? -1 : (ssize_t)n;
}

/*
 * What is read is printed (a driver's name, a governor) and a recorded tree
 * could hold anything: control characters other than tab and newline
 * (terminal escapes) become '?'. JSON output escapes for itself
 * (tool_json_str(), tool_json_quote()).
 */
static void sanitize(char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n') ||
		    (unsigned char)*s == 0x7f)
			*s = '?';
}

static int vread(const struct doc_ctx *c, char *buf, size_t len,
		 const char *fmt, va_list ap)
{
	char path[PATH_MAX];
	ssize_t n;

	if (len == 0 || vpath(c, path, sizeof(path), fmt, ap))
		return -1;
	n = read_file(path, buf, len - 1);
	if (n < 0)
		return -1;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	sanitize(buf);
	return (int)n;
}

int doc_read(const struct doc_ctx *c, char *buf, size_t len,
	     const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vread(c, buf, len, fmt, ap);
	va_end(ap);
	return r;
}

int doc_read_long(const struct doc_ctx *c, long *v, const char *fmt, ...)
{
	char buf[64], *end;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vread(c, buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (r <= 0)
		return -1;
	errno = 0;
	*v = strtol(buf, &end, 0);
	if (errno || end == buf || (*end && !isspace((unsigned char)*end)))
		return -1;
	return 0;
}

int doc_link_base(const struct doc_ctx *c, char *buf, size_t len,
		  const char *fmt, ...)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	va_list ap;
	ssize_t n;
	int r;

	va_start(ap, fmt);
	r = vpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	if (r)
		return -1;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return -1;
	target[n] = 0;
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (!*base || strlen(base) >= len)
		return -1;
	strcpy(buf, base);
	sanitize(buf);
	for (char *t = buf; *t; t++)
		if (*t == '\t' || *t == '\n')
			*t = '?';
	return 0;
}

bool doc_exists(const struct doc_ctx *c, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vpath(c, path, sizeof(path), fmt, ap);
	va_end(ap);
	return r == 0 && access(path, F_OK) == 0;
}

void doc_copy(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = 0;
}

static bool hexn(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

int doc_parse_bdf(const char *s, char *out, size_t len)
{
	unsigned dom = 0, bus, dev, fn;
	const char *p = s;

	/* Optional 4-digit domain, then BB:DD.F, all hex but the function. */
	if (strlen(s) == 12) {
		if (!hexn(s, 4) || s[4] != ':')
			return -1;
		dom = (unsigned)strtoul(s, NULL, 16);
		p = s + 5;
	} else if (strlen(s) != 7) {
		return -1;
	}
	if (!hexn(p, 2) || p[2] != ':' || !hexn(p + 3, 2) || p[5] != '.' ||
	    p[6] < '0' || p[6] > '7')
		return -1;
	bus = (unsigned)strtoul(p, NULL, 16);
	dev = (unsigned)strtoul(p + 3, NULL, 16);
	fn = (unsigned)(p[6] - '0');
	if (dev > 0x1f)
		return -1;
	if (snprintf(out, len, "%04x:%02x:%02x.%u", dom, bus, dev, fn) >= (int)len)
		return -1;
	return 0;
}

static const char *const gen_speeds[] = {
	"unknown", "2.5 GT/s", "5.0 GT/s", "8.0 GT/s", "16.0 GT/s",
	"32.0 GT/s", "64.0 GT/s",
};

bool doc_xdma_id(unsigned long vendor, unsigned long device)
{
	unsigned long fam = device >> 12, gen = (device >> 4) & 0xf, lanes = device & 0xf;

	return vendor == 0x10ee && (device & 0xf00) == 0 && fam >= 7 && fam <= 9 &&
	       gen >= 1 && gen <= 3 && (lanes == 1 || lanes == 2 || lanes == 4 || lanes == 8);
}

bool doc_our_driver(const char *driver)
{
	return !strcmp(driver, "fdma") || !strcmp(driver, "fdma_xdma");
}

unsigned doc_speed_gen(const char *s)
{
	char *end;
	double gt = strtod(s, &end);

	if (end == s)
		return 0;
	for (unsigned g = 1; g < sizeof(gen_speeds) / sizeof(gen_speeds[0]); g++)
		if (gt > 0 && gt == strtod(gen_speeds[g], NULL))
			return g;
	return 0;
}

const char *doc_gen_speed(unsigned gen)
{
	return gen < sizeof(gen_speeds) / sizeof(gen_speeds[0]) ?
	       gen_speeds[gen] : "unknown";
}

static unsigned cfg8(const uint8_t *cfg, unsigned off)
{
	return cfg[off];
}

static unsigned cfg16(const uint8_t *cfg, unsigned off)
{
	return cfg[off] | (unsigned)cfg[off + 1] << 8;
}

static unsigned cfg32(const uint8_t *cfg, unsigned off)
{
	return cfg16(cfg, off) | cfg16(cfg, off + 2) << 16;
}

/*
 * Walks the capability list. Unreadable entries (a non-root reader gets
 * 64 bytes, and capabilities mostly live above 0x40) leave the offsets
 * at -1, "unknown"; a list that loops or points out of range ends the walk.
 */
static void parse_caps(const uint8_t *cfg, size_t len, struct doc_pci *p)
{
	unsigned off, guard;

	p->exp_off = p->msi_off = p->msix_off = -1;
	if (len < 0x40)
		return;
	p->intx_pin = cfg8(cfg, CFG_INT_PIN);
	if (!(cfg16(cfg, CFG_STATUS) & CFG_STATUS_CAPS)) {
		p->exp_off = p->msi_off = p->msix_off = 0;
		return;
	}
	off = cfg8(cfg, CFG_CAP_PTR) & ~3u;
	for (guard = 0; off && guard < 48; guard++) {
		unsigned id;

		if (off < 0x40 || off + 4 > len)
			return;	/* beyond what we may read: unknown */
		id = cfg8(cfg, off);
		if (id == CAP_ID_EXP)
			p->exp_off = (int)off;
		else if (id == CAP_ID_MSI)
			p->msi_off = (int)off;
		else if (id == CAP_ID_MSIX)
			p->msix_off = (int)off;
		off = cfg8(cfg, off + 1) & ~3u;
	}
	/* The whole list was read: what was not found is absent. */
	if (p->exp_off < 0)
		p->exp_off = 0;
	if (p->msi_off < 0)
		p->msi_off = 0;
	if (p->msix_off < 0)
		p->msix_off = 0;
	if (p->msi_off && (unsigned)p->msi_off + 4 <= len)
		p->msi_en = cfg16(cfg, (unsigned)p->msi_off + MSI_CTL) & 1;
	if (p->msix_off && (unsigned)p->msix_off + 4 <= len) {
		unsigned ctl = cfg16(cfg, (unsigned)p->msix_off + MSIX_CTL);

		p->msix_en = ctl & 0x8000;
		p->msix_vectors = (ctl & 0x7ff) + 1;
	}
	if (p->exp_off && (unsigned)p->exp_off + EXP_DEVCTL + 2 <= len) {
		unsigned devcap = cfg32(cfg, (unsigned)p->exp_off + EXP_DEVCAP);
		unsigned devctl = cfg16(cfg, (unsigned)p->exp_off + EXP_DEVCTL);

		/* Encodings 0..5 mean 128 << n; 6 and 7 are reserved. */
		if ((devcap & 7) <= 5)
			p->mps_cap = 128u << (devcap & 7);
		if (((devctl >> 5) & 7) <= 5)
			p->mps = 128u << ((devctl >> 5) & 7);
		if (((devctl >> 12) & 7) <= 5)
			p->mrrs = 128u << ((devctl >> 12) & 7);
	}
}

/* The config space of a function; its length (0 if unreadable). */
static size_t read_config(const struct doc_ctx *c, const char *bdf,
			  uint8_t *cfg, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;

	if (doc_path(c, path, sizeof(path), "/sys/bus/pci/devices/%s/config", bdf))
		return 0;
	n = read_file(path, cfg, len);
	return n < 0 ? 0 : (size_t)n;
}

/* The PCIe port above a function: the parent folder of its sysfs node,
 * when that is itself a PCI function. */
static void read_port(const struct doc_ctx *c, struct doc_pci *p)
{
	char path[PATH_MAX], real[PATH_MAX], *slash, bdf[16];
	uint8_t cfg[256];
	struct doc_pci port;
	char buf[64];
	size_t n;

	if (doc_path(c, path, sizeof(path), "/sys/bus/pci/devices/%s", p->bdf) ||
	    !realpath(path, real))
		return;
	slash = strrchr(real, '/');
	if (!slash)
		return;
	*slash = 0;
	slash = strrchr(real, '/');
	if (!slash || doc_parse_bdf(slash + 1, bdf, sizeof(bdf)) ||
	    strcmp(bdf, slash + 1))
		return;
	strcpy(p->port, bdf);
	/* realpath() gave a path inside the root already. */
	if (snprintf(path, sizeof(path), "%s/max_link_speed", real) < (int)sizeof(path)) {
		ssize_t r = read_file(path, buf, sizeof(buf) - 1);

		if (r > 0) {
			buf[r] = 0;
			p->port_gen = doc_speed_gen(buf);
		}
	}
	if (snprintf(path, sizeof(path), "%s/max_link_width", real) < (int)sizeof(path)) {
		ssize_t r = read_file(path, buf, sizeof(buf) - 1);

		if (r > 0) {
			buf[r] = 0;
			p->port_width = (unsigned)strtoul(buf, NULL, 10);
		}
	}
	if (snprintf(path, sizeof(path), "%s/config", real) < (int)sizeof(path)) {
		ssize_t r = read_file(path, cfg, sizeof(cfg));

		n = r < 0 ? 0 : (size_t)r;
		memset(&port, 0, sizeof(port));
		parse_caps(cfg, n, &port);
		p->port_mps_cap = port.mps_cap;
	}
}

/* Interrupt mode in use: the fdma driver says; else the kernel's MSI
 * bookkeeping (msi_irqs/N reads "msi" or "msix"); else config space. */
static void read_irq(const struct doc_ctx *c, struct doc_pci *p)
{
	char path[PATH_MAX], buf[32];
	struct dirent *e;
	long v;
	DIR *d;

	if (doc_read_long(c, &v, "/sys/bus/pci/devices/%s/irq", p->bdf) == 0 && v > 0)
		p->irq = (unsigned)v;
	if (p->node[0] &&
	    doc_read(c, p->irq_mode, sizeof(p->irq_mode), "/sys/class/fdma/%s/irq_mode",
		     p->node) > 0) {
		if (doc_read_long(c, &v, "/sys/class/fdma/%s/irq_vectors", p->node) == 0 && v > 0)
			p->irq_vectors = (unsigned)v;
		snprintf(p->irq_source, sizeof(p->irq_source), "driver");
		return;
	}
	p->irq_mode[0] = 0;
	if (!doc_path(c, path, sizeof(path), "/sys/bus/pci/devices/%s/msi_irqs", p->bdf) &&
	    (d = opendir(path))) {
		while ((e = readdir(d))) {
			if (!isdigit((unsigned char)e->d_name[0]))
				continue;
			p->irq_vectors++;
			if (!p->irq_mode[0] &&
			    doc_read(c, buf, sizeof(buf), "/sys/bus/pci/devices/%s/msi_irqs/%s",
				     p->bdf, e->d_name) > 0 &&
			    (!strcmp(buf, "msi") || !strcmp(buf, "msix")))
				doc_copy(p->irq_mode, sizeof(p->irq_mode), buf);
		}
		closedir(d);
		if (p->irq_vectors) {
			if (!p->irq_mode[0])
				snprintf(p->irq_mode, sizeof(p->irq_mode), "%s",
					 p->msix_en ? "msix" : "msi");
			snprintf(p->irq_source, sizeof(p->irq_source), "msi_irqs");
			return;
		}
	}
	if (p->msix_en || p->msi_en) {
		snprintf(p->irq_mode, sizeof(p->irq_mode), "%s", p->msix_en ? "msix" : "msi");
		snprintf(p->irq_source, sizeof(p->irq_source), "config space");
		return;
	}
	if (!p->driver[0]) {
		snprintf(p->irq_mode, sizeof(p->irq_mode), "none");
		snprintf(p->irq_source, sizeof(p->irq_source), "no driver");
		return;
	}
	/* A bound driver, no MSI: INTx if the device has a pin and a line. */
	if (p->irq && (p->intx_pin || p->cfg_len < 0x40)) {
		snprintf(p->irq_mode, sizeof(p->irq_mode), "intx");
		snprintf(p->irq_source, sizeof(p->irq_source), "irq %u", p->irq);
	}
}

void doc_pci_read(const struct doc_ctx *c, const char *bdf, struct doc_pci *p)
{
	uint8_t cfg[4096];
	char buf[64], path[PATH_MAX];
	struct dirent *e;
	long v;
	DIR *d;

	memset(p, 0, sizeof(*p));
	snprintf(p->bdf, sizeof(p->bdf), "%s", bdf);
	p->iommu_group = -1;
	p->numa_node = -1;
	p->exp_off = p->msi_off = p->msix_off = -1;
	if (!doc_exists(c, "/sys/bus/pci/devices/%s", bdf))
		return;
	p->present = true;
	if (doc_read_long(c, &v, "/sys/bus/pci/devices/%s/vendor", bdf) == 0)
		p->vendor = (unsigned)v;
	if (doc_read_long(c, &v, "/sys/bus/pci/devices/%s/device", bdf) == 0)
		p->device = (unsigned)v;
	doc_link_base(c, p->driver, sizeof(p->driver), "/sys/bus/pci/devices/%s/driver", bdf);

	/* The fdma class node whose device is this function. */
	if (!doc_path(c, path, sizeof(path), "/sys/class/fdma") && (d = opendir(path))) {
		while ((e = readdir(d))) {
			if (strncmp(e->d_name, "fdma", 4) || !isdigit((unsigned char)e->d_name[4]))
				continue;
			if (doc_link_base(c, buf, sizeof(buf), "/sys/class/fdma/%s/device",
					  e->d_name) == 0 && !strcmp(buf, bdf) &&
			    strlen(e->d_name) < sizeof(p->node)) {
				strcpy(p->node, e->d_name);
				break;
			}
		}
		closedir(d);
	}

	/* Link: the PCI core's attributes; the driver's as a second source. */
	if (doc_read(c, buf, sizeof(buf), "/sys/bus/pci/devices/%s/current_link_speed", bdf) >= 0) {
		p->has_link = true;
		p->cur_gen = doc_speed_gen(buf);
		if (doc_read(c, buf, sizeof(buf), "/sys/bus/pci/devices/%s/max_link_speed", bdf) > 0)
			p->max_gen = doc_speed_gen(buf);
		if (doc_read_long(c, &v, "/sys/bus/pci/devices/%s/current_link_width", bdf) == 0 &&
		    v > 0)
			p->cur_width = (unsigned)v;
		if (doc_read_long(c, &v, "/sys/bus/pci/devices/%s/max_link_width", bdf) == 0 && v > 0)
			p->max_width = (unsigned)v;
	} else if (p->node[0] &&
		   doc_read(c, buf, sizeof(buf), "/sys/class/fdma/%s/link_speed", p->node) > 0 &&
		   strcmp(buf, "n/a")) {
		p->has_link = true;
		p->cur_gen = doc_speed_gen(buf);
		if (doc_read(c, buf, sizeof(buf), "/sys/class/fdma/%s/link_max_speed", p->node) > 0)
			p->max_gen = doc_speed_gen(buf);
		if (doc_read_long(c, &v, "/sys/class/fdma/%s/link_width", p->node) == 0 && v > 0)
			p->cur_width = (unsigned)v;
		if (doc_read_long(c, &v, "/sys/class/fdma/%s/link_max_width", p->node) == 0 && v > 0)
			p->max_width = (unsigned)v;
	}
	if (p->has_link)
		read_port(c, p);

	p->cfg_len = read_config(c, bdf, cfg, sizeof(cfg));
	parse_caps(cfg, p->cfg_len, p);
	/* The driver's view of MPS/MRRS needs no root. */
	if (p->node[0]) {
		if (doc_read_long(c, &v, "/sys/class/fdma/%s/mps", p->node) == 0 && v > 0)
			p->mps = (unsigned)v;
		if (doc_read_long(c, &v, "/sys/class/fdma/%s/mrrs", p->node) == 0 && v > 0)
			p->mrrs = (unsigned)v;
	}

	read_irq(c, p);

	if (doc_link_base(c, buf, sizeof(buf), "/sys/bus/pci/devices/%s/iommu_group", bdf) == 0) {
		p->iommu_group = atoi(buf);
		if (doc_read(c, p->iommu_type, sizeof(p->iommu_type),
			     "/sys/bus/pci/devices/%s/iommu_group/type", bdf) <= 0)
			snprintf(p->iommu_type, sizeof(p->iommu_type), "%s", "");
	} else if (doc_exists(c, "/sys/bus/pci/devices/%s/vendor", bdf)) {
		/* The function is there and has no group: no IOMMU. */
		snprintf(p->iommu_type, sizeof(p->iommu_type), "none");
	}
	if (doc_read_long(c, &v, "/sys/bus/pci/devices/%s/numa_node", bdf) == 0)
		p->numa_node = (int)v;
}
