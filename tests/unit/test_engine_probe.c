// SPDX-License-Identifier: MIT
/*
 * The engine core (engine/fdma_engine.c) against a fake device
 * (engine_fake.h): memory formats, probe, completion status codes.
 */
#include "engine_fake.h"

/* ---- memory formats ---------------------------------------------------- */

static void test_layouts(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct fdma_desc), 32);
	assert_int_equal(offsetof(struct fdma_desc, src), 0);
	assert_int_equal(offsetof(struct fdma_desc, dst), 8);
	assert_int_equal(offsetof(struct fdma_desc, len), 16);
	assert_int_equal(offsetof(struct fdma_desc, ctrl), 20);
	assert_int_equal(offsetof(struct fdma_desc, cookie), 24);

	assert_int_equal(sizeof(struct fdma_cpl_rec), 16);
	assert_int_equal(offsetof(struct fdma_cpl_rec, cookie), 0);
	assert_int_equal(offsetof(struct fdma_cpl_rec, len), 8);
	assert_int_equal(offsetof(struct fdma_cpl_rec, status), 12);
	assert_int_equal(offsetof(struct fdma_cpl_rec, flags), 14);

	assert_int_equal(sizeof(struct fdma_wb), 64);
	assert_int_equal(offsetof(struct fdma_wb, cidx), 0);
	assert_int_equal(offsetof(struct fdma_wb, status), 4);
	assert_int_equal(offsetof(struct fdma_wb, overruns), 8);
	assert_int_equal(offsetof(struct fdma_wb, irqs), 12);

	assert_int_equal(sizeof(struct fdma_frame_hdr), 32);
	assert_int_equal(offsetof(struct fdma_frame_hdr, magic), 0);
	assert_int_equal(offsetof(struct fdma_frame_hdr, seq), 4);
	assert_int_equal(offsetof(struct fdma_frame_hdr, len), 8);
	assert_int_equal(offsetof(struct fdma_frame_hdr, crc), 12);
	assert_int_equal(offsetof(struct fdma_frame_hdr, tstamp_ns), 16);
	assert_int_equal(offsetof(struct fdma_frame_hdr, rsvd), 24);

	/* The channel blocks fit the 4 KiB register file and do not overlap. */
	assert_true(FDMA_CH_BASE(FDMA_MAX_CHANNELS - 1) + 0x80 <= 4096);
	assert_true(FDMA_CH_IRQS < 0x80);
	assert_true(FDMA_REG_RESET_ACK < FDMA_CH_BASE(0));
	assert_int_equal(FDMA_CH_ST_ERR_MASK,
			 FDMA_CH_ST_DESC_ERR | FDMA_CH_ST_ADDR_ERR |
			 FDMA_CH_ST_DATA_ERR | FDMA_CH_ST_ALIGN_ERR |
			 FDMA_CH_ST_RANGE_ERR | FDMA_CH_ST_LEN_ERR |
			 FDMA_CH_ST_OVERRUN);
}

/* ---- probe --------------------------------------------------------------- */

static void test_probe_ok(void **state)
{
	struct dev *d = *state;
	struct fdma_eng_caps caps;
	u32 c;

	*reg(d, FDMA_REG_CARD_SIZE_HI) = 2;	/* 8 GiB + 1 MiB: both halves read */
	memset(&caps, 0xa5, sizeof(caps));
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
	assert_int_equal(caps.version, FDMA_VERSION_MAJOR << 16 | FDMA_VERSION_MINOR);
	assert_int_equal(caps.nchan, NCHAN);
	assert_int_equal(caps.align, 64);
	assert_int_equal(caps.max_desc_len, MAXD);
	assert_int_equal(caps.ring_max, RING_MAX);
	assert_int_equal(caps.card_size, (2ull << 32) | CARD_SIZE);
	assert_true(caps.coalesce);
	assert_true(caps.testgen);
	assert_int_equal(caps.chan_caps[CH_H2C_MM], 0);
	assert_int_equal(caps.chan_caps[CH_C2H_MM], FDMA_CH_CAP_C2H);
	assert_int_equal(caps.chan_caps[CH_C2H_ST],
			 FDMA_CH_CAP_C2H | FDMA_CH_CAP_STREAM | FDMA_CH_CAP_TESTGEN);
	assert_int_equal(caps.chan_caps[CH_H2C_ST],
			 FDMA_CH_CAP_STREAM | FDMA_CH_CAP_TESTGEN);
	for (c = NCHAN; c < FDMA_MAX_CHANNELS; c++)
		assert_int_equal(caps.chan_caps[c], 0);

	/* Without the optional features the flags read false; a newer minor is fine. */
	*reg(d, FDMA_REG_CAPS) = FDMA_CAPS_MAKE(1, 12);
	*reg(d, FDMA_REG_VERSION) = 1u << 16 | 7;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
	assert_false(caps.coalesce);
	assert_false(caps.testgen);
	assert_int_equal(caps.nchan, 1);
	assert_int_equal(caps.align, 4096);
	assert_int_equal(caps.version, 0x00010007);
	assert_int_equal(caps.chan_caps[1], 0);
}

