// SPDX-License-Identifier: MIT
/*
 * fdma_dmac.ko's slave channels, on its node ($FDMA_VM_DEV, set by
 * dmac.sh) over fdma.ko's DMA_SLAVE provider: a C2H stream channel fed by
 * the engine's test generator and an H2C stream channel drained by its
 * checker (dmac.sh turns them on, and reads the checker's count after).
 *
 * dmac_c2h: 8 buffers of FRAME bytes armed with FDMA_IOC_SUBMIT, 64
 *   frames received and re-armed: each entry SOF|EOF with the frame's
 *   length, each frame's header (magic, length, consecutive numbers) and
 *   CRC-32 of its payload right.
 * dmac_h2c: 32 frames in the generator's format, numbered from 0, sent in
 *   batches of 8 requests (SOF|EOF each), then 8 frames of two requests
 *   each (SOF on the first, EOF on the second: one prep_slave_sg of two
 *   pieces); every completion without error. The checker's verdict is
 *   dmac.sh's ("frames 40 errors 0").
 * dmac_stream_bad: a C2H request of two pieces (EINVAL), an H2C frame of
 *   more pieces than the provider takes in one transfer (fails, the
 *   channel still carries the next frame).
 */
#include <zlib.h>

#include "fdma.h"	/* the test generator's frame header */
#include "vmioc.h"

#define FRAME 4096u
#define NBUF 8

static struct vi_dev d;

static void t_c2h(void)
{
	const char *T = "dmac_c2h";
	struct fdma_cq_entry e[NBUF];
	struct fdma_ioc_req r[NBUF];
	struct vi_buf b;
	uint32_t seq = 0;
	int got = 0;

	if (d.c2h_stream < 0 || vi_cq_map(&d, d.c2h_stream) || vi_alloc(&d, NBUF * FRAME, &b)) {
		vt_fail(T, "C2H stream channel %d, its queue, a buffer: %s", d.c2h_stream,
			strerror(errno));
		return;
	}
	for (int i = 0; i < NBUF; i++)
		r[i] = (struct fdma_ioc_req){ .handle = b.handle, .offset = (uint64_t)i * FRAME,
					      .len = FRAME, .user_data = (uint64_t)i };
	if (vi_submit(&d, d.c2h_stream, r, NBUF)) {
		vt_fail(T, "arm %d buffers: %s", NBUF, strerror(errno));
		return;
	}
	while (got < 64) {
		int n;

		if (vi_wait(&d, d.c2h_stream, 1, 10000000, NULL)) {
			vt_fail(T, "%d of 64 frames, then: %s", got, strerror(errno));
			return;
		}
		n = vi_cq_take(&d, d.c2h_stream, e, NBUF);
		for (int i = 0; i < n; i++, got++) {
			const uint8_t *p = b.p + e[i].user_data * FRAME;
			const struct fdma_testgen_hdr *h = (const void *)p;
			uint32_t crc;

			if (e[i].res || e[i].len != FRAME ||
			    (e[i].flags & (FDMA_IOC_CPL_SOF | FDMA_IOC_CPL_EOF)) !=
			    (FDMA_IOC_CPL_SOF | FDMA_IOC_CPL_EOF)) {
				vt_fail(T, "frame %d: res %d, len %llu, flags 0x%x", got, e[i].res,
					(unsigned long long)e[i].len, e[i].flags);
				return;
			}
			crc = (uint32_t)crc32(0, p + sizeof(*h), FRAME - sizeof(*h));
			if (!got)
				seq = h->seq;
			if (h->magic != FDMA_TESTGEN_MAGIC || h->len != FRAME || h->seq != seq ||
			    h->crc != crc) {
				vt_fail(T, "frame %d: magic 0x%x len %u seq %u (expected %u), crc %s",
					got, h->magic, h->len, h->seq, seq,
					h->crc == crc ? "right" : "wrong");
				return;
			}
			seq++;
			if (vi_submit(&d, d.c2h_stream, &r[e[i].user_data], 1)) {
				vt_fail(T, "re-arm buffer %llu: %s",
					(unsigned long long)e[i].user_data, strerror(errno));
				return;
			}
		}
	}
	/* The armed ones come back canceled: the channel is free for the next user. */
	if (vi_reset(&d, d.c2h_stream) || vi_collect(&d, d.c2h_stream, NULL, NBUF, 10000000)) {
		vt_fail(T, "reset and collect the armed buffers: %s", strerror(errno));
		return;
	}
	vt_info("64 frames of %u bytes, numbers %u..%u", FRAME, seq - 64, seq - 1);
	vi_free(&d, &b);
	vt_pass(T);
}

