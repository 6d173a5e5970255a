// SPDX-License-Identifier: MIT
/*
 * Unit tests of the frame files (tools/frameio.c): frames written from
 * their buffers and read back into them, with O_DIRECT where the file
 * system beside this program takes it, on both backends (io_uring and
 * pread/pwrite); a frame that breaks the direct-I/O alignment halfway
 * (the rest through the page cache, every byte in place); a file size
 * limit that cuts a write short (the rest tried, then its error); the end
 * of a file; a pipe; the calls' errors. Every byte written is read back
 * and compared. tests/cli/test_stream.sh records and plays whole streams.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_exit.h"

#include "frameio.h"

#define NBUF 4
#define BUFSZ 65536

static char dir[4096];
static uint8_t *bufs[NBUF];
static struct iovec iov[NBUF];

/* The byte at offset i of the file's frame data. */
static uint8_t pat(uint64_t i)
{
	return (uint8_t)(i * 131 + (i >> 12) * 7 + 1);
}

static void path_of(char *p, size_t n, const char *name)
{
	snprintf(p, n, "%s/%s", dir, name);
}

static struct frameio *open_io(const char *path, int write, int direct, int uring)
{
	struct frameio_cfg cfg = {
		.cmd = "test", .path = path, .write = write, .bufs = iov, .nbufs = NBUF,
		.direct = direct, .uring = uring,
	};
	struct frameio *f = NULL;

	assert_int_equal(frameio_open(&f, &cfg), 0);
	assert_non_null(f);
	return f;
}

/* Reap one result, waiting; checks it is for idx with res. */
static void reap_one(struct frameio *f, int64_t *res, unsigned int *idx)
{
	struct frameio_done d;
	int n;

	do
		n = frameio_reap(f, &d, 1, 1000000);
	while (n == 0);
	assert_int_equal(n, 1);
	*res = d.res;
	*idx = d.idx;
}

/*
 * Write frames of the sizes given (0 ends the list) back to back, each
 * buffer filled with the file's pattern at its offset; up to NBUF in
 * flight. Returns the bytes submitted; *last is the first error, or the
 * last result when none failed.
 */
static uint64_t write_frames(struct frameio *f, const uint64_t *sizes, int64_t *last)
{
	uint64_t off = 0;
	unsigned int free_mask = (1u << NBUF) - 1;

	*last = 0;
	for (int k = 0; sizes[k]; k++) {
		unsigned int idx;
		int64_t res;

		if (!free_mask) {
			reap_one(f, &res, &idx);
			if (*last >= 0)
				*last = res;
			free_mask |= 1u << idx;
			if (res < 0)
				break;
		}
		idx = (unsigned int)__builtin_ctz(free_mask);
		free_mask &= ~(1u << idx);
		for (uint64_t i = 0; i < sizes[k]; i++)
			bufs[idx][i] = pat(off + i);
		assert_int_equal(frameio_submit(f, idx, sizes[k], off), 0);
		off += sizes[k];
	}
	while (frameio_inflight(f)) {
		unsigned int idx;
		int64_t res;

		reap_one(f, &res, &idx);
		if (*last >= 0)
			*last = res;
	}
	return off;
}

/* The file holds exactly len bytes of the pattern. */
static void check_file(const char *path, uint64_t len)
{
	FILE *fp = fopen(path, "rb");
	uint64_t i = 0;
	int c;

	assert_non_null(fp);
	while ((c = fgetc(fp)) != EOF) {
		if (i < len && (uint8_t)c != pat(i))
			fail_msg("byte %llu of %s: %#x, not %#x", (unsigned long long)i, path, c, pat(i));
		i++;
	}
	fclose(fp);
	assert_int_equal(i, len);
}

/*
 * The file system beside this program takes O_DIRECT (tmpfs does not,
 * here) and says in what units, where statx() tells (qemu-user passes the
 * mask through but not the fields: no direct I/O, as a file system that
 * says 0 means).
 */
static int direct_here(void)
{
	struct statfs sfs;
	char p[4200];
	int fd, ok;

	path_of(p, sizeof(p), "probe");
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	ok = fd >= 0;
	if (ok && !fstatfs(fd, &sfs) && sfs.f_type == 0x01021994)
		ok = 0;		/* tmpfs: files in memory, a copy whatever the flags */
#ifdef STATX_DIOALIGN
	struct statx stx;

	/* The frames below are in whole 4096-byte units: direct where the unit divides that. */
	if (ok && !statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) &&
	    (stx.stx_mask & STATX_DIOALIGN) &&
	    (!stx.stx_dio_offset_align || 4096 % stx.stx_dio_offset_align ||
	     4096 % (stx.stx_dio_mem_align ? stx.stx_dio_mem_align : 1)))
		ok = 0;
