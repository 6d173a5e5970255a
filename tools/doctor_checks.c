// SPDX-License-Identifier: MIT
/*
 * fdma doctor: the checks. Each turns what doctor_sys.c read into
 * findings with a stable id, a level, a reason and a fix. The thresholds
 * are the project's: a link trained below what the device and its port
 * can do is a fail (FIELD-NOTES.md: "software should detect a down-trained
 * link and say so"), a setting that costs 3% or more of the link model's
 * ceiling is a warning, and what cannot be read is "unknown" (info).
 */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include "doctor.h"
#include "fdma_tools.h"
#include "util.h"
#include "video.h"

/* What a typical capture locks: fdma stream's defaults, 8 buffers of a
 * 1080p YUV 4:2:0 frame (3110400 bytes), each rounded up to pages;
 * with FDMA_BUF_HUGEPAGE each rounds up to 2 MiB pages instead. */
#define CAPTURE_BUFS		8ull
#define CAPTURE_FRAME		3110400ull
#define CAPTURE_BYTES		(CAPTURE_BUFS * ((CAPTURE_FRAME + 4095) & ~4095ull))
#define CAPTURE_HUGE_BYTES	(CAPTURE_BUFS * ((CAPTURE_FRAME + (2ull << 20) - 1) & \
						 ~((2ull << 20) - 1)))
#define COST_WARN		0.03	/* a setting costing this much warns */
#define VIDEO_WARN		0.85	/* video streams taking more of a ceiling warn */
#define CMA_LOW_KB		(16 * 1024)
#define CAP_IPC_LOCK_BIT	14

/* ---- the link model ------------------------------------------------------ */

/* Payload ceilings of a link, bytes/s; false if the model cannot say
 * (gen 6, x12, x32, a value it does not take). */
static bool ceilings(unsigned gen, unsigned lanes, unsigned mps, unsigned mrrs,
		     double *wr, double *rd)
{
	struct fdma_link_cfg l;

	fdma_link_defaults(&l);
	l.gen = gen;
	l.lanes = lanes;
	if (mps)
		l.mps = mps;
	if (mrrs)
		l.mrrs = mrrs;
	if (fdma_link_bad_field(&l))
		return false;
	*wr = fdma_link_write_Bps(&l);
	*rd = fdma_link_read_Bps(&l);
	return *wr > 0 && *rd > 0;
}

/* The link the ceilings are figured for: the negotiated one, else the
 * model's default (gen 2 x1), which is all relative costs need. */
static void cur_link(const struct doc_pci *p, unsigned *gen, unsigned *lanes)
{
	*gen = p->cur_gen >= 1 && p->cur_gen <= 5 ? p->cur_gen : 2;
	*lanes = p->cur_width ? p->cur_width : 1;
}

/* ---- per device -------------------------------------------------------------- */

static void check_id(struct doc_ctx *c, const struct doc_pci *p)
{
	char ex[64];

	snprintf(ex, sizeof(ex), ",\"vendor\":\"%04x\",\"device_id\":\"%04x\"",
		 p->vendor, p->device);
	if (p->vendor == FDMA_PCI_VENDOR && p->device == FDMA_PCI_DEVICE)
		doc_add(c, p->bdf, "device", DOC_INFO, NOFIX, ex,
			"%04x:%04x, an FDMA engine%s%s", p->vendor, p->device,
			p->node[0] ? " as /dev/" : "", p->node);
	else if (doc_xdma_id(p->vendor, p->device))
		doc_add(c, p->bdf, "device", DOC_INFO, NOFIX, ex,
			"%04x:%04x, a Xilinx XDMA function (fdma.ko drives it as fdma_xdma)%s%s",
			p->vendor, p->device, p->node[0] ? " as /dev/" : "", p->node);
	else if (p->vendor == 0x1af4 && p->device == 0x1110)
		doc_add(c, p->bdf, "device", DOC_INFO, NOFIX, ex,
			"%04x:%04x, QEMU ivshmem (the VM harness's FDMA stand-in)%s%s",
			p->vendor, p->device, p->node[0] ? " as /dev/" : "", p->node);
	else if (doc_our_driver(p->driver))
		doc_add(c, p->bdf, "device", DOC_INFO, NOFIX, ex,
			"%04x:%04x, bound to fdma by new_id%s%s", p->vendor, p->device,
			p->node[0] ? " as /dev/" : "", p->node);
	else {
		char fix[128];

		snprintf(fix, sizeof(fix), "if it is an FDMA design: echo '%04x %04x' > "
			 "/sys/bus/pci/drivers/fdma/new_id", p->vendor, p->device);
		doc_add(c, p->bdf, "device", DOC_INFO, fix, ex,
			"%04x:%04x is not an ID fdma binds by default (%04x:%04x)",
			p->vendor, p->device, FDMA_PCI_VENDOR, FDMA_PCI_DEVICE);
	}
}

/* An ID the driver claims by itself (ivshmem only with ivshmem=1). */
static bool claimed(const struct doc_pci *p)
{
	return (p->vendor == FDMA_PCI_VENDOR && p->device == FDMA_PCI_DEVICE) ||
	       (p->vendor == 0x1af4 && p->device == 0x1110) || doc_xdma_id(p->vendor, p->device);
}

