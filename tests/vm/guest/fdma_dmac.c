// SPDX-License-Identifier: MIT
/*
 * fdma_dmac.ko's own checks, on its node ($FDMA_VM_DEV, set by dmac.sh),
 * over fdma.ko's dmaengine provider; every byte of every copy checked.
 *
 * dmac_info: INFO says what the node is: no link, no card memory, no
 *   registers, only memory-to-memory channels, the longest piece.
 * dmac_batch: a batch of 32 copies in one FDMA_IOC_COPY costs one
 *   doorbell (one dma_async_issue_pending); with coalescing 32 it calls
 *   back once; without, once per copy; coalescing by time is EOPNOTSUPP.
 * dmac_eventfd: completions announced through the queue's eventfd, waited
 *   for with epoll on it and on the node.
 * dmac_sigio: O_ASYNC with F_SETSIG: the real-time signal's si_fd is the
 *   node's descriptor, si_code POLL_IN.
 * dmac_split: a 4 MiB copy (pieces of the client's longest) and a batch of
 *   100, more than ZDMA's pool of 32 descriptors, both complete.
 * dmac_reset: FDMA_IOC_CHAN_RESET with copies in flight: each completes
 *   or comes back ECANCELED, none lost; the channel copies again.
 * dmac_close: a file closed with 16 MiB of copies in flight, and a process
 *   killed with copies in flight: the node copies again, no buffer or pin
 *   left behind.
 */
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/wait.h>

#include "vmioc.h"

static struct vi_dev d;

