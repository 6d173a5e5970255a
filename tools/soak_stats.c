// SPDX-License-Identifier: MIT
/*
 * fdma soak's bookkeeping: latency histograms, sums, a fitted slope, and
 * what is sampled beside the transfers: the process's memory and files,
 * the library's and the driver's buffers, the board's power sensors.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "soak.h"
#include "util.h"

/* Bucket i holds [2^(i/32) / 4, 2^((i+1)/32) / 4) us; the last takes the rest. */
static int hist_bucket(double us)
{
	double v = log2(us * 4) * SOAK_HIST_PER_OCT;

	if (!(v > 0))
		return 0;
	return v >= SOAK_HIST_N - 1 ? SOAK_HIST_N - 1 : (int)v;
}

void soak_hist_add(struct soak_hist *h, double us)
{
	h->b[hist_bucket(us)]++;
	h->n++;
	h->sum += us;
	if (us > h->max)
		h->max = us;
}

void soak_hist_merge(struct soak_hist *to, const struct soak_hist *from)
{
	for (int i = 0; i < SOAK_HIST_N; i++)
		to->b[i] += from->b[i];
	to->n += from->n;
	to->sum += from->sum;
	if (from->max > to->max)
		to->max = from->max;
}

double soak_hist_pct(const struct soak_hist *h, double pct)
{
	uint64_t want, seen = 0;

	if (!h->n)
		return 0;
	/* The smallest value with at least pct% of the samples at or below it. */
	want = (uint64_t)ceil(h->n * pct / 100);
	if (want < 1)
		want = 1;
	/* The largest is kept exactly, and the last bucket has no top. */
	if (want >= h->n)
		return h->max;
	for (int i = 0; i < SOAK_HIST_N; i++) {
		if (i == SOAK_HIST_N - 1)
			return h->max;
		if (seen + h->b[i] >= want) {
			/* Ranks spread evenly over the bucket, in log space as the buckets are. */
			double frac = (want - seen - 0.5) / h->b[i];
			double v = exp2((i + frac) / SOAK_HIST_PER_OCT) / 4;

			/* Never past the largest value seen: it is exact. */
			return v < h->max ? v : h->max;
		}
		seen += h->b[i];
	}
	return h->max;
}

void soak_acc_add(struct soak_acc *to, const struct soak_acc *from)
{
	to->secs += from->secs;
	to->cpu_s += from->cpu_s;
	to->bytes += from->bytes;
	to->checked += from->checked;
	to->transfers += from->transfers;
	to->errors += from->errors;
	to->canceled += from->canceled;
	to->failed_visits += from->failed_visits;
	to->visits += from->visits;
	to->interrupts += from->interrupts;
	soak_hist_merge(&to->lat, &from->lat);
}

double soak_acc_mbps(const struct soak_acc *a)
{
	return a->secs > 0 ? a->bytes / a->secs / 1e6 : -1;
}

uint64_t soak_acc_faults(const struct soak_acc *a)
{
	return a->errors + a->failed_visits;
}

double soak_slope(const double *x, const double *y, int n)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0;

	if (n < 2)
		return 0;
	for (int i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= n;
	my /= n;
	for (int i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * (y[i] - my);
	}
	return sxx > 0 ? sxy / sxx : 0;
}

/* A whole number at the start of buf, or -1. */
static int64_t parse_num(const char *buf)
{
	char *end;
	long long v = strtoll(buf, &end, 10);

	return end == buf ? -1 : v;
}

/* A whole number from a sysfs or procfs file, or -1. */
static int64_t read_num(const char *path)
{
	char buf[64];

	return tool_read_line(path, buf, sizeof(buf)) ? -1 : parse_num(buf);
}

/*
 * One sensor: power%d_input in microwatts, or (an INA3221, a Jetson's)
 * in%d_input in mV times curr%d_input in mA. Its label where it has one.
 */
static void power_add(struct soak_power *pw, const char *dir, const char *hw, const char *kind,
		      int idx, double watts)
{
	char path[600], label[40];

	if (pw->n >= SOAK_MAX_SENSORS)
		return;
	if (snprintf(path, sizeof(path), "%s/%s_label", dir, kind) >= (int)sizeof(path) ||
	    tool_read_line(path, label, sizeof(label)))
		snprintf(label, sizeof(label), "%s%d", kind[0] == 'p' ? "power" : "rail", idx);
	snprintf(pw->name[pw->n], sizeof(pw->name[0]), "%.23s/%.23s", hw, label);
	pw->watts[pw->n++] = watts;
}

