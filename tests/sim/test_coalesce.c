// SPDX-License-Identifier: MIT
/*
 * Interrupt coalescing and channel statistics. The rule (engine docs): the
 * device interrupts when the completions since the last interrupt reach
 * COAL_COUNT (0 means 1), or COAL_USECS after the oldest unsignalled one,
 * or, with COAL_USECS 0, when the ring drains; a request with FDMA_REQ_IRQ
 * always interrupts. Interrupts are counted with IRQ_EN on, i.e. in sleep
 * mode.
 *
 * Exact counts for batches rely on one fact of the interface: a batch
 * submitted with one fdma_submit() call is published by one doorbell, so
 * the device sees all of it at once and the ring cannot drain in the middle
 * of it (every batch here is smaller than the device's 64-descriptor pass).
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "sim_util.h"

/* Submit n requests of sz bytes (flags per request, or 0) and reap them, data checked. */
static void batch(struct fdma_dev *dev, int n, uint64_t sz, const uint32_t *flags, uint64_t seed)
{
	struct fdma_req r[64];
	struct fdma_cpl c[64];
	int src = sim_buf(dev, (size_t)n * sz, 0), dst = sim_buf(dev, (size_t)n * sz, 0);

	assert_true(n <= 64);
	pattern_fill(fdma_buf_addr(dev, src), (size_t)n * sz, seed);
	memset(fdma_buf_addr(dev, dst), 0, (size_t)n * sz);
	for (int i = 0; i < n; i++)
		r[i] = (struct fdma_req){ .buf = src, .offset = (uint64_t)i * sz,
					  .card_addr = (uint64_t)i * sz, .len = sz,
					  .flags = flags ? flags[i] : 0, .user_data = seed + (uint64_t)i };
	assert_fdma_err(dev, fdma_submit(dev, 0, r, (unsigned int)n), n, NULL);
	sim_reap_n(dev, 0, c, (unsigned int)n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(c[i].user_data, seed + (uint64_t)i);
		assert_int_equal(c[i].res, 0);
		assert_int_equal(c[i].len, sz);
	}
	/* Read back on channel 1 (spin mode there: its interrupts do not matter). */
	assert_fdma_ok(dev, fdma_read_card(dev, dst, 0, 0, (uint64_t)n * sz));
	assert_pattern(fdma_buf_addr(dev, dst), (size_t)n * sz, seed);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
}

static struct fdma_dev *open_sleep(const char *uri, unsigned int count, unsigned int usecs)
{
	struct fdma_dev *dev = sim_open(uri);
	struct fdma_info in;

	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	if (usecs && !(in.coal & FDMA_COAL_TIMER)) {
		fdma_close(dev);
		print_message("needs an interrupt timer, which %s has not: skipped\n", in.engine);
		t_skip();
	}

	assert_fdma_ok(dev, fdma_chan_set_wait(dev, 0, FDMA_WAIT_SLEEP, 0));
	assert_fdma_ok(dev, fdma_chan_set_wait(dev, 1, FDMA_WAIT_SPIN, 0));
	assert_fdma_ok(dev, fdma_chan_set_coalesce(dev, 0, count, usecs));
	return dev;
}

/*
 * One request of sz bytes, as batch(); returns the interrupts it raised,
 * checked against what the rule allows. Each descriptor is a completion to
 * the device, and a request may be several (kdev's buffers are pages, in
 * large chunks only where the allocator had them): at least one interrupt,
 * at most one per descriptor, which is exactly one for a lone descriptor
 * (any sim: buffer here). More than one comes when a piece completes after
 * the reaper, woken for an earlier one with the request unfinished, turned
 * IRQ_EN on again: with a timer, pieces more than its period apart (a guest
 * under TCG).
 */
