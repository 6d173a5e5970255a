// SPDX-License-Identifier: MIT
/*
 * dma-bufs imported as buffers (fdma_buf_import_dmabuf()): transfers both
 * ways and streams into them, windows at the edges of the dma-buf, the fd
 * closed before the buffer is used, and bad imports refused with the
 * reason. Every byte is checked through a second view of the exporter's
 * memory (the memfd behind it, or its own mapping), so that a copy
 * somewhere else would not pass.
 *
 * The exporter: on the simulated device a memfd stands in for a dma-buf
 * (the model reaches memory through a mapping); against fdma.ko
 * (FDMA_TEST_DEVICE=kdev:..., in the VM guests) a real one: udmabuf over
 * a memfd, else the system dma-heap, else a DRM dumb buffer (vgem's, on
 * 6.1) exported through PRIME. A guest with none of them skips, saying so.
 */
#include <fcntl.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim_util.h"

#define MIB (1024 * 1024)

/* An exported buffer: its dma-buf fd and the CPU's view of its memory. */
struct xbuf {
	int fd;
	uint8_t *cpu;
	size_t size;
	const char *how;
};

/* DRM dumb buffers (6.1 guests have neither udmabuf nor dma-heaps): the two ioctls. */
struct drm_create_dumb {
	uint32_t height, width, bpp, flags, handle, pitch;
	uint64_t size;
};
struct drm_prime_handle {
	uint32_t handle, flags;
	int32_t fd;
};
#define DRM_IOC_CREATE_DUMB _IOWR('d', 0xB2, struct drm_create_dumb)
#define DRM_IOC_PRIME_HANDLE_TO_FD _IOWR('d', 0x2d, struct drm_prime_handle)
#define DRM_FD_RDWR 02

static int memfd_of(size_t size)
{
	int m = memfd_create("fdma-test", MFD_ALLOW_SEALING | MFD_CLOEXEC);

	assert_true(m >= 0);
	assert_int_equal(ftruncate(m, (off_t)size), 0);
	return m;
}

static uint8_t *map_fd(int fd, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

static bool export_udmabuf(size_t size, struct xbuf *x)
{
	int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC), m;
	struct udmabuf_create c = { .flags = UDMABUF_FLAGS_CLOEXEC, .size = size };

	if (dev < 0)
		return false;
	m = memfd_of(size);
	assert_int_equal(fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	c.memfd = (uint32_t)m;
	x->fd = ioctl(dev, UDMABUF_CREATE, &c);
	assert_true(x->fd >= 0);
	/* The memfd's own mapping: the same pages, seen apart from the dma-buf. */
	x->cpu = map_fd(m, size);
	close(m);
	close(dev);
	x->how = "udmabuf";
	return true;
}

static bool export_heap(size_t size, struct xbuf *x)
{
	int heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	struct dma_heap_allocation_data a = { .len = size, .fd_flags = O_RDWR | O_CLOEXEC };

	if (heap < 0)
		return false;
	assert_int_equal(ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a), 0);
	close(heap);
	x->fd = (int)a.fd;
	x->cpu = map_fd(x->fd, size);
	x->how = "dma-heap";
	return true;
}

/* A DRM dumb buffer exported through PRIME: vgem's, or any card's. */
static bool export_drm_dumb(size_t size, struct xbuf *x)
{
	char path[32];

	for (int i = 0; i < 8; i++) {
		struct drm_create_dumb c = { .height = 1, .width = (uint32_t)(size / 4), .bpp = 32 };
		struct drm_prime_handle h = { .flags = O_CLOEXEC | DRM_FD_RDWR };
		int card;

		snprintf(path, sizeof(path), "/dev/dri/card%d", i);
		card = open(path, O_RDWR | O_CLOEXEC);
		if (card < 0)
			continue;
		if (ioctl(card, DRM_IOC_CREATE_DUMB, &c) || c.size < size) {
			close(card);
			continue;
		}
		h.handle = c.handle;
		if (ioctl(card, DRM_IOC_PRIME_HANDLE_TO_FD, &h)) {
			close(card);
			continue;
		}
		/* The dma-buf holds the object: the card can go. */
		close(card);
		x->fd = h.fd;
		x->cpu = map_fd(x->fd, size);
		x->how = "drm-dumb";
		return true;
	}
	return false;
}

