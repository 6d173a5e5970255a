// SPDX-License-Identifier: MIT
/*
 * Ownership and teardown through the ioctl interface.
 *
 * ioc_two_procs: two processes, each with its own open file and buffers,
 *   move data at the same time, every byte checked; the second is given
 *   the first's handles and mmap offsets: submitting with them and freeing
 *   them are -EBADF, mapping them -EINVAL. Handles are never shared.
 * ioc_stream: the stream test generator (C2H) fills buffers with frames
 *   (FDMA_IOC_TESTGEN), completions carry SOF|EOF and the frame length;
 *   the same frames sent to the H2C checker are all counted good;
 *   FDMA_IOC_DROP toggles.
 * ioc_close_inflight: a file is closed (and its buffer unmapped) with
 *   requests in flight on several channels, among them stream buffers that
 *   can never complete: release resets the channels, every pinned page and
 *   buffer is given back, and another file's requests on the same stream
 *   channel come back -ECANCELED in its queue. The device works after.
 * ioc_kill_inflight: processes with registered and allocated buffers and
 *   requests in flight are SIGKILLed, 10 times: pinned pages and buffers
 *   return to their count before, the device works after.
 * ioc_unbind: the device is unbound while a process has buffers (mapped,
 *   registered) and requests in flight: those come back canceled, ioctls
 *   then fail with ENODEV, the buffers can still be freed and the file
 *   closed; bound again, the device works.
 */
#include "vmioc.h"

#define FRAME_MAGIC 0x304d5246u

struct frame_hdr {
	uint32_t magic, seq, len, crc;
	uint64_t tstamp_ns, rsvd;
};

static char dev[64];
static long long pinned0, bufs0;

/* Round trip of len bytes at card address card through buffers of v. */
static int works_on(struct vi_dev *v, uint64_t card, size_t len, uint64_t seed, char *why,
		    size_t wl)
{
	struct vi_buf a, b;
	struct fdma_ioc_req r;
	struct fdma_cq_entry e = { 0 };
	int ret;
	long bad;

	if (vi_cq_map(v, v->h2c) || vi_cq_map(v, v->c2h) || vi_alloc(v, len, &a)) {
		snprintf(why, wl, "map/alloc: %s", strerror(errno));
		return -1;
	}
	ret = vi_register(v, len, 192, &b);
	if (ret) {
		vi_free(v, &a);
		snprintf(why, wl, "register: %s", strerror(-ret));
		return -1;
	}
	vt_fill(a.p, len, seed);
	memset(b.p, 0, len);
	r = (struct fdma_ioc_req){ .handle = a.handle, .card_addr = card, .len = len,
				   .user_data = seed };
	ret = vi_submit(v, v->h2c, &r, 1);
	if (!ret)
		ret = vi_collect(v, v->h2c, &e, 1, 5000000);
	if (!ret && e.res)
		ret = e.res;
	if (!ret) {
		r.handle = b.handle;
		ret = vi_submit(v, v->c2h, &r, 1);
	}
	if (!ret)
		ret = vi_collect(v, v->c2h, &e, 1, 5000000);
	if (!ret && e.res)
		ret = e.res;
	bad = ret ? -1 : vt_check(b.p, len, seed);
	vi_free(v, &a);
	vi_free(v, &b);
	if (ret) {
		snprintf(why, wl, "transfer: %s", strerror(-ret));
		return -1;
	}
	if (bad >= 0) {
		snprintf(why, wl, "byte %ld read back wrong", bad);
		return -1;
	}
	return 0;
}

static int device_works(const char *T)
{
	struct vi_dev v;
	char why[200];
	int ret = vi_open(&v, NULL);

	if (ret) {
		vt_fail(T, "open: %s", strerror(-ret));
		return 0;
	}
	ret = works_on(&v, 200 << 20, 256 << 10, 4242, why, sizeof(why));
	vi_close(&v);
	if (ret)
		vt_fail(T, "the device does not work: %s", why);
	return !ret;
}

/* extra: buffers expected besides those alive at the start. */
static int leaks_but(const char *T, const char *when, int extra)
{
	long long p = vi_pinned(dev), n = vi_nbufs(dev);

	if (p != pinned0 || n != bufs0 + extra) {
		vt_fail(T, "%s: %lld pinned pages and %lld buffers, expected %lld and %lld", when, p,
			n, pinned0, bufs0 + extra);
		return 1;
	}
	return 0;
}

