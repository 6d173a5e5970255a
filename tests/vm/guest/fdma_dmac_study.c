// SPDX-License-Identifier: MIT
/*
 * The comparison of docs/studies/dmaengine.md: memcpy through fdma_dmac.ko
 * at a fixed transfer rate, completion waited for three ways, with the
 * guest's own CPU accounting.
 *
 *   fdma_dmac_study MODE SIZE RATE SECONDS
 *
 * MODE
 *   sync    one copy per FDMA_IOC_COPY on a node loaded with sync_wait=1
 *           (the driver spins in dma_sync_wait() inside the call), then
 *           FDMA_IOC_WAIT (already complete) and the entry taken;
 *   async   batches of 32 copies per FDMA_IOC_COPY, coalescing 32 (one
 *           callback per batch), completions announced through the
 *           queue's eventfd, waited for with epoll;
 *   signal  the same batches, completions announced by a real-time signal
 *           (O_ASYNC, F_SETSIG), waited for with sigtimedwait().
 * SIZE bytes per copy, RATE copies per second (paced with absolute
 * sleeps: the same rate in every mode), SECONDS of measurement.
 *
 * Prints one line "STUDY {json}": the rate reached; the guest's CPU, all
 * tasks of all CPUs but the idle task, from /proc/schedstat (the time
 * tasks ran, in ns: kernel threads, work items and interrupts they
 * absorbed included), as a share of one CPU's time; the same from
 * /proc/stat's ticks (tick-sampled: coarse, and biased under emulation,
 * printed for comparison); this process's CPU (getrusage); system calls
 * and callbacks per copy (the driver's counters). Every byte of every slot is
 * checked once the run is over (not in the measured loop: checking is not
 * what is measured). Exit 0, or 1 with "STUDY-ERROR why".
 */
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>

#include "vmioc.h"

#define BATCH 32

static struct vi_dev d;

/* Non-idle jiffies of all CPUs, and the count of CPUs. */
static long long busy_ticks(int *ncpu)
{
	unsigned long long u, n, s, idle, io, irq, sirq, st;
	char line[256];
	FILE *f = fopen("/proc/stat", "r");
	long long busy = -1;

	*ncpu = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu ", 4) &&
		    sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &u, &n, &s, &idle,
			   &io, &irq, &sirq, &st) == 8)
			busy = (long long)(u + n + s + irq + sirq + st);
		else if (!strncmp(line, "cpu", 3))
			(*ncpu)++;
	}
	fclose(f);
	return busy;
}

/* Nanoseconds tasks other than idle ran, all CPUs (/proc/schedstat). */
static long long run_ns(void)
{
	char line[512];
	FILE *f = fopen("/proc/schedstat", "r");
	long long sum = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[7];

		if (strncmp(line, "cpu", 3) ||
		    sscanf(strchr(line, ' '), "%llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
			   &v[2], &v[3], &v[4], &v[5], &v[6]) != 7)
			continue;
		sum = (sum < 0 ? 0 : sum) + (long long)v[6];
	}
	fclose(f);
	return sum;
}

static double proc_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void ts_add(struct timespec *t, double s)
{
	long long ns = t->tv_nsec + (long long)(s * 1e9);

	t->tv_sec += ns / 1000000000LL;
	t->tv_nsec = ns % 1000000000LL;
}

