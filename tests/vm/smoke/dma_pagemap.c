// SPDX-License-Identifier: MIT
/*
 * Guest smoke test, no driver: the engine core (engine/fdma_engine.c, the
 * code libfdma and the kernel module share) drives fdma-modeld from guest
 * user space. Bus addresses are guest physical addresses of locked pages,
 * read from /proc/self/pagemap (no IOMMU in the guest), so this proves the
 * model's DMA lands in guest RAM where the guest expects it:
 *   dma_roundtrip  a 4 KiB pattern H2C to card memory, back C2H into
 *                  another page, compared; completions and write-back seen
 *   dma_addr_err   a C2H descriptor aimed outside guest RAM completes with
 *                  ADDR_ERR (the model refuses, nothing is written)
 * Interrupts are not tested here (they need a driver: MSI-X). The engine is
 * reset and disabled at the end. Must run while no driver is bound.
 */
#include <inttypes.h>
#include <stdbool.h>

#include "fdma_engine.h"
#include "ivshmem_dev.h"

#define PAGE		4096u
#define RING		2u
#define TIMEOUT_US	2000000u
#define BAD_BUS		0xfff00000ull	/* below 4 GiB, in the PCI hole: not RAM */

struct page {
	uint8_t *p;
	uint64_t bus;
};

static const struct ivdev *g_dev;

static void kick(void *ctx, unsigned int ch)
{
	(void)ctx;
	ivdev_kick(g_dev, ch);
}

/* A locked page and its guest physical address. */
static int page_alloc(struct page *pg, char *why, size_t whylen)
{
	uint64_t ent = 0;
	int fd;

	pg->p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED,
		     -1, 0);
	if (pg->p == MAP_FAILED) {
		snprintf(why, whylen, "mmap: %s", strerror(errno));
		return -1;
	}
	memset(pg->p, 0, PAGE);
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0 || pread(fd, &ent, 8, (off_t)((uintptr_t)pg->p / PAGE * 8)) != 8) {
		snprintf(why, whylen, "/proc/self/pagemap: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (!(ent >> 63) || !(ent & ((1ull << 55) - 1))) {
		snprintf(why, whylen, "page not present or PFN hidden (pagemap entry 0x%" PRIx64 ")", ent);
		return -1;
	}
	pg->bus = (ent & ((1ull << 55) - 1)) * PAGE;
	return 0;
}

struct chan {
	struct fdma_ering r;
	struct page mem;	/* descriptors at 0, completions at 0x100, write-back at 0x200 */
	struct fdma_eslot slot[RING];
};

static int chan_open(struct chan *c, struct fdma_plat *p, const struct fdma_eng_caps *caps,
		     u32 ch, char *why, size_t whylen)
{
	int ret;

	if (page_alloc(&c->mem, why, whylen))
		return -1;
	ret = fdma_ering_init(&c->r, p, caps, ch, RING,
			      (struct fdma_desc *)c->mem.p, c->mem.bus,
			      (struct fdma_cpl_rec *)(c->mem.p + 0x100), c->mem.bus + 0x100,
			      (struct fdma_wb *)(c->mem.p + 0x200), c->mem.bus + 0x200, c->slot);
	if (ret) {
		snprintf(why, whylen, "fdma_ering_init(channel %u): %d", ch, ret);
		return -1;
	}
	fdma_ering_start(&c->r, 0, ch);	/* interrupts off: we poll */
	return 0;
}

/* Post one request, ring the doorbell, wait for its completion. */
static int xfer(struct chan *c, uint64_t host, uint64_t card, u32 len, struct fdma_ecpl *out,
		char *why, size_t whylen)
{
	struct fdma_ereq q = { .host = host, .card = card, .len = len, .cookie = 0x5a5a0000u + c->r.ch };
	double t0 = ivdev_now();
	int ret = fdma_ering_post(&c->r, &q);

	if (ret) {
		snprintf(why, whylen, "fdma_ering_post: %d", ret);
		return -1;
	}
	fdma_ering_doorbell(&c->r);
	while (!fdma_ering_reap(&c->r, out, 1)) {
		if (ivdev_now() - t0 > TIMEOUT_US / 1e6) {
			snprintf(why, whylen, "no completion on channel %u after %u ms (wb.cidx %u, CH_STATUS 0x%x)",
				 c->r.ch, TIMEOUT_US / 1000, c->r.wb->cidx,
				 ivdev_rd(g_dev, FDMA_CH_BASE(c->r.ch) + FDMA_CH_STATUS));
			return -1;
		}
		usleep(100);
	}
	if (out->cookie != q.cookie) {
		snprintf(why, whylen, "completion cookie 0x%" PRIx64 ", expected 0x%" PRIx64,
			 (uint64_t)out->cookie, (uint64_t)q.cookie);
		return -1;
	}
	return 0;
}

static int find_mm(const struct fdma_eng_caps *caps, bool c2h)
{
	for (u32 ch = 0; ch < caps->nchan; ch++) {
		u32 cc = caps->chan_caps[ch];

		if (!(cc & FDMA_CH_CAP_STREAM) && !!(cc & FDMA_CH_CAP_C2H) == c2h)
			return (int)ch;
	}
	return -1;
}

