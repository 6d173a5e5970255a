// SPDX-License-Identifier: MIT
/*
 * The measuring loop of fdma bench and fdma soak (bench_run.h).
 *
 * Two batches are kept in flight: while the device works on one, the host
 * reaps and checks the other and resubmits it with one doorbell. Transfer t
 * uses buffer slot t % depth and card region t % regions, so a slot's
 * consecutive uses always see different data and a buffer the device failed
 * to write is caught as stale.
 *
 * C2H: each buffer is checked against its region's pattern as it arrives.
 * H2C: once a batch has landed, its regions are read back through the C2H
 * channel (the other link direction) and checked against the source slot's
 * pattern. 2 * depth + 1 regions keep every region in flight or being read
 * back distinct, so a read-back never races the next write to its region.
 *
 * --mem dmabuf: the slots are an imported dma-buf the CPU never touches,
 * as GPU memory would be; set-up and checks go through the card (struct
 * bench_cardchk).
 *
 * A region's pattern is tagged with its card address, a slot's with a
 * generation of its own (region_tag(), slot_tag()).
 */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench_run.h"

static double model_cpu(struct fdma_dev *dev)
{
	double s = 0;

	fdma_model_cpu(dev, &s);
	return s;
}

/* "fdma CMD: ..." on stderr. */
static void say(const struct bench_run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(const struct bench_run *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fdma %s: ", r->o->cmd ? r->o->cmd : "bench");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * The patterns' tags. A card region's is its card address, so a transfer
 * that reached the wrong address (another window of a card sweep
 * included) reads or leaves the wrong pattern. A host slot's (H2C's
 * source) is new at every bench_run_slots(), so what a region kept from an
 * earlier run never passes for this one's data.
 */
static uint64_t region_tag(const struct bench_run *r, uint64_t region)
{
	return r->card_base + region * r->size;
}

static uint64_t slot_tag(const struct bench_run *r, uint64_t slot)
{
	return (1ull << 62) | (r->slot_gen << 24) | slot;
}

/*
 * Copy mode: the source buffer holds the regions card memory holds in the
 * other modes, so a request's card_addr is an offset into it; cps has room
 * for a batch.
 */
static int run_submit_reqs(struct bench_run *r, int ch, const struct fdma_req *reqs, unsigned int n)
{
	const struct bench_copy_src *cs = ch == r->ch ? r->cs : NULL;

	if (!cs)
		return fdma_submit(r->dev, ch, reqs, n);
	for (unsigned int i = 0; i < n; i++)
		cs->cps[i] = (struct fdma_copy){ .src_buf = cs->buf, .dst_buf = reqs[i].buf,
			.src_offset = reqs[i].card_addr, .dst_offset = reqs[i].offset,
			.len = reqs[i].len, .user_data = reqs[i].user_data };
	return fdma_submit_copy(r->dev, ch, cs->cps, n);
}

/*
 * H2C checking: read back the regions a batch wrote, over the C2H channel.
 * It runs one iteration behind, beside the next H2C batch, so checking
 * never stalls the data path; its CPU counts as checking CPU.
 */
static int readback_collect(struct bench_run *r, struct bench_res *res)
{
	struct bench_readback *rb = &r->rb;
	unsigned int got = 0;

	while (got < rb->pending) {
		int m = fdma_reap(r->dev, rb->ch, rb->cpl + got, rb->pending - got,
				  rb->pending - got, 5000000);

		if (m < 0) {
			say(r, "read-back: %s", fdma_errmsg(r->dev));
			return -1;
		}
		got += (unsigned int)m;
	}
	for (unsigned int j = 0; j < rb->pending; j++) {
		/* Completions come in order: cpl[j] is req[j], read into slot j. */
		if (rb->cpl[j].res ||
		    tool_pat_check(rb->base + (uint64_t)j * r->size, r->size,
				   slot_tag(r, rb->cpl[j].user_data % r->depth)))
			res->errors++;
		res->bytes_checked += r->size;
	}
	rb->pending = 0;
	return 0;
}

static int readback_submit(struct bench_run *r, int n)
{
	struct bench_readback *rb = &r->rb;
	unsigned int k = 0;

	for (int i = 0; i < n; i++) {
		if (r->cpls[i].res)
			continue;
		rb->req[k] = (struct fdma_req){ .buf = rb->buf, .offset = (uint64_t)k * r->size,
			.card_addr = region_tag(r, r->cpls[i].user_data % r->regions), .len = r->size,
			.user_data = r->cpls[i].user_data };
		k++;
	}
	if (k && fdma_submit(r->dev, rb->ch, rb->req, k) < 0) {
		say(r, "read-back: %s", fdma_errmsg(r->dev));
		return -1;
	}
	rb->pending = k;
	return 0;
}

/*
 * C2H into a dma-buf the CPU does not read (--mem dmabuf): the slots of a
 * landed batch are copied to scratch card regions over the H2C channel
 * before they are armed again, then read from there into a host buffer on
 * the C2H channel, queued behind the data, and checked as they are reaped
 * (their completions carry CHK_TAG). Reads are queued at once, so at most
 * two batches of them are in flight: 3 * batch scratch regions are never
 * reused early.
 */
#define CHK_TAG (1ull << 63)

static int cardchk_landed(struct bench_run *r, int n)
{
	struct bench_cardchk *cc = &r->cc;
	const struct fdma_cpl *done = r->cpls;
	uint64_t size = r->size;
	unsigned int k = 0, got = 0;

	for (int i = 0; i < n; i++) {
		unsigned int sidx;

		if (done[i].res || (done[i].user_data & CHK_TAG))
			continue;
		sidx = cc->next++ % cc->nscr;
		cc->scr_t[sidx] = done[i].user_data;
		cc->req[k++] = (struct fdma_req){ .buf = r->buf,
			.offset = (done[i].user_data % r->depth) * size,
			.card_addr = cc->scratch + sidx * size, .len = size, .user_data = sidx };
	}
	if (!k)
		return 0;
	/* The bound the scratch count rests on (see above). */
	if (cc->inflight + k > cc->nscr) {
		say(r, "card check: %u reads in flight, scratch for %u", cc->inflight + k, cc->nscr);
		return -1;
	}
	if (fdma_submit(r->dev, cc->h2c, cc->req, k) < 0)
		goto fail;
	while (got < k) {
		int m = fdma_reap(r->dev, cc->h2c, cc->cpl + got, k - got, k - got, 5000000);

		if (m < 0)
			goto fail;
		got += (unsigned int)m;
	}
	for (unsigned int j = 0; j < k; j++) {
		if (cc->cpl[j].res) {
			say(r, "card check: copy to the card: status %u (%s)", cc->cpl[j].status,
			    strerror(-cc->cpl[j].res));
			return -1;
		}
		cc->req[j] = (struct fdma_req){ .buf = cc->buf, .offset = cc->req[j].user_data * size,
			.card_addr = cc->req[j].card_addr, .len = size,
			.user_data = CHK_TAG | cc->req[j].user_data };
	}
	if (fdma_submit(r->dev, r->ch, cc->req, k) < 0)
		goto fail;
	cc->inflight += k;
	return 0;
fail:
	say(r, "card check: %s", fdma_errmsg(r->dev));
	return -1;
}

/* A read-back's completion: the scratch region's copy against its transfer's region. */
static void cardchk_reaped(struct bench_run *r, const struct fdma_cpl *c, struct bench_res *res)
{
	struct bench_cardchk *cc = &r->cc;
	unsigned int sidx = (unsigned int)(c->user_data & ~CHK_TAG);

	cc->inflight--;
	if (c->res || tool_pat_check(cc->base + (uint64_t)sidx * r->size, r->size,
				     region_tag(r, cc->scr_t[sidx] % r->regions)))
		res->errors++;
	res->bytes_checked += r->size;
}

/*
 * Latency without queueing: one transfer at a time, submitted and waited
 * for in the run's wait mode, for at most 200 transfers or a tenth of a
 * second (a quarter of the run if shorter). Slot 0 and region 0: the
 * data was checked by the run; here only the completion status counts.
 */
void bench_run_idle_latency(struct bench_run *r, struct bench_res *res)
{
	const struct bench_opts *o = r->o;
	struct tool_lat l = { 0 };
	double tend = tool_now() + (o->seconds / 4 < 0.1 ? o->seconds / 4 : 0.1);

	for (uint64_t i = 0; i < 200 && !tool_stop_requested(); i++) {
		struct fdma_req rq = { .buf = r->buf, .card_addr = r->card_base, .len = r->size,
				       .user_data = i };
		struct fdma_cpl c;
		double t = tool_now();

		if (i && t > tend)
			break;
		if (run_submit_reqs(r, r->ch, &rq, 1) < 0)
			break;
		if (fdma_reap(r->dev, r->ch, &c, 1, 1, 5000000) != 1) {
			say(r, "idle latency: %s", fdma_errmsg(r->dev));
			bench_run_recover(r);
			break;
		}
		tool_lat_add(&l, (tool_now() - t) * 1e6);
		if (c.res)
			res->errors++;
	}
	res->idle_n = l.n;
	res->idle_p50 = tool_lat_pct(&l, 50);
	res->idle_p99 = tool_lat_pct(&l, 99);
	tool_lat_free(&l);
}

void bench_res_rates(struct bench_res *res, const struct fdma_chan_stats *st0,
		     const struct fdma_chan_stats *st1, struct tool_lat *lat)
{
	res->interrupts = st1->interrupts - st0->interrupts;
	res->wakeups = st1->wakeups - st0->wakeups;
	res->wakeups_per_s = res->wakeups / res->secs;
	res->irqs_per_s = res->interrupts / res->secs;
	if (st1->completions > st0->completions)
		res->irqs_per_cpl = (double)res->interrupts / (st1->completions - st0->completions);
	res->transfers_per_s = res->transfers / res->secs;
	res->mbps = res->bytes / res->secs / 1e6;
	if (res->bytes)
		res->cpu_s_per_gb = res->cpu_pct / 100 * res->secs / (res->bytes / 1e9);
	res->p50 = tool_lat_pct(lat, 50);
	res->p99 = tool_lat_pct(lat, 99);
}

int bench_run_open(struct bench_run *r, struct fdma_dev *dev, const struct bench_opts *o,
		   int ch, uint64_t size, struct bench_res *res)
{
	unsigned int b = o->batch;
	int fl;

	memset(r, 0, sizeof(*r));
	r->dev = dev;
	r->o = o;
	r->ch = ch;
	r->size = size;
	r->depth = 2 * b;
	r->buf = -1;
	r->stage = -1;
	r->rb = (struct bench_readback){ .ch = -1, .buf = -1,
					 .req = calloc(b, sizeof(struct fdma_req)),
					 .cpl = calloc(b, sizeof(struct fdma_cpl)) };
	r->src = (struct bench_copy_src){ .buf = -1, .cps = calloc(b, sizeof(struct fdma_copy)) };
	r->cs = o->copy ? &r->src : NULL;
	/* C2H into a dma-buf: 3 * batch scratch regions after the data's (struct bench_cardchk). */
	r->card_chk = o->dmabuf && o->dir == FDMA_C2H;
	r->cc = (struct bench_cardchk){ .h2c = -1, .buf = -1, .nscr = r->card_chk ? 3 * b : 0,
					.scr_t = calloc(3 * b, sizeof(uint64_t)),
					.req = calloc(b, sizeof(struct fdma_req)),
					.cpl = calloc(b, sizeof(struct fdma_cpl)) };
	r->reqs = calloc(b, sizeof(*r->reqs));
	r->cpls = calloc(b, sizeof(*r->cpls));
	r->sub_time = calloc(r->depth, sizeof(*r->sub_time));
	if (!r->reqs || !r->cpls || !r->sub_time || !r->rb.req || !r->rb.cpl || !r->src.cps ||
	    !r->cc.scr_t || !r->cc.req || !r->cc.cpl) {
		say(r, "out of memory");
		return -1;
	}
	fdma_get_info(dev, &r->info);
	if (o->dmabuf) {
		r->buf = tool_dmabuf_import(o->cmd ? o->cmd : "bench", dev, size * r->depth,
					    &res->exporter);
	} else if (o->register_mem) {
		/*
		 * Its own mapping, not malloc's: given back whole at the close, so
		 * the process's RSS says what a registration kept (fdma soak).
		 */
		r->user_len = (size * r->depth + 4095) & ~(size_t)4095;
		r->user_mem = mmap(NULL, r->user_len, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (r->user_mem == MAP_FAILED) {
			r->user_mem = NULL;
			say(r, "out of memory for %zu bytes to register", r->user_len);
			return -1;
		}
		r->buf = fdma_buf_register(dev, r->user_mem, size * r->depth);
	} else {
		r->buf = fdma_buf_alloc(dev, size * r->depth, o->hugepages ? FDMA_BUF_HUGEPAGE : 0);
	}
	if (r->buf < 0) {
		if (!o->dmabuf)
			say(r, "%s", fdma_errmsg(dev));
		return -1;
	}
	/* The CPU never touches a dma-buf's slots, even one it could map: GPU memory's case. */
	r->base = o->dmabuf ? NULL : fdma_buf_addr(dev, r->buf);
	fl = fdma_buf_flags(dev, r->buf);
	res->huge_used = fl > 0 && (fl & FDMA_BUF_HUGEPAGE);
	/* Set-up data goes to the card from here: slot 0, or a host buffer of its own. */
	if (o->dmabuf) {
		r->stage = fdma_buf_alloc(dev, size, 0);
		if (r->stage < 0) {
			say(r, "%s", fdma_errmsg(dev));
			return -1;
		}
		r->stage_base = fdma_buf_addr(dev, r->stage);
	} else {
		r->stage_base = r->base;
	}
	if (r->card_chk) {
		r->cc.h2c = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MM);
		r->cc.buf = fdma_buf_alloc(dev, size * r->cc.nscr, 0);
		if (r->cc.h2c < 0 || r->cc.buf < 0 || fdma_chan_set_wait(dev, r->cc.h2c, o->wait, 0)) {
			say(r, "card check set-up: %s", fdma_errmsg(dev));
			return -1;
		}
		r->cc.base = fdma_buf_addr(dev, r->cc.buf);
	}
	if (o->dir == FDMA_H2C) {
		r->rb.ch = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM);
		r->rb.buf = fdma_buf_alloc(dev, size * o->batch, 0);
		if (r->rb.ch < 0 || r->rb.buf < 0 || fdma_chan_set_wait(dev, r->rb.ch, o->wait, 0)) {
			say(r, "read-back set-up: %s", fdma_errmsg(dev));
			return -1;
		}
		r->rb.base = fdma_buf_addr(dev, r->rb.buf);
	}
	if (o->copy) {
		r->regions = r->depth + 1;
		r->src.buf = fdma_buf_alloc(dev, size * r->regions,
					    o->hugepages ? FDMA_BUF_HUGEPAGE : 0);
		if (r->src.buf < 0) {
			say(r, "copy source: %s", fdma_errmsg(dev));
			return -1;
		}
		for (unsigned int i = 0; i < r->regions; i++)
			tool_pat_fill((uint8_t *)fdma_buf_addr(dev, r->src.buf) + (uint64_t)i * size,
				      size, region_tag(r, i));
	}
	fdma_ceiling(dev, o->dir, size, &res->ceiling);
	if (o->copy) {
		double rd = 0;

		/* A copy crosses the link both ways: the slower direction bounds it. */
		fdma_ceiling(dev, FDMA_H2C, size, &rd);
		if (rd < res->ceiling)
			res->ceiling = rd;
	}
	return 0;
}

