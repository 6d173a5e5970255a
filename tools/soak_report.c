// SPDX-License-Identifier: MIT
/*
 * fdma soak's report: a line (or a JSON object) per sample as it ends,
 * and at the end the verdict with its numbers and the figure.
 *
 * Sample storage is made, and touched, before the run: a report that grew
 * as the run went on would show as the RSS drift it is there to find.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "soak.h"
#include "util.h"

#define RSS_LEAK_KIB	4096	/* RSS growth called a leak: more than this and 10% */

static const char *dir_name(enum fdma_dir d)
{
	return d == FDMA_H2C ? "h2c" : "c2h";
}

/* Series i's first point: its direction and size. */
static const struct soak_point *series_point(const struct soak *s, int i)
{
	for (int p = 0; p < s->npoints; p++)
		if (s->pts[p].series == i)
			return &s->pts[p];
	return &s->pts[0];
}

/* A series' name: "c2h 64KiB". */
static void series_name(const struct soak *s, int i, char *buf, size_t len)
{
	const struct soak_point *pt = series_point(s, i);
	char sz[32];

	tool_fmt_size(pt->size, sz, sizeof(sz));
	if (strchr("KMG", sz[strlen(sz) - 1]))
		strcat(sz, "iB");
	snprintf(buf, len, "%s %s", dir_name(pt->dir), sz);
}

static void fmt_hms(double t, char *buf, size_t len)
{
	unsigned long v = (unsigned long)(t + 0.5);

	snprintf(buf, len, "%lu:%02lu:%02lu", v / 3600, v / 60 % 60, v % 60);
}

/* A figure from an accumulator: MB/s over its timed windows, percentiles, rates. */
static void sum_of(const struct soak_acc *a, struct soak_sum *m)
{
	*m = (struct soak_sum){ .secs = a->secs, .mbps = soak_acc_mbps(a),
		.mean_us = a->lat.n ? a->lat.sum / a->lat.n : 0,
		.p50 = soak_hist_pct(&a->lat, 50), .p99 = soak_hist_pct(&a->lat, 99),
		.p999 = soak_hist_pct(&a->lat, 99.9), .max_us = a->lat.max,
		.cpu_pct = a->secs > 0 ? a->cpu_s / a->secs * 100 : -1,
		.irqs_per_s = a->secs > 0 ? a->interrupts / a->secs : -1,
		.bytes = a->bytes, .checked = a->checked, .transfers = a->transfers,
		.faults = soak_acc_faults(a), .canceled = a->canceled };
}

