// SPDX-License-Identifier: MIT
/*
 * fdma.ko's requests through io_uring (FDMA_URING_CMD_SUBMIT: an
 * IORING_OP_URING_CMD on /dev/fdmaN, include/fdma_ioctl.h), with liburing.
 *
 * uring_feature: INFO says FDMA_FEAT_URING_CMD on the kernels it is built
 *   for here (6.1, 6.12), and FDMA_FEAT_URING_STREAM on 6.12 only.
 * uring_xfer: batches of 8 requests, one command each, to card memory and
 *   back, every byte compared; each CQE's res is the batch's bytes, and
 *   nothing goes into the file's completion queue.
 * uring_link: a transfer from card memory into a buffer linked
 *   (IOSQE_IO_LINK) to the write of that buffer to a file, in one
 *   submission: the file holds every byte. A transfer that fails (a card
 *   address past the card) cancels its linked write: the file is untouched.
 *   A command second in its link (after a no-op), with IOSQE_ASYNC, and
 *   the SQ slot it was submitted from filled with junk before it issues:
 *   it moves its bytes.
 * uring_errors: unknown cmd_op (ENOTTY), reserved bits, a channel past the
 *   last, count 0 (EINVAL), a bad pointer (EFAULT), a file open read-only
 *   (EBADF), a handle of no buffer (EBADF): each in its CQE, and the
 *   channel still works.
 * uring_stream: where FDMA_FEAT_URING_STREAM is set, test generator frames
 *   into buffers, each checked; and a command waiting for a frame that
 *   never comes, in a child that then exits: the ring's teardown (a
 *   kworker, after the exit) cancels it through the driver, which resets
 *   the channel; the reset is seen within 10 s and the buffer can be
 *   freed. (Without the cancel the command stays, holding the buffer and
 *   the channel: the later tests fail.) Where it is not set (6.1): a
 *   stream command is EOPNOTSUPP.
 * uring_count: the same work, 64 batches of 32 H2C requests of 4 KiB with
 *   coalescing at 32, through the ioctls (FDMA_IOC_SUBMIT, FDMA_IOC_WAIT)
 *   and through io_uring (one command per batch, submitted and waited for
 *   in one io_uring_enter()): system calls (the raw_syscalls:sys_enter
 *   tracepoint counted for this thread by perf), wake-ups (voluntary
 *   context switches, getrusage), interrupts and doorbells (the driver's
 *   counters) per transfer, printed as "VMTEST INFO uring_count ...".
 *   Under TCG these are counts, not speeds. It fails if io_uring takes
 *   more system calls per transfer than the ioctls.
 */
#include <linux/perf_event.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "vmioc.h"

#ifdef FDMA_HAVE_LIBURING
#include <liburing.h>

static struct vi_dev d;
static struct io_uring ring;

#define CARD_BASE	0x10000u

/* A free SQE: every test here waits for its CQEs, so the ring is never full. */
static struct io_uring_sqe *sqe_of(struct io_uring *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(r);

	if (!sqe) {
		vt_fail("uring", "no free SQE");
		exit(1);
	}
	return sqe;
}

/* One FDMA_URING_CMD_SUBMIT SQE of n requests at r on channel ch. */
static void prep_cmd(struct io_uring_sqe *sqe, int fd, int ch, const struct fdma_ioc_req *r,
		     unsigned int n, uint64_t tag)
{
	struct fdma_uring_submit sc = { .reqs = (uintptr_t)r, .chan = (uint16_t)ch,
					.count = (uint16_t)n };

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = FDMA_URING_CMD_SUBMIT;
	memcpy(sqe->cmd, &sc, sizeof(sc));
	sqe->user_data = tag;
}

/* Submit what is prepared and take one CQE; its res, or -1000 - errno on a ring failure. */
static int one_cqe(struct io_uring *r, uint64_t *tag)
{
	struct io_uring_cqe *cqe;
	int ret = io_uring_submit_and_wait(r, 1);

	if (ret < 0)
		return -1000 + ret;
	ret = io_uring_wait_cqe(r, &cqe);
	if (ret)
		return -1000 + ret;
	ret = cqe->res;
	if (tag)
		*tag = cqe->user_data;
	io_uring_cqe_seen(r, cqe);
	return ret;
}

