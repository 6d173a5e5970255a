// SPDX-License-Identifier: MIT
/*
 * Unit tests of the PCIe link model against figures computed by hand
 * (docs/link-model.md shows the same arithmetic). Rates in bytes/s.
 *
 * Shorthand in the comments: U = lanes * R * 0.997 (bytes/s a direction
 * carries after encoding and SKP); a posted write of p payload bytes costs
 * p + 8 + H on the wire (H = 16 for 4DW, 12 for 3DW, +4 with ECRC); a read
 * completion of C bytes costs C + 20.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "test_exit.h"

#include "fdma_link.h"

#define REL_TOL 1e-9

static void check_rel(double got, double want, const char *what, int line)
{
	double err = fabs(got - want) / fabs(want);

	if (!(err <= REL_TOL))
		fail_msg("line %d: %s = %.6f, expected %.6f (rel err %.3g)",
			 line, what, got, want, err);
}

#define assert_rel(got, want) check_rel((got), (want), #got, __LINE__)

static struct fdma_link_cfg cfg(unsigned gen, unsigned lanes, unsigned mps)
{
	struct fdma_link_cfg c;

	fdma_link_defaults(&c);
	c.gen = gen;
	c.lanes = lanes;
	c.mps = mps;
	return c;
}

/* A copy crosses the link both ways: the slower direction bounds it, whichever that is. */
static void test_copy_ceiling(void **state)
{
	struct fdma_link_cfg c;
	int read_slower = 0, write_slower = 0;

	(void)state;
	fdma_link_defaults(&c);
	/* Few tags and a long round trip make reads the slower direction. */
	for (unsigned int rtt = 800; rtt <= 80000; rtt *= 10) {
		double rd, wr;

		c.tags = 4;
		c.rtt_ns = rtt;
		rd = fdma_link_read_Bps(&c);
		wr = fdma_link_write_Bps(&c);
		assert_true(fdma_link_copy_Bps(&c) == (rd < wr ? rd : wr));
		read_slower += rd < wr;
		write_slower += wr < rd;
	}
	assert_true(read_slower > 0 && write_slower > 0);
	c.gen = 9;
	assert_true(fdma_link_copy_Bps(&c) == 0);
}