int soak_report_open(struct soak *s)
{
	size_t per;

	s->cur = calloc((size_t)s->npoints, sizeof(*s->cur));
	s->tot = calloc((size_t)s->npoints, sizeof(*s->tot));
	/* A sample ends at least every --every seconds: no more than this many. */
	s->max_samples = (int)ceil(s->o.duration / s->o.every) + 2;
	per = (size_t)s->nseries * sizeof(struct soak_sum);
	if ((double)s->max_samples * per > 256.0 * 1024 * 1024) {
		fprintf(stderr, "fdma soak: %d samples of %d series would take over 256 MiB: sample less often (--every)\n",
			s->max_samples, s->nseries);
		return -1;
	}
	s->samples = calloc((size_t)s->max_samples, sizeof(*s->samples));
	if (!s->cur || !s->tot || !s->samples) {
		fprintf(stderr, "fdma soak: out of memory\n");
		return -1;
	}
	/* Touched now: calloc's fresh pages would join RSS at the first sample's end. */
	memset(s->cur, 0, (size_t)s->npoints * sizeof(*s->cur));
	memset(s->tot, 0, (size_t)s->npoints * sizeof(*s->tot));
	for (int i = 0; i < s->max_samples; i++) {
		s->samples[i].series = calloc((size_t)s->nseries, per / (size_t)s->nseries);
		if (!s->samples[i].series) {
			fprintf(stderr, "fdma soak: out of memory\n");
			return -1;
		}
		memset(s->samples[i].series, 0, per);
	}
	if (s->o.plot) {
		/* The file first: a bad path fails now, not at the end of a 12-hour run. */
		s->plot_f = plot_open("soak", s->o.plot);
		if (!s->plot_f)
			return -1;
	}
	if (!s->o.json) {
		char sz[32];

		printf("%s (%s): soak for %g s, a sample every %g s, %d point%s (", s->info.name,
		       s->o.uri, s->o.duration, s->o.every, s->npoints, s->npoints > 1 ? "s" : "");
		for (int i = 0; i < s->nseries; i++) {
			char nm[48];

			series_name(s, i, nm, sizeof(nm));
			printf("%s%s", i ? ", " : "", nm);
		}
		tool_fmt_size(s->win, sz, sizeof(sz));
		printf(") x %d card address%s, %s each, %.3g s a visit\n", s->naddr,
		       s->naddr > 1 ? "es" : "", sz, s->dwell);
		printf("  %s memory%s%s, %u transfers a batch, two in flight, every byte checked%s\n",
		       s->o.dmabuf ? "dma-buf" : "host", s->o.dmabuf ? " from " : "",
		       s->o.dmabuf && s->exporter ? s->exporter : "",
		       s->o.buffers, s->o.cycle ? ", buffers cycled every sample" : "");
		if (s->o.dmabuf)
			printf("  the dma-buf is checked through the card\n");
		if (s->dwell * s->npoints > s->o.every)
			printf("  a round of the points takes %.3g s, longer than a sample: each sample visits some\n",
			       s->dwell * s->npoints);
		printf("  per series: MB/s p50/p99 us; errors; process CPU %%; resources at the sample's end%s\n",
		       s->o.cycle ? " (buffers given back)" : "");
	}
	fflush(stdout);
	return 0;
}

void soak_sample_open(struct soak *s, double t)
{
	struct soak_sample *m = &s->samples[s->nsamples];

	memset(s->cur, 0, (size_t)s->npoints * sizeof(*s->cur));
	m->t0 = t;
	s->cpu0 = tool_proc_cpu();
}

static void print_res_text(const struct soak_res *r)
{
	int64_t v;

	printf("  rss %" PRId64 "K fds %" PRId64 " bufs %" PRId64, r->rss_kib, r->fds, r->lib_buffers);
	v = r->drv_pinned;
	if (v >= 0)
		printf(" drv bufs %" PRId64 " pinned %" PRId64, r->drv_buffers, v);
}

static void json_sum(const struct soak_sum *m)
{
	tool_json_rate(stdout, "mbps", "%.1f", m->mbps);
	printf(",\"seconds\":%.6f,\"bytes\":%" PRIu64 ",\"bytes_checked\":%" PRIu64
	       ",\"transfers\":%" PRIu64 ",\"errors\":%" PRIu64 ",\"canceled\":%" PRIu64, m->secs,
	       m->bytes, m->checked, m->transfers, m->faults, m->canceled);
	if (m->transfers)
		printf(",\"mean_us\":%.2f,\"p50_us\":%.2f,\"p99_us\":%.2f,\"p999_us\":%.2f,"
		       "\"max_us\":%.2f", m->mean_us, m->p50, m->p99, m->p999, m->max_us);
	else
		printf(",\"mean_us\":null,\"p50_us\":null,\"p99_us\":null,\"p999_us\":null,"
		       "\"max_us\":null");
	tool_json_rate(stdout, "cpu_pct", "%.2f", m->cpu_pct);
	tool_json_rate(stdout, "irqs_per_s", "%.1f", m->irqs_per_s);
}

static void json_res(const struct soak_res *r)
{
	for (int i = 0; i < SOAK_NRES; i++) {
		int64_t v = soak_res_get(r, i);

		if (v >= 0)
			printf(",\"%s\":%" PRId64, soak_res_names[i], v);
		else
			printf(",\"%s\":null", soak_res_names[i]);
	}
}

static void json_power(const struct soak_power *pw)
{
	printf(",\"power\":");
	if (!pw->n) {
		printf("null");
		return;
	}
	printf("[");
	for (int i = 0; i < pw->n; i++) {
		printf("%s{\"sensor\":", i ? "," : "");
		tool_json_str(stdout, pw->name[i]);
		printf(",\"watts\":%.3f}", pw->watts[i]);
	}
	printf("]");
}

