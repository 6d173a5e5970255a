// SPDX-License-Identifier: MIT
/*
 * rtl-figures: cycle-accurate figures of the RTL engine (docs/studies/rtl.md).
 *
 * Everything here is counted in the engine's clocks (125 MHz), not wall
 * time: the harness paces both directions of the link in clocks (the link
 * model's TLP rate, gen2 x1 by default) and delays each read completion by
 * the model's round trip. Throughput is payload bytes over the clocks from
 * the doorbell to the last completion of a batch, beside the link model's
 * ceiling for the same transfer size (fdma_ceiling(), which charges the
 * descriptor fetch, completion record and write-back too).
 *
 * usage: rtl-figures [URI]   (default rtl:; e.g. rtl:gen=2,lanes=4)
 * Every byte moved is checked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdma_tools.h"
#include "fdma_mcommon.h"	/* the test frames' generator */
#include "fdma_rtl.h"

#define CLK_NS 8.0

static struct fdma_dev *dev;

static void die(const char *what, int ret)
{
	fprintf(stderr, "rtl-figures: %s: %d (%s): %s\n", what, ret, strerror(ret < 0 ? -ret : ret),
		dev ? fdma_errmsg(dev) : "");
	exit(1);
}

static void counts(struct fdma_rtl_counts *c)
{
	int ret = fdma_rtl_counts_get(dev, c);

	if (ret)
		die("fdma_rtl_counts_get", ret);
}

static void fill(uint8_t *p, size_t n, uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 131 + seed * 7 + (i >> 8)) ^ (i >> 16));
}

/*
 * Post n requests on channel ch at once and reap them all, each whole;
 * what the engine's edge counted meanwhile in *d.
 */
static void post_all(int ch, const struct fdma_req *r, unsigned int n, struct fdma_rtl_counts *d)
{
	struct fdma_cpl c[256];
	struct fdma_rtl_counts a, b;
	unsigned int got = 0;
	int ret;

	if (n > 256)
		die("post_all: too many requests", -EINVAL);
	counts(&a);
	ret = fdma_submit(dev, ch, r, n);
	if (ret != (int)n)
		die("fdma_submit", ret);
	while (got < n) {
		ret = fdma_reap(dev, ch, c + got, n - got, 1, 120 * 1000000);
		if (ret <= 0)
			die("fdma_reap", ret ? ret : -ETIMEDOUT);
		for (int i = 0; i < ret; i++)
			if (c[got + i].res || c[got + i].len != r[got + i].len)
				die("transfer", c[got + i].res);
		got += (unsigned int)ret;
	}
	counts(&b);
	d->cycles = b.cycles - a.cycles;
	d->tlps_up = b.tlps_up - a.tlps_up;
	d->tlps_down = b.tlps_down - a.tlps_down;
	d->msix = b.msix - a.msix;
	d->reordered = b.reordered - a.reordered;
	d->bad_tlps = b.bad_tlps - a.bad_tlps;
}

/* n transfers of sz bytes on channel ch, all posted at once; clocks taken. */
static uint64_t run(int ch, int buf, uint64_t sz, unsigned int n, struct fdma_rtl_counts *d)
{
	struct fdma_req r[256];

	for (unsigned int i = 0; i < n; i++)
		r[i] = (struct fdma_req){ .buf = buf, .offset = i * sz, .card_addr = i * sz,
					  .len = sz, .user_data = i };
	post_all(ch, r, n, d);
	return d->cycles;
}