static int leaks(const char *T, const char *when)
{
	return leaks_but(T, when, 0);
}

/* ---- two processes ------------------------------------------------------ */

struct theirs {
	uint32_t handle[3];
	uint64_t mmap_offset;
};

static int proc_b(int rfd)
{
	struct vi_dev v;
	struct theirs t;
	struct vi_buf mine;
	char why[200];
	int bad = 0;

	if (read(rfd, &t, sizeof(t)) != sizeof(t) || vi_open(&v, dev) ||
	    vi_cq_map(&v, v.h2c) || vi_alloc(&v, 65536, &mine))
		return 10;
	for (int i = 0; i < 3; i++) {
		struct fdma_ioc_req r = { .handle = t.handle[i], .len = 4096 };
		uint32_t h = t.handle[i];

		if (h == mine.handle)
			bad |= 1;	/* handles are unique per device */
		if (vi_submit(&v, v.h2c, &r, 1) != -EBADF)
			bad |= 2;
		if (ioctl(v.fd, FDMA_IOC_BUF_FREE, &h) != -1 || errno != EBADF)
			bad |= 4;
	}
	if (mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, v.fd, (off_t)t.mmap_offset) !=
	    MAP_FAILED || errno != EINVAL)
		bad |= 8;
	vi_free(&v, &mine);
	for (int k = 0; k < 20 && !bad; k++)
		if (works_on(&v, (100 << 20) + k * 65536, 65536, 900 + k, why, sizeof(why)))
			bad |= 16;
	vi_close(&v);
	return bad;
}

static void two_procs(void)
{
	const char *T = "ioc_two_procs";
	struct vi_buf b[3];
	struct theirs t;
	struct vi_dev v;
	char why[200];
	int p[2], status, ret;
	pid_t pid;

	if (pipe(p) || vi_open(&v, dev)) {
		vt_fail(T, "pipe/open: %s", strerror(errno));
		return;
	}
	ret = vi_alloc(&v, 65536, &b[0]);
	if (!ret)
		ret = vi_alloc(&v, 65536, &b[1]);
	if (!ret)
		ret = vi_register(&v, 65536, 64, &b[2]);
	if (ret) {
		vt_fail(T, "buffers: %s", strerror(-ret));
		return;
	}
	pid = fork();
	if (pid == 0)
		_exit(proc_b(p[0]));
	for (int i = 0; i < 3; i++)
		t.handle[i] = b[i].handle;
	t.mmap_offset = b[1].mmap_offset;
	if (write(p[1], &t, sizeof(t)) != sizeof(t))
		vt_fail(T, "pipe write: %s", strerror(errno));
	for (int k = 0; k < 20; k++)
		if (works_on(&v, (120 << 20) + k * 65536, 65536, 700 + k, why, sizeof(why))) {
			vt_fail(T, "first process, round %d: %s", k, why);
			break;
		}
	/* Its own handles still work for it. */
	struct fdma_ioc_req r = { .handle = b[0].handle, .len = 4096, .card_addr = 130 << 20 };
	struct fdma_cq_entry e;

	if (vi_cq_map(&v, v.h2c) || vi_submit(&v, v.h2c, &r, 1) ||
	    vi_collect(&v, v.h2c, &e, 1, 5000000) || e.res)
		vt_fail(T, "first process: its own handle: %s", strerror(errno));
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		vt_fail(T, "second process: status 0x%x (1: same handle value, 2: submit with the other's handle not EBADF, 4: free not EBADF, 8: mmap not EINVAL, 16: own transfers failed, 10: setup)",
			status);
	for (int i = 0; i < 3; i++)
		vi_free(&v, &b[i]);
	vi_close(&v);
	close(p[0]);
	close(p[1]);
	if (!vt_failed && !leaks(T, "after both closed"))
		vt_pass(T);
}

/* ---- streams -------------------------------------------------------------- */

