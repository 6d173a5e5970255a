// SPDX-License-Identifier: MIT
/*
 * Where the device model's channel threads run (sim: options cpus= and
 * poll_us=). With cpus=N every channel thread is on CPU N alone, and only
 * while the device is open; the device moves data as it does anywhere.
 * poll_us=0 (sleep as soon as idle) and a long poll_us both start every
 * request, whether it finds its channel asleep or polling, and a polling
 * channel starts it at once.
 */
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sim_util.h"

/* Threads of this process whose affinity is CPU cpu alone. */
static unsigned int threads_on_only(int cpu)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		cpu_set_t set;
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0 || sched_getaffinity(tid, sizeof(set), &set))
			continue;	/* "." and "..", or a thread that just ended */
		n += CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
	}
	closedir(d);
	return n;
}

/* Either model (FDMA_TEST_SIM=engine=xdma too); not a driver's device, nor the RTL, which has no channel threads. */
static void skip_unless_model(void)
{
	if (sim_target() || sim_on_rtl()) {
		print_message("cpus= and poll_us= place a device model's channel threads: skipped on %s\n",
			      sim_target() ? sim_target() : "the RTL");
		t_skip();
	}
}

static void test_cpus_places_channel_threads(void **state)
{
	unsigned int before, nchan, n;
	struct fdma_info info;
	struct fdma_dev *dev;
	cpu_set_t self;
	char uri[32];
	int cpu = 0;

	(void)state;
	skip_unless_model();
	/* On one CPU alone the process's own threads would count there too. */
	assert_int_equal(sched_getaffinity(0, sizeof(self), &self), 0);
	n = (unsigned int)CPU_COUNT(&self);
	if (n == 1)
		t_skip();
	while (!CPU_ISSET(cpu, &self))
		cpu++;		/* the first CPU this process may use (a cpuset may lack 0) */
	before = threads_on_only(cpu);
	snprintf(uri, sizeof(uri), "sim:cpus=%d", cpu);
	dev = sim_open(uri);
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	nchan = info.nchan;
	/* One thread per channel, each on that CPU alone; the caller is not moved. */
	assert_int_equal(threads_on_only(cpu), before + nchan);
	assert_int_equal(sched_getaffinity(0, sizeof(self), &self), 0);
	assert_int_equal(CPU_COUNT(&self), n);
	for (uint64_t seed = 1; seed <= 4; seed++)
		sim_roundtrip(dev, seed << 20, 256 << 10, seed);
	fdma_close(dev);
	assert_int_equal(threads_on_only(cpu), before);
}

/* Requests that find their channel idle: asleep at once, or still polling. Seconds taken. */
static double roundtrips_with_gaps(const char *uri)
{
	struct fdma_dev *dev = sim_open(uri);
	int64_t t0 = sim_now_us();

	for (uint64_t seed = 1; seed <= 20; seed++) {
		sim_roundtrip(dev, (seed % 4) << 20, 4096 * seed, seed);
		usleep(seed % 2 ? 50 : 3000);
	}
	t0 = sim_now_us() - t0;
	fdma_close(dev);
	return t0 / 1e6;
}

static void test_poll_us_zero(void **state)
{
	(void)state;
	skip_unless_model();
	roundtrips_with_gaps("sim:poll_us=0");
}

/*
 * A request must end a poll at once, not when it runs out: polling for a
 * second, 20 round trips (40 requests) that missed their wake-ups would
 * take 40 s, and take 0.2 s here. The bound, 10 s, is far from both.
 */
static void test_poll_us_long(void **state)
{
	double secs;

	(void)state;
	skip_unless_model();
	secs = roundtrips_with_gaps("sim:poll_us=1000000");
	if (secs > 10)
		fail_msg("20 round trips took %.1f s: a polling channel missed its requests", secs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpus_places_channel_threads),
		cmocka_unit_test(test_poll_us_zero),
		cmocka_unit_test(test_poll_us_long),
	};

	return T_RUN(tests);
}