static uint64_t one_request(struct fdma_dev *dev, uint64_t sz, uint64_t seed)
{
	struct fdma_chan_stats a, b;
	uint64_t irqs;

	sim_stats(dev, 0, &a);
	batch(dev, 1, sz, NULL, seed);
	irqs = sim_wait_interrupts(dev, 0, a.interrupts + 1, SIM_TIMEOUT_US);
	sim_stats(dev, 0, &b);
	assert_true(b.descriptors > a.descriptors);
	assert_in_range(irqs - a.interrupts, 1, b.descriptors - a.descriptors);
	return irqs - a.interrupts;
}

/* coalesce(0, 0): one interrupt per completion. */
static void test_every_completion(void **state)
{
	struct fdma_dev *dev;
	uint64_t irqs = 0;

	(void)state;
	sim_require_fdma_engine("one interrupt per completion");
	dev = open_sleep("sim:paced=0", 0, 0);
	for (int i = 0; i < 20; i++)
		irqs += one_request(dev, 65536, 100 + (uint64_t)i);
	/* A batch: still one per completion. */
	batch(dev, 10, 4096, NULL, 7);
	assert_int_equal(sim_wait_interrupts(dev, 0, irqs + 10, SIM_TIMEOUT_US), irqs + 10);
	fdma_close(dev);
}

/* coalesce(8, 0): one interrupt per 8 completions, and the ring draining flushes the rest. */
static void test_count(void **state)
{
	struct fdma_dev *dev;
	uint64_t want = 0;

	(void)state;
	sim_require_fdma_engine("interrupt counts under count coalescing");
	dev = open_sleep("sim:paced=0", 8, 0);
	for (int b = 0; b < 4; b++) {
		batch(dev, 32, 4096, NULL, 1000 + (uint64_t)b);
		want += 32 / 8;
		assert_int_equal(sim_wait_interrupts(dev, 0, want, SIM_TIMEOUT_US), want);
	}
	/* 5 < 8: no count interrupt, one when the ring drains. */
	batch(dev, 5, 4096, NULL, 2000);
	want += 1;
	assert_int_equal(sim_wait_interrupts(dev, 0, want, SIM_TIMEOUT_US), want);
	/* 12 = 8 + 4: one at the 8th, one for the 4 left when the ring drains. */
	batch(dev, 12, 4096, NULL, 3000);
	want += 2;
	assert_int_equal(sim_wait_interrupts(dev, 0, want, SIM_TIMEOUT_US), want);
	/* One at a time: every request drains the ring, so each interrupts. */
	for (int i = 0; i < 3; i++)
		batch(dev, 1, 4096, NULL, 4000 + (uint64_t)i);
	want += 3;
	assert_int_equal(sim_wait_interrupts(dev, 0, want, SIM_TIMEOUT_US), want);
	fdma_close(dev);
}

/* The same count set from the URI (coal=8) applies to every channel from the start. */
static void test_count_from_uri(void **state)
{
	struct fdma_dev *dev;

	(void)state;
	sim_require_fdma_engine("interrupt counts under count coalescing");
	dev = sim_open("sim:paced=0,coal=8");
	assert_fdma_ok(dev, fdma_chan_set_wait(dev, 0, FDMA_WAIT_SLEEP, 0));
	assert_fdma_ok(dev, fdma_chan_set_wait(dev, 1, FDMA_WAIT_SPIN, 0));
	batch(dev, 32, 4096, NULL, 1);
	batch(dev, 16, 4096, NULL, 2);
	assert_int_equal(sim_wait_interrupts(dev, 0, 6, SIM_TIMEOUT_US), 6);
	fdma_close(dev);
}

