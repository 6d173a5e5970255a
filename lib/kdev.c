// SPDX-License-Identifier: MIT
/*
 * libfdma "kdev:" backend: the kernel driver fdma.ko through /dev/fdmaN
 * (include/fdma_ioctl.h). One open file per device handle: its buffers
 * and completion queues are private to it.
 *
 * The data path is one ioctl per submitted batch; completions are read
 * from the per-channel queue the driver shares with us (mmap), so reaping
 * what has already arrived costs no system call. Waiting is FDMA_IOC_WAIT:
 * with min_entries 0 it only moves what the device finished into the
 * queue (spin polling), otherwise it sleeps until the interrupt.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef FDMA_HAVE_LIBURING
#include <liburing.h>
#else
#include <linux/io_uring.h>
#endif

#include "fdma_internal.h"
#include "fdma_ioctl.h"
#include "xdma_regs.h"

/*
 * A request in flight: the driver carries the slot's index as user_data
 * and gives it back in the completion, so that the completion finds the
 * caller's user_data and its buffer (whose in-flight count falls only
 * when the caller has reaped it, as on every backend).
 */
struct fdma_kslot {
	u64 user_data;
	int buf;
	int dst_buf;		/* a copy's destination, else -1 */
	bool used;
};

/* Cache-line aligned, like struct fdma_echan: one thread per channel. */
struct fdma_kchan {
	_Alignas(64) struct fdma_cq_hdr *hdr;	/* completion queue, shared with the driver */
	struct fdma_cq_entry *ent;
	size_t cq_bytes;
	struct fdma_kslot *slot;	/* cq_entries: no more can be in flight */
	u32 *free_slot;			/* stack of free slot indices */
	u32 nfree;
	int efd;			/* fdma_chan_fd(): signalled by the driver, or -1 */
	struct fdma_ioc_stats base;	/* the driver's counters when we opened */
	/* The engine's request rules, to name what is wrong before the driver says EINVAL. */
	struct fdma_ering rules;
	enum fdma_wait_mode mode;
	unsigned int spin_us;
	/*
	 * Our reset was never acknowledged: reaps say -EIO, until a reset or a
	 * submit succeeds (another process may have recovered the channel).
	 */
	bool broken;
	/* FDMA_IOC_MAX_BATCH elements, for the submit and copy ioctls */
	union {
		struct fdma_ioc_req *ireq;
		struct fdma_ioc_copy *icopy;
	};
	/* This handle's counts; the device-side ones come from the driver. */
	struct fdma_chan_stats st;
	/*
	 * Synchronous transfers through io_uring (kdev_xfer()): the ring, made
	 * on first use; ring_off once it could not be (the ioctls then);
	 * ring_pending while a command that timed out is still in flight.
	 */
	struct io_uring *ring;
	bool ring_off;
	bool ring_pending;
};

/* The oldest driver interface this library speaks (include/fdma_ioctl.h). */
#define FDMA_KDEV_UAPI_MIN	2

struct fdma_kdev {
	int fd;
	struct fdma_ioc_info in;
	u32 align;		/* of host memory: in.align, or in.dma_align if larger */
	struct fdma_kchan ch[FDMA_MAX_CHAN];
};

static int kerr(struct fdma_dev *dev, const char *what)
{
	int e = errno;

	return fdma_err(dev, -e, "%s: %s", what, strerror(e));
}

/* ---- buffers ---------------------------------------------------------------- */

/* Register [addr, +size) rounded up to the alignment (our own mappings have room for it). */
static int kdev_register_mem(struct fdma_dev *dev, struct fdma_buf *b, void *addr, size_t size)
{
	size_t align = dev->info.align;
	struct fdma_ioc_buf_reg r = { .addr = (uintptr_t)addr,
				      .size = (size + align - 1) & ~(align - 1) };

	if (ioctl(dev->kdev->fd, FDMA_IOC_BUF_REGISTER, &r)) {
		if (errno == ENOMEM || errno == EPERM)
			return fdma_err(dev, -errno,
					"fdma_buf_register: the driver cannot pin %zu bytes: %s (RLIMIT_MEMLOCK? see ulimit -l)",
					size, strerror(errno));
		return kerr(dev, "fdma_buf_register: FDMA_IOC_BUF_REGISTER");
	}
	b->khandle = r.handle;
	b->addr = addr;
	b->size = size;
	return 0;
}

/*
 * Driver memory (FDMA_IOC_BUF_ALLOC), mapped: 0; 1 when the driver cannot
 * have that much (try our own memory); or a negative errno with its message.
 */
static int alloc_driver_mem(struct fdma_dev *dev, struct fdma_buf *b, size_t size, size_t len)
{
	struct fdma_kdev *k = dev->kdev;
	struct fdma_ioc_buf_alloc a = { .size = size };
	void *p;
	int ret;

	if (ioctl(k->fd, FDMA_IOC_BUF_ALLOC, &a)) {
		if (errno == ENOMEM || errno == EINVAL)
			return 1;
		return kerr(dev, "fdma_buf_alloc: FDMA_IOC_BUF_ALLOC");
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, k->fd,
		 (off_t)a.mmap_offset);
	if (p == MAP_FAILED) {
		ret = kerr(dev, "fdma_buf_alloc: mmap of driver memory");
		ioctl(k->fd, FDMA_IOC_BUF_FREE, &a.handle);
		return ret;
	}
	b->khandle = a.handle;
	b->addr = p;
	b->size = size;
	b->map_len = len;
	b->own = true;
	return 0;
}

/*
 * With FDMA_BUF_HUGEPAGE, huge pages registered with the driver (one
 * descriptor per 2 MiB piece) where the system has them. Otherwise driver
 * memory: pages in chunks of up to 4 MiB where the kernel has them (one
 * descriptor per chunk, or fewer behind an IOMMU), mapped here. Where the
 * driver cannot have that much, the buffer is our own memory, pinned and
 * mapped by the driver (one descriptor per page, so requests are limited
 * by the ring size).
 */
static int kdev_buf_alloc(struct fdma_dev *dev, struct fdma_buf *b, size_t size, unsigned int flags)
{
	size_t len = (size + 4095) & ~(size_t)4095;
	void *p = flags & FDMA_BUF_HUGEPAGE ? fdma_mmap_hugetlb(size, &len) : NULL;
	int ret;

	if (p) {
		if (!kdev_register_mem(dev, b, p, size)) {
			b->map_len = len;
			b->flags = FDMA_BUF_HUGEPAGE;
			return 0;
		}
		munmap(p, len);
		len = (size + 4095) & ~(size_t)4095;
	}
	ret = alloc_driver_mem(dev, b, size, len);
	if (ret <= 0)
		return ret;
	p = fdma_mmap_anon(size, false, &len);
	if (!p)
		return fdma_err(dev, -ENOMEM, "fdma_buf_alloc: cannot map %zu bytes", size);
	ret = kdev_register_mem(dev, b, p, size);
	if (ret) {
		munmap(p, len);
		return ret;
	}
	b->map_len = len;
	return 0;
}

static int kdev_buf_register(struct fdma_dev *dev, struct fdma_buf *b, void *addr, size_t size)
{
	return kdev_register_mem(dev, b, addr, size);
}

