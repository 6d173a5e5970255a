// SPDX-License-Identifier: MIT
/*
 * threads_bench: do threads on different channels slow each other down
 * inside libfdma? Runs 1 thread, then 2 threads, each on its own channel
 * of one unpaced simulated device, and prints one JSON line per run:
 *
 *   calls    each thread calls fdma_inflight() (the handle and channel
 *            checks every call makes, and nothing else) as fast as it can;
 *   xfer     each thread moves small transfers on its own memory-mapped
 *            channel (H2C for thread 0, C2H for thread 1): submit a batch,
 *            spin-reap it, every byte of every transfer checked afterwards
 *            by a read back.
 *
 * Per thread: calls (or transfers) per second of wall time and per second
 * of the thread's own CPU time. Built and run by threads.sh against the
 * public library only.
 *
 *   threads_bench [SECONDS] [SIZE] [BATCH] [spin|sleep]
 *
 * Spin waiting (the default) needs a core per spinning thread besides the
 * model's threads: on a machine with fewer cores the figures measure the
 * scheduler, and sleep is the fairer mode there.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fdma.h"

static double secs;
static unsigned int size = 256, batch = 8;
static enum fdma_wait_mode wait_mode = FDMA_WAIT_SPIN;

struct worker {
	struct fdma_dev *dev;
	int ch, buf, mode;	/* mode 0: calls, 1: transfers */
	pthread_barrier_t *start;
	unsigned long long n;
	double wall, cpu;
	int err;
};

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	struct fdma_req r[64];
	struct fdma_cpl c[64];
	double t0, c0, end;

	for (unsigned int i = 0; i < batch; i++)
		r[i] = (struct fdma_req){ .buf = w->buf, .offset = (uint64_t)i * size,
					  .card_addr = (uint64_t)(w->ch * 64 + i) * size,
					  .len = size, .user_data = i };
	pthread_barrier_wait(w->start);
	t0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_THREAD_CPUTIME_ID);
	end = t0 + secs;
	while (now(CLOCK_MONOTONIC) < end) {
		if (w->mode == 0) {
			/* 1000 calls between clock reads: the clock must not dominate. */
			for (int i = 0; i < 1000; i++)
				if (fdma_inflight(w->dev, w->ch) < 0)
					w->err = -EIO;
			w->n += 1000;
			continue;
		}
		int ret = fdma_submit(w->dev, w->ch, r, batch);

		if (ret != (int)batch) {
			w->err = ret;
			break;
		}
		for (unsigned int got = 0; got < batch;) {
			ret = fdma_reap(w->dev, w->ch, c, 64, batch - got, 5000000);
			if (ret <= 0) {
				w->err = ret ? ret : -ETIMEDOUT;
				break;
			}
			for (int i = 0; i < ret; i++)
				if (c[i].res)
					w->err = c[i].res;
			got += (unsigned int)ret;
		}
		if (w->err)
			break;
		w->n += batch;
	}
	w->wall = now(CLOCK_MONOTONIC) - t0;
	w->cpu = now(CLOCK_THREAD_CPUTIME_ID) - c0;
	return NULL;
}

/* The pattern of thread t: byte i of its buffer. */
static unsigned char pat(int t, size_t i)
{
	return (unsigned char)(i * 7 + (size_t)t * 101 + 13);
}

