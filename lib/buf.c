// SPDX-License-Identifier: MIT
/*
 * libfdma: DMA buffers. Allocated or registered once, named by a handle,
 * reused for every transfer: nothing on the data path allocates or copies.
 * This file keeps the handle table; the backend provides the memory and
 * makes it reachable by the device.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdma_internal.h"

#define HUGE_2M (2ull << 20)
/* The address map's limit (64 GiB). A variable, not the constant: where
 * size_t has 32 bits, size > constant is always false and -Wtype-limits
 * (-Wextra) fails the armhf build. */
static const uint64_t buf_max = 1ull << FDMA_ADDRMAP_SHIFT;

void *fdma_mmap_hugetlb(size_t size, size_t *len)
{
	size_t hlen = (size + HUGE_2M - 1) & ~(HUGE_2M - 1);
	void *p = mmap(NULL, hlen, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	*len = hlen;
	return p;
}

void *fdma_mmap_anon(size_t size, bool thp, size_t *len)
{
	/* Page granularity keeps every buffer 64-byte (in fact 4 KiB) aligned. */
	size_t plen = (size + 4095) & ~(size_t)4095;
	/* Populate now: page faults belong to set-up, not to the first transfer. */
	void *p = mmap(NULL, plen, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (thp)
		madvise(p, plen, MADV_HUGEPAGE);
	*len = plen;
	return p;
}

/*
 * [offset, + size) of fd mapped shared, read and write: the address of
 * offset, with the mapping's start (map_off bytes before it) and length;
 * NULL if the file cannot be mapped so. Mapped from the file's start:
 * some exporters' mmap ignores the offset (DRM's shmem helpers on 6.1
 * map the object's first page at any offset), and address space is cheap.
 */
void *fdma_mmap_fd(int fd, u64 offset, size_t size, size_t *map_off, size_t *len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), mlen;
	char *p;

	if (offset > SIZE_MAX - size - page) {
		errno = EOVERFLOW;
		return NULL;
	}
	mlen = ((size_t)offset + size + page - 1) & ~(page - 1);
	p = mmap(NULL, mlen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	*map_off = (size_t)offset;
	*len = mlen;
	return p + offset;
}

/* Undo the mapping the library made for b, if any. */
void fdma_buf_unmap(struct fdma_buf *b)
{
	if (b->map_len)
		munmap((char *)b->addr - b->map_off, b->map_len);
	b->map_len = 0;
	b->map_off = 0;
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

/* A free slot, or -ENOSPC; called with dev->lock held. */
static int buf_slot(struct fdma_dev *dev)
{
	for (int h = 0; h < FDMA_MAX_BUFS; h++)
		if (!atomic_load(&dev->buf[h].used))
			return h;
	return -ENOSPC;
}

/*
 * What a new buffer is made of: gpu_va pins GPU memory, fd >= 0 imports,
 * addr registers, else it is allocated.
 */
struct buf_src {
	u64 gpu_va;
	void *addr;
	int fd;
	u64 offset;
	size_t size;
	unsigned int flags;
};

/*
 * Take a free slot and have the backend fill it from src. Returns the
 * handle, or an error with its message.
 */
static int buf_install(struct fdma_dev *dev, const char *fn, const struct buf_src *src)
{
	struct fdma_buf *b;
	int h, ret;
	bool full;

	pthread_mutex_lock(&dev->lock);
	h = buf_slot(dev);
	full = h < 0;
	if (h >= 0) {
		b = &dev->buf[h];
		/* Field by field, not a memset: lock-free lookups may be reading used. */
		b->addr = NULL;
		b->size = 0;
		b->map_len = 0;
		b->map_off = 0;
		b->flags = 0;
		b->bus = 0;
		b->khandle = 0;
		b->own = false;
		if (src->gpu_va)
			ret = dev->ops->buf_nvp2p(dev, b, src->gpu_va, src->size);
		else if (src->fd >= 0)
			ret = dev->ops->buf_import(dev, b, src->fd, src->offset, src->size);
		else if (src->addr)
			ret = dev->ops->buf_register(dev, b, src->addr, src->size);
		else
			ret = dev->ops->buf_alloc(dev, b, src->size, src->flags);
		if (ret) {
			h = ret;
		} else {
			atomic_store(&b->inflight, 0);
			atomic_store_explicit(&b->span, b->size, memory_order_relaxed);
			/* Last: a lock-free lookup that sees used sees the fields. */
			atomic_store(&b->used, 1);
		}
	}
	pthread_mutex_unlock(&dev->lock);
	/* The handles ran out; a backend's own -ENOSPC (a bus window, the driver's) keeps its message. */
	if (full)
		return fdma_err(dev, h, "%s: no free buffer handle (%d per device)", fn,
				FDMA_MAX_BUFS);
	return h;
}

int fdma_buf_alloc(struct fdma_dev *dev, size_t size, unsigned int flags)
{
	if (!fdma_dev_live(dev))
		return -EBADF;
	if (size == 0)
		return fdma_err(dev, -EINVAL, "fdma_buf_alloc: size is zero");
	if (size > buf_max)
		return fdma_err(dev, -EINVAL, "fdma_buf_alloc: %zu bytes is over the 64 GiB limit", size);
	if (flags & ~FDMA_BUF_HUGEPAGE)
		return fdma_err(dev, -EINVAL, "fdma_buf_alloc: unknown flags 0x%x", flags);
	return buf_install(dev, "fdma_buf_alloc",
			   &(struct buf_src){ .fd = -1, .size = size, .flags = flags });
}

int fdma_buf_register(struct fdma_dev *dev, void *addr, size_t size)
{
	if (!fdma_dev_live(dev))
		return -EBADF;
	if (!addr || size == 0)
		return fdma_err(dev, -EINVAL, "fdma_buf_register: NULL address or zero size");
	if (((uintptr_t)addr | size) & (dev->info.align - 1))
		return fdma_err(dev, -EINVAL,
				"fdma_buf_register: address %p and size %zu must be multiples of %u bytes",
				addr, size, dev->info.align);
	if (size > buf_max)
		return fdma_err(dev, -EINVAL, "fdma_buf_register: %zu bytes is over the 64 GiB limit", size);
	return buf_install(dev, "fdma_buf_register",
			   &(struct buf_src){ .fd = -1, .addr = addr, .size = size });
}

int fdma_buf_import_nvp2p(struct fdma_dev *dev, uint64_t gpu_va, size_t size)
{
	if (!fdma_dev_live(dev))
		return -EBADF;
	if (!dev->ops->buf_nvp2p)
		return fdma_err(dev, -EOPNOTSUPP,
				"fdma_buf_import_nvp2p: %s devices cannot pin GPU memory (NVIDIA's P2P API is the kernel driver's: kdev:)",
				dev->info.backend);
	if (!gpu_va || size == 0)
		return fdma_err(dev, -EINVAL, "fdma_buf_import_nvp2p: a zero GPU address or size");
	if (size > buf_max || gpu_va > UINT64_MAX - size)
		return fdma_err(dev, -EINVAL, "fdma_buf_import_nvp2p: %zu bytes at 0x%" PRIx64 " is out of range",
				size, gpu_va);
	return buf_install(dev, "fdma_buf_import_nvp2p",
			   &(struct buf_src){ .gpu_va = gpu_va, .fd = -1, .size = size });
}

int fdma_buf_import_dmabuf(struct fdma_dev *dev, int fd, uint64_t offset, size_t size)
{
	struct stat st;

	if (!fdma_dev_live(dev))
		return -EBADF;
	if (fd < 0)
		return fdma_err(dev, -EBADF, "fdma_buf_import_dmabuf: fd %d is not a file descriptor", fd);
	if (size == 0)
		return fdma_err(dev, -EINVAL, "fdma_buf_import_dmabuf: size is zero");
	if ((offset | size) & (dev->info.align - 1))
		return fdma_err(dev, -EINVAL,
				"fdma_buf_import_dmabuf: offset %" PRIu64 " and size %zu must be multiples of %u bytes",
				offset, size, dev->info.align);
	if (size > buf_max)
		return fdma_err(dev, -EINVAL, "fdma_buf_import_dmabuf: %zu bytes is over the 64 GiB limit",
				size);
	if (offset > UINT64_MAX - size)
		return fdma_err(dev, -EINVAL, "fdma_buf_import_dmabuf: offset %" PRIu64 " + %zu bytes overflows",
				offset, size);
	/* A dma-buf's size is its file's size: say so here, on every backend. */
	if (fstat(fd, &st))
		return fdma_err(dev, -errno, "fdma_buf_import_dmabuf: fd %d: %s", fd, strerror(errno));
	if (st.st_size > 0 && (offset > (u64)st.st_size || size > (u64)st.st_size - offset))
		return fdma_err(dev, -ERANGE,
				"fdma_buf_import_dmabuf: [%" PRIu64 ", +%zu) is beyond the %" PRIu64 " bytes of fd %d",
				offset, size, (u64)st.st_size, fd);
	return buf_install(dev, "fdma_buf_import_dmabuf",
			   &(struct buf_src){ .fd = fd, .offset = offset, .size = size });
}

int fdma_buf_export_dmabuf(struct fdma_dev *dev, int h, unsigned int flags)
{
	struct fdma_buf *b;
	int ret;

	if (!fdma_dev_live(dev))
		return -EBADF;
	if (flags & ~FDMA_EXPORT_RDONLY)
		return fdma_err(dev, -EINVAL, "fdma_buf_export_dmabuf: unknown flags 0x%x", flags);
	if (!dev->ops->buf_export)
		return fdma_err(dev, -EOPNOTSUPP,
				"fdma_buf_export_dmabuf: %s devices cannot export a dma-buf (their buffers are this process's memory; fdma.ko's can: kdev:)",
				dev->info.backend);
	/* Under the lock: the handle cannot be freed meanwhile. */
	pthread_mutex_lock(&dev->lock);
	b = buf_get(dev, h);
	if (!b)
		ret = fdma_err(dev, -EBADF, "fdma_buf_export_dmabuf: %d is not a buffer handle", h);
	else if (!b->own)
		ret = fdma_err(dev, -EINVAL,
			       "fdma_buf_export_dmabuf: buffer %d is %s, not the driver's memory to give (export one fdma_buf_alloc() made without FDMA_BUF_HUGEPAGE)",
			       h, b->flags & FDMA_BUF_DMABUF ? "an imported dma-buf" :
			       b->flags & FDMA_BUF_HUGEPAGE ? "huge pages of this process's" :
			       "this process's memory");
	else
		ret = dev->ops->buf_export(dev, b, flags);
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

int fdma_buf_free(struct fdma_dev *dev, int h)
{
	struct fdma_buf *b;
	int ret;

	if (!fdma_dev_live(dev))
		return -EBADF;
	pthread_mutex_lock(&dev->lock);
	b = buf_get(dev, h);
	if (!b) {
		ret = -EBADF;
	} else {
		ret = dev->ops->buf_free(dev, b);
		if (!ret)
			atomic_store(&b->used, 0);
	}
	pthread_mutex_unlock(&dev->lock);
	if (ret == -EBADF)
		return fdma_err(dev, ret, "fdma_buf_free: unknown buffer handle %d", h);
	return ret;
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

/*
 * Lock-free, so that a monitoring thread never waits behind an allocation:
 * each slot's used is read atomically, then its span (size, atomic: the
 * slot may be freed and taken again between the two loads). A slot
 * allocated or freed during the scan may be counted either way, so a count
 * racing other threads' fdma_buf_*() calls is off by at most their
 * in-flight changes; one taken while no other thread allocates or frees
 * is exact.
 */
int fdma_buf_count(struct fdma_dev *dev, uint64_t *bytes)
{
	u64 sum = 0;
	int n = 0;

	if (!fdma_dev_live(dev))
		return -EBADF;
	for (int h = 0; h < FDMA_MAX_BUFS; h++) {
		const struct fdma_buf *b = &dev->buf[h];

		if (!atomic_load(&b->used))
			continue;
		n++;
		sum += atomic_load_explicit(&b->span, memory_order_relaxed);
	}
	if (bytes)
		*bytes = sum;
	return n;
}

int fdma_buf_flags(struct fdma_dev *dev, int h)
{
	struct fdma_buf *b;

	if (!fdma_dev_live(dev))
		return -EBADF;
	b = buf_get(dev, h);
	if (!b)
		return fdma_err(dev, -EBADF, "fdma_buf_flags: unknown buffer handle %d", h);
	return (int)b->flags;
}
