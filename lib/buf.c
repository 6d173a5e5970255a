// SPDX-License-Identifier: MIT
/*
 * libfdma: DMA buffers. Allocated or registered once, named by a handle,
 * reused for every transfer: nothing on the data path allocates or copies.
 */
#include <string.h>
#include <sys/mman.h>

#include "fdma_internal.h"

#define HUGE_2M (2ull << 20)

int fdma_map_mem(struct fdma_dev *dev, void *addr, size_t size, u64 *bus)
{
	return fdma_addrmap_add(&dev->map, addr, size, bus);
}

void fdma_unmap_mem(struct fdma_dev *dev, u64 bus)
{
	fdma_addrmap_remove(&dev->map, bus);
}

void fdma_buf_unmap(struct fdma_buf *b)
{
	munmap(b->addr, b->map_len);
	b->map_len = 0;
}

static struct fdma_buf *buf_get(struct fdma_dev *dev, int h)
{
	if (h < 0 || h >= FDMA_MAX_BUFS || !atomic_load(&dev->buf[h].used))
		return NULL;
	return &dev->buf[h];
}

struct fdma_buf *fdma_buf_lookup(struct fdma_dev *dev, int h)
{
	return buf_get(dev, h);
}

/* Take a free slot and map it for the device; called with dev->lock held. */
static int buf_install(struct fdma_dev *dev, void *addr, size_t size, size_t map_len)
{
	for (int h = 0; h < FDMA_MAX_BUFS; h++) {
		struct fdma_buf *b = &dev->buf[h];
		int ret;

		if (atomic_load(&b->used))
			continue;
		ret = fdma_map_mem(dev, addr, size, &b->bus);
		if (ret)
			return ret;
		b->addr = addr;
		b->size = size;
		b->map_len = map_len;
		atomic_store(&b->inflight, 0);
		/* Publish last: a lock-free lookup that sees used sees the fields. */
		atomic_store(&b->used, 1);
		return h;
	}
	return -ENOSPC;
}

int fdma_buf_alloc(struct fdma_dev *dev, size_t size, unsigned int flags)
{
	size_t len;
	void *p = MAP_FAILED;
	int h;

	if (!fdma_dev_live(dev))
		return -EBADF;
	if (size == 0)
		return fdma_err(dev, -EINVAL, "fdma_buf_alloc: size is zero");
	if (size > (1ull << FDMA_ADDRMAP_SHIFT))
		return fdma_err(dev, -EINVAL, "fdma_buf_alloc: %zu bytes is over the 64 GiB limit", size);
	if (flags & ~FDMA_BUF_HUGEPAGE)
		return fdma_err(dev, -EINVAL, "fdma_buf_alloc: unknown flags 0x%x", flags);
	/* Page granularity keeps every buffer 64-byte (in fact 4 KiB) aligned. */
	len = (size + 4095) & ~(size_t)4095;
	if (flags & FDMA_BUF_HUGEPAGE) {
		size_t hlen = (size + HUGE_2M - 1) & ~(HUGE_2M - 1);

		p = mmap(NULL, hlen, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0);
		if (p != MAP_FAILED)
			len = hlen;
	}
	if (p == MAP_FAILED) {
		/* Populate now: page faults belong to set-up, not to the first transfer. */
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			return fdma_err(dev, -ENOMEM, "fdma_buf_alloc: cannot map %zu bytes", size);
		if (flags & FDMA_BUF_HUGEPAGE)
			madvise(p, len, MADV_HUGEPAGE);
	}
	pthread_mutex_lock(&dev->lock);
	h = buf_install(dev, p, size, len);
	pthread_mutex_unlock(&dev->lock);
	if (h < 0) {
		munmap(p, len);
		return fdma_err(dev, h,
				"fdma_buf_alloc: no free handle (%d bus windows per device, shared with the channel rings)",
				FDMA_MAX_BUFS);
	}
	return h;
}

int fdma_buf_register(struct fdma_dev *dev, void *addr, size_t size)
{
	int h;

	if (!fdma_dev_live(dev))
		return -EBADF;
	if (!addr || size == 0)
		return fdma_err(dev, -EINVAL, "fdma_buf_register: NULL address or zero size");
	if (((uintptr_t)addr | size) & (dev->caps.align - 1))
		return fdma_err(dev, -EINVAL,
				"fdma_buf_register: address %p and size %zu must be multiples of %u bytes",
				addr, size, dev->caps.align);
	if (size > (1ull << FDMA_ADDRMAP_SHIFT))
		return fdma_err(dev, -EINVAL, "fdma_buf_register: %zu bytes is over the 64 GiB limit", size);
	pthread_mutex_lock(&dev->lock);
	h = buf_install(dev, addr, size, 0);
	pthread_mutex_unlock(&dev->lock);
	if (h < 0)
		return fdma_err(dev, h, "fdma_buf_register: no free buffer handle");
	return h;
}

int fdma_buf_free(struct fdma_dev *dev, int h)
{
	struct fdma_buf *b;
	int ret = 0;

	if (!fdma_dev_live(dev))
		return -EBADF;
	pthread_mutex_lock(&dev->lock);
	b = buf_get(dev, h);
	if (!b) {
		ret = -EBADF;
	} else if (atomic_load(&b->inflight)) {
		ret = -EBUSY;
	} else {
		atomic_store(&b->used, 0);
		fdma_unmap_mem(dev, b->bus);
		if (b->map_len)
			fdma_buf_unmap(b);
	}
	pthread_mutex_unlock(&dev->lock);
	if (ret == -EBADF)
		return fdma_err(dev, ret, "fdma_buf_free: unknown buffer handle %d", h);
	if (ret == -EBUSY)
		return fdma_err(dev, ret, "fdma_buf_free: buffer %d has %u transfers in flight",
				h, atomic_load(&b->inflight));
	return 0;
}

void *fdma_buf_addr(struct fdma_dev *dev, int h)
{
	struct fdma_buf *b = fdma_dev_live(dev) ? buf_get(dev, h) : NULL;

	return b ? b->addr : NULL;
}

size_t fdma_buf_size(struct fdma_dev *dev, int h)
{
	struct fdma_buf *b = fdma_dev_live(dev) ? buf_get(dev, h) : NULL;

	return b ? b->size : 0;
}