/*
 * The driver attaches and maps the dma-buf for the device; we map it for
 * the CPU too where the exporter allows (fdma_buf_addr() is NULL if not).
 */
static int kdev_buf_import(struct fdma_dev *dev, struct fdma_buf *b, int fd, u64 offset,
			   size_t size)
{
	struct fdma_ioc_buf_import r = { .fd = fd, .offset = offset, .size = size };
	size_t off, len;
	void *p;

	if (ioctl(dev->kdev->fd, FDMA_IOC_BUF_IMPORT, &r)) {
		if (errno == ENOTTY)
			return fdma_err(dev, -EOPNOTSUPP,
					"fdma_buf_import_dmabuf: the driver predates dma-buf import (uapi 8, it has %u)",
					dev->kdev->in.uapi_version);
		if (errno == EINVAL || errno == ERANGE || errno == EBADF)
			return fdma_err(dev, -errno,
					"fdma_buf_import_dmabuf: FDMA_IOC_BUF_IMPORT: %s (fd %d: a dma-buf? [%" PRIu64 ", +%zu) inside it, multiples of %u?)",
					strerror(errno), fd, offset, size, dev->kdev->in.dma_align);
		return kerr(dev, "fdma_buf_import_dmabuf: FDMA_IOC_BUF_IMPORT");
	}
	b->khandle = r.handle;
	b->size = size;
	b->flags = FDMA_BUF_DMABUF;
	p = fdma_mmap_fd(fd, offset, size, &off, &len);
	if (p) {
		b->addr = p;
		b->map_off = off;
		b->map_len = len;
	}
	return 0;
}

/* A dma-buf over one of the driver's buffers (FDMA_IOC_BUF_EXPORT). */
static int kdev_buf_export(struct fdma_dev *dev, struct fdma_buf *b, unsigned int flags)
{
	struct fdma_ioc_buf_export r = {
		.handle = b->khandle,
		.flags = O_CLOEXEC | (flags & FDMA_EXPORT_RDONLY ? O_RDONLY : O_RDWR),
	};

	if (dev->kdev->in.uapi_version < 10 || !(dev->kdev->in.features & FDMA_FEAT_EXPORT))
		return fdma_err(dev, -EOPNOTSUPP,
				"fdma_buf_export_dmabuf: the driver predates dma-buf export (uapi 10, it has %u)",
				dev->kdev->in.uapi_version);
	if (ioctl(dev->kdev->fd, FDMA_IOC_BUF_EXPORT, &r))
		return kerr(dev, "fdma_buf_export_dmabuf: FDMA_IOC_BUF_EXPORT");
	return r.fd;
}

/* GPU memory pinned by the driver through NVIDIA's P2P API: no CPU view. */
static int kdev_buf_nvp2p(struct fdma_dev *dev, struct fdma_buf *b, u64 gpu_va, size_t size)
{
	struct fdma_ioc_buf_nvp2p r = { .va = gpu_va, .size = size };

	if (ioctl(dev->kdev->fd, FDMA_IOC_BUF_NVP2P, &r)) {
		if (errno == ENOTTY || errno == EOPNOTSUPP)
			return fdma_err(dev, -EOPNOTSUPP,
					"fdma_buf_import_nvp2p: fdma.ko was built without NVIDIA's nv-p2p.h (docs/dmabuf.md: make NV_P2P_INC=...)");
		if (errno == ENODEV)
			return fdma_err(dev, -ENODEV,
					"fdma_buf_import_nvp2p: NVIDIA's peer-to-peer API is not loaded (nvidia.ko; nvidia-p2p.ko on Jetson)");
		if (errno == EINVAL)
			return fdma_err(dev, -EINVAL,
					"fdma_buf_import_nvp2p: [0x%" PRIx64 ", +%zu) refused: not GPU memory, or not whole GPU pages (64 KiB; 4 KiB on Jetson)",
					gpu_va, size);
		return kerr(dev, "fdma_buf_import_nvp2p: FDMA_IOC_BUF_NVP2P");
	}
	b->khandle = r.handle;
	b->size = size;
	b->flags = FDMA_BUF_DMABUF;
	return 0;
}

static int kdev_buf_free(struct fdma_dev *dev, struct fdma_buf *b)
{
	unsigned int n = atomic_load(&b->inflight);

	if (n)
		return fdma_err(dev, -EBUSY, "fdma_buf_free: buffer %d has %u transfers in flight",
				(int)(b - dev->buf), n);
	if (ioctl(dev->kdev->fd, FDMA_IOC_BUF_FREE, &b->khandle)) {
		if (errno == EBUSY)
			return fdma_err(dev, -EBUSY, "fdma_buf_free: buffer %d has transfers in flight",
					(int)(b - dev->buf));
		return kerr(dev, "fdma_buf_free: FDMA_IOC_BUF_FREE");
	}
	/* Driver memory goes with the last mapping; ours is unpinned already. */
	fdma_buf_unmap(b);
	return 0;
}

/* ---- submission --------------------------------------------------------------- */

static u32 ioc_req_flags(u32 f)
{
	return (f & FDMA_REQ_IRQ ? FDMA_IOC_REQ_IRQ : 0) |
	       (f & FDMA_REQ_SOF ? FDMA_IOC_REQ_SOF : 0) |
	       (f & FDMA_REQ_EOF ? FDMA_IOC_REQ_EOF : 0);
}

/* A checked request as the driver reads it (FDMA_IOC_SUBMIT, FDMA_URING_CMD_SUBMIT). */
static struct fdma_ioc_req ioc_req(const struct fdma_dev *dev, const struct fdma_req *r,
				   u64 user_data)
{
	return (struct fdma_ioc_req){
		.handle = dev->buf[r->buf].khandle,
		.flags = ioc_req_flags(r->flags),
		.offset = r->offset,
		.card_addr = r->card_addr,
		.len = r->len,
		.user_data = user_data,
	};
}

/*
 * Queue a batch of requests (reqs) or copies (cps): FDMA_IOC_SUBMIT or
 * FDMA_IOC_COPY, one system call. The driver checks everything again; we
 * check first to say what is wrong.
 */
