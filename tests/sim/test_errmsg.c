// SPDX-License-Identifier: MIT
/*
 * Error messages are per thread and per device: two threads failing
 * differently at full speed on two channels of one device each read their
 * own message after every call; one thread's messages on two devices stay
 * apart; a thread that never failed reads "". The device still moves data
 * afterwards.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sim_util.h"

enum { CALLS = 200000 };

struct failer {
	struct fdma_dev *dev;
	int ch;
	struct fdma_req req;	/* a request that fails the same way every time */
	int want;		/* its error */
	const char *word;	/* in its message, and not in the other thread's */
	pthread_barrier_t *start;
	long wrong_ret, wrong_msg;
	char example[256];	/* the first wrong message seen */
};

static void *fail_loop(void *arg)
{
	struct failer *f = arg;

	pthread_barrier_wait(f->start);
	for (int i = 0; i < CALLS; i++) {
		int ret = fdma_submit(f->dev, f->ch, &f->req, 1);
		const char *msg = fdma_errmsg(f->dev);

		if (ret != f->want)
			f->wrong_ret++;
		if (!strstr(msg, f->word)) {
			if (!f->wrong_msg)
				snprintf(f->example, sizeof(f->example), "%s", msg);
			f->wrong_msg++;
		}
	}
	return NULL;
}

static void test_two_threads_two_channels(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int buf = sim_buf(dev, 4096, 0);
	int c2h = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM);
	pthread_barrier_t start;
	struct failer f[2] = {
		/* An unknown buffer handle on H2C channel 0. */
		{ .dev = dev, .ch = 0, .req = { .buf = 4000, .len = 4096 }, .want = -EBADF,
		  .word = "unknown buffer handle 4000" },
		/* A range beyond the buffer on the C2H channel. */
		{ .dev = dev, .ch = c2h, .req = { .buf = buf, .offset = 4096, .len = 4096 },
		  .want = -ERANGE, .word = "beyond buffer" },
	};
	pthread_t t[2];

	(void)state;
	assert_true(c2h > 0);
	pthread_barrier_init(&start, NULL, 2);
	for (int i = 0; i < 2; i++) {
		f[i].start = &start;
		assert_int_equal(pthread_create(&t[i], NULL, fail_loop, &f[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	pthread_barrier_destroy(&start);
	for (int i = 0; i < 2; i++) {
		if (f[i].wrong_ret || f[i].wrong_msg)
			fail_msg("thread %d: %ld wrong returns, %ld of %d messages not its own (e.g. '%s')",
				 i, f[i].wrong_ret, f[i].wrong_msg, CALLS, f[i].example);
	}
	/* The main thread never failed on this device: it reads no one's message. */
	assert_string_equal(fdma_errmsg(dev), "");
	sim_roundtrip(dev, 0, 65536, 3);
	assert_fdma_ok(dev, fdma_buf_free(dev, buf));
	fdma_close(dev);
}

/* One thread, two devices: each keeps its own last message. */
static void test_one_thread_two_devices(void **state)
{
	struct fdma_dev *a = sim_open("sim:paced=0");
	struct fdma_dev *b = sim_open("sim:paced=0");

	(void)state;
	assert_int_equal(fdma_chan_set_wait(a, 99, FDMA_WAIT_SLEEP, 0), -EINVAL);
	assert_int_equal(fdma_buf_free(b, 77), -EBADF);
	assert_non_null(strstr(fdma_errmsg(a), "no channel 99"));
	assert_non_null(strstr(fdma_errmsg(b), "unknown buffer handle 77"));
	/* A later device at a reused address does not inherit the message. */
	fdma_close(a);
	assert_string_equal(fdma_errmsg(a), "invalid or closed device handle");
	a = sim_open("sim:paced=0");
	assert_string_equal(fdma_errmsg(a), "");
	assert_non_null(strstr(fdma_errmsg(b), "unknown buffer handle 77"));
	fdma_close(a);
	fdma_close(b);
}

/* A thread that fails on more devices than it keeps slots for: the latest messages win. */
static void test_many_devices(void **state)
{
	enum { NDEV = 12 };
	struct fdma_dev *d[NDEV];
	char want[64];

	(void)state;
	for (int i = 0; i < NDEV; i++) {
		/* 16M of card memory each: twelve of the default 1G do not fit
		 * in a 32-bit process's address space (armhf). */
		d[i] = sim_open("sim:paced=0,mem=16M");
		assert_int_equal(fdma_buf_free(d[i], 100 + i), -EBADF);
	}
	for (int i = NDEV - 4; i < NDEV; i++) {
		snprintf(want, sizeof(want), "unknown buffer handle %d", 100 + i);
		assert_non_null(strstr(fdma_errmsg(d[i]), want));
	}
	for (int i = 0; i < NDEV; i++)
		fdma_close(d[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_threads_two_channels),
		cmocka_unit_test(test_one_thread_two_devices),
		cmocka_unit_test(test_many_devices),
	};

	return T_RUN(tests);
}
