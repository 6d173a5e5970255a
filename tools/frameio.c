// SPDX-License-Identifier: MIT
/*
 * Frame files without a copy (frameio.h): the file, the O_DIRECT decision
 * and its fallbacks, short writes, and the completions handed back. The
 * I/O itself goes through one of two backends behind struct frameio_ops:
 * io_uring (frameio_uring.c) or pread/pwrite (here).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "frameio_impl.h"
#include "util.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/* ---- the pread/pwrite backend: one I/O at a time, done at submission ---- */

/*
 * A pipe or a terminal: no offsets, pieces as it takes them, in order, and
 * Ctrl-C as the command's other pipes have it (a frame begun is finished,
 * one not begun is not): the bytes moved, or -errno.
 */
static int64_t stream_io(struct frameio *f, void *addr, uint64_t len)
{
	size_t done;
	int ret;

	if (!f->write)
		return tool_read_full(f->fd, addr, len);
	ret = tool_write_some(f->fd, addr, len, &done);
	return ret && !done ? ret : (int64_t)done;
}

static int sync_submit(struct frameio *f, unsigned int idx, void *addr, uint64_t len, uint64_t off)
{
	ssize_t n;

	if (!f->regular) {
		frameio_raw_push(f, idx, stream_io(f, addr, len));
		return 0;
	}
	do
		n = f->write ? pwrite(f->fd, addr, len, (off_t)off) : pread(f->fd, addr, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	/* Reaped like an io_uring completion: the common code sees no difference. */
	frameio_raw_push(f, idx, n < 0 ? -errno : n);
	return 0;
}

static int sync_reap(struct frameio *f, int64_t timeout_us)
{
	(void)f;
	(void)timeout_us;
	return 0;		/* done at submission: f->raw has them already */
}

static void sync_fini(struct frameio *f)
{
	(void)f;
}

static const struct frameio_ops sync_ops = {
	.submit = sync_submit, .reap = sync_reap, .fini = sync_fini,
};

/* ---- common ------------------------------------------------------------- */

static int aligned(const struct frameio *f, const void *addr, uint64_t len, uint64_t off)
{
	return !((uintptr_t)addr % f->memalign) && !(len % f->offalign) && !(off % f->offalign);
}

/* Hand the I/O of buffer idx to the backend, as it stands (what is left of it). */
static int issue(struct frameio *f, unsigned int idx)
{
	struct frameio_io *io = &f->io[idx];
	uint8_t *addr = (uint8_t *)f->bufs[idx].iov_base + io->done;
	uint64_t len = io->len - io->done, off = io->off + io->done;
	int ret;

	if (f->direct && !aligned(f, addr, len, off)) {
		/* From here on through the page cache, once the direct I/O in flight is done. */
		snprintf(f->why, sizeof(f->why), "a %s of %" PRIu64 " bytes at offset %" PRIu64
			 " is not in whole %u-byte units of the file's direct-I/O alignment",
			 f->write ? "write" : "read", len, off, f->offalign);
		f->to_buffered = 1;
	}
	if (f->to_buffered) {
		io->parked = 1;
		return 0;
	}
	io->direct = f->direct;
	ret = f->ops->submit(f, idx, addr, len, off);
	if (ret)
		return ret;
	f->backend++;
	return 0;
}

static void finish(struct frameio *f, unsigned int idx, int64_t res)
{
	f->fin[(f->fin_head + f->nfin) % f->nbufs] = (struct frameio_done){ .idx = idx, .res = res };
	f->nfin++;
}

/* Issue buffer idx's I/O again (what is left of it); a refusal is its result. */
static void reissue(struct frameio *f, unsigned int idx)
{
	int ret = issue(f, idx);

	if (ret)
		finish(f, idx, ret);
}

/* f->how: the way the file is read or written now. */
static void say_how(struct frameio *f)
{
	if (!f->regular)
		snprintf(f->how, sizeof(f->how), "%s one at a time, in order (not a regular file)",
			 f->write ? "write(2)" : "read(2)");
	else if (f->direct)
		snprintf(f->how, sizeof(f->how), "O_DIRECT, %s", f->ops_how);
	else
		snprintf(f->how, sizeof(f->how), "through the page cache (%s), %s", f->why, f->ops_how);
}

/* Queue one result of the backend (at most one per I/O it has: the ring never overflows). */
void frameio_raw_push(struct frameio *f, unsigned int idx, int64_t res)
{
	f->raw[(f->raw_head + f->nraw) % f->nbufs] = (struct frameio_done){ .idx = idx, .res = res };
	f->nraw++;
}

/* One completion from the backend: done, continued (a short write), or parked. */
static void complete(struct frameio *f, unsigned int idx, int64_t res)
{
	struct frameio_io *io = &f->io[idx];

	f->backend--;
	if (res == -EINVAL && io->direct) {
		/* The file system's rules are stricter than statx() said (or it said nothing). */
		if (!f->to_buffered)
			snprintf(f->why, sizeof(f->why), "the file system refused a direct %s (EINVAL)",
				 f->write ? "write" : "read");
		f->to_buffered = 1;
		io->parked = 1;
		return;
	}
	/*
	 * A regular file's EAGAIN (io_uring's) is "again". EINTR comes only
	 * from a Ctrl-C on a pipe, which ends the run; a pipe's EAGAIN is a
	 * non-blocking one, an error.
	 */
	if (res == -EAGAIN && f->regular) {
		reissue(f, idx);
		return;
	}
	if (res < 0) {
		finish(f, idx, res);
		return;
	}
	io->done += (uint64_t)res;
	if (io->done < io->len && f->write) {
		/* A short write (a file system near full, a signal): the rest, or its error. */
		if (res == 0)
			finish(f, idx, -EIO);
		else
			reissue(f, idx);
		return;
	}
	/* A read: fewer bytes at the end of the file. */
	finish(f, idx, (int64_t)io->done);
}

/* Take what the backend has finished; wait up to timeout_us if it has nothing. */
static int take(struct frameio *f, int64_t timeout_us)
{
	int ret = 0;

	if (!f->nraw && f->backend)
		ret = f->ops->reap(f, timeout_us);
	/* Popped before it is looked at: a result may issue the I/O again, and push another. */
	for (unsigned int n = f->nraw; n && f->nraw; n--) {
		struct frameio_done d = f->raw[f->raw_head];

		f->raw_head = (f->raw_head + 1) % f->nbufs;
		f->nraw--;
		complete(f, d.idx, d.res);
	}
	return ret;
}

/*
 * Once the direct I/O in flight is done, the file goes through the page
 * cache: a buffered write to a block beside one a direct write still has
 * in flight could read the block's old contents into the cache and write
 * them back over it.
 */
static void settle(struct frameio *f)
{
	int ret = 0, fl;

	if (!f->to_buffered)
		return;
	while (f->backend && ret >= 0)
		ret = take(f, -1);
	fl = fcntl(f->fd, F_GETFL);
	if (ret < 0 || fl < 0 || fcntl(f->fd, F_SETFL, fl & ~O_DIRECT)) {
		/* No way on: what waits for the switch fails, with the reason. */
		ret = ret < 0 ? ret : -errno;
		for (unsigned int i = 0; i < f->nbufs; i++)
			if (f->io[i].parked) {
				f->io[i].parked = 0;
				finish(f, i, ret);
			}
		f->to_buffered = 0;
		return;
	}
	if (f->direct)
		fprintf(stderr, "fdma %s: '%s': through the page cache from here on: %s\n",
			f->cmd, f->path, f->why);
	f->direct = 0;
	f->to_buffered = 0;
	say_how(f);
	for (unsigned int i = 0; i < f->nbufs; i++) {
		if (!f->io[i].parked)
			continue;
		f->io[i].parked = 0;
		reissue(f, i);
	}
}

int frameio_submit(struct frameio *f, unsigned int idx, uint64_t len, uint64_t off)
{
	int ret;

	if (idx >= f->nbufs || f->io[idx].busy || len > f->bufs[idx].iov_len || !len)
		return -EINVAL;
	if (f->busy == f->nbufs)
		return -EBUSY;
	f->io[idx] = (struct frameio_io){ .off = off, .len = len, .busy = 1 };
	f->busy++;
	ret = issue(f, idx);
	if (ret) {
		f->io[idx].busy = 0;
		f->busy--;
		return ret;
	}
	/* From here on the I/O's result, an error included, comes through frameio_reap(). */
	settle(f);
	return 0;
}

int frameio_reap(struct frameio *f, struct frameio_done *done, unsigned int n, int64_t timeout_us)
{
	unsigned int k = 0;
	int ret;

	if (!f->nfin) {
		ret = take(f, timeout_us);
		settle(f);
		if (ret < 0 && !f->nfin)
			return ret;
	}
	while (k < n && f->nfin) {
		done[k] = f->fin[f->fin_head];
		f->fin_head = (f->fin_head + 1) % f->nbufs;
		f->nfin--;
		f->io[done[k].idx].busy = 0;
		f->busy--;
		k++;
	}
	return (int)k;
}

unsigned int frameio_inflight(const struct frameio *f)
{
	return f->busy;
}

const char *frameio_how(const struct frameio *f)
{
	return f->how;
}

int frameio_direct(const struct frameio *f)
{
	return f->direct;
}

/*
 * The file's direct-I/O alignment (statx(), Linux 6.1 and later), or a
 * page where it does not say. 0: no O_DIRECT on this file (and why).
 */
static int dio_align(struct frameio *f)
{
	struct statfs sfs;

	if (!fstatfs(f->fd, &sfs) && sfs.f_type == TMPFS_MAGIC) {
		snprintf(f->why, sizeof(f->why), "tmpfs keeps files in memory: a write is a copy "
			 "whatever the flags");
		return 0;
	}
	f->memalign = f->offalign = 4096;
#ifdef STATX_DIOALIGN
	struct statx stx;

	if (!statx(f->fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) && (stx.stx_mask & STATX_DIOALIGN)) {
		if (!stx.stx_dio_offset_align) {
			snprintf(f->why, sizeof(f->why), "the file system takes no direct I/O on it");
			return 0;
		}
		f->memalign = stx.stx_dio_mem_align ? stx.stx_dio_mem_align : 1;
		f->offalign = stx.stx_dio_offset_align;
	}
#endif
	return 1;
}

int frameio_open(struct frameio **fp, const struct frameio_cfg *cfg)
{
	int acc = cfg->write ? O_WRONLY | O_CREAT | O_TRUNC : O_RDONLY;
	struct frameio *f;
	struct stat sb;
	int ret, fl;

	*fp = NULL;
	if (!cfg->nbufs || cfg->nbufs > 1024)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		goto nomem;
	f->fd = -1;
	f->cmd = cfg->cmd;
	f->path = cfg->path;
	f->write = cfg->write;
	f->nbufs = cfg->nbufs;
	f->bufs = calloc(cfg->nbufs, sizeof(*f->bufs));
	f->io = calloc(cfg->nbufs, sizeof(*f->io));
	f->fin = calloc(cfg->nbufs, sizeof(*f->fin));
	f->raw = calloc(cfg->nbufs, sizeof(*f->raw));
	if (!f->bufs || !f->io || !f->fin || !f->raw)
		goto nomem;
	memcpy(f->bufs, cfg->bufs, cfg->nbufs * sizeof(*f->bufs));
	/*
	 * Opened without O_DIRECT, which is added once the file is known to be
	 * a regular one: a FIFO's open meets its reader before O_DIRECT is
	 * refused, and the reader would see a writer come and go.
	 */
	if (!strcmp(cfg->path, "-"))
		/* Standard input or output: a copy of it, which close() leaves open. */
		f->fd = fcntl(cfg->write ? STDOUT_FILENO : STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
	else
		f->fd = open(cfg->path, acc | O_CLOEXEC, 0644);
	if (f->fd < 0) {
		ret = -errno;
		fprintf(stderr, "fdma %s: cannot %s '%s': %s\n", cfg->cmd,
			cfg->write ? "write" : "read", cfg->path, strerror(errno));
		frameio_close(f);
		return ret;
	}
	/*
	 * Standard input or output is read or written where it stands, in
	 * order, without O_DIRECT (its open file may be another process's too).
	 */
	f->regular = strcmp(cfg->path, "-") && !fstat(f->fd, &sb) && S_ISREG(sb.st_mode);
	if (!cfg->direct)
		snprintf(f->why, sizeof(f->why), "asked for");
	else if (f->regular && dio_align(f)) {
		fl = fcntl(f->fd, F_GETFL);
		f->direct = fl >= 0 && !fcntl(f->fd, F_SETFL, fl | O_DIRECT);
		if (!f->direct)
			snprintf(f->why, sizeof(f->why), "the file system takes no O_DIRECT");
	}
	f->ops = &sync_ops;
	snprintf(f->ops_how, sizeof(f->ops_how), "pread/pwrite one at a time (asked for)");
	if (cfg->uring && f->regular)
		frameio_uring_init(f);
	say_how(f);
	*fp = f;
	return 0;

nomem:
	fprintf(stderr, "fdma %s: out of memory\n", cfg->cmd);
	frameio_close(f);
	return -ENOMEM;
}

int frameio_close(struct frameio *f)
{
	int ret = 0;

	if (!f)
		return 0;
	while (f->ops && f->backend && take(f, -1) >= 0)
		;
	if (f->ops)
		f->ops->fini(f);
	if (f->fd >= 0 && close(f->fd))
		ret = -errno;
	free(f->bufs);
	free(f->io);
	free(f->fin);
	free(f->raw);
	free(f);
	return ret;
}
