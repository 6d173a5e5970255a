// SPDX-License-Identifier: MIT
/*
 * libfdma: device registers, one access at a time (32 bits, or 16 or 8 with
 * FDMA_REG_16 and FDMA_REG_8), for the FPGA's own logic beside the engine
 * (and, forced, the engine's registers, to debug). Not a data path: each
 * access is a system call on kdev:.
 */
#include "fdma_internal.h"

#define REG_FLAGS (FDMA_REG_FORCE | FDMA_REG_8 | FDMA_REG_16)

/* Bytes an access moves: 4, or 2 or 1 by its width flag. */
static unsigned int reg_width(unsigned int flags)
{
	return flags & FDMA_REG_8 ? 1 : flags & FDMA_REG_16 ? 2 : 4;
}

static int reg_check(struct fdma_dev *dev, const char *fn, unsigned int bar, uint64_t off,
		     unsigned int flags)
{
	unsigned int w = reg_width(flags);

	if (!fdma_dev_live(dev))
		return -EBADF;
	if (flags & ~REG_FLAGS)
		return fdma_err(dev, -EINVAL, "%s: unknown flags 0x%x", fn, flags & ~REG_FLAGS);
	if ((flags & FDMA_REG_8) && (flags & FDMA_REG_16))
		return fdma_err(dev, -EINVAL, "%s: FDMA_REG_8 and FDMA_REG_16 together: one width", fn);
	if (bar > 5)
		return fdma_err(dev, -EINVAL, "%s: BAR%u: a PCI function has BAR0..BAR5", fn, bar);
	if (off & (w - 1))
		return fdma_err(dev, -EINVAL, "%s: offset 0x%llx is not a multiple of %u (a %u-bit access)",
				fn, (unsigned long long)off, w, 8 * w);
	return 0;
}

int fdma_reg_read_flags(struct fdma_dev *dev, unsigned int bar, uint64_t offset, uint32_t *value,
			unsigned int flags)
{
	int ret = reg_check(dev, "fdma_reg_read", bar, offset, flags);

	if (ret)
		return ret;
	if (!value)
		return fdma_err(dev, -EINVAL, "fdma_reg_read: value is NULL");
	return dev->ops->reg(dev, bar, offset, value, false, flags);
}

int fdma_reg_read(struct fdma_dev *dev, unsigned int bar, uint64_t offset, uint32_t *value)
{
	return fdma_reg_read_flags(dev, bar, offset, value, 0);
}

int fdma_reg_write(struct fdma_dev *dev, unsigned int bar, uint64_t offset, uint32_t value,
		   unsigned int flags)
{
	int ret = reg_check(dev, "fdma_reg_write", bar, offset, flags);
	unsigned int w = reg_width(flags);

	if (ret)
		return ret;
	/* A value that does not fit would lose its high bits without a word. */
	if (w < 4 && value >> (8 * w))
		return fdma_err(dev, -EINVAL, "fdma_reg_write: value 0x%x does not fit in %u bits",
				value, 8 * w);
	return dev->ops->reg(dev, bar, offset, &value, true, flags);
}