int main(void)
{
	struct fdma_plat plat = { .kick = kick };
	struct fdma_eng_caps caps = { 0 };
	static struct chan h2c, c2h;
	struct page src, dst;
	struct fdma_ecpl cpl;
	struct ivdev d;
	char why[256] = "";
	int ich, och, ret, fails = 0;
	const char *drv;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ivdev_find(&d, why, sizeof(why)))
		goto setup_fail;
	drv = ivdev_driver(&d);
	if (drv) {
		snprintf(why, sizeof(why), "driver '%s' is bound; run before loading it", drv);
		goto setup_fail;
	}
	if (ivdev_open(&d, why, sizeof(why)))
		goto setup_fail;
	g_dev = &d;
	plat.regs = d.bar2;
	if ((ret = fdma_eng_probe(&fdma_eng_fdma, &plat, &caps))) {
		snprintf(why, sizeof(why), "fdma_eng_probe: %d", ret);
		goto setup_fail;
	}
	if ((ret = fdma_eng_reset(&plat, &caps, TIMEOUT_US))) {
		snprintf(why, sizeof(why), "fdma_eng_reset: %d", ret);
		goto setup_fail;
	}
	fdma_eng_enable(&plat, &caps, true);
	ich = find_mm(&caps, false);
	och = find_mm(&caps, true);
	if (ich < 0 || och < 0) {
		snprintf(why, sizeof(why), "no memory-mapped H2C/C2H channel pair");
		goto setup_fail;
	}
	if (chan_open(&h2c, &plat, &caps, (u32)ich, why, sizeof(why)) ||
	    chan_open(&c2h, &plat, &caps, (u32)och, why, sizeof(why)) ||
	    page_alloc(&src, why, sizeof(why)) || page_alloc(&dst, why, sizeof(why)))
		goto setup_fail;
	for (u32 i = 0; i < PAGE / 4; i++)
		((uint32_t *)src.p)[i] = 0xfd000000u ^ (i * 2654435761u);
	memset(dst.p, 0xee, PAGE);
	printf("dma_pagemap: channels H2C %d, C2H %d; src page at bus 0x%" PRIx64
	       ", dst at 0x%" PRIx64 ", rings at 0x%" PRIx64 " and 0x%" PRIx64 "\n",
	       ich, och, src.bus, dst.bus, h2c.mem.bus, c2h.mem.bus);

	/* dma_roundtrip */
	if (xfer(&h2c, src.bus, 0x1000, PAGE, &cpl, why, sizeof(why))) {
		printf("VMTEST FAIL dma_roundtrip: H2C: %s\n", why);
		fails++;
	} else if (cpl.status != FDMA_CPL_OK || cpl.len != PAGE) {
		printf("VMTEST FAIL dma_roundtrip: H2C completion status %u (%s), len %u\n",
		       cpl.status, fdma_cpl_str(cpl.status), cpl.len);
		fails++;
	} else if (xfer(&c2h, dst.bus, 0x1000, PAGE, &cpl, why, sizeof(why))) {
		printf("VMTEST FAIL dma_roundtrip: C2H: %s\n", why);
		fails++;
	} else if (cpl.status != FDMA_CPL_OK || cpl.len != PAGE) {
		printf("VMTEST FAIL dma_roundtrip: C2H completion status %u (%s), len %u\n",
		       cpl.status, fdma_cpl_str(cpl.status), cpl.len);
		fails++;
	} else if (memcmp(src.p, dst.p, PAGE)) {
		u32 i = 0;

		while (i < PAGE && src.p[i] == dst.p[i])
			i++;
		printf("VMTEST FAIL dma_roundtrip: data differ from byte %u (0x%02x, expected 0x%02x)\n",
		       i, dst.p[i], src.p[i]);
		fails++;
	} else {
		printf("VMTEST PASS dma_roundtrip\n");
	}

	/* dma_addr_err: C2H into the PCI hole */
	memset(dst.p, 0xee, PAGE);
	if (xfer(&c2h, BAD_BUS, 0x1000, PAGE, &cpl, why, sizeof(why))) {
		printf("VMTEST FAIL dma_addr_err: %s\n", why);
		fails++;
	} else if (cpl.status != FDMA_CPL_ADDR_ERR) {
		printf("VMTEST FAIL dma_addr_err: completion status %u (%s), expected ADDR_ERR\n",
		       cpl.status, fdma_cpl_str(cpl.status));
		fails++;
	} else {
		printf("dma_addr_err: bus 0x%llx: %s, CH_STATUS 0x%x\n", BAD_BUS, fdma_cpl_str(cpl.status),
		       ivdev_rd(&d, FDMA_CH_BASE(och) + FDMA_CH_STATUS));
		printf("VMTEST PASS dma_addr_err\n");
	}

	/* Leave the engine as a driver expects to find it: reset, disabled. */
	if ((ret = fdma_eng_reset(&plat, &caps, TIMEOUT_US))) {
		printf("VMTEST FAIL dma_pagemap: final engine reset: %d\n", ret);
		fails++;
	}
	fdma_eng_enable(&plat, &caps, false);
	return fails ? 1 : 0;

setup_fail:
	printf("VMTEST FAIL dma_roundtrip: %s\nVMTEST FAIL dma_addr_err: setup failed\n", why);
	return 1;
}