static int kdev_queue(struct fdma_dev *dev, int ch, const struct fdma_req *reqs,
		      const struct fdma_copy *cps, unsigned int n)
{
	struct fdma_kchan *kc = &dev->kdev->ch[ch];
	const char *call = cps ? "fdma_submit_copy: FDMA_IOC_COPY" : "fdma_submit: FDMA_IOC_SUBMIT";
	u64 need = 0;
	int rc;

	if (!n)
		return 0;
	/* Batches that no amount of reaping makes fit: -E2BIG, never -EAGAIN. */
	if (n > FDMA_IOC_MAX_BATCH || n > dev->kdev->in.cq_entries)
		return fdma_err(dev, -E2BIG,
				"channel %d: a batch of %u requests is over the %u the driver takes per call and queues per channel: split it",
				ch, n, dev->kdev->in.cq_entries < FDMA_IOC_MAX_BATCH ?
				dev->kdev->in.cq_entries : FDMA_IOC_MAX_BATCH);
	if (n > kc->nfree)
		return fdma_err(dev, -EAGAIN,
				"channel %d: %u requests in flight, room for %u more: reap to free the queue",
				ch, dev->kdev->in.cq_entries - kc->nfree, kc->nfree);
	for (unsigned int i = 0; i < n; i++) {
		u64 slot = kc->free_slot[kc->nfree - 1 - i];
		int ret;

		if (cps) {
			const struct fdma_copy *c = &cps[i];

			ret = fdma_copy_check(dev, &kc->rules, i, c, false);
			if (ret)
				return ret;
			need += fdma_ering_ndesc(&kc->rules, (u32)c->len);
			kc->icopy[i] = (struct fdma_ioc_copy){
				.src_handle = dev->buf[c->src_buf].khandle,
				.dst_handle = dev->buf[c->dst_buf].khandle,
				.src_offset = c->src_offset,
				.dst_offset = c->dst_offset,
				.len = c->len,
				.user_data = slot,
				.flags = ioc_req_flags(c->flags),
			};
		} else {
			const struct fdma_req *r = &reqs[i];

			ret = fdma_req_check(dev, &kc->rules, i, r, false);
			if (ret)
				return ret;
			need += fdma_ering_ndesc(&kc->rules, (u32)r->len);
			kc->ireq[i] = ioc_req(dev, r, slot);
		}
	}
	STAT_ADD(kc, syscalls, 1);
	if (cps) {
		struct fdma_ioc_copy_submit cs = { .chan = (u32)ch, .count = n,
						   .copies = (uintptr_t)kc->icopy };

		rc = ioctl(dev->kdev->fd, FDMA_IOC_COPY, &cs);
	} else {
		struct fdma_ioc_submit sb = { .chan = (u32)ch, .count = n,
					      .reqs = (uintptr_t)kc->ireq };

		rc = ioctl(dev->kdev->fd, FDMA_IOC_SUBMIT, &sb);
	}
	if (rc) {
		switch (errno) {
		case EAGAIN:
			return fdma_err(dev, -EAGAIN,
					"channel %d: no room for %u more requests now (%llu descriptors): reap completions to free the ring",
					ch, n, (unsigned long long)need);
		case E2BIG:
			return fdma_err(dev, -E2BIG,
					"channel %d: the batch needs more descriptors than the ring's %u (registered memory takes one per page)",
					ch, kc->rules.size);
		case EMSGSIZE:
			return fdma_err(dev, -EMSGSIZE,
					"channel %d: a C2H stream buffer is one descriptor, so one piece of device-contiguous memory, and a request's range is not (the driver gives large buffers in chunks, or page by page when it has no contiguous memory to spare): use smaller frames",
					ch);
		case EIO:
			return fdma_err(dev, -EIO, "channel %d did not come back from a reset", ch);
		case ENODEV:
			return fdma_err(dev, -ENODEV, "the device was removed");
		default:
			return kerr(dev, call);
		}
	}
	for (unsigned int i = 0; i < n; i++) {
		struct fdma_kslot *sl = &kc->slot[kc->free_slot[--kc->nfree]];

		sl->user_data = cps ? cps[i].user_data : reqs[i].user_data;
		sl->buf = cps ? cps[i].src_buf : reqs[i].buf;
		sl->dst_buf = cps ? cps[i].dst_buf : -1;
		sl->used = true;
		atomic_fetch_add_explicit(&dev->buf[sl->buf].inflight, 1, memory_order_relaxed);
		if (sl->dst_buf >= 0)
			atomic_fetch_add_explicit(&dev->buf[sl->dst_buf].inflight, 1,
						  memory_order_relaxed);
	}
	/* The driver took work: the channel is not broken (whoever reset it). */
	kc->broken = false;
	STAT_ADD(kc, transfers, n);
	return (int)n;
}

static int kdev_submit(struct fdma_dev *dev, int ch, const struct fdma_req *reqs, unsigned int n)
{
	return kdev_queue(dev, ch, reqs, NULL, n);
}

static int kdev_submit_copy(struct fdma_dev *dev, int ch, const struct fdma_copy *cps, unsigned int n)
{
	/* A driver of before version 5 shows the channel but cannot name a destination. */
	if (!(dev->kdev->in.features & FDMA_FEAT_MEMCPY))
		return fdma_err(dev, -EOPNOTSUPP,
				"channel %d: this driver (interface version %u) takes no copies: it needs version 5",
				ch, dev->kdev->in.uapi_version);
	return kdev_queue(dev, ch, NULL, cps, n);
}

/*
 * fdma_uring_prep(): the requests checked as kdev_queue() checks them,
 * translated into cmd (which the driver reads when the ring issues the
 * SQE), and the SQE of FDMA_URING_CMD_SUBMIT. No system call: the
 * application's ring makes it.
 */
static int kdev_uring_prep(struct fdma_dev *dev, int ch, const struct fdma_req *reqs,
			   unsigned int n, struct fdma_uring_cmd *cmd, struct io_uring_sqe *sqe)
{
	struct fdma_kchan *kc = &dev->kdev->ch[ch];
	const struct fdma_ioc_info *in = &dev->kdev->in;
	struct fdma_ioc_req *k = (struct fdma_ioc_req *)cmd->priv;
	struct fdma_uring_submit sc = { .reqs = (uintptr_t)k, .chan = (uint16_t)ch,
					.count = (uint16_t)n };
	u64 total = 0;

	_Static_assert(sizeof(cmd->priv) >= FDMA_URING_MAX_REQS * sizeof(*k),
		       "struct fdma_uring_cmd holds FDMA_URING_MAX_REQS requests");
	_Static_assert(sizeof(sc) == 16, "the command fits a 64-byte SQE");
	if (in->uapi_version < 11 || !(in->features & FDMA_FEAT_URING_CMD))
		return fdma_err(dev, -EOPNOTSUPP,
				"fdma_uring_prep: this driver takes no io_uring commands (it needs interface version 11, this one is %u, on Linux 6.1 or 6.7 and later): use fdma_submit()",
				in->uapi_version);
	if (dev->info.chan[ch].kind == FDMA_KIND_STREAM && !(in->features & FDMA_FEAT_URING_STREAM))
		return fdma_err(dev, -EOPNOTSUPP,
				"fdma_uring_prep: channel %d is a stream channel, and this kernel cannot cancel io_uring commands (Linux 6.7 and later can): a stream request waits for its frame as long as it takes, so the driver refuses it: use fdma_submit()",
				ch);
	for (unsigned int i = 0; i < n; i++) {
		const struct fdma_req *r = &reqs[i];
		int ret = fdma_req_check(dev, &kc->rules, i, r, false);

		if (ret)
			return ret;
		total += r->len;
		k[i] = ioc_req(dev, r, r->user_data);
	}
	if (total > INT_MAX)
		return fdma_err(dev, -EINVAL,
				"fdma_uring_prep: %llu bytes in one command: its CQE says how many moved in an int, so at most %d",
				(unsigned long long)total, INT_MAX);
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = dev->kdev->fd;
	sqe->cmd_op = FDMA_URING_CMD_SUBMIT;
	memcpy(sqe->cmd, &sc, sizeof(sc));
	return 0;
}

