// SPDX-License-Identifier: MIT
/* What the device models share: time, link pacing, test frames. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "fdma_mcommon.h"

u64 fdma_mnow_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

void fdma_msleep_until(u64 t)
{
	u64 now = fdma_mnow_ns();

	if (t > now + 100000) {
		u64 s = t - 50000;
		struct timespec ts = { .tv_sec = (time_t)(s / 1000000000ull),
				       .tv_nsec = (long)(s % 1000000000ull) };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	while (fdma_mnow_ns() < t)
		fdma_cpu_relax();
}

u64 fdma_link_clock_reserve(struct fdma_link_clock *lc, u64 not_before, u64 cost)
{
	u64 start, done;

	pthread_mutex_lock(&lc->lock);
	start = lc->free_ns > not_before ? lc->free_ns : not_before;
	done = start + cost;
	lc->free_ns = done;
	pthread_mutex_unlock(&lc->lock);
	return done;
}

int fdma_tgen_build(struct fdma_tgen *g, u32 len, u64 t_ready)
{
	struct fdma_frame_hdr *h;
	u64 *w;
	size_t nwords, i;

	if (len > g->cap) {
		u8 *p = realloc(g->frame, len);

		if (!p)
			return -ENOMEM;
		g->frame = p;
		g->cap = len;
	}
	h = (struct fdma_frame_hdr *)g->frame;
	w = (u64 *)(g->frame + sizeof(*h));
	nwords = (len - sizeof(*h)) / 8;
	for (i = 0; i < nwords; i++)
		w[i] = (u64)g->seq << 32 | i;
	memset(g->frame + sizeof(*h) + nwords * 8, 0, len - sizeof(*h) - nwords * 8);
	h->magic = FDMA_FRAME_MAGIC;
	h->seq = g->seq;
	h->len = len;
	h->crc = crc32(0, g->frame + sizeof(*h), len - sizeof(*h));
	h->tstamp_ns = t_ready;
	h->rsvd = 0;
	g->len = len;
	g->off = 0;
	g->in_frame = true;
	return 0;
}

void fdma_tgen_free(struct fdma_tgen *g)
{
	free(g->frame);
	g->frame = NULL;
	g->cap = 0;
}

/*
 * The checker sees a byte stream, as the RTL's does: a frame's header may
 * come in several descriptors (a byte stream's pieces have any length).
 */
void fdma_tchk_feed(struct fdma_tchk *k, const u8 *data, u32 len, bool sof, bool eof)
{
	if (sof) {
		if (k->in_frame)
			k->errors++;		/* the previous frame never ended */
		k->in_frame = true;
		k->len = 0;
		k->crc = crc32(0, NULL, 0);
	} else if (!k->in_frame) {
		k->errors++;			/* data outside a frame */
		return;
	}
	if (k->len < sizeof(k->hdr)) {
		u32 n = (u32)sizeof(k->hdr) - k->len;

		if (n > len)
			n = len;
		memcpy((u8 *)&k->hdr + k->len, data, n);
		k->len += n;
		data += n;
		len -= n;
	}
	k->crc = crc32(k->crc, data, len);
	k->len += len;
	if (eof) {
		bool ok = k->len >= sizeof(k->hdr) && k->hdr.magic == FDMA_FRAME_MAGIC &&
			  k->hdr.len == k->len && k->hdr.crc == k->crc && k->hdr.seq == k->seq;

		k->seq = k->hdr.seq + 1;
		if (ok)
			k->frames++;
		else
			k->errors++;
		k->in_frame = false;
	}
}
