// SPDX-License-Identifier: MIT
/*
 * Registers: fdma_reg_read() sees the engine's registers as the library
 * set them (ID, the channel's ring size); fdma_reg_write() refuses the
 * engine's registers without FDMA_REG_FORCE and leaves them as they were;
 * a forced write lands; bad BARs, offsets and flags are errors naming
 * what was wrong; the device still moves data afterwards.
 */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_bad),
	};

	return T_RUN(tests);
}