#endif
	if (fd >= 0)
		close(fd);
	unlink(p);
	return ok;
}

static void write_aligned(int uring)
{
	static const uint64_t sizes[] = { 65536, 4096, 65536, 8192, 65536, 65536, 4096 * 3, 0 };
	char p[4200];
	struct frameio *f;
	uint64_t len;
	int64_t last;

	path_of(p, sizeof(p), "aligned");
	f = open_io(p, 1, 1, uring);
	len = write_frames(f, sizes, &last);
	assert_true(last > 0);
	/* Every frame went with O_DIRECT where the file system's unit divides 4096. */
	if (direct_here()) {
		assert_int_equal(frameio_direct(f), 1);
		assert_non_null(strstr(frameio_how(f), "O_DIRECT"));
	}
	assert_non_null(strstr(frameio_how(f), uring ? "io_uring" : "pread/pwrite"));
	assert_int_equal(frameio_close(f), 0);
	check_file(p, len);
	unlink(p);
}

static void test_write_aligned_uring(void **state)
{
	(void)state;
	write_aligned(1);
}

static void test_write_aligned_sync(void **state)
{
	(void)state;
	write_aligned(0);
}

/* A frame of 1000 bytes halfway: from there on through the page cache, every byte in place. */
static void write_switch(int uring)
{
	static const uint64_t sizes[] = { 4096, 65536, 8192, 1000, 4096, 65536, 12288, 7, 0 };
	char p[4200];
	struct frameio *f;
	uint64_t len;
	int64_t last;

	path_of(p, sizeof(p), "switch");
	f = open_io(p, 1, 1, uring);
	len = write_frames(f, sizes, &last);
	assert_true(last > 0);
	assert_int_equal(frameio_direct(f), 0);
	if (direct_here())
		assert_non_null(strstr(frameio_how(f), "not in whole"));
	assert_int_equal(frameio_close(f), 0);
	check_file(p, len);
	unlink(p);
}

static void test_write_switch_uring(void **state)
{
	(void)state;
	write_switch(1);
}

static void test_write_switch_sync(void **state)
{
	(void)state;
	write_switch(0);
}

/*
 * RLIMIT_FSIZE at 10000 bytes: the third 4096-byte frame is cut short
 * (1808 bytes taken), the rest is tried and fails with EFBIG, which is
 * what that frame's result says. The file keeps the 10000 bytes.
 */
static void write_efbig(int uring, int direct)
{
	static const uint64_t sizes[] = { 4096, 4096, 4096, 0 };
	struct rlimit old, lim;
	char p[4200];
	struct frameio *f;
	int64_t last;

	path_of(p, sizeof(p), "efbig");
	f = open_io(p, 1, direct, uring);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 10000;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	write_frames(f, sizes, &last);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_int_equal(last, -EFBIG);
	assert_int_equal(frameio_close(f), 0);
	check_file(p, 10000);
	unlink(p);
}

static void test_write_efbig_uring(void **state)
{
	(void)state;
	write_efbig(1, 1);
	write_efbig(1, 0);
}

static void test_write_efbig_sync(void **state)
{
	(void)state;
	write_efbig(0, 1);
	write_efbig(0, 0);
}

/* 2.5 frames of 4096 read as 3: 4096, 4096, then 2048 (the end of the file), the bytes right. */
static void read_eof(int uring, int direct)
{
	static const uint64_t sizes[] = { 4096, 4096, 2048, 0 };
	uint64_t want[] = { 4096, 4096, 2048 };
	char p[4200];
	struct frameio *f;
	int64_t last;

	path_of(p, sizeof(p), "eof");
	f = open_io(p, 1, 0, 0);
	write_frames(f, sizes, &last);
	assert_int_equal(frameio_close(f), 0);
	f = open_io(p, 0, direct, uring);
	for (unsigned int k = 0; k < 3; k++) {
		memset(bufs[k], 0, 4096);
		assert_int_equal(frameio_submit(f, k, 4096, k * 4096), 0);
	}
	for (int k = 0; k < 3; k++) {
		unsigned int idx;
		int64_t res;

		reap_one(f, &res, &idx);
		assert_int_equal(res, want[idx]);
		for (uint64_t i = 0; i < want[idx]; i++)
			assert_int_equal(bufs[idx][i], pat(idx * 4096 + i));
	}
	assert_int_equal(frameio_inflight(f), 0);
	assert_int_equal(frameio_close(f), 0);
	unlink(p);
}