/* Regions a window gives transfers of a direction: wanted, the fewest, and beside them. */
static void window_regions(unsigned int batch, int dmabuf, enum fdma_dir dir, unsigned int *want,
			   unsigned int *need, unsigned int *extra)
{
	unsigned int depth = 2 * batch;

	/* H2C's read-backs need every region in flight distinct (see the top). */
	*want = dir == FDMA_H2C ? 2 * depth + 1 : depth + 1;
	*need = dir == FDMA_H2C ? *want : 2;
	/* A card check's scratch; a dma-buf's slots are set through a region of the window's own. */
	*extra = (dmabuf && dir == FDMA_C2H ? 3 * batch : 0) + (dmabuf ? 1 : 0);
}

uint64_t bench_run_min_window(unsigned int batch, int dmabuf, enum fdma_dir dir, uint64_t size)
{
	unsigned int want, need, extra;

	window_regions(batch, dmabuf, dir, &want, &need, &extra);
	return (uint64_t)(need + extra) * size;
}

int bench_run_window(struct bench_run *r, uint64_t base, uint64_t len)
{
	const struct bench_opts *o = r->o;
	struct fdma_dev *dev = r->dev;
	uint64_t size = r->size, fit;
	unsigned int want, need, extra;

	window_regions(o->batch, o->dmabuf, o->dir, &want, &need, &extra);
	if (o->copy)
		return 0;
	if (base > r->info.card_size || len > r->info.card_size - base) {
		say(r, "card window 0x%" PRIx64 "+0x%" PRIx64 " is past the card's memory (%" PRIu64
		    " bytes)", base, len, r->info.card_size);
		return -1;
	}
	fit = len / size;
	if (fit < need + extra) {
		say(r, "card memory (%" PRIu64 " bytes%s) too small for %u regions of %" PRIu64
		    " bytes", len, len < r->info.card_size ? " of the window" : "", need + extra,
		    size);
		return -1;
	}
	r->card_base = base;
	r->regions = fit - extra < want ? (unsigned int)(fit - extra) : want;
	r->cc.scratch = base + (uint64_t)r->regions * size;
	r->view_addr = r->cc.scratch + (uint64_t)r->cc.nscr * size;
	/* Card regions hold their own patterns (C2H reads them); host slots theirs (H2C). */
	for (unsigned int i = 0; i < r->regions && o->dir == FDMA_C2H; i++) {
		tool_pat_fill(r->stage_base, size, region_tag(r, i));
		if (fdma_write_card(dev, o->dmabuf ? r->stage : r->buf, 0, region_tag(r, i), size)) {
			say(r, "preparing card memory: %s", fdma_errmsg(dev));
			return -1;
		}
	}
	return 0;
}