static void stream(void)
{
	const char *T = "ioc_stream";
	struct fdma_ioc_testgen tg = { 0 };
	struct fdma_ioc_drop dr = { 0 };
	struct fdma_ioc_req r[8];
	struct fdma_cq_entry e[8];
	uint32_t flen = 4096;
	struct vi_buf b;
	struct vi_dev v;
	int ret;

	if (vi_open(&v, dev)) {
		vt_fail(T, "open: %s", strerror(errno));
		return;
	}
	if (v.c2h_stream < 0 || v.h2c_stream < 0) {
		vt_info("no stream channel pair: skipped");
		vt_pass(T);
		vi_close(&v);
		return;
	}
	if (vi_cq_map(&v, v.c2h_stream) || vi_cq_map(&v, v.h2c_stream) ||
	    vi_alloc(&v, 8 * flen, &b)) {
		vt_fail(T, "map/alloc: %s", strerror(errno));
		vi_close(&v);
		return;
	}
	memset(b.p, 0, b.size);
	/* Generator and checker count frames from 0 after a reset. */
	if (vi_reset(&v, v.c2h_stream) || vi_reset(&v, v.h2c_stream)) {
		vt_fail(T, "FDMA_IOC_CHAN_RESET: %s", strerror(errno));
		goto out;
	}
	for (int i = 0; i < 8; i++)
		r[i] = (struct fdma_ioc_req){ .handle = b.handle, .offset = (uint64_t)i * flen,
					      .len = flen, .user_data = (uint64_t)i };
	/* Buffers first (the generator waits for them), then the generator. */
	ret = vi_submit(&v, v.c2h_stream, r, 8);
	tg = (struct fdma_ioc_testgen){ .chan = (uint32_t)v.c2h_stream, .frame_len = flen,
					.enable = 1 };
	if (ret || ioctl(v.fd, FDMA_IOC_TESTGEN, &tg)) {
		vt_fail(T, "submit / start the generator: %s", strerror(ret ? -ret : errno));
		goto out;
	}
	ret = vi_collect(&v, v.c2h_stream, e, 8, 5000000);
	tg.enable = 0;
	ioctl(v.fd, FDMA_IOC_TESTGEN, &tg);
	if (ret) {
		vt_fail(T, "frames: %s", strerror(-ret));
		goto out;
	}
	for (int i = 0; i < 8; i++) {
		const struct frame_hdr *h = (const void *)(b.p + e[i].user_data * flen);

		if (e[i].res || e[i].len != flen ||
		    e[i].flags != (FDMA_IOC_CPL_SOF | FDMA_IOC_CPL_EOF) || h->magic != FRAME_MAGIC ||
		    h->len != flen || (i && h->seq != ((const struct frame_hdr *)(b.p + e[i - 1].user_data * flen))->seq + 1)) {
			vt_fail(T, "frame %d: res %d, len %llu, flags 0x%x, magic 0x%08x, seq %u", i,
				e[i].res, (unsigned long long)e[i].len, e[i].flags, h->magic, h->seq);
			goto out;
		}
	}
	/* The same frames to the checker. */
	tg = (struct fdma_ioc_testgen){ .chan = (uint32_t)v.h2c_stream, .enable = 1,
					.frame_len = flen };
	if (ioctl(v.fd, FDMA_IOC_TESTGEN, &tg)) {
		vt_fail(T, "start the checker: %s", strerror(errno));
		goto out;
	}
	for (int i = 0; i < 8; i++) {
		r[i].offset = e[i].user_data * flen;
		r[i].flags = FDMA_IOC_REQ_SOF | FDMA_IOC_REQ_EOF;
	}
	ret = vi_submit(&v, v.h2c_stream, r, 8);
	if (!ret)
		ret = vi_collect(&v, v.h2c_stream, e, 8, 5000000);
	tg.enable = 0;
	if (ret || ioctl(v.fd, FDMA_IOC_TESTGEN, &tg)) {
		vt_fail(T, "frames to the checker: %s", strerror(ret ? -ret : errno));
		goto out;
	}
	if (tg.frames < 8 || tg.errors) {
		vt_fail(T, "checker: %llu frames good, %llu bad; expected 8 good",
			(unsigned long long)tg.frames, (unsigned long long)tg.errors);
		goto out;
	}
	dr.chan = (uint32_t)v.c2h_stream;
	dr.drop = 1;
	if (ioctl(v.fd, FDMA_IOC_DROP, &dr) || (dr.drop = 0, ioctl(v.fd, FDMA_IOC_DROP, &dr))) {
		vt_fail(T, "FDMA_IOC_DROP: %s", strerror(errno));
		goto out;
	}
	vt_info("8 generated frames of %u bytes, 8 checked good", flen);
	vt_pass(T);
out:
	vi_free(&v, &b);
	vi_close(&v);
}

/* ---- teardown with requests in flight ------------------------------------ */

