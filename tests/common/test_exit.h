/* SPDX-License-Identifier: MIT */
/*
 * The exit contract of every test program, in every tier (liburing's
 * test/helpers.h): T_EXIT_PASS 0, T_EXIT_FAIL 1, T_EXIT_SKIP 77 (nothing
 * here to test: the device, tool or kernel lacks the feature). The
 * command-line scripts keep it through tests/cli/lib.sh's finish; a
 * cmocka program ends with T_RUN(tests), and a test that cannot run here
 * calls t_skip() (cmocka's skip(), counted).
 */
#ifndef FDMA_TEST_EXIT_H
#define FDMA_TEST_EXIT_H

#include <stddef.h>

#define T_EXIT_PASS	0
#define T_EXIT_FAIL	1
#define T_EXIT_SKIP	77

/* Tests of this program that skipped (tests/common/sim_util.c). */
extern unsigned int t_skipped;

#define t_skip() do { t_skipped++; skip(); } while (0)

/* failed: cmocka's count of failed tests; ntests: the group's size. */
static inline int t_exit(int failed, size_t ntests)
{
	if (failed)
		return T_EXIT_FAIL;
	return ntests && t_skipped >= ntests ? T_EXIT_SKIP : T_EXIT_PASS;
}

#define T_RUN(tests) \
	t_exit(cmocka_run_group_tests(tests, NULL, NULL), sizeof(tests) / sizeof((tests)[0]))
#define T_RUN_NAME(name, tests) \
	t_exit(cmocka_run_group_tests_name(name, tests, NULL, NULL), sizeof(tests) / sizeof((tests)[0]))

#endif /* FDMA_TEST_EXIT_H */