int bench_run_slots(struct bench_run *r)
{
	const struct bench_opts *o = r->o;

	r->slot_gen++;
	for (unsigned int s = 0; s < r->depth; s++) {
		uint8_t *p = r->base ? r->base + (uint64_t)s * r->size : r->stage_base;

		if (o->dir == FDMA_C2H)
			memset(p, 0, r->size);
		else
			tool_pat_fill(p, r->size, slot_tag(r, s));
		if (!r->base && tool_card_view(r->dev, r->stage, 0, r->buf, (uint64_t)s * r->size,
					       r->size, r->view_addr)) {
			say(r, "preparing the dma-buf: %s", fdma_errmsg(r->dev));
			return -1;
		}
	}
	return 0;
}

/* Transfer t's request: slot t % depth, card region t % regions. */
static struct fdma_req run_req(const struct bench_run *r, uint64_t t)
{
	return (struct fdma_req){ .buf = r->buf, .offset = (t % r->depth) * r->size,
		.card_addr = region_tag(r, t % r->regions), .len = r->size, .user_data = t };
}

/*
 * Submit n requests of r->reqs, each slot's latency counted from now: 0,
 * or the library's error (not said: the caller knows whether it is one).
 */
static int run_submit(struct bench_run *r, unsigned int n)
{
	double now = tool_now();
	int ret;

	for (unsigned int i = 0; i < n; i++)
		r->sub_time[r->reqs[i].user_data % r->depth] = now;
	ret = run_submit_reqs(r, r->ch, r->reqs, n);
	return ret < 0 ? ret : 0;
}