/* ---- synchronous transfers through io_uring --------------------------------- */

#ifdef FDMA_HAVE_LIBURING
/*
 * fdma_read_card() and fdma_write_card() through an io_uring command where
 * the driver takes one (interface 11): a ring of two entries per channel,
 * made on first use, and one io_uring_enter() that submits the command and
 * waits for its CQE, where the ioctls take two system calls (FDMA_IOC_SUBMIT,
 * then a wait). Where the ring cannot be made (io_uring disabled by
 * sysctl, a seccomp filter, no memory for it) or the driver refuses the
 * command, -EOPNOTSUPP with nothing done: the caller takes the ioctls.
 */

/* A CQE of a command that timed out, if it came since: it is done with. */
static void ring_drain(struct fdma_kchan *kc)
{
	struct io_uring_cqe *cqe;

	while (kc->ring && io_uring_peek_cqe(kc->ring, &cqe) == 0) {
		io_uring_cqe_seen(kc->ring, cqe);
		kc->ring_pending = false;
	}
}

static int ring_get(struct fdma_dev *dev, struct fdma_kchan *kc)
{
	if (kc->ring)
		return 0;
	if (kc->ring_off || !(dev->kdev->in.features & FDMA_FEAT_URING_CMD))
		return -EOPNOTSUPP;
	kc->ring = calloc(1, sizeof(*kc->ring));
	if (!kc->ring || io_uring_queue_init(2, kc->ring, 0) < 0) {
		free(kc->ring);
		kc->ring = NULL;
		kc->ring_off = true;
		return -EOPNOTSUPP;
	}
	return 0;
}

static void ring_put(struct fdma_kchan *kc)
{
	if (!kc->ring)
		return;
	io_uring_queue_exit(kc->ring);
	free(kc->ring);
	kc->ring = NULL;
}

static int kdev_xfer(struct fdma_dev *dev, int ch, const struct fdma_req *r, int64_t timeout_us)
{
	struct fdma_kchan *kc = &dev->kdev->ch[ch];
	const char *what = dev->info.chan[ch].dir == FDMA_H2C ? "write" : "read";
	struct __kernel_timespec ts = { .tv_sec = timeout_us / 1000000,
					.tv_nsec = (timeout_us % 1000000) * 1000 };
	struct fdma_uring_cmd cmd;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe = NULL;
	int ret, res;

	if (ring_get(dev, kc))
		return -EOPNOTSUPP;
	ring_drain(kc);
	if (kc->ring_pending)
		return fdma_err(dev, -EBUSY,
				"channel %d: a synchronous transfer that timed out is still in flight (fdma_chan_reset() cancels it)",
				ch);
	sqe = io_uring_get_sqe(kc->ring);	/* the ring is empty: never NULL */
	ret = kdev_uring_prep(dev, ch, r, 1, &cmd, sqe);
	if (ret)
		return ret;
	STAT_ADD(kc, syscalls, 1);
	ret = io_uring_submit_and_wait_timeout(kc->ring, &cqe, 1, timeout_us < 0 ? NULL : &ts, NULL);
	/* A signal: the command went in (submission comes before the wait); wait on. */
	while (ret == -EINTR) {
		if (io_uring_sq_ready(kc->ring))
			io_uring_submit(kc->ring);
		STAT_ADD(kc, syscalls, 1);
		ret = io_uring_wait_cqe_timeout(kc->ring, &cqe, timeout_us < 0 ? NULL : &ts);
	}
	if (ret == -ETIME) {
		kc->ring_pending = true;
		return fdma_err(dev, -ETIMEDOUT,
				"channel %d: the %s of %llu bytes at card 0x%llx did not complete in %lld us: still in flight (fdma_chan_reset() cancels it)",
				ch, what, (unsigned long long)r->len, (unsigned long long)r->card_addr,
				(long long)timeout_us);
	}
	if (ret < 0) {
		/* The ring itself failed: nothing was queued. The ioctls from now on. */
		io_uring_cq_advance(kc->ring, io_uring_cq_ready(kc->ring));
		ring_put(kc);
		kc->ring_off = true;
		return -EOPNOTSUPP;
	}
	res = cqe->res;
	io_uring_cqe_seen(kc->ring, cqe);
	/* A driver built for a kernel it offers no commands on says so here. */
	if (res == -EOPNOTSUPP) {
		ring_put(kc);
		kc->ring_off = true;
		return -EOPNOTSUPP;
	}
	STAT_ADD(kc, transfers, 1);
	STAT_ADD(kc, completions, 1);
	if (res < 0) {
		STAT_ADD(kc, errors, 1);
		return fdma_err(dev, res, "%s of %llu bytes at card 0x%llx failed: %s", what,
				(unsigned long long)r->len, (unsigned long long)r->card_addr,
				strerror(-res));
	}
	STAT_ADD(kc, bytes, (u64)res);
	kc->broken = false;
	return 0;
}
#else
static void ring_put(struct fdma_kchan *kc)
{
	(void)kc;
}
#endif

static int kdev_inflight(struct fdma_dev *dev, int ch)
{
	struct fdma_kchan *kc = &dev->kdev->ch[ch];

	return (int)(STAT_GET(kc, transfers) - STAT_GET(kc, completions));
}

/* ---- completion ------------------------------------------------------------------ */

static void drain_efd(struct fdma_kchan *kc)
{
	STAT_ADD(kc, syscalls, 1);
	fdma_efd_drain(kc->efd);
}

/* Take up to max entries from the queue. */
static unsigned int cq_take(struct fdma_dev *dev, struct fdma_kchan *kc, struct fdma_cpl *out,
			    unsigned int max)
{
	struct fdma_cq_hdr *h = kc->hdr;
	/* Acquire: the entries below tail are written before we read them. */
	u32 tail = __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE);
	u32 head = h->head;	/* ours alone to write */
	u32 n = tail - head, mask = h->mask;

	if (n > max)
		n = max;
	for (u32 i = 0; i < n; i++) {
		const struct fdma_cq_entry *e = &kc->ent[(head + i) & mask];
		struct fdma_cpl *c = &out[i];
		u64 idx = e->user_data;
		struct fdma_kslot *sl = idx < dev->kdev->in.cq_entries ? &kc->slot[idx] : NULL;

		/* The driver hands back what we gave it; anything else is a bug worth a message. */
		if (!sl || !sl->used) {
			fdma_err(dev, -EPROTO, "the driver completed request slot %llu, not in flight",
				 (unsigned long long)idx);
			c->user_data = 0;
		} else {
			struct fdma_buf *b = fdma_buf_lookup(dev, sl->buf);
			struct fdma_buf *d = sl->dst_buf >= 0 ? fdma_buf_lookup(dev, sl->dst_buf) : NULL;

			c->user_data = sl->user_data;
			if (b)
				atomic_fetch_sub_explicit(&b->inflight, 1, memory_order_relaxed);
			if (d)
				atomic_fetch_sub_explicit(&d->inflight, 1, memory_order_relaxed);
			sl->used = false;
			kc->free_slot[kc->nfree++] = (u32)idx;
		}
		c->len = e->len;
		c->res = e->res;
		c->status = e->status;
		c->flags = (e->flags & FDMA_IOC_CPL_SOF ? FDMA_CPL_SOF : 0) |
			   (e->flags & FDMA_IOC_CPL_EOF ? FDMA_CPL_EOF : 0) |
			   (e->flags & FDMA_IOC_CPL_OVERRUN ? FDMA_CPL_OVERRUN : 0);
		STAT_ADD(kc, bytes, e->len);
		if (e->res)
			STAT_ADD(kc, errors, 1);
	}
	if (n) {
		/* Release: we are done reading the entries before the driver may reuse them. */
		__atomic_store_n(&h->head, head + n, __ATOMIC_RELEASE);
		STAT_ADD(kc, completions, n);
	}
	return n;
}