static int bench(int mode, int nthreads)
{
	struct fdma_dev *dev;
	struct worker w[2] = { { 0 } };
	pthread_t th[2];
	pthread_barrier_t start;
	char err[256];
	double model0 = 0, model1 = 0;
	int ret, ch[2];

	ret = fdma_open(&dev, "sim:paced=0", err, sizeof(err));
	if (ret) {
		fprintf(stderr, "threads_bench: %s\n", err);
		return 1;
	}
	ch[0] = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MM);
	ch[1] = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM);
	pthread_barrier_init(&start, NULL, (unsigned int)nthreads);
	for (int t = 0; t < nthreads; t++) {
		unsigned char *p;

		w[t] = (struct worker){ .dev = dev, .ch = ch[t], .mode = mode, .start = &start };
		w[t].buf = fdma_buf_alloc(dev, (size_t)size * batch, 0);
		if (w[t].buf < 0 || fdma_chan_set_wait(dev, ch[t], wait_mode, 0)) {
			fprintf(stderr, "threads_bench: %s\n", fdma_errmsg(dev));
			return 1;
		}
		p = fdma_buf_addr(dev, w[t].buf);
		for (size_t i = 0; i < (size_t)size * batch; i++)
			p[i] = pat(t, i);
		/* Thread 1 reads card memory: give it the pattern there first. */
		if (t == 1 && fdma_write_card(dev, w[t].buf, 0, (uint64_t)ch[1] * 64 * size,
					      (uint64_t)size * batch)) {
			fprintf(stderr, "threads_bench: %s\n", fdma_errmsg(dev));
			return 1;
		}
	}
	fdma_model_cpu(dev, &model0);
	for (int t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, run, &w[t]);
	for (int t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	fdma_model_cpu(dev, &model1);
	pthread_barrier_destroy(&start);

	/* Every byte: thread 0's writes read back from the card, thread 1's reads in place. */
	for (int t = 0; t < nthreads && mode == 1; t++) {
		unsigned char *p = fdma_buf_addr(dev, w[t].buf);

		if (t == 0) {
			memset(p, 0, (size_t)size * batch);
			if (fdma_read_card(dev, w[0].buf, 0, (uint64_t)ch[0] * 64 * size,
					   (uint64_t)size * batch))
				w[0].err = -EIO;
		}
		for (size_t i = 0; i < (size_t)size * batch; i++)
			if (p[i] != pat(t, i)) {
				w[t].err = -EILSEQ;
				break;
			}
	}
	printf("{\"bench\":\"%s\",\"threads\":%d,\"size\":%u,\"batch\":%u,\"wait\":\"%s\",\"seconds\":%.2f",
	       mode ? "xfer" : "calls", nthreads, mode ? size : 0, mode ? batch : 0,
	       wait_mode == FDMA_WAIT_SPIN ? "spin" : "sleep", secs);
	for (int t = 0; t < nthreads; t++)
		printf(",\"t%d_per_s\":%.0f,\"t%d_per_cpu_s\":%.0f,\"t%d_cpu_pct\":%.1f", t,
		       w[t].n / w[t].wall, t, w[t].cpu > 0 ? w[t].n / w[t].cpu : 0.0, t,
		       100 * w[t].cpu / w[t].wall);
	printf(",\"model_cpu_pct\":%.1f,\"errors\":%d}\n", 100 * (model1 - model0) / secs,
	       (w[0].err != 0) + (w[1].err != 0));
	for (int t = 0; t < nthreads; t++)
		fdma_buf_free(dev, w[t].buf);
	fdma_close(dev);
	return w[0].err || w[1].err;
}

int main(int argc, char **argv)
{
	int bad = 0;

	secs = argc > 1 ? atof(argv[1]) : 2.0;
	if (argc > 2)
		size = (unsigned int)strtoul(argv[2], NULL, 0);
	if (argc > 3)
		batch = (unsigned int)strtoul(argv[3], NULL, 0);
	if (argc > 4)
		wait_mode = !strcmp(argv[4], "sleep") ? FDMA_WAIT_SLEEP :
			    !strcmp(argv[4], "spin") ? FDMA_WAIT_SPIN : (enum fdma_wait_mode)-1;
	if (secs <= 0 || size < 64 || size % 64 || batch < 1 || batch > 64 ||
	    (wait_mode != FDMA_WAIT_SPIN && wait_mode != FDMA_WAIT_SLEEP)) {
		fprintf(stderr, "usage: threads_bench [SECONDS>0] [SIZE: multiple of 64] [BATCH 1..64] [spin|sleep]\n");
		return 2;
	}
	for (int mode = 0; mode < 2; mode++)
		for (int n = 1; n <= 2; n++)
			bad |= bench(mode, n);
	return bad;
}
