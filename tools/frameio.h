/* SPDX-License-Identifier: MIT */
/*
 * Frame files without a copy: each frame goes between a file and the DMA
 * buffer it lies in, with O_DIRECT where the file system takes it (the
 * disk's own DMA reads or fills the buffer; no page cache, no memcpy),
 * through io_uring with the buffers registered once, several at a time.
 * fdma stream -o writes with it, fdma play --input reads.
 *
 * Where something of that cannot be had, it falls back and says why
 * (frameio_how()): a file system without O_DIRECT, a frame not in whole
 * units of the file's direct-I/O alignment (then from that frame on, after
 * the writes in flight), a kernel or build without io_uring (then
 * pread/pwrite, one at a time, still O_DIRECT), buffers the kernel will not
 * register (then io_uring's plain reads and writes), and a file that is
 * not a regular one (a pipe, a terminal: one write at a time, in order).
 */
#ifndef FDMA_TOOLS_FRAMEIO_H
#define FDMA_TOOLS_FRAMEIO_H

#include <stdint.h>
#include <sys/uio.h>

struct frameio;

struct frameio_cfg {
	const char *cmd;		/* "stream" or "play", for messages */
	const char *path;
	int write;			/* 1: create (truncate) and write; 0: read */
	const struct iovec *bufs;	/* the DMA buffers, by index (copied) */
	unsigned int nbufs;		/* 1..1024 */
	int direct;			/* 0: never O_DIRECT (--io buffered) */
	int uring;			/* 0: never io_uring (--io sync) */
};

struct frameio_done {
	unsigned int idx;		/* the buffer */
	int64_t res;			/* bytes moved (a read: fewer at the end of the file), or -errno */
};

/*
 * Opens cfg->path ('-': standard output or input). Returns 0 with *fp set, or a negative errno after
 * printing a message that names the file.
 */
int frameio_open(struct frameio **fp, const struct frameio_cfg *cfg);
/*
 * Queue the I/O of buffer idx: len bytes (at most the buffer's length) at
 * offset off of the file. The buffer is the file's until frameio_reap()
 * hands its index back. A short write is finished here: what is reaped is
 * all of it or an error. Returns 0, or:
 *   -EINVAL     idx not a buffer, the buffer busy, or len over its length
 *   -EBUSY      nbufs I/Os in flight already (reap first)
 *   other       the system's error submitting it (io_uring_submit())
 */
int frameio_submit(struct frameio *f, unsigned int idx, uint64_t len, uint64_t off);
/*
 * Completed I/O, up to n into done[], in the order it completed (not
 * always submission order). Waits up to timeout_us (0: not at all, -1:
 * for ever) when none has completed and some are in flight. Returns the
 * number reaped (0: none within the time, or none in flight), or a
 * negative errno the wait itself failed with.
 */
int frameio_reap(struct frameio *f, struct frameio_done *done, unsigned int n, int64_t timeout_us);
/* I/Os in flight. */
unsigned int frameio_inflight(const struct frameio *f);
/*
 * How the file is being read or written, in words: "O_DIRECT, io_uring, 8
 * registered buffers", or the fallback and why. Valid until close.
 */
const char *frameio_how(const struct frameio *f);
/* 1 while every I/O so far went with O_DIRECT. */
int frameio_direct(const struct frameio *f);
/*
 * Waits for what is in flight (the results are dropped: reap first to see
 * them), closes the file. Returns 0, or the first error closing it.
 */
int frameio_close(struct frameio *f);

#endif