/* coalesce(1000, 200 us): a lone completion is signalled by the timer, not before. */
static void test_timer(void **state)
{
	struct fdma_dev *dev = open_sleep("sim:paced=0", 1000, 200);
	int fd = fdma_chan_fd(dev, 0);
	int buf = sim_buf(dev, 4096, 0);

	(void)state;
	assert_fdma_ok(dev, fd);
	pattern_fill(fdma_buf_addr(dev, buf), 4096, 5);
	for (int i = 0; i < 3; i++) {
		struct fdma_req r = { .buf = buf, .card_addr = 0x40000, .len = 4096, .user_data = 77 };
		struct fdma_cpl c;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t t0 = sim_now_us(), t1;

		assert_fdma_err(dev, fdma_submit(dev, 0, &r, 1), 1, NULL);
		assert_int_equal(poll(&p, 1, SIM_TIMEOUT_US / 1000), 1);
		t1 = sim_now_us();
		/* The interrupt cannot come before the timer ran out (a lower bound only). */
		assert_true(t1 - t0 >= 200);
		assert_int_equal(fdma_reap(dev, 0, &c, 1, 0, 0), 1);
		assert_int_equal(c.user_data, 77);
		assert_int_equal(c.res, 0);
		/* One interrupt per lone completion: the timer's, and no drain flush. */
		assert_int_equal(sim_wait_interrupts(dev, 0, (uint64_t)i + 1, SIM_TIMEOUT_US),
				 (uint64_t)i + 1);
	}
	assert_fdma_ok(dev, fdma_buf_free(dev, buf));
	sim_roundtrip(dev, 0x40000, 4096, 6);
	fdma_close(dev);
}

/*
 * coalesce(1000, 200 us) in plain sleep mode: the reaper gets its completion
 * either way, whether the timer fires after the request's last piece or
 * mid-request (one_request()). A lone descriptor's timing is test_timer's.
 */
static void test_timer_sleep_reap(void **state)
{
	struct fdma_dev *dev = open_sleep("sim:paced=0", 1000, 200);

	(void)state;
	one_request(dev, 65536, 11);
	one_request(dev, 65536, 12);
	fdma_close(dev);
}

/* FDMA_REQ_IRQ interrupts whatever the coalescing. */
static void test_req_irq(void **state)
{
	struct fdma_dev *dev;
	uint32_t fl[6] = { 0, 0, FDMA_REQ_IRQ, 0, 0, 0 };
	uint32_t all[6] = { FDMA_REQ_IRQ, FDMA_REQ_IRQ, FDMA_REQ_IRQ,
			    FDMA_REQ_IRQ, FDMA_REQ_IRQ, FDMA_REQ_IRQ };

	(void)state;
	sim_require_fdma_engine("which completions interrupt");
	dev = open_sleep("sim:paced=0", 1000, 0);
	/* Without it: only the drain. */
	batch(dev, 6, 4096, NULL, 1);
	assert_int_equal(sim_wait_interrupts(dev, 0, 1, SIM_TIMEOUT_US), 1);
	/* On the third: that one, then the drain for the last three. */
	batch(dev, 6, 4096, fl, 2);
	assert_int_equal(sim_wait_interrupts(dev, 0, 3, SIM_TIMEOUT_US), 3);
	/* On every one: six, and nothing left for the drain. */
	batch(dev, 6, 4096, all, 3);
	assert_int_equal(sim_wait_interrupts(dev, 0, 9, SIM_TIMEOUT_US), 9);
	/* On the last one: one interrupt, nothing left unsignalled. */
	fl[2] = 0;
	fl[5] = FDMA_REQ_IRQ;
	batch(dev, 6, 4096, fl, 4);
	assert_int_equal(sim_wait_interrupts(dev, 0, 10, SIM_TIMEOUT_US), 10);
	fdma_close(dev);
}

/* A split request with FDMA_REQ_IRQ interrupts once, when its last piece completes. */
static void test_req_irq_split(void **state)
{
	struct fdma_dev *dev;
	uint32_t fl[3] = { FDMA_REQ_IRQ, 0, 0 };
	struct fdma_chan_stats st;

	(void)state;
	/* XDMA's interrupts are levels: two close together may be one. */
	sim_require_fdma_engine("which completions interrupt");
	dev = open_sleep("sim:paced=0,maxdesc=4096", 1000, 0);
	batch(dev, 3, 65536, fl, 9);
	/* 48 descriptors: one forced interrupt after the first request's 16th, one drain. */
	assert_int_equal(sim_wait_interrupts(dev, 0, 2, SIM_TIMEOUT_US), 2);
	sim_stats(dev, 0, &st);
	assert_int_equal(st.descriptors, 48);
	assert_int_equal(st.transfers, 3);
	assert_int_equal(st.completions, 3);
	fdma_close(dev);
}

