// SPDX-License-Identifier: MIT
/*
 * Wait modes: spin, sleep and adaptive all complete batches with the data
 * intact; sleep mode sleeps and is woken by interrupts, spin mode raises
 * none; the channel's file descriptor polls readable after a submit and a
 * non-waiting reap then returns the completions, and stays readable while
 * completions wait to be reaped; reaping an idle channel
 * says nothing is in flight instead of waiting.
 */
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "sim_util.h"

enum { N = 16, BATCHES = 8 };
/*
 * Bytes a request: 256 KiB, or 32 KiB on the RTL engine, which runs at
 * about 1/50 of real time, so that a batch there still outlasts a
 * reaper's way to sleep many times over without taking minutes.
 */
static uint64_t req_sz = 256 << 10;

/* Batches of N requests card-ward then host-ward on channels 0/1, data checked. */
static void run_batches(struct fdma_dev *dev)
{
	int src = sim_buf(dev, N * req_sz, 0), dst = sim_buf(dev, N * req_sz, 0);

	for (int b = 0; b < BATCHES; b++) {
		struct fdma_req r[N];
		struct fdma_cpl c[N];
		uint64_t seed = 500 + (uint64_t)b;

		pattern_fill(fdma_buf_addr(dev, src), N * req_sz, seed);
		memset(fdma_buf_addr(dev, dst), 0, N * req_sz);
		for (int dir = 0; dir < 2; dir++) {
			for (int i = 0; i < N; i++)
				r[i] = (struct fdma_req){ .buf = dir ? dst : src,
							  .offset = (uint64_t)i * req_sz,
							  .card_addr = (uint64_t)i * req_sz, .len = req_sz,
							  .user_data = (uint64_t)(b * N + i) };
			assert_fdma_err(dev, fdma_submit(dev, dir, r, N), N, NULL);
			sim_reap_n(dev, dir, c, N);
			for (int i = 0; i < N; i++) {
				assert_int_equal(c[i].res, 0);
				assert_int_equal(c[i].len, req_sz);
				assert_int_equal(c[i].user_data, (uint64_t)(b * N + i));
			}
		}
		assert_pattern(fdma_buf_addr(dev, dst), N * req_sz, seed);
	}
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
}

static void check_counts(struct fdma_dev *dev, int ch)
{
	struct fdma_chan_stats st;

	sim_stats(dev, ch, &st);
	assert_int_equal(st.transfers, N * BATCHES);
	assert_int_equal(st.completions, N * BATCHES);
	assert_int_equal(st.bytes, (uint64_t)N * req_sz * BATCHES);
	assert_int_equal(st.doorbells, BATCHES);
	assert_int_equal(st.errors, 0);
}

static void test_spin(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	struct fdma_chan_stats st;

	(void)state;
	for (int ch = 0; ch < 2; ch++)
		assert_fdma_ok(dev, fdma_chan_set_wait(dev, ch, FDMA_WAIT_SPIN, 0));
	run_batches(dev);
	for (int ch = 0; ch < 2; ch++) {
		check_counts(dev, ch);
		sim_stats(dev, ch, &st);
		/*
		 * Interrupts stay disabled while spinning: the device raises
		 * none. A kernel driver keeps them on (the channel may have
		 * other users that sleep), so only the model promises this.
		 */
		if (!sim_target())
			assert_int_equal(st.interrupts, 0);
		assert_int_equal(st.wakeups, 0);
		assert_int_equal(st.irq_timeouts, 0);
	}
	fdma_close(dev);
}