/*
 * n completions reaped at now: latencies, counts, and (C2H into host
 * memory) each slot against its region's pattern; a card check's read
 * (CHK_TAG) against the region it copied.
 */
static void run_check(struct bench_run *r, int n, double now, struct bench_res *res)
{
	for (int i = 0; i < n; i++) {
		const struct fdma_cpl *c = &r->cpls[i];
		unsigned int slot = (unsigned int)(c->user_data % r->depth);
		unsigned int region = (unsigned int)(c->user_data % r->regions);

		if (c->user_data & CHK_TAG) {
			cardchk_reaped(r, c, res);
			continue;
		}
		res->transfers++;
		/* Never sent: a time for it would be the failed one's wait, not a transfer's. */
		if (c->res == -ECANCELED) {
			res->canceled++;
			continue;
		}
		if (r->lat_cb)
			r->lat_cb(r->lat_arg, (now - r->sub_time[slot]) * 1e6);
		else
			tool_lat_add(&r->lat, (now - r->sub_time[slot]) * 1e6);
		if (c->res) {
			res->errors++;
			continue;
		}
		res->bytes += c->len;
		if (r->o->dir == FDMA_C2H && r->base) {
			if (tool_pat_check(r->base + (uint64_t)slot * r->size, r->size,
					   region_tag(r, region)))
				res->errors++;
			res->bytes_checked += r->size;
		}
	}
}

