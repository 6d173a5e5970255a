// SPDX-License-Identifier: MIT
/*
 * Readiness of completions without FDMA_IOC_WAIT.
 *
 * ioc_poll: poll() and epoll (level- and edge-triggered) report the file
 *   readable exactly while one of its completion queues holds an entry
 *   (head != tail): not before a submission, within a bound after it, not
 *   after the entry is consumed; a file with nothing submitted stays quiet
 *   while another file's transfers complete.
 * ioc_fasync: two open files of the device in one process, each with
 *   O_ASYNC and its own real-time signal (F_SETSIG SIGRTMIN+1 and
 *   SIGRTMIN+2): a completion on one delivers that file's signal only,
 *   with si_fd naming the file and si_code POLL_IN.
 * ioc_cq_eventfd: an eventfd per (file, channel) with FDMA_IOC_CQ_EVENTFD:
 *   a completion on H2C signals H2C's eventfd only, one on C2H C2H's only;
 *   one attached while an entry is already queued is signalled at once; a
 *   detached one stays quiet; replacing one moves the signal to the new fd.
 */
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "vmioc.h"

static struct vi_dev d, d2;

/* One 4 KiB H2C request from buffer b; 0 or -errno. */
static int one(struct vi_dev *v, struct vi_buf *b, uint64_t tag)
{
	struct fdma_ioc_req r = { .handle = b->handle, .len = 4096, .card_addr = 1 << 20,
				  .user_data = tag };

	return vi_submit(v, v->h2c, &r, 1);
}

static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, ms);

	return n > 0 && (p.revents & POLLIN);
}

static void poll_test(void)
{
	const char *T = "ioc_poll";
	struct epoll_event ev = { .events = EPOLLIN }, out;
	struct fdma_cq_entry e;
	struct vi_buf b, b2;
	int ep = -1, ep_et = -1;

	if (vi_alloc(&d, 4096, &b) || vi_alloc(&d2, 4096, &b2)) {
		vt_fail(T, "allocate: %s", strerror(errno));
		return;
	}
	if (readable(d.fd, 0)) {
		vt_fail(T, "readable before anything was submitted");
		goto out;
	}
	if (one(&d, &b, 1)) {
		vt_fail(T, "submit: %s", strerror(errno));
		goto out;
	}
	if (!readable(d.fd, 5000)) {
		vt_fail(T, "not readable within 5 s of a submission");
		goto out;
	}
	if (readable(d2.fd, 0)) {
		vt_fail(T, "another file of the device became readable");
		goto out;
	}
	if (vi_cq_take(&d, d.h2c, &e, 1) != 1 || e.user_data != 1 || e.res) {
		vt_fail(T, "the entry: user_data %llu, res %d", (unsigned long long)e.user_data,
			e.res);
		goto out;
	}
	if (readable(d.fd, 0)) {
		vt_fail(T, "still readable after the entry was consumed");
		goto out;
	}

	ep = epoll_create1(0);
	ep_et = epoll_create1(0);
	ev.data.u32 = 1;
	if (ep < 0 || ep_et < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, d.fd, &ev)) {
		vt_fail(T, "epoll: %s", strerror(errno));
		goto out;
	}
	ev.events = EPOLLIN | EPOLLET;
	if (epoll_ctl(ep_et, EPOLL_CTL_ADD, d.fd, &ev)) {
		vt_fail(T, "epoll (edge): %s", strerror(errno));
		goto out;
	}
	if (epoll_wait(ep, &out, 1, 0) != 0 || epoll_wait(ep_et, &out, 1, 0) != 0) {
		vt_fail(T, "epoll reports an empty queue");
		goto out;
	}
	if (one(&d, &b, 2)) {
		vt_fail(T, "submit: %s", strerror(errno));
		goto out;
	}
	if (epoll_wait(ep, &out, 1, 5000) != 1 || !(out.events & EPOLLIN)) {
		vt_fail(T, "epoll: no EPOLLIN within 5 s of a submission");
		goto out;
	}
	if (epoll_wait(ep_et, &out, 1, 5000) != 1 || epoll_wait(ep_et, &out, 1, 0) != 0) {
		vt_fail(T, "edge-triggered epoll: not exactly one event");
		goto out;
	}
	/* Level-triggered: still there until consumed. */
	if (epoll_wait(ep, &out, 1, 0) != 1) {
		vt_fail(T, "level-triggered epoll lost the event before consumption");
		goto out;
	}
	vi_cq_take(&d, d.h2c, &e, 1);
	if (epoll_wait(ep, &out, 1, 0) != 0) {
		vt_fail(T, "epoll still reports after consumption");
		goto out;
	}
	/* A second file's completion does not wake the first. */
	if (one(&d2, &b2, 3) || !readable(d2.fd, 5000) || epoll_wait(ep, &out, 1, 200) != 0) {
		vt_fail(T, "second file: readable %d, first file's epoll woke", readable(d2.fd, 0));
		goto out;
	}
	vi_cq_take(&d2, d2.h2c, &e, 1);
	vt_pass(T);