/*
 * Put requests in flight on v: n stream buffers on the C2H stream channel
 * (they wait for frames that never come) from buffer s, and MM batches
 * from u both ways. Returns the stream buffers posted.
 */
static int load(struct vi_dev *v, struct vi_buf *s, struct vi_buf *u, int n)
{
	struct fdma_ioc_req r[32];
	int posted = 0;

	for (int i = 0; i < n && v->c2h_stream >= 0; i++)
		r[i] = (struct fdma_ioc_req){ .handle = s->handle, .offset = (uint64_t)i * 4096,
					      .len = 4096, .user_data = (uint64_t)i };
	if (n && v->c2h_stream >= 0 && !vi_submit(v, v->c2h_stream, r, (uint32_t)n))
		posted = n;
	for (int dir = 0; dir < 2; dir++) {
		for (int i = 0; i < 32; i++)
			r[i] = (struct fdma_ioc_req){ .handle = u->handle,
						      .offset = (uint64_t)i * (u->size / 32),
						      .card_addr = (300ull << 20) + i * (u->size / 32),
						      .len = u->size / 32, .user_data = 100 + i };
		vi_submit(v, dir ? v->c2h : v->h2c, r, 32);
	}
	return posted;
}

static void close_inflight(void)
{
	const char *T = "ioc_close_inflight";
	struct vi_dev x, y;
	struct vi_buf xs, ys, yu;
	struct fdma_cq_entry e[8];
	long long pin;
	int n;

	if (vi_open(&x, dev) || vi_open(&y, dev)) {
		vt_fail(T, "open: %s", strerror(errno));
		return;
	}
	if (x.c2h_stream < 0 || vi_cq_map(&x, x.c2h_stream) || vi_alloc(&x, 8 * 4096, &xs) ||
	    vi_alloc(&y, 8 * 4096, &ys) || vi_register(&y, 2 << 20, 128, &yu)) {
		vt_fail(T, "setup: %s", strerror(errno));
		return;
	}
	n = load(&x, &xs, &xs, 8);
	load(&y, &ys, &yu, 8);
	pin = vi_pinned(dev) - pinned0;
	/* Close with everything in flight, then drop the mapping (the last reference). */
	close(y.fd);
	y.fd = -1;
	munmap(ys.p, ys.size);
	free(yu.raw);
	if (leaks_but(T, "after the close", 1))	/* x's own buffer */
		goto out;
	if (vi_collect(&x, x.c2h_stream, e, n, 5000000)) {
		vt_fail(T, "the other file's stream requests did not come back: %s",
			strerror(errno));
		goto out;
	}
	for (int i = 0; i < n; i++)
		if (e[i].res != -ECANCELED || e[i].status != 0xffff) {
			vt_fail(T, "the other file's request %llu: res %d, status 0x%x; expected ECANCELED",
				(unsigned long long)e[i].user_data, e[i].res, e[i].status);
			goto out;
		}
	vt_info("closed with %lld pages pinned and requests in flight: all given back; the other file's %d stream requests came back ECANCELED",
		pin, n);
	/* x's own MM requests completed or were canceled: drain them. */
	vi_cq_map(&x, x.h2c);
	vi_cq_map(&x, x.c2h);
	vi_collect(&x, x.h2c, NULL, 32, 5000000);
	vi_collect(&x, x.c2h, NULL, 32, 5000000);
	vi_free(&x, &xs);
	vi_close(&x);
	if (!leaks(T, "at the end") && device_works(T))
		vt_pass(T);
	return;
out:
	vi_free(&x, &xs);
	vi_close(&x);
}

