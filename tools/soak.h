/* SPDX-License-Identifier: MIT */
/*
 * soak.h - fdma soak's pieces: what a long run accumulates per sample and
 * per point (a direction, a transfer size, a card address), the system's
 * resources and power sensors sampled beside it, and the report.
 *
 * cmd_soak.c runs the transfers (through bench_run.h) and the samples;
 * soak_stats.c keeps latency histograms, fits trends and reads the
 * process's and the driver's resources and the hwmon sensors;
 * soak_report.c prints the samples, the verdict and the figure.
 */
#ifndef FDMA_TOOL_SOAK_H
#define FDMA_TOOL_SOAK_H

#include <stdint.h>
#include <stdio.h>

#include "fdma.h"

/*
 * Latencies in a log histogram: 32 buckets per octave from 1/4 us, so a
 * percentile (interpolated in its bucket) is within 2.2% of the true value
 * whatever the run's length, in constant memory (a 12-hour run at a
 * million transfers a second would not fit as a list of samples). The
 * mean is exact.
 */
#define SOAK_HIST_PER_OCT	32
#define SOAK_HIST_OCTAVES	32
#define SOAK_HIST_N		(SOAK_HIST_PER_OCT * SOAK_HIST_OCTAVES)

struct soak_hist {
	uint64_t n;
	double max, sum;
	uint64_t b[SOAK_HIST_N];
};

void soak_hist_add(struct soak_hist *h, double us);
void soak_hist_merge(struct soak_hist *to, const struct soak_hist *from);
/* The pct-th percentile, 0 when empty. */
double soak_hist_pct(const struct soak_hist *h, double pct);

/* What transfers of one point (or a sum of points) did in a sample. */
struct soak_acc {
	double secs;			/* timed, in measurement windows */
	double cpu_s;			/* host thread CPU, checking not counted */
	uint64_t bytes, checked, transfers, errors, canceled;
	uint64_t failed_visits;		/* visits the channel could not finish (reset after) */
	uint64_t visits, interrupts;
	struct soak_hist lat;
};

void soak_acc_add(struct soak_acc *to, const struct soak_acc *from);
double soak_acc_mbps(const struct soak_acc *a);	/* -1: nothing timed */
/*
 * Errors: failed transfers, data that did not match, visits the channel
 * could not finish. Transfers canceled behind a failed one are not
 * counted again (soak_acc's canceled).
 */
uint64_t soak_acc_faults(const struct soak_acc *a);

/* Power sensors (hwmon): power*_input, or an INA3221's in/curr pairs. */
#define SOAK_MAX_SENSORS 16

struct soak_power {
	int n;
	char name[SOAK_MAX_SENSORS][48];	/* "hwmon name/label" */
	double watts[SOAK_MAX_SENSORS];
};

/* The sensors under dir (/sys/class/hwmon): how many, 0 with none. */
int soak_power_read(const char *dir, struct soak_power *pw);

/*
 * Resources sampled at each sample's end. -1: not known here (the
 * driver's counts on sim:, a /proc this system lacks).
 */
struct soak_res {
	int64_t rss_kib, fds;
	int64_t lib_buffers, lib_bytes;		/* fdma_buf_count(): this process's handles */
	int64_t drv_buffers, drv_pinned;	/* the driver's, the whole device (kdev:) */
	int64_t drv_bytes;			/* the driver's allocated bytes */
};

#define SOAK_NRES 7
extern const char *const soak_res_names[SOAK_NRES];	/* JSON keys, in order */
extern const char *const soak_res_what[SOAK_NRES];	/* for people */
int64_t soak_res_get(const struct soak_res *r, int i);
void soak_res_read(struct fdma_dev *dev, const char *uri, struct soak_res *r);

/*
 * Least squares line through (x[i], y[i]): its slope, 0 with fewer than
 * two points or no spread in x.
 */
double soak_slope(const double *x, const double *y, int n);

/* ---- the run (cmd_soak.c) and its report (soak_report.c) ---- */

#include "bench_run.h"

#define SOAK_MAX_ADDRS	4096
#define SOAK_MAX_POINTS	4096

struct soak_opts {
	const char *uri;
	double duration, every, dwell;	/* seconds; dwell 0: chosen */
	uint64_t sizes[MAX_SIZES];
	int nsizes;
	int dirs;			/* bit 0: C2H, bit 1: H2C */
	int sweep;
	uint64_t sweep_lo, sweep_hi, sweep_step;
	int dmabuf, cycle, json, progress;
	unsigned int buffers;
	double max_drift;		/* %, or -1: not judged */
	const char *plot, *hwmon;
};

/* A direction, a transfer size (its series) and a card address. */
struct soak_point {
	enum fdma_dir dir;
	uint64_t size, addr;
	int series;			/* the direction and size's index, and its run's */
	int addr_i;
	uint64_t off;			/* where the next visit starts in the window */
	int walked;			/* the visits have been through the whole window */
};

/* A point's or a series' figures in one sample. */
struct soak_sum {
	double secs, mbps, mean_us, p50, p99, p999, max_us, cpu_pct, irqs_per_s;
	uint64_t bytes, checked, transfers, faults, canceled;
};

struct soak_sample {
	double t0, t1;			/* since the start, seconds */
	struct soak_sum *series;	/* [nseries] */
	struct soak_res res;
	struct soak_power pw;
	double proc_cpu_pct;
	uint64_t faults;
	char fault_at[112];		/* the first point with faults, for the verdict */
	int interrupted;
};

struct soak {
	struct soak_opts o;
	struct fdma_dev *dev;
	struct fdma_info info;
	int ch[2];			/* C2H, H2C memory-mapped channels */
	struct soak_point *pts;
	int npoints, naddr, ndirs, nseries;
	uint64_t win;			/* each address's window of card memory */
	double dwell;
	struct bench_opts bopt[2 * MAX_SIZES];
	struct bench_run runs[2 * MAX_SIZES];
	int open_runs, cycles;
	const char *exporter;
	struct soak_acc *cur;		/* [npoints]: this sample's */
	struct soak_acc *tot;		/* [npoints]: the whole run's */
	struct soak_sample *samples;
	int nsamples, max_samples;
	double t0, cpu0;
	int interrupted;
	const char *stopped;		/* why the run ended early (a failure), or NULL */
	/*
	 * The first sample (0-based) by whose end every window had been walked,
	 * or -1: on sim: the card's memory is the process's, and RSS grows
	 * until then by what the walk first touches.
	 */
	int warm;
	FILE *plot_f;
};

/* Sample storage, the header line, the figure's file: 0, or -1 said why. */
int soak_report_open(struct soak *s);
/* A new sample starting at t (seconds since the start). */
void soak_sample_open(struct soak *s, double t);
/* The sample ends at now: its resources read, its line or JSON printed. */
void soak_sample_close(struct soak *s, double now);
/* The verdict (and the figure): 0 pass, 1 fail, -1 the figure not written. */
int soak_report_close(struct soak *s);
void soak_free(struct soak *s);

#endif