static void test_read_eof(void **state)
{
	(void)state;
	read_eof(1, 1);
	read_eof(1, 0);
	read_eof(0, 1);
	read_eof(0, 0);
}

/* A pipe: no offsets, in order, one at a time, and said so. */
static void test_pipe(void **state)
{
	static const uint64_t sizes[] = { 4096, 1000, 4096, 0 };
	char p[64];
	uint8_t got[9192];
	struct frameio *f;
	int64_t last;
	int fds[2];
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fds[1]);
	f = open_io(p, 1, 1, 1);
	assert_non_null(strstr(frameio_how(f), "not a regular file"));
	assert_int_equal(frameio_direct(f), 0);
	write_frames(f, sizes, &last);
	assert_int_equal(last, 4096);
	assert_int_equal(frameio_close(f), 0);
	close(fds[1]);
	n = read(fds[0], got, sizeof(got));
	assert_int_equal(n, 9192);
	for (int i = 0; i < 9192; i++)
		assert_int_equal(got[i], pat((uint64_t)i));
	close(fds[0]);
}

/* The calls' errors: a buffer not there, busy or too short, no bytes; a file not there. */
static void test_errors(void **state)
{
	struct frameio_cfg cfg = {
		.cmd = "test", .path = "/nonexistent/dir/file", .write = 1, .bufs = iov,
		.nbufs = NBUF, .direct = 1, .uring = 1,
	};
	char p[4200];
	struct frameio *f;
	unsigned int idx;
	int64_t res;

	(void)state;
	assert_int_equal(frameio_open(&f, &cfg), -ENOENT);
	assert_null(f);
	cfg.nbufs = 0;
	assert_int_equal(frameio_open(&f, &cfg), -EINVAL);
	path_of(p, sizeof(p), "errors");
	f = open_io(p, 1, 0, 1);
	assert_non_null(strstr(frameio_how(f), "asked for"));
	assert_int_equal(frameio_submit(f, NBUF, 4096, 0), -EINVAL);
	assert_int_equal(frameio_submit(f, 0, BUFSZ + 1, 0), -EINVAL);
	assert_int_equal(frameio_submit(f, 0, 0, 0), -EINVAL);
	assert_int_equal(frameio_submit(f, 0, 4096, 0), 0);
	assert_int_equal(frameio_submit(f, 0, 4096, 4096), -EINVAL);
	reap_one(f, &res, &idx);
	assert_int_equal(idx, 0);
	assert_int_equal(res, 4096);
	/* Nothing in flight: no wait, nothing reaped. */
	assert_int_equal(frameio_reap(f, NULL, 0, -1), 0);
	assert_int_equal(frameio_close(f), 0);
	unlink(p);
}

static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < NBUF; i++) {
		if (posix_memalign((void **)&bufs[i], 4096, BUFSZ))
			return -1;
		iov[i] = (struct iovec){ .iov_base = bufs[i], .iov_len = BUFSZ };
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < NBUF; i++)
		free(bufs[i]);
	rmdir(dir);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_aligned_uring),
		cmocka_unit_test(test_write_aligned_sync),
		cmocka_unit_test(test_write_switch_uring),
		cmocka_unit_test(test_write_switch_sync),
		cmocka_unit_test(test_write_efbig_uring),
		cmocka_unit_test(test_write_efbig_sync),
		cmocka_unit_test(test_read_eof),
		cmocka_unit_test(test_pipe),
		cmocka_unit_test(test_errors),
	};
	char *self = strdup(argc > 0 ? argv[0] : ".");

	/* Beside this program: the build's file system (a disk), not /tmp's (often tmpfs). */
	snprintf(dir, sizeof(dir), "%s/frameio-XXXXXX", self ? dirname(self) : ".");
	free(self);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return T_EXIT_FAIL;
	}
	return t_exit(cmocka_run_group_tests(tests, setup, teardown),
		      sizeof(tests) / sizeof(tests[0]));
}