static void kill_inflight(void)
{
	const char *T = "ioc_kill_inflight";
	struct fdma_ioc_stats st;
	unsigned long long r0 = 0, r1 = 0;
	struct vi_dev v;
	int status, bad = 0;

	if (vi_open(&v, dev)) {
		vt_fail(T, "open: %s", strerror(errno));
		return;
	}
	for (unsigned int ch = 0; ch < v.info.nchan; ch++)
		r0 += vi_stats(&v, (int)ch, &st) ? 0 : st.resets;
	for (int round = 0; round < 10 && !bad; round++) {
		int p[2];
		char c;
		pid_t pid;

		if (pipe(p)) {
			vt_fail(T, "pipe: %s", strerror(errno));
			break;
		}
		pid = fork();
		if (pid == 0) {
			struct vi_dev w;
			struct vi_buf s, u;

			if (vi_open(&w, dev) || vi_alloc(&w, 8 * 4096, &s) ||
			    vi_register(&w, (1 + round % 3) << 20, 64 * round, &u))
				_exit(3);
			load(&w, &s, &u, 8);
			if (write(p[1], "x", 1) != 1)
				_exit(4);
			/* Keep the rings busy until killed. */
			for (;;) {
				load(&w, &s, &u, 0);
				vi_wait(&w, w.h2c, 1, 1000, NULL);
				vi_cq_take(&w, w.h2c, NULL, 64);
			}
		}
		if (read(p[0], &c, 1) != 1) {
			vt_fail(T, "round %d: the child did not start", round);
			bad = 1;
		}
		usleep(1000 + round * 7000);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		if (!WIFSIGNALED(status)) {
			vt_fail(T, "round %d: child status 0x%x", round, status);
			bad = 1;
		}
		close(p[0]);
		close(p[1]);
		bad |= leaks(T, "after a kill");
	}
	for (unsigned int ch = 0; ch < v.info.nchan; ch++)
		r1 += vi_stats(&v, (int)ch, &st) ? 0 : st.resets;
	vi_close(&v);
	if (bad)
		return;
	vt_info("10 processes killed with transfers in flight: %llu channel resets at their release",
		r1 - r0);
	if (device_works(T))
		vt_pass(T);
}

/* ---- unbind --------------------------------------------------------------- */

static void unbind(void)
{
	const char *T = "ioc_unbind";
	char bdf[64], drv[300];
	ssize_t n;
	struct vi_buf s, u;
	struct fdma_cq_entry e[8];
	struct vi_dev v;
	uint32_t ready = 0;
	int ret, k;

	if (vt_bdf(dev, bdf, sizeof(bdf)) || vt_drv_dir(bdf, drv, sizeof(drv))) {
		vt_fail(T, "no PCI function behind " FDMA_CLASS "/%s: %s", dev, strerror(errno));
		return;
	}
	if (vi_open(&v, dev) || v.c2h_stream < 0 || vi_cq_map(&v, v.c2h_stream) ||
	    vi_alloc(&v, 8 * 4096, &s) || vi_register(&v, 1 << 20, 0, &u)) {
		vt_fail(T, "setup: %s", strerror(errno));
		return;
	}
	k = load(&v, &s, &u, 8);
	if (vt_write_path(drv, "unbind", bdf)) {
		vt_fail(T, "unbind %s: %s", bdf, strerror(errno));
		return;
	}
	/* The stream requests were handed back by remove(). */
	n = vi_cq_take(&v, v.c2h_stream, e, 8);
	for (int i = 0; i < n; i++)
		if (e[i].res != -ECANCELED)
			vt_fail(T, "after unbind: entry %d res %d, expected ECANCELED", i, e[i].res);
	if (n != k)
		vt_fail(T, "after unbind: %zd of %d stream requests in the queue", n, k);
	ret = vi_wait(&v, v.c2h_stream, 1, 1000, &ready);
	if (ret != -ENODEV)
		vt_fail(T, "FDMA_IOC_WAIT after unbind: %s, expected ENODEV", strerror(-ret));
	if (vi_free(&v, &s) || vi_free(&v, &u))
		vt_fail(T, "FDMA_IOC_BUF_FREE after unbind: %s", strerror(errno));
	vi_close(&v);
	if (vt_write_path(drv, "bind", bdf)) {
		vt_fail(T, "bind %s again: %s", bdf, strerror(errno));
		return;
	}
	if (vt_find_dev("fdma", dev, sizeof(dev))) {
		vt_fail(T, "no device after bind");
		return;
	}
	if (!vt_failed && device_works(T) && vi_pinned(dev) == 0 && vi_nbufs(dev) == 0)
		vt_pass(T);
	else if (!vt_failed)
		vt_fail(T, "after bind: %lld pinned pages, %lld buffers", vi_pinned(dev),
			vi_nbufs(dev));
}

int main(void)
{
	if (vt_find_dev("fdma", dev, sizeof(dev))) {
		vt_fail("ioc_two_procs", "no fdma device in " FDMA_CLASS);
		return 1;
	}
	pinned0 = vi_pinned(dev);
	bufs0 = vi_nbufs(dev);
	two_procs();
	stream();
	close_inflight();
	kill_inflight();
	unbind();
	return vt_failed;
}