static void test_defaults(void **state)
{
	struct fdma_link_cfg c;
	char why[128] = "x";

	(void)state;
	memset(&c, 0xa5, sizeof(c));
	fdma_link_defaults(&c);
	assert_int_equal(c.gen, 2);
	assert_int_equal(c.lanes, 1);
	assert_int_equal(c.mps, 256);
	assert_int_equal(c.mrrs, 512);
	assert_int_equal(c.rcb, 0);
	assert_true(c.addr64);
	assert_false(c.ecrc);
	assert_false(c.dllp);
	assert_int_equal(c.tags, 32);
	assert_int_equal(c.rtt_ns, 800);
	assert_int_equal(c.irq_ns, 1000);
	assert_int_equal(fdma_link_validate(&c, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_int_equal(fdma_link_validate(&c, NULL, 0), 0);
	assert_null(fdma_link_bad_field(&c));
}

static void test_raw_per_gen(void **state)
{
	struct fdma_link_cfg c;

	(void)state;
	c = cfg(1, 1, 256);
	assert_rel(fdma_link_raw_Bps(&c), 249250000.0);	/* 250e6 * 0.997 */
	c = cfg(2, 1, 256);
	assert_rel(fdma_link_raw_Bps(&c), 498500000.0);	/* 500e6 * 0.997 */
	c = cfg(3, 1, 256);
	/* 8e9 * 128/130 / 8 = 984615384.6154; * 0.997 */
	assert_rel(fdma_link_raw_Bps(&c), 981661538.4615);
	c = cfg(4, 2, 256);
	/* 2 lanes * 2 * 984615384.6154 * 0.997 */
	assert_rel(fdma_link_raw_Bps(&c), 3926646153.8462);
	c = cfg(5, 4, 256);
	/* 4 lanes * 4 * 984615384.6154 * 0.997 */
	assert_rel(fdma_link_raw_Bps(&c), 15706584615.3846);
	c = cfg(3, 16, 256);
	/* 16 lanes * 984615384.6154 * 0.997, same as gen5 x4 */
	assert_rel(fdma_link_raw_Bps(&c), 15706584615.3846);
	/* Without the DLLP term nothing else is taken off. */
	assert_rel(fdma_link_tlp_Bps(&c), 15706584615.3846);
}

static void test_gen2_x1(void **state)
{
	struct fdma_link_cfg c = cfg(2, 1, 256);

	(void)state;
	/* 498.5e6 * 256 / (256 + 8 + 16) = 498.5e6 * 256/280 */
	assert_rel(fdma_link_write_Bps(&c), 455771428.5714);
	/* completions of 256: 498.5e6 * 256 / (256 + 20) */
	assert_rel(fdma_link_read_Bps(&c), 462376811.5942);
	assert_int_equal(fdma_link_cpl_bytes(&c), 256);
}

static void test_gen1_x1_mps128(void **state)
{
	struct fdma_link_cfg c = cfg(1, 1, 128);

	(void)state;
	/* 249.25e6 * 128 / 152 */
	assert_rel(fdma_link_write_Bps(&c), 209894736.8421);
	/* 249.25e6 * 128 / 148 */
	assert_rel(fdma_link_read_Bps(&c), 215567567.5676);
}

static void test_gen3_x8_mps256(void **state)
{
	struct fdma_link_cfg c = cfg(3, 8, 256);

	(void)state;
	/* U = 8 * 984615384.6154 * 0.997 = 7853292307.69; * 256/280 */
	assert_rel(fdma_link_write_Bps(&c), 7180152967.0330);
	/* U * 256/276 */
	assert_rel(fdma_link_read_Bps(&c), 7284213154.9610);
	c.addr64 = false;
	/* U * 256/276 */
	assert_rel(fdma_link_write_Bps(&c), 7284213154.9610);
}

static void test_gen3_x4_mps256(void **state)
{
	struct fdma_link_cfg c = cfg(3, 4, 256);

	(void)state;
	/* U = 4 * 984615384.6154 * 0.997 = 3926646153.85; * 256/280 */
	assert_rel(fdma_link_write_Bps(&c), 3590076483.5165);
	/* U * 256/276 */
	assert_rel(fdma_link_read_Bps(&c), 3642106577.4805);
}

static void test_gen5_x16_mps512(void **state)
{
	struct fdma_link_cfg c = cfg(5, 16, 512);

	(void)state;
	/* U = 16 * 4 * 984615384.6154 * 0.997 = 62826338461.54; * 512/536 */
	assert_rel(fdma_link_write_Bps(&c), 60013218828.9323);
	/* link: U * 512/532 = 60464446038.17, but 32 tags * 512 B / 800 ns
	 * = 20.48e9 binds */
	assert_rel(fdma_link_read_Bps(&c), 20480000000.0);
	/* 95 tags: 95 * 512 / 800e-9 = 60.8e9 > link, so the link binds */
	c.tags = 95;
	assert_rel(fdma_link_read_Bps(&c), 60464446038.1724);
}

static void test_3dw_vs_4dw(void **state)
{
	struct fdma_link_cfg c = cfg(2, 1, 256);
	double w4, w3, r4;

	(void)state;
	w4 = fdma_link_write_Bps(&c);
	r4 = fdma_link_read_Bps(&c);
	c.addr64 = false;
	w3 = fdma_link_write_Bps(&c);
	/* 498.5e6 * 256 / (256 + 8 + 12) */
	assert_rel(w3, 462376811.5942);
	assert_true(w3 > w4);
	/* completions have a 3DW header whatever the request format */
	assert_rel(fdma_link_read_Bps(&c), r4);
	/* gen1 x1 MPS 128 3DW: 249.25e6 * 128 / 148 */
	c = cfg(1, 1, 128);
	c.addr64 = false;
	assert_rel(fdma_link_write_Bps(&c), 215567567.5676);
}

static void test_ecrc(void **state)
{
	struct fdma_link_cfg c = cfg(2, 1, 256);

	(void)state;
	c.ecrc = true;
	/* 498.5e6 * 256 / (256 + 8 + 16 + 4) */
	assert_rel(fdma_link_write_Bps(&c), 449352112.6761);
	/* 498.5e6 * 256 / (256 + 20 + 4) */
	assert_rel(fdma_link_read_Bps(&c), 455771428.5714);
	c.addr64 = false;
	/* 498.5e6 * 256 / (256 + 8 + 12 + 4) */
	assert_rel(fdma_link_write_Bps(&c), 455771428.5714);
}

static void test_rcb_split(void **state)
{
	struct fdma_link_cfg c = cfg(2, 1, 256);

	(void)state;
	c.rcb = 64;
	assert_int_equal(fdma_link_cpl_bytes(&c), 64);
	/* 498.5e6 * 64 / 84 */
	assert_rel(fdma_link_read_Bps(&c), 379809523.8095);
	c.rcb = 128;
	assert_int_equal(fdma_link_cpl_bytes(&c), 128);
	/* 498.5e6 * 128 / 148 */
	assert_rel(fdma_link_read_Bps(&c), 431135135.1351);
	/* writes do not care about the RCB: 498.5e6 * 256/280 */
	assert_rel(fdma_link_write_Bps(&c), 455771428.5714);
	/* an RCB above the MPS does not split further */
	c.mps = 128;
	assert_int_equal(fdma_link_cpl_bytes(&c), 128);
	/* a completion never exceeds the request: MRRS 128 < MPS 256 */
	c = cfg(2, 1, 256);
	c.mrrs = 128;
	assert_int_equal(fdma_link_cpl_bytes(&c), 128);
	assert_rel(fdma_link_read_Bps(&c), 431135135.1351);
}

static void test_tags_bind(void **state)
{
	struct fdma_link_cfg c = cfg(3, 16, 256);

	(void)state;
	/* link: 16 * 984615384.6154 * 0.997 * 256/276; 32 tags give 20.48e9 */
	assert_rel(fdma_link_read_Bps(&c), 14568426309.9220);
	assert_string_equal(fdma_link_read_limit(&c), "link");
	c.tags = 4;
	/* 4 * 512 B / 800e-9 s */
	assert_rel(fdma_link_read_Bps(&c), 2560000000.0);
	assert_string_equal(fdma_link_read_limit(&c), "tags");
	c.rtt_ns = 1600;
	/* 4 * 512 / 1600e-9 */
	assert_rel(fdma_link_read_Bps(&c), 1280000000.0);
	c.mrrs = 4096;
	/* 4 * 4096 / 1600e-9 */
	assert_rel(fdma_link_read_Bps(&c), 10240000000.0);
	/* posted writes do not wait for anything: U * 256/280 */
	assert_rel(fdma_link_write_Bps(&c), 14360305934.0659);
}

static void test_dllp(void **state)
{
	struct fdma_link_cfg c = cfg(3, 8, 256);

	(void)state;
	c.dllp = true;
	/* Ack limit gen3 x8 MPS 256 = 203 symbol times:
	 * 8 * 984615384.6154 * (0.997 - 16/203) = 7232451079.95 (57.86 Gb/s) */
	assert_rel(fdma_link_tlp_Bps(&c), 7232451079.9545);
	/* raw stays encoding + SKP only */
	assert_rel(fdma_link_raw_Bps(&c), 7853292307.6923);
	/* 7232451079.95 * 256/280 */
	assert_rel(fdma_link_write_Bps(&c), 6612526701.6727);
	c = cfg(2, 1, 256);
	c.dllp = true;
	/* limit 467: 500e6 * (0.997 - 16/467) * 256/280 */
	assert_rel(fdma_link_write_Bps(&c), 440109146.5280);
	c = cfg(5, 16, 512);
	c.dllp = true;
	/* limit 182: 16 * 4 * 984615384.6154 * (0.997 - 16/182) * 512/536 */
	assert_rel(fdma_link_write_Bps(&c), 54721456171.3831);
}

static void test_partial_tlp(void **state)
{
	struct fdma_link_cfg c = cfg(2, 1, 256);
	struct fdma_link_cost k;

	(void)state;
	/* C2H 320 = MPS + 64: two writes 320 + 2*24, completion record
	 * 16 + 24, write-back 4 + 24: 436 up; descriptor 32 + 20 down */
	assert_int_equal(fdma_link_xfer_cost(&c, FDMA_LINK_C2H, 320, &k), 0);
	assert_int_equal(k.up_bytes, 436);
	assert_int_equal(k.down_bytes, 52);
	assert_int_equal(k.read_reqs, 0);
	/* 498.5e6 * 320/436 */
	assert_rel(fdma_link_xfer_Bps(&c, FDMA_LINK_C2H, 320), 365871559.6330);
	/* one MPS less 64 bytes saves a whole TLP header: 256 + 24 + 68 */
	assert_int_equal(fdma_link_xfer_cost(&c, FDMA_LINK_C2H, 256, &k), 0);
	assert_int_equal(k.up_bytes, 348);

	/* H2C 320: one request; completions 256 + 64 each + 20, plus the
	 * descriptor 32 + 20: 412 down; request 24 + 40 + 28 = 92 up */
	assert_int_equal(fdma_link_xfer_cost(&c, FDMA_LINK_H2C, 320, &k), 0);
	assert_int_equal(k.down_bytes, 412);
	assert_int_equal(k.up_bytes, 92);
	assert_int_equal(k.read_reqs, 1);
	/* 498.5e6 * 320/412 */
	assert_rel(fdma_link_xfer_Bps(&c, FDMA_LINK_H2C, 320), 387184466.0194);

	/* 513 bytes: 2 requests, 3 completions (256, 256, 1):
	 * down 513 + 3*20 + 52 = 625, up 2*24 + 68 = 116 */
	assert_int_equal(fdma_link_xfer_cost(&c, FDMA_LINK_H2C, 513, &k), 0);
	assert_int_equal(k.down_bytes, 625);
	assert_int_equal(k.up_bytes, 116);
	assert_int_equal(k.read_reqs, 2);
	/* RCB 64 splits the 320 into five completions: 320 + 5*20 + 52 */
	c.rcb = 64;
	assert_int_equal(fdma_link_xfer_cost(&c, FDMA_LINK_H2C, 320, &k), 0);
	assert_int_equal(k.down_bytes, 472);
	assert_int_equal(fdma_link_xfer_cost(&c, 2, 320, &k), -EINVAL);
}

static void test_xfer_converges(void **state)
{
	struct fdma_link_cfg c = cfg(3, 8, 256);
	uint64_t big = 1ull << 30;

	(void)state;
	/* 68 descriptor bytes in 1.17e9 on the wire: under 1e-7 off */
	assert_true(fabs(fdma_link_xfer_Bps(&c, FDMA_LINK_C2H, big) /
			 fdma_link_write_Bps(&c) - 1.0) < 1e-7);
	assert_true(fabs(fdma_link_xfer_Bps(&c, FDMA_LINK_H2C, big) /
			 fdma_link_read_Bps(&c) - 1.0) < 1e-7);
	/* the size-dependent figure never beats the ceiling */
	assert_true(fdma_link_xfer_Bps(&c, FDMA_LINK_C2H, big) <
		    fdma_link_write_Bps(&c));
	assert_true(fdma_link_xfer_Bps(&c, FDMA_LINK_H2C, 4096) <
		    fdma_link_read_Bps(&c));
}

static void test_xfer_ns(void **state)
{
	struct fdma_link_cfg c = cfg(2, 1, 256);

	(void)state;
	/* 436 / 498.5e6 s = 874.62 ns */
	assert_int_equal(fdma_link_xfer_ns(&c, FDMA_LINK_C2H, 320, false), 875);
	/* posted writes do not wait for a round trip */
	assert_int_equal(fdma_link_xfer_ns(&c, FDMA_LINK_C2H, 320, true), 875);
	/* 412 / 498.5e6 s = 826.48 ns */
	assert_int_equal(fdma_link_xfer_ns(&c, FDMA_LINK_H2C, 320, false), 826);
	/* + rtt 800 from idle */
	assert_int_equal(fdma_link_xfer_ns(&c, FDMA_LINK_H2C, 320, true), 1626);
	c.rtt_ns = 2000;
	assert_int_equal(fdma_link_xfer_ns(&c, FDMA_LINK_H2C, 320, true), 2826);
	/* an idle engine's descriptor fetch: one round trip */
	assert_int_equal(fdma_link_fetch_ns(&c), 2000);
	c.rtt_ns = 0;
	assert_int_equal(fdma_link_fetch_ns(&c), 0);
	c.rtt_ns = 2000;

	/* gen3 x16, 4 tags, 1 MiB: 2048 requests * 800 ns / 4 = 409600 ns,
	 * the link alone would need 1130548 B / 15.71e9 B/s = 71979 ns */
	c = cfg(3, 16, 256);
	c.tags = 4;
	assert_int_equal(fdma_link_xfer_ns(&c, FDMA_LINK_H2C, 1 << 20, false),
			 409600);
	c.tags = 32;
	assert_int_equal(fdma_link_xfer_ns(&c, FDMA_LINK_H2C, 1 << 20, false),
			 71979);
}

/* Pacing time never shrinks as a transfer grows, in either direction. */
static void check_monotonic(const struct fdma_link_cfg *c, int dir)
{
	uint64_t prev = 0, sz, t;

	for (sz = 0; sz <= 9000; sz++) {
		t = fdma_link_xfer_ns(c, dir, sz, false);
		if (t < prev)
			fail_msg("dir %d: %llu bytes take %llu ns < %llu ns",
				 dir, (unsigned long long)sz,
				 (unsigned long long)t,
				 (unsigned long long)prev);
		prev = t;
	}
	/* one more MRRS is more TLPs and, for reads, one more tag (the
	 * bound once the link outruns 8 tags): strictly more time */
	for (sz = 256; sz <= (1u << 20); sz *= 2)
		assert_true(fdma_link_xfer_ns(c, dir, sz + 512, false) >
			    fdma_link_xfer_ns(c, dir, sz, false));
}

static void test_xfer_ns_monotonic(void **state)
{
	static const unsigned gens[] = { 1, 3, 5 };
	struct fdma_link_cfg c;
	unsigned g, rcb;

	(void)state;
	for (g = 0; g < 3; g++) {
		for (rcb = 0; rcb <= 64; rcb += 64) {
			c = cfg(gens[g], gens[g] == 1 ? 1 : 8, 256);
			c.rcb = rcb;
			c.tags = 8;
			check_monotonic(&c, FDMA_LINK_H2C);
			check_monotonic(&c, FDMA_LINK_C2H);
		}
	}
}

static void test_from_idle(void **state)
{
	struct fdma_link_cfg c = cfg(3, 8, 512);
	uint64_t sz, cold, warm;

	(void)state;
	c.rtt_ns = 1234;
	for (sz = 1; sz <= (1u << 22); sz *= 4) {
		cold = fdma_link_xfer_ns(&c, FDMA_LINK_H2C, sz, true);
		warm = fdma_link_xfer_ns(&c, FDMA_LINK_H2C, sz, false);
		assert_int_equal(cold - warm, 1234);
		cold = fdma_link_xfer_ns(&c, FDMA_LINK_C2H, sz, true);
		warm = fdma_link_xfer_ns(&c, FDMA_LINK_C2H, sz, false);
		assert_int_equal(cold, warm);
	}
}

static void expect_bad(struct fdma_link_cfg *c, const char *field)
{
	char why[160];
	size_t n = strlen(field);

	memset(why, 0, sizeof(why));
	assert_int_equal(fdma_link_validate(c, why, sizeof(why)), -EINVAL);
	/* the message starts with the field's name and lists what is allowed */
	if (strncmp(why, field, n) != 0 || why[n] != ' ' ||
	    !strstr(why, "must be"))
		fail_msg("message for %s: \"%s\"", field, why);
	assert_string_equal(fdma_link_bad_field(c), field);
	assert_int_equal(fdma_link_validate(c, NULL, 0), -EINVAL);
	/* an invalid configuration yields no figures */
	assert_true(fdma_link_raw_Bps(c) == 0.0);
	assert_true(fdma_link_write_Bps(c) == 0.0);
	assert_true(fdma_link_read_Bps(c) == 0.0);
	assert_null(fdma_link_read_limit(c));
	assert_int_equal(fdma_link_xfer_ns(c, FDMA_LINK_H2C, 4096, true), 0);
}

static void test_validate(void **state)
{
	struct fdma_link_cfg c;
	char tiny[4];

	(void)state;
	c = cfg(0, 1, 256);
	expect_bad(&c, "gen");
	c = cfg(6, 1, 256);
	expect_bad(&c, "gen");
	c = cfg(2, 3, 256);
	expect_bad(&c, "lanes");
	c = cfg(2, 32, 256);
	expect_bad(&c, "lanes");
	c = cfg(2, 1, 100);
	expect_bad(&c, "mps");
	c = cfg(2, 1, 8192);
	expect_bad(&c, "mps");
	c = cfg(2, 1, 256);
	c.mrrs = 8192;
	expect_bad(&c, "mrrs");
	c = cfg(2, 1, 256);
	c.mrrs = 384;
	expect_bad(&c, "mrrs");
	c = cfg(2, 1, 256);
	c.rcb = 32;
	expect_bad(&c, "rcb");
	c = cfg(2, 1, 256);
	c.tags = 0;
	expect_bad(&c, "tags");
	c = cfg(2, 1, 256);
	c.rtt_ns = 0;
	expect_bad(&c, "rtt_ns");

	/* the message is cut, not overrun */
	c = cfg(6, 1, 256);
	memset(tiny, 'x', sizeof(tiny));
	assert_int_equal(fdma_link_validate(&c, tiny, sizeof(tiny)), -EINVAL);
	assert_string_equal(tiny, "gen");

	/* each edge of each range is accepted */
	c = cfg(5, 16, 4096);
	c.mrrs = 128;
	c.rcb = 128;
	c.tags = 1024;
	c.rtt_ns = 1;
	assert_int_equal(fdma_link_validate(&c, NULL, 0), 0);
	c = cfg(1, 1, 128);
	c.mrrs = 4096;
	c.tags = 1;
	assert_int_equal(fdma_link_validate(&c, NULL, 0), 0);
}

static void test_describe(void **state)
{
	struct fdma_link_cfg c;
	char buf[128];

	(void)state;
	fdma_link_defaults(&c);
	fdma_link_describe(&c, buf, sizeof(buf));
	assert_string_equal(buf, "gen2 x1 MPS 256 MRRS 512");
	c = cfg(3, 8, 512);
	c.rcb = 64;
	c.addr64 = false;
	c.ecrc = true;
	c.dllp = true;
	c.tags = 64;
	c.rtt_ns = 500;
	fdma_link_describe(&c, buf, sizeof(buf));
	assert_string_equal(buf, "gen3 x8 MPS 512 MRRS 512 RCB 64 3DW ECRC DLLP "
			    "tags 64 rtt 500 ns");
	memset(buf, 'x', sizeof(buf));
	fdma_link_describe(&c, buf, 12);
	assert_string_equal(buf, "gen3 x8 MPS");
	assert_int_equal(buf[12], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_raw_per_gen),
		cmocka_unit_test(test_gen2_x1),
		cmocka_unit_test(test_gen1_x1_mps128),
		cmocka_unit_test(test_gen3_x8_mps256),
		cmocka_unit_test(test_gen3_x4_mps256),
		cmocka_unit_test(test_gen5_x16_mps512),
		cmocka_unit_test(test_3dw_vs_4dw),
		cmocka_unit_test(test_ecrc),
		cmocka_unit_test(test_rcb_split),
		cmocka_unit_test(test_tags_bind),
		cmocka_unit_test(test_dllp),
		cmocka_unit_test(test_partial_tlp),
		cmocka_unit_test(test_xfer_converges),
		cmocka_unit_test(test_xfer_ns),
		cmocka_unit_test(test_xfer_ns_monotonic),
		cmocka_unit_test(test_from_idle),
		cmocka_unit_test(test_validate),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_copy_ceiling),
	};

	return T_RUN(tests);
}