void soak_sample_close(struct soak *s, double now)
{
	struct soak_sample *m = &s->samples[s->nsamples];
	char t[32];

	m->t1 = now - s->t0;
	m->interrupted = s->interrupted;
	m->proc_cpu_pct = (tool_proc_cpu() - s->cpu0) / (m->t1 - m->t0) * 100;
	soak_res_read(s->dev, s->o.uri, &m->res);
	soak_power_read(s->o.hwmon, &m->pw);
	for (int i = 0; i < s->nseries; i++) {
		struct soak_acc a = { 0 };

		for (int p = 0; p < s->npoints; p++)
			if (s->pts[p].series == i)
				soak_acc_add(&a, &s->cur[p]);
		sum_of(&a, &m->series[i]);
	}
	for (int p = 0; p < s->npoints; p++) {
		const struct soak_acc *a = &s->cur[p];

		soak_acc_add(&s->tot[p], a);
		m->faults += soak_acc_faults(a);
		/* The first point, in the round's order, that had one. */
		if (soak_acc_faults(a) && !m->fault_at[0]) {
			char nm[48];

			series_name(s, s->pts[p].series, nm, sizeof(nm));
			snprintf(m->fault_at, sizeof(m->fault_at),
				 "%s at card 0x%" PRIx64 ": %" PRIu64 " failed, %" PRIu64
				 " canceled, %" PRIu64 " visits reset", nm, s->pts[p].addr, a->errors,
				 a->canceled, a->failed_visits);
		}
	}
	if (s->warm < 0) {
		int all = 1;

		for (int p = 0; p < s->npoints && all; p++)
			all = s->pts[p].walked;
		if (all)
			s->warm = s->nsamples;
	}
	s->nsamples++;
	if (s->o.json) {
		printf("{\"type\":\"sample\",\"sample\":%d,\"t_start_s\":%.3f,\"t_end_s\":%.3f,"
		       "\"interrupted\":%s,\"errors\":%" PRIu64 ",\"process_cpu_pct\":%.1f",
		       s->nsamples, m->t0, m->t1, m->interrupted ? "true" : "false", m->faults,
		       m->proc_cpu_pct);
		json_res(&m->res);
		json_power(&m->pw);
		printf(",\"series\":[");
		for (int i = 0; i < s->nseries; i++) {
			printf("%s{\"dir\":\"%s\",\"size\":%" PRIu64, i ? "," : "",
			       dir_name(series_point(s, i)->dir), series_point(s, i)->size);
			json_sum(&m->series[i]);
			printf("}");
		}
		printf("],\"points\":[");
		for (int p = 0; p < s->npoints; p++) {
			struct soak_sum ps;

			sum_of(&s->cur[p], &ps);
			printf("%s{\"dir\":\"%s\",\"size\":%" PRIu64 ",\"card_addr\":%" PRIu64
			       ",\"visits\":%" PRIu64, p ? "," : "", dir_name(s->pts[p].dir),
			       s->pts[p].size, s->pts[p].addr, s->cur[p].visits);
			json_sum(&ps);
			printf("}");
		}
		printf("]}\n");
	} else {
		fmt_hms(m->t1, t, sizeof(t));
		printf("#%-3d %s", s->nsamples, t);
		for (int i = 0; i < s->nseries; i++) {
			char nm[48];
			const struct soak_sum *x = &m->series[i];

			series_name(s, i, nm, sizeof(nm));
			if (x->transfers)
				printf("  %s %.1f MB/s %.1f/%.1f us", nm, x->mbps, x->p50, x->p99);
			else
				printf("  %s -", nm);
		}
		printf("  errors %" PRIu64 "  cpu %.0f%%", m->faults, m->proc_cpu_pct);
		print_res_text(&m->res);
		for (int i = 0; i < m->pw.n; i++)
			printf(" %s %.2f W", m->pw.name[i], m->pw.watts[i]);
		printf("%s\n", m->interrupted ? "  (interrupted)" : "");
	}
	fflush(stdout);
}