static void check_driver(struct doc_ctx *c, const struct doc_pci *p)
{
	bool ivshmem = p->vendor == 0x1af4 && p->device == 0x1110;
	const char *ours = doc_xdma_id(p->vendor, p->device) ? "fdma_xdma" : "fdma";
	char ex[256], fix[160], q1[96], q2[64];

	snprintf(ex, sizeof(ex), ",\"driver\":%s,\"node\":%s",
		 tool_json_quote(q1, sizeof(q1), p->driver), tool_json_quote(q2, sizeof(q2), p->node));
	if (doc_our_driver(p->driver)) {
		if (p->node[0])
			doc_add(c, p->bdf, "driver", DOC_OK, NOFIX, ex,
				"bound to %s: kdev:/dev/%s", p->driver, p->node);
		else
			doc_add(c, p->bdf, "driver", DOC_WARN,
				"look at the kernel log: dmesg | grep fdma", ex,
				"bound to %s, but no /sys/class/fdma node names it", p->driver);
	} else if (!p->driver[0] && !claimed(p)) {
		snprintf(fix, sizeof(fix), "if it is an FDMA design: echo '%04x %04x' > "
			 "/sys/bus/pci/drivers/fdma/new_id", p->vendor, p->device);
		doc_add(c, p->bdf, "driver", DOC_WARN, fix, ex,
			"no driver bound (and not an ID fdma claims by itself)");
	} else if (!p->driver[0]) {
		if (doc_exists(c, "/sys/module/fdma")) {
			snprintf(fix, sizeof(fix),
				 "dmesg | grep fdma; echo %s > /sys/bus/pci/drivers/%s/bind",
				 p->bdf, ours);
			doc_add(c, p->bdf, "driver", DOC_FAIL, fix, ex,
				"no driver bound: fdma is loaded but did not take it "
				"(probe failed, or an ID it does not know)");
		} else {
			doc_add(c, p->bdf, "driver", DOC_FAIL,
				ivshmem ? "modprobe fdma ivshmem=1 (or insmod kernel/fdma.ko ivshmem=1)"
					: "modprobe fdma (or insmod kernel/fdma.ko)",
				ex, "no driver bound, and the fdma module is not loaded");
		}
	} else {
		snprintf(fix, sizeof(fix),
			 "echo %s > /sys/bus/pci/drivers/%s/unbind, then bind it to %s",
			 p->bdf, p->driver, ours);
		doc_add(c, p->bdf, "driver", DOC_WARN, fix, ex,
			"bound to %s, not %s: kdev: cannot reach it", p->driver, ours);
	}
}

static void check_link(struct doc_ctx *c, const struct doc_pci *p)
{
	unsigned lim, wlim;
	char ex[160];

	if (!p->has_link) {
		doc_add(c, p->bdf, "link", DOC_INFO, NOFIX, "",
			"no PCIe link attributes: conventional PCI or a virtual "
			"function; no link checks");
		return;
	}
	snprintf(ex, sizeof(ex), ",\"gen\":%u,\"max_gen\":%u,\"port_gen\":%u,"
		 "\"speed\":\"%s\",\"max_speed\":\"%s\"", p->cur_gen, p->max_gen, p->port_gen,
		 doc_gen_speed(p->cur_gen), doc_gen_speed(p->max_gen));
	lim = p->max_gen;
	if (p->port_gen && p->port_gen < lim)
		lim = p->port_gen;
	if (!p->cur_gen || !p->max_gen) {
		doc_add(c, p->bdf, "link.speed", DOC_INFO, NOFIX, ex,
			"link speed unknown (sysfs: %s now, %s at most)",
			doc_gen_speed(p->cur_gen), doc_gen_speed(p->max_gen));
	} else if (p->cur_gen < lim) {
		doc_add(c, p->bdf, "link.speed", DOC_FAIL,
			"reseat the card; check its reference clock and PERST# "
			"(low >= 1 ms, bus scan >= 100 ms after); reboot",
			ex, "trained at %s (gen%u), below the %s (gen%u) the device%s support%s",
			doc_gen_speed(p->cur_gen), p->cur_gen, doc_gen_speed(lim), lim,
			p->port_gen ? " and its port" : "", p->port_gen ? "" : "s");
	} else if (p->cur_gen < p->max_gen) {
		char fix[96];

		snprintf(fix, sizeof(fix), "move the card to a slot that does gen%u (%s)",
			 p->max_gen, doc_gen_speed(p->max_gen));
		doc_add(c, p->bdf, "link.speed", DOC_WARN, fix, ex,
			"%s (gen%u): the slot's port stops there, the device does gen%u",
			doc_gen_speed(p->cur_gen), p->cur_gen, p->max_gen);
	} else {
		doc_add(c, p->bdf, "link.speed", DOC_OK, NOFIX, ex,
			"%s (gen%u), the device's maximum", doc_gen_speed(p->cur_gen), p->cur_gen);
	}

	snprintf(ex, sizeof(ex), ",\"width\":%u,\"max_width\":%u,\"port_width\":%u",
		 p->cur_width, p->max_width, p->port_width);
	wlim = p->max_width;
	if (p->port_width && p->port_width < wlim)
		wlim = p->port_width;
	if (!p->cur_width || !p->max_width) {
		doc_add(c, p->bdf, "link.width", DOC_INFO, NOFIX, ex, "link width unknown");
	} else if (p->cur_width < wlim) {
		char fix[128];

		snprintf(fix, sizeof(fix), "reseat the card; check that the slot is wired x%u "
			 "(many long slots are x4 electrically)", wlim);
		doc_add(c, p->bdf, "link.width", DOC_FAIL, fix, ex,
			"trained at x%u, below the x%u the device%s support%s", p->cur_width, wlim,
			p->port_width ? " and its port" : "", p->port_width ? "" : "s");
	} else if (p->cur_width < p->max_width) {
		char fix[64];

		snprintf(fix, sizeof(fix), "move the card to an x%u slot", p->max_width);
		doc_add(c, p->bdf, "link.width", DOC_WARN, fix, ex,
			"x%u: the slot's port is x%u, the device x%u", p->cur_width,
			p->port_width, p->max_width);
	} else {
		doc_add(c, p->bdf, "link.width", DOC_OK, NOFIX, ex,
			"x%u, the device's maximum", p->cur_width);
	}
}

