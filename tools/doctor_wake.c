// SPDX-License-Identifier: MIT
/*
 * fdma doctor: what a wake-up costs on this machine, measured. A thread
 * that sleeps until its transfer's interrupt pays, every time, for the
 * interrupt's way to its CPU and the switch to it; where the waker runs
 * on another CPU that is an interrupt into that CPU (an IPI, or a VM's
 * injected interrupt), where it runs on the same CPU a context switch.
 * Two threads pass a token back and forth through eventfds, first on one
 * CPU, then on two: half a round trip is one wake-up. Per-packet or
 * per-transfer waiting pays the second figure per wake-up; batching and
 * coalescing pay it once per batch (docs/studies/net.md).
 *
 * Live only: a recorded tree (--sysroot) has no CPUs to measure.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "doctor.h"
#include "util.h"

#define ROUNDS		2000	/* about 0.1 s at 50 us a round trip */
#define WARMUP		100
/*
 * PCIE-FACTS.md: tens of us from an interrupt to a woken thread are typical,
 * so that much is worth knowing (info), and more than 50 us is a machine
 * whose CPUs sleep deeply or whose hypervisor is slow to deliver (warn).
 */
#define WAKE_INFO_US	10.0
#define WAKE_WARN_US	50.0

struct pingpong {
	int to_peer, to_main;	/* eventfds */
	int cpu_peer;
	int ret;
};

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *peer(void *arg)
{
	struct pingpong *p = arg;
	uint64_t v;

	p->ret = pin(p->cpu_peer);
	for (int i = 0; !p->ret && i < WARMUP + ROUNDS; i++) {
		/* A token is 1; more is the other thread giving up. */
		if (read(p->to_peer, &v, sizeof(v)) != sizeof(v) || v != 1) {
			p->ret = -1;
			break;
		}
		v = 1;
		if (write(p->to_main, &v, sizeof(v)) != sizeof(v))
			p->ret = -1;
	}
	if (p->ret) {
		/* Release the main thread wherever it waits (an eventfd this
		 * far from its 2^64 - 2 limit always takes a write). */
		v = 2;
		(void)!write(p->to_main, &v, sizeof(v));
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The median round trip, us, between a thread on cpu_main and one on
 * cpu_peer; NOT_PLACED where a thread cannot be put on its CPU, FAILED
 * where an eventfd, a thread or memory fails.
 */
#define FAILED		(-1.0)
#define NOT_PLACED	(-2.0)

static double round_trip_us(int cpu_main, int cpu_peer)
{
	struct pingpong p = { .cpu_peer = cpu_peer };
	double *t = calloc(ROUNDS, sizeof(*t));
	uint64_t v;
	cpu_set_t saved;
	double med = FAILED;
	pthread_t th;
	int i = 0;

	p.to_peer = eventfd(0, EFD_CLOEXEC);
	p.to_main = eventfd(0, EFD_CLOEXEC);
	if (!t || p.to_peer < 0 || p.to_main < 0 ||
	    pthread_getaffinity_np(pthread_self(), sizeof(saved), &saved))
		goto out;
	if (pin(cpu_main)) {
		med = NOT_PLACED;
		goto restore;
	}
	if (pthread_create(&th, NULL, peer, &p))
		goto restore;
	for (i = 0; i < WARMUP + ROUNDS; i++) {
		double t0 = tool_now();

		v = 1;
		if (write(p.to_peer, &v, sizeof(v)) != sizeof(v) ||
		    read(p.to_main, &v, sizeof(v)) != sizeof(v) || v != 1)
			break;
		if (i >= WARMUP)
			t[i - WARMUP] = tool_now() - t0;
	}
	if (i < WARMUP + ROUNDS) {
		/* Release the peer wherever it waits: it stops on a value that is not a token. */
		v = 2;
		/* An eventfd this far from its 2^64 - 2 limit always takes it. */
		(void)!write(p.to_peer, &v, sizeof(v));
	}
	pthread_join(th, NULL);
	if (p.ret > 0) {
		med = NOT_PLACED;	/* pthread_setaffinity_np()'s error */
	} else if (i == WARMUP + ROUNDS && !p.ret) {
		qsort(t, ROUNDS, sizeof(*t), cmp_double);
		med = t[ROUNDS / 2] * 1e6;
	}
restore:
	pthread_setaffinity_np(pthread_self(), sizeof(saved), &saved);
out:
	if (p.to_peer >= 0)
		close(p.to_peer);
	if (p.to_main >= 0)
		close(p.to_main);
	free(t);
	return med;
}

void doc_check_wakeup(struct doc_ctx *c)
{
	int cpu[2] = { -1, -1 }, n = 0;
	double same, cross = -1;
	char ex[160], s_same[24], s_cross[24];
	cpu_set_t set;

	if (!c->live)
		return;
	if (sched_getaffinity(0, sizeof(set), &set))
		CPU_ZERO(&set);
	for (int i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &set))
			cpu[n++] = i;
	same = n ? round_trip_us(cpu[0], cpu[0]) : -1;
	if (n == 2)
		cross = round_trip_us(cpu[0], cpu[1]);
	/* null: not measured */
	snprintf(s_same, sizeof(s_same), same < 0 ? "null" : "%.1f", same / 2);
	snprintf(s_cross, sizeof(s_cross), cross < 0 ? "null" : "%.1f", cross / 2);
	snprintf(ex, sizeof(ex), ",\"cpus\":[%d,%d],\"same_cpu_wake_us\":%s,\"cross_cpu_wake_us\":%s",
		 cpu[0], cpu[1], s_same, s_cross);
	if (same < 0 || cross == NOT_PLACED || (n == 2 && cross < 0)) {
		doc_add(c, "", "cpu.wakeup", DOC_INFO, NOFIX, ex,
			"could not measure a wake-up: %s",
			same == NOT_PLACED || cross == NOT_PLACED ?
			"a thread could not be placed on its CPU" :
			"out of threads, eventfds or memory");
	} else if (cross < 0) {
		doc_add(c, "", "cpu.wakeup", DOC_INFO, NOFIX, ex,
			"a wake-up on one CPU takes %.1f us; this process may use one CPU only, "
			"so a wake-up from another CPU was not measured", same / 2);
	} else if (cross / 2 > WAKE_INFO_US) {
		doc_add(c, "", "cpu.wakeup", cross / 2 > WAKE_WARN_US ? DOC_WARN : DOC_INFO,
			"batch and coalesce (fdma_chan_set_coalesce) or poll before sleeping "
			"(FDMA_WAIT_ADAPTIVE); on bare metal, shallower C-states or the "
			"performance governor",
			ex,
			"a thread woken from another CPU waits %.1f us (on its own CPU %.1f us): "
			"a wait per packet or per transfer pays it each time", cross / 2, same / 2);
	} else {
		doc_add(c, "", "cpu.wakeup", DOC_OK, NOFIX, ex,
			"a thread woken from another CPU waits %.1f us (on its own CPU %.1f us)",
			cross / 2, same / 2);
	}
}
