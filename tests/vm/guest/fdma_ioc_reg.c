// SPDX-License-Identifier: MIT
/*
 * FDMA_IOC_REG: one register of a memory BAR (32 bits, or 16 or 8 since
 * interface 9). In the harness the
 * engine's register file is the start of ivshmem's BAR2 (1 MiB, the rest
 * unused by the model: it stands in for the FPGA's own registers) and
 * BAR0 holds ivshmem's registers.
 *
 * reg_read_id: BAR2 offset 0 reads the engine's ID ("FDMA"), and bar_len
 *   says the BAR's size.
 * reg_user: words written past the register file read back, each one.
 * reg_user_rawio: without CAP_SYS_RAWIO such a word can be read but not
 *   written (EPERM: the FPGA's own registers may start a bus master of the
 *   design), and it keeps its value.
 * reg_owned: the engine's registers, ivshmem's and the MSI-X table (BAR1)
 *   refuse a write without FORCE (EPERM) and keep their value; with FORCE as root a write of the
 *   value already there goes through; without CAP_SYS_RAWIO even a forced
 *   write is EPERM.
 * reg_width: FDMA_FEAT_REG_WIDTH; 8- and 16-bit reads see the lanes of a
 *   word written whole, 8- and 16-bit writes change only their own lanes,
 *   the BAR's last byte and halfword are in range; an engine register's
 *   byte is read like the word's (the ID's "F") and refuses a write
 *   without FORCE.
 * reg_bad: BAR over 5, unaligned offset (for the width), unknown flags,
 *   both widths, a value wider than the access, reserved bits: EINVAL;
 *   past the BAR: ERANGE with bar_len; an absent BAR (ivshmem's BAR2 is
 *   64-bit, so BAR3 is its upper half): ENXIO; a read-only open: EBADF.
 */
#include <linux/capability.h>
#include <sys/syscall.h>

#include "vmioc.h"

#define REGS_BAR	2
#define IVS_BAR		0
#define MSIX_BAR	1	/* ivshmem-doorbell's MSI-X table and PBA */
#define ID_MAGIC	0x46444d41u	/* "FDMA" */
#define REG_CTRL	0x020
#define REG_CH0_COAL	(0x100 + 0x38)

static int reg(int fd, struct fdma_ioc_reg *r, uint32_t bar, uint64_t off, uint32_t flags,
	       uint32_t val)
{
	memset(r, 0, sizeof(*r));
	r->bar = bar;
	r->offset = off;
	r->flags = flags;
	r->value = val;
	return ioctl(fd, FDMA_IOC_REG, r) ? -errno : 0;
}

static void read_id(struct vi_dev *d)
{
	const char *T = "reg_read_id";
	struct fdma_ioc_reg r;
	int ret = reg(d->fd, &r, REGS_BAR, 0, 0, 0);

	if (ret)
		vt_fail(T, "read BAR2 0: %s", strerror(-ret));
	else if (r.value != ID_MAGIC)
		vt_fail(T, "BAR2 0 reads 0x%08x, expected the ID 0x%08x", r.value, ID_MAGIC);
	else if (r.bar_len != 1u << 20)
		vt_fail(T, "bar_len %llu, expected 1 MiB", (unsigned long long)r.bar_len);
	else if (!(d->info.features & FDMA_FEAT_REG))
		vt_fail(T, "INFO features 0x%x lack FDMA_FEAT_REG", d->info.features);
	else
		vt_pass(T);
}

static void user_regs(struct vi_dev *d)
{
	const char *T = "reg_user";
	struct fdma_ioc_reg r;
	int bad = 0;

	/* 64 words across a page boundary and at the BAR's last word. */
	for (uint32_t i = 0; i < 64 && !bad; i++) {
		uint64_t off = i < 63 ? 0x1ff0 + 4 * (uint64_t)i : (1u << 20) - 4;
		uint32_t v = 0x9e3779b9u * (i + 1);
		int ret = reg(d->fd, &r, REGS_BAR, off, FDMA_IOC_REG_WRITE, v);

		if (!ret)
			ret = reg(d->fd, &r, REGS_BAR, off, 0, 0);
		if (ret) {
			vt_fail(T, "BAR2 0x%llx: %s", (unsigned long long)off, strerror(-ret));
			bad = 1;
		} else if (r.value != v) {
			vt_fail(T, "BAR2 0x%llx reads 0x%08x after writing 0x%08x",
				(unsigned long long)off, r.value, v);
			bad = 1;
		}
	}
	if (!bad)
		vt_pass(T);
}