/* Why config space beyond the header could not be read. */
static const char *cfg_why(const struct doc_pci *p)
{
	if (p->cfg_len == 0)
		return "config space unreadable";
	if (p->cfg_len <= 64)
		return "only 64 bytes of config space readable (needs root)";
	return "no PCI Express capability found";
}

static void check_mps(struct doc_ctx *c, const struct doc_pci *p)
{
	unsigned gen, lanes, target = p->mps_cap;
	double w, wt, rd;
	char ex[128];

	if (!p->has_link && p->exp_off == 0)
		return;	/* conventional PCI: no MPS */
	snprintf(ex, sizeof(ex), ",\"mps\":%u,\"mps_cap\":%u,\"port_mps_cap\":%u",
		 p->mps, p->mps_cap, p->port_mps_cap);
	if (!p->mps) {
		doc_add(c, p->bdf, "pcie.mps", DOC_INFO,
			"run as root, or load fdma (its sysfs shows MPS and MRRS)", ex,
			"MPS unknown: %s", cfg_why(p));
		return;
	}
	if (p->port_mps_cap && (!target || p->port_mps_cap < target))
		target = p->port_mps_cap;
	cur_link(p, &gen, &lanes);
	if (target > p->mps && ceilings(gen, lanes, p->mps, 0, &w, &rd) &&
	    ceilings(gen, lanes, target, 0, &wt, &rd) && w < wt * (1 - COST_WARN)) {
		doc_add(c, p->bdf, "pcie.mps", DOC_WARN,
			"MPS is the smallest along the path: boot with pci=pcie_bus_perf, "
			"or raise it in the firmware", ex,
			"MPS %u, the device and port take %u: writes %.1f MB/s, not %.1f (-%.0f%%)",
			p->mps, target, w / 1e6, wt / 1e6, 100 * (1 - w / wt));
	} else if (p->mps_cap && p->mps_cap > p->mps) {
		char port[32] = "";

		if (p->port_mps_cap)
			snprintf(port, sizeof(port), ", its port %u", p->port_mps_cap);
		doc_add(c, p->bdf, "pcie.mps", DOC_OK, NOFIX, ex,
			"MPS %u (the device takes %u%s)", p->mps, p->mps_cap, port);
	} else {
		doc_add(c, p->bdf, "pcie.mps", DOC_OK, NOFIX, ex, "MPS %u%s", p->mps,
			p->mps_cap ? ", the device's maximum" : "");
	}
}

static void check_mrrs(struct doc_ctx *c, const struct doc_pci *p)
{
	unsigned gen, lanes;
	double w, r, rt;
	char ex[64], fix[128];

	if (!p->has_link && p->exp_off == 0)
		return;
	snprintf(ex, sizeof(ex), ",\"mrrs\":%u", p->mrrs);
	if (!p->mrrs) {
		doc_add(c, p->bdf, "pcie.mrrs", DOC_INFO,
			"run as root, or load fdma (its sysfs shows MPS and MRRS)", ex,
			"MRRS unknown: %s", cfg_why(p));
		return;
	}
	cur_link(p, &gen, &lanes);
	/* The read ceiling against the largest request the spec allows. */
	if (ceilings(gen, lanes, p->mps, p->mrrs, &w, &r) &&
	    ceilings(gen, lanes, p->mps, 4096, &w, &rt) && r < rt * (1 - COST_WARN)) {
		snprintf(fix, sizeof(fix), "raise it to 512 or more: setpci -s %s "
			 "CAP_EXP+8.w=2000:7000 (512), or in the driver", p->bdf);
		doc_add(c, p->bdf, "pcie.mrrs", DOC_WARN, fix, ex,
			"MRRS %u: reads %.1f MB/s, not %.1f with larger requests (-%.0f%%)",
			p->mrrs, r / 1e6, rt / 1e6, 100 * (1 - r / rt));
	} else {
		doc_add(c, p->bdf, "pcie.mrrs", DOC_OK, NOFIX, ex,
			"MRRS %u: the read ceiling is not bound by request size", p->mrrs);
	}
}

/* "MSI-X (4 vectors) and MSI", "MSI", "no MSI or MSI-X", or unknown. */
static void irq_caps(const struct doc_pci *p, char *buf, size_t len)
{
	if (p->msix_off < 0 || p->msi_off < 0)
		snprintf(buf, len, "unknown, %s", cfg_why(p));
	else if (p->msix_off && p->msi_off)
		snprintf(buf, len, "MSI-X (%u vectors) and MSI", p->msix_vectors);
	else if (p->msix_off)
		snprintf(buf, len, "MSI-X (%u vectors)", p->msix_vectors);
	else if (p->msi_off)
		snprintf(buf, len, "MSI");
	else
		snprintf(buf, len, "no MSI or MSI-X");
}