static void throughput(void)
{
	static const uint64_t sizes[] = { 4096, 16384, 65536, 262144, 1 << 20, 4 << 20 };
	const uint64_t total = 8 << 20;
	int src = fdma_buf_alloc(dev, total, 0), dst = fdma_buf_alloc(dev, total, 0);
	uint8_t *ps, *pd;

	if (src < 0 || dst < 0)
		die("fdma_buf_alloc", src < 0 ? src : dst);
	ps = fdma_buf_addr(dev, src);
	pd = fdma_buf_addr(dev, dst);
	printf("| size | dir | transfers | clocks | MB/s (RTL) | MB/s (link model) | RTL / model | TLPs up | TLPs down |\n");
	printf("|---|---|---|---|---|---|---|---|---|\n");
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint64_t sz = sizes[k];
		unsigned int n = (unsigned int)(total / sz > 64 ? 64 : total / sz);

		if (n < 2)
			n = 2;
		fill(ps, n * sz, sz);
		memset(pd, 0, n * sz);
		for (int dir = 0; dir < 2; dir++) {
			struct fdma_rtl_counts d;
			double mbps, ceil = 0;

			run(dir, dir ? dst : src, sz, n, &d);
			mbps = (double)(n * sz) / (d.cycles * CLK_NS * 1e-9) / 1e6;
			fdma_ceiling(dev, dir ? FDMA_C2H : FDMA_H2C, sz, &ceil);
			printf("| %llu KiB | %s | %u | %llu | %.1f | %.1f | %.1f%% | %.1f | %.1f |\n",
			       (unsigned long long)sz >> 10, dir ? "C2H" : "H2C", n,
			       (unsigned long long)d.cycles, mbps, ceil, 100 * mbps / ceil,
			       (double)d.tlps_up / n, (double)d.tlps_down / n);
			if (d.bad_tlps)
				die("a TLP broke the link's rules", -EPROTO);
		}
		if (memcmp(ps, pd, n * sz))
			die("data after the round trip differs", -EIO);
	}
	fdma_buf_free(dev, src);
	fdma_buf_free(dev, dst);
}

/* One small transfer at a time: what a descriptor costs beyond its data. */
static void overhead(void)
{
	int buf = fdma_buf_alloc(dev, 4096, 0);

	if (buf < 0)
		die("fdma_buf_alloc", buf);
	fill(fdma_buf_addr(dev, buf), 4096, 1);
	printf("| transfer | dir | clocks, doorbell to completion (median of 9) | TLPs up | TLPs down |\n");
	printf("|---|---|---|---|---|\n");
	for (int dir = 0; dir < 2; dir++)
		for (uint64_t sz = 64; sz <= 4096; sz *= 64) {
			uint64_t cyc[9];
			struct fdma_rtl_counts d;

			for (int i = 0; i < 9; i++)
				cyc[i] = run(dir, buf, sz, 1, &d);
			for (int i = 0; i < 9; i++)
				for (int j = i + 1; j < 9; j++)
					if (cyc[j] < cyc[i]) {
						uint64_t t = cyc[i];

						cyc[i] = cyc[j];
						cyc[j] = t;
					}
			printf("| %llu B, one at a time | %s | %llu | %llu | %llu |\n",
			       (unsigned long long)sz, dir ? "C2H" : "H2C", (unsigned long long)cyc[4],
			       (unsigned long long)d.tlps_up, (unsigned long long)d.tlps_down);
		}
	fdma_buf_free(dev, buf);
}

/* MSI-X messages against the coalescing rule: 64 transfers in one batch. */
static void coalescing(void)
{
	static const unsigned int coal[] = { 1, 4, 16, 64 };
	const unsigned int n = 64;
	int buf = fdma_buf_alloc(dev, n * 4096, 0);

	if (buf < 0)
		die("fdma_buf_alloc", buf);
	printf("| COAL_COUNT | transfers | MSI-X messages | rule: ceil(n / count) |\n");
	printf("|---|---|---|---|\n");
	for (size_t k = 0; k < sizeof(coal) / sizeof(coal[0]); k++) {
		struct fdma_rtl_counts d;
		int ret = fdma_chan_set_coalesce(dev, 1, coal[k], 0);

		if (ret)
			die("fdma_chan_set_coalesce", ret);
		if ((ret = fdma_chan_set_wait(dev, 1, FDMA_WAIT_SLEEP, 0)))
			die("fdma_chan_set_wait", ret);
		run(1, buf, 4096, n, &d);
		printf("| %u | %u | %llu | %u |\n", coal[k], n, (unsigned long long)d.msix,
		       (n + coal[k] - 1) / coal[k]);
	}
	fdma_buf_free(dev, buf);
}

