// SPDX-License-Identifier: MIT
/*
 * Requests in an application's own io_uring (fdma_uring_prep()): the
 * arguments it refuses on any device, the refusal where no kernel driver
 * takes io_uring commands (sim:, and a stream channel on a kernel that
 * cannot cancel them), and, through fdma.ko (FDMA_TEST_DEVICE=kdev:...,
 * the VM guests), transfers both ways with every byte checked, a transfer
 * linked to the write of its buffer to a file, and test generator frames.
 * The io_uring side is liburing's; without it (a build without
 * liburing-dev) the tests that need a ring skip.
 */
#include <fcntl.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdma_ioctl.h"
#include "sim_util.h"

#ifdef FDMA_HAVE_LIBURING
#include <liburing.h>
#else
struct io_uring_sqe {
	uint8_t b[64];
};
#endif

#define CARD 0x20000u

/* fdma_uring_prep() takes requests from, or refuses them on, this device. */
static bool takes_commands(struct fdma_dev *dev, int ch)
{
	struct fdma_req r = { .buf = sim_buf(dev, 4096, 0), .card_addr = CARD, .len = 4096 };
	struct fdma_uring_cmd cmd;
	struct io_uring_sqe sqe;
	int ret = fdma_uring_prep(dev, ch, &r, 1, &cmd, &sqe);

	assert_fdma_ok(dev, fdma_buf_free(dev, r.buf));
	if (ret != -EOPNOTSUPP)
		assert_fdma_ok(dev, ret);
	return ret == 0;
}

static void test_uring_args(void **state)
{
	struct fdma_dev *dev = sim_open("sim:paced=0");
	int ch = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MM);
	int buf = sim_buf(dev, 65536, 0);
	struct fdma_req r[FDMA_URING_MAX_REQS + 1];
	struct fdma_uring_cmd cmd;
	struct io_uring_sqe sqe;
	struct fdma_info in;

	(void)state;
	assert_fdma_ok(dev, ch);
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	for (int i = 0; i <= FDMA_URING_MAX_REQS; i++)
		r[i] = (struct fdma_req){ .buf = buf, .card_addr = CARD, .len = 64 };
	assert_fdma_err(dev, fdma_uring_prep(dev, ch, NULL, 1, &cmd, &sqe), -EINVAL, "reqs");
	assert_fdma_err(dev, fdma_uring_prep(dev, ch, r, 1, NULL, &sqe), -EINVAL, "cmd");
	assert_fdma_err(dev, fdma_uring_prep(dev, ch, r, 1, &cmd, NULL), -EINVAL, "sqe");
	assert_fdma_err(dev, fdma_uring_prep(dev, ch, r, 0, &cmd, &sqe), -EINVAL, "1 to 32");
	assert_fdma_err(dev, fdma_uring_prep(dev, ch, r, FDMA_URING_MAX_REQS + 1, &cmd, &sqe),
			-EINVAL, "1 to 32");
	assert_fdma_err(dev, fdma_uring_prep(dev, (int)in.nchan, r, 1, &cmd, &sqe), -EINVAL, NULL);
	if (!sim_target()) {
		/* No kernel here: said, with what to use. */
		assert_fdma_err(dev, fdma_uring_prep(dev, ch, r, 1, &cmd, &sqe), -EOPNOTSUPP,
				"fdma_submit()");
	} else if (takes_commands(dev, ch)) {
		/* What fdma_submit() refuses, refused before the ring sees it. */
		r[0].len = 3;
		assert_fdma_err(dev, fdma_uring_prep(dev, ch, r, 1, &cmd, &sqe), -EINVAL, NULL);
		r[0].len = 64;
		r[0].buf = buf + 100;
		assert_fdma_err(dev, fdma_uring_prep(dev, ch, r, 1, &cmd, &sqe), -EBADF, NULL);
		r[0].buf = buf;
		r[0].card_addr = in.card_size;
		assert_fdma_err(dev, fdma_uring_prep(dev, ch, r, 1, &cmd, &sqe), -ERANGE, NULL);
	}
	assert_fdma_ok(dev, fdma_buf_free(dev, buf));
	fdma_close(dev);
}

#ifdef FDMA_HAVE_LIBURING
/* Submit what is prepared, wait for want CQEs; their res by user_data (1..want). */
static void run_ring(struct io_uring *ring, unsigned int want, int *res)
{
	assert_int_equal(io_uring_submit_and_wait(ring, want), (int)want);
	for (unsigned int i = 0; i < want; i++) {
		struct io_uring_cqe *cqe;

		assert_int_equal(io_uring_wait_cqe(ring, &cqe), 0);
		assert_in_range(cqe->user_data, 1, want);
		res[cqe->user_data - 1] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
}

/* One command's SQE: n requests on ch, CQE user_data tag, SQE flags. */
static void prep(struct fdma_dev *dev, struct io_uring *ring, int ch, const struct fdma_req *r,
		 unsigned int n, struct fdma_uring_cmd *cmd, uint64_t tag, unsigned int flags)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	assert_non_null(sqe);
	assert_fdma_ok(dev, fdma_uring_prep(dev, ch, r, n, cmd, sqe));
	io_uring_sqe_set_data64(sqe, tag);
	sqe->flags |= (uint8_t)flags;
}