/* ---- the verdict --------------------------------------------------------------------------- */

struct trend {
	double first, last, change_pct, slope_pct_h;	/* MB/s */
	double p50_first, p50_last, p50_change_pct;
	int known;
};

/* Mean MB/s (bytes over time) and mean p50 of series i over samples [a, b). */
static void third(const struct soak *s, int i, int a, int b, double *mbps, double *p50)
{
	double bytes = 0, secs = 0, p = 0;
	int n = 0;

	for (int k = a; k < b; k++) {
		const struct soak_sum *x = &s->samples[k].series[i];

		if (x->secs <= 0)
			continue;
		bytes += x->bytes;
		secs += x->secs;
		if (x->transfers) {
			p += x->p50;
			n++;
		}
	}
	*mbps = secs > 0 ? bytes / secs / 1e6 : -1;
	*p50 = n ? p / n : -1;
}

static struct trend trend_of(const struct soak *s, int i)
{
	struct trend t = { 0 };
	int n = s->nsamples, k = n / 3, m = 0;
	double *x = calloc((size_t)n + 1, sizeof(double)), *y = calloc((size_t)n + 1, sizeof(double));
	double mean = 0;

	if (n < 3 || !x || !y)
		goto out;
	third(s, i, 0, k, &t.first, &t.p50_first);
	third(s, i, n - k, n, &t.last, &t.p50_last);
	if (t.first <= 0 || t.last <= 0)
		goto out;
	t.known = 1;
	t.change_pct = (t.last - t.first) / t.first * 100;
	t.p50_change_pct = t.p50_first > 0 ? (t.p50_last - t.p50_first) / t.p50_first * 100 : 0;
	for (int j = 0; j < n; j++) {
		const struct soak_sum *v = &s->samples[j].series[i];

		if (v->secs <= 0)
			continue;
		x[m] = (s->samples[j].t0 + s->samples[j].t1) / 2 / 3600;
		y[m] = v->mbps;
		mean += v->mbps;
		m++;
	}
	mean = m ? mean / m : 0;
	t.slope_pct_h = mean > 0 ? soak_slope(x, y, m) / mean * 100 : 0;
out:
	free(x);
	free(y);
	return t;
}

struct spread {
	double mbps_min, mbps_max, mbps_sd, lat_min, lat_max, lat_sd;
	uint64_t lat_min_at, lat_max_at;
	int n;
};

static double sd_of(const double *v, int n)
{
	double m = 0, q = 0;

	for (int i = 0; i < n; i++)
		m += v[i];
	m = n ? m / n : 0;
	for (int i = 0; i < n; i++)
		q += (v[i] - m) * (v[i] - m);
	return n > 1 ? sqrt(q / (n - 1)) : 0;
}

/*
 * Series i across card addresses, from the whole run's per-point sums:
 * MB/s and the mean latency (exact, where percentiles are binned).
 */
static struct spread spread_of(const struct soak *s, int i)
{
	struct spread sp = { 0 };
	double mb[SOAK_MAX_ADDRS], lv[SOAK_MAX_ADDRS];

	for (int p = 0; p < s->npoints; p++) {
		struct soak_sum x;

		if (s->pts[p].series != i || !s->tot[p].transfers || s->tot[p].secs <= 0)
			continue;
		sum_of(&s->tot[p], &x);
		if (!sp.n || x.mbps < sp.mbps_min)
			sp.mbps_min = x.mbps;
		if (!sp.n || x.mbps > sp.mbps_max)
			sp.mbps_max = x.mbps;
		if (!sp.n || x.mean_us < sp.lat_min) {
			sp.lat_min = x.mean_us;
			sp.lat_min_at = s->pts[p].addr;
		}
		if (!sp.n || x.mean_us > sp.lat_max) {
			sp.lat_max = x.mean_us;
			sp.lat_max_at = s->pts[p].addr;
		}
		mb[sp.n] = x.mbps;
		lv[sp.n++] = x.mean_us;
	}
	sp.mbps_sd = sd_of(mb, sp.n);
	sp.lat_sd = sd_of(lv, sp.n);
	return sp;
}

