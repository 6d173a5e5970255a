// SPDX-License-Identifier: MIT
/*
 * libfdma: device registers, one 32-bit word at a time, for the FPGA's own
 * logic beside the engine (and, forced, the engine's registers, to debug).
 * Not a data path: each access is a system call on kdev:.
 */
#include "fdma_internal.h"

static int reg_check(struct fdma_dev *dev, const char *fn, unsigned int bar, uint64_t off)
{
	if (!fdma_dev_live(dev))
		return -EBADF;
	if (bar > 5)
		return fdma_err(dev, -EINVAL, "%s: BAR%u: a PCI function has BAR0..BAR5", fn, bar);
	if (off & 3)
		return fdma_err(dev, -EINVAL, "%s: offset 0x%llx is not a multiple of 4 (registers are 32-bit)",
				fn, (unsigned long long)off);
	return 0;
}

int fdma_reg_read(struct fdma_dev *dev, unsigned int bar, uint64_t offset, uint32_t *value)
{
	int ret = reg_check(dev, "fdma_reg_read", bar, offset);

	if (ret)
		return ret;
	if (!value)
		return fdma_err(dev, -EINVAL, "fdma_reg_read: value is NULL");
	return dev->ops->reg(dev, bar, offset, value, false, 0);
}

int fdma_reg_write(struct fdma_dev *dev, unsigned int bar, uint64_t offset, uint32_t value,
		   unsigned int flags)
{
	int ret = reg_check(dev, "fdma_reg_write", bar, offset);

	if (ret)
		return ret;
	if (flags & ~FDMA_REG_FORCE)
		return fdma_err(dev, -EINVAL, "fdma_reg_write: unknown flags 0x%x", flags);
	return dev->ops->reg(dev, bar, offset, &value, true, flags);
}
