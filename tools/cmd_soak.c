// SPDX-License-Identifier: MIT
/*
 * fdma soak: transfers for hours, every byte checked, with a sample every
 * so often and a verdict at the end: does throughput or latency drift,
 * does any card address differ, did anything fail, does anything leak.
 *
 * The work is a list of points (a direction, a transfer size, a card
 * address of the sweep), visited round and round: a visit points the
 * size's run (bench_run.h: two batches in flight, every byte checked) at
 * the address's window of card memory and measures it for --dwell
 * seconds. What visits count goes into the current sample; at the
 * sample's end the process's and the driver's resources and the power
 * sensors are read, and the sample is printed (soak_report.c).
 *
 * --cycle-buffers gives every buffer back and takes new ones at each
 * sample's end, alternating allocated and registered (pinned) host memory,
 * or importing the dma-buf again: the resources are read in between, with
 * nothing held, so a leak in that life cycle is a count that grows.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_run.h"
#include "fdma_cmds.h"
#include "soak.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fdma soak [URI] [options]   (URI: default $FDMA_DEVICE)\n"
		"  Moves data between host buffers and card memory for a long time, every\n"
		"  byte checked, and samples it: throughput, latency percentiles, CPU,\n"
		"  interrupts and errors per transfer size and card address, beside the\n"
		"  process's memory and files, the library's and the driver's buffers and\n"
		"  pinned pages, and the board's power sensors. Ends with a verdict: the\n"
		"  trend (first third against last third, a fitted slope), the spread across\n"
		"  card addresses, the errors and the sample they hit, and resource drift.\n"
		"options:\n"
		"  --duration D         how long (default 1h); D is 90, 90s, 10m, 12h or 1d\n"
		"  --every D            a sample every D (default: a thirtieth of the duration,\n"
		"                       at least 1s)\n"
		"  --sizes LIST         transfer sizes, 4K,64K,1M or 4K..4M (default 64K,1M;\n"
		"                       multiples of 64)\n"
		"  --dir c2h|h2c|both   directions (default both, one after the other)\n"
		"  --card-sweep START..END/STEP\n"
		"                       card addresses: a window of STEP bytes at START,\n"
		"                       START+STEP, ... below END (e.g. 0..2G/64M: 32 points);\n"
		"                       default: one window, the whole card\n"
		"  --mem host|dmabuf    host memory (default), or an imported dma-buf the CPU\n"
		"                       never touches, checked through the card (as bench)\n"
		"  --buffers N          transfers per batch; two batches in flight (default 8)\n"
		"  --cycle-buffers      give every buffer back and take new ones at each sample's\n"
		"                       end (host: allocated and registered, pinned, memory in\n"
		"                       turn; dmabuf: imported again), resources read in between\n"
		"  --dwell S            seconds per visit to a point (default: a fifth of a sample\n"
		"                       shared by the points, 0.05 to 2)\n"
		"  --max-drift PCT      fail when a size's throughput moves more than PCT%% from\n"
		"                       the first third to the last (default: reported, not judged)\n"
		"  --hwmon DIR          power sensors from DIR (default /sys/class/hwmon)\n"
		"  --json               one JSON object per sample, then the verdict's\n"
		"  --plot FILE.svg      throughput and latency against time, and against card\n"
		"                       address when there is a sweep\n"
		"  --no-progress        no live progress line (only shown on a terminal)\n"
		"  --help               this text\n"
		"Exit status: 0 no errors and no leak (and, with --max-drift, no drift); 1 an\n"
		"error, a leak or a drift; 2 usage. Ctrl-C ends the run with its verdict.\n"
		"Leak: a count (open fds, the library's buffers, the driver's buffers and pinned\n"
		"pages) higher at the last sample than at the first, or RSS grown by more than\n"
		"4 MiB and 10%%. The driver's counts are the whole device's (kdev: only).\n"
		"Units: MB/s is 10^6 bytes per second; sizes are in KiB/MiB (1024).\n");
}

/* 90, 90s, 10m, 12h, 1d, 1.5h: seconds in *out; -1 if not one. */
static int parse_duration(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end), mult = 1;

	if (end == s || !(v > 0))
		return -1;
	if (*end == 's')
		end++;
	else if (*end == 'm')
		mult = 60, end++;
	else if (*end == 'h')
		mult = 3600, end++;
	else if (*end == 'd')
		mult = 86400, end++;
	if (*end || v * mult > 366 * 86400.0)
		return -1;
	*out = v * mult;
	return 0;
}