static int run_cmd(int fd, int ch, const struct fdma_ioc_req *r, unsigned int n)
{
	prep_cmd(sqe_of(&ring), fd, ch, r, n, 7);
	return one_cqe(&ring, NULL);
}

static void feature(void)
{
	const char *T = "uring_feature";
	struct utsname u;
	int want_stream;

	uname(&u);
	want_stream = strncmp(u.release, "6.1.", 4) != 0;
	if (!(d.info.features & FDMA_FEAT_URING_CMD))
		vt_fail(T, "INFO features 0x%x lack FDMA_FEAT_URING_CMD on %s", d.info.features,
			u.release);
	else if (!!(d.info.features & FDMA_FEAT_URING_STREAM) != want_stream)
		vt_fail(T, "FDMA_FEAT_URING_STREAM is %s on %s", want_stream ? "clear" : "set",
			u.release);
	else
		vt_pass(T);
}

static void xfer(void)
{
	const char *T = "uring_xfer";
	struct fdma_ioc_req r[8];
	struct vi_buf src, dst;
	uint32_t len = 16384, before;
	long bad;
	int ret;

	if (vi_alloc(&d, 8 * len, &src) || vi_alloc(&d, 8 * len, &dst)) {
		vt_fail(T, "buffers: %s", strerror(errno));
		return;
	}
	before = vi_cq_ready(&d, d.h2c);
	for (int round = 0; round < 4; round++) {
		uint64_t seed = 100 + (uint64_t)round;

		vt_fill(src.p, src.size, seed);
		memset(dst.p, 0, dst.size);
		for (int i = 0; i < 8; i++)
			r[i] = (struct fdma_ioc_req){ .handle = src.handle, .offset = (uint64_t)i * len,
						      .card_addr = CARD_BASE + (uint64_t)i * len,
						      .len = len };
		ret = run_cmd(d.fd, d.h2c, r, 8);
		if (ret != (int)(8 * len)) {
			vt_fail(T, "H2C batch %d: CQE res %d, expected %u", round, ret, 8 * len);
			goto out;
		}
		for (int i = 0; i < 8; i++)
			r[i].handle = dst.handle;
		ret = run_cmd(d.fd, d.c2h, r, 8);
		if (ret != (int)(8 * len)) {
			vt_fail(T, "C2H batch %d: CQE res %d, expected %u", round, ret, 8 * len);
			goto out;
		}
		bad = vt_check(dst.p, dst.size, seed);
		if (bad >= 0) {
			vt_fail(T, "batch %d: byte %ld differs", round, bad);
			goto out;
		}
	}
	if (vi_cq_ready(&d, d.h2c) != before || vi_cq_ready(&d, d.c2h) != 0)
		vt_fail(T, "entries went into the file's completion queues (%u, %u)",
			vi_cq_ready(&d, d.h2c) - before, vi_cq_ready(&d, d.c2h));
	else
		vt_pass(T);
out:
	vi_free(&d, &src);
	vi_free(&d, &dst);
}