/* size bytes of exported memory, filled with 0xee; skips without an exporter. */
static void export(size_t size, struct xbuf *x)
{
	x->size = size;
	if (!sim_target()) {
		x->fd = memfd_of(size);
		x->cpu = map_fd(x->fd, size);
		x->how = "memfd";
	} else if (!export_udmabuf(size, x) && !export_heap(size, x) && !export_drm_dumb(size, x)) {
		print_message("no dma-buf exporter here (/dev/udmabuf, /dev/dma_heap/system, /dev/dri/card*): skipped\n");
		t_skip();
	}
	memset(x->cpu, 0xee, size);
}

static void unexport(struct xbuf *x)
{
	if (x->fd >= 0)
		close(x->fd);
	munmap(x->cpu, x->size);
}

/*
 * The CPU's side of the exporter's rules: begin and end access around
 * what the CPU reads or writes. Not for udmabuf: its syncs are of a
 * mapping of its own, for its misc device, and under swiotlb they bounce
 * that mapping's stale copy back over the pages (the driver's per-request
 * syncs already put the device's writes in memory). The memfd stand-in
 * has no such ioctl.
 */
static void cpu_access(const struct xbuf *x, bool begin, uint64_t flags)
{
	struct dma_buf_sync s = { .flags = flags | (begin ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) };

	if (sim_target() && strcmp(x->how, "udmabuf"))
		assert_int_equal(ioctl(x->fd, DMA_BUF_IOCTL_SYNC, &s), 0);
}

/* Fill [off, + len) of x with the pattern of seed, or with 0xee (seed 0), as the CPU. */
static void cpu_fill(const struct xbuf *x, size_t off, size_t len, uint64_t seed)
{
	cpu_access(x, true, DMA_BUF_SYNC_WRITE);
	if (seed)
		pattern_fill(x->cpu + off, len, seed);
	else
		memset(x->cpu + off, 0xee, len);
	cpu_access(x, false, DMA_BUF_SYNC_WRITE);
}

static int import(struct fdma_dev *dev, const struct xbuf *x, uint64_t off, size_t size)
{
	int h = fdma_buf_import_dmabuf(dev, x->fd, off, size);

	assert_fdma_ok(dev, h);
	assert_int_equal(fdma_buf_size(dev, h), size);
	assert_int_equal(fdma_buf_flags(dev, h), FDMA_BUF_DMABUF);
	return h;
}

/*
 * Host -> card from one imported buffer, card -> host into a window of
 * another, and a batch of requests into pieces of it: every byte, and the
 * bytes outside the window untouched.
 */
static void test_both_ways(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int c2h = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM);
	const size_t len = 512 * 1024, win = 64 * 1024;
	struct fdma_req r[4];
	struct fdma_cpl c[4];
	struct xbuf a, b;
	uint8_t *addr;
	int ha, hb;

	(void)state;
	assert_fdma_ok(dev, c2h);
	export(len, &a);
	export(MIB, &b);
	ha = import(dev, &a, 0, len);
	hb = import(dev, &b, win, len);
	print_message("exporter: %s\n", a.how);

	cpu_fill(&a, 0, len, 11);
	assert_fdma_ok(dev, fdma_write_card(dev, ha, 0, 0, len));
	assert_fdma_ok(dev, fdma_read_card(dev, hb, 0, 0, len));
	cpu_access(&b, true, DMA_BUF_SYNC_READ);
	assert_bytes(b.cpu, win, 0xee);
	assert_pattern(b.cpu + win, len, 11);
	assert_bytes(b.cpu + win + len, MIB - win - len, 0xee);
	/* The library's own view of it, where the exporter allows mmap. */
	addr = fdma_buf_addr(dev, hb);
	assert_non_null(addr);
	assert_memory_equal(addr, b.cpu + win, len);
	cpu_access(&b, false, DMA_BUF_SYNC_READ);

	/* Four requests in one batch, back to front, into the same window. */
	cpu_fill(&b, 0, MIB, 0);
	for (int i = 0; i < 4; i++)
		r[i] = (struct fdma_req){ .buf = hb, .offset = (uint64_t)(3 - i) * (len / 4),
					  .card_addr = (uint64_t)(3 - i) * (len / 4),
					  .len = len / 4, .user_data = (uint64_t)i };
	assert_fdma_err(dev, fdma_submit(dev, c2h, r, 4), 4, NULL);
	sim_reap_n(dev, c2h, c, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(c[i].res, 0);
		assert_int_equal(c[i].len, len / 4);
	}
	cpu_access(&b, true, DMA_BUF_SYNC_READ);
	assert_bytes(b.cpu, win, 0xee);
	assert_pattern(b.cpu + win, len, 11);
	assert_bytes(b.cpu + win + len, MIB - win - len, 0xee);
	cpu_access(&b, false, DMA_BUF_SYNC_READ);

	assert_fdma_ok(dev, fdma_buf_free(dev, ha));
	assert_fdma_ok(dev, fdma_buf_free(dev, hb));
	unexport(&a);
	unexport(&b);
	fdma_close(dev);
}