int soak_power_read(const char *root, struct soak_power *pw)
{
	struct dirent **ents = NULL;
	int n;

	pw->n = 0;
	/* Sorted: the sensors keep their order, and their columns, from sample to sample. */
	n = scandir(root, &ents, NULL, alphasort);
	for (int e = 0; e < n; e++) {
		char dir[512], path[600], hw[24];
		int64_t v, mv, ma;

		if (ents[e]->d_name[0] == '.' ||
		    snprintf(dir, sizeof(dir), "%s/%s", root, ents[e]->d_name) >= (int)sizeof(dir))
			continue;
		snprintf(path, sizeof(path), "%s/name", dir);
		if (tool_read_line(path, hw, sizeof(hw)))
			snprintf(hw, sizeof(hw), "%.23s", ents[e]->d_name);
		for (int i = 0; i < 8; i++) {
			char kind[24];

			snprintf(kind, sizeof(kind), "power%d", i);
			snprintf(path, sizeof(path), "%s/%s_input", dir, kind);
			v = read_num(path);
			if (v >= 0) {
				power_add(pw, dir, hw, kind, i, v / 1e6);
				continue;
			}
			snprintf(path, sizeof(path), "%s/in%d_input", dir, i);
			mv = read_num(path);
			snprintf(path, sizeof(path), "%s/curr%d_input", dir, i);
			ma = read_num(path);
			snprintf(kind, sizeof(kind), "in%d", i);
			if (mv >= 0 && ma >= 0)
				power_add(pw, dir, hw, kind, i, mv * ma / 1e6);
		}
	}
	for (int e = 0; e < n; e++)
		free(ents[e]);
	free(ents);
	return pw->n;
}

const char *const soak_res_names[SOAK_NRES] = {
	"rss_kib", "fds", "lib_buffers", "lib_bytes", "drv_buffers", "drv_pinned_pages",
	"drv_allocated_bytes",
};
const char *const soak_res_what[SOAK_NRES] = {
	"RSS KiB", "open fds", "library buffers", "library bytes", "driver buffers",
	"driver pinned pages", "driver allocated bytes",
};

int64_t soak_res_get(const struct soak_res *r, int i)
{
	const int64_t v[SOAK_NRES] = { r->rss_kib, r->fds, r->lib_buffers, r->lib_bytes,
				       r->drv_buffers, r->drv_pinned, r->drv_bytes };

	return i >= 0 && i < SOAK_NRES ? v[i] : -1;
}

/* The driver's count attr for a kdev: URI (the whole device's, every user's), or -1. */
static int64_t drv_num(const char *uri, const char *attr)
{
	char buf[64];

	return tool_kdev_attr(uri, attr, buf, sizeof(buf)) ? -1 : parse_num(buf);
}

void soak_res_read(struct fdma_dev *dev, const char *uri, struct soak_res *r)
{
	long page = sysconf(_SC_PAGESIZE);
	char line[128];
	unsigned long long sz, res;
	uint64_t bytes = 0;
	DIR *d;
	int n;

	r->rss_kib = -1;
	if (!tool_read_line("/proc/self/statm", line, sizeof(line)) &&
	    sscanf(line, "%llu %llu", &sz, &res) == 2)
		r->rss_kib = (int64_t)(res * (unsigned long long)page / 1024);
	r->fds = -1;
	d = opendir("/proc/self/fd");
	if (d) {
		struct dirent *e;

		r->fds = 0;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.')
				r->fds++;
		r->fds--;	/* the directory stream's own */
		closedir(d);
	}
	n = fdma_buf_count(dev, &bytes);
	r->lib_buffers = n;
	r->lib_bytes = n >= 0 ? (int64_t)bytes : -1;
	r->drv_buffers = drv_num(uri, "buffers");
	r->drv_pinned = drv_num(uri, "pinned_pages");
	r->drv_bytes = drv_num(uri, "allocated_bytes");
}