static struct fdma_dev *open_driver(struct io_uring *ring, int ch_dir, int kind, int *ch)
{
	struct fdma_dev *dev;

	if (!sim_target()) {
		print_message("io_uring commands need fdma.ko (FDMA_TEST_DEVICE=kdev:...): skipped\n");
		t_skip();
	}
	dev = sim_open("sim:paced=0");
	*ch = fdma_find_chan(dev, (enum fdma_dir)ch_dir, (enum fdma_kind)kind);
	if (*ch < 0 || !takes_commands(dev, *ch)) {
		print_message("%s: %s\n", fdma_errmsg(dev), *ch < 0 ? "no such channel" : "skipped");
		fdma_close(dev);
		t_skip();
	}
	assert_int_equal(io_uring_queue_init(8, ring, 0), 0);
	return dev;
}

/* Batches of 8 to card memory and back through commands; every byte checked. */
static void test_uring_xfer(void **state)
{
	struct io_uring ring;
	int h2c, res[1];
	struct fdma_dev *dev = open_driver(&ring, FDMA_H2C, FDMA_KIND_MM, &h2c);
	int c2h = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM);
	const uint64_t len = 16384;
	int src = sim_buf(dev, 8 * len, 0), dst = sim_buf(dev, 8 * len, 0);
	struct fdma_req r[8];
	struct fdma_uring_cmd cmd;

	(void)state;
	assert_fdma_ok(dev, c2h);
	for (uint64_t round = 0; round < 3; round++) {
		pattern_fill(fdma_buf_addr(dev, src), 8 * len, 40 + round);
		memset(fdma_buf_addr(dev, dst), 0, 8 * len);
		for (int i = 0; i < 8; i++)
			r[i] = (struct fdma_req){ .buf = src, .offset = (uint64_t)i * len,
						  .card_addr = CARD + (uint64_t)i * len, .len = len };
		prep(dev, &ring, h2c, r, 8, &cmd, 1, 0);
		run_ring(&ring, 1, res);
		assert_int_equal(res[0], 8 * len);
		for (int i = 0; i < 8; i++)
			r[i].buf = dst;
		prep(dev, &ring, c2h, r, 8, &cmd, 1, 0);
		run_ring(&ring, 1, res);
		assert_int_equal(res[0], 8 * len);
		assert_pattern(fdma_buf_addr(dev, dst), 8 * len, 40 + round);
		/* Nothing of it comes back through fdma_reap(). */
		assert_int_equal(fdma_inflight(dev, h2c), 0);
		assert_int_equal(fdma_inflight(dev, c2h), 0);
	}
	io_uring_queue_exit(&ring);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	fdma_close(dev);
}

/*
 * A transfer from card memory linked to the write of its buffer to a file:
 * the file holds the card's bytes. (A failing transfer canceling its write:
 * tests/vm/guest/fdma_uring.c, below the library's checks.)
 */
static void test_uring_link(void **state)
{
	struct io_uring ring;
	int c2h, res[2];
	struct fdma_dev *dev = open_driver(&ring, FDMA_C2H, FDMA_KIND_MM, &c2h);
	const uint64_t len = 65536;
	int src = sim_buf(dev, len, 0), b = sim_buf(dev, len, 0);
	char path[] = "/tmp/fdma_uring_XXXXXX";
	int fd = mkstemp(path);
	struct fdma_req r = { .buf = b, .card_addr = CARD, .len = len };
	struct fdma_uring_cmd cmd;
	uint8_t *back = malloc(len);
	struct io_uring_sqe *sqe;

	(void)state;
	assert_true(fd >= 0);
	assert_non_null(back);
	unlink(path);
	pattern_fill(fdma_buf_addr(dev, src), len, 91);
	assert_fdma_ok(dev, fdma_write_card(dev, src, 0, CARD, len));
	memset(fdma_buf_addr(dev, b), 0, len);

	prep(dev, &ring, c2h, &r, 1, &cmd, 1, IOSQE_IO_LINK);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_write(sqe, fd, fdma_buf_addr(dev, b), (unsigned int)len, 0);
	io_uring_sqe_set_data64(sqe, 2);
	run_ring(&ring, 2, res);
	assert_int_equal(res[0], len);
	assert_int_equal(res[1], len);
	assert_int_equal(pread(fd, back, len, 0), len);
	assert_pattern(back, len, 91);

	io_uring_queue_exit(&ring);
	close(fd);
	free(back);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, b));
	fdma_close(dev);
}

/*
 * Test generator frames through commands where the kernel takes them on a
 * stream channel (6.7 and later); else fdma_uring_prep() says why not.
 */
