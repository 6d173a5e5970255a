// SPDX-License-Identifier: MIT
/*
 * frameio's io_uring backend: one ring per file, sized for one I/O per
 * buffer (a buffer's next piece, after a short write, goes only once its
 * last one completed); the DMA buffers registered once as fixed buffers,
 * so that the kernel pins and maps them at the start and not on every
 * I/O. Built where liburing (Debian's liburing-dev) was found; without it
 * frameio stays on pread/pwrite and says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frameio_impl.h"

#ifdef FDMA_HAVE_LIBURING
#include <liburing.h>

struct uring {
	struct io_uring ring;
	int fixed;		/* the buffers are registered */
	int unsubmitted;	/* queued in the ring, io_uring_enter() failed: again at the next reap */
};

static int uring_submit(struct frameio *f, unsigned int idx, void *addr, uint64_t len, uint64_t off)
{
	struct uring *u = f->priv;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
	int ret;

	/* One I/O per buffer at most and a ring as deep as the buffers: a slot is free. */
	if (!sqe)
		return -EBUSY;
	if (u->fixed && f->write)
		io_uring_prep_write_fixed(sqe, f->fd, addr, (unsigned int)len, off, (int)idx);
	else if (u->fixed)
		io_uring_prep_read_fixed(sqe, f->fd, addr, (unsigned int)len, off, (int)idx);
	else if (f->write)
		io_uring_prep_write(sqe, f->fd, addr, (unsigned int)len, off);
	else
		io_uring_prep_read(sqe, f->fd, addr, (unsigned int)len, off);
	io_uring_sqe_set_data64(sqe, idx);
	do
		ret = io_uring_submit(&u->ring);
	while (ret == -EINTR);
	/*
	 * The entry is in the ring already and goes with the next
	 * io_uring_enter(): the I/O is in flight whatever this one said
	 * (EAGAIN, EBUSY: completions to reap first).
	 */
	u->unsubmitted = ret < 0;
	return 0;
}

static int uring_reap(struct frameio *f, int64_t timeout_us)
{
	struct uring *u = f->priv;
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;
	int ret = 0;

	if (u->unsubmitted && io_uring_submit(&u->ring) >= 0)
		u->unsubmitted = 0;
	if (!io_uring_cq_ready(&u->ring) && timeout_us) {
		if (timeout_us < 0) {
			ret = io_uring_wait_cqe(&u->ring, &cqe);
		} else {
			struct __kernel_timespec ts = {
				.tv_sec = timeout_us / 1000000,
				.tv_nsec = timeout_us % 1000000 * 1000,
			};

			ret = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
		}
		/* Nothing within the time, or a signal (Ctrl-C is looked at by the caller). */
		if (ret == -ETIME || ret == -EINTR)
			return 0;
		if (ret < 0)
			return ret;
	}
	io_uring_for_each_cqe(&u->ring, head, cqe) {
		uint64_t idx = io_uring_cqe_get_data64(cqe);

		n++;
		/* Only ours (a wait's own timeout, on kernels that need one, is not). */
		if (idx < f->nbufs)
			frameio_raw_push(f, (unsigned int)idx, cqe->res);
	}
	io_uring_cq_advance(&u->ring, n);
	return 0;
}

static void uring_fini(struct frameio *f)
{
	struct uring *u = f->priv;

	io_uring_queue_exit(&u->ring);
	free(u);
	f->priv = NULL;
}

static const struct frameio_ops uring_ops = {
	.submit = uring_submit, .reap = uring_reap, .fini = uring_fini,
};

void frameio_uring_init(struct frameio *f)
{
	struct uring *u = calloc(1, sizeof(*u));
	const char *why = NULL;
	int ret = -ENOMEM;

	if (u)
		ret = io_uring_queue_init(f->nbufs, &u->ring, 0);
	/*
	 * Timed waits without a request of liburing's own (Linux 5.11), and
	 * with it plain reads and writes (5.6): older kernels take pread/pwrite.
	 */
	if (!ret && !(u->ring.features & IORING_FEAT_EXT_ARG)) {
		io_uring_queue_exit(&u->ring);
		ret = -ENOSYS;
	}
	if (ret) {
		/* No io_uring here (an old kernel, a sandbox, io_uring_disabled). */
		snprintf(f->ops_how, sizeof(f->ops_how), "pread/pwrite one at a time (io_uring: %s)",
			 ret == -ENOSYS && u ? "a kernel before 5.11" : strerror(-ret));
		free(u);
		return;
	}
	for (unsigned int i = 0; i < f->nbufs; i++)
		if (!f->bufs[i].iov_base)
			why = "a buffer the CPU cannot map";
	if (!why) {
		ret = io_uring_register_buffers(&u->ring, f->bufs, f->nbufs);
		/*
		 * Pinned for the ring's life and charged to RLIMIT_MEMLOCK (not
		 * for root); Linux before 6.2 refuses file-backed mappings
		 * such as fdma.ko's buffers (EOPNOTSUPP).
		 */
		if (ret)
			why = strerror(-ret);
		u->fixed = !ret;
	}
	f->ops = &uring_ops;
	f->priv = u;
	if (u->fixed)
		snprintf(f->ops_how, sizeof(f->ops_how), "io_uring, %u registered buffers", f->nbufs);
	else
		snprintf(f->ops_how, sizeof(f->ops_how), "io_uring, %u buffers in flight (not "
			 "registered: %s)", f->nbufs, why);
}

#else

void frameio_uring_init(struct frameio *f)
{
	snprintf(f->ops_how, sizeof(f->ops_how),
		 "pread/pwrite one at a time (built without liburing)");
}

#endif