/* The n reaped transfers' slots armed again, each for transfer t + depth. */
static int run_rearm(struct bench_run *r, int n)
{
	unsigned int m = 0;

	for (int i = 0; i < n; i++)
		if (!(r->cpls[i].user_data & CHK_TAG))
			r->reqs[m++] = run_req(r, r->cpls[i].user_data + r->depth);
	/* Latency starts here, not at the reap: checking the batch is not the device's time. */
	return m ? run_submit(r, m) : 0;
}

/* The first two batches: transfers 0 .. 2 * batch - 1. */
static int run_start(struct bench_run *r)
{
	uint64_t t = 0;

	for (int b = 0; b < 2; b++) {
		for (unsigned int i = 0; i < r->o->batch; i++)
			r->reqs[i] = run_req(r, t++);
		if (run_submit(r, r->o->batch)) {
			say(r, "submit: %s", fdma_errmsg(r->dev));
			return -1;
		}
	}
	return 0;
}

/*
 * The timed loop: two batches in flight (run_start()); each reap checked and its slots
 * armed again, until the run's time is up (or Ctrl-C), then drained. The
 * data window ends at the last completion (H2C: not after its read-back).
 * After a failed transfer the library resets the channel and refuses new
 * requests (-EAGAIN) until what it canceled is reaped, which can come
 * before the failed completion is reaped: the loop then stops submitting
 * and drains, and counts the failure there.
 */
