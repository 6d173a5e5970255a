// SPDX-License-Identifier: MIT
/*
 * fdma buffers exported as dma-bufs (fdma_buf_export_dmabuf()): the
 * dma-buf is the buffer's memory (what the device wrote is read through
 * the dma-buf's own mapping, what the CPU wrote there is what the device
 * sends), fdma imports its own export, the dma-buf outlives the handle
 * and the device's file, and what cannot be exported is refused with the
 * reason. Every byte is checked through a view other than the one it was
 * written through.
 *
 * Export needs fdma.ko (FDMA_TEST_DEVICE=kdev:..., the VM guests): on the
 * simulated device only the refusal is checked, the rest skips.
 */
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim_util.h"

#define KIB 1024
#define EXPORTS "/sys/kernel/debug/fdma/exported_bufs"

static void need_driver(void)
{
	if (!sim_target())
		skip();
}

/* The driver's count of live exported dma-bufs, or -1 where debugfs is not there. */
static long long exports_alive(void)
{
	FILE *f = fopen(EXPORTS, "r");
	long long n = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

static uint8_t *map_dmabuf(int fd, size_t size, int prot)
{
	void *p = mmap(NULL, size, prot, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		fail_msg("mmap of the exported dma-buf: %s", strerror(errno));
	return p;
}

/* DMA_BUF_IOCTL_SYNC around the CPU's accesses through the dma-buf. */
static void cpu_access(int fd, bool begin, uint64_t flags)
{
	struct dma_buf_sync s = { .flags = flags | (begin ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) };

	if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &s))
		fail_msg("DMA_BUF_IOCTL_SYNC: %s", strerror(errno));
}

/*
 * Card -> host into the buffer: its dma-buf shows the bytes. The CPU
 * writes new bytes through the dma-buf; host -> card from the buffer's
 * handle sends them, read back into a second buffer.
 */
static void test_same_memory(void **state)
{
	const size_t size = 512 * KIB;
	long long before = exports_alive();
	struct fdma_dev *dev;
	uint8_t *pa, *pb, *m;
	int a, b, fd;

	(void)state;
	need_driver();
	dev = sim_open("sim:paced=0");
	a = sim_buf(dev, size, 0);
	b = sim_buf(dev, size, 0);
	pa = fdma_buf_addr(dev, a);
	pb = fdma_buf_addr(dev, b);
	/* The pattern onto the card, then into a (the device writes it). */
	pattern_fill(pb, size, 21);
	assert_fdma_ok(dev, fdma_write_card(dev, b, 0, 0, size));
	memset(pa, 0xee, size);
	assert_fdma_ok(dev, fdma_read_card(dev, a, 0, 0, size));
	fd = fdma_buf_export_dmabuf(dev, a, 0);
	assert_fdma_ok(dev, fd);
	if (before >= 0)
		assert_int_equal(exports_alive(), before + 1);
	m = map_dmabuf(fd, size, PROT_READ | PROT_WRITE);
	cpu_access(fd, true, DMA_BUF_SYNC_READ);
	assert_pattern(m, size, 21);
	cpu_access(fd, false, DMA_BUF_SYNC_READ);

	/* Written through the dma-buf, sent from the handle. */
	cpu_access(fd, true, DMA_BUF_SYNC_WRITE);
	pattern_fill(m, size, 22);
	cpu_access(fd, false, DMA_BUF_SYNC_WRITE);
	assert_fdma_ok(dev, fdma_write_card(dev, a, 0, size, size));
	memset(pb, 0xee, size);
	assert_fdma_ok(dev, fdma_read_card(dev, b, 0, size, size));
	assert_pattern(pb, size, 22);
	assert_pattern(pa, size, 22);

	/* Two exports of one buffer are two dma-bufs over the same pages. */
	{
		int fd2 = fdma_buf_export_dmabuf(dev, a, FDMA_EXPORT_RDONLY);
		uint8_t *m2;

		assert_fdma_ok(dev, fd2);
		assert_true(fd2 != fd);
		m2 = map_dmabuf(fd2, size, PROT_READ);
		assert_pattern(m2, size, 22);
		/* Read-only: no writable mapping. */
		assert_true(mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, 0) == MAP_FAILED);
		munmap(m2, size);
		close(fd2);
	}
	/* A private mapping would show neither side's writes: refused. */
	assert_true(mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED);
	/* Close-on-exec, as the library promises. */
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	munmap(m, size);
	close(fd);
	if (before >= 0)
		assert_int_equal(exports_alive(), before);
	assert_fdma_ok(dev, fdma_buf_free(dev, a));
	assert_fdma_ok(dev, fdma_buf_free(dev, b));
	fdma_close(dev);
}

/*
 * fdma imports its own export, the exported buffer's handle freed first
 * (both alive would map the same memory twice for the device, which the
 * DMA API's debug reports as overlapping mappings): the imported window's
 * transfers land in the dma-buf, read and written through its mapping.
 */