/*
 * FDMA_IOC_WAIT: move finished work into the queue and, with min > 0,
 * sleep until min entries are queued or timeout_us passes. 0; 1 if the
 * sleep ran out (the driver looked at the ring once more then); or a
 * negative errno. EAGAIN and EINTR are not failures here: the caller
 * looks at the queue.
 */
static int kwait(struct fdma_dev *dev, int ch, u32 min, int64_t timeout_us)
{
	struct fdma_kchan *kc = &dev->kdev->ch[ch];
	struct fdma_ioc_wait w = { .chan = (u32)ch, .min_entries = min, .timeout_us = timeout_us };

	if (min > dev->kdev->in.cq_entries)
		w.min_entries = dev->kdev->in.cq_entries;
	STAT_ADD(kc, syscalls, 1);
	if (min && timeout_us)
		STAT_ADD(kc, wakeups, 1);
	if (!ioctl(dev->kdev->fd, FDMA_IOC_WAIT, &w))
		return 0;
	switch (errno) {
	case ETIMEDOUT:
		return min && timeout_us ? 1 : 0;
	case EAGAIN:
	case EINTR:
		return 0;
	case ENODEV:
		return fdma_err(dev, -ENODEV, "the device was removed");
	default:
		return kerr(dev, "fdma_reap: FDMA_IOC_WAIT");
	}
}

static int reap(struct fdma_dev *dev, int ch, struct fdma_cpl *cpls, unsigned int max,
		unsigned int min_wait, int64_t timeout_us)
{
	struct fdma_kchan *kc = &dev->kdev->ch[ch];
	unsigned int n, k;
	int64_t deadline, spin_end, left;
	int ret;

	/* Before looking at the queue: an entry published after this signals again. */
	if (kc->efd >= 0)
		drain_efd(kc);
	n = cq_take(dev, kc, cpls, max);
	/* Even a reap that would not wait: nothing will ever complete there. */
	if (!n && kc->broken)
		return fdma_err(dev, -EIO, "channel %d is broken: its reset was never acknowledged", ch);
	/*
	 * A poller (spin or adaptive) with nothing queued asks the driver to
	 * look at the ring now rather than at the next interrupt; a sleeper
	 * (and an fd poller) relies on the interrupt.
	 */
	if (!n && max && kc->mode != FDMA_WAIT_SLEEP && kdev_inflight(dev, ch) > 0 &&
	    kwait(dev, ch, 0, 0) >= 0)
		n = cq_take(dev, kc, cpls, max);
	if (n >= min_wait)
		return (int)n;
	if (kdev_inflight(dev, ch) == 0 && !n)
		return fdma_err(dev, -EAGAIN, "fdma_reap: nothing in flight on channel %d", ch);
	deadline = timeout_us < 0 ? -1 : fdma_now_us() + timeout_us;
	spin_end = kc->mode == FDMA_WAIT_SPIN ? INT64_MAX :
		   kc->mode == FDMA_WAIT_ADAPTIVE ? fdma_now_us() + kc->spin_us : 0;
	for (;;) {
		int64_t now = fdma_now_us();

		if (now < spin_end && (deadline < 0 || now < deadline)) {
			/* Polling: the driver looks at the ring; no interrupt needed. */
			ret = kwait(dev, ch, 0, 0);
		} else {
			/*
			 * Sleep for what can still come (the driver refuses to
			 * wait for more than is in flight), at most 100 ms at a
			 * time: a lost interrupt must not hang us, and the
			 * driver looks at the ring when a sleep runs out.
			 */
			u32 want = min_wait - n, infl = (u32)kdev_inflight(dev, ch);

			left = deadline < 0 ? 100000 : deadline - now;
			if (left > 100000)
				left = 100000;
			ret = kwait(dev, ch, want < infl ? want : infl, left > 0 ? left : 0);
		}
		if (ret < 0)
			return n ? (int)n : ret;
		/* What the wait published signalled the fd too: it is ours now. */
		if (kc->efd >= 0)
			drain_efd(kc);
		k = cq_take(dev, kc, cpls + n, max - n);
		/* A sleep that ran out with completions there: their interrupt was lost. */
		if (ret == 1 && k)
			STAT_ADD(kc, irq_timeouts, 1);
		n += k;
		if (n >= min_wait)
			return (int)n;
		if (kdev_inflight(dev, ch) == 0)
			return (int)n;	/* everything handed back (e.g. canceled) */
		if (deadline >= 0 && fdma_now_us() >= deadline)
			return n ? (int)n : fdma_err(dev, -ETIMEDOUT,
				"fdma_reap: no completion on channel %d within %lld us (stuck channel? fdma_chan_reset() recovers it)",
				ch, (long long)timeout_us);
	}
}

/* Entries in the channel's queue not taken yet. */
static bool cq_waiting(const struct fdma_kchan *kc)
{
	return __atomic_load_n(&kc->hdr->tail, __ATOMIC_ACQUIRE) != kc->hdr->head;
}

static int kdev_reap(struct fdma_dev *dev, int ch, struct fdma_cpl *cpls, unsigned int max,
		     unsigned int min_wait, int64_t timeout_us)
{
	struct fdma_kchan *kc = &dev->kdev->ch[ch];
	int ret = reap(dev, ch, cpls, max, min_wait, timeout_us);

	/* Entries left behind at max were signalled once, and drained: say so again. */
	if (kc->efd >= 0 && cq_waiting(kc))
		fdma_efd_signal(kc->efd);
	return ret;
}

/* ---- settings ------------------------------------------------------------------------ */

/*
 * One eventfd per channel, which the driver signals when it publishes
 * completions to this handle's queue of the channel (FDMA_IOC_CQ_EVENTFD);
 * the device file itself polls readable for any of the handle's channels.
 */
static int kdev_chan_fd(struct fdma_dev *dev, int ch)
{
	struct fdma_kchan *kc = &dev->kdev->ch[ch];
	struct fdma_ioc_cq_eventfd e = { .chan = (u32)ch };

	if (kc->efd < 0) {
		int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

		if (fd < 0)
			return kerr(dev, "fdma_chan_fd: eventfd");
		e.fd = fd;
		if (ioctl(dev->kdev->fd, FDMA_IOC_CQ_EVENTFD, &e)) {
			int ret = kerr(dev, "fdma_chan_fd: FDMA_IOC_CQ_EVENTFD");

			close(fd);
			return ret;
		}
		kc->efd = fd;
	}
	kc->mode = FDMA_WAIT_SLEEP;
	/*
	 * The driver signals what it publishes from now on. What finished
	 * before (a poller's completions are published only when it asks) or
	 * sits in the queue already, the fd must show too.
	 */
	if (kdev_inflight(dev, ch) > 0 && !cq_waiting(kc))
		(void)kwait(dev, ch, 0, 0);
	if (cq_waiting(kc))
		fdma_efd_signal(kc->efd);
	return kc->efd;
}

