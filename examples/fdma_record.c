// SPDX-License-Identifier: MIT
/*
 * fdma_record: record a C2H stream to a file with no copy, two ways.
 *
 * Linked, where fdma.ko takes io_uring commands on the channel
 * (fdma_uring_prep(); Linux 6.7 and later for a stream channel): each
 * buffer goes round a chain in our own ring, the capture of a frame into
 * it linked (IOSQE_IO_LINK) to the write of it to the file, and the chain
 * is submitted again when the write is done. No system call of ours comes
 * between a frame and its write: one io_uring_enter() per completion
 * submits and waits. Frames must be FRAME-SIZE bytes, as the test
 * generator's are (a write is prepared before its frame arrives).
 *
 * Else, the stream API: fdma_stream_get() hands us each frame, we write it
 * from its buffer and fdma_stream_release() gives the buffer back to the
 * device when the write is done.
 *
 * Both: the buffers are registered once with the ring as fixed buffers
 * (where the kernel takes a driver's mapping: not 6.1, which gets plain
 * writes, and says so), and the file is opened with O_DIRECT (the disk's DMA reads the frame
 * where the FPGA wrote it) where the file system has it (tmpfs has not:
 * then through the page cache, which is said). Several writes are in
 * flight; the device keeps the other buffers.
 *
 *   cc -o fdma_record fdma_record.c $(pkg-config --cflags --libs fdma) -luring
 *   ./fdma_record sim: out.raw 100      # 100 frames of the test generator
 *   ./fdma_record kdev:/dev/fdma0 out.raw 1000 4194304
 *
 * Arguments: URI FILE FRAMES [FRAME-SIZE, default 1 MiB, whole 4 KiB units
 * so that every write is direct]. On sim: (and wherever the channel has
 * one) the test generator is the source. Prints which way and what it
 * wrote and exits 0; on any failure prints why and exits 1.
 */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fdma.h>
#include <liburing.h>

#define NBUFS 8

/*
 * Register the buffers with the ring as fixed buffers; where the kernel
 * will not (6.1 refuses a driver's mapping), plain writes. Returns 1 if
 * registered.
 */
static int register_bufs(struct io_uring *ring, const struct iovec *iov)
{
	int ret = io_uring_register_buffers(ring, iov, NBUFS);
	if (ret < 0)
		printf("buffers not registered (%s): plain writes\n", strerror(-ret));
	return ret == 0;
}

static void prep_write(struct io_uring_sqe *sqe, int fixed, int fd, void *p, unsigned int len,
		       uint64_t off, int index)
{
	if (fixed)
		io_uring_prep_write_fixed(sqe, fd, p, len, off, index);
	else
		io_uring_prep_write(sqe, fd, p, len, off);
}

/* The test generator is the device's: off again however we exit. */
static struct fdma_dev *tg_dev;
static int tg_ch;
static uint32_t tg_size;
static void testgen_off(void)
{
	if (tg_dev)
		fdma_chan_set_testgen(tg_dev, tg_ch, tg_size, 0, 0);
}

/*
 * The linked way. Returns 0 when the file is written, 1 when the driver
 * takes no commands on this channel (nothing done: the caller goes the
 * other way); exits on a failure.
 */