/* Frame k in the generator's format: header, words (seq << 32 | i), CRC. */
static void make_frame(uint8_t *p, uint32_t seq)
{
	struct fdma_testgen_hdr *h = (void *)p;
	uint64_t *w = (uint64_t *)(p + sizeof(*h));

	for (uint32_t i = 0; i < (FRAME - sizeof(*h)) / 8; i++)
		w[i] = (uint64_t)seq << 32 | i;
	*h = (struct fdma_testgen_hdr){ .magic = FDMA_TESTGEN_MAGIC, .seq = seq, .len = FRAME };
	h->crc = (uint32_t)crc32(0, p + sizeof(*h), FRAME - sizeof(*h));
}

static int h2c_send(const char *T, struct fdma_ioc_req *r, int n)
{
	struct fdma_cq_entry e[16];

	if (vi_submit(&d, d.h2c_stream, r, (uint32_t)n)) {
		vt_fail(T, "FDMA_IOC_SUBMIT of %d requests: %s", n, strerror(errno));
		return -1;
	}
	if (vi_collect(&d, d.h2c_stream, e, n, 10000000)) {
		vt_fail(T, "completions of %d requests: %s", n, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (e[i].res) {
			vt_fail(T, "request %llu: res %d", (unsigned long long)e[i].user_data,
				e[i].res);
			return -1;
		}
	return 0;
}

static void t_h2c(void)
{
	const char *T = "dmac_h2c";
	struct fdma_ioc_req r[16];
	struct vi_buf b;

	if (d.h2c_stream < 0 || vi_cq_map(&d, d.h2c_stream) || vi_alloc(&d, 40 * FRAME, &b)) {
		vt_fail(T, "H2C stream channel %d, its queue, a buffer: %s", d.h2c_stream,
			strerror(errno));
		return;
	}
	for (uint32_t k = 0; k < 40; k++)
		make_frame(b.p + (uint64_t)k * FRAME, k);
	for (int k = 0; k < 32; k += 8) {
		for (int i = 0; i < 8; i++)
			r[i] = (struct fdma_ioc_req){ .handle = b.handle,
						      .offset = (uint64_t)(k + i) * FRAME,
						      .len = FRAME, .user_data = (uint64_t)(k + i),
						      .flags = FDMA_IOC_REQ_SOF | FDMA_IOC_REQ_EOF };
		if (h2c_send(T, r, 8))
			return;
	}
	/* Frames 32..39 in two requests each: one transfer of two pieces. */
	for (int i = 0; i < 16; i++)
		r[i] = (struct fdma_ioc_req){ .handle = b.handle,
					      .offset = (uint64_t)(32 + i / 2) * FRAME +
							(i & 1) * (FRAME / 2),
					      .len = FRAME / 2, .user_data = (uint64_t)i,
					      .flags = (i & 1) ? FDMA_IOC_REQ_EOF : FDMA_IOC_REQ_SOF };
	if (h2c_send(T, r, 16))
		return;
	vi_free(&d, &b);
	vt_pass(T);
}

static void t_bad(void)
{
	const char *T = "dmac_stream_bad";
	struct fdma_ioc_req r[8];
	struct vi_buf a, b;

	/* Two buffers side by side: a request across both is two pieces. */
	if (vi_register(&d, 2 * 4096, 0, &a) || vi_alloc(&d, 8 * 4096, &b)) {
		vt_fail(T, "buffers: %s", strerror(errno));
		return;
	}
	r[0] = (struct fdma_ioc_req){ .handle = a.handle, .len = 8192 };
	if (vi_submit(&d, d.c2h_stream, r, 1) != -EINVAL) {
		/* Registered pages may happen to be contiguous: one piece, armed. */
		vi_reset(&d, d.c2h_stream);
		vi_collect(&d, d.c2h_stream, NULL, 1, 10000000);
		vt_info("a C2H request over two registered pages was one piece here");
	}
	free(a.raw);
	/* A frame of 8 requests: more pieces than fdma's provider takes (4). */
	for (int i = 0; i < 8; i++)
		r[i] = (struct fdma_ioc_req){ .handle = b.handle, .offset = (uint64_t)i * 512,
					      .len = 512, .user_data = (uint64_t)i,
					      .flags = (i == 0 ? FDMA_IOC_REQ_SOF : 0) |
						       (i == 7 ? FDMA_IOC_REQ_EOF : 0) };
	{
		struct fdma_cq_entry e[8];
		int errs = 0;

		if (vi_submit(&d, d.h2c_stream, r, 8) ||
		    vi_collect(&d, d.h2c_stream, e, 8, 10000000)) {
			vt_fail(T, "a frame of 8 requests: %s", strerror(errno));
			return;
		}
		for (int i = 0; i < 8; i++)
			errs += e[i].res != 0;
		if (!errs) {
			vt_fail(T, "a frame of 8 pieces went through a provider that takes 4");
			return;
		}
	}
	vi_free(&d, &b);
	vt_pass(T);
}

int main(void)
{
	int ret = vi_open(&d, NULL);

	if (ret) {
		vt_fail("dmac_stream", "open: %s", strerror(-ret));
		return 1;
	}
	t_c2h();
	t_h2c();
	t_bad();
	return 0;
}