/*
 * H2C byte streams: 1500-byte frames to the checker, 64 at once, from
 * aligned buffers in one piece, from offset 2 (a packet behind its
 * Ethernet header's alignment), and as a packet's three pieces (a 66-byte
 * head at offset 2, then 700 and 734 bytes at odd offsets).
 */
static void byte_streams(void)
{
	enum { LEN = 1500, N = 64, SLOT = 2048 };
	static const struct {
		const char *what;
		uint32_t off[3], len[3];
		unsigned int pieces;
	} shapes[] = {
		{ "aligned, one piece", { 0 }, { LEN }, 1 },
		{ "offset 2, one piece", { 2 }, { LEN }, 1 },
		{ "three pieces, odd offsets", { 2, 2048 - 700 - 1, 2048 - 734 - 3 }, { 66, 700, 734 }, 3 },
	};
	int ch = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_STREAM);
	int buf = fdma_buf_alloc(dev, (size_t)N * 3 * SLOT, 0);
	uint8_t *p;
	uint32_t seq = 0;
	uint64_t fr0 = 0, er0 = 0;

	if (ch < 0 || buf < 0)
		die("byte streams: channel or buffer", ch < 0 ? ch : buf);
	p = fdma_buf_addr(dev, buf);
	if (fdma_chan_set_testgen(dev, ch, 64, 0, 1))
		die("fdma_chan_set_testgen", -EIO);
	printf("| 1500-byte frames | descriptors | clocks per frame | MB/s (RTL) | TLPs up per frame | checker: good, bad |\n");
	printf("|---|---|---|---|---|---|\n");
	for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
		struct fdma_req r[3 * N];
		struct fdma_rtl_counts d;
		unsigned int nr = 0;
		uint64_t fr, er;
		uint8_t frame[LEN];

		for (unsigned int i = 0; i < N; i++) {
			uint32_t done = 0;

			fdma_frame_fill(frame, seq++, LEN, 0);
			for (unsigned int j = 0; j < shapes[k].pieces; j++) {
				uint64_t off = (uint64_t)(i * 3 + j) * SLOT + shapes[k].off[j];

				memcpy(p + off, frame + done, shapes[k].len[j]);
				r[nr++] = (struct fdma_req){ .buf = buf, .offset = off, .len = shapes[k].len[j],
					.flags = (j == 0 ? FDMA_REQ_SOF : 0) |
						 (j == shapes[k].pieces - 1 ? FDMA_REQ_EOF : 0) };
				done += shapes[k].len[j];
			}
		}
		post_all(ch, r, nr, &d);
		if (fdma_chan_testgen_counts(dev, ch, &fr, &er))
			die("fdma_chan_testgen_counts", -EIO);
		printf("| %s | %u | %.0f | %.1f | %.1f | %llu, %llu |\n", shapes[k].what, nr / N,
		       (double)d.cycles / N, (double)N * LEN / (d.cycles * CLK_NS * 1e-9) / 1e6,
		       (double)d.tlps_up / N, (unsigned long long)(fr - fr0),
		       (unsigned long long)(er - er0));
		if (fr - fr0 != N || er != er0)
			die("the checker did not count every frame good", -EIO);
		fr0 = fr;
		er0 = er;
	}
	fdma_chan_set_testgen(dev, ch, 64, 0, 0);
	fdma_buf_free(dev, buf);
}

int main(int argc, char **argv)
{
	const char *uri = argc > 1 ? argv[1] : "rtl:";
	char err[256] = "";
	struct fdma_info in;
	int ret;

	if (argc > 2 || (argc == 2 && !strcmp(argv[1], "--help"))) {
		fprintf(stderr, "usage: rtl-figures [rtl:OPTIONS]\n");
		return argc == 2 ? 0 : 2;
	}
	ret = fdma_open(&dev, uri, err, sizeof(err));
	if (ret)
		die(err, ret);
	fdma_get_info(dev, &in);
	printf("# %s; link %u MB/s write, %u MB/s read ceilings\n\n", in.name,
	       (unsigned int)in.link.write_mbps, (unsigned int)in.link.read_mbps);
	throughput();
	printf("\n");
	overhead();
	printf("\n");
	coalescing();
	printf("\n");
	byte_streams();
	fdma_close(dev);
	return 0;
}