/* The CQEs of user_data 1 and 2: their res into res[0] and res[1]. 0 or -errno. */
static int take_two(int res[2])
{
	struct io_uring_cqe *cqe;

	for (int i = 0; i < 2; i++) {
		int ret = io_uring_wait_cqe(&ring, &cqe);

		if (ret)
			return ret;
		if (cqe->user_data == 1 || cqe->user_data == 2)
			res[cqe->user_data - 1] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	return 0;
}

/* The transfer (card to buf) linked to the write of buf to file fd; both CQEs' res. */
static int linked(int fd, const struct vi_buf *b, uint64_t card, uint32_t len, int res[2])
{
	struct fdma_ioc_req r = { .handle = b->handle, .card_addr = card, .len = len };
	struct io_uring_sqe *sqe = sqe_of(&ring);
	int ret;

	prep_cmd(sqe, d.fd, d.c2h, &r, 1, 1);
	sqe->flags |= IOSQE_IO_LINK;
	sqe = sqe_of(&ring);
	io_uring_prep_write(sqe, fd, b->p, len, 0);
	sqe->user_data = 2;
	ret = io_uring_submit_and_wait(&ring, 2);
	return ret < 0 ? ret : take_two(res);
}

/*
 * A command second in its link: IOSQE_ASYNC has io_uring copy it at
 * submission (6.12 would otherwise read it from the SQ slot when it
 * issues it). The slot is overwritten with junk right after the submit,
 * before the no-op ahead of it has completed. 0, or 1 after vt_fail().
 */
static int second_in_link(const struct vi_buf *src)
{
	const char *T = "uring_link";
	struct fdma_ioc_req r = { .handle = src->handle, .card_addr = CARD_BASE + 0x40000,
				  .len = 4096 };
	struct io_uring_sqe *nop = sqe_of(&ring), *cmd;
	int res[2] = { 1, 1 };

	io_uring_prep_timeout(nop, &(struct __kernel_timespec){ .tv_nsec = 20000000 }, 0,
			      IORING_TIMEOUT_ETIME_SUCCESS);
	nop->flags |= IOSQE_IO_LINK;
	nop->user_data = 1;
	cmd = sqe_of(&ring);
	prep_cmd(cmd, d.fd, d.h2c, &r, 1, 2);
	cmd->flags |= IOSQE_ASYNC;
	if (io_uring_submit(&ring) != 2) {
		vt_fail(T, "submit of a timeout and a linked command");
		return 1;
	}
	/* The slots may be reused at once: what the driver reads must be the copy. */
	memset(cmd, 0xa5, sizeof(*cmd));
	if (take_two(res)) {
		vt_fail(T, "no CQE for the linked command");
		return 1;
	}
	/* The timeout expires (-ETIME), which with ETIME_SUCCESS goes on down the link. */
	if (res[1] != 4096) {
		vt_fail(T, "the command second in its link: res %d (timeout %d), expected 4096",
			res[1], res[0]);
		return 1;
	}
	return 0;
}

static void link_write(void)
{
	const char *T = "uring_link";
	const char *path = "/tmp/fdma_uring_link";
	uint32_t len = 65536;
	struct fdma_ioc_req r = { .card_addr = CARD_BASE, .len = len };
	struct vi_buf src, b;
	uint8_t *back = malloc(len);
	int res[2] = { 1, 1 }, fd = -1, ret;

	if (!back || vi_alloc(&d, len, &src) || vi_alloc(&d, len, &b)) {
		vt_fail(T, "buffers: %s", strerror(errno));
		free(back);
		return;
	}
	vt_fill(src.p, len, 77);
	memset(b.p, 0, len);
	r.handle = src.handle;
	ret = run_cmd(d.fd, d.h2c, &r, 1);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (ret != (int)len || fd < 0) {
		vt_fail(T, "card memory filled: %d; %s: %s", ret, path, strerror(errno));
		goto out;
	}
	ret = linked(fd, &b, CARD_BASE, len, res);
	if (ret || res[0] != (int)len || res[1] != (int)len) {
		vt_fail(T, "linked: %d, transfer res %d, write res %d (expected %u each)", ret,
			res[0], res[1], len);
		goto out;
	}
	if (vt_pread(fd, back, len, 0) != (ssize_t)len || vt_check(back, len, 77) >= 0) {
		vt_fail(T, "the file does not hold the card's bytes");
		goto out;
	}
	/* A transfer that fails at the card's end: its write is canceled. */
	if (ftruncate(fd, 0)) {
		vt_fail(T, "ftruncate: %s", strerror(errno));
		goto out;
	}
	ret = linked(fd, &b, d.info.card_size, len, res);
	if (ret || res[0] != -ERANGE || res[1] != -ECANCELED)
		vt_fail(T, "past the card: %d, transfer res %d (expected %d), write res %d (expected %d)",
			ret, res[0], -ERANGE, res[1], -ECANCELED);
	else if (lseek(fd, 0, SEEK_END) != 0)
		vt_fail(T, "the canceled write wrote the file");
	else if (second_in_link(&src))
		;
	else
		vt_pass(T);
out:
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(back);
	vi_free(&d, &src);
	vi_free(&d, &b);
}

static void errors(void)
{
	const char *T = "uring_errors";
	struct fdma_ioc_req r;
	struct fdma_uring_submit sc;
	struct io_uring_sqe *sqe;
	struct vi_buf b;
	int ro = -1, ret, n = 0;
	struct {
		const char *what;
		int want;
	} c[8];

	if (vi_alloc(&d, 4096, &b)) {
		vt_fail(T, "buffer: %s", strerror(errno));
		return;
	}
	r = (struct fdma_ioc_req){ .handle = b.handle, .card_addr = CARD_BASE, .len = 4096 };

	sqe = sqe_of(&ring);
	prep_cmd(sqe, d.fd, d.h2c, &r, 1, 1);
	sqe->cmd_op = FDMA_URING_CMD_SUBMIT + 1;
	c[n++] = (typeof(c[0])){ "an unknown cmd_op", -ENOTTY };
	ret = one_cqe(&ring, NULL);
	if (ret != c[n - 1].want)
		goto bad;

	sqe = sqe_of(&ring);
	prep_cmd(sqe, d.fd, d.h2c, &r, 1, 1);
	memcpy(&sc, sqe->cmd, sizeof(sc));
	sc.rsvd = 1;
	memcpy(sqe->cmd, &sc, sizeof(sc));
	c[n++] = (typeof(c[0])){ "reserved bits", -EINVAL };
	ret = one_cqe(&ring, NULL);
	if (ret != c[n - 1].want)
		goto bad;

	c[n++] = (typeof(c[0])){ "a channel past the last", -EINVAL };
	ret = run_cmd(d.fd, (int)d.info.nchan, &r, 1);
	if (ret != c[n - 1].want)
		goto bad;
	c[n++] = (typeof(c[0])){ "count 0", -EINVAL };
	ret = run_cmd(d.fd, d.h2c, &r, 0);
	if (ret != c[n - 1].want)
		goto bad;
	c[n++] = (typeof(c[0])){ "a bad pointer", -EFAULT };
	ret = run_cmd(d.fd, d.h2c, (const struct fdma_ioc_req *)8, 1);
	if (ret != c[n - 1].want)
		goto bad;
	c[n++] = (typeof(c[0])){ "a handle of no buffer", -EBADF };
	r.handle = b.handle + 1000;
	ret = run_cmd(d.fd, d.h2c, &r, 1);
	r.handle = b.handle;
	if (ret != c[n - 1].want)
		goto bad;
	{
		char path[96];

		snprintf(path, sizeof(path), "/dev/%s", d.name);
		ro = open(path, O_RDONLY);
	}
	c[n++] = (typeof(c[0])){ "a file open read-only", -EBADF };
	ret = ro < 0 ? -1000 - errno : run_cmd(ro, d.h2c, &r, 1);
	if (ret != c[n - 1].want)
		goto bad;
	c[n++] = (typeof(c[0])){ "a good command after them", 4096 };
	ret = run_cmd(d.fd, d.h2c, &r, 1);
	if (ret != c[n - 1].want)
		goto bad;
	vt_pass(T);
	goto out;
bad:
	vt_fail(T, "%s: CQE res %d (%s), expected %d (%s)", c[n - 1].what, ret,
		ret < 0 && ret > -1000 ? strerror(-ret) : "-", c[n - 1].want,
		c[n - 1].want < 0 ? strerror(-c[n - 1].want) : "bytes");
out:
	if (ro >= 0)
		close(ro);
	vi_free(&d, &b);
}

static void stream(void)
{
	const char *T = "uring_stream";
	uint32_t len = 65536;
	struct fdma_ioc_req r;
	struct fdma_ioc_stats st0, st1;
	struct vi_buf b;
	pid_t pid;
	int ret, status = 0;
	double t0;

	if (d.c2h_stream < 0) {
		printf("VMTEST SKIP %s: no C2H stream channel\n", T);
		return;
	}
	if (vi_alloc(&d, 4 * len, &b)) {
		vt_fail(T, "buffer: %s", strerror(errno));
		return;
	}
	r = (struct fdma_ioc_req){ .handle = b.handle, .len = len };
	if (!(d.info.features & FDMA_FEAT_URING_STREAM)) {
		ret = run_cmd(d.fd, d.c2h_stream, &r, 1);
		if (ret != -EOPNOTSUPP)
			vt_fail(T, "a stream command without FDMA_FEAT_URING_STREAM: res %d, expected %d",
				ret, -EOPNOTSUPP);
		else
			vt_pass(T);
		goto out;
	}
	if (vi_testgen(&d, len, 1)) {
		vt_fail(T, "test generator on: %s", strerror(errno));
		goto out;
	}
	for (int i = 0; i < 8; i++) {
		r.offset = (uint64_t)(i % 4) * len;
		ret = run_cmd(d.fd, d.c2h_stream, &r, 1);
		if (ret != (int)len || vi_frame_ok(b.p + r.offset, (uint64_t)ret, len)) {
			vt_fail(T, "frame %d: res %d, or not the generator's frame", i, ret);
			vi_testgen(&d, len, 0);
			goto out;
		}
	}
	vi_testgen(&d, len, 0);
	/* A frame that never comes, in a child that exits: io_uring cancels it through us. */
	vi_stats(&d, d.c2h_stream, &st0);
	pid = fork();
	if (pid == 0) {
		struct io_uring cr;

		if (io_uring_queue_init(4, &cr, 0))
			_exit(2);
		r.offset = 0;
		prep_cmd(sqe_of(&cr), d.fd, d.c2h_stream, &r, 1, 9);
		_exit(io_uring_submit(&cr) == 1 ? 0 : 3);
	}
	t0 = vi_ms();
	while (vi_ms() - t0 < 10000 && waitpid(pid, &status, WNOHANG) == 0)
		usleep(20000);
	if (vi_ms() - t0 >= 10000) {
		vt_fail(T, "a child with a stream command waiting did not exit in 10 s");
		kill(pid, SIGKILL);
		goto out;
	}
	/* The ring's teardown runs after the exit, in a kworker: wait for its reset. */
	t0 = vi_ms();
	do {
		vi_stats(&d, d.c2h_stream, &st1);
		if (st1.resets > st0.resets)
			break;
		usleep(20000);
	} while (vi_ms() - t0 < 10000);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		vt_fail(T, "the child: status 0x%x", status);
	else if (st1.resets <= st0.resets)
		vt_fail(T, "the command of the child that exited was not canceled: no channel reset in 10 s (%llu resets)",
			(unsigned long long)st1.resets);
	else
		vt_pass(T);
out:
	vi_free(&d, &b);
}

/* ---- counting -------------------------------------------------------------------- */

static int sys_fd = -1;

/* This thread's system calls, from the raw_syscalls:sys_enter tracepoint. */
static int sys_open(void)
{
	const char *ids[] = { "/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
			      "/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id" };
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(a) };
	long long id = -1;

	if (access(ids[0], R_OK))
		mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	for (int i = 0; i < 2 && id < 0; i++)
		id = vt_read_ll(ids[i]);
	if (id < 0)
		return -ENOENT;
	a.config = (uint64_t)id;
	a.sample_period = 1;
	sys_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	return sys_fd < 0 ? -errno : 0;
}

