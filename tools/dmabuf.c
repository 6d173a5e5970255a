// SPDX-License-Identifier: MIT
/*
 * --mem dmabuf: buffers that are not host memory the library allocated but
 * a dma-buf imported into the device, the way GPU memory comes in. The
 * command line cannot allocate GPU memory (examples/gpu does), so the
 * dma-buf comes from the first exporter the system has; the data path is
 * the same one an imported GPU buffer takes.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util.h"

static int memfd_sized(size_t size)
{
	int m = memfd_create("fdma-dmabuf", MFD_ALLOW_SEALING | MFD_CLOEXEC);

	if (m < 0)
		return -errno;
	if (ftruncate(m, (off_t)size)) {
		int e = -errno;

		close(m);
		return e;
	}
	return m;
}

static int from_heap(size_t size)
{
	int heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	struct dma_heap_allocation_data a = { .len = size, .fd_flags = O_RDWR | O_CLOEXEC };
	int ret;

	if (heap < 0)
		return -errno;
	ret = ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a) ? -errno : (int)a.fd;
	close(heap);
	return ret;
}

/* udmabuf wants its memfd sealed against shrinking: pages that cannot go. */
static int from_udmabuf(size_t size)
{
	int dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC), m, ret;
	struct udmabuf_create c = { .flags = UDMABUF_FLAGS_CLOEXEC, .size = size };

	if (dev < 0)
		return -errno;
	m = memfd_sized(size);
	if (m < 0) {
		close(dev);
		return m;
	}
	if (fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK)) {
		ret = -errno;
	} else {
		c.memfd = (uint32_t)m;
		ret = ioctl(dev, UDMABUF_CREATE, &c);
		if (ret < 0)
			ret = -errno;
	}
	close(m);
	close(dev);
	return ret;
}

int tool_dmabuf_import(const char *cmd, struct fdma_dev *dev, size_t size, const char **how)
{
	static const struct {
		const char *name;
		int (*make)(size_t size);
	} src[] = {
		{ "dma-heap", from_heap },
		{ "udmabuf", from_udmabuf },
		/* Not a dma-buf: the simulated device takes any mappable file as one. */
		{ "memfd", memfd_sized },
	};
	char why[3][160];

	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++) {
		int fd = src[i].make(size), h;

		if (fd < 0) {
			snprintf(why[i], sizeof(why[i]), "%s", strerror(-fd));
			continue;
		}
		h = fdma_buf_import_dmabuf(dev, fd, 0, size);
		/* The device's reference keeps the memory; ours can go either way. */
		close(fd);
		if (h >= 0) {
			*how = src[i].name;
			return h;
		}
		snprintf(why[i], sizeof(why[i]), "%s", fdma_errmsg(dev));
	}
	fprintf(stderr, "fdma %s: no dma-buf of %zu bytes could be imported:\n"
		"  /dev/dma_heap/system: %s\n  /dev/udmabuf: %s\n  memfd (sim: only): %s\n",
		cmd, size, why[0], why[1], why[2]);
	return -1;
}

int tool_card_view(struct fdma_dev *dev, int src, uint64_t off, int dst, uint64_t dst_off,
		   uint64_t len, uint64_t card_addr)
{
	int ret = fdma_write_card(dev, src, off, card_addr, len);

	return ret ? ret : fdma_read_card(dev, dst, dst_off, card_addr, len);
}