static void check_irq(struct doc_ctx *c, const struct doc_pci *p)
{
	char ex[256], caps[96], q1[64], q2[64];
	const char *m = p->irq_mode;

	irq_caps(p, caps, sizeof(caps));
	snprintf(ex, sizeof(ex), ",\"mode\":%s,\"vectors\":%u,\"source\":%s",
		 tool_json_quote(q1, sizeof(q1), m), p->irq_vectors,
		 tool_json_quote(q2, sizeof(q2), p->irq_source));
	if (!strcmp(m, "msix")) {
		doc_add(c, p->bdf, "irq.mode", DOC_OK, NOFIX, ex, "MSI-X, %u vector%s (%s)",
			p->irq_vectors, p->irq_vectors == 1 ? "" : "s", p->irq_source);
	} else if (!strcmp(m, "msi")) {
		if (p->msix_off > 0)
			doc_add(c, p->bdf, "irq.mode", DOC_WARN,
				"load fdma with irq_mode=auto (the default)", ex,
				"MSI, %u vector%s, though the device offers MSI-X (%u vectors)",
				p->irq_vectors, p->irq_vectors == 1 ? "" : "s", p->msix_vectors);
		else
			doc_add(c, p->bdf, "irq.mode", DOC_OK, NOFIX, ex, "MSI, %u vector%s (%s)",
				p->irq_vectors, p->irq_vectors == 1 ? "" : "s", p->irq_source);
	} else if (!strcmp(m, "intx")) {
		if (p->msix_off > 0 || p->msi_off > 0)
			doc_add(c, p->bdf, "irq.mode", DOC_FAIL,
				"load fdma with irq_mode=auto; drop pci=nomsi from the kernel "
				"command line", ex,
				"INTx, a shared legacy line, though the device offers %s", caps);
		else if (p->msix_off < 0 || p->msi_off < 0)
			doc_add(c, p->bdf, "irq.mode", DOC_WARN,
				"run as root to see whether the device offers MSI or MSI-X", ex,
				"INTx, a shared legacy line; MSI/MSI-X support %s", caps);
		else
			doc_add(c, p->bdf, "irq.mode", DOC_WARN,
				"give the FPGA design an MSI-X capability", ex,
				"INTx, a shared legacy line: the device offers no MSI or MSI-X");
	} else if (!strcmp(m, "none")) {
		doc_add(c, p->bdf, "irq.mode", DOC_INFO, NOFIX, ex,
			"no interrupts in use (no driver); MSI/MSI-X support: %s", caps);
	} else {
		doc_add(c, p->bdf, "irq.mode", DOC_INFO, NOFIX, ex,
			"interrupt mode unknown; MSI/MSI-X support: %s", caps);
	}
}

static void check_iommu(struct doc_ctx *c, const struct doc_pci *p)
{
	const char *t = p->iommu_type;
	char ex[160], grp[32], q[96];

	snprintf(ex, sizeof(ex), ",\"type\":%s,\"group\":%d", tool_json_quote(q, sizeof(q), t),
		 p->iommu_group);
	snprintf(grp, sizeof(grp), "group %d", p->iommu_group);
	if (!strcmp(t, "none"))
		doc_add(c, p->bdf, "iommu", DOC_INFO, NOFIX, ex,
			"no IOMMU group: no IOMMU, or it is off; the device sees physical "
			"addresses and nothing confines its DMA");
	else if (!strcmp(t, "identity"))
		doc_add(c, p->bdf, "iommu", DOC_OK, NOFIX, ex,
			"%s, identity (passthrough): no translation cost, no isolation", grp);
	else if (!strcmp(t, "DMA-FQ"))
		doc_add(c, p->bdf, "iommu", DOC_OK, NOFIX, ex,
			"%s, DMA-FQ: translated, IOTLB flushes batched", grp);
	else if (!strcmp(t, "DMA"))
		doc_add(c, p->bdf, "iommu", DOC_OK, NOFIX, ex,
			"%s, DMA: translated, strict IOTLB flushes; fdma maps buffers "
			"once, so that costs only at set-up", grp);
	else if (!strcmp(t, "unmanaged"))
		doc_add(c, p->bdf, "iommu", DOC_WARN,
			"unbind it from vfio-pci and bind it to fdma", ex,
			"%s is owned by a user-space driver (VFIO)", grp);
	else if (!strcmp(t, "blocked"))
		doc_add(c, p->bdf, "iommu", DOC_FAIL,
			"bind a driver (the group then gets a DMA domain)", ex,
			"%s blocks all DMA", grp);
	else if (!t[0] && p->iommu_group >= 0)
		doc_add(c, p->bdf, "iommu", DOC_INFO, NOFIX, ex, "%s, type unknown", grp);
	else if (!t[0])
		doc_add(c, p->bdf, "iommu", DOC_INFO, NOFIX, ex, "IOMMU unknown");
	else
		doc_add(c, p->bdf, "iommu", DOC_INFO, NOFIX, ex, "%s, type %s", grp, t);
}

static void check_numa(struct doc_ctx *c, const struct doc_pci *p)
{
	char ex[32], fix[96];

	if (p->numa_node < 0)
		return;
	snprintf(ex, sizeof(ex), ",\"node\":%d", p->numa_node);
	snprintf(fix, sizeof(fix), "numactl --cpunodebind=%d --membind=%d <capture>",
		 p->numa_node, p->numa_node);
	doc_add(c, p->bdf, "numa", DOC_INFO, fix, ex,
		"on NUMA node %d: keep the capture thread and its buffers there", p->numa_node);
}