static int record_linked(struct fdma_dev *dev, int ch, int fd, unsigned long frames, size_t size)
{
	struct fdma_uring_cmd cmd[NBUFS];	/* each chain's capture, read when issued */
	struct fdma_req req[NBUFS];
	struct iovec iov[NBUFS];
	struct io_uring_sqe probe;
	struct io_uring ring;
	int buf[NBUFS], ret;

	for (int i = 0; i < NBUFS; i++) {
		buf[i] = fdma_buf_alloc(dev, size, 0);
		if (buf[i] < 0)
			errx(1, "fdma_buf_alloc: %s", fdma_errmsg(dev));
		iov[i] = (struct iovec){ fdma_buf_addr(dev, buf[i]), size };
		req[i] = (struct fdma_req){ .buf = buf[i], .len = size };
	}
	/* Does the driver take commands here? (Nothing is submitted.) */
	if (fdma_uring_prep(dev, ch, &req[0], 1, &cmd[0], &probe) == -EOPNOTSUPP) {
		printf("not linked: %s\n", fdma_errmsg(dev));
		for (int i = 0; i < NBUFS; i++)
			fdma_buf_free(dev, buf[i]);
		return 1;
	}
	ret = io_uring_queue_init(2 * NBUFS, &ring, 0);
	if (ret < 0)
		errx(1, "io_uring_queue_init: %s", strerror(-ret));
	int fixed = register_bufs(&ring, iov);

	/*
	 * Frame k goes to the file at k * size, through whichever buffer is
	 * free when its chain is made: the device fills the captures in the
	 * order they were queued, and writes may complete in any order, so a
	 * buffer is free again when its own write completed, not another's.
	 */
	unsigned int freebuf[NBUFS], nfree = NBUFS;
	for (unsigned int i = 0; i < NBUFS; i++)
		freebuf[i] = NBUFS - 1 - i;
	unsigned long next = 0, written = 0;
	struct fdma_chan_stats st0, st1;
	fdma_chan_stats(dev, ch, &st0);
	while (written < frames) {
		/* A chain for every free buffer while frames are left. */
		while (nfree && next < frames) {
			unsigned int i = freebuf[--nfree];
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);	/* 2 per buffer: never NULL */
			if (fdma_uring_prep(dev, ch, &req[i], 1, &cmd[i], sqe) < 0)
				errx(1, "fdma_uring_prep: %s", fdma_errmsg(dev));
			io_uring_sqe_set_data64(sqe, (uint64_t)i << 1);
			sqe->flags |= IOSQE_IO_LINK;
			sqe = io_uring_get_sqe(&ring);
			prep_write(sqe, fixed, fd, iov[i].iov_base, (unsigned int)size,
				   (uint64_t)next * size, (int)i);
			io_uring_sqe_set_data64(sqe, (uint64_t)i << 1 | 1);
			next++;
		}
		/* Submit what is new and wait for one completion, in one call. */
		ret = io_uring_submit_and_wait(&ring, 1);
		if (ret < 0)
			errx(1, "io_uring_submit_and_wait: %s", strerror(-ret));
		struct io_uring_cqe *cqe;
		while (io_uring_peek_cqe(&ring, &cqe) == 0) {
			uint64_t tag = io_uring_cqe_get_data64(cqe);
			int res = cqe->res;
			io_uring_cqe_seen(&ring, cqe);
			if (!(tag & 1)) {
				/* A capture: its write was prepared for a whole frame. */
				if (res != (int)size)
					errx(1, "capture into buffer %u: %s", (unsigned int)(tag >> 1),
					     res < 0 ? strerror(-res) : "a frame of another size");
				continue;
			}
			if (res != (int)size)
				errx(1, "write of buffer %u: %s", (unsigned int)(tag >> 1),
				     res < 0 ? strerror(-res) : "short");
			freebuf[nfree++] = (unsigned int)(tag >> 1);
			written++;
		}
	}
	/* A CQE carries no OVERRUN flag: the channel counts what it dropped. */
	fdma_chan_stats(dev, ch, &st1);
	io_uring_queue_exit(&ring);
	for (int i = 0; i < NBUFS; i++)
		fdma_buf_free(dev, buf[i]);
	printf("linked: %lu frames of %zu bytes, each captured and written in one chain, %llu dropped\n",
	       written, size, (unsigned long long)(st1.drops - st0.drops));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		errx(1, "usage: fdma_record URI FILE FRAMES [FRAME-SIZE]");
	unsigned long frames = strtoul(argv[3], NULL, 0);
	size_t size = argc > 4 ? strtoul(argv[4], NULL, 0) : 1 << 20;
	if (!frames || !size || size % 4096)
		errx(1, "FRAMES must be >= 1 and FRAME-SIZE whole 4096-byte units");

	struct fdma_dev *dev;
	char msg[256];
	if (fdma_open(&dev, argv[1], msg, sizeof(msg)) < 0)
		errx(1, "%s", msg);
	struct fdma_info info;
	fdma_get_info(dev, &info);
	int ch = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	if (ch < 0)
		errx(1, "%s has no C2H stream channel", argv[1]);

	int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	if (fd < 0 && errno == EINVAL) {
		printf("%s: no O_DIRECT on this file system (tmpfs keeps files in memory): through the page cache\n",
		       argv[2]);
		fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	}
	if (fd < 0)
		err(1, "open %s", argv[2]);

	if (info.chan[ch].testgen) {
		if (fdma_chan_set_testgen(dev, ch, (uint32_t)size, 0, 1) < 0)
			errx(1, "fdma_chan_set_testgen: %s", fdma_errmsg(dev));
		tg_dev = dev;
		tg_ch = ch;
		tg_size = (uint32_t)size;
		atexit(testgen_off);
	}
	if (record_linked(dev, ch, fd, frames, size) == 0) {
		testgen_off();
		tg_dev = NULL;
		if (close(fd) < 0)
			err(1, "close %s", argv[2]);
		fdma_close(dev);
		return 0;
	}

	/* Back-pressure, the default: a source that waits loses nothing. */
	struct fdma_stream *s;
	if (fdma_stream_open(dev, ch, NBUFS, size, &s) < 0)
		errx(1, "fdma_stream_open: %s", fdma_errmsg(dev));

	/* The frame buffers, once, as fixed buffers: index i is fdma_frame.index i. */
	struct iovec iov[NBUFS];
	struct io_uring ring;
	int ret = io_uring_queue_init(NBUFS, &ring, 0);
	if (ret < 0)
		errx(1, "io_uring_queue_init: %s", strerror(-ret));
	if (fdma_stream_bufs(s, iov, NBUFS) != NBUFS)
		errx(1, "fdma_stream_bufs: %s", fdma_errmsg(dev));
	int fixed = register_bufs(&ring, iov);

	struct fdma_frame held[NBUFS];		/* each buffer's frame while it is written */
	unsigned long got = 0, written = 0;
	unsigned int inflight = 0;
	uint64_t off = 0;
	while (written < frames) {
		/*
		 * Every write done so far gives its buffer back to the device;
		 * wait for one only when the device has no buffer left, or no
		 * frame is left to take.
		 */
		int must_wait = inflight == NBUFS || got == frames;
		while (inflight) {
			struct io_uring_cqe *cqe;
			ret = must_wait ? io_uring_wait_cqe(&ring, &cqe) : io_uring_peek_cqe(&ring, &cqe);
			if (ret == -EAGAIN)
				break;			/* none done yet */
			if (ret < 0)
				errx(1, "io_uring_wait_cqe: %s", strerror(-ret));
			unsigned int i = (unsigned int)io_uring_cqe_get_data64(cqe);
			if (cqe->res != (int)held[i].len)
				errx(1, "write of the frame in buffer %u: %s", i,
				     cqe->res < 0 ? strerror(-cqe->res) : "short");
			io_uring_cqe_seen(&ring, cqe);
			/* Only now may the device fill the buffer again. */
			if (fdma_stream_release(s, &held[i]) < 0)
				errx(1, "fdma_stream_release: %s", fdma_errmsg(dev));
			inflight--;
			written++;
			must_wait = 0;
		}
		if (got == frames)
			continue;
		struct fdma_frame f;
		ret = fdma_stream_get(s, &f, 5000000);
		if (ret < 0)
			errx(1, "fdma_stream_get: %s", fdma_errmsg(dev));
		if (f.len % 4096)
			errx(1, "frame %lu: %llu bytes, not whole 4096-byte units", got,
			     (unsigned long long)f.len);
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);	/* one per buffer: never NULL */
		prep_write(sqe, fixed, fd, f.data, (unsigned int)f.len, off, (int)f.index);
		io_uring_sqe_set_data64(sqe, f.index);
		ret = io_uring_submit(&ring);
		if (ret < 0)
			errx(1, "io_uring_submit: %s", strerror(-ret));
		held[f.index] = f;
		off += f.len;
		got++;
		inflight++;
	}
	testgen_off();
	tg_dev = NULL;
	if (close(fd) < 0)
		err(1, "close %s", argv[2]);
	printf("stream API: %lu frames of %zu bytes written to %s, %llu dropped\n", written,
	       size, argv[2], (unsigned long long)fdma_stream_drops(s));
	io_uring_queue_exit(&ring);
	fdma_stream_close(s);
	fdma_close(dev);
	return 0;
}