static int run_measure(struct bench_run *r, struct bench_res *res, struct tool_progress *prog,
		       double t0, double *tend)
{
	const struct bench_opts *o = r->o;
	struct fdma_dev *dev = r->dev;
	double t_last = 0;
	int stopping = 0, inflight, ret = 0;

	while ((inflight = fdma_inflight(dev, r->ch)) > 0) {
		/* Read-backs (--mem dmabuf) leave counts that are not whole batches. */
		unsigned int want = (unsigned int)inflight < o->batch ? (unsigned int)inflight : o->batch;
		int n = fdma_reap(dev, r->ch, r->cpls, o->batch, want, 5000000);
		double now, vstart;
		int err;

		if (n < 0) {
			say(r, "reap: %s", fdma_errmsg(dev));
			ret = -1;
			break;
		}
		now = tool_now();
		t_last = now;
		/* One CPU-clock read per batch: the clock itself is a system call. */
		vstart = o->dir == FDMA_C2H && n ? tool_thread_cpu() : 0;
		run_check(r, n, now, res);
		/* Copied out before the slots are armed again below. */
		if (r->card_chk && cardchk_landed(r, n)) {
			ret = -1;
			break;
		}
		if (vstart)
			r->verify += tool_thread_cpu() - vstart;
		/* Ctrl-C: stop submitting, drain, and report what was measured. */
		if (!stopping && (now - t0 >= o->seconds || tool_stop_requested())) {
			stopping = 1;
			res->interrupted = now - t0 < o->seconds;
		}
		if (prog && tool_progress_due(prog))
			tool_progress_show(prog, "  %" PRIu64 " bytes: %.1f s of %g, %.1f MB/s, errors %" PRIu64,
					   r->size, now - t0, o->seconds, res->bytes / (now - t0) / 1e6,
					   res->errors);
		if (!stopping && (err = run_rearm(r, n))) {
			/* Reset after an error this loop reaps as it drains. */
			if (err == -EAGAIN) {
				stopping = 1;
			} else {
				say(r, "submit: %s", fdma_errmsg(dev));
				ret = -1;
				break;
			}
		}
		if (o->dir == FDMA_H2C && n > 0) {
			double v0 = tool_thread_cpu();

			if (readback_collect(r, res) || readback_submit(r, n)) {
				ret = -1;
				break;
			}
			r->verify += tool_thread_cpu() - v0;
		}
	}
	if (o->dir == FDMA_H2C) {
		double v0 = tool_thread_cpu();

		if (!ret && readback_collect(r, res))
			ret = -1;
		r->verify += tool_thread_cpu() - v0;
	}
	*tend = o->dir == FDMA_H2C ? t_last : tool_now();
	return ret;
}