/* A resource's first and last values, the fitted slope per hour, and whether it leaked. */
struct drift {
	int64_t first, last;
	double slope_h;
	int known, leak;
};

static struct drift drift_of(const struct soak *s, int ri)
{
	/* RSS from the first sample after the walk had touched all it touches (struct soak). */
	int from = ri == 0 ? s->warm : 0;
	struct drift d = { 0 };
	double *x = calloc((size_t)s->nsamples + 1, sizeof(double));
	double *y = calloc((size_t)s->nsamples + 1, sizeof(double));
	int m = 0;

	for (int k = from; x && y && k >= 0 && k < s->nsamples; k++) {
		int64_t v = soak_res_get(&s->samples[k].res, ri);

		if (v < 0)
			continue;
		if (!m)
			d.first = v;
		d.last = v;
		x[m] = s->samples[k].t1 / 3600;
		y[m++] = (double)v;
	}
	d.known = m > 0;
	d.slope_h = soak_slope(x, y, m);
	/* Counts are exact: any growth is one. RSS moves with the allocator: past a margin. */
	if (m > 1)
		d.leak = ri == 0 ? d.last - d.first > RSS_LEAK_KIB && d.last > d.first * 1.1
				 : d.last > d.first;
	free(x);
	free(y);
	return d;
}

static void json_trend(const struct trend *t)
{
	if (!t->known) {
		printf(",\"trend\":null");
		return;
	}
	printf(",\"trend\":{\"first_mbps\":%.3f,\"last_mbps\":%.3f,\"change_pct\":%.4f,"
	       "\"slope_pct_per_h\":%.3f,\"first_p50_us\":%.2f,\"last_p50_us\":%.2f,"
	       "\"p50_change_pct\":%.3f}", t->first, t->last, t->change_pct, t->slope_pct_h,
	       t->p50_first, t->p50_last, t->p50_change_pct);
}

static void json_spread(const struct spread *sp)
{
	if (sp->n < 2) {
		printf(",\"addresses\":null");
		return;
	}
	printf(",\"addresses\":{\"points\":%d,\"mbps_min\":%.2f,\"mbps_max\":%.2f,\"mbps_sd\":%.3f,"
	       "\"mean_us_min\":%.2f,\"mean_us_min_at\":%" PRIu64 ",\"mean_us_max\":%.2f,"
	       "\"mean_us_max_at\":%" PRIu64 ",\"mean_us_sd\":%.3f}", sp->n, sp->mbps_min,
	       sp->mbps_max, sp->mbps_sd, sp->lat_min, sp->lat_min_at, sp->lat_max, sp->lat_max_at,
	       sp->lat_sd);
}

/* ---- the figure ------------------------------------------------------------------------------ */

/*
 * One of the figure's two halves: MB/s above, p50 below, a series of each
 * per direction and size (their indexes in sm[] and sl[]).
 */
static void fig_axes(const struct soak *s, struct plot *p, const char *what, const char *xlabel,
		     enum plot_unit unit, int *sm, int *sl)
{
	char title[300];

	snprintf(title, sizeof(title), "fdma soak %s: against %s", s->o.uri, what);
	plot_title(p, title);
	plot_xaxis(p, xlabel, unit, PLOT_LINEAR);
	plot_yaxis(p, 0, "MB/s (10^6 bytes/s)", PLOT_PLAIN, PLOT_LINEAR);
	plot_yaxis(p, 1, "latency p50, us", PLOT_PLAIN, PLOT_LOG10);
	for (int i = 0; i < s->nseries; i++) {
		char nm[64];

		series_name(s, i, nm, sizeof(nm));
		sm[i] = plot_series(p, 0, nm, 0);
		sl[i] = plot_series(p, 1, nm, 0);
	}
}