/* n copies of len from src to dst (len apart), every byte checked. */
static int copies(const char *T, struct vi_buf *src, struct vi_buf *dst, int n, uint64_t len,
		  uint64_t seed, int wait)
{
	static struct fdma_ioc_copy c[256];
	static struct fdma_cq_entry e[256];

	for (int i = 0; i < n; i++) {
		vt_fill(src->p + (uint64_t)i * len, len, seed + (uint64_t)i);
		memset(dst->p + (uint64_t)i * len, 0, len);
		c[i] = (struct fdma_ioc_copy){ .src_handle = src->handle,
					       .dst_handle = dst->handle,
					       .src_offset = (uint64_t)i * len,
					       .dst_offset = (uint64_t)i * len,
					       .len = len, .user_data = (uint64_t)i };
	}
	if (vi_copy(&d, d.mem, c, (uint32_t)n)) {
		vt_fail(T, "FDMA_IOC_COPY of %d x %llu bytes: %s", n, (unsigned long long)len,
			strerror(errno));
		return -1;
	}
	if (!wait)
		return 0;
	if (vi_collect(&d, d.mem, e, n, 20000000)) {
		vt_fail(T, "completions of %d copies: %s", n, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		uint64_t k = e[i].user_data;

		if (e[i].res || e[i].len != len || k >= (uint64_t)n) {
			vt_fail(T, "copy %llu: res %d, %llu of %llu bytes", (unsigned long long)k,
				e[i].res, (unsigned long long)e[i].len, (unsigned long long)len);
			return -1;
		}
		if (vt_check(dst->p + k * len, len, seed + k) >= 0) {
			vt_fail(T, "copy %llu of %llu bytes: data differs", (unsigned long long)k,
				(unsigned long long)len);
			return -1;
		}
	}
	return 0;
}

static void t_info(void)
{
	const char *T = "dmac_info";
	char be[32];

	if (vt_attr_str(d.name, "backend", be, sizeof(be)) || strcmp(be, "dmaengine")) {
		vt_fail(T, "backend attribute '%s'", be);
		return;
	}
	if (d.info.link_gen || d.info.card_size || (d.info.features & FDMA_FEAT_REG) ||
	    !(d.info.features & FDMA_FEAT_MEMCPY) || d.mem != 0 || d.h2c >= 0 || d.c2h >= 0 ||
	    d.c2h_stream >= 0 || d.h2c_stream >= 0 || d.info.engine_version) {
		vt_fail(T, "link gen %u, card %llu, features 0x%x, engine 0x%x, mem %d h2c %d c2h %d",
			d.info.link_gen, (unsigned long long)d.info.card_size, d.info.features,
			d.info.engine_version, d.mem, d.h2c, d.c2h);
		return;
	}
	vt_info("%s: %u channels, align %u (DMA %u), longest piece %u, ring %u", d.name,
		d.info.nchan, d.engine_align, d.info.align, d.info.max_desc_len, d.info.ring_size);
	vt_pass(T);
}

static void t_batch(struct vi_buf *src, struct vi_buf *dst)
{
	const char *T = "dmac_batch";
	struct fdma_ioc_stats a, b, c2;

	if (vi_coalesce(&d, d.mem, 32, 0) || vi_stats(&d, d.mem, &a) ||
	    copies(T, src, dst, 32, 4096, 1, 1) || vi_stats(&d, d.mem, &b))
		return;
	if (b.doorbells - a.doorbells != 1 || b.interrupts - a.interrupts != 1 ||
	    b.transfers - a.transfers != 32) {
		vt_fail(T, "32 copies, coalescing 32: %llu doorbells, %llu callbacks, %llu transfers",
			(unsigned long long)(b.doorbells - a.doorbells),
			(unsigned long long)(b.interrupts - a.interrupts),
			(unsigned long long)(b.transfers - a.transfers));
		return;
	}
	if (vi_coalesce(&d, d.mem, 1, 0) || copies(T, src, dst, 32, 4096, 2, 1) ||
	    vi_stats(&d, d.mem, &c2))
		return;
	if (c2.doorbells - b.doorbells != 1 || c2.interrupts - b.interrupts != 32) {
		vt_fail(T, "32 copies, no coalescing: %llu doorbells, %llu callbacks",
			(unsigned long long)(c2.doorbells - b.doorbells),
			(unsigned long long)(c2.interrupts - b.interrupts));
		return;
	}
	if (vi_coalesce(&d, d.mem, 8, 100) != -EOPNOTSUPP) {
		vt_fail(T, "coalescing by time was not EOPNOTSUPP");
		return;
	}
	vt_pass(T);
}

static void t_eventfd(struct vi_buf *src, struct vi_buf *dst)
{
	const char *T = "dmac_eventfd";
	int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), ep = epoll_create1(0);
	struct fdma_ioc_cq_eventfd ce = { .chan = (uint32_t)d.mem, .fd = efd };
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 1 }, got[2];
	static struct fdma_cq_entry e[64];
	int n = 0, seen_efd = 0, seen_dev = 0;
	double t0 = vi_ms();

	if (efd < 0 || ep < 0 || ioctl(d.fd, FDMA_IOC_CQ_EVENTFD, &ce) ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev)) {
		vt_fail(T, "eventfd and epoll set-up: %s", strerror(errno));
		goto out;
	}
	ev.data.u32 = 2;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, d.fd, &ev)) {
		vt_fail(T, "epoll on the node: %s", strerror(errno));
		goto out;
	}
	if (copies(T, src, dst, 64, 16384, 3, 0))
		goto out;
	while (n < 64 && vi_ms() - t0 < 20000) {
		int k = epoll_wait(ep, got, 2, 1000);
		uint64_t v;

		for (int i = 0; i < k; i++) {
			if (got[i].data.u32 == 1) {
				seen_efd++;
				if (read(efd, &v, sizeof(v)) != sizeof(v))
					v = 0;
			} else {
				seen_dev++;
			}
		}
		n += vi_cq_take(&d, d.mem, e + n, 64 - n);
	}
	if (n != 64 || !seen_efd || !seen_dev) {
		vt_fail(T, "%d of 64 completions; epoll saw the eventfd %d times, the node %d times",
			n, seen_efd, seen_dev);
		goto out;
	}
	for (int i = 0; i < 64; i++)
		if (e[i].res || vt_check(dst->p + e[i].user_data * 16384, 16384,
					 3 + e[i].user_data) >= 0) {
			vt_fail(T, "copy %llu: res %d or data differs",
				(unsigned long long)e[i].user_data, e[i].res);
			goto out;
		}
	vt_pass(T);