int bench_run_measure(struct bench_run *r, struct bench_res *res, struct tool_progress *prog)
{
	struct fdma_chan_stats st0, st1;
	double t0, tend = 0, cpu0, pcpu0, mcpu0;
	int ret;

	r->lat.n = 0;
	r->verify = 0;
	fdma_chan_stats(r->dev, r->ch, &st0);
	t0 = tool_now();
	cpu0 = tool_thread_cpu();
	pcpu0 = tool_proc_cpu();
	mcpu0 = model_cpu(r->dev);
	ret = run_start(r);
	if (!ret)
		ret = run_measure(r, res, prog, t0, &tend);
	res->secs = (tend > t0 ? tend : tool_now()) - t0;
	res->cpu_pct = (tool_thread_cpu() - cpu0 - r->verify) / res->secs * 100;
	res->verify_cpu_pct = r->verify / res->secs * 100;
	res->process_cpu_pct = (tool_proc_cpu() - pcpu0) / res->secs * 100;
	res->model_cpu_pct = (model_cpu(r->dev) - mcpu0) / res->secs * 100;
	fdma_chan_stats(r->dev, r->ch, &st1);
	if (st1.transfers > st0.transfers)
		res->syscalls_per_xfer = (double)(st1.syscalls - st0.syscalls) /
					 (st1.transfers - st0.transfers);
	bench_res_rates(res, &st0, &st1, &r->lat);
	return ret;
}

/* Reset what has transfers in flight and reap what the reset handed back. */
static int chan_drain(struct bench_run *r, int ch)
{
	struct fdma_cpl c[16];

	if (ch < 0 || fdma_inflight(r->dev, ch) <= 0)
		return 0;
	if (fdma_chan_reset(r->dev, ch)) {
		say(r, "channel %d reset: %s", ch, fdma_errmsg(r->dev));
		return -1;
	}
	while (fdma_reap(r->dev, ch, c, 16, 0, 0) > 0)
		;
	return 0;
}

int bench_run_recover(struct bench_run *r)
{
	int ret = chan_drain(r, r->ch);

	r->rb.pending = 0;
	r->cc.inflight = 0;
	if (chan_drain(r, r->rb.ch) || chan_drain(r, r->cc.h2c))
		ret = -1;
	return ret;
}

/* Given back, in flight or not: after a failure, reads may still be in flight. */
void bench_run_close(struct bench_run *r, int failed)
{
	struct fdma_dev *dev = r->dev;

	if (!dev)
		return;
	/* Read-backs may be in flight after any failure; the data channel's after a failed run. */
	if (failed)
		bench_run_recover(r);
	else
		chan_drain(r, r->rb.ch);
	if (r->rb.buf >= 0)
		fdma_buf_free(dev, r->rb.buf);
	if (r->cc.buf >= 0)
		fdma_buf_free(dev, r->cc.buf);
	if (r->stage >= 0)
		fdma_buf_free(dev, r->stage);
	if (r->buf >= 0)
		fdma_buf_free(dev, r->buf);
	/* After the registration is gone: the device may no longer reach it. */
	if (r->user_mem)
		munmap(r->user_mem, r->user_len);
	if (r->src.buf >= 0)
		fdma_buf_free(dev, r->src.buf);
	tool_lat_free(&r->lat);
	free(r->reqs);
	free(r->cpls);
	free(r->sub_time);
	free(r->rb.req);
	free(r->rb.cpl);
	free(r->src.cps);
	free(r->cc.scr_t);
	free(r->cc.req);
	free(r->cc.cpl);
	memset(r, 0, sizeof(*r));
}