static int write_plot(struct soak *s)
{
	struct plot *p = plot_new(), *q = NULL;
	int sm[2 * MAX_SIZES], sl[2 * MAX_SIZES];
	int ret;

	if (!p)
		goto oom;
	fig_axes(s, p, "time", "time since the start", PLOT_SECONDS, sm, sl);
	for (int k = 0; k < s->nsamples; k++) {
		const struct soak_sample *m = &s->samples[k];
		double t = (m->t0 + m->t1) / 2;

		for (int i = 0; i < s->nseries; i++)
			if (m->series[i].transfers) {
				plot_point(p, sm[i], t, m->series[i].mbps);
				plot_point(p, sl[i], t, m->series[i].p50);
			}
	}
	plot_note(p, "Each point is one sample (%g s) of fdma soak's JSON: MB/s over the sample's timed visits, the p50 of its transfers' latencies (submission to reap, under load).",
		  s->o.every);
	if (!strcmp(s->info.backend, "sim") || !strcmp(s->info.backend, "rtl"))
		plot_note(p, "%s: a simulated device (%s): the model's figures, not a card's.",
			  s->info.name, s->info.backend);
	if (s->naddr > 1) {
		q = plot_new();
		if (!q || plot_append(p, q)) {
			plot_free(q);
			goto oom;
		}
		fig_axes(s, q, "card address", "card address (window start)", PLOT_BYTES, sm, sl);
		for (int pi = 0; pi < s->npoints; pi++) {
			struct soak_sum x;

			if (!s->tot[pi].transfers)
				continue;
			sum_of(&s->tot[pi], &x);
			plot_point(q, sm[s->pts[pi].series], (double)s->pts[pi].addr, x.mbps);
			plot_point(q, sl[s->pts[pi].series], (double)s->pts[pi].addr, x.p50);
		}
		plot_note(q, "Each point is one card address's whole run: every visit to its window of %" PRIu64 " bytes.",
			  s->win);
	}
	ret = plot_close(p, s->plot_f, "soak", s->o.plot);
	s->plot_f = NULL;
	plot_free(p);
	return ret;
oom:
	plot_free(p);
	fprintf(stderr, "fdma soak: out of memory for the plot\n");
	return -1;
}