/*
 * The best link the device and its port allow: their lower generation and
 * width, their lower MPS capability (never below the MPS in use). What is
 * unknown stands at the negotiated value.
 */
static void best_link(const struct doc_pci *p, unsigned *gen, unsigned *lanes, unsigned *mps)
{
	unsigned mg = p->max_gen, ml = p->max_width, mm = p->mps_cap;

	if (p->port_gen && p->port_gen < mg)
		mg = p->port_gen;
	if (p->port_width && p->port_width < ml)
		ml = p->port_width;
	if (p->port_mps_cap && (!mm || p->port_mps_cap < mm))
		mm = p->port_mps_cap;
	if (!mm || mm < p->mps)
		mm = p->mps;
	*gen = mg ? mg : p->cur_gen;
	*lanes = ml ? ml : p->cur_width;
	*mps = mm;
}

static void check_ceiling(struct doc_ctx *c, const struct doc_pci *p)
{
	unsigned mg, ml, mm;
	double w, r, mw, mr;
	char ex[256];

	if (!p->has_link || !p->cur_gen || !p->cur_width)
		return;
	if (!ceilings(p->cur_gen, p->cur_width, p->mps, p->mrrs, &w, &r)) {
		doc_add(c, p->bdf, "link.ceiling", DOC_INFO, NOFIX, "",
			"gen%u x%u is beyond the link model (gen1-5, x1-x16)",
			p->cur_gen, p->cur_width);
		return;
	}
	/* The maximum: what the device and its port allow, at their best MPS. */
	best_link(p, &mg, &ml, &mm);
	if (!ceilings(mg, ml, mm, p->mrrs, &mw, &mr)) {
		mw = w;
		mr = r;
	}
	snprintf(ex, sizeof(ex), ",\"gen\":%u,\"lanes\":%u,\"mps\":%u,\"mrrs\":%u,"
		 "\"write_mbps\":%.1f,\"read_mbps\":%.1f,\"max_gen\":%u,\"max_lanes\":%u,"
		 "\"max_write_mbps\":%.1f,\"max_read_mbps\":%.1f,\"source\":\"model\"",
		 p->cur_gen, p->cur_width, p->mps, p->mrrs, w / 1e6, r / 1e6,
		 mg, ml, mw / 1e6, mr / 1e6);
	if (mg == p->cur_gen && ml == p->cur_width && mm == p->mps)
		doc_add(c, p->bdf, "link.ceiling", DOC_INFO, NOFIX, ex,
			"gen%u x%u%s: writes %.1f MB/s, reads %.1f MB/s, the best this link "
			"allows (link model)", p->cur_gen, p->cur_width,
			p->mps ? "" : " (MPS assumed 256)", w / 1e6, r / 1e6);
	else
		doc_add(c, p->bdf, "link.ceiling", DOC_INFO, NOFIX, ex,
			"gen%u x%u%s: writes %.1f MB/s, reads %.1f MB/s; gen%u x%u MPS %u would "
			"give %.1f / %.1f (link model)", p->cur_gen, p->cur_width,
			p->mps ? "" : " (MPS assumed 256)", w / 1e6, r / 1e6, mg, ml,
			mm ? mm : 256, mw / 1e6, mr / 1e6);
}

/*
 * fdma.ko's video devices (v4l2=1) on this function: the rate each one's
 * format needs, all of one direction together, against the link model's
 * ceiling for that direction on the link as trained. Frames over the
 * ceiling are dropped or held back whatever the software does: a fail.
 * The JSON's format fields are the first device's of the direction.
 */