out:
	ce.fd = -1;
	ioctl(d.fd, FDMA_IOC_CQ_EVENTFD, &ce);
	if (efd >= 0)
		close(efd);
	if (ep >= 0)
		close(ep);
}

static void t_sigio(struct vi_buf *src, struct vi_buf *dst)
{
	const char *T = "dmac_sigio";
	int sig = SIGRTMIN + 1, fl = fcntl(d.fd, F_GETFL);
	struct timespec tmo = { .tv_sec = 20 };
	siginfo_t si;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (fcntl(d.fd, F_SETOWN, getpid()) || fcntl(d.fd, F_SETSIG, sig) ||
	    fcntl(d.fd, F_SETFL, fl | O_ASYNC)) {
		vt_fail(T, "O_ASYNC, F_SETSIG: %s", strerror(errno));
		goto out;
	}
	if (copies(T, src, dst, 4, 65536, 4, 0))
		goto out;
	if (sigtimedwait(&set, &si, &tmo) != sig) {
		vt_fail(T, "no signal %d within 20 s: %s", sig, strerror(errno));
		goto out;
	}
	if (si.si_fd != d.fd || si.si_code != POLL_IN) {
		vt_fail(T, "si_fd %d (the node is %d), si_code %d (POLL_IN %d)", si.si_fd, d.fd,
			si.si_code, POLL_IN);
		goto out;
	}
	if (vi_collect(&d, d.mem, NULL, 4, 20000000)) {
		vt_fail(T, "completions: %s", strerror(errno));
		goto out;
	}
	for (int i = 0; i < 4; i++)
		if (vt_check(dst->p + (uint64_t)i * 65536, 65536, 4 + (uint64_t)i) >= 0) {
			vt_fail(T, "copy %d: data differs", i);
			goto out;
		}
	vt_pass(T);
out:
	fcntl(d.fd, F_SETFL, fl);
	/* More completions may have queued more signals: take them before unblocking. */
	tmo = (struct timespec){ 0 };
	while (sigtimedwait(&set, &si, &tmo) == sig)
		;
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static void t_split(struct vi_buf *src, struct vi_buf *dst)
{
	const char *T = "dmac_split";

	/* One request of several pieces, then more than ZDMA's pool of 32. */
	if (copies(T, src, dst, 1, 4 << 20, 5, 1) ||
	    copies(T, src, dst, 100, 16384, 6, 1) ||
	    copies(T, src, dst, 4, 1 << 20, 7, 1))
		return;
	vt_pass(T);
}

static void t_reset(struct vi_buf *src, struct vi_buf *dst)
{
	const char *T = "dmac_reset";
	static struct fdma_cq_entry e[64];
	int ok = 0, canceled = 0;

	if (copies(T, src, dst, 64, 65536, 8, 0))
		return;
	if (vi_reset(&d, d.mem)) {
		vt_fail(T, "FDMA_IOC_CHAN_RESET: %s", strerror(errno));
		return;
	}
	if (vi_collect(&d, d.mem, e, 64, 20000000)) {
		vt_fail(T, "completions after the reset: %s", strerror(errno));
		return;
	}
	for (int i = 0; i < 64; i++) {
		if (e[i].res == -ECANCELED) {
			canceled++;
		} else if (e[i].res || vt_check(dst->p + e[i].user_data * 65536, 65536,
						8 + e[i].user_data) >= 0) {
			vt_fail(T, "copy %llu: res %d, or data differs",
				(unsigned long long)e[i].user_data, e[i].res);
			return;
		} else {
			ok++;
		}
	}
	vt_info("reset with 64 copies in flight: %d done, %d canceled", ok, canceled);
	if (copies(T, src, dst, 16, 65536, 9, 1))
		return;
	vt_pass(T);
}

static void t_close(void)
{
	const char *T = "dmac_close";
	long long bufs0 = vi_nbufs(d.name), pinned0 = vi_pinned(d.name);
	struct vi_dev d2;
	struct vi_buf s2, t2;
	pid_t pid;
	int st;

	/* Closed with 16 MiB of copies in flight. */
	if (vi_open(&d2, d.name) || vi_alloc(&d2, 4 << 20, &s2) || vi_alloc(&d2, 4 << 20, &t2)) {
		vt_fail(T, "second file: %s", strerror(errno));
		return;
	}
	for (int i = 0; i < 4; i++) {
		struct fdma_ioc_copy c = { .src_handle = s2.handle, .dst_handle = t2.handle,
					   .len = 4 << 20 };
		struct fdma_ioc_copy_submit s = { .chan = (uint32_t)d2.mem, .count = 1,
						  .copies = (uintptr_t)&c };

		if (ioctl(d2.fd, FDMA_IOC_COPY, &s)) {
			vt_fail(T, "copy %d: %s", i, strerror(errno));
			return;
		}
	}
	vi_close(&d2);
	/* A mapping keeps its buffer (as it should): let go of them too. */
	munmap(s2.p, s2.size);
	munmap(t2.p, t2.size);

	/* Killed with copies in flight. */
	pid = fork();
	if (pid == 0) {
		struct vi_dev d3;
		struct vi_buf a, b;

		if (vi_open(&d3, d.name) || vi_cq_map(&d3, d3.mem) || vi_alloc(&d3, 4 << 20, &a) ||
		    vi_alloc(&d3, 4 << 20, &b))
			_exit(1);
		for (;;) {
			struct fdma_ioc_copy c = { .src_handle = a.handle, .dst_handle = b.handle,
						   .len = 1 << 20 };
			struct fdma_ioc_copy_submit s = { .chan = (uint32_t)d3.mem, .count = 1,
							  .copies = (uintptr_t)&c };

			if (ioctl(d3.fd, FDMA_IOC_COPY, &s) && errno != EAGAIN)
				_exit(2);
			vi_cq_take(&d3, d3.mem, NULL, 64);
		}
	}
	usleep(300000);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	if (!WIFSIGNALED(st)) {
		vt_fail(T, "the copying child ended by itself (status %d)", st);
		return;
	}
	/* A killed task's files may be released by a work item: give it 5 s. */
	for (int i = 0; i < 500 && (vi_nbufs(d.name) != bufs0 || vi_pinned(d.name) != pinned0); i++)
		usleep(10000);
	if (vi_nbufs(d.name) != bufs0 || vi_pinned(d.name) != pinned0) {
		vt_fail(T, "buffers %lld (was %lld), pinned %lld (was %lld)", vi_nbufs(d.name),
			bufs0, vi_pinned(d.name), pinned0);
		return;
	}
	vt_pass(T);
}

int main(void)
{
	struct vi_buf src, dst;
	int ret = vi_open(&d, NULL);

	if (ret) {
		vt_fail("dmac", "open: %s", strerror(-ret));
		return 1;
	}
	if (d.mem < 0 || vi_cq_map(&d, d.mem)) {
		vt_fail("dmac", "no memory-to-memory channel, or its queue: %s", strerror(errno));
		return 1;
	}
	if (vi_alloc(&d, 4 << 20, &src) || vi_alloc(&d, 4 << 20, &dst)) {
		vt_fail("dmac", "two 4 MiB buffers: %s", strerror(errno));
		return 1;
	}
	t_info();
	t_batch(&src, &dst);
	t_eventfd(&src, &dst);
	t_sigio(&src, &dst);
	t_split(&src, &dst);
	t_reset(&src, &dst);
	vi_free(&d, &src);
	vi_free(&d, &dst);
	t_close();
	/* After all that, the node still copies. */
	if (vi_alloc(&d, 1 << 20, &src) || vi_alloc(&d, 1 << 20, &dst) ||
	    copies("dmac_after", &src, &dst, 16, 65536, 10, 1))
		return 0;
	vt_pass("dmac_after");
	return 0;
}