/* The FPGA's interrupt irq: an eventfd the driver signals (FDMA_IOC_USER_IRQ), made once. */
static int kdev_user_irq_fd(struct fdma_dev *dev, unsigned int irq)
{
	struct fdma_ioc_user_irq u = { .irq = irq };
	int fd;

	pthread_mutex_lock(&dev->lock);
	fd = dev->uirq_efd[irq];
	if (fd < 0) {
		fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (fd < 0) {
			pthread_mutex_unlock(&dev->lock);
			return kerr(dev, "fdma_user_irq_fd: eventfd");
		}
		u.fd = fd;
		if (ioctl(dev->kdev->fd, FDMA_IOC_USER_IRQ, &u)) {
			int ret = kerr(dev, "fdma_user_irq_fd: FDMA_IOC_USER_IRQ");

			close(fd);
			pthread_mutex_unlock(&dev->lock);
			return ret;
		}
		dev->uirq_efd[irq] = fd;
	}
	pthread_mutex_unlock(&dev->lock);
	return fd;
}

static int kdev_set_wait(struct fdma_dev *dev, int ch, enum fdma_wait_mode mode, unsigned int spin_us)
{
	struct fdma_kchan *kc = &dev->kdev->ch[ch];

	kc->mode = mode;
	if (spin_us)
		kc->spin_us = spin_us;
	return 0;
}

static int kdev_set_coalesce(struct fdma_dev *dev, int ch, unsigned int count, unsigned int usecs)
{
	struct fdma_ioc_coalesce co = { .chan = (u32)ch, .count = count, .usecs = usecs };

	if (ioctl(dev->kdev->fd, FDMA_IOC_COALESCE, &co))
		return kerr(dev, "fdma_chan_set_coalesce: FDMA_IOC_COALESCE");
	return 0;
}

static int kdev_set_drop(struct fdma_dev *dev, int ch, int drop)
{
	struct fdma_ioc_drop d = { .chan = (u32)ch, .drop = drop ? 1 : 0 };

	if (ioctl(dev->kdev->fd, FDMA_IOC_DROP, &d)) {
		/*
		 * A dmaengine channel (fdma_dmac.ko): its source decides. An
		 * engine that cannot drop (XDMA without a test block) holds.
		 */
		if (errno == EOPNOTSUPP)
			return fdma_err(dev, -EOPNOTSUPP,
					"channel %d cannot %s: %s",
					ch, drop ? "drop frames" : "choose between dropping and holding frames",
					drop ? "the engine holds the source back until a buffer is posted, or its source decides (a dmaengine channel)"
					     : "its source decides (a dmaengine channel)");
		return kerr(dev, "fdma_chan_set_drop: FDMA_IOC_DROP");
	}
	return 0;
}

static int kdev_reset(struct fdma_dev *dev, int ch)
{
	struct fdma_kchan *kc = &dev->kdev->ch[ch];
	u32 c = (u32)ch;

	if (ioctl(dev->kdev->fd, FDMA_IOC_CHAN_RESET, &c)) {
		/* The driver's two words for a reset the device never acknowledged. */
		if (errno == EIO || errno == ETIMEDOUT)
			kc->broken = true;
		if (errno == EIO)
			return fdma_err(dev, -EIO, "channel %d: reset not acknowledged by the device", ch);
		return kerr(dev, "fdma_chan_reset: FDMA_IOC_CHAN_RESET");
	}
	kc->broken = false;
	return 0;
}

static int kdev_set_testgen(struct fdma_dev *dev, int ch, u32 frame_len, u32 period_ns, int enable)
{
	struct fdma_ioc_testgen t = {
		.chan = (u32)ch, .frame_len = frame_len, .period_ns = period_ns,
		.enable = enable ? 1 : 0,
	};

	if (ioctl(dev->kdev->fd, FDMA_IOC_TESTGEN, &t))
		return kerr(dev, "fdma_chan_set_testgen: FDMA_IOC_TESTGEN");
	return 0;
}

static int kdev_testgen_counts(struct fdma_dev *dev, int ch, u64 *frames, u64 *errors)
{
	struct fdma_ioc_testgen t = { .chan = (u32)ch, .enable = FDMA_IOC_TESTGEN_QUERY };

	if (ioctl(dev->kdev->fd, FDMA_IOC_TESTGEN, &t))
		return kerr(dev, "fdma_chan_testgen_counts: FDMA_IOC_TESTGEN");
	*frames = t.frames;
	*errors = t.errors;
	return 0;
}

static int kdev_stats(struct fdma_dev *dev, int ch, struct fdma_chan_stats *st)
{
	struct fdma_kchan *kc = &dev->kdev->ch[ch];
	struct fdma_ioc_stats ks = { .chan = (u32)ch };

	if (ioctl(dev->kdev->fd, FDMA_IOC_STATS, &ks))
		return kerr(dev, "fdma_chan_stats: FDMA_IOC_STATS");
	st->bytes = STAT_GET(kc, bytes);
	st->transfers = STAT_GET(kc, transfers);
	st->completions = STAT_GET(kc, completions);
	st->errors = STAT_GET(kc, errors);
	st->wakeups = STAT_GET(kc, wakeups);
	st->irq_timeouts = STAT_GET(kc, irq_timeouts);
	st->syscalls = STAT_GET(kc, syscalls);
	/* The driver counts for the channel since it was bound; we report since open. */
	st->descriptors = ks.descriptors - kc->base.descriptors;
	st->doorbells = ks.doorbells - kc->base.doorbells;
	st->interrupts = ks.interrupts - kc->base.interrupts;
	st->drops = ks.drops - kc->base.drops;
	st->resets = ks.resets - kc->base.resets;
	/* Lost interrupts: found by our own timed-out sleeps, or by the driver's watchdog. */
	st->irq_timeouts += ks.lost_irqs - kc->base.lost_irqs;
	return 0;
}

/* ---- open and close ------------------------------------------------------------------ */

static void kdev_close(struct fdma_dev *dev)
{
	struct fdma_kdev *k = dev->kdev;

	if (!k)
		return;
	/* Closing the file stops our transfers and frees our driver buffers. */
	if (k->fd >= 0)
		close(k->fd);
	for (int i = 0; i < FDMA_MAX_BUFS; i++) {
		struct fdma_buf *b = &dev->buf[i];

		if (b->used)
			fdma_buf_unmap(b);
	}
	for (int i = 0; i < FDMA_USER_IRQS; i++)
		if (dev->uirq_efd[i] >= 0)
			close(dev->uirq_efd[i]);
	for (int i = 0; i < FDMA_MAX_CHAN; i++) {
		if (k->ch[i].hdr)
			munmap(k->ch[i].hdr, k->ch[i].cq_bytes);
		if (k->ch[i].efd >= 0)
			close(k->ch[i].efd);
		ring_put(&k->ch[i]);
		free(k->ch[i].ireq);
		free(k->ch[i].slot);
		free(k->ch[i].free_slot);
	}
	free(k);
	dev->kdev = NULL;
}

