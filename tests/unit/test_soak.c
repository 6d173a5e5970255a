// SPDX-License-Identifier: MIT
/*
 * Unit tests of fdma soak's arithmetic (tools/soak_stats.c) and of the
 * test pattern every checked transfer of bench and soak rests on
 * (tools/util.c): percentiles from the log histogram against the exact
 * ones, the exact mean and largest value, merging, the fitted slope, the
 * power sensors of a hwmon tree, and patterns whose tags differ only in
 * high bits (card addresses past 16 MiB) that must not fill alike.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_exit.h"

#include "soak.h"
#include "util.h"

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Latencies of a long tail, as a loaded queue's: the histogram within 2.2% of the exact figures. */
static void test_hist_percentiles(void **state)
{
	enum { N = 200000 };
	double *v = malloc(N * sizeof(*v)), sum = 0;
	struct soak_hist *h = calloc(1, sizeof(*h));
	const double pcts[] = { 1, 10, 50, 90, 99, 99.9 };

	(void)state;
	assert_non_null(v);
	assert_non_null(h);
	srand(7);
	for (int i = 0; i < N; i++) {
		double u = (rand() + 1.0) / (RAND_MAX + 2.0);

		v[i] = 5 + 40 * -log(u) + (i % 1000 == 0 ? 5000 * u : 0);
		sum += v[i];
		soak_hist_add(h, v[i]);
	}
	qsort(v, N, sizeof(*v), cmp_d);
	assert_int_equal(h->n, N);
	for (size_t k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
		double exact = v[(size_t)ceil(N * pcts[k] / 100) - 1], got = soak_hist_pct(h, pcts[k]);

		if (fabs(got - exact) > 0.022 * exact)
			fail_msg("p%g: %.3f us, exact %.3f", pcts[k], got, exact);
	}
	/* The largest and the mean are exact, not binned. */
	assert_true(soak_hist_pct(h, 100) == v[N - 1]);
	assert_true(h->max == v[N - 1]);
	assert_true(fabs(h->sum / h->n - sum / N) < 1e-9 * sum / N);
	free(v);
	free(h);
}

static void test_hist_merge_and_edges(void **state)
{
	struct soak_hist *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));

	(void)state;
	assert_true(soak_hist_pct(a, 50) == 0);
	soak_hist_add(a, 0);		/* below the first bucket */
	soak_hist_add(a, 1e12);		/* past the last */
	assert_int_equal(a->n, 2);
	assert_true(soak_hist_pct(a, 100) == 1e12);
	for (int i = 0; i < 100; i++)
		soak_hist_add(b, 100);
	soak_hist_merge(a, b);
	assert_int_equal(a->n, 102);
	assert_true(a->max == 1e12);
	/* A single value: every percentile is it (within the bucket, capped by the max). */
	assert_true(fabs(soak_hist_pct(b, 50) - 100) <= 2.2);
	assert_true(soak_hist_pct(b, 99.9) <= 100);
	free(a);
	free(b);
}

static void test_slope(void **state)
{
	double x[5] = { 0, 1, 2, 3, 4 }, y[5];

	(void)state;
	for (int i = 0; i < 5; i++)
		y[i] = 10 - 2.5 * x[i];
	assert_true(fabs(soak_slope(x, y, 5) + 2.5) < 1e-12);
	assert_true(soak_slope(x, y, 1) == 0);
	x[1] = x[2] = x[3] = x[4] = 0;
	assert_true(soak_slope(x, y, 5) == 0);	/* no spread in x */
}

static void put(const char *dir, const char *file, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_power(void **state)
{
	char root[] = "/tmp/fdma-hwmon.XXXXXX", d[300];
	struct soak_power pw;

	(void)state;
	assert_non_null(mkdtemp(root));
	assert_int_equal(soak_power_read(root, &pw), 0);
	snprintf(d, sizeof(d), "%s/hwmon0", root);
	mkdir(d, 0755);
	put(d, "name", "ina3221\n");
	put(d, "in1_label", "VDD_IN\n");
	put(d, "in1_input", "5000\n");
	put(d, "curr1_input", "1500\n");
	put(d, "in2_input", "1800\n");		/* a voltage without its current: no power */
	snprintf(d, sizeof(d), "%s/hwmon1", root);
	mkdir(d, 0755);
	put(d, "power1_input", "3250000\n");	/* no name file: the directory's */
	assert_int_equal(soak_power_read(root, &pw), 2);
	assert_string_equal(pw.name[0], "ina3221/VDD_IN");
	assert_true(fabs(pw.watts[0] - 7.5) < 1e-9);
	assert_string_equal(pw.name[1], "hwmon1/power1");
	assert_true(fabs(pw.watts[1] - 3.25) < 1e-9);
	assert_int_equal(system("rm -rf /tmp/fdma-hwmon.*"), 0);
}

/*
 * Tags that differ anywhere fill differently: a card address is a region's
 * tag, and windows of a sweep are 64 MiB apart (bit 26 and up).
 */
static void test_pattern_tags(void **state)
{
	uint8_t a[4096], b[4096];
	const uint64_t tags[] = { 0, 1, 1ull << 24, 1ull << 26, 3ull << 26, 1ull << 40,
				  1ull << 62, (1ull << 62) | (1ull << 24), UINT64_MAX };
	const size_t n = sizeof(tags) / sizeof(tags[0]);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		tool_pat_fill(a, sizeof(a), tags[i]);
		assert_int_equal(tool_pat_check(a, sizeof(a), tags[i]), 0);
		for (size_t j = 0; j < n; j++) {
			if (i == j)
				continue;
			tool_pat_fill(b, sizeof(b), tags[j]);
			if (tool_pat_check(b, sizeof(b), tags[i]) == 0)
				fail_msg("tag %#llx's block passes for %#llx's",
					 (unsigned long long)tags[j], (unsigned long long)tags[i]);
		}
	}
	/* Zeros, and a copy shifted by a word, fail too. */
	memset(b, 0, sizeof(b));
	assert_true(tool_pat_check(b, sizeof(b), 5) > 0);
	tool_pat_fill(b, sizeof(b), 5);
	assert_true(tool_pat_check(b + 8, sizeof(b) - 8, 5) > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_percentiles),
		cmocka_unit_test(test_hist_merge_and_edges),
		cmocka_unit_test(test_slope),
		cmocka_unit_test(test_power),
		cmocka_unit_test(test_pattern_tags),
	};

	return t_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof(tests) / sizeof(tests[0]));
}
