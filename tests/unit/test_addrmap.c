// SPDX-License-Identifier: MIT
/*
 * Unit tests of the simulated device's bus address map (fdma_addrmap.h):
 * where regions land, what a bus address reaches, and the limits of each
 * mode. addr=32 (fdma_addrmap_init_low) must keep every byte of every
 * region below 4 GiB, so the engine's requests to it carry 3DW headers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "test_exit.h"

#include "fdma_addrmap.h"

static char mem[4][4096];

static void test_high(void **state)
{
	struct fdma_addrmap *m = malloc(sizeof(*m));
	uint64_t a, b;

	(void)state;
	assert_non_null(m);
	fdma_addrmap_init(m);
	assert_int_equal(fdma_addrmap_add(m, mem[0], 4096, &a), 0);
	assert_int_equal(fdma_addrmap_add(m, mem[1], 100, &b), 0);
	assert_true(a >= (1ull << 32) && b >= (1ull << 32) && a != b);
	assert_ptr_equal(fdma_addrmap_lookup(m, a + 10, 20), mem[0] + 10);
	assert_ptr_equal(fdma_addrmap_lookup(m, b, 100), mem[1]);
	assert_null(fdma_addrmap_lookup(m, b, 101));            /* past its end */
	assert_null(fdma_addrmap_lookup(m, a - 1, 1));           /* below the first window */
	assert_int_equal(fdma_addrmap_remove(m, a), 0);
	assert_null(fdma_addrmap_lookup(m, a, 1));
	assert_int_equal(fdma_addrmap_remove(m, b + 4), -EINVAL); /* not a region's start */
	fdma_addrmap_destroy(m);
	free(m);
}

static void test_low(void **state)
{
	struct fdma_addrmap *m = malloc(sizeof(*m));
	char *big = malloc(64u << 20);
	uint64_t a, last = 0;
	unsigned int n;

	(void)state;
	assert_non_null(m);
	assert_non_null(big);
	fdma_addrmap_init_low(m);
	/* the largest region: one window, 64 MiB; a byte more is refused */
	assert_int_equal(fdma_addrmap_add(m, big, 64ull << 20, &a), 0);
	assert_true(a + (64ull << 20) <= (1ull << 32));
	assert_ptr_equal(fdma_addrmap_lookup(m, a + (64ull << 20) - 1, 1), big + (64u << 20) - 1);
	assert_int_equal(fdma_addrmap_add(m, mem[1], (64ull << 20) + 1, &a), -EINVAL);
	/* 63 regions at once, every byte below 4 GiB; the 64th has no room */
	for (n = 1; n < FDMA_ADDRMAP_LOW_SLOTS; n++) {
		assert_int_equal(fdma_addrmap_add(m, mem[2], 4096, &a), 0);
		assert_true(a > last && a + 4096 <= (1ull << 32));
		last = a;
	}
	assert_int_equal(fdma_addrmap_add(m, mem[3], 4096, &a), -ENOSPC);
	assert_ptr_equal(fdma_addrmap_lookup(m, last + 8, 8), mem[2] + 8);
	/* an address at or above 4 GiB reaches nothing */
	assert_null(fdma_addrmap_lookup(m, 1ull << 32, 1));
	assert_null(fdma_addrmap_lookup(m, 1ull << 36, 1));
	assert_int_equal(fdma_addrmap_remove(m, last), 0);
	assert_int_equal(fdma_addrmap_add(m, mem[3], 4096, &a), 0);
	assert_int_equal(a, last);
	fdma_addrmap_destroy(m);
	free(m);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_high),
		cmocka_unit_test(test_low),
	};

	return T_RUN(tests);
}