/* The count, less the read() that reads it. */
static uint64_t sys_count(void)
{
	uint64_t v = 0;

	if (read(sys_fd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v - 1;
}

static long wakeups(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw;
}

struct tally {
	uint64_t sys, irqs, bells, xfers;
	long wake;
};

static void tally_start(struct tally *t, struct fdma_ioc_stats *st)
{
	vi_stats(&d, d.h2c, st);
	t->wake = wakeups();
	t->sys = sys_count();
}

static void tally_end(struct tally *t, const struct fdma_ioc_stats *st0)
{
	struct fdma_ioc_stats st;
	uint64_t s = sys_count();

	t->wake = wakeups() - t->wake;
	t->sys = s - t->sys - 1;	/* less the first read's own */
	vi_stats(&d, d.h2c, &st);
	t->irqs = st.interrupts - st0->interrupts;
	t->bells = st.doorbells - st0->doorbells;
}

static void count(void)
{
	const char *T = "uring_count";
	enum { B = 32, N = 64, LEN = 4096 };
	static struct fdma_cq_entry e[B];
	struct fdma_ioc_req r[B];
	struct fdma_ioc_stats st0;
	struct tally io = { .xfers = B * N }, ur = { .xfers = B * N };
	struct vi_buf b;
	int ret;

	ret = sys_open();
	if (ret) {
		printf("VMTEST SKIP %s: no raw_syscalls tracepoint to count with (%s)\n", T,
		       strerror(-ret));
		return;
	}
	if (vi_alloc(&d, B * LEN, &b) || vi_coalesce(&d, d.h2c, B, 0)) {
		vt_fail(T, "buffer or coalescing: %s", strerror(errno));
		return;
	}
	vt_fill(b.p, b.size, 5);
	for (int i = 0; i < B; i++)
		r[i] = (struct fdma_ioc_req){ .handle = b.handle, .offset = (uint64_t)i * LEN,
					      .card_addr = CARD_BASE + (uint64_t)i * LEN, .len = LEN,
					      .user_data = (uint64_t)i };

	tally_start(&io, &st0);
	for (int k = 0; k < N; k++) {
		ret = vi_submit(&d, d.h2c, r, B);
		if (!ret)
			ret = vi_collect(&d, d.h2c, e, B, 10000000);
		if (ret) {
			vt_fail(T, "ioctl batch %d: %s", k, strerror(-ret));
			goto out;
		}
	}
	tally_end(&io, &st0);

	tally_start(&ur, &st0);
	for (int k = 0; k < N; k++) {
		ret = run_cmd(d.fd, d.h2c, r, B);
		if (ret != B * LEN) {
			vt_fail(T, "io_uring batch %d: res %d", k, ret);
			goto out;
		}
	}
	tally_end(&ur, &st0);

	printf("VMTEST INFO uring_count batch=%d transfers=%d"
	       " ioctl: syscalls_per_transfer=%.4f wakeups_per_transfer=%.4f"
	       " irqs_per_transfer=%.4f doorbells_per_transfer=%.4f"
	       " io_uring: syscalls_per_transfer=%.4f wakeups_per_transfer=%.4f"
	       " irqs_per_transfer=%.4f doorbells_per_transfer=%.4f\n", B, B * N,
	       (double)io.sys / io.xfers, (double)io.wake / io.xfers,
	       (double)io.irqs / io.xfers, (double)io.bells / io.xfers,
	       (double)ur.sys / ur.xfers, (double)ur.wake / ur.xfers,
	       (double)ur.irqs / ur.xfers, (double)ur.bells / ur.xfers);
	if (ur.sys > io.sys)
		vt_fail(T, "io_uring took %llu system calls, the ioctls %llu",
			(unsigned long long)ur.sys, (unsigned long long)io.sys);
	else if (ur.bells != N || io.bells != N)
		vt_fail(T, "doorbells: %llu through io_uring, %llu through the ioctls, expected %d each",
			(unsigned long long)ur.bells, (unsigned long long)io.bells, N);
	else
		vt_pass(T);
out:
	vi_coalesce(&d, d.h2c, 0, 0);
	vi_free(&d, &b);
}

int main(void)
{
	long long bufs0;
	int ret = vi_open(&d, NULL);

	if (ret) {
		vt_fail("uring_feature", "open the fdma device: %s", strerror(-ret));
		return 1;
	}
	if (d.h2c < 0 || d.c2h < 0 || vi_cq_map(&d, d.h2c) || vi_cq_map(&d, d.c2h)) {
		vt_fail("uring_feature", "no memory-mapped channel pair, or its queues do not map");
		return 1;
	}
	ret = io_uring_queue_init(16, &ring, 0);
	if (ret) {
		printf("VMTEST SKIP uring: io_uring_queue_init: %s\n", strerror(-ret));
		return 77;
	}
	bufs0 = vi_nbufs(d.name);
	feature();
	if (d.info.features & FDMA_FEAT_URING_CMD) {
		xfer();
		link_write();
		errors();
		stream();
		count();
	}
	io_uring_queue_exit(&ring);
	if (vi_nbufs(d.name) != bufs0)
		vt_fail("uring_leaks", "%lld buffers after, %lld before", vi_nbufs(d.name), bufs0);
	else
		vt_pass("uring_leaks");
	vi_close(&d);
	return vt_failed;
}
#else
int main(void)
{
	printf("VMTEST SKIP uring: built without liburing\n");
	return 77;
}
#endif