static void test_sleep(void **state)
{
	/*
	 * On the simulated device a slow link (4 MiB a batch: about 20 ms) so
	 * that the reaper surely sleeps before the batch is done, however
	 * loaded the machine; another device, and the RTL (slow enough as it
	 * is), run unpaced.
	 */
	bool slow = sim_target() || sim_on_rtl();
	struct fdma_dev *dev = sim_open(slow ? "sim:paced=0" : "sim:gen=1,lanes=1");
	struct fdma_chan_stats st;
	struct fdma_info in;
	bool rtl, fdma_here;

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	rtl = sim_on_rtl() || !strcmp(in.backend, "rtl");
	/* the FDMA engine in this process (the model or the RTL): every interrupt is counted */
	fdma_here = !sim_target() && !strcmp(in.engine, "fdma");
	for (int ch = 0; ch < 2; ch++)
		assert_fdma_ok(dev, fdma_chan_set_wait(dev, ch, FDMA_WAIT_SLEEP, 0));
	run_batches(dev);
	for (int ch = 0; ch < 2; ch++) {
		check_counts(dev, ch);
		sim_stats(dev, ch, &st);
		/*
		 * Each batch moves 4 MiB, far longer than the reaper takes to go to
		 * sleep in-process on the slow link: it slept and the interrupt woke it (a lost
		 * interrupt would show as an irq timeout instead). Another device
		 * (FDMA_TEST_DEVICE: a model in another process, the guest slowed
		 * by emulation) may be done before the reaper looks.
		 */
		assert_true(st.interrupts > 0);
		if (!sim_target())
			assert_true(st.wakeups > 0);
		/*
		 * The RTL runs at about 1/50 of real time: a sleep (100 ms at
		 * most) can end while the interrupt of a completion already
		 * visible is still being simulated. That is late, not lost; the
		 * exact count below tells the two apart.
		 */
		if (!rtl)
			assert_int_equal(st.irq_timeouts, 0);
		/* With no coalescing there is at most one interrupt per completion. */
		assert_true(st.interrupts <= N * BATCHES);
		/*
		 * Sleep mode sets IRQ_EN before the first request, and the FDMA
		 * engine interrupts for every completion when not coalescing:
		 * exactly one each, so none was lost.
		 */
		if (fdma_here)
			assert_int_equal(st.interrupts, N * BATCHES);
	}
	fdma_close(dev);
}

static void test_adaptive(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");

	(void)state;
	for (int ch = 0; ch < 2; ch++)
		assert_fdma_ok(dev, fdma_chan_set_wait(dev, ch, FDMA_WAIT_ADAPTIVE, 20));
	run_batches(dev);
	for (int ch = 0; ch < 2; ch++)
		check_counts(dev, ch);
	fdma_close(dev);
	/* The default mode is adaptive: the same without setting it. */
	dev = sim_open("sim:paced=0");
	run_batches(dev);
	for (int ch = 0; ch < 2; ch++)
		check_counts(dev, ch);
	fdma_close(dev);
}

static int poll_fd(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, timeout_ms);

	if (r > 0 && !(p.revents & POLLIN))
		return -1;
	return r;
}

/* fdma_chan_fd(): readable after a submit; fdma_reap(min_wait 0) returns the completion. */
static void test_chan_fd_poll(void **state)
{
	const uint64_t sz = 1 << 20;
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int src = sim_buf(dev, sz, 0), dst = sim_buf(dev, sz, 0);
	int fd[2];
	struct fdma_chan_stats st;

	(void)state;
	for (int ch = 0; ch < 2; ch++) {
		fd[ch] = fdma_chan_fd(dev, ch);
		assert_fdma_ok(dev, fd[ch]);
		/* The same descriptor each time, and nothing to read yet. */
		assert_int_equal(fdma_chan_fd(dev, ch), fd[ch]);
		assert_int_equal(poll_fd(fd[ch], 0), 0);
	}
	assert_true(fd[0] != fd[1]);
	for (int it = 0; it < 6; it++) {
		for (int dir = 0; dir < 2; dir++) {
			struct fdma_req r = { .buf = dir ? dst : src, .card_addr = sz * (uint64_t)it,
					      .len = sz, .user_data = 0x5000 + (uint64_t)(it * 2 + dir) };
			struct fdma_cpl c[4];
			int n;

			if (!dir) {
				pattern_fill(fdma_buf_addr(dev, src), sz, (uint64_t)it);
				memset(fdma_buf_addr(dev, dst), 0xff, sz);
			}
			assert_fdma_err(dev, fdma_submit(dev, dir, &r, 1), 1, NULL);
			assert_int_equal(poll_fd(fd[dir], SIM_TIMEOUT_US / 1000), 1);
			n = fdma_reap(dev, dir, c, 4, 0, 0);
			assert_fdma_err(dev, n, 1, NULL);
			assert_int_equal(c[0].user_data, r.user_data);
			assert_int_equal(c[0].res, 0);
			assert_int_equal(c[0].len, sz);
			/* One completion, one interrupt: the reap drained the fd. */
			assert_int_equal(poll_fd(fd[dir], 0), 0);
			assert_int_equal(fdma_reap(dev, dir, c, 4, 0, 0), 0);
		}
		assert_pattern(fdma_buf_addr(dev, dst), sz, (uint64_t)it);
	}
	/* A batch: poll and reap without waiting until all 8 are back, in order. */
	{
		struct fdma_req r[8];
		struct fdma_cpl c[8];
		unsigned int got = 0;
		int64_t end = sim_now_us() + SIM_TIMEOUT_US;

		for (int i = 0; i < 8; i++)
			r[i] = (struct fdma_req){ .buf = src, .offset = (uint64_t)i * (sz / 8),
						  .card_addr = 0x1000000 + (uint64_t)i * (sz / 8),
						  .len = sz / 8, .user_data = (uint64_t)i };
		pattern_fill(fdma_buf_addr(dev, src), sz, 999);
		assert_fdma_err(dev, fdma_submit(dev, 0, r, 8), 8, NULL);
		while (got < 8 && sim_now_us() < end) {
			int n;

			assert_int_equal(poll_fd(fd[0], SIM_TIMEOUT_US / 1000), 1);
			n = fdma_reap(dev, 0, c + got, 8 - got, 0, 0);
			assert_fdma_ok(dev, n);
			got += (unsigned int)n;
		}
		assert_int_equal(got, 8);
		for (int i = 0; i < 8; i++) {
			assert_int_equal(c[i].user_data, (uint64_t)i);
			assert_int_equal(c[i].res, 0);
		}
		memset(fdma_buf_addr(dev, dst), 0, sz);
		assert_fdma_ok(dev, fdma_read_card(dev, dst, 0, 0x1000000, sz));
		assert_pattern(fdma_buf_addr(dev, dst), sz, 999);
	}
	sim_stats(dev, 0, &st);
	assert_true(st.interrupts >= 7);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	fdma_close(dev);
}