static void check_video(struct doc_ctx *c, const struct doc_pci *p)
{
	static const char *const dname[2] = { "c2h", "h2c" };
	unsigned n[2] = { 0, 0 }, ch, gen, lanes, bg, bl, bm;
	char vid[FDMA_MAX_CHAN][TOOL_VIDEO_NAME], dir[16], ex[256], fix[192];
	char names[2][96] = { "", "" };
	double need[2] = { 0, 0 }, ceil[2], best[2];
	struct tool_vfmt f, first[2];
	int d;

	if (!p->node[0] || !tool_video_nodes(c->root, p->node, vid, FDMA_MAX_CHAN))
		return;
	for (ch = 0; ch < FDMA_MAX_CHAN; ch++) {
		size_t l;

		if (!vid[ch][0] ||
		    doc_read(c, dir, sizeof(dir), "/sys/class/fdma/%s/ch%u/dir", p->node, ch) <= 0)
			continue;
		d = !strcmp(dir, "h2c");
		if (tool_video_format(c->root, vid[ch], &f)) {
			doc_add(c, p->bdf, "video.rate", DOC_INFO, NOFIX, "",
				"/dev/%s: its format (fdma.ko's settings) cannot be read", vid[ch]);
			continue;
		}
		if (!n[d]++)
			first[d] = f;
		need[d] += (double)f.sizeimage * f.fps;
		l = strlen(names[d]);
		snprintf(names[d] + l, sizeof(names[d]) - l, "%s/dev/%s (%.4s %ux%u at %u fps)",
			 l ? ", " : "", vid[ch], f.fourcc, f.width, f.height, f.fps);
	}
	if (!n[0] && !n[1])
		return;
	if (!p->has_link || !p->cur_gen || !p->cur_width) {
		doc_add(c, p->bdf, "video.rate", DOC_INFO, NOFIX, "",
			"video devices: %s need %.1f MB/s; the link is unknown, so no ceiling "
			"to weigh it against", n[0] ? names[0] : names[1],
			(n[0] ? need[0] : need[1]) / 1e6);
		return;
	}
	cur_link(p, &gen, &lanes);
	if (!ceilings(gen, lanes, p->mps, p->mrrs, &ceil[0], &ceil[1]))
		return;
	/* The best the device and its port allow, for the fix. */
	best_link(p, &bg, &bl, &bm);
	if (!ceilings(bg, bl, bm, p->mrrs, &best[0], &best[1])) {
		best[0] = ceil[0];
		best[1] = ceil[1];
	}
	for (d = 0; d < 2; d++) {
		double share = need[d] / ceil[d];
		enum doc_level lv = share > 1 ? DOC_FAIL : share > VIDEO_WARN ? DOC_WARN : DOC_OK;

		if (!n[d])
			continue;
		snprintf(ex, sizeof(ex), ",\"dir\":\"%s\",\"devices\":%u,\"format\":\"%s\","
			 "\"width\":%u,\"height\":%u,\"fps\":%u,\"frame_bytes\":%llu,"
			 "\"need_mbps\":%.1f,\"ceiling_mbps\":%.1f,\"best_mbps\":%.1f",
			 dname[d], n[d], first[d].fourcc, first[d].width, first[d].height,
			 first[d].fps, (unsigned long long)first[d].sizeimage, need[d] / 1e6,
			 ceil[d] / 1e6, best[d] / 1e6);
		fix[0] = '\0';
		if (lv != DOC_OK && best[d] > need[d])
			snprintf(fix, sizeof(fix), "train the link as it can be (%.1f MB/s: the "
				 "link.* and pcie.* findings), or fewer bytes per frame or fps",
				 best[d] / 1e6);
		else if (lv != DOC_OK)
			snprintf(fix, sizeof(fix), "fewer bytes per frame or fps (the device's "
				 "format, width, height, fps in sysfs), or a faster link");
		doc_add(c, p->bdf, "video.rate", lv, fix, ex,
			"%s: %.1f MB/s, %.0f%% of the %s ceiling %.1f MB/s at gen%u x%u MPS %u%s",
			names[d], need[d] / 1e6, share * 100, d ? "read" : "write", ceil[d] / 1e6,
			gen, lanes, p->mps ? p->mps : 256, lv == DOC_FAIL ? ": it does not fit" : "");
	}
}

void doc_check_pci(struct doc_ctx *c, const struct doc_pci *p)
{
	check_id(c, p);
	check_driver(c, p);
	check_link(c, p);
	check_mps(c, p);
	check_mrrs(c, p);
	check_irq(c, p);
	check_iommu(c, p);
	check_numa(c, p);
	check_ceiling(c, p);
	check_video(c, p);
}

/* ---- system-wide ----------------------------------------------------------- */

/* A "Key:   N kB" line of /proc/meminfo; -1 if absent. */
static long long meminfo(const char *mi, const char *key)
{
	size_t kl = strlen(key);
	const char *s = mi;

	while (s && *s) {
		if (!strncmp(s, key, kl) && s[kl] == ':')
			return strtoll(s + kl + 1, NULL, 10);
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return -1;
}

static void fmt_mib(unsigned long long bytes, char *buf, size_t len)
{
	if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0)
		snprintf(buf, len, "%llu GiB", bytes >> 30);
	else if (bytes >= (1ull << 20))
		snprintf(buf, len, "%.0f MiB", bytes / 1048576.0);
	else
		snprintf(buf, len, "%llu KiB", bytes >> 10);
}

static void check_governor(struct doc_ctx *c)
{
	char path[PATH_MAX], gov[32], first[32] = "", ex[160], q[96];
	unsigned n = 0, perf = 0;
	struct dirent *e;
	DIR *d;

	if (!doc_path(c, path, sizeof(path), "/sys/devices/system/cpu") &&
	    (d = opendir(path))) {
		while ((e = readdir(d))) {
			if (strncmp(e->d_name, "cpu", 3) || !isdigit((unsigned char)e->d_name[3]))
				continue;
			if (doc_read(c, gov, sizeof(gov),
				     "/sys/devices/system/cpu/%s/cpufreq/scaling_governor",
				     e->d_name) <= 0)
				continue;
			n++;
			if (!strcmp(gov, "performance"))
				perf++;
			else if (!first[0])
				snprintf(first, sizeof(first), "%s", gov);
		}
		closedir(d);
	}
	snprintf(ex, sizeof(ex), ",\"cpus\":%u,\"performance\":%u,\"other\":%s",
		 n, perf, tool_json_quote(q, sizeof(q), first));
	if (!n)
		doc_add(c, "", "cpu.governor", DOC_INFO, NOFIX, ex,
			"no cpufreq governor (a VM, or the firmware owns the frequency): "
			"nothing to tune");
	else if (perf == n)
		doc_add(c, "", "cpu.governor", DOC_OK, NOFIX, ex,
			"performance on all %u CPUs", n);
	else
		doc_add(c, "", "cpu.governor", DOC_WARN,
			"cpupower frequency-set -g performance (or run the completion "
			"thread at real-time priority)", ex,
			"%s on %u of %u CPUs: a dynamic governor adds wake-up latency to "
			"bursty DMA", first, n - perf, n);
}

/* RLIMIT_MEMLOCK's soft limit: the live process's, or a recorded
 * proc/self/limits. 1 unlimited, 0 a limit, -1 unknown. */