/*
 * Windows at the edges: the smallest one at the very end of the dma-buf,
 * and one that starts one alignment unit in (not on a page boundary).
 */
static void test_edges(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	struct fdma_info in;
	const size_t size = 256 * 1024;
	struct xbuf x;
	size_t al;
	int h;

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	al = in.align;
	export(size, &x);

	/* The last alignment unit. */
	h = import(dev, &x, size - al, al);
	cpu_fill(&x, size - al, al, 5);
	assert_fdma_ok(dev, fdma_write_card(dev, h, 0, 4096, al));
	cpu_fill(&x, size - al, al, 0);
	assert_fdma_ok(dev, fdma_read_card(dev, h, 0, 4096, al));
	cpu_access(&x, true, DMA_BUF_SYNC_READ);
	assert_pattern(x.cpu + size - al, al, 5);
	assert_bytes(x.cpu, size - al, 0xee);
	cpu_access(&x, false, DMA_BUF_SYNC_READ);
	assert_fdma_ok(dev, fdma_buf_free(dev, h));

	/* From one unit in to one unit short of the end. */
	h = import(dev, &x, al, size - 2 * al);
	cpu_fill(&x, al, size - 2 * al, 6);
	assert_fdma_ok(dev, fdma_write_card(dev, h, 0, 0, size - 2 * al));
	cpu_fill(&x, 0, size, 0);
	assert_fdma_ok(dev, fdma_read_card(dev, h, 0, 0, size - 2 * al));
	cpu_access(&x, true, DMA_BUF_SYNC_READ);
	assert_bytes(x.cpu, al, 0xee);
	assert_pattern(x.cpu + al, size - 2 * al, 6);
	assert_bytes(x.cpu + size - al, al, 0xee);
	if (fdma_buf_addr(dev, h))
		assert_int_equal(*(uint8_t *)fdma_buf_addr(dev, h), pattern_byte(6, 0));
	cpu_access(&x, false, DMA_BUF_SYNC_READ);
	assert_fdma_ok(dev, fdma_buf_free(dev, h));
	unexport(&x);
	fdma_close(dev);
}

/*
 * The buffer holds the dma-buf: its fd may be closed before any use. With
 * no fd left for the exporter's CPU-access rules, the data goes through
 * the card and host buffers only: card -> the imported buffer -> card ->
 * a host buffer, checked there.
 */
static void test_fd_closed_first(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	const size_t size = 128 * 1024;
	struct xbuf x;
	int h, host;
	uint8_t *p;

	(void)state;
	export(size, &x);
	h = import(dev, &x, 0, size);
	close(x.fd);
	x.fd = -1;
	host = sim_buf(dev, size, 0);
	p = fdma_buf_addr(dev, host);
	pattern_fill(p, size, 8);
	assert_fdma_ok(dev, fdma_write_card(dev, host, 0, 0, size));
	assert_fdma_ok(dev, fdma_read_card(dev, h, 0, 0, size));
	assert_fdma_ok(dev, fdma_write_card(dev, h, 0, size, size));
	memset(p, 0xee, size);
	assert_fdma_ok(dev, fdma_read_card(dev, host, 0, size, size));
	assert_pattern(p, size, 8);
	assert_fdma_ok(dev, fdma_buf_free(dev, h));
	assert_fdma_ok(dev, fdma_buf_free(dev, host));
	unexport(&x);
	fdma_close(dev);
}

/*
 * The test generator's frames into four windows of one dma-buf. A C2H
 * stream buffer is one descriptor, so one piece of bus-contiguous memory:
 * a page, for host memory exported page by page (udmabuf over a memfd,
 * without an IOMMU); GPU memory comes in far larger pieces.
 */
