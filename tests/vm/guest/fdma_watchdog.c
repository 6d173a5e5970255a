// SPDX-License-Identifier: MIT
/*
 * A lost interrupt on the ioctl path: the completion still arrives, by the
 * driver's watchdog, whatever the process waits with.
 *
 * For each way of waiting, the device model is told to lose the interrupt
 * of the next descriptor on a channel (through the driver's debugfs), one
 * request is submitted (16 MiB on the model paced at its link's speed:
 * some 40 ms, so that the wait begins before the completion), and the
 * process waits (at most 5 s) with:
 *   wd_poll       poll() on the device file
 *   wd_epoll      epoll_wait() on it
 *   wd_eventfd    poll() on the channel's eventfd (FDMA_IOC_CQ_EVENTFD)
 *   wd_sigio      the F_SETSIG real-time signal (sigtimedwait)
 *   wd_wait       FDMA_IOC_WAIT without a time limit (an alarm guards it)
 * Each must see the completion (the driver before the watchdog left all of
 * them waiting forever: only FDMA_IOC_WAIT with a timeout looked again),
 * with the right data, and the channel's lost_irqs must count each one.
 */
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "vmioc.h"

#define LEN	(16u << 20)	/* one request */
#define CHECK	65536		/* its bytes checked on the card */
#define CARD(k)	((96ull << 20) + (uint64_t)(k) * LEN)

static struct vi_dev d;
static struct vi_buf b;
static int ch, missed;
static struct fdma_ioc_stats before;
static char summary[512];

/* Arm the fault, submit one H2C request; 0 or -errno. */
static int start(const char *T, uint64_t k)
{
	struct fdma_ioc_req r = { .handle = b.handle, .offset = 0,
				  .card_addr = CARD(k), .len = LEN, .user_data = k };
	int ret = vi_fault(d.name, "irq", ch, 1);

	if (ret) {
		vt_fail(T, "arming the model's lost interrupt: %s", strerror(-ret));
		return ret;
	}
	vt_fill(b.p, CHECK, k);
	vi_stats(&d, ch, &before);
	ret = vi_submit(&d, ch, &r, 1);
	if (ret)
		vt_fail(T, "submit: %s", strerror(-ret));
	return ret;
}

/* The entry is there, right; the card holds the bytes. */
static void finish(const char *T, uint64_t k, double t0, int woke)
{
	struct fdma_cq_entry e = { 0 };
	double ms = vi_ms() - t0;
	struct fdma_ioc_stats st;

	vi_stats(&d, ch, &st);
	snprintf(summary + strlen(summary), sizeof(summary) - strlen(summary),
		 "%s%s %llu irqs %llu lost %llu reaps %.0f ms", *summary ? "; " : "", T,
		 (unsigned long long)(st.interrupts - before.interrupts),
		 (unsigned long long)(st.lost_irqs - before.lost_irqs),
		 (unsigned long long)(st.wd_reaps - before.wd_reaps), ms);
	/*
	 * FDMA_IOC_WAIT looks at the ring before it sleeps: if the request
	 * was done by then (a slow guest), it found it without the watchdog,
	 * and nothing was lost.
	 */
	if (st.lost_irqs == before.lost_irqs &&
	    !(!strcmp(T, "wd_wait") && st.wd_reaps == before.wd_reaps && st.interrupts == before.interrupts))
		missed++;
	if (!woke) {
		vt_fail(T, "no completion within 5 s after a lost interrupt");
		return;
	}
	if (vi_cq_take(&d, ch, &e, 1) != 1 || e.res || e.user_data != k) {
		vt_fail(T, "woken, but the queue does not hold the completion");
		return;
	}
	vt_info("%s: completion after a lost interrupt seen after %.0f ms", T, ms);
	vt_pass(T);
}

static void *waiter(void *arg)
{
	uint32_t ready = 0;

	*(int *)arg = vi_wait(&d, ch, 1, -1, &ready);
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	printf("VMTEST FAIL wd_wait: FDMA_IOC_WAIT without a time limit never returned after a lost interrupt\n");
	fflush(stdout);
	_exit(1);
}