static int memlock_limit(const struct doc_ctx *c, unsigned long long *lim)
{
	char buf[4096], *s;
	struct rlimit rl;

	if (c->live) {
		if (getrlimit(RLIMIT_MEMLOCK, &rl))
			return -1;
		if (rl.rlim_cur == RLIM_INFINITY)
			return 1;
		*lim = rl.rlim_cur;
		return 0;
	}
	if (doc_read(c, buf, sizeof(buf), "/proc/self/limits") <= 0)
		return -1;
	s = strstr(buf, "Max locked memory");
	if (!s)
		return -1;
	s += strlen("Max locked memory");
	while (*s == ' ')
		s++;
	if (!strncmp(s, "unlimited", 9))
		return 1;
	if (!isdigit((unsigned char)*s))
		return -1;
	*lim = strtoull(s, NULL, 10);
	return 0;
}

/* CAP_IPC_LOCK in the (live or recorded) process's effective set. */
static int has_ipc_lock(const struct doc_ctx *c)
{
	char buf[4096], *s;

	if (doc_read(c, buf, sizeof(buf), "/proc/self/status") <= 0)
		return -1;
	s = strstr(buf, "CapEff:");
	if (!s)
		return -1;
	return (strtoull(s + 7, NULL, 16) >> CAP_IPC_LOCK_BIT) & 1;
}

static void check_memlock(struct doc_ctx *c)
{
	unsigned long long lim = 0;
	int r = memlock_limit(c, &lim), cap = has_ipc_lock(c);
	char need[32], have[32], ex[128];

	fmt_mib(CAPTURE_BYTES, need, sizeof(need));
	fmt_mib(lim, have, sizeof(have));
	if (r == 0)
		snprintf(ex, sizeof(ex), ",\"limit_bytes\":%llu,\"need_bytes\":%llu,"
			 "\"cap_ipc_lock\":%s", lim, CAPTURE_BYTES,
			 cap < 0 ? "null" : cap ? "true" : "false");
	else
		snprintf(ex, sizeof(ex), ",\"limit_bytes\":null,\"need_bytes\":%llu,"
			 "\"cap_ipc_lock\":%s", CAPTURE_BYTES,
			 cap < 0 ? "null" : cap ? "true" : "false");
	if (r < 0)
		doc_add(c, "", "memlock", DOC_INFO, NOFIX, ex,
			"RLIMIT_MEMLOCK unknown; fdma charges its buffers to it "
			"(a typical capture: %s)", need);
	else if (r == 1)
		doc_add(c, "", "memlock", DOC_OK, NOFIX, ex,
			"RLIMIT_MEMLOCK unlimited: fdma's buffers are never refused for it");
	else if (cap == 1)
		doc_add(c, "", "memlock", DOC_OK, NOFIX, ex,
			"this process has CAP_IPC_LOCK, so its %s RLIMIT_MEMLOCK does not "
			"bind; other users need %s", have, need);
	else if (lim < CAPTURE_BYTES)
		doc_add(c, "", "memlock", DOC_WARN,
			"ulimit -l unlimited, or memlock in /etc/security/limits.conf, "
			"or LimitMEMLOCK= for a service", ex,
			"RLIMIT_MEMLOCK %s: fdma's buffers count against it and a capture of "
			"8 x 1080p frames needs %s (ENOMEM)", have, need);
	else
		doc_add(c, "", "memlock", DOC_OK, NOFIX, ex,
			"RLIMIT_MEMLOCK %s covers a capture of 8 x 1080p frames (%s)", have, need);
}

static void check_hugepages(struct doc_ctx *c, const char *mi)
{
	long long total = meminfo(mi, "HugePages_Total");
	long long freep = meminfo(mi, "HugePages_Free");
	long long size_kb = meminfo(mi, "Hugepagesize");
	char thp[64] = "", *b, *e, ex[256], need[32], q[128];
	unsigned long long free_bytes;

	fmt_mib(CAPTURE_HUGE_BYTES, need, sizeof(need));
	if (doc_read(c, thp, sizeof(thp), "/sys/kernel/mm/transparent_hugepage/enabled") > 0 &&
	    (b = strchr(thp, '[')) && (e = strchr(b, ']'))) {
		*e = 0;
		memmove(thp, b + 1, strlen(b + 1) + 1);
	} else {
		thp[0] = 0;
	}
	snprintf(ex, sizeof(ex), ",\"total\":%lld,\"free\":%lld,\"size_kb\":%lld,\"thp\":%s",
		 total, freep, size_kb, tool_json_quote(q, sizeof(q), thp));
	if (total < 0 || freep < 0 || size_kb <= 0) {
		doc_add(c, "", "hugepages", DOC_INFO, NOFIX, ex,
			"huge pages unknown (no HugePages_* in /proc/meminfo)");
		return;
	}
	free_bytes = (unsigned long long)freep * (unsigned long long)size_kb * 1024;
	if (free_bytes >= CAPTURE_HUGE_BYTES)
		doc_add(c, "", "hugepages", DOC_OK, NOFIX, ex,
			"%lld free %lld KiB huge pages: FDMA_BUF_HUGEPAGE buffers get them",
			freep, size_kb);
	else if (!strcmp(thp, "always") || !strcmp(thp, "madvise"))
		doc_add(c, "", "hugepages", DOC_INFO,
			"reserve them: echo 16 > /proc/sys/vm/nr_hugepages", ex,
			"%lld of %lld huge pages free (a capture takes %s): buffers fall back "
			"to transparent huge pages (%s)", freep, total, need, thp);
	else
		doc_add(c, "", "hugepages", DOC_WARN,
			"reserve them: echo 16 > /proc/sys/vm/nr_hugepages", ex,
			"no huge pages (%lld free, THP %s): buffers are 4 KiB pages, one "
			"descriptor each", freep, thp[0] ? thp : "unknown");
}