_Static_assert(FDMA_IOC_COAL_COUNT == FDMA_COAL_COUNT && FDMA_IOC_COAL_TIMER == FDMA_COAL_TIMER &&
	       FDMA_IOC_COAL_EMULATED == FDMA_COAL_EMULATED, "FDMA_IOC_COAL_* differ from FDMA_COAL_*");

static const char *irq_mode_name(u32 m)
{
	switch (m) {
	case FDMA_IRQ_MODE_MSIX:
		return "MSI-X";
	case FDMA_IRQ_MODE_MSI:
		return "MSI";
	case FDMA_IRQ_MODE_INTX:
		return "INTx";
	case FDMA_IRQ_MODE_POLL:
		return "polled";
	default:
		return "no interrupts";
	}
}

static void fill_info(struct fdma_dev *dev, const char *path)
{
	const struct fdma_ioc_info *in = &dev->kdev->in;
	struct fdma_info *fi = &dev->info;
	const char *base = strrchr(path, '/');

	snprintf(fi->backend, sizeof(fi->backend), "kdev");
	fi->version = in->engine_version;
	if (in->features & FDMA_FEAT_USER_IRQ)
		fi->user_irqs = in->user_irqs < FDMA_USER_IRQS ? in->user_irqs : FDMA_USER_IRQS;
	if (in->features & FDMA_FEAT_ENGINE) {
		snprintf(fi->engine, sizeof(fi->engine), "%s",
			 in->engine == FDMA_IOC_ENGINE_XDMA ? "xdma" :
			 in->engine == FDMA_IOC_ENGINE_FDMA ? "fdma" : "");
		fi->coal = in->coal;	/* FDMA_IOC_COAL_* are FDMA_COAL_* */
	} else {
		/* Before uapi 6 fdma.ko drove only FDMA; fdma_dmac.ko has no engine version. */
		snprintf(fi->engine, sizeof(fi->engine), "%s", in->engine_version ? "fdma" : "");
		fi->coal = in->engine_version ? FDMA_COAL_COUNT | FDMA_COAL_TIMER : FDMA_COAL_COUNT;
	}
	fi->nchan = in->nchan;
	fi->align = dev->kdev->align;
	fi->max_desc_len = in->max_desc_len;
	fi->card_size = in->card_size;
	for (u32 i = 0; i < in->nchan; i++) {
		fdma_chan_info_from_caps(&fi->chan[i], in->chan_caps[i], in->ring_size);
		/* The driver says whether its engine flags drops; before uapi 6 only FDMA did. */
		fi->chan[i].overrun_flag &= (in->features & FDMA_FEAT_ENGINE) ?
					    !!(in->features & FDMA_FEAT_OVERRUN_FLAG) :
					    in->engine_version != 0;
	}
	/* A real device runs at its link's speed; its ceiling follows from the link. */
	fi->link.paced = 1;
	fi->link.gen = in->link_gen;
	fi->link.lanes = in->link_width;
	fi->link.mps = in->mps;
	fi->link.mrrs = in->mrrs;
	fdma_link_defaults(&dev->link);
	dev->link.gen = in->link_gen;
	dev->link.lanes = in->link_width;
	dev->link.mps = in->mps;
	dev->link.mrrs = in->mrrs;
	dev->link_known = in->link_gen && !fdma_link_validate(&dev->link, NULL, 0);
	if (dev->link_known) {
		fi->link.write_mbps = fdma_link_write_Bps(&dev->link) / 1e6;
		fi->link.read_mbps = fdma_link_read_Bps(&dev->link) / 1e6;
		snprintf(fi->name, sizeof(fi->name), "%s: fdma.ko, %s, PCIe gen%u x%u MPS %u",
			 base ? base + 1 : path, irq_mode_name(in->irq_mode), in->link_gen,
			 in->link_width, in->mps);
	} else if (!in->engine_version) {
		/* No engine: fdma_dmac.ko's node, Linux dmaengine channels. */
		snprintf(fi->name, sizeof(fi->name), "%s: fdma_dmac.ko over dmaengine, link unknown",
			 base ? base + 1 : path);
	} else {
		snprintf(fi->name, sizeof(fi->name), "%s: fdma.ko, %s, link unknown",
			 base ? base + 1 : path, irq_mode_name(in->irq_mode));
	}
}

static int kchan_setup(struct fdma_dev *dev, int ch)
{
	struct fdma_kdev *k = dev->kdev;
	struct fdma_kchan *kc = &k->ch[ch];
	void *p;

	kc->cq_bytes = (size_t)FDMA_CQ_MMAP_BYTES(k->in.cq_entries);
	p = mmap(NULL, kc->cq_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, k->fd,
		 (off_t)FDMA_CQ_MMAP_OFFSET(ch));
	if (p == MAP_FAILED)
		return kerr(dev, "cannot map a completion queue of the driver");
	kc->hdr = p;
	kc->ent = (struct fdma_cq_entry *)((char *)p + FDMA_CQ_ENTRIES_OFFSET);
	kc->ireq = calloc(FDMA_IOC_MAX_BATCH, sizeof(*kc->ireq) > sizeof(*kc->icopy) ?
						  sizeof(*kc->ireq) : sizeof(*kc->icopy));
	kc->slot = calloc(k->in.cq_entries, sizeof(*kc->slot));
	kc->free_slot = calloc(k->in.cq_entries, sizeof(*kc->free_slot));
	if (!kc->ireq || !kc->slot || !kc->free_slot)
		return fdma_err(dev, -ENOMEM, "out of memory");
	for (u32 i = 0; i < k->in.cq_entries; i++)
		kc->free_slot[i] = k->in.cq_entries - 1 - i;
	kc->nfree = k->in.cq_entries;
	kc->base.chan = (u32)ch;
	if (ioctl(k->fd, FDMA_IOC_STATS, &kc->base))
		return kerr(dev, "FDMA_IOC_STATS");
	/* Only what fdma_ering_check() and fdma_ering_ndesc() read. */
	kc->rules.caps = k->in.chan_caps[ch];
	kc->rules.align = k->align;
	kc->rules.addr_align = k->align;
	/*
	 * The driver keeps user space to the DMA alignment, byte streams too
	 * (fdma_ioctl.c), and C2H stream buffers to the engine's unit where it
	 * is coarser (XDMA: 64 bytes; a driver before FDMA_FEAT_C2H_STREAM_LEN
	 * does not say it, and XDMA's is then the IP's, XDMA_C2H_ST_LEN).
	 */
	dev->chan_align[ch] = k->align;
	if ((k->in.chan_caps[ch] & FDMA_IOC_CAP_STREAM) && (k->in.chan_caps[ch] & FDMA_IOC_CAP_C2H)) {
		u32 unit = k->in.features & FDMA_FEAT_C2H_STREAM_LEN ? k->in.c2h_stream_len :
			   k->in.engine == FDMA_IOC_ENGINE_XDMA ? XDMA_C2H_ST_LEN : 0;

		if (unit > dev->chan_align[ch] && !(unit & (unit - 1)))
			dev->chan_align[ch] = unit;
	}
	kc->rules.max_desc_len = k->in.max_desc_len;
	kc->rules.card_size = k->in.card_size;
	kc->rules.size = k->in.ring_size;
	kc->mode = FDMA_WAIT_ADAPTIVE;
	kc->spin_us = 50;
	return 0;
}

