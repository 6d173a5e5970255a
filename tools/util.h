/* SPDX-License-Identifier: MIT */
/* Helpers shared by the fdma subcommands. */
#ifndef FDMA_TOOL_UTIL_H
#define FDMA_TOOL_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "fdma.h"

/* Exit statuses of every subcommand. */
#define EXIT_OK		0
#define EXIT_FAIL	1
#define EXIT_USAGE	2

double tool_now(void);			/* CLOCK_MONOTONIC, seconds */
double tool_thread_cpu(void);		/* this thread's CPU time, seconds */
int tool_parse_size(const char *s, uint64_t *out);	/* 4K, 1M, 0x40, ... */
/* "4K,64K,1M" or "4K..4M" (powers of two between); returns count or -1. */
int tool_parse_sizes(const char *s, uint64_t *out, int max);
void tool_fmt_size(uint64_t v, char *buf, size_t len);	/* 65536 -> "64K" */
int tool_open(const char *uri, struct fdma_dev **dev);	/* prints the error */
int tool_parse_wait(const char *s, enum fdma_wait_mode *w);	/* spin|sleep|adaptive */

/* Latency samples, in microseconds. */
struct tool_lat {
	double *v;
	size_t n, cap;
};
void tool_lat_add(struct tool_lat *l, double us);
double tool_lat_pct(struct tool_lat *l, double pct);	/* sorts; 0 if empty */
void tool_lat_free(struct tool_lat *l);

/*
 * Test pattern: 64-bit words, word i of a block tagged t is base(t) + i, so
 * a stale buffer (other tag), a shifted copy (other i) or zeros all fail.
 */
void tool_pat_fill(void *p, size_t len, uint64_t tag);
/* Bytes that differ from the pattern (0 if all match). */
size_t tool_pat_check(const void *p, size_t len, uint64_t tag);

#endif