/* The statistics count what the interface says they count. */
static void test_stats_fields(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0,maxdesc=4096");
	const uint64_t lens[] = { 64, 4096, 4160, 65536, 8192 };	/* 1 + 1 + 2 + 16 + 2 descriptors */
	const unsigned int per_call[] = { 5, 1, 10 };
	struct fdma_chan_stats st;
	uint64_t bytes = 0, desc = 0, xfers = 0;
	int src = sim_buf(dev, 1 << 20, 0), dst = sim_buf(dev, 1 << 20, 0);
	struct fdma_cpl c[16];

	(void)state;
	sim_stats(dev, 0, &st);
	assert_int_equal(st.bytes, 0);
	assert_int_equal(st.transfers, 0);
	assert_int_equal(st.doorbells, 0);
	pattern_fill(fdma_buf_addr(dev, src), 1 << 20, 8);
	memset(fdma_buf_addr(dev, dst), 0, 1 << 20);
	/* An empty submit queues nothing and rings no doorbell. */
	assert_int_equal(fdma_submit(dev, 0, NULL, 0), 0);
	for (unsigned int call = 0; call < 3; call++) {
		struct fdma_req r[10];

		for (unsigned int i = 0; i < per_call[call]; i++) {
			uint64_t len = lens[(call + i) % 5];

			r[i] = (struct fdma_req){ .buf = src, .offset = bytes, .card_addr = bytes,
						  .len = len, .user_data = xfers };
			bytes += len;
			desc += (len + 4095) / 4096;
			xfers++;
		}
		assert_fdma_err(dev, fdma_submit(dev, 0, r, per_call[call]), (int)per_call[call], NULL);
	}
	sim_stats(dev, 0, &st);
	assert_int_equal(st.doorbells, 3);
	assert_int_equal(st.transfers, 16);
	assert_int_equal(st.descriptors, desc);
	/* Completions count what has been reaped. */
	sim_reap_n(dev, 0, c, 6);
	sim_stats(dev, 0, &st);
	assert_int_equal(st.completions, 6);
	sim_reap_n(dev, 0, c + 6, 10);
	sim_stats(dev, 0, &st);
	assert_int_equal(st.completions, 16);
	assert_int_equal(st.bytes, bytes);
	assert_int_equal(st.errors, 0);
	assert_int_equal(st.resets, 0);
	assert_int_equal(st.drops, 0);
	for (unsigned int i = 0; i < 16; i++) {
		assert_int_equal(c[i].user_data, i);
		assert_int_equal(c[i].res, 0);
	}
	/* The other direction's channel counted nothing of this. */
	sim_stats(dev, 1, &st);
	assert_int_equal(st.transfers, 0);
	assert_int_equal(st.bytes, 0);
	/* And the data went where it should. */
	assert_fdma_ok(dev, fdma_read_card(dev, dst, 0, 0, bytes));
	assert_pattern(fdma_buf_addr(dev, dst), bytes, 8);
	assert_bytes((uint8_t *)fdma_buf_addr(dev, dst) + bytes, (1 << 20) - bytes, 0);
	sim_stats(dev, 1, &st);
	assert_int_equal(st.transfers, 1);
	assert_int_equal(st.doorbells, 1);
	assert_int_equal(st.descriptors, (bytes + 4095) / 4096);
	assert_int_equal(st.bytes, bytes);
	fdma_close(dev);
}

/* ---- statistics read from another thread ------------------------------------- */

struct stats_worker {
	struct fdma_dev *dev;
	atomic_int go;		/* the monitor has read once: the worker may start */
	atomic_int done;
	char err[256];
};