int soak_report_close(struct soak *s)
{
	struct soak_acc all = { 0 };
	struct trend tr[2 * MAX_SIZES];
	struct spread sp[2 * MAX_SIZES];
	struct drift dr[SOAK_NRES];
	int drifted = 0, leaked = 0, fail, plot_fail = 0, nerr = 0;
	double secs = s->nsamples ? s->samples[s->nsamples - 1].t1 : 0;
	char t[32];

	for (int p = 0; p < s->npoints; p++)
		soak_acc_add(&all, &s->tot[p]);
	for (int i = 0; i < s->nseries; i++) {
		tr[i] = trend_of(s, i);
		sp[i] = spread_of(s, i);
		if (s->o.max_drift > 0 && tr[i].known && fabs(tr[i].change_pct) > s->o.max_drift)
			drifted++;
	}
	for (int ri = 0; ri < SOAK_NRES; ri++) {
		dr[ri] = drift_of(s, ri);
		leaked += dr[ri].leak;
	}
	for (int k = 0; k < s->nsamples; k++)
		nerr += s->samples[k].faults > 0;
	fail = soak_acc_faults(&all) || leaked || drifted || s->stopped || !all.transfers;
	if (s->plot_f)
		plot_fail = write_plot(s) != 0;
	if (s->o.json) {
		int first = 1;

		printf("{\"type\":\"verdict\",\"pass\":%s,\"uri\":", fail ? "false" : "true");
		tool_json_str(stdout, s->o.uri);
		printf(",\"backend\":");
		tool_json_str(stdout, s->info.backend);
		printf(",\"seconds\":%.3f,\"samples\":%d,\"every_s\":%g,\"points\":%d,\"addresses\":%d,"
		       "\"window\":%" PRIu64 ",\"mem\":\"%s\",\"cycle_buffers\":%s,\"cycles\":%d,"
		       "\"interrupted\":%s,\"bytes\":%" PRIu64
		       ",\"bytes_checked\":%" PRIu64 ",\"transfers\":%" PRIu64 ",\"errors\":%" PRIu64
		       ",\"failed\":%" PRIu64 ",\"canceled\":%" PRIu64 ",\"failed_visits\":%" PRIu64,
		       secs, s->nsamples, s->o.every, s->npoints, s->naddr, s->win,
		       s->o.dmabuf ? "dmabuf" : "host", s->o.cycle ? "true" : "false", s->cycles,
		       s->interrupted ? "true" : "false", all.bytes,
		       all.checked, all.transfers, soak_acc_faults(&all), all.errors, all.canceled,
		       all.failed_visits);
		printf(",\"stopped\":");
		if (s->stopped)
			tool_json_str(stdout, s->stopped);
		else
			printf("null");
		printf(",\"exporter\":");
		if (s->exporter)
			tool_json_str(stdout, s->exporter);
		else
			printf("null");
		if (s->warm >= 0)
			printf(",\"rss_from_sample\":%d", s->warm + 1);
		else
			printf(",\"rss_from_sample\":null");
		printf(",\"error_samples\":[");
		for (int k = 0; k < s->nsamples; k++)
			if (s->samples[k].faults) {
				printf("%s{\"sample\":%d,\"t_start_s\":%.3f,\"t_end_s\":%.3f,\"errors\":%"
				       PRIu64 ",\"first\":", first ? "" : ",", k + 1, s->samples[k].t0,
				       s->samples[k].t1, s->samples[k].faults);
				tool_json_str(stdout, s->samples[k].fault_at);
				printf("}");
				first = 0;
			}
		printf("],\"series\":[");
		for (int i = 0; i < s->nseries; i++) {
			const struct soak_point *pt = series_point(s, i);

			printf("%s{\"dir\":\"%s\",\"size\":%" PRIu64, i ? "," : "", dir_name(pt->dir),
			       pt->size);
			json_trend(&tr[i]);
			json_spread(&sp[i]);
			printf("}");
		}
		printf("],\"resources\":{");
		for (int ri = 0; ri < SOAK_NRES; ri++) {
			printf("%s\"%s\":", ri ? "," : "", soak_res_names[ri]);
			if (dr[ri].known)
				printf("{\"first\":%" PRId64 ",\"last\":%" PRId64 ",\"slope_per_h\":%.3f,\"leak\":%s}",
				       dr[ri].first, dr[ri].last, dr[ri].slope_h,
				       dr[ri].leak ? "true" : "false");
			else
				printf("null");
		}
		printf("},\"leaks\":%d", leaked);
		if (s->o.max_drift > 0)
			printf(",\"max_drift_pct\":%g,\"drifted\":%d", s->o.max_drift, drifted);
		else
			printf(",\"max_drift_pct\":null,\"drifted\":null");
		printf(",\"power_sensors\":%d}\n", s->nsamples ? s->samples[s->nsamples - 1].pw.n : 0);
		fflush(stdout);
		return fail || plot_fail;
	}
	fmt_hms(secs, t, sizeof(t));
	printf("verdict: %s", fail ? "FAIL" : "PASS");
	if (fail) {
		const char *sep = " (";

		if (soak_acc_faults(&all)) {
			printf("%serrors", sep);
			sep = ", ";
		}
		if (leaked) {
			printf("%sa leak", sep);
			sep = ", ";
		}
		if (drifted) {
			printf("%sdrift past %g%%", sep, s->o.max_drift);
			sep = ", ";
		}
		if (s->stopped)
			printf("%s%s", sep, s->stopped);
		else if (!all.transfers)
			printf("%snothing moved", sep);
		printf(")");
	}
	printf("\n  ran %s%s, %d sample%s; %.3f GB moved in %" PRIu64 " transfers, %.3f GB checked\n",
	       t, s->interrupted ? " (interrupted)" : "", s->nsamples, s->nsamples == 1 ? "" : "s",
	       all.bytes / 1e9, all.transfers, all.checked / 1e9);
	printf("  trend, first third of the samples against the last (MB/s; p50 us), fitted slope:\n");
	for (int i = 0; i < s->nseries; i++) {
		char nm[48];

		series_name(s, i, nm, sizeof(nm));
		if (!tr[i].known)
			printf("    %-12s not measured in both thirds (3 samples at least)\n", nm);
		else
			printf("    %-12s %.1f -> %.1f MB/s (%+.2f%%), slope %+.2f%%/h; p50 %.1f -> %.1f us (%+.2f%%)\n",
			       nm, tr[i].first, tr[i].last, tr[i].change_pct, tr[i].slope_pct_h,
			       tr[i].p50_first, tr[i].p50_last, tr[i].p50_change_pct);
	}
	if (s->naddr > 1) {
		printf("  card addresses, %d windows of %" PRIu64 " bytes from 0x%" PRIx64 ":\n", s->naddr,
		       s->win, s->o.sweep_lo);
		for (int i = 0; i < s->nseries; i++) {
			char nm[48];

			series_name(s, i, nm, sizeof(nm));
			if (sp[i].n < 2)
				printf("    %-12s fewer than 2 addresses visited\n", nm);
			else
				printf("    %-12s MB/s %.1f..%.1f (sd %.2f); mean latency sd %.2f us, %.1f us at 0x%"
				       PRIx64 " .. %.1f us at 0x%" PRIx64 "\n", nm, sp[i].mbps_min,
				       sp[i].mbps_max, sp[i].mbps_sd, sp[i].lat_sd, sp[i].lat_min,
				       sp[i].lat_min_at, sp[i].lat_max, sp[i].lat_max_at);
		}
	}
	printf("  errors: %" PRIu64, soak_acc_faults(&all));
	if (soak_acc_faults(&all))
		printf(" (%" PRIu64 " transfers failed or wrong, %" PRIu64 " visits reset), in %d sample%s;"
		       " %" PRIu64 " transfers canceled behind them", all.errors, all.failed_visits,
		       nerr, nerr == 1 ? "" : "s", all.canceled);
	printf("\n");
	for (int k = 0, shown = 0; k < s->nsamples && shown < 8; k++)
		if (s->samples[k].faults) {
			printf("    sample %d (%.1f-%.1f s): %" PRIu64 ", first %s\n", k + 1,
			       s->samples[k].t0, s->samples[k].t1, s->samples[k].faults,
			       s->samples[k].fault_at);
			shown++;
		}
	printf("  resources, first sample -> last, fitted slope per hour%s:\n",
	       s->o.cycle ? " (buffers given back at each)" : "");
	for (int ri = 0; ri < SOAK_NRES; ri++) {
		if (ri == 0 && s->warm < 0) {
			printf("    %-22s not judged: the visits had not walked every window yet\n",
			       soak_res_what[ri]);
			continue;
		}
		if (!dr[ri].known) {
			printf("    %-22s not available%s\n", soak_res_what[ri],
			       ri >= 4 ? " (the driver's: kdev: only)" : "");
			continue;
		}
		printf("    %-22s %" PRId64 " -> %" PRId64 " (%+.1f/h)%s", soak_res_what[ri],
		       dr[ri].first, dr[ri].last, dr[ri].slope_h, dr[ri].leak ? "  LEAK" : "");
		if (ri == 0 && s->warm > 0)
			printf(", from sample %d: every window walked by then", s->warm + 1);
		printf("\n");
	}
	if (!s->nsamples || !s->samples[s->nsamples - 1].pw.n) {
		printf("  power: not available (no hwmon power sensors under %s)\n", s->o.hwmon);
	} else {
		const struct soak_sample *l = &s->samples[s->nsamples - 1];

		printf("  power, first sample -> last:\n");
		for (int i = 0; i < l->pw.n; i++)
			printf("    %-22s %.2f -> %.2f W\n", l->pw.name[i],
			       i < s->samples[0].pw.n ? s->samples[0].pw.watts[i] : NAN, l->pw.watts[i]);
	}
	fflush(stdout);
	return fail || plot_fail;
}

void soak_free(struct soak *s)
{
	if (s->plot_f && s->plot_f != stdout)
		fclose(s->plot_f);
	for (int i = 0; s->samples && i < s->max_samples; i++)
		free(s->samples[i].series);
	free(s->samples);
	free(s->cur);
	free(s->tot);
	free(s->pts);
}
