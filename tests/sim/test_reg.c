// SPDX-License-Identifier: MIT
/*
 * Registers: fdma_reg_read() sees the engine's registers as the library
 * set them (ID, the channel's ring size); fdma_reg_write() refuses the
 * engine's registers without FDMA_REG_FORCE and leaves them as they were;
 * a forced write lands; bad BARs, offsets and flags are errors naming
 * what was wrong; the device still moves data afterwards. 8- and 16-bit
 * reads see the lanes of the 32-bit word; a narrower write is refused by
 * the simulated devices, whose registers are the engine's 32-bit ones.
 */
#include <string.h>

#include "sim_util.h"
#include "fdma_plat.h"
#include "fdma_regs.h"

static void test_read(void **state)
{
	struct fdma_dev *dev;
	uint32_t v = 0;

	(void)state;
	sim_require_model("the simulated device's BAR0 layout");
	dev = sim_open("sim:paced=0,ring=64");
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, FDMA_REG_ID, &v));
	assert_int_equal(v, FDMA_ID_MAGIC);
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, FDMA_CH_BASE(1) + FDMA_CH_RING_SIZE, &v));
	assert_int_equal(v, 64);
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, 4092, &v));
	fdma_close(dev);
}

static void test_write(void **state)
{
	struct fdma_dev *dev;
	uint32_t reg = FDMA_CH_BASE(0) + FDMA_CH_COAL_COUNT, v = 0, before = 0;

	(void)state;
	sim_require_model("the simulated device's BAR0 layout");
	dev = sim_open("sim:paced=0");
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, reg, &before));
	assert_fdma_err(dev, fdma_reg_write(dev, 0, reg, before + 5, 0), -EPERM, "FDMA_REG_FORCE");
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, reg, &v));
	assert_int_equal(v, before);
	assert_fdma_ok(dev, fdma_reg_write(dev, 0, reg, before + 5, FDMA_REG_FORCE));
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, reg, &v));
	assert_int_equal(v, before + 5);
	assert_fdma_ok(dev, fdma_reg_write(dev, 0, reg, before, FDMA_REG_FORCE));
	sim_roundtrip(dev, 0, 256 << 10, 41);
	fdma_close(dev);
}

static void test_bad(void **state)
{
	struct fdma_dev *dev;
	uint32_t v;

	(void)state;
	sim_require_model("the simulated device's BAR0 layout");
	dev = sim_open("sim:paced=0");
	assert_fdma_err(dev, fdma_reg_read(dev, 6, 0, &v), -EINVAL, "BAR0..BAR5");
	assert_fdma_err(dev, fdma_reg_read(dev, 0, 2, &v), -EINVAL, "multiple of 4");
	assert_fdma_err(dev, fdma_reg_read(dev, 0, 0, NULL), -EINVAL, "value is NULL");
	assert_fdma_err(dev, fdma_reg_write(dev, 0, 0x100, 0, 0x80), -EINVAL, "unknown flags");
	assert_fdma_err(dev, fdma_reg_read(dev, 2, 0, &v), -ENXIO, "BAR0 only");
	assert_fdma_err(dev, fdma_reg_read(dev, 0, 4096, &v), -ERANGE, "4096 bytes");
	assert_fdma_err(dev, fdma_reg_read(dev, 0, ~3ull, &v), -ERANGE, "beyond");
	assert_int_equal(fdma_reg_read(NULL, 0, 0, &v), -EBADF);
	fdma_close(dev);
	assert_int_equal(fdma_reg_read(dev, 0, 0, &v), -EBADF);
}