static void test_probe_bad_magic(void **state)
{
	struct dev *d = *state;
	struct fdma_eng_caps caps;

	*reg(d, FDMA_REG_ID) = 0x414d4446;	/* byte-swapped magic */
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -ENODEV);
	*reg(d, FDMA_REG_ID) = 0xffffffff;	/* a surprise-removed device */
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -ENODEV);
	*reg(d, FDMA_REG_ID) = 0;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -ENODEV);
}

static void test_probe_bad_version(void **state)
{
	struct dev *d = *state;
	struct fdma_eng_caps caps;

	*reg(d, FDMA_REG_VERSION) = 2u << 16;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_VERSION) = 0u << 16 | 9;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_VERSION) = 0xffffffff;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_VERSION) = 1u << 16;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
}

static void test_probe_bad_caps(void **state)
{
	struct dev *d = *state;
	struct fdma_eng_caps caps;

	*reg(d, FDMA_REG_CAPS) = FDMA_CAPS_MAKE(FDMA_MAX_CHANNELS + 1, 6);
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_CAPS) = FDMA_CAPS_MAKE(FDMA_MAX_CHANNELS, 6);
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
	*reg(d, FDMA_REG_CAPS) = FDMA_CAPS_MAKE(NCHAN, 13);
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_CAPS) = FDMA_CAPS_MAKE(NCHAN, 6);

	/* MAX_DESC_LEN smaller than the alignment rounds down to nothing. */
	*reg(d, FDMA_REG_MAX_DESC_LEN) = ALIGN - 1;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_MAX_DESC_LEN) = 0;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_MAX_DESC_LEN) = MAXD;

	*reg(d, FDMA_REG_RING_MAX) = 96;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_RING_MAX) = 1;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_RING_MAX) = 0;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), -EPROTO);
	*reg(d, FDMA_REG_RING_MAX) = 2;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
}

static void test_probe_rounds_max_desc_len(void **state)
{
	struct dev *d = *state;
	struct fdma_eng_caps caps;

	*reg(d, FDMA_REG_MAX_DESC_LEN) = MAXD + ALIGN - 1;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
	assert_int_equal(caps.max_desc_len, MAXD);
	*reg(d, FDMA_REG_MAX_DESC_LEN) = 0xffffffff;
	assert_int_equal(fdma_eng_probe(&fdma_eng_fdma, &d->plat, &caps), 0);
	assert_int_equal(caps.max_desc_len, 0xffffffc0);
}

/* ---- status codes -------------------------------------------------------- */

static void test_cpl_errno(void **state)
{
	(void)state;
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_OK), 0);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_DESC_ERR), -EIO);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_ADDR_ERR), -EFAULT);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_DATA_ERR), -EIO);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_ALIGN_ERR), -EINVAL);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_RANGE_ERR), -ERANGE);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_LEN_ERR), -EINVAL);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_TRUNC), -EMSGSIZE);
	assert_int_equal(fdma_cpl_errno(FDMA_CPL_CANCELED), -ECANCELED);
	assert_int_equal(fdma_cpl_errno(8), -EIO);
	assert_int_equal(fdma_cpl_errno(0x1234), -EIO);
}

static void test_cpl_str(void **state)
{
	static const u16 known[] = {
		FDMA_CPL_OK, FDMA_CPL_DESC_ERR, FDMA_CPL_ADDR_ERR,
		FDMA_CPL_DATA_ERR, FDMA_CPL_ALIGN_ERR, FDMA_CPL_RANGE_ERR,
		FDMA_CPL_LEN_ERR, FDMA_CPL_TRUNC, FDMA_CPL_CANCELED,
	};
	const size_t n = sizeof(known) / sizeof(known[0]);
	const char *unknown = fdma_cpl_str(8);
	size_t i, j;

	(void)state;
	assert_non_null(unknown);
	assert_string_equal(unknown, fdma_cpl_str(0x1234));
	assert_string_equal(fdma_cpl_str(FDMA_CPL_OK), "ok");
	for (i = 0; i < n; i++) {
		const char *s = fdma_cpl_str(known[i]);

		assert_non_null(s);
		assert_true(strlen(s) > 0);
		assert_string_not_equal(s, unknown);
		for (j = 0; j < i; j++)
			assert_string_not_equal(s, fdma_cpl_str(known[j]));
	}
	assert_non_null(strstr(fdma_cpl_str(FDMA_CPL_RANGE_ERR), "range"));
	assert_non_null(strstr(fdma_cpl_str(FDMA_CPL_CANCELED), "cancel"));
	assert_non_null(strstr(fdma_cpl_str(FDMA_CPL_ALIGN_ERR), "align"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layouts),
		T(test_probe_ok),
		T(test_probe_bad_magic),
		T(test_probe_bad_version),
		T(test_probe_bad_caps),
		T(test_probe_rounds_max_desc_len),
		cmocka_unit_test(test_cpl_errno),
		cmocka_unit_test(test_cpl_str),
	};

	return T_RUN_NAME("engine probe", tests);
}
