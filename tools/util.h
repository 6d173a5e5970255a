/* SPDX-License-Identifier: MIT */
/* Helpers shared by the fdma subcommands. */
#ifndef FDMA_TOOL_UTIL_H
#define FDMA_TOOL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fdma.h"

/* Exit statuses of every subcommand. */
#define EXIT_OK		0
#define EXIT_FAIL	1
#define EXIT_USAGE	2

double tool_now(void);			/* CLOCK_MONOTONIC, seconds */
double tool_thread_cpu(void);		/* this thread's CPU time, seconds */
/* The process's, all its threads (io_uring's workers among them), seconds. */
double tool_proc_cpu(void);
/*
 * CPU seconds the whole machine has spent busy, all CPUs together (from
 * /proc/stat: user, nice, system, irq, softirq, steal), or -1 without it.
 */
double tool_machine_busy(void);
int tool_parse_size(const char *s, uint64_t *out);	/* 4K, 1M, 0x40, ... */
/* "4K,64K,1M" or "4K..4M" (powers of two between); returns count or -1. */
int tool_parse_sizes(const char *s, uint64_t *out, int max);
void tool_fmt_size(uint64_t v, char *buf, size_t len);	/* 65536 -> "64K" */
int tool_open(const char *uri, struct fdma_dev **dev);	/* prints the error */
/*
 * The device a command works on: arg, or $FDMA_DEVICE when arg is NULL. A
 * device node (/dev/fdma0) or its name (fdma0) means kdev:, as fdma doctor
 * takes them. NULL, with the reason printed ("fdma CMD: ..."), when there
 * is neither. The result stays valid until the next call.
 */
const char *tool_uri(const char *cmd, const char *arg);
/*
 * s names a device by its scheme (sim, sim:..., rtl:..., kdev:...) or its
 * node (/dev/...), not a file: for commands that take a FILE beside it.
 */
int tool_is_uri(const char *s);
/*
 * After getopt's own line for an unknown option or a missing value: the
 * hint "try 'fdma CMD --help'" (not the whole usage). Returns EXIT_USAGE.
 */
int tool_usage_hint(const char *cmd);
/*
 * The device runs at its link's speed in real time, so the link model's
 * ceiling bounds what it measures: a card (kdev:) or a paced sim:, not an
 * unpaced one and not rtl:, whose link is paced in the RTL's clocks.
 */
int tool_realtime(const struct fdma_info *info);
/*
 * An attribute of a kdev: URI's class device, /sys/class/fdma/NAME/ATTR
 * (e.g. "backend", "ch0/source"), newline stripped: 0, or -errno (also
 * for another kind of URI).
 */
int tool_kdev_attr(const char *uri, const char *attr, char *buf, size_t len);
/* The first line of file path (a sysfs attribute), newline stripped: 0, or -errno. */
int tool_read_line(const char *path, char *buf, size_t len);
int tool_parse_wait(const char *s, enum fdma_wait_mode *w);	/* spin|sleep|adaptive */
/* A decimal whole number in min..max (no sign, no suffix): 0, or -1. */
int tool_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/*
 * The stream channel of direction dir a command works on: chan when it is
 * >= 0 (checked to be one), else the device's first. -1 with the reason
 * printed, "fdma CMD: ...".
 */
int tool_stream_chan(const char *cmd, struct fdma_dev *dev, const struct fdma_info *info,
		     const char *uri, int chan, enum fdma_dir dir);

/*
 * Ctrl-C (SIGINT) and SIGTERM end a long run early: the first one sets a
 * flag the run polls (tool_stop_requested()) so that it still prints what
 * it measured; a second one kills the process as usual.
 */
void tool_catch_stop(void);
int tool_stop_requested(void);

/*
 * A live progress line on stderr, only when stderr is a terminal (never in
 * a pipe or a log file), at most every half second; tool_progress_end()
 * erases it before the summary.
 */
struct tool_progress {
	int on;
	double next;
	int shown;
};
void tool_progress_init(struct tool_progress *p, int enable);
/* 1 when the line is due for a refresh (then call tool_progress_show()). */
int tool_progress_due(struct tool_progress *p);
void tool_progress_show(struct tool_progress *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tool_progress_end(struct tool_progress *p);

/*
 * Write all of buf (one frame, one chunk) to fd, retrying short writes and
 * EINTR; 0 or -errno. After a stop request it gives up with -EINTR only
 * while nothing of buf is written: a file never ends in a torn frame.
 */
int tool_write_all(int fd, const void *buf, size_t len);
/* The same, with the bytes it did write in *done (a short count on any error). */
int tool_write_some(int fd, const void *buf, size_t len, size_t *done);
/*
 * Read up to len bytes (short only at end of file); bytes read or -errno.
 * Like tool_write_all(), -EINTR on a stop request only before the first byte.
 */
long long tool_read_full(int fd, void *buf, size_t len);
/* Open FILE for writing ("-" = stdout) or reading ("-" = stdin); prints the error. */
int tool_open_out(const char *cmd, const char *path);
int tool_open_in(const char *cmd, const char *path);
/* Seconds: a positive decimal number no larger than max. */
int tool_parse_secs(const char *s, double max, double *out);

/*
 * A rate over the window from the first event to the last: n events span
 * n - 1 intervals, so the first event's amount (first) is not counted
 * (counting it would overstate a paced rate). Fewer than two events, or
 * no time between them, give no rate: -1 (printed '-', JSON null).
 */
double tool_rate(double amount, double first, uint64_t n, double t_first, double t_last);
/* A rate (or any figure) with printf format fmt, or "-" when it is negative (unknown). */
const char *tool_fmt_rate(char *buf, size_t len, const char *fmt, double v);
/* ,"key":v with fmt, or ,"key":null when v is negative (unknown). */
void tool_json_rate(FILE *f, const char *key, const char *fmt, double v);

/*
 * A JSON string: in quotes, with '"' and backslash escaped, control
 * characters as \u00XX and other bytes (UTF-8) as they are.
 */
void tool_json_str(FILE *f, const char *s);
/*
 * The same into buf (len >= 3), cut at a whole escape and a whole UTF-8
 * character if it does not fit, so it stays valid; returns buf.
 */
char *tool_json_quote(char *buf, size_t len, const char *s);

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
 * The block may start at any byte.
 */
void tool_pat_fill(void *p, size_t len, uint64_t tag);
/* Bytes that differ from the pattern (0 if all match). */
size_t tool_pat_check(const void *p, size_t len, uint64_t tag);

/*
 * --mem dmabuf: a size-byte dma-buf from the first exporter there is
 * (/dev/dma_heap/system, /dev/udmabuf, and on sim: a memfd) imported into
 * dev: its handle, with the exporter's name in *how; -1 with every
 * exporter's reason printed ("fdma CMD: ...").
 */
int tool_dmabuf_import(const char *cmd, struct fdma_dev *dev, size_t size, const char **how);
/*
 * Memory the CPU cannot map, seen through the card: len bytes of buffer
 * src at off written to card memory at card_addr, then read back into
 * buffer dst at dst_off, on the memory-mapped channels, which must be
 * idle (synchronous helpers). 0 or the library's negative errno.
 */
int tool_card_view(struct fdma_dev *dev, int src, uint64_t off, int dst, uint64_t dst_off,
		   uint64_t len, uint64_t card_addr);

#endif