enum { K = 8, MAX = 3 };
static const uint64_t fd_sz = 64 << 10;

/* K requests to the card, reaped MAX at a time as the fd polls readable; data checked. */
static void fd_round(struct fdma_dev *dev, int *fd, int src, int dst, uint64_t seed,
		     bool take_fd_late)
{
	struct fdma_req r[K];
	struct fdma_cpl c[K];
	unsigned int got = 0;

	pattern_fill(fdma_buf_addr(dev, src), K * fd_sz, seed);
	for (int i = 0; i < K; i++)
		r[i] = (struct fdma_req){ .buf = src, .offset = (uint64_t)i * fd_sz,
					  .card_addr = (uint64_t)i * fd_sz, .len = fd_sz,
					  .user_data = seed * K + (uint64_t)i };
	assert_fdma_err(dev, fdma_submit(dev, 0, r, K), K, NULL);
	/* Time for all K to finish first (had they not, the test proves less, and still passes). */
	usleep(200000);
	if (take_fd_late) {
		*fd = fdma_chan_fd(dev, 0);
		assert_fdma_ok(dev, *fd);
	}
	while (got < K) {
		int n;

		assert_int_equal(poll_fd(*fd, SIM_TIMEOUT_US / 1000), 1);
		n = fdma_reap(dev, 0, c + got, K - got < MAX ? K - got : MAX, 0, 0);
		assert_fdma_ok(dev, n);
		got += (unsigned int)n;
	}
	for (int i = 0; i < K; i++) {
		assert_int_equal(c[i].user_data, seed * K + (uint64_t)i);
		assert_int_equal(c[i].res, 0);
		assert_int_equal(c[i].len, fd_sz);
	}
	memset(fdma_buf_addr(dev, dst), 0, K * fd_sz);
	assert_fdma_ok(dev, fdma_read_card(dev, dst, 0, 0, K * fd_sz));
	assert_pattern(fdma_buf_addr(dev, dst), K * fd_sz, seed);
}

/*
 * The fd is readable whenever a reap has something to take, not only
 * when the device has just interrupted: taken after K requests finished
 * with interrupts off (spin mode), the device never signalled them; every
 * round reaps MAX at a time, leaving completions behind that the drained
 * fd must still show; and a spin-mode wait after the fd was taken (here
 * fdma_read_card()'s) must not turn the interrupts off under it.
 */