static void test_self_import(void **state)
{
	const size_t size = 256 * KIB, half = size / 2;
	struct fdma_dev *dev;
	int a, host, fd, imp;
	uint8_t *ph, *m;

	(void)state;
	need_driver();
	dev = sim_open("sim:paced=0");
	a = sim_buf(dev, size, 0);
	host = sim_buf(dev, size, 0);
	ph = fdma_buf_addr(dev, host);
	memset(fdma_buf_addr(dev, a), 0xee, size);
	fd = fdma_buf_export_dmabuf(dev, a, 0);
	assert_fdma_ok(dev, fd);
	assert_fdma_ok(dev, fdma_buf_free(dev, a));
	m = map_dmabuf(fd, size, PROT_READ | PROT_WRITE);
	imp = fdma_buf_import_dmabuf(dev, fd, half, half);
	assert_fdma_ok(dev, imp);
	assert_int_equal(fdma_buf_flags(dev, imp), FDMA_BUF_DMABUF);
	/* Imported memory is not the driver's to give again. */
	assert_fdma_err(dev, fdma_buf_export_dmabuf(dev, imp, 0), -EINVAL, "imported");

	pattern_fill(ph, half, 31);
	assert_fdma_ok(dev, fdma_write_card(dev, host, 0, 0, half));
	assert_fdma_ok(dev, fdma_read_card(dev, imp, 0, 0, half));
	/* The second half of the dma-buf, through its own mapping; the first untouched. */
	cpu_access(fd, true, DMA_BUF_SYNC_READ);
	assert_bytes(m, half, 0xee);
	assert_pattern(m + half, half, 31);
	cpu_access(fd, false, DMA_BUF_SYNC_READ);

	cpu_access(fd, true, DMA_BUF_SYNC_WRITE);
	pattern_fill(m + half, half, 32);
	cpu_access(fd, false, DMA_BUF_SYNC_WRITE);
	assert_fdma_ok(dev, fdma_write_card(dev, imp, 0, half, half));
	memset(ph, 0xee, size);
	assert_fdma_ok(dev, fdma_read_card(dev, host, 0, half, half));
	assert_pattern(ph, half, 32);
	assert_fdma_ok(dev, fdma_buf_free(dev, imp));
	assert_fdma_ok(dev, fdma_buf_free(dev, host));
	munmap(m, size);
	close(fd);
	fdma_close(dev);
}

/*
 * The dma-buf holds the memory: after the handle is freed and the device
 * closed, its mapping and a new one still show what the device wrote.
 */
static void test_outlives_device(void **state)
{
	const size_t size = 1024 * KIB;
	long long before = exports_alive();
	struct fdma_dev *dev;
	int a, host, fd;
	uint8_t *m, *m2;

	(void)state;
	need_driver();
	dev = sim_open("sim:paced=0");
	a = sim_buf(dev, size, 0);
	host = sim_buf(dev, size, 0);
	pattern_fill(fdma_buf_addr(dev, host), size, 41);
	assert_fdma_ok(dev, fdma_write_card(dev, host, 0, 0, size));
	assert_fdma_ok(dev, fdma_read_card(dev, a, 0, 0, size));
	fd = fdma_buf_export_dmabuf(dev, a, 0);
	assert_fdma_ok(dev, fd);
	m = map_dmabuf(fd, size, PROT_READ);
	assert_fdma_ok(dev, fdma_buf_free(dev, a));
	fdma_close(dev);

	cpu_access(fd, true, DMA_BUF_SYNC_READ);
	assert_pattern(m, size, 41);
	m2 = map_dmabuf(fd, size, PROT_READ | PROT_WRITE);
	assert_pattern(m2, size, 41);
	cpu_access(fd, false, DMA_BUF_SYNC_READ);
	munmap(m, size);
	close(fd);
	/* The last user is the second mapping: the memory stays until it goes. */
	if (before >= 0)
		assert_int_equal(exports_alive(), before + 1);
	assert_pattern(m2, size, 41);
	munmap(m2, size);
	if (before >= 0)
		assert_int_equal(exports_alive(), before);
}

/* What cannot be exported, and why. */
static void test_refused(void **state)
{
	const size_t size = 64 * KIB;
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int a = sim_buf(dev, size, 0), reg;
	void *mem = NULL;

	(void)state;
	if (!sim_target()) {
		assert_fdma_err(dev, fdma_buf_export_dmabuf(dev, a, 0), -EOPNOTSUPP, "kdev:");
		fdma_close(dev);
		return;
	}
	assert_fdma_err(dev, fdma_buf_export_dmabuf(dev, a, 0x80), -EINVAL, "flags");
	assert_fdma_err(dev, fdma_buf_export_dmabuf(dev, 4000, 0), -EBADF, "handle");
	assert_fdma_err(dev, fdma_buf_export_dmabuf(dev, -1, 0), -EBADF, "handle");
	assert_int_equal(posix_memalign(&mem, 4096, size), 0);
	reg = fdma_buf_register(dev, mem, size);
	assert_fdma_ok(dev, reg);
	assert_fdma_err(dev, fdma_buf_export_dmabuf(dev, reg, 0), -EINVAL, "process's memory");
	assert_fdma_ok(dev, fdma_buf_free(dev, reg));
	free(mem);
	/* After all that, a good export. */
	{
		int fd = fdma_buf_export_dmabuf(dev, a, 0);

		assert_fdma_ok(dev, fd);
		close(fd);
	}
	fdma_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_memory),
		cmocka_unit_test(test_self_import),
		cmocka_unit_test(test_outlives_device),
		cmocka_unit_test(test_refused),
	};

	return T_RUN(tests);
}
