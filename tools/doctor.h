/* SPDX-License-Identifier: MIT */
/*
 * doctor.h - what the parts of `fdma doctor` share: reading a /sys + /proc
 * tree (the live one, or one recorded under --sysroot), a PCI function's
 * state gathered from it, and the findings the checks produce.
 *
 * A file missing from the tree is "unknown", never an error: a recorded
 * tree holds only what its recorder copied, and a non-root reader sees
 * only the first 64 bytes of config space.
 */
#ifndef FDMA_DOCTOR_H
#define FDMA_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum doc_level { DOC_OK, DOC_INFO, DOC_WARN, DOC_FAIL };

#define NOFIX ""	/* a finding's fix where there is nothing to do */

struct doc_finding {
	char dev[16];		/* PCI address, "" for a system-wide item */
	char id[24];		/* stable: scripts match on it */
	enum doc_level level;
	char reason[256];
	char fix[192];		/* "" when there is nothing to do */
	char extra[256];	/* JSON members, each led by a comma */
};

struct doc_ctx {
	const char *root;	/* "" for the live system, else the sysroot */
	bool live;
	struct doc_finding *f;
	size_t n, cap;
};

/* A PCI function, as sysfs and its config space describe it. Numbers are
 * 0 (or -1 where 0 is a value) when unknown. */
struct doc_pci {
	char bdf[16];
	bool present;
	unsigned vendor, device;
	char driver[64];	/* bound driver's name, "" if none */
	char node[32];		/* "fdmaN" of the fdma class, "" if none */

	bool has_link;		/* PCIe link attributes exist */
	unsigned cur_gen, max_gen, cur_width, max_width;
	char port[16];		/* upstream port's address, "" if none */
	unsigned port_gen, port_width, port_mps_cap;

	size_t cfg_len;		/* bytes of config space readable */
	int exp_off;		/* PCI Express capability; 0 none, -1 unknown */
	int msi_off, msix_off;
	unsigned mps, mps_cap, mrrs;
	unsigned msix_vectors;	/* table size */
	bool msi_en, msix_en;
	unsigned intx_pin;	/* 0 none, 1..4 INTA..INTD */

	char irq_mode[16];	/* "msix", "msi", "intx", "none", "" unknown */
	unsigned irq_vectors;
	char irq_source[32];	/* where irq_mode came from */
	unsigned irq;		/* the `irq` attribute */

	char iommu_type[32];	/* group type, "none" without a group, "" unknown */
	int iommu_group;
	int numa_node;
};

/* ---- doctor_sys.c ---- */

/* Reads ROOT/PATH into buf (NUL-terminated, trailing newline dropped);
 * the length, or -1 if it cannot be read. */
int doc_read(const struct doc_ctx *c, char *buf, size_t len,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A number (decimal or 0x hex) from ROOT/PATH; -1 if absent or not one. */
int doc_read_long(const struct doc_ctx *c, long *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The last component of the symlink ROOT/PATH's target; -1 if none. */
int doc_link_base(const struct doc_ctx *c, char *buf, size_t len,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
bool doc_exists(const struct doc_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* ROOT/PATH into buf; -1 if it does not fit. */
int doc_path(const struct doc_ctx *c, char *buf, size_t len,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Copies src into dst (len bytes), cut short if it must be. */
void doc_copy(char *dst, size_t len, const char *src);
/* "DDDD:BB:DD.F" or "BB:DD.F" -> canonical "dddd:bb:dd.f"; -1 if neither. */
int doc_parse_bdf(const char *s, char *out, size_t len);
/* 2.5 -> 1 ... 64 -> 6 from a sysfs speed ("8.0 GT/s PCIe"); 0 unknown */
unsigned doc_speed_gen(const char *s);
const char *doc_gen_speed(unsigned gen);	/* 1 -> "2.5 GT/s" */

/* Fills p for the function at bdf (p->present false if there is none). */
void doc_pci_read(const struct doc_ctx *c, const char *bdf, struct doc_pci *p);
/* One of the Xilinx XDMA IP's default IDs (10ee:7011 .. 9038), which fdma.ko binds as fdma_xdma. */
bool doc_xdma_id(unsigned long vendor, unsigned long device);
/* A driver of fdma.ko's: fdma (FDMA functions) or fdma_xdma (XDMA functions). */
bool doc_our_driver(const char *driver);

/* ---- cmd_doctor.c ---- */

void doc_add(struct doc_ctx *c, const char *dev, const char *id,
	     enum doc_level lv, const char *fix, const char *extra,
	     const char *fmt, ...) __attribute__((format(printf, 7, 8)));

/* ---- doctor_checks.c ---- */

void doc_check_pci(struct doc_ctx *c, const struct doc_pci *p);
void doc_check_system(struct doc_ctx *c);

/* ---- doctor_wake.c ---- */

/* Live only: a wake-up's cost on one CPU and from another, measured. */
void doc_check_wakeup(struct doc_ctx *c);

#endif /* FDMA_DOCTOR_H */