static void *stats_worker_main(void *arg)
{
	struct stats_worker *w = arg;
	int buf;

	/*
	 * Unlocked, 300 transfers can be over before a sanitized monitor
	 * thread is first scheduled: wait for it, so the reads overlap them.
	 */
	while (!atomic_load(&w->go))
		sched_yield();
	buf = fdma_buf_alloc(w->dev, 65536, 0);
	struct fdma_req r = { .buf = buf, .len = 65536 };
	struct fdma_cpl c;

	if (buf < 0) {
		snprintf(w->err, sizeof(w->err), "fdma_buf_alloc = %d", buf);
		goto out;
	}
	pattern_fill(fdma_buf_addr(w->dev, buf), 65536, 1);
	for (int i = 0; i < 300; i++) {
		int ret;

		r.user_data = (uint64_t)i;
		r.card_addr = (uint64_t)(i % 16) * 65536;
		ret = fdma_submit(w->dev, 0, &r, 1);
		if (ret == 1)
			ret = fdma_reap(w->dev, 0, &c, 1, 1, SIM_TIMEOUT_US);
		if (ret != 1 || c.res || c.user_data != (uint64_t)i) {
			snprintf(w->err, sizeof(w->err), "transfer %d: ret %d res %d", i, ret, c.res);
			goto out;
		}
	}
	if (fdma_buf_free(w->dev, buf))
		snprintf(w->err, sizeof(w->err), "fdma_buf_free failed");
out:
	atomic_store(&w->done, 1);
	return NULL;
}

/*
 * "fdma_chan_stats() ... may be called from any thread" (as may the buffer
 * calls): a monitor reads a channel's statistics, and allocates and frees
 * buffers, while another thread drives the channel. Each counter only
 * grows, and the totals are exact at the end. (Under ThreadSanitizer this
 * also checks that such reads are not data races.)
 */
static void test_stats_other_thread(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	struct stats_worker w = { .dev = dev };
	struct fdma_chan_stats prev = { 0 }, st;
	pthread_t t;
	int reads = 0;

	(void)state;
	assert_fdma_ok(dev, fdma_chan_set_wait(dev, 0, FDMA_WAIT_SPIN, 0));
	assert_int_equal(pthread_create(&t, NULL, stats_worker_main, &w), 0);
	while (!atomic_load(&w.done)) {
		int h = fdma_buf_alloc(dev, 4096, 0);

		if (fdma_chan_stats(dev, 0, &st))
			break;
		if (st.transfers < prev.transfers || st.completions < prev.completions ||
		    st.bytes < prev.bytes || st.doorbells < prev.doorbells ||
		    st.descriptors < prev.descriptors)
			break;
		prev = st;
		reads++;
		atomic_store(&w.go, 1);
		if (h < 0 || fdma_buf_free(dev, h))
			break;
	}
	/* A loop that broke off before its first read must not leave the worker waiting. */
	atomic_store(&w.go, 1);
	assert_int_equal(pthread_join(t, NULL), 0);
	if (w.err[0])
		fail_msg("worker: %s", w.err);
	assert_true(atomic_load(&w.done));
	assert_true(reads > 0);
	sim_stats(dev, 0, &st);
	assert_true(st.transfers >= prev.transfers);
	assert_int_equal(st.transfers, 300);
	assert_int_equal(st.completions, 300);
	assert_int_equal(st.doorbells, 300);
	assert_int_equal(st.bytes, 300ull * 65536);
	sim_roundtrip(dev, 0, 65536, 2);
	fdma_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_completion),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_count_from_uri),
		cmocka_unit_test(test_timer),
		cmocka_unit_test(test_timer_sleep_reap),
		cmocka_unit_test(test_req_irq),
		cmocka_unit_test(test_req_irq_split),
		cmocka_unit_test(test_stats_fields),
		cmocka_unit_test(test_stats_other_thread),
	};

	return T_RUN(tests);
}