/* Clear CAP_SYS_RAWIO from this thread's effective set. */
static int drop_rawio(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct c[2];

	if (syscall(SYS_capget, &h, c))
		return -errno;
	c[CAP_SYS_RAWIO / 32].effective &= ~(1u << (CAP_SYS_RAWIO % 32));
	return syscall(SYS_capset, &h, c) ? -errno : 0;
}

static void user_regs_rawio(struct vi_dev *d)
{
	const char *T = "reg_user_rawio";
	const uint64_t off = 0x2000;
	struct fdma_ioc_reg r;
	int st = 0, ret;
	pid_t pid;

	ret = reg(d->fd, &r, REGS_BAR, off, FDMA_IOC_REG_WRITE, 0x5a5a0001);
	if (ret) {
		vt_fail(T, "write BAR2 0x%llx as root: %s", (unsigned long long)off, strerror(-ret));
		return;
	}
	/* In a child: the capability stays dropped there only. */
	pid = fork();
	if (pid == 0) {
		if (drop_rawio())
			_exit(2);
		if (reg(d->fd, &r, REGS_BAR, off, 0, 0) || r.value != 0x5a5a0001)
			_exit(3);
		_exit(reg(d->fd, &r, REGS_BAR, off, FDMA_IOC_REG_WRITE, 0x5a5a0002) == -EPERM ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		vt_fail(T, "without CAP_SYS_RAWIO: %s",
			!WIFEXITED(st) ? "the child died" :
			WEXITSTATUS(st) == 2 ? "could not drop the capability" :
			WEXITSTATUS(st) == 3 ? "the read failed or read another value" :
			"a write to the FPGA's own register was not refused with EPERM");
		return;
	}
	ret = reg(d->fd, &r, REGS_BAR, off, 0, 0);
	if (ret || r.value != 0x5a5a0001)
		vt_fail(T, "BAR2 0x%llx reads 0x%08x after a refused write, expected 0x5a5a0001",
			(unsigned long long)off, r.value);
	else
		vt_pass(T);
}

static void owned(struct vi_dev *d)
{
	const char *T = "reg_owned";
	struct fdma_ioc_reg r;
	uint32_t ctrl, coal;
	int ret;

	if (reg(d->fd, &r, REGS_BAR, REG_CTRL, 0, 0)) {
		vt_fail(T, "read CTRL: %s", strerror(errno));
		return;
	}
	ctrl = r.value;
	ret = reg(d->fd, &r, REGS_BAR, REG_CTRL, FDMA_IOC_REG_WRITE, 0);
	if (ret != -EPERM) {
		vt_fail(T, "CTRL := 0 without FORCE: %s, expected EPERM", strerror(-ret));
		return;
	}
	reg(d->fd, &r, REGS_BAR, REG_CTRL, 0, 0);
	if (r.value != ctrl) {
		vt_fail(T, "CTRL changed from 0x%x to 0x%x by a refused write", ctrl, r.value);
		return;
	}
	ret = reg(d->fd, &r, IVS_BAR, 12, FDMA_IOC_REG_WRITE, 0);
	if (ret != -EPERM) {
		vt_fail(T, "ivshmem doorbell write without FORCE: %s, expected EPERM",
			strerror(-ret));
		return;
	}
	/* The MSI-X table: vector 0's message address, readable, not writable. */
	if ((ret = reg(d->fd, &r, MSIX_BAR, 0, 0, 0))) {
		vt_fail(T, "read the MSI-X table (BAR1 0): %s", strerror(-ret));
		return;
	}
	ctrl = r.value;
	ret = reg(d->fd, &r, MSIX_BAR, 0, FDMA_IOC_REG_WRITE, 0xfee00000u);
	if (ret != -EPERM) {
		vt_fail(T, "MSI-X table write without FORCE: %s, expected EPERM", strerror(-ret));
		return;
	}
	reg(d->fd, &r, MSIX_BAR, 0, 0, 0);
	if (r.value != ctrl) {
		vt_fail(T, "MSI-X entry 0 changed from 0x%x to 0x%x by a refused write", ctrl,
			r.value);
		return;
	}
	reg(d->fd, &r, REGS_BAR, REG_CH0_COAL, 0, 0);
	coal = r.value;
	ret = reg(d->fd, &r, REGS_BAR, REG_CH0_COAL, FDMA_IOC_REG_WRITE | FDMA_IOC_REG_FORCE, coal);
	if (ret) {
		vt_fail(T, "forced write of CH0 COAL_COUNT as root: %s", strerror(-ret));
		return;
	}
	/* In a child: the capability stays dropped there only. */
	pid_t pid = fork();

	if (pid == 0) {
		if (drop_rawio())
			_exit(2);
		_exit(reg(d->fd, &r, REGS_BAR, REG_CH0_COAL,
			  FDMA_IOC_REG_WRITE | FDMA_IOC_REG_FORCE, coal) == -EPERM ? 0 : 1);
	}
	int st = 0;

	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		vt_fail(T, "forced write without CAP_SYS_RAWIO: %s",
			WIFEXITED(st) && WEXITSTATUS(st) == 2 ? "could not drop the capability"
							      : "not EPERM");
	else
		vt_pass(T);
}

/* One access of flags, its value (read) or -errno in *ret; for the chains below. */
static uint32_t rd(int fd, uint64_t off, uint32_t flags, int *ret)
{
	struct fdma_ioc_reg r;

	*ret = reg(fd, &r, REGS_BAR, off, flags, 0);
	return r.value;
}

static void width(struct vi_dev *d)
{
	const char *T = "reg_width";
	const uint64_t off = 0x3000;
	struct fdma_ioc_reg r;
	uint32_t ctrl, word;
	int ret = 0;

	if (!(d->info.features & FDMA_FEAT_REG_WIDTH)) {
		vt_fail(T, "INFO features 0x%x lack FDMA_FEAT_REG_WIDTH", d->info.features);
		return;
	}
	if ((ret = reg(d->fd, &r, REGS_BAR, off, FDMA_IOC_REG_WRITE, 0x11223344))) {
		vt_fail(T, "write BAR2 0x%llx: %s", (unsigned long long)off, strerror(-ret));
		return;
	}
	for (uint32_t k = 0; k < 4; k++) {
		uint32_t v = rd(d->fd, off + k, FDMA_IOC_REG_8, &ret);

		if (ret || v != ((0x11223344u >> (8 * k)) & 0xff)) {
			vt_fail(T, "8-bit read of BAR2 0x%llx: %s, 0x%x", (unsigned long long)(off + k),
				strerror(-ret), v);
			return;
		}
	}
	if (rd(d->fd, off + 2, FDMA_IOC_REG_16, &ret) != 0x1122 || ret ||
	    rd(d->fd, off, FDMA_IOC_REG_16, &ret) != 0x3344 || ret) {
		vt_fail(T, "16-bit reads of 0x11223344: %s", strerror(-ret));
		return;
	}
	/* Narrow writes: their own lanes, and nothing else of the word. */
	if ((ret = reg(d->fd, &r, REGS_BAR, off + 1, FDMA_IOC_REG_WRITE | FDMA_IOC_REG_8, 0xab)) ||
	    (ret = reg(d->fd, &r, REGS_BAR, off + 2, FDMA_IOC_REG_WRITE | FDMA_IOC_REG_16, 0xcdef))) {
		vt_fail(T, "narrow writes: %s", strerror(-ret));
		return;
	}
	word = rd(d->fd, off, 0, &ret);
	if (word != 0xcdefab44u || ret) {
		vt_fail(T, "after an 8-bit 0xab at +1 and a 16-bit 0xcdef at +2, the word reads 0x%08x",
			word);
		return;
	}
	if ((rd(d->fd, (1u << 20) - 1, FDMA_IOC_REG_8, &ret), ret) ||
	    (rd(d->fd, (1u << 20) - 2, FDMA_IOC_REG_16, &ret), ret)) {
		vt_fail(T, "the BAR's last byte or halfword: %s", strerror(-ret));
		return;
	}
	/* The engine's ID, "FDMA": its top byte is 'F'. */
	if (rd(d->fd, 3, FDMA_IOC_REG_8, &ret) != (ID_MAGIC >> 24) || ret) {
		vt_fail(T, "8-bit read of the ID's top byte: %s", strerror(-ret));
		return;
	}
	ctrl = rd(d->fd, REG_CTRL, 0, &ret);
	if ((ret = reg(d->fd, &r, REGS_BAR, REG_CTRL + 1, FDMA_IOC_REG_WRITE | FDMA_IOC_REG_8,
		       0x5a)) != -EPERM) {
		vt_fail(T, "an 8-bit write into CTRL without FORCE: %s, expected EPERM",
			strerror(-ret));
		return;
	}
	if (rd(d->fd, REG_CTRL, 0, &ret) != ctrl || ret)
		vt_fail(T, "CTRL changed by a refused 8-bit write");
	else
		vt_pass(T);
}

static void bad(struct vi_dev *d)
{
	const char *T = "reg_bad";
	struct fdma_ioc_reg r;
	int ret, fd;

	if ((ret = reg(d->fd, &r, 6, 0, 0, 0)) != -EINVAL)
		vt_fail(T, "BAR6: %s, expected EINVAL", strerror(-ret));
	else if ((ret = reg(d->fd, &r, REGS_BAR, 2, 0, 0)) != -EINVAL)
		vt_fail(T, "offset 2: %s, expected EINVAL", strerror(-ret));
	else if ((ret = reg(d->fd, &r, REGS_BAR, 0, 0x10, 0)) != -EINVAL)
		vt_fail(T, "flags 0x10: %s, expected EINVAL", strerror(-ret));
	else if ((ret = reg(d->fd, &r, REGS_BAR, 0, FDMA_IOC_REG_8 | FDMA_IOC_REG_16, 0)) != -EINVAL)
		vt_fail(T, "both widths: %s, expected EINVAL", strerror(-ret));
	else if ((ret = reg(d->fd, &r, REGS_BAR, 0x3001, FDMA_IOC_REG_16, 0)) != -EINVAL)
		vt_fail(T, "16 bits at an odd offset: %s, expected EINVAL", strerror(-ret));
	else if ((ret = reg(d->fd, &r, REGS_BAR, 0x3000, FDMA_IOC_REG_WRITE | FDMA_IOC_REG_8,
			    0x100)) != -EINVAL)
		vt_fail(T, "an 8-bit write of 0x100: %s, expected EINVAL", strerror(-ret));
	else if ((r = (struct fdma_ioc_reg){ .bar = REGS_BAR, .rsvd = 1 }),
		 ioctl(d->fd, FDMA_IOC_REG, &r) == 0 || errno != EINVAL)
		vt_fail(T, "rsvd 1: not EINVAL");
	else if ((ret = reg(d->fd, &r, REGS_BAR, 1u << 20, 0, 0)) != -ERANGE)
		vt_fail(T, "BAR2 at 1 MiB: %s, expected ERANGE", strerror(-ret));
	else if (r.bar_len != 1u << 20)
		vt_fail(T, "ERANGE without bar_len (%llu)", (unsigned long long)r.bar_len);
	else if ((ret = reg(d->fd, &r, REGS_BAR, ~3ull, 0, 0)) != -ERANGE)
		vt_fail(T, "BAR2 at 2^64-4: %s, expected ERANGE", strerror(-ret));
	else if ((ret = reg(d->fd, &r, 3, 0, 0, 0)) != -ENXIO)
		vt_fail(T, "BAR3: %s, expected ENXIO", strerror(-ret));
	else if ((fd = vt_open_dev(d->name, O_RDONLY, 2000)) < 0)
		vt_fail(T, "read-only open: %s", strerror(errno));
	else {
		ret = reg(fd, &r, REGS_BAR, 0, 0, 0);
		close(fd);
		if (ret != -EBADF)
			vt_fail(T, "read-only file: %s, expected EBADF", strerror(-ret));
		else
			vt_pass(T);
	}
}

int main(void)
{
	struct vi_dev d;
	int ret = vi_open(&d, NULL);

	if (ret) {
		vt_fail("reg_read_id", "open: %s", strerror(-ret));
		return 1;
	}
	read_id(&d);
	user_regs(&d);
	user_regs_rawio(&d);
	owned(&d);
	width(&d);
	bad(&d);
	vi_close(&d);
	return vt_failed;
}