static void test_stream(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int ch = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	const size_t slot = 4096;
	const uint32_t len = 4000;
	struct fdma_stream *s = NULL;
	struct fdma_frame f;
	struct xbuf x;
	int h[4];

	(void)state;
	assert_fdma_ok(dev, ch);
	export(4 * slot, &x);
	for (int i = 0; i < 4; i++)
		h[i] = import(dev, &x, (uint64_t)i * slot, slot);
	assert_fdma_ok(dev, fdma_stream_open_bufs(dev, ch, h, 4, &s));
	assert_fdma_ok(dev, fdma_chan_set_testgen(dev, ch, len, 0, 1));
	for (uint32_t k = 0; k < 24; k++) {
		struct fdma_frame v;

		assert_fdma_ok(dev, fdma_stream_get(s, &f, SIM_TIMEOUT_US));
		assert_true(f.index < 4);
		/* Checked through the exporter's memory, not the stream's pointer. */
		v = f;
		v.data = x.cpu + (size_t)f.index * slot;
		cpu_access(&x, true, DMA_BUF_SYNC_READ);
		assert_int_equal(sim_check_frame(&v, len), k);
		cpu_access(&x, false, DMA_BUF_SYNC_READ);
		if (f.data)
			assert_ptr_equal(f.data, fdma_buf_addr(dev, h[f.index]));
		assert_fdma_ok(dev, fdma_stream_release(s, &f));
	}
	assert_fdma_ok(dev, fdma_chan_set_testgen(dev, ch, len, 0, 0));
	fdma_stream_close(s);
	/* The buffers stay the caller's. */
	for (int i = 0; i < 4; i++)
		assert_fdma_ok(dev, fdma_buf_free(dev, h[i]));
	unexport(&x);
	fdma_close(dev);
}

/* Bad imports: refused, with the reason, and nothing left behind. */
static void test_bad_imports(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	const size_t size = 64 * 1024;
	struct fdma_info in;
	struct xbuf x;
	int p[2], h, closed;
	size_t al;

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	al = in.align;
	export(size, &x);
	assert_fdma_err(dev, fdma_buf_import_dmabuf(dev, -1, 0, size), -EBADF, "fd -1");
	closed = dup(x.fd);
	close(closed);
	assert_fdma_err(dev, fdma_buf_import_dmabuf(dev, closed, 0, size), -EBADF, "fd");
	assert_fdma_err(dev, fdma_buf_import_dmabuf(dev, x.fd, 0, 0), -EINVAL, "zero");
	/* Where the device takes any byte (XDMA's memory-mapped channels) nothing is misaligned. */
	if (al > 1) {
		assert_fdma_err(dev, fdma_buf_import_dmabuf(dev, x.fd, 8, size - al), -EINVAL,
				"multiples");
		assert_fdma_err(dev, fdma_buf_import_dmabuf(dev, x.fd, 0, size - 8), -EINVAL,
				"multiples");
	}
	assert_fdma_err(dev, fdma_buf_import_dmabuf(dev, x.fd, 0, size + al), -ERANGE, "beyond");
	assert_fdma_err(dev, fdma_buf_import_dmabuf(dev, x.fd, size, al), -ERANGE, "beyond");
	assert_fdma_err(dev, fdma_buf_import_dmabuf(dev, x.fd, UINT64_MAX - (al - 1), al), -EINVAL,
			"overflows");
	/* Not a dma-buf: the driver says so; the model cannot map a socket. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p), 0);
	assert_fdma_err(dev, fdma_buf_import_dmabuf(dev, p[0], 0, al),
			sim_target() ? -EINVAL : -ENODEV, "fd");
	close(p[0]);
	close(p[1]);
	/* NVIDIA's P2P API is the kernel driver's. */
	if (!sim_target())
		assert_fdma_err(dev, fdma_buf_import_nvp2p(dev, 1ull << 40, 65536), -EOPNOTSUPP,
				"kdev:");
	/* After all that, a good import still works and is the first handle. */
	h = import(dev, &x, 0, size);
	assert_fdma_ok(dev, fdma_buf_free(dev, h));
	unexport(&x);
	fdma_close(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_both_ways),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_fd_closed_first),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_bad_imports),
	};

	return T_RUN(tests);
}