int fdma_kdev_open(struct fdma_dev *dev, const char *path)
{
	struct fdma_kdev *k;
	int ret;

	k = aligned_alloc(_Alignof(struct fdma_kdev), sizeof(*k));
	if (k)
		memset(k, 0, sizeof(*k));
	if (!k)
		return fdma_err(dev, -ENOMEM, "out of memory");
	k->fd = -1;
	for (int i = 0; i < FDMA_MAX_CHAN; i++)
		k->ch[i].efd = -1;
	dev->kdev = k;
	dev->ops = &fdma_kdev_ops;
	k->fd = open(path, O_RDWR | O_CLOEXEC);
	if (k->fd < 0) {
		int e = errno;

		if (e == ENOENT)
			return fdma_err(dev, -e, "%s: no such device node (is fdma.ko loaded and bound?)", path);
		if (e == EACCES)
			return fdma_err(dev, -e, "%s: permission denied (read-write access is needed)", path);
		return fdma_err(dev, -e, "%s: %s", path, strerror(e));
	}
	if (ioctl(k->fd, FDMA_IOC_INFO, &k->in)) {
		/* ENOSYS: what qemu-user answers for an ioctl it cannot translate. */
		if (errno == ENOTTY || errno == EINVAL || errno == ENOSYS)
			return fdma_err(dev, -ENODEV, "%s is not an fdma.ko device", path);
		return kerr(dev, "FDMA_IOC_INFO");
	}
	/*
	 * Interface 2 is the oldest this library speaks; later drivers keep
	 * its ioctls and say what they add in features.
	 */
	if (k->in.uapi_version < FDMA_KDEV_UAPI_MIN)
		return fdma_err(dev, -EPROTO,
				"%s speaks driver interface %u; this libfdma needs %u or later (update fdma.ko)",
				path, k->in.uapi_version, FDMA_KDEV_UAPI_MIN);
	if (!k->in.nchan || k->in.nchan > FDMA_MAX_CHAN || !k->in.align || !k->in.cq_entries ||
	    (k->in.align & (k->in.align - 1)) || !k->in.max_desc_len || !k->in.ring_size)
		return fdma_err(dev, -EPROTO, "%s: the driver reports an implausible engine", path);
	/* Host memory: the engine's alignment, or the DMA cache line where longer. */
	k->align = k->in.align;
	if ((k->in.features & FDMA_FEAT_DMA_ALIGN) && k->in.dma_align > k->align) {
		if (k->in.dma_align & (k->in.dma_align - 1))
			return fdma_err(dev, -EPROTO, "%s: the driver reports a DMA alignment of %u",
					path, k->in.dma_align);
		k->align = k->in.dma_align;
	}
	fill_info(dev, path);
	for (u32 i = 0; i < k->in.nchan; i++) {
		ret = kchan_setup(dev, (int)i);
		if (ret)
			return ret;
	}
	return 0;
}

static int kdev_reg(struct fdma_dev *dev, unsigned int bar, u64 off, u32 *val, bool write,
		    unsigned int flags)
{
	unsigned int narrow = flags & (FDMA_REG_8 | FDMA_REG_16);
	struct fdma_ioc_reg r = {
		.bar = bar,
		.offset = off,
		.value = write ? *val : 0,
		.flags = (write ? FDMA_IOC_REG_WRITE : 0) |
			 (flags & FDMA_REG_FORCE ? FDMA_IOC_REG_FORCE : 0) |
			 (flags & FDMA_REG_8 ? FDMA_IOC_REG_8 : 0) |
			 (flags & FDMA_REG_16 ? FDMA_IOC_REG_16 : 0),
	};

	if (!(dev->kdev->in.features & FDMA_FEAT_REG))
		return fdma_err(dev, -EOPNOTSUPP,
				"the driver (interface version %u) has no register access: version 4 or later has",
				dev->kdev->in.uapi_version);
	/* An older driver refuses the width flags with EINVAL: say why instead. */
	if (narrow && !(dev->kdev->in.features & FDMA_FEAT_REG_WIDTH))
		return fdma_err(dev, -EOPNOTSUPP,
				"the driver (interface version %u) has 32-bit register access only: version 9 or later has 8- and 16-bit",
				dev->kdev->in.uapi_version);
	if (ioctl(dev->kdev->fd, FDMA_IOC_REG, &r)) {
		switch (errno) {
		case ENXIO:
			return fdma_err(dev, -ENXIO, "BAR%u is not a memory BAR of this device", bar);
		case ERANGE:
			return fdma_err(dev, -ERANGE, "offset 0x%llx is beyond BAR%u's %llu bytes",
					(unsigned long long)off, bar, (unsigned long long)r.bar_len);
		case EPERM:
			return fdma_err(dev, -EPERM, write ?
					"BAR%u 0x%llx: writing it needs CAP_SYS_RAWIO, and a register the driver drives FDMA_REG_FORCE too" :
					"BAR%u 0x%llx clears a status the driver needs when read: reading it needs FDMA_REG_FORCE and CAP_SYS_RAWIO",
					bar, (unsigned long long)off);
		case ENODEV:
			return fdma_err(dev, -ENODEV, "the device was removed");
		default:
			return kerr(dev, write ? "fdma_reg_write: FDMA_IOC_REG" : "fdma_reg_read: FDMA_IOC_REG");
		}
	}
	if (!write)
		*val = r.value;
	return 0;
}

const struct fdma_ops fdma_kdev_ops = {
	.close = kdev_close,
	.buf_alloc = kdev_buf_alloc,
	.buf_register = kdev_buf_register,
	.buf_import = kdev_buf_import,
	.buf_nvp2p = kdev_buf_nvp2p,
	.buf_export = kdev_buf_export,
	.buf_free = kdev_buf_free,
	.submit = kdev_submit,
	.submit_copy = kdev_submit_copy,
	.uring_prep = kdev_uring_prep,
#ifdef FDMA_HAVE_LIBURING
	.xfer = kdev_xfer,
#endif
	.reap = kdev_reap,
	.inflight = kdev_inflight,
	.chan_fd = kdev_chan_fd,
	.user_irq_fd = kdev_user_irq_fd,
	.set_wait = kdev_set_wait,
	.set_coalesce = kdev_set_coalesce,
	.set_drop = kdev_set_drop,
	.reset = kdev_reset,
	.set_testgen = kdev_set_testgen,
	.testgen_counts = kdev_testgen_counts,
	.stats = kdev_stats,
	.reg = kdev_reg,
};
