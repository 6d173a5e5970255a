/* SPDX-License-Identifier: MIT */
/*
 * frameio's insides, shared by its common part (frameio.c) and its
 * io_uring backend (frameio_uring.c).
 */
#ifndef FDMA_TOOLS_FRAMEIO_IMPL_H
#define FDMA_TOOLS_FRAMEIO_IMPL_H

#include "frameio.h"

/* One buffer's I/O: len bytes at off, done of them so far. */
struct frameio_io {
	uint64_t off, len, done;
	uint8_t busy;		/* the caller's submit to its reap */
	uint8_t direct;		/* the backend has it with O_DIRECT */
	uint8_t parked;		/* waits for the switch to the page cache (settle()) */
};

/*
 * A backend moves bytes and reports each I/O's result with
 * frameio_raw_push(): the bytes moved or -errno, as io_uring's completions do.
 * submit() queues one I/O; reap() waits up to timeout_us (-1: for ever)
 * for at least one result when f->raw is empty; fini() undoes the init.
 */
struct frameio_ops {
	int (*submit)(struct frameio *f, unsigned int idx, void *addr, uint64_t len, uint64_t off);
	int (*reap)(struct frameio *f, int64_t timeout_us);
	void (*fini)(struct frameio *f);
};

struct frameio {
	const char *cmd, *path;
	int fd, write, regular;
	int direct;		/* O_DIRECT now */
	int to_buffered;	/* leaving O_DIRECT: parking I/O until what is in flight is done */
	unsigned int memalign, offalign;	/* direct I/O's alignment of addresses, of lengths and offsets */
	unsigned int nbufs, busy, backend;	/* buffers; the caller's in flight; the backend's */
	struct iovec *bufs;
	struct frameio_io *io;
	struct frameio_done *fin;	/* FIFO of results for the caller */
	unsigned int fin_head, nfin;
	struct frameio_done *raw;	/* ring of the backend's results, not yet looked at */
	unsigned int raw_head, nraw;
	const struct frameio_ops *ops;
	void *priv;			/* the backend's */
	char why[160];			/* why not O_DIRECT */
	char ops_how[160];		/* the backend, in words */
	char how[400];
};

/*
 * Switch f to io_uring (f->ops, f->priv, f->ops_how); where it cannot,
 * f stays on pread/pwrite and f->ops_how says why.
 */
void frameio_uring_init(struct frameio *f);
/* A backend's result for buffer idx. */
void frameio_raw_push(struct frameio *f, unsigned int idx, int64_t res);

#endif