/* Any in-process device (FDMA, XDMA, the RTL): the lanes of a register's word. */
static void test_width(void **state)
{
	struct fdma_dev *dev;
	struct fdma_info info;
	uint32_t v, w, before;

	(void)state;
	if (sim_target()) {
		print_message("checks the simulated device's BAR0: skipped on %s\n", sim_target());
		t_skip();
	}
	dev = sim_open("sim:paced=0");
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	/* The first two words: an ID and a control register on each engine, neither cleared by a read. */
	for (uint32_t off = 0; off < 8; off += 4) {
		assert_fdma_ok(dev, fdma_reg_read(dev, 0, off, &w));
		for (uint32_t k = 0; k < 4; k++) {
			v = 0xdeadbeef;
			assert_fdma_ok(dev, fdma_reg_read_flags(dev, 0, off + k, &v, FDMA_REG_8));
			assert_int_equal(v, (w >> (8 * k)) & 0xff);
		}
		for (uint32_t k = 0; k < 4; k += 2) {
			v = 0xdeadbeef;
			assert_fdma_ok(dev, fdma_reg_read_flags(dev, 0, off + k, &v, FDMA_REG_16));
			assert_int_equal(v, (w >> (8 * k)) & 0xffff);
		}
		v = 0;
		assert_fdma_ok(dev, fdma_reg_read_flags(dev, 0, off, &v, 0));
		assert_int_equal(v, w);
	}
	if (!strcmp(info.engine, "fdma")) {
		assert_fdma_ok(dev, fdma_reg_read_flags(dev, 0, 3, &v, FDMA_REG_8));
		assert_int_equal(v, FDMA_ID_MAGIC >> 24);	/* 'F' of "FDMA" */
	}
	assert_fdma_err(dev, fdma_reg_read_flags(dev, 0, 1, &v, FDMA_REG_16), -EINVAL,
			"multiple of 2");
	assert_fdma_err(dev, fdma_reg_read_flags(dev, 0, 0, &v, FDMA_REG_8 | FDMA_REG_16), -EINVAL,
			"one width");
	assert_fdma_err(dev, fdma_reg_read_flags(dev, 0, 0, &v, 0x80), -EINVAL, "unknown flags");
	assert_fdma_err(dev, fdma_reg_write(dev, 0, 4, 0x100, FDMA_REG_8 | FDMA_REG_FORCE), -EINVAL,
			"does not fit in 8 bits");
	assert_fdma_err(dev, fdma_reg_write(dev, 0, 4, 0x10000, FDMA_REG_16 | FDMA_REG_FORCE),
			-EINVAL, "does not fit in 16 bits");
	/* A narrower write the 32-bit register file cannot take, forced or not: nothing changes. */
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, 4, &before));
	assert_fdma_err(dev, fdma_reg_write(dev, 0, 4, 0, FDMA_REG_8 | FDMA_REG_FORCE), -EOPNOTSUPP,
			"32-bit writes only");
	assert_fdma_err(dev, fdma_reg_write(dev, 0, 6, 0, FDMA_REG_16), -EOPNOTSUPP,
			"32-bit writes only");
	assert_fdma_ok(dev, fdma_reg_read(dev, 0, 4, &v));
	assert_int_equal(v, before);
	assert_fdma_err(dev, fdma_reg_read_flags(dev, 0, 4096 * 1024, &v, FDMA_REG_8), -ERANGE,
			"beyond");
	assert_int_equal(fdma_reg_read_flags(NULL, 0, 0, &v, FDMA_REG_8), -EBADF);
	sim_roundtrip(dev, 0, 64 << 10, 43);
	fdma_close(dev);
}

/* XDMA's clear-on-read status: read only with FDMA_REG_FORCE, at any width. */
static void test_read_force(void **state)
{
	struct fdma_dev *dev;
	struct fdma_info info;
	uint32_t v;

	(void)state;
	if (sim_target()) {
		print_message("checks the simulated device's BAR0: skipped on %s\n", sim_target());
		t_skip();
	}
	dev = sim_open("sim:paced=0");
	assert_fdma_ok(dev, fdma_get_info(dev, &info));
	if (strcmp(info.engine, "xdma")) {
		print_message("XDMA's clear-on-read status registers: skipped on %s\n", info.engine);
		fdma_close(dev);
		t_skip();
	}
	/* H2C 0's status, cleared by the read (docs/xdma.md). */
	assert_fdma_err(dev, fdma_reg_read(dev, 0, 0x44, &v), -EPERM, "FDMA_REG_FORCE");
	assert_fdma_err(dev, fdma_reg_read_flags(dev, 0, 0x46, &v, FDMA_REG_16), -EPERM,
			"FDMA_REG_FORCE");
	assert_fdma_ok(dev, fdma_reg_read_flags(dev, 0, 0x44, &v, FDMA_REG_FORCE));
	assert_fdma_ok(dev, fdma_reg_read_flags(dev, 0, 0x45, &v, FDMA_REG_FORCE | FDMA_REG_8));
	sim_roundtrip(dev, 0, 64 << 10, 44);
	fdma_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_width),
		cmocka_unit_test(test_read_force),
	};

	return T_RUN(tests);
}