static void test_uring_stream(void **state)
{
	struct io_uring ring;
	int h2c, res[1];
	struct fdma_dev *dev = open_driver(&ring, FDMA_H2C, FDMA_KIND_MM, &h2c);
	int ch = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	const uint32_t len = 65536;
	struct fdma_uring_cmd cmd;
	struct io_uring_sqe probe;
	struct fdma_info in;
	struct fdma_req r;
	int b, ret;

	(void)state;
	assert_fdma_ok(dev, fdma_get_info(dev, &in));
	if (ch < 0 || !in.chan[ch].testgen) {
		io_uring_queue_exit(&ring);
		fdma_close(dev);
		t_skip();
	}
	b = sim_buf(dev, 4 * len, 0);
	r = (struct fdma_req){ .buf = b, .len = len };
	ret = fdma_uring_prep(dev, ch, &r, 1, &cmd, &probe);
	if (ret == -EOPNOTSUPP) {
		/* A kernel that cannot cancel commands: why is said. */
		assert_fdma_err(dev, ret, -EOPNOTSUPP, "cannot cancel");
		io_uring_queue_exit(&ring);
		assert_fdma_ok(dev, fdma_buf_free(dev, b));
		fdma_close(dev);
		return;
	}
	assert_fdma_ok(dev, ret);
	assert_fdma_ok(dev, fdma_chan_set_testgen(dev, ch, len, 0, 1));
	for (int i = 0; i < 8; i++) {
		r.offset = (uint64_t)(i % 4) * len;
		prep(dev, &ring, ch, &r, 1, &cmd, 1, 0);
		run_ring(&ring, 1, res);
		assert_int_equal(res[0], len);
		{
			/* A CQE carries no flags: the whole frame is checked instead. */
			struct fdma_frame f = { .data = (uint8_t *)fdma_buf_addr(dev, b) + r.offset,
						.len = len, .flags = FDMA_CPL_SOF | FDMA_CPL_EOF };

			sim_check_frame(&f, len);
		}
	}
	assert_fdma_ok(dev, fdma_chan_set_testgen(dev, ch, len, 0, 0));
	io_uring_queue_exit(&ring);
	assert_fdma_ok(dev, fdma_buf_free(dev, b));
	fdma_close(dev);
}
/* The driver's count of ioctls on channel ch (FDMA_IOC_STATS on a file of our own). */
static uint64_t driver_syscalls(int ch)
{
	struct fdma_ioc_stats st = { .chan = (uint32_t)ch };
	const char *path = strchr(sim_target(), ':') + 1;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(ioctl(fd, FDMA_IOC_STATS, &st), 0);
	close(fd);
	return st.syscalls;
}

/*
 * libfdma's own synchronous transfers (fdma_write_card(), fdma_read_card())
 * go through a command where the driver takes them: one system call of the
 * library's (io_uring_enter()), no ioctl on the channel (the driver counts
 * those), every byte checked.
 */
static void test_uring_sync(void **state)
{
	struct io_uring ring;
	int h2c;
	struct fdma_dev *dev = open_driver(&ring, FDMA_H2C, FDMA_KIND_MM, &h2c);
	int c2h = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM);
	const uint64_t len = 65536;
	int src = sim_buf(dev, len, 0), dst = sim_buf(dev, len, 0);
	struct fdma_chan_stats a, b;
	uint64_t ioc0, ioc1;

	(void)state;
	io_uring_queue_exit(&ring);
	pattern_fill(fdma_buf_addr(dev, src), len, 61);
	memset(fdma_buf_addr(dev, dst), 0, len);
	for (int i = 0; i < 2; i++) {
		int ch = i ? c2h : h2c;

		sim_stats(dev, ch, &a);
		ioc0 = driver_syscalls(ch);
		if (i)
			assert_fdma_ok(dev, fdma_read_card(dev, dst, 0, CARD, len));
		else
			assert_fdma_ok(dev, fdma_write_card(dev, src, 0, CARD, len));
		ioc1 = driver_syscalls(ch);
		sim_stats(dev, ch, &b);
		assert_int_equal(ioc1 - ioc0, 0);
		assert_int_equal(b.syscalls - a.syscalls, 1);
		assert_int_equal(b.transfers - a.transfers, 1);
		assert_int_equal(b.bytes - a.bytes, len);
	}
	assert_pattern(fdma_buf_addr(dev, dst), len, 61);
	assert_fdma_ok(dev, fdma_buf_free(dev, src));
	assert_fdma_ok(dev, fdma_buf_free(dev, dst));
	fdma_close(dev);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uring_args),
#ifdef FDMA_HAVE_LIBURING
		cmocka_unit_test(test_uring_xfer),
		cmocka_unit_test(test_uring_link),
		cmocka_unit_test(test_uring_stream),
		cmocka_unit_test(test_uring_sync),
#endif
	};

	return T_RUN(tests);
}