static void test_chan_fd_level(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int src = sim_buf(dev, K * fd_sz, 0), dst = sim_buf(dev, K * fd_sz, 0);
	int fd = -1;

	(void)state;
	assert_fdma_ok(dev, fdma_chan_set_wait(dev, 0, FDMA_WAIT_SPIN, 0));
	fd_round(dev, &fd, src, dst, 700, true);
	fd_round(dev, &fd, src, dst, 701, false);
	assert_fdma_ok(dev, fdma_chan_set_wait(dev, 0, FDMA_WAIT_SPIN, 0));
	assert_fdma_ok(dev, fdma_write_card(dev, src, 0, 0, fd_sz));
	fd_round(dev, &fd, src, dst, 702, false);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	fdma_close(dev);
}

/*
 * A reset hands requests in flight back as canceled, with no interrupt:
 * the fd shows them too. One 8 MiB request on the paced link (about 40 ms
 * at gen2 x1) is still running when the reset comes. The model finishes
 * a descriptor it has begun before it acknowledges (docs/engine.md,
 * section 11, allows either), so the same transfer goes once before: its
 * pages, and the sanitizers' shadow of them, are there when the timed one
 * comes (their first touch took the model past the reset's 200 ms under
 * TSan on a loaded machine).
 */
static void test_chan_fd_reset(void **state)
{
	const uint64_t sz = 8 << 20;
	struct fdma_dev *dev = sim_open("sim:paced=1");
	int src = sim_buf(dev, sz, 0);
	struct fdma_req r = { .buf = src, .len = sz, .user_data = 77 };
	struct fdma_cpl c;
	int fd, n = 0;

	(void)state;
	fd = fdma_chan_fd(dev, 0);
	assert_fdma_ok(dev, fd);
	assert_fdma_ok(dev, fdma_write_card(dev, src, 0, 0, sz));
	assert_fdma_err(dev, fdma_submit(dev, 0, &r, 1), 1, NULL);
	assert_fdma_ok(dev, fdma_chan_reset(dev, 0));
	while (!n) {
		assert_int_equal(poll_fd(fd, SIM_TIMEOUT_US / 1000), 1);
		n = fdma_reap(dev, 0, &c, 1, 0, 0);
		assert_fdma_ok(dev, n);
	}
	assert_int_equal(n, 1);
	assert_int_equal(c.user_data, 77);
	/* Canceled, or done if it beat the reset. */
	assert_true(c.res == -ECANCELED || c.res == 0);
	assert_int_equal(fdma_inflight(dev, 0), 0);
	/* The channel works after it. */
	sim_roundtrip(dev, 0x10000, 65536, 3);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	fdma_close(dev);
}

/* Reaping with nothing in flight does not wait: -EAGAIN, with a message. */
static void test_reap_idle(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	struct fdma_cpl c[2];
	int64_t t0;

	(void)state;
	for (int mode = FDMA_WAIT_SPIN; mode <= FDMA_WAIT_ADAPTIVE; mode++) {
		assert_fdma_ok(dev, fdma_chan_set_wait(dev, 0, (enum fdma_wait_mode)mode, 0));
		t0 = sim_now_us();
		assert_fdma_err(dev, fdma_reap(dev, 0, c, 2, 1, 2 * SIM_TIMEOUT_US), -EAGAIN,
				"nothing in flight");
		/* Not the timeout: it returned at once (a whole timeout would be 10 s). */
		assert_true(sim_now_us() - t0 < SIM_TIMEOUT_US);
		/* min_wait 0 on an idle channel: nothing, no error. */
		assert_int_equal(fdma_reap(dev, 0, c, 2, 0, 1000), 0);
		assert_int_equal(fdma_inflight(dev, 0), 0);
	}
	/* Still usable, and idle again after the round trip. */
	sim_roundtrip(dev, 0x8000, 65536, 8);
	assert_fdma_err(dev, fdma_reap(dev, 1, c, 2, 2, 100000), -EAGAIN, "nothing in flight");
	fdma_close(dev);
}

int main(void)
{
	if (sim_on_rtl())
		req_sz = 32 << 10;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spin),
		cmocka_unit_test(test_sleep),
		cmocka_unit_test(test_adaptive),
		cmocka_unit_test(test_chan_fd_poll),
		cmocka_unit_test(test_chan_fd_level),
		cmocka_unit_test(test_chan_fd_reset),
		cmocka_unit_test(test_reap_idle),
	};

	return T_RUN(tests);
}