/* START..END/STEP: -1 if not one. */
static int parse_sweep(const char *s, struct soak_opts *o)
{
	char lo[64], hi[64];
	const char *dots = strstr(s, ".."), *slash = strrchr(s, '/');

	if (!dots || !slash || slash < dots || (size_t)(dots - s) >= sizeof(lo) ||
	    (size_t)(slash - dots - 2) >= sizeof(hi))
		return -1;
	memcpy(lo, s, (size_t)(dots - s));
	lo[dots - s] = 0;
	memcpy(hi, dots + 2, (size_t)(slash - dots - 2));
	hi[slash - dots - 2] = 0;
	if (tool_parse_size(lo, &o->sweep_lo) || tool_parse_size(hi, &o->sweep_hi) ||
	    tool_parse_size(slash + 1, &o->sweep_step) || !o->sweep_step ||
	    o->sweep_hi <= o->sweep_lo)
		return -1;
	o->sweep = 1;
	return 0;
}

static int parse_opts(int argc, char **argv, struct soak_opts *o)
{
	static const struct option lopts[] = {
		{ "duration", required_argument, NULL, 'D' },
		{ "every", required_argument, NULL, 'e' },
		{ "sizes", required_argument, NULL, 's' },
		{ "dir", required_argument, NULL, 'd' },
		{ "card-sweep", required_argument, NULL, 'c' },
		{ "mem", required_argument, NULL, 'm' },
		{ "buffers", required_argument, NULL, 'b' },
		{ "cycle-buffers", no_argument, NULL, 'C' },
		{ "dwell", required_argument, NULL, 'w' },
		{ "max-drift", required_argument, NULL, 'x' },
		{ "hwmon", required_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, 'g' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	char *end;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'D':
			if (parse_duration(optarg, &o->duration)) {
				fprintf(stderr, "fdma soak: bad --duration '%s' (e.g. 90, 30s, 10m, 12h, 1d; up to a year)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'e':
			if (parse_duration(optarg, &o->every) || o->every < 1) {
				fprintf(stderr, "fdma soak: bad --every '%s' (e.g. 5s, 10m; at least 1s)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
			o->nsizes = tool_parse_sizes(optarg, o->sizes, MAX_SIZES);
			for (int k = 0; k < o->nsizes; k++)
				if (o->sizes[k] % 64 || o->sizes[k] > (1ull << 32) - 64)
					o->nsizes = -1;
			if (o->nsizes <= 0) {
				fprintf(stderr, "fdma soak: bad --sizes '%s' (e.g. 4K,64K,1M or 4K..4M; multiples of 64)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'd':
			o->dirs = !strcmp(optarg, "c2h") ? 1 : !strcmp(optarg, "h2c") ? 2 :
				  !strcmp(optarg, "both") ? 3 : 0;
			if (!o->dirs) {
				fprintf(stderr, "fdma soak: --dir must be c2h, h2c or both, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			if (parse_sweep(optarg, o)) {
				fprintf(stderr, "fdma soak: bad --card-sweep '%s' (START..END/STEP, e.g. 0..2G/64M; END above START)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'm':
			if (strcmp(optarg, "host") && strcmp(optarg, "dmabuf")) {
				fprintf(stderr, "fdma soak: --mem must be host or dmabuf, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			o->dmabuf = !strcmp(optarg, "dmabuf");
			break;
		case 'b':
			if (tool_parse_uint(optarg, 1, 512, &v)) {
				fprintf(stderr, "fdma soak: --buffers must be 1..512, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			o->buffers = (unsigned int)v;
			break;
		case 'C':
			o->cycle = 1;
			break;
		case 'w':
			if (tool_parse_secs(optarg, 60, &o->dwell)) {
				fprintf(stderr, "fdma soak: --dwell must be in (0, 60] seconds, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'x':
			o->max_drift = strtod(optarg, &end);
			if (end == optarg || *end || !(o->max_drift > 0) || o->max_drift > 100) {
				fprintf(stderr, "fdma soak: --max-drift must be a percentage in (0, 100], not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'H':
			o->hwmon = optarg;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'g':
			o->plot = optarg;
			break;
		case 'P':
			o->progress = 0;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return tool_usage_hint("soak");
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "fdma soak: one device URI, not also '%s', see --help\n", argv[optind + 1]);
		return EXIT_USAGE;
	}
	o->uri = tool_uri("soak", optind < argc ? argv[optind] : NULL);
	if (!o->uri)
		return EXIT_USAGE;
	if (!o->every)
		o->every = o->duration / 30 < 1 ? 1 : o->duration / 30;
	if (o->every > o->duration) {
		fprintf(stderr, "fdma soak: --every (%g s) is longer than --duration (%g s)\n",
			o->every, o->duration);
		return EXIT_USAGE;
	}
	if (o->plot && !strcmp(o->plot, "-")) {
		fprintf(stderr, "fdma soak: --plot needs a file: standard output carries the samples\n");
		return EXIT_USAGE;
	}
	return -1;
}

/* The points, address-major: a round walks the card, each address in every direction and size. */
static int make_points(struct soak *s)
{
	const struct soak_opts *o = &s->o;
	uint64_t card = s->info.card_size;

	if (o->sweep) {
		if (o->sweep_hi > card) {
			fprintf(stderr, "fdma soak: --card-sweep ends at 0x%" PRIx64 ", past the card's memory (0x%" PRIx64 " bytes)\n",
				o->sweep_hi, card);
			return -1;
		}
		/* Whole windows below END: counted in 64 bits before it is an int. */
		uint64_t n = (o->sweep_hi - o->sweep_lo) / o->sweep_step;

		/* Transfers are whole 64-byte units at 64-byte card addresses. */
		if (o->sweep_lo % 64 || o->sweep_step % 64) {
			fprintf(stderr, "fdma soak: --card-sweep START and STEP must be multiples of 64\n");
			return -1;
		}
		if (n < 1 || n > SOAK_MAX_ADDRS) {
			fprintf(stderr, "fdma soak: --card-sweep gives %" PRIu64 " windows of %" PRIu64
				" bytes: 1 to %d\n", n, o->sweep_step, SOAK_MAX_ADDRS);
			return -1;
		}
		s->win = o->sweep_step;
		s->naddr = (int)n;
	} else {
		s->win = card;
		s->naddr = 1;
	}
	s->ndirs = (o->dirs & 1) + !!(o->dirs & 2);
	s->npoints = s->naddr * s->ndirs * o->nsizes;
	/* Two latency histograms a point (this sample's, the run's): 16 KiB. */
	if (s->npoints > SOAK_MAX_POINTS) {
		fprintf(stderr, "fdma soak: %d points (addresses x directions x sizes): at most %d\n",
			s->npoints, SOAK_MAX_POINTS);
		return -1;
	}
	s->pts = calloc((size_t)s->npoints, sizeof(*s->pts));
	if (!s->pts)
		return -1;
	for (int a = 0, p = 0; a < s->naddr; a++)
		for (int d = 0; d < 2; d++)
			for (int z = 0; z < o->nsizes && (o->dirs & (1 << d)); z++, p++)
				s->pts[p] = (struct soak_point){ .dir = d ? FDMA_H2C : FDMA_C2H,
					.size = o->sizes[z],
					.addr = (o->sweep ? o->sweep_lo : 0) + (uint64_t)a * s->win,
					.series = (d && (o->dirs & 1) ? o->nsizes : 0) + z, .addr_i = a };
	s->nseries = s->ndirs * o->nsizes;
	return 0;
}

/* Each run's buffers: one per direction and size. 0, or -1 said why. */
static int open_runs(struct soak *s)
{
	for (int i = 0; i < s->nseries; i++) {
		const struct soak_point *p = NULL;
		struct bench_res res = { 0 };

		for (int k = 0; k < s->npoints && !p; k++)
			if (s->pts[k].series == i)
				p = &s->pts[k];
		s->bopt[i] = (struct bench_opts){ .cmd = "soak", .uri = s->o.uri, .dir = p->dir,
			.batch = s->o.buffers, .wait = FDMA_WAIT_ADAPTIVE, .seconds = s->dwell,
			.coal_count = -1, .coal_us = -1, .dmabuf = s->o.dmabuf,
			.register_mem = s->o.cycle && !s->o.dmabuf && (s->cycles & 1) };
		/* Counted before it can fail: a half-open run is closed as well. */
		s->open_runs = i + 1;
		if (bench_run_open(&s->runs[i], s->dev, &s->bopt[i], s->ch[p->dir == FDMA_H2C],
				   p->size, &res))
			return -1;
		if (res.exporter)
			s->exporter = res.exporter;
	}
	return 0;
}

static void close_runs(struct soak *s)
{
	for (int i = 0; i < s->open_runs; i++)
		bench_run_close(&s->runs[i], 1);
	s->open_runs = 0;
}

static void lat_to_hist(void *arg, double us)
{
	soak_hist_add(arg, us);
}

/*
 * One visit: the next part of the point's window, fresh slots, a measured
 * dwell. Each visit moves on by what the last one used, so the visits walk
 * the whole window. A visit the device did not finish (a reset needed, a
 * set-up copy that failed) counts as failed, and the channels are reset for
 * the next one.
 */
static int visit(struct soak *s, int pi)
{
	struct soak_point *p = &s->pts[pi];
	struct bench_run *r = &s->runs[p->series];
	struct soak_acc *a = &s->cur[pi];
	struct bench_res res = { .size = p->size };
	int ret;

	ret = bench_run_window(r, p->addr + p->off, s->win - p->off);
	if (!ret) {
		uint64_t used = r->view_addr + (s->o.dmabuf ? p->size : 0) - r->card_base;

		p->off = p->off + used + used <= s->win ? p->off + used : 0;
		p->walked |= !p->off;
		ret = bench_run_slots(r);
	}
	if (!ret) {
		r->lat_cb = lat_to_hist;
		r->lat_arg = &a->lat;
		ret = bench_run_measure(r, &res, NULL);
	}
	a->visits++;
	if (ret) {
		a->failed_visits++;
		if (bench_run_recover(r))
			return -1;
	}
	a->secs += res.secs;
	a->cpu_s += res.cpu_pct / 100 * res.secs;
	a->bytes += res.bytes;
	a->checked += res.bytes_checked;
	a->transfers += res.transfers;
	a->errors += res.errors;
	a->canceled += res.canceled;
	a->interrupts += res.interrupts;
	return ret;
}

/* At a sample's end: resources (with nothing held when cycling), the sample, new buffers. */
static int end_sample(struct soak *s, double now, int last)
{
	int ret = 0;

	if (s->o.cycle) {
		close_runs(s);
		s->cycles++;
	}
	soak_sample_close(s, now);
	/* Buffers that cannot be had again end the run, and fail it: cycling found that. */
	if (s->o.cycle && !last && open_runs(s)) {
		s->stopped = "buffers could not be taken again after a cycle";
		ret = -1;
	}
	return ret;
}

static int soak_run(struct soak *s)
{
	const struct soak_opts *o = &s->o;
	struct tool_progress prog;
	double tend, tnext, now;
	int p = 0, fails_in_row = 0, ret = 0;

	tool_progress_init(&prog, o->progress && !o->json);
	s->t0 = tool_now();
	tend = s->t0 + o->duration;
	tnext = s->t0 + o->every;
	soak_sample_open(s, 0);
	for (;;) {
		int v = visit(s, p);

		/* A device that fails every visit: no point hammering it for hours. */
		fails_in_row = v ? fails_in_row + 1 : 0;
		if (fails_in_row >= 2 * s->npoints + 8) {
			fprintf(stderr, "fdma soak: %d visits in a row failed: the device stopped working\n",
				fails_in_row);
			s->stopped = "the device stopped working";
			ret = -1;
		}
		p = (p + 1) % s->npoints;
		now = tool_now();
		if (tool_progress_due(&prog))
			tool_progress_show(&prog, "  sample %d: %.0f s of %.0f", s->nsamples + 1,
					   now - s->t0, o->duration);
		if (ret || tool_stop_requested() || now >= tnext || now >= tend) {
			int last = ret || tool_stop_requested() || now >= tend;

			tool_progress_end(&prog);
			s->interrupted = tool_stop_requested() && now < tend;
			if (end_sample(s, now, last))
				ret = -1;
			if (last || ret)
				break;
			tnext += o->every;
			/* A slow visit can pass more than one sample's end: no empty samples. */
			if (tnext <= now)
				tnext = now + o->every;
			soak_sample_open(s, now - s->t0);
		}
	}
	return ret;
}

int fdma_cmd_soak(int argc, char **argv)
{
	struct soak s = { .warm = -1, .o = { .duration = 3600, .dirs = 3, .buffers = 8, .max_drift = -1,
				 .hwmon = "/sys/class/hwmon", .progress = 1 } };
	int ret, need;

	s.o.nsizes = tool_parse_sizes("64K,1M", s.o.sizes, MAX_SIZES);
	ret = parse_opts(argc, argv, &s.o);
	if (ret >= 0)
		return ret;
	tool_catch_stop();
	if (tool_open(s.o.uri, &s.dev))
		return EXIT_FAIL;
	fdma_get_info(s.dev, &s.info);
	s.ch[0] = fdma_find_chan(s.dev, FDMA_C2H, FDMA_KIND_MM);
	s.ch[1] = fdma_find_chan(s.dev, FDMA_H2C, FDMA_KIND_MM);
	/* Every direction's check reads back through C2H; a dma-buf's also writes through H2C. */
	if (s.ch[0] < 0 || ((s.o.dirs & 2) || s.o.dmabuf ? s.ch[1] < 0 : 0) || !s.info.card_size) {
		fprintf(stderr, "fdma soak: %s has no card memory behind memory-mapped channels%s\n",
			s.o.uri, s.ch[0] < 0 ? "" : " both ways");
		ret = EXIT_USAGE;
		goto out;
	}
	need = (s.o.dmabuf ? 5 : 2) * (int)s.o.buffers;
	for (int d = 0; d < 2; d++)
		if (s.ch[d] >= 0 && (unsigned int)need > s.info.chan[s.ch[d]].ring_size) {
			fprintf(stderr, "fdma soak: --buffers %u needs %d ring entries, the ring has %u\n",
				s.o.buffers, need, s.info.chan[s.ch[d]].ring_size);
			ret = EXIT_USAGE;
			goto out;
		}
	if (make_points(&s)) {
		ret = EXIT_USAGE;
		goto out;
	}
	s.dwell = s.o.dwell > 0 ? s.o.dwell : s.o.every / 5 / s.npoints;
	if (!(s.o.dwell > 0))
		s.dwell = s.dwell < 0.05 ? 0.05 : s.dwell > 2 ? 2 : s.dwell;
	/* Every window must hold the regions its runs need: said now, not an hour in. */
	for (int p = 0; p < s.npoints; p++) {
		const struct soak_point *pt = &s.pts[p];
		uint64_t min = bench_run_min_window(s.o.buffers, s.o.dmabuf, pt->dir, pt->size);
		unsigned int fit = 0;

		if (min <= s.win)
			continue;
		while (fit < 512 && bench_run_min_window(fit + 1, s.o.dmabuf, pt->dir, pt->size) <= s.win)
			fit++;
		fprintf(stderr, "fdma soak: a %s window of %" PRIu64 " bytes cannot hold the regions %s transfers of %"
			PRIu64 " bytes need with --buffers %u (%" PRIu64 " bytes): ",
			s.o.sweep ? "--card-sweep" : "card", s.win, pt->dir == FDMA_H2C ? "H2C" : "C2H",
			pt->size, s.o.buffers, min);
		if (fit)
			fprintf(stderr, "--buffers %u fits, or a larger window\n", fit);
		else
			fprintf(stderr, "a larger window, or smaller --sizes\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (open_runs(&s) || soak_report_open(&s)) {
		ret = EXIT_FAIL;
		goto out;
	}
	soak_run(&s);
	close_runs(&s);
	ret = soak_report_close(&s) ? EXIT_FAIL : EXIT_OK;
out:
	close_runs(&s);
	soak_free(&s);
	fdma_close(s.dev);
	return ret;
}