static int die(const char *what)
{
	printf("STUDY-ERROR %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct fdma_ioc_cq_eventfd ce = { 0 };
	struct fdma_ioc_stats st0, st1;
	struct fdma_ioc_copy c[BATCH];
	struct fdma_cq_entry e[BATCH];
	struct vi_buf src, dst;
	struct timespec next;
	const char *mode;
	long long b0, b1, r0, r1, hz = sysconf(_SC_CLK_TCK);
	double t0, t1, p0, p1, secs, rate;
	int ncpu, efd = -1, ep = -1, sig = SIGRTMIN + 2, batch;
	unsigned long long done = 0, calls = 0;
	uint64_t size;
	sigset_t set;

	if (argc != 5) {
		fprintf(stderr, "usage: %s sync|async|signal SIZE RATE SECONDS\n", argv[0]);
		return 2;
	}
	mode = argv[1];
	size = strtoull(argv[2], NULL, 0);
	rate = atof(argv[3]);
	secs = atof(argv[4]);
	batch = strcmp(mode, "sync") ? BATCH : 1;
	if (vi_open(&d, NULL) || d.mem < 0 || vi_cq_map(&d, d.mem))
		return die("open the node, its copy channel and queue");
	if (vi_alloc(&d, size * BATCH, &src) || vi_alloc(&d, size * BATCH, &dst))
		return die("two buffers");
	vt_fill(src.p, size * BATCH, 42);
	memset(dst.p, 0, size * BATCH);
	for (int i = 0; i < BATCH; i++)
		c[i] = (struct fdma_ioc_copy){ .src_handle = src.handle, .dst_handle = dst.handle,
					       .src_offset = i * size, .dst_offset = i * size,
					       .len = size, .user_data = (uint64_t)i };
	if (vi_coalesce(&d, d.mem, (uint32_t)batch, 0))
		return die("coalescing");
	sigemptyset(&set);
	sigaddset(&set, sig);
	if (!strcmp(mode, "async")) {
		struct epoll_event ev = { .events = EPOLLIN };

		efd = eventfd(0, EFD_NONBLOCK);
		ep = epoll_create1(0);
		ce.chan = (uint32_t)d.mem;
		ce.fd = efd;
		if (efd < 0 || ep < 0 || ioctl(d.fd, FDMA_IOC_CQ_EVENTFD, &ce) ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev))
			return die("eventfd");
	} else if (!strcmp(mode, "signal")) {
		sigprocmask(SIG_BLOCK, &set, NULL);
		if (fcntl(d.fd, F_SETOWN, getpid()) || fcntl(d.fd, F_SETSIG, sig) ||
		    fcntl(d.fd, F_SETFL, fcntl(d.fd, F_GETFL) | O_ASYNC))
			return die("O_ASYNC");
	} else if (strcmp(mode, "sync")) {
		fprintf(stderr, "mode: sync, async or signal\n");
		return 2;
	}

	vi_stats(&d, d.mem, &st0);
	b0 = busy_ticks(&ncpu);
	r0 = run_ns();
	p0 = proc_cpu_s();
	t0 = vi_ms();
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (vi_ms() - t0 < secs * 1000) {
		int got = 0;

		/* The same copies per second in every mode: a batch every batch/rate s. */
		ts_add(&next, batch / rate);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		if (vi_copy(&d, d.mem, c, (uint32_t)batch))
			return die("FDMA_IOC_COPY");
		calls++;
		while (got < batch) {
			if (!strcmp(mode, "sync")) {
				if (vi_wait(&d, d.mem, 1, 5000000, NULL))
					return die("FDMA_IOC_WAIT");
				calls++;
			} else if (!strcmp(mode, "async")) {
				struct epoll_event ev;
				uint64_t v;

				if (epoll_wait(ep, &ev, 1, 5000) != 1)
					return die("epoll_wait");
				if (read(efd, &v, sizeof(v)) != sizeof(v))
					return die("read eventfd");
				calls += 2;
			} else {
				struct timespec tmo = { .tv_sec = 5 };
				siginfo_t si;

				if (sigtimedwait(&set, &si, &tmo) != sig)
					return die("sigtimedwait");
				calls++;
			}
			got += vi_cq_take(&d, d.mem, e + got, batch - got);
		}
		for (int i = 0; i < batch; i++)
			if (e[i].res) {
				errno = -e[i].res;
				return die("a copy failed");
			}
		done += (unsigned long long)batch;
	}
	t1 = vi_ms();
	p1 = proc_cpu_s();
	r1 = run_ns();
	b1 = busy_ticks(&ncpu);
	vi_stats(&d, d.mem, &st1);
	{
		long bad = vt_check(dst.p, size * (uint64_t)batch, 42);

		if (bad >= 0) {
			printf("STUDY-ERROR byte %ld of the destination differs\n", bad);
			return 1;
		}
	}
	printf("STUDY {\"mode\":\"%s\",\"size\":%llu,\"rate\":%.0f,\"copies_per_s\":%.1f,"
	       "\"guest_cpu_pct\":%.2f,\"guest_tick_cpu_pct\":%.2f,\"process_cpu_pct\":%.2f,\"cpus\":%d,"
	       "\"syscalls_per_copy\":%.3f,\"callbacks_per_copy\":%.3f,\"issue_pending_per_copy\":%.3f,"
	       "\"copies\":%llu,\"bytes_checked\":%llu}\n",
	       mode, (unsigned long long)size, rate, done * 1000.0 / (t1 - t0),
	       r0 < 0 ? -1.0 : 100.0 * (double)(r1 - r0) / 1e6 / (t1 - t0),
	       100.0 * (double)(b1 - b0) / (double)hz / ((t1 - t0) / 1000.0),
	       100.0 * (p1 - p0) / ((t1 - t0) / 1000.0), ncpu, (double)calls / (double)done,
	       (double)(st1.interrupts - st0.interrupts) / (double)done,
	       (double)(st1.doorbells - st0.doorbells) / (double)done, done,
	       (unsigned long long)(size * (uint64_t)batch));
	return 0;
}
