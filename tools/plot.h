/* SPDX-License-Identifier: MIT */
/*
 * plot.h - the fdma command's figures: a small SVG writer of its own.
 *
 * fdma bench --plot must draw on the board it measures (an RK3568, a
 * Zynq), where gnuplot is rarely installed, and the studies' figures
 * (fdma plot, docs/studies/figures.sh) should look like the command's:
 * one writer, libc and libm only, for both (docs/plots.md).
 *
 * A figure is up to PLOT_MAX_PANELS panels stacked over one x axis
 * (linear or log2), each with its own y axis (linear or log10), and
 * series of points drawn as lines with markers, as points alone, or
 * dashed (a ceiling, a reference). The output is standalone SVG 1.1 with
 * explicit width, height and viewBox; text is escaped; numbers are
 * written with '.' whatever the locale; a point that is not finite (or
 * not positive on a log axis) is not drawn, and the figure says how many
 * were left out. Each drawn point is a <use class="pt"> with a <title>
 * holding its values, each series a <g class="series"> titled with its
 * name, each labelled tick a <g class="xtick"> or <g class="ytick"> with
 * its line and label, so that tests can read a figure back.
 *
 * Figures over different x axes (fdma soak: against time, then against
 * card address) go into one file with plot_append(): one SVG, the
 * figures one under the other, each in a <g class="figure"> moved down
 * by the heights above it. A figure alone is written as before.
 */
#ifndef FDMA_TOOL_PLOT_H
#define FDMA_TOOL_PLOT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PLOT_MAX_PANELS	3

/* How an axis labels its ticks. */
enum plot_unit {
	PLOT_PLAIN,		/* 1500, 20k, 1.5M (10^3 steps) */
	PLOT_BYTES,		/* 64 B, 4 KiB, 1.5 MiB (2^10 steps) */
	PLOT_SECONDS,		/* 30 s, 5 min, 2 h */
};

enum plot_scale {
	PLOT_LINEAR,
	PLOT_LOG2,		/* x only: sizes, a tick per power of two */
	PLOT_LOG10,		/* y only: rates orders of magnitude apart */
};

/* Series flags. */
#define PLOT_DASHED	1u	/* a ceiling or a reference: dashed line, hollow markers */
#define PLOT_NOLINE	2u	/* markers alone: repeated runs, not a curve */

struct plot;

/* An empty figure; NULL when out of memory. */
struct plot *plot_new(void);
/* p and the figures appended to it. */
void plot_free(struct plot *p);

/*
 * Draw figure below under p, in the same SVG (the same width, one after the
 * other); below is freed with p. 0, or -1 (p or below NULL, below already
 * appended somewhere, or p == below, or p appended under below: a loop).
 * Figures appended to p already stay above below: a chain, in order.
 */
int plot_append(struct plot *p, struct plot *below);

/* Strings are copied. An allocation failure is remembered: plot_write() then fails. */
void plot_title(struct plot *p, const char *title);
/* A line of small print under the figure (what it is, where it came from). */
void plot_note(struct plot *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void plot_xaxis(struct plot *p, const char *label, enum plot_unit unit, enum plot_scale scale);
/* Panel 0 is the top one; a panel is drawn when a series uses it. */
void plot_yaxis(struct plot *p, int panel, const char *label, enum plot_unit unit,
		enum plot_scale scale);
/* A series in a panel: its index, or -1 (bad panel, out of memory). */
int plot_series(struct plot *p, int panel, const char *name, unsigned int flags);
/* Any values: those that cannot be drawn are counted at plot_write(). 0 or -1. */
int plot_point(struct plot *p, int series, double x, double y);

/*
 * The figure, and those appended to it, as one SVG to f: 0, or -1 with
 * errno (ENOMEM for an allocation that failed on the way in any of them,
 * or the stream's error). Lines connect a series' points in x order; a
 * point that cannot be drawn breaks the line.
 */
int plot_write(struct plot *p, FILE *f);
/* After plot_write(): the points not drawn (not finite, or <= 0 on a log axis), all figures'. */
size_t plot_skipped(const struct plot *p);

/*
 * Writing a figure to a file named on the command line: plot_open()
 * opens it ("-" is standard output) and plot_close() writes the figure
 * and closes it, so that a full disk or a bad path is found, not just
 * the open. Both print "fdma CMD: cannot write the plot FILE: reason" and
 * return -1 on failure; plot_close() frees nothing.
 */
FILE *plot_open(const char *cmd, const char *path);
int plot_close(struct plot *p, FILE *f, const char *cmd, const char *path);

/* Number formatting the figures share (C locale; buf of 32 bytes or more). */
void plot_fmt(char *buf, size_t len, double v, enum plot_unit unit);

/*
 * The command's own figures, filled row by row as it measures and written
 * at its end (tools/plot_figs.c): every value drawn is one its table and
 * its JSON rows print.
 */
struct fdma_dev;

struct plot_fig {
	struct plot *p;
	FILE *f;
	const char *cmd, *path;
	int s[8];			/* the figure's series */
};

/*
 * fdma bench --plot: MB/s against size beside a reference (ref 1: the link
 * ceiling, 0: memcpy of the same bytes, -1: none), host CPU, interrupts
 * per transfer. Opens the file (a bad path fails here, before the run);
 * 0 or -1 said why.
 */
int plot_bench_begin(struct plot_fig *g, const char *path, const char *title,
		     struct fdma_dev *dev, int ref);
struct plot_bench_row {
	uint64_t size;
	double mbps;
	double ceiling;			/* the link model's ceiling; <= 0: none */
	double memcpy_mbps;		/* memcpy of the same bytes (unpaced); <= 0: none */
	double cpu_pct;			/* host CPU, % of one core (the table's cpu%) */
	double irqs_per_xfer;		/* interrupts per completion */
};
void plot_bench_row(struct plot_fig *g, const struct plot_bench_row *r);

/* fdma loop --plot: frames/s against frame size per discipline, interrupts and doorbells per frame. */
int plot_loop_begin(struct plot_fig *g, const char *path, const char *title, struct fdma_dev *dev);
void plot_loop_row(struct plot_fig *g, int batched, uint32_t size, double pps,
		   double irqs_per_pkt, double doorbells_per_pkt);

/* Both: write the figure and close its file (0, or -1 said why); frees it either way. */
int plot_fig_end(struct plot_fig *g);

#endif