int main(void)
{
	struct fdma_ioc_stats s0, s1;
	struct pollfd pfd;
	double t0;
	int ret, k = 0;

	ret = vi_open(&d, NULL);
	ch = d.h2c;
	if (ret || ch < 0 || vi_cq_map(&d, ch) || vi_alloc(&d, LEN, &b)) {
		vt_fail("wd_poll", "open, map, allocate: %s", strerror(ret ? -ret : errno));
		return 1;
	}
	/*
	 * Only the drain rule interrupts (one interrupt per request, however
	 * many descriptors it takes): that one is lost.
	 */
	if (vi_model_ctr(d.name, "faults") < 0 || vi_model(d.name, "pace on") ||
	    vi_coalesce(&d, ch, 65536, 0)) {
		vt_fail("wd_poll", "no model test block in debugfs (%s/%s/model)", VI_DEBUGFS, d.name);
		return 1;
	}
	vi_stats(&d, ch, &s0);

	/* poll() on the device file */
	if (!start("wd_poll", ++k)) {
		pfd = (struct pollfd){ .fd = d.fd, .events = POLLIN };
		t0 = vi_ms();
		finish("wd_poll", k, t0, poll(&pfd, 1, 5000) == 1 && (pfd.revents & POLLIN));
	}

	/* epoll */
	if (!start("wd_epoll", ++k)) {
		struct epoll_event ev = { .events = EPOLLIN }, out;
		int ep = epoll_create1(EPOLL_CLOEXEC);

		t0 = vi_ms();
		if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, d.fd, &ev))
			vt_fail("wd_epoll", "epoll: %s", strerror(errno));
		else
			finish("wd_epoll", k, t0, epoll_wait(ep, &out, 1, 5000) == 1);
		close(ep);
	}

	/* the channel's eventfd */
	{
		int efd = eventfd(0, EFD_CLOEXEC);
		struct fdma_ioc_cq_eventfd e = { .chan = (uint32_t)ch, .fd = efd };

		if (efd < 0 || ioctl(d.fd, FDMA_IOC_CQ_EVENTFD, &e)) {
			vt_fail("wd_eventfd", "FDMA_IOC_CQ_EVENTFD: %s", strerror(errno));
		} else if (!start("wd_eventfd", ++k)) {
			pfd = (struct pollfd){ .fd = efd, .events = POLLIN };
			t0 = vi_ms();
			finish("wd_eventfd", k, t0, poll(&pfd, 1, 5000) == 1);
		}
		e.fd = -1;
		ioctl(d.fd, FDMA_IOC_CQ_EVENTFD, &e);
		close(efd);
	}

	/* SIGIO as a real-time signal */
	{
		int sig = SIGRTMIN + 3;
		struct timespec to = { .tv_sec = 5 };
		sigset_t set;

		sigemptyset(&set);
		sigaddset(&set, sig);
		sigprocmask(SIG_BLOCK, &set, NULL);
		if (fcntl(d.fd, F_SETOWN, getpid()) || fcntl(d.fd, F_SETSIG, sig) ||
		    fcntl(d.fd, F_SETFL, fcntl(d.fd, F_GETFL) | O_ASYNC)) {
			vt_fail("wd_sigio", "fcntl: %s", strerror(errno));
		} else if (!start("wd_sigio", ++k)) {
			t0 = vi_ms();
			finish("wd_sigio", k, t0, sigtimedwait(&set, NULL, &to) == sig);
		}
		fcntl(d.fd, F_SETFL, fcntl(d.fd, F_GETFL) & ~O_ASYNC);
	}

	/* FDMA_IOC_WAIT with no time limit, in a thread; an alarm fails it if it hangs. */
	if (!start("wd_wait", ++k)) {
		pthread_t th;
		int res = 1;

		signal(SIGALRM, on_alarm);
		alarm(10);
		t0 = vi_ms();
		pthread_create(&th, NULL, waiter, &res);
		pthread_join(th, NULL);
		alarm(0);
		finish("wd_wait", k, t0, res == 0);
	}

	vi_model(d.name, "pace cfg");
	vi_coalesce(&d, ch, 0, 0);
	/* The bytes arrived, every request's (the first CHECK of each). */
	{
		uint8_t *back = malloc(CHECK);
		int bad = 0;

		for (int i = 1; back && i <= k; i++)
			if (pread(d.fd, back, CHECK, (off_t)CARD(i)) != CHECK ||
			    vt_check(back, CHECK, (uint64_t)i) >= 0)
				bad++;
		if (!back || bad)
			vt_fail("wd_data", "%d of %d requests left wrong bytes on the card", bad, k);
		else
			vt_pass("wd_data");
		free(back);
	}

	/* Every one was counted as a lost interrupt. */
	vi_stats(&d, ch, &s1);
	vt_info("%s", summary);
	if (missed)
		vt_fail("wd_lost_irqs", "%llu lost interrupts counted for %d lost (%d not counted): %s",
			(unsigned long long)(s1.lost_irqs - s0.lost_irqs), k, missed, summary);
	else if (s1.resets != s0.resets || s1.errors != s0.errors)
		vt_fail("wd_lost_irqs", "%llu resets and %llu errors: a lost interrupt must cost neither",
			(unsigned long long)(s1.resets - s0.resets),
			(unsigned long long)(s1.errors - s0.errors));
	else
		vt_pass("wd_lost_irqs");
	vi_free(&d, &b);
	vi_close(&d);
	return vt_failed;
}