out:
	if (ep >= 0)
		close(ep);
	if (ep_et >= 0)
		close(ep_et);
	vi_free(&d, &b);
	vi_free(&d2, &b2);
}

static int arm(int fd, int sig)
{
	return fcntl(fd, F_SETOWN, getpid()) || fcntl(fd, F_SETSIG, sig) ||
	       fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC);
}

/* Wait for one signal of set; returns it (info filled) or -1. */
static int next_sig(const sigset_t *set, siginfo_t *info, int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	return sigtimedwait(set, info, &ts);
}

static void fasync_test(void)
{
	const char *T = "ioc_fasync";
	int s1 = SIGRTMIN + 1, s2 = SIGRTMIN + 2;
	struct fdma_cq_entry e;
	struct vi_buf b1, b2;
	siginfo_t si;
	sigset_t set;
	int got, n1 = 0, n2 = 0;

	sigemptyset(&set);
	sigaddset(&set, s1);
	sigaddset(&set, s2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (vi_alloc(&d, 4096, &b1) || vi_alloc(&d2, 4096, &b2)) {
		vt_fail(T, "allocate: %s", strerror(errno));
		return;
	}
	if (arm(d.fd, s1) || arm(d2.fd, s2)) {
		vt_fail(T, "F_SETOWN/F_SETSIG/O_ASYNC: %s", strerror(errno));
		goto out;
	}
	for (int round = 0; round < 4; round++) {
		struct vi_dev *v = round & 1 ? &d2 : &d;
		int want = round & 1 ? s2 : s1, other = round & 1 ? s1 : s2;

		if (one(v, round & 1 ? &b2 : &b1, 10 + round)) {
			vt_fail(T, "submit: %s", strerror(errno));
			goto out;
		}
		got = next_sig(&set, &si, 5000);
		if (got != want) {
			vt_fail(T, "round %d: %s signal %d, expected SIGRTMIN+%d", round,
				got < 0 ? "no" : "got", got, want - SIGRTMIN);
			goto out;
		}
		if (si.si_fd != v->fd || si.si_code != POLL_IN) {
			vt_fail(T, "round %d: si_fd %d (file %d), si_code %d (POLL_IN %d)", round,
				si.si_fd, v->fd, si.si_code, POLL_IN);
			goto out;
		}
		if (round & 1)
			n2++;
		else
			n1++;
		vi_cq_take(v, v->h2c, &e, 1);
		/* More of the same signal may be queued; never the other one. */
		while ((got = next_sig(&set, &si, 100)) == want)
			;
		if (got == other) {
			vt_fail(T, "round %d: the other file's signal SIGRTMIN+%d arrived too",
				round, other - SIGRTMIN);
			goto out;
		}
	}
	vt_info("SIGRTMIN+1 for file %d x %d, SIGRTMIN+2 for file %d x %d, each with its si_fd",
		d.fd, n1, d2.fd, n2);
	vt_pass(T);
out:
	fcntl(d.fd, F_SETFL, fcntl(d.fd, F_GETFL) & ~O_ASYNC);
	fcntl(d2.fd, F_SETFL, fcntl(d2.fd, F_GETFL) & ~O_ASYNC);
	vi_free(&d, &b1);
	vi_free(&d2, &b2);
}

static int attach(struct vi_dev *v, int ch, int fd)
{
	struct fdma_ioc_cq_eventfd e = { .chan = (uint32_t)ch, .fd = fd };

	return ioctl(v->fd, FDMA_IOC_CQ_EVENTFD, &e);
}

/* The eventfd's count (0 if not signalled); it is reset by the read. */
static uint64_t count(int efd)
{
	uint64_t v = 0;

	if (read(efd, &v, sizeof(v)) != sizeof(v))
		return 0;
	return v;
}

static void eventfd_test(void)
{
	const char *T = "ioc_cq_eventfd";
	int eh = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), ec = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	int e2 = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	struct fdma_cq_entry e;
	struct fdma_ioc_req r;
	struct vi_buf b;

	if (eh < 0 || ec < 0 || e2 < 0 || vi_alloc(&d, 4096, &b) || vi_cq_map(&d, d.c2h)) {
		vt_fail(T, "set-up: %s", strerror(errno));
		return;
	}
	if (attach(&d, d.h2c, eh) || attach(&d, d.c2h, ec)) {
		vt_fail(T, "attach: %s", strerror(errno));
		goto out;
	}
	/* H2C: its fd, not C2H's. */
	if (one(&d, &b, 10) || !readable(eh, 5000) || readable(ec, 100)) {
		vt_fail(T, "H2C completion: H2C fd %d, C2H fd %d", readable(eh, 0), readable(ec, 0));
		goto out;
	}
	count(eh);
	vi_cq_take(&d, d.h2c, &e, 1);
	/* C2H: its fd, not H2C's. */
	r = (struct fdma_ioc_req){ .handle = b.handle, .len = 4096, .card_addr = 1 << 20,
				   .user_data = 11 };
	if (vi_submit(&d, d.c2h, &r, 1) || !readable(ec, 5000) || readable(eh, 100)) {
		vt_fail(T, "C2H completion: C2H fd %d, H2C fd %d", readable(ec, 0), readable(eh, 0));
		goto out;
	}
	count(ec);
	vi_cq_take(&d, d.c2h, &e, 1);
	/* Detached: quiet, though the file polls readable. */
	if (attach(&d, d.h2c, -1) || one(&d, &b, 12) || !readable(d.fd, 5000) || readable(eh, 100)) {
		vt_fail(T, "detached: file %d, eventfd %d", readable(d.fd, 0), readable(eh, 0));
		goto out;
	}
	/* Attached while the entry is queued: signalled at once. */
	if (attach(&d, d.h2c, e2) || !readable(e2, 0)) {
		vt_fail(T, "attached with an entry queued: not signalled");
		goto out;
	}
	count(e2);
	vi_cq_take(&d, d.h2c, &e, 1);
	/* Replaced: the new fd hears, the old one not. */
	if (attach(&d, d.h2c, eh) || one(&d, &b, 13) || !readable(eh, 5000) || readable(e2, 100)) {
		vt_fail(T, "replaced: new fd %d, old fd %d", readable(eh, 0), readable(e2, 0));
		goto out;
	}
	vi_cq_take(&d, d.h2c, &e, 1);
	vt_pass(T);
out:
	/* Detach before closing; closing the file would drop them too. */
	attach(&d, d.h2c, -1);
	attach(&d, d.c2h, -1);
	close(eh);
	close(ec);
	close(e2);
	vi_free(&d, &b);
}

int main(void)
{
	int ret = vi_open(&d, NULL);

	if (!ret)
		ret = vi_open(&d2, d.name);
	if (ret || d.h2c < 0 || vi_cq_map(&d, d.h2c) || vi_cq_map(&d2, d.h2c)) {
		vt_fail("ioc_poll", "open the device twice and map the queues: %s",
			strerror(ret ? -ret : errno));
		return 1;
	}
	poll_test();
	fasync_test();
	eventfd_test();
	vi_close(&d);
	vi_close(&d2);
	return vt_failed;
}
