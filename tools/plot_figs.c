// SPDX-License-Identifier: MIT
/*
 * plot_figs.c - the figures of fdma bench --plot and fdma loop --plot:
 * which series, axes and notes each has. The commands hand over each row
 * as they print it, so the figure shows what the table and the JSON say.
 */
#include <stdio.h>
#include <string.h>

#include "fdma.h"
#include "plot.h"

/* The figure's file is opened first: a bad path fails before a long run, not after. */
static int fig_begin(struct plot_fig *g, const char *cmd, const char *path)
{
	memset(g, 0, sizeof(*g));
	g->cmd = cmd;
	g->path = path;
	g->p = plot_new();
	if (!g->p) {
		fprintf(stderr, "fdma %s: out of memory\n", cmd);
		return -1;
	}
	g->f = plot_open(cmd, path);
	if (!g->f) {
		plot_free(g->p);
		g->p = NULL;
		return -1;
	}
	return 0;
}

/* What a figure of a simulated device is: said on it, since it travels without the table. */
static void fig_device_note(struct plot *p, struct fdma_dev *dev)
{
	struct fdma_info info;

	if (fdma_get_info(dev, &info))
		return;
	if (!strcmp(info.backend, "sim") || !strcmp(info.backend, "rtl"))
		plot_note(p, "%s: a simulated device (%s): the model's figures, not a card's.",
			  info.name, info.backend);
	else
		plot_note(p, "%s (%s).", info.name, info.backend);
}

int plot_fig_end(struct plot_fig *g)
{
	int ret;

	if (!g->p)
		return 0;
	ret = plot_close(g->p, g->f, g->cmd, g->path);
	plot_free(g->p);
	g->p = NULL;
	return ret;
}

enum { B_MBPS, B_CEIL, B_CPU, B_IRQ };

int plot_bench_begin(struct plot_fig *g, const char *path, const char *title,
		     struct fdma_dev *dev, int ref)
{
	struct plot *p;

	/* Standard output carries the table or the JSON rows. */
	if (!strcmp(path, "-")) {
		fprintf(stderr, "fdma bench: --plot needs a file: standard output carries the rows\n");
		return -1;
	}
	if (fig_begin(g, "bench", path))
		return -1;
	p = g->p;
	plot_title(p, title);
	plot_xaxis(p, "transfer size", PLOT_BYTES, PLOT_LOG2);
	plot_yaxis(p, 0, "MB/s (10^6 bytes/s)", PLOT_PLAIN, PLOT_LINEAR);
	plot_yaxis(p, 1, "CPU, % of a core", PLOT_PLAIN, PLOT_LINEAR);
	plot_yaxis(p, 2, "interrupts per transfer", PLOT_PLAIN, PLOT_LINEAR);
	g->s[B_MBPS] = plot_series(p, 0, "measured MB/s", 0);
	/* An unpaced device has no ceiling: the table puts memcpy of the same bytes beside. */
	g->s[B_CEIL] = ref < 0 ? -1 :
		       plot_series(p, 0, ref ? "link ceiling (the link model's, computed)" :
				   "memcpy of the same bytes (measured)", PLOT_DASHED);
	g->s[B_CPU] = plot_series(p, 1, "host CPU (cpu%: submitting thread, checking apart)", 0);
	g->s[B_IRQ] = plot_series(p, 2, "interrupts per completion", 0);
	plot_note(p, "Every point is a value fdma bench printed for this run (its table and --json rows).");
	fig_device_note(p, dev);
	return 0;
}

void plot_bench_row(struct plot_fig *g, const struct plot_bench_row *r)
{
	double x = (double)r->size;

	if (!g->p)
		return;
	plot_point(g->p, g->s[B_MBPS], x, r->mbps);
	if (r->ceiling > 0)
		plot_point(g->p, g->s[B_CEIL], x, r->ceiling);
	else if (r->memcpy_mbps > 0)
		plot_point(g->p, g->s[B_CEIL], x, r->memcpy_mbps);
	plot_point(g->p, g->s[B_CPU], x, r->cpu_pct);
	plot_point(g->p, g->s[B_IRQ], x, r->irqs_per_xfer);
}

enum { L_PPS_P, L_PPS_B, L_IRQ_P, L_IRQ_B, L_DB_P, L_DB_B };

int plot_loop_begin(struct plot_fig *g, const char *path, const char *title, struct fdma_dev *dev)
{
	struct plot *p;

	if (!strcmp(path, "-")) {
		fprintf(stderr, "fdma loop: --plot needs a file: standard output carries the rows\n");
		return -1;
	}
	if (fig_begin(g, "loop", path))
		return -1;
	p = g->p;
	plot_title(p, title);
	plot_xaxis(p, "frame size", PLOT_BYTES, PLOT_LOG2);
	/* The two disciplines are often 10 to 50 times apart: a log axis shows both. */
	plot_yaxis(p, 0, "frames/s received", PLOT_PLAIN, PLOT_LOG10);
	plot_yaxis(p, 1, "per frame, both channels", PLOT_PLAIN, PLOT_LINEAR);
	g->s[L_PPS_P] = plot_series(p, 0, "per-packet: frames/s", 0);
	g->s[L_PPS_B] = plot_series(p, 0, "batched: frames/s", 0);
	g->s[L_IRQ_P] = plot_series(p, 1, "per-packet: interrupts per frame", 0);
	g->s[L_IRQ_B] = plot_series(p, 1, "batched: interrupts per frame", 0);
	g->s[L_DB_P] = plot_series(p, 1, "per-packet: doorbells per frame", 0);
	g->s[L_DB_B] = plot_series(p, 1, "batched: doorbells per frame", 0);
	plot_note(p, "Every point is a value fdma loop printed for this run (its table and --json rows).");
	fig_device_note(p, dev);
	return 0;
}

void plot_loop_row(struct plot_fig *g, int batched, uint32_t size, double pps,
		   double irqs_per_pkt, double doorbells_per_pkt)
{
	if (!g->p)
		return;
	plot_point(g->p, g->s[batched ? L_PPS_B : L_PPS_P], size, pps);
	plot_point(g->p, g->s[batched ? L_IRQ_B : L_IRQ_P], size, irqs_per_pkt);
	plot_point(g->p, g->s[batched ? L_DB_B : L_DB_P], size, doorbells_per_pkt);
}
