// SPDX-License-Identifier: MIT
/*
 * Where the device model's channel threads run (sim: options cpus= and
 * poll_us=). With cpus=N every channel thread is on CPU N alone, and only
 * while the device is open; the device moves data as it does anywhere.
 * poll_us=0 (sleep as soon as idle) and a long poll_us both start every
 * request, whether it finds its channel asleep or polling.
 */
#include <dirent.h>
#include <sched.h>
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
		skip();
	}
}

static void test_cpus_places_channel_threads(void **state)
{
	cpu_set_t self;
	unsigned int before, nchan;
	struct fdma_info info;
	struct fdma_dev *dev;

	(void)state;
	skip_unless_model();
	/* A process started on CPU 0 alone would count its own threads there. */
	assert_int_equal(sched_getaffinity(0, sizeof(self), &self), 0);
	if (CPU_COUNT(&self) == 1)
		skip();
	before = threads_on_only(0);
	dev = sim_open("sim:cpus=0");
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	nchan = info.nchan;
	/* One thread per channel, each on CPU 0 alone; the caller is not moved. */
	assert_int_equal(threads_on_only(0), before + nchan);
	assert_int_equal(sched_getaffinity(0, sizeof(self), &self), 0);
	assert_true(CPU_COUNT(&self) > 1);
	for (uint64_t seed = 1; seed <= 4; seed++)
		sim_roundtrip(dev, seed << 20, 256 << 10, seed);
	fdma_close(dev);
	assert_int_equal(threads_on_only(0), before);
}

/* Requests that find their channel idle: asleep at once, or still polling. */
static void roundtrips_with_gaps(const char *uri)
{
	struct fdma_dev *dev = sim_open(uri);

	for (uint64_t seed = 1; seed <= 20; seed++) {
		sim_roundtrip(dev, (seed % 4) << 20, 4096 * seed, seed);
		usleep(seed % 2 ? 50 : 3000);
	}
	fdma_close(dev);
}

static void test_poll_us_zero(void **state)
{
	(void)state;
	skip_unless_model();
	roundtrips_with_gaps("sim:poll_us=0");
}

static void test_poll_us_long(void **state)
{
	(void)state;
	skip_unless_model();
	roundtrips_with_gaps("sim:poll_us=1000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpus_places_channel_threads),
		cmocka_unit_test(test_poll_us_zero),
		cmocka_unit_test(test_poll_us_long),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
