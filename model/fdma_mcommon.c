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

int fdma_mthread_start(pthread_t *t, const cpu_set_t *cpus, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int ret;

	if (!CPU_COUNT(cpus))
		return -pthread_create(t, NULL, fn, arg);
	ret = -pthread_attr_init(&attr);
	if (ret)
		return ret;
	ret = -pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus);
	if (!ret)
		ret = -pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return ret;
}

u64 fdma_mpoll_ns(const struct fdma_model_cfg *cfg, unsigned int def_us)
{
	return (cfg->poll_us == FDMA_POLL_DEFAULT ? def_us : cfg->poll_us) * 1000ull;
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

void fdma_frame_fill(u8 *p, u32 seq, u32 len, u64 tstamp_ns)
{
	struct fdma_frame_hdr h = { .magic = FDMA_FRAME_MAGIC, .seq = seq, .len = len,
				    .tstamp_ns = tstamp_ns };
	size_t nwords = (len - sizeof(h)) / 8, i;

	for (i = 0; i < nwords; i++) {
		u64 w = (u64)seq << 32 | i;

		memcpy(p + sizeof(h) + 8 * i, &w, 8);
	}
	memset(p + sizeof(h) + nwords * 8, 0, len - sizeof(h) - nwords * 8);
	h.crc = crc32(0, p + sizeof(h), len - sizeof(h));
	memcpy(p, &h, sizeof(h));
}

int fdma_tgen_build(struct fdma_tgen *g, u32 len, u64 t_ready)
{
	if (len > g->cap) {
		u8 *p = realloc(g->frame, len);

		if (!p)
			return -ENOMEM;
		g->frame = p;
		g->cap = len;
	}
	fdma_frame_fill(g->frame, g->seq, len, t_ready);
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