static void arch_name(const struct doc_ctx *c, char *buf, size_t len)
{
	struct utsname u;

	if (c->live && uname(&u) == 0) {
		doc_copy(buf, len, u.machine);
		return;
	}
	if (doc_read(c, buf, len, "/proc/sys/kernel/arch") <= 0)
		buf[0] = 0;
}

static void check_cma(struct doc_ctx *c, const char *mi)
{
	long long total = meminfo(mi, "CmaTotal"), freek = meminfo(mi, "CmaFree");
	char arch[32], ex[192], q[96];
	bool arm;

	arch_name(c, arch, sizeof(arch));
	arm = !strncmp(arch, "aarch64", 7) || !strncmp(arch, "arm", 3);
	snprintf(ex, sizeof(ex), ",\"arch\":%s,\"total_kb\":%lld,\"free_kb\":%lld",
		 tool_json_quote(q, sizeof(q), arch), total, freek);
	if (!arch[0]) {
		if (total < 0)
			doc_add(c, "", "cma", DOC_INFO, NOFIX, ex,
				"CMA unknown (no CmaTotal in /proc/meminfo, architecture unknown)");
		else
			doc_add(c, "", "cma", DOC_INFO, NOFIX, ex,
				"CMA %lld kB, %lld kB free (architecture unknown: it matters on arm64)",
				total, freek);
	} else if (!arm) {
		if (total < 0)
			doc_add(c, "", "cma", DOC_INFO, NOFIX, ex,
				"%s: fdma does not need CMA here (this kernel has none)", arch);
		else
			doc_add(c, "", "cma", DOC_INFO, NOFIX, ex,
				"%s: fdma does not need CMA here (CmaTotal %lld kB)", arch, total);
	} else if (total <= 0) {
		doc_add(c, "", "cma", DOC_WARN,
			"boot with cma=128M (or CONFIG_CMA_SIZE_MBYTES)", ex,
			"%s without CMA: coherent rings and contiguous bounce buffers compete "
			"with fragmentation", arch);
	} else if (freek >= 0 && freek < CMA_LOW_KB) {
		doc_add(c, "", "cma", DOC_WARN,
			"boot with a larger cma= (e.g. cma=256M); see which driver holds it", ex,
			"CMA nearly used up: %lld of %lld kB free", freek, total);
	} else {
		doc_add(c, "", "cma", DOC_OK, NOFIX, ex, "CMA %lld kB, %lld kB free",
			total, freek);
	}
}

static void check_iommu_sys(struct doc_ctx *c)
{
	char path[PATH_MAX], cmd[1024] = "", units[64] = "", ex[192], q[128], *s;
	const char *mode = "";
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	if (!doc_path(c, path, sizeof(path), "/sys/class/iommu") && (d = opendir(path))) {
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			if (!n++)
				doc_copy(units, sizeof(units), e->d_name);
		}
		closedir(d);
	} else {
		doc_add(c, "", "iommu.system", DOC_INFO, NOFIX, "", "IOMMU unknown (no /sys/class/iommu)");
		return;
	}
	/* The command line's word on translation: iommu=pt or a *_iommu=off. */
	if (doc_read(c, cmd, sizeof(cmd), "/proc/cmdline") > 0) {
		if ((s = strstr(cmd, "iommu=pt")) || (s = strstr(cmd, "iommu.passthrough=1")))
			mode = ", passthrough by the command line";
		else if (strstr(cmd, "iommu=off"))
			mode = ", off by the command line";
		else if (strstr(cmd, "iommu.strict=1"))
			mode = ", strict by the command line";
	}
	snprintf(ex, sizeof(ex), ",\"units\":%u,\"first\":%s", n,
		 tool_json_quote(q, sizeof(q), units));
	if (!n)
		doc_add(c, "", "iommu.system", DOC_INFO, NOFIX, ex,
			"no IOMMU%s: devices DMA to physical addresses", mode);
	else
		doc_add(c, "", "iommu.system", DOC_INFO, NOFIX, ex, "%u IOMMU unit%s (%s...)%s",
			n, n == 1 ? "" : "s", units, mode);
}

static void check_module(struct doc_ctx *c)
{
	char mode[32];

	if (!doc_exists(c, "/sys/module/fdma")) {
		doc_add(c, "", "driver.module", DOC_INFO, "modprobe fdma (or insmod kernel/fdma.ko)",
			"", "the fdma module is not loaded");
		return;
	}
	if (doc_read(c, mode, sizeof(mode), "/sys/module/fdma/parameters/irq_mode") > 0 &&
	    strcmp(mode, "auto"))
		doc_add(c, "", "driver.module", DOC_WARN, "reload fdma with irq_mode=auto", "",
			"fdma is loaded with irq_mode=%s: no fallback to another mode", mode);
	else
		doc_add(c, "", "driver.module", DOC_OK, NOFIX, "", "the fdma module is loaded");
}

void doc_check_system(struct doc_ctx *c)
{
	char mi[8192];

	if (doc_read(c, mi, sizeof(mi), "/proc/meminfo") < 0)
		mi[0] = 0;
	check_module(c);
	check_governor(c);
	doc_check_wakeup(c);
	check_memlock(c);
	check_hugepages(c, mi);
	check_cma(c, mi);
	check_iommu_sys(c);
}
