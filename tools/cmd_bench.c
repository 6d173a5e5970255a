// SPDX-License-Identifier: MIT
/*
 * fdma bench: throughput per transfer size beside the link ceiling, with
 * CPU use, wake-ups, latency and every byte checked. The measuring loop is
 * bench_run.c's (shared with fdma soak); this file holds the options, the
 * memcpy reference, the per-call mode and the table.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_run.h"
#include "fdma_cmds.h"
#include "plot.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fdma bench [URI] [options]   (URI: default $FDMA_DEVICE)\n"
		"  Moves data between host buffers and card memory and reports, per size,\n"
		"  throughput beside the link model's ceiling, host CPU, wake-ups,\n"
		"  completion latency and integrity (every byte moved is checked).\n"
		"options:\n"
		"  --dir h2c|c2h|copy   direction (default c2h; copy: buffer to buffer on a\n"
		"                       memory-to-memory channel, the default on a device with\n"
		"                       only those)\n"
		"  --sizes LIST         4K,64K,1M or 4K..4M (doubling; multiples of 64; default 4K..4M)\n"
		"  --batch N            transfers per submission and per reap (default 32)\n"
		"  --wait spin|sleep|adaptive   how to wait for completions (default adaptive)\n"
		"  --coalesce N[,US]    interrupt every N completions or US microseconds\n"
		"  --seconds S          time per size (default 2)\n"
		"  --hugepages          back buffers with huge pages where available (JSON\n"
		"                       hugepages says whether they were)\n"
		"  --per-call           the way Xilinx's XDMA driver is used: one transfer at a\n"
		"                       time from plain user memory, registered (pinned) for it\n"
		"                       and unregistered after (--batch is ignored)\n"
		"  --mem host|dmabuf    the buffers the device moves data to and from: host\n"
		"                       memory (default), or a dma-buf imported as GPU memory\n"
		"                       is, from /dev/dma_heap/system, else /dev/udmabuf (on\n"
		"                       sim:, else a memfd). The CPU never touches a dma-buf:\n"
		"                       it is filled and checked through the card; in C2H its\n"
		"                       read-backs share the link with the data (see below)\n"
		"  --no-progress        no live progress line (shown only when stderr is a terminal)\n"
		"  --wide               every column (default: the ones that fit 100 columns)\n"
		"  --json               one JSON object per size per line, with its settings\n"
		"  --plot FILE.svg      also draw the rows: MB/s against size beside the ceiling\n"
		"                       (memcpy when unpaced), host CPU, interrupts per transfer\n"
		"  --help               this text\n"
		"Units: MB/s is 10^6 bytes per second; sizes are in KiB/MiB (1024).\n"
		"Ceiling: the link model's payload ceiling for the size. An unpaced sim runs\n"
		"as fast as memory allows, so it has no ceiling (JSON null, '-' in tables);\n"
		"the same run then measures plain memcpy on the same buffers instead. rtl:\n"
		"paces its link in the RTL's clocks, not in real time: no ceiling either.\n"
		"Load: others%% (--wide, JSON others_cpu_pct) is the CPU other processes used\n"
		"meanwhile, in %% of a core: an unpaced run and memcpy share the CPUs with\n"
		"them, so their ratio moves with it (said under the table).\n"
		"Latency: p50/p99 us are from a transfer's submission to its completion being\n"
		"reaped, under load: they include queueing behind the up to 2 x batch\n"
		"transfers in flight ahead of it. idle p50/p99 (--wide, JSON idle_p50_us) are\n"
		"one transfer alone, submitted and waited for: the device's time for it plus\n"
		"the completion and wake-up path, no queueing.\n"
		"CPU: cpu_pct is the host side (this process's submitting thread: application\n"
		"and library) less the time spent checking data, reported apart as\n"
		"verify_cpu_pct; model_cpu_pct is the simulated device's threads, which stand\n"
		"in for the FPGA; process_cpu_pct is the whole process, model included.\n"
		"--mem dmabuf, C2H: each landed batch is copied to card memory (H2C) before\n"
		"its buffers are reused and read from there into host memory behind the data\n"
		"(C2H), so MB/s is what the link leaves the data, irq/s and latency include\n"
		"the read-backs, and their CPU counts as checking (vfy%%).\n"
		"Ctrl-C ends the run after the current size's figures.\n");
}


/*
 * The CPU other processes took over a window, in % of a core: the
 * machine's busy time less this process's (its device model included).
 */
struct load_win {
	double busy, proc, t;
};

static void load_start(struct load_win *w)
{
	w->busy = tool_machine_busy();
	w->proc = tool_proc_cpu();
	w->t = tool_now();
}

static double load_others_pct(const struct load_win *w)
{
	double busy = tool_machine_busy(), secs = tool_now() - w->t, v;

	if (w->busy < 0 || busy < 0 || secs <= 0)
		return -1;
	v = (busy - w->busy - (tool_proc_cpu() - w->proc)) / secs * 100;
	/* /proc/stat counts in ticks: a little less than this process's own is none. */
	return v > 0 ? v : 0;
}


/*
 * What it costs the CPU to move the same bytes itself: one thread copies
 * from a source as large as the card regions the device reads into the
 * same host buffer slots, in the same order, so both see the same working
 * set. Returns MB/s, 0 if the source cannot be had.
 */
static double memcpy_mbps(uint8_t *base, uint64_t size, unsigned int depth,
			  unsigned int regions, double secs)
{
	uint8_t *src = malloc(size * regions);
	double t0, t;
	uint64_t bytes = 0, i = 0;

	if (!src)
		return 0;
	for (unsigned int r = 0; r < regions; r++)
		tool_pat_fill(src + (uint64_t)r * size, size, r);
	t0 = tool_now();
	do {
		for (int k = 0; k < 16; k++, i++)
			memcpy(base + (i % depth) * size, src + (i % regions) * size, size);
		bytes += 16 * size;
		t = tool_now() - t0;
	} while (t < secs);
	free(src);
	return bytes / t / 1e6;
}


static int run_size(struct fdma_dev *dev, const struct bench_opts *o, int ch, uint64_t size,
		    struct bench_res *res, struct tool_progress *prog)
{
	struct bench_run r;
	struct load_win lw;
	int ret;

	memset(res, 0, sizeof(*res));
	res->size = size;
	res->others_cpu_pct = -1;
	/* From before the memcpy run to the end: both share the CPUs. */
	load_start(&lw);
	ret = bench_run_open(&r, dev, o, ch, size, res);
	if (!ret)
		ret = bench_run_window(&r, 0, r.info.card_size);
	/* Before the slots are set: the memcpy run overwrites them. */
	if (!ret && !r.info.link.paced && r.base)
		res->memcpy_mbps = memcpy_mbps(r.base, size, r.depth, r.regions,
					       o->seconds / 4 < 0.5 ? o->seconds / 4 : 0.5);
	if (!ret)
		ret = bench_run_slots(&r);
	if (ret)
		goto out;
	ret = bench_run_measure(&r, res, prog);
	res->others_cpu_pct = load_others_pct(&lw);
	tool_progress_end(prog);
	if (!ret && !tool_stop_requested())
		bench_run_idle_latency(&r, res);
	/* A Ctrl-C during the idle latency run cut that short too. */
	if (tool_stop_requested())
		res->interrupted = 1;
out:
	bench_run_close(&r, ret);
	return ret;
}

/*
 * --per-call: the usage of Xilinx's driver (a read() or write() per
 * transfer, the user buffer pinned into a scatter list for that call and
 * released after it): per transfer, register plain user memory (pinned),
 * submit one request, wait for it, unregister (unpinned). Every byte is
 * checked: C2H reads regions of known patterns; each H2C transfer is read
 * back at once through the C2H channel into a buffer of the bench's own
 * (its wall time is left out of the figures, its CPU is verify_cpu_pct). Syscalls
 * per transfer are the channel's (submit, waits) plus the registration's
 * two, one ioctl each on kdev (lib/kdev.c); none on sim, where
 * registering is a table entry. Pins are the pages each registration
 * pins, by construction.
 */
static int run_size_per_call(struct fdma_dev *dev, const struct bench_opts *o, int ch,
			     uint64_t size, struct bench_res *res)
{
	struct fdma_info info;
	struct fdma_chan_stats st0, st1;
	struct tool_lat lat = { 0 };
	unsigned int regions;
	uint64_t t, page = 4096, calls = 0;
	uint8_t *mem = NULL;
	double t0, cpu0, pcpu0, verify = 0, vwall = 0;
	int rb = -1, rbch = -1;
	struct load_win lw;
	bool kdev;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	res->size = size;
	load_start(&lw);
	fdma_get_info(dev, &info);
	kdev = !strcmp(info.backend, "kdev");
	regions = (unsigned int)(info.card_size / size < 64 ? info.card_size / size : 64);
	if (o->copy || regions < 2) {
		fprintf(stderr, "fdma bench: --per-call needs a memory-mapped channel and card memory for 2 regions\n");
		return -1;
	}
	mem = aligned_alloc(info.align > 4096 ? info.align : 4096, (size + 4095) & ~4095ull);
	if (!mem) {
		fprintf(stderr, "fdma bench: out of memory\n");
		return -1;
	}
	/* C2H reads regions of known patterns. */
	for (unsigned int r = 0; r < regions && o->dir == FDMA_C2H; r++) {
		int b = fdma_buf_register(dev, mem, size);

		tool_pat_fill(mem, size, r);
		if (b < 0 || fdma_write_card(dev, b, 0, (uint64_t)r * size, size) ||
		    fdma_buf_free(dev, b)) {
			fprintf(stderr, "fdma bench: preparing card memory: %s\n", fdma_errmsg(dev));
			ret = -1;
			goto out;
		}
	}
	if (o->dir == FDMA_H2C) {
		rbch = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM);
		rb = fdma_buf_alloc(dev, size, 0);
		if (rbch < 0 || rb < 0) {
			fprintf(stderr, "fdma bench: read-back set-up: %s\n", fdma_errmsg(dev));
			ret = -1;
			goto out;
		}
	}
	fdma_ceiling(dev, o->dir, size, &res->ceiling);
	fdma_chan_stats(dev, ch, &st0);
	t0 = tool_now();
	cpu0 = tool_thread_cpu();
	pcpu0 = tool_proc_cpu();
	for (t = 0; tool_now() - t0 - vwall < o->seconds && !tool_stop_requested(); t++) {
		unsigned int region = (unsigned int)(t % regions);
		struct fdma_req rq = { .card_addr = (uint64_t)region * size, .len = size, .user_data = t };
		struct fdma_cpl c;
		double ts, v0;
		int b, n;

		if (o->dir == FDMA_H2C)
			tool_pat_fill(mem, size, 1000 + t);
		ts = tool_now();
		b = fdma_buf_register(dev, mem, size);
		rq.buf = b;
		if (b < 0 || fdma_submit(dev, ch, &rq, 1) != 1 ||
		    (n = fdma_reap(dev, ch, &c, 1, 1, 5000000)) != 1) {
			fprintf(stderr, "fdma bench: transfer %" PRIu64 ": %s\n", t, fdma_errmsg(dev));
			if (b >= 0)
				fdma_buf_free(dev, b);
			ret = -1;
			break;
		}
		calls += 2;
		res->pins_per_xfer += (double)((size + page - 1) / page);
		if (fdma_buf_free(dev, b)) {
			fprintf(stderr, "fdma bench: unregister: %s\n", fdma_errmsg(dev));
			ret = -1;
			break;
		}
		tool_lat_add(&lat, (tool_now() - ts) * 1e6);
		res->transfers++;
		if (c.res) {
			res->errors++;
			continue;
		}
		res->bytes += c.len;
		v0 = tool_thread_cpu();
		if (o->dir == FDMA_C2H) {
			if (tool_pat_check(mem, size, region))
				res->errors++;
		} else {
			double w0 = tool_now();
			uint8_t *p = fdma_buf_addr(dev, rb);

			memset(p, 0, size);
			if (fdma_read_card(dev, rb, 0, rq.card_addr, size)) {
				fprintf(stderr, "fdma bench: read-back: %s\n", fdma_errmsg(dev));
				ret = -1;
				break;
			}
			if (tool_pat_check(p, size, 1000 + t))
				res->errors++;
			vwall += tool_now() - w0;
		}
		res->bytes_checked += size;
		verify += tool_thread_cpu() - v0;
	}
	res->secs = tool_now() - t0 - vwall;
	res->cpu_pct = (tool_thread_cpu() - cpu0 - verify) / res->secs * 100;
	res->verify_cpu_pct = verify / res->secs * 100;
	res->process_cpu_pct = (tool_proc_cpu() - pcpu0) / res->secs * 100;
	fdma_chan_stats(dev, ch, &st1);
	if (res->transfers) {
		res->syscalls_per_xfer = (double)(st1.syscalls - st0.syscalls + (kdev ? calls : 0)) /
					 res->transfers;
		res->pins_per_xfer /= res->transfers;
	}
	bench_res_rates(res, &st0, &st1, &lat);
	res->others_cpu_pct = load_others_pct(&lw);
	res->interrupted = tool_stop_requested();
out:
	if (rb >= 0)
		fdma_buf_free(dev, rb);
	tool_lat_free(&lat);
	free(mem);
	return ret;
}

/* A JSON number, or null for what this device cannot tell (no link model, no model CPU). */
static void json_num(const char *key, double v, int known, const char *fmt)
{
	printf(",\"%s\":", key);
	if (known)
		printf(fmt, v);
	else
		printf("null");
}

static const char *wait_name(enum fdma_wait_mode w)
{
	return w == FDMA_WAIT_SPIN ? "spin" : w == FDMA_WAIT_SLEEP ? "sleep" : "adaptive";
}

/* Sizes in tables: binary units, said as such (4KiB, 1MiB). */
static void fmt_size(uint64_t v, char *buf, size_t len)
{
	tool_fmt_size(v, buf, len);
	if (strchr("KMG", buf[strlen(buf) - 1]) && strlen(buf) + 3 < len)
		strcat(buf, "iB");
}

static void print_header(const struct bench_opts *o, const struct fdma_info *info)
{
	double ceil = o->dir == FDMA_C2H ? info->link.write_mbps : info->link.read_mbps;
	/* rtl: is paced, but in its clocks: neither a real-time ceiling nor memcpy beside. */
	int rt = tool_realtime(info), unpaced = !info->link.paced;

	if (o->copy && info->link.read_mbps < ceil)
		ceil = info->link.read_mbps;
	/* Two lines: each fits 100 columns, like the table. */
	printf("%s\n  %s, batch %u, wait %s", info->name,
	       o->copy ? "copy (device reads and writes host memory)" :
	       o->dir == FDMA_C2H ? "C2H (device writes)" : "H2C (device reads)", o->batch,
	       wait_name(o->wait));
	if (o->coal_count >= 0)
		printf(", coalesce %d,%d us", o->coal_count, o->coal_us);
	if (o->dmabuf)
		printf(", dma-buf checked through the card");
	if (unpaced)
		printf(", no link ceiling (unpaced)%s\n", o->dmabuf ? "" : ": memcpy beside");
	else if (!rt)
		printf(",\n  link paced in the RTL's clocks, not in real time: no ceiling\n");
	else if (ceil > 0)
		printf(", link ceiling %s %.1f MB/s\n",
		       o->copy ? "copy" : o->dir == FDMA_C2H ? "write" : "read", ceil);
	else
		printf(", link unknown: no ceiling\n");
	printf("%6s %9s", "size", "MB/s");
	if (rt || o->wide)
		printf(" %9s %6s", "ceiling", "%ceil");
	if (unpaced)
		printf(" %9s %7s", "memcpy", "%memcpy");
	printf(" %6s %6s", "cpu%", "vfy%");
	if (o->wide)
		printf(" %6s %7s", "model%", "others%");
	printf(" %9s %9s", "irq/s", "wakeup/s");
	if (o->wide)
		printf(" %8s %10s", "sys/xfer", "xfer/s");
	printf(" %8s %8s", "p50 us", "p99 us");
	if (o->wide)
		printf(" %8s %8s %10s", "idle p50", "idle p99", "chk MB");
	printf(" %6s", "errors");
	if (o->wide)
		printf(" %4s", "huge");
	printf("\n");
}

static void print_row(const struct bench_opts *o, const struct fdma_info *info,
		      const struct bench_res *r)
{
	int sim = !strcmp(info->backend, "sim") || !strcmp(info->backend, "rtl");
	/*
	 * An unpaced device runs as fast as memory allows, rtl: at the pace of
	 * its simulation: a link ceiling would mean nothing beside either.
	 */
	int paced = tool_realtime(info), unpaced = !info->link.paced;
	int ceil_known = paced && r->ceiling > 0;
	char sz[32];

	fmt_size(r->size, sz, sizeof(sz));
	if (o->json) {
		printf("{\"uri\":");
		tool_json_str(stdout, o->uri);
		printf(",\"backend\":");
		tool_json_str(stdout, info->backend);
		printf(",\"dir\":\"%s\",\"size\":%" PRIu64 ",\"batch\":%u,\"wait\":\"%s\"",
		       o->copy ? "copy" : o->dir == FDMA_C2H ? "c2h" : "h2c", r->size, o->batch,
		       wait_name(o->wait));
		json_num("coalesce_count", o->coal_count, o->coal_count >= 0, "%.0f");
		json_num("coalesce_us", o->coal_us, o->coal_count >= 0, "%.0f");
		printf(",\"paced\":%s,\"hugepages_requested\":%s,\"hugepages\":%s,\"seconds\":%g,"
		       "\"elapsed_s\":%.3f,\"mbps\":%.1f",
		       paced ? "true" : "false", o->hugepages ? "true" : "false",
		       r->huge_used ? "true" : "false", o->seconds, r->secs, r->mbps);
		json_num("ceiling_mbps", r->ceiling, ceil_known, "%.1f");
		json_num("pct_ceiling", ceil_known ? r->mbps / r->ceiling * 100 : 0, ceil_known, "%.1f");
		printf(",\"cpu_pct\":%.2f,\"verify_cpu_pct\":%.2f", r->cpu_pct, r->verify_cpu_pct);
		json_num("model_cpu_pct", r->model_cpu_pct, sim, "%.1f");
		printf(",\"process_cpu_pct\":%.1f,\"wakeups_per_s\":%.1f,\"irqs_per_s\":%.1f,"
		       "\"irqs_per_completion\":%.4f,\"syscalls_per_transfer\":%.4f,"
		       "\"transfers_per_s\":%.0f,\"p50_us\":%.1f,\"p99_us\":%.1f,"
		       "\"mode\":\"%s\",\"pins_per_transfer\":%.2f,\"cpu_s_per_gb\":%.3f",
		       r->process_cpu_pct, r->wakeups_per_s, r->irqs_per_s, r->irqs_per_cpl,
		       r->syscalls_per_xfer, r->transfers_per_s, r->p50, r->p99,
		       o->per_call ? "per_call" : "batched", r->pins_per_xfer, r->cpu_s_per_gb);
		json_num("idle_p50_us", r->idle_p50, r->idle_n > 0, "%.1f");
		json_num("idle_p99_us", r->idle_p99, r->idle_n > 0, "%.1f");
		printf(",\"bytes\":%" PRIu64 ",\"bytes_checked\":%" PRIu64 ",\"errors\":%" PRIu64
		       ",\"canceled\":%" PRIu64, r->bytes, r->bytes_checked, r->errors, r->canceled);
		json_num("memcpy_mbps", r->memcpy_mbps, unpaced && r->memcpy_mbps > 0, "%.1f");
		json_num("pct_memcpy", r->memcpy_mbps > 0 ? r->mbps / r->memcpy_mbps * 100 : 0,
			 unpaced && r->memcpy_mbps > 0, "%.1f");
		json_num("others_cpu_pct", r->others_cpu_pct, r->others_cpu_pct >= 0, "%.1f");
		printf(",\"mem\":\"%s\",\"exporter\":", o->dmabuf ? "dmabuf" : "host");
		if (r->exporter)
			tool_json_str(stdout, r->exporter);
		else
			printf("null");
		printf(",\"check\":\"%s\",\"interrupted\":%s}\n",
		       o->dmabuf ? "card" : "cpu", r->interrupted ? "true" : "false");
	} else {
		printf("%6s %9.1f", sz, r->mbps);
		if (paced || o->wide) {
			if (ceil_known)
				printf(" %9.1f %5.1f%%", r->ceiling, r->mbps / r->ceiling * 100);
			else
				printf(" %9s %6s", "-", "-");
		}
		if (unpaced) {
			if (r->memcpy_mbps > 0)
				printf(" %9.1f %6.1f%%", r->memcpy_mbps, r->mbps / r->memcpy_mbps * 100);
			else
				printf(" %9s %7s", "-", "-");
		}
		printf(" %6.2f %6.2f", r->cpu_pct, r->verify_cpu_pct);
		if (o->wide) {
			if (sim)
				printf(" %6.1f", r->model_cpu_pct);
			else
				printf(" %6s", "-");
			if (r->others_cpu_pct >= 0)
				printf(" %7.1f", r->others_cpu_pct);
			else
				printf(" %7s", "-");
		}
		printf(" %9.0f %9.0f", r->irqs_per_s, r->wakeups_per_s);
		if (o->wide)
			printf(" %8.3f %10.0f", r->syscalls_per_xfer, r->transfers_per_s);
		printf(" %8.1f %8.1f", r->p50, r->p99);
		if (o->wide) {
			if (r->idle_n)
				printf(" %8.1f %8.1f", r->idle_p50, r->idle_p99);
			else
				printf(" %8s %8s", "-", "-");
			printf(" %10.1f", r->bytes_checked / 1e6);
		}
		printf(" %6" PRIu64, r->errors);
		if (o->wide)
			printf(" %4s", r->huge_used ? "yes" : "no");
		printf("\n");
	}
	fflush(stdout);
}

int fdma_cmd_bench(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "sizes", required_argument, NULL, 's' },
		{ "batch", required_argument, NULL, 'b' },
		{ "wait", required_argument, NULL, 'w' },
		{ "coalesce", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 't' },
		{ "hugepages", no_argument, NULL, 'H' },
		{ "per-call", no_argument, NULL, 'p' },
		{ "mem", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, 'g' },
		{ "wide", no_argument, NULL, 'W' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opts o = { .cmd = "bench", .dir = FDMA_C2H, .copy = -1, .batch = 32, .wait = FDMA_WAIT_ADAPTIVE,
				.seconds = 2, .coal_count = -1, .coal_us = -1, .progress = 1 };
	struct fdma_dev *dev;
	struct fdma_info info;
	struct plot_fig fig = { 0 };
	double others_lo = -1, others_hi = -1;
	int opt, ch, fails = 0;
	char *end;

	o.nsizes = tool_parse_sizes("4K..4M", o.sizes, MAX_SIZES);
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			o.copy = 0;
			if (!strcmp(optarg, "h2c")) {
				o.dir = FDMA_H2C;
			} else if (!strcmp(optarg, "c2h")) {
				o.dir = FDMA_C2H;
			} else if (!strcmp(optarg, "copy")) {
				o.copy = 1;
			} else {
				fprintf(stderr, "fdma bench: --dir must be h2c, c2h or copy, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
			o.nsizes = tool_parse_sizes(optarg, o.sizes, MAX_SIZES);
			for (int k = 0; k < o.nsizes; k++)
				if (o.sizes[k] % 64 || o.sizes[k] > (1ull << 32) - 64)
					o.nsizes = -1;
			if (o.nsizes <= 0) {
				fprintf(stderr, "fdma bench: bad --sizes '%s' (e.g. 4K,64K,1M or 4K..4M; multiples of 64)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'b':
			o.batch = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || o.batch < 1 || o.batch > 512) {
				fprintf(stderr, "fdma bench: --batch must be 1..512, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'w':
			if (tool_parse_wait(optarg, &o.wait)) {
				fprintf(stderr, "fdma bench: --wait must be spin, sleep or adaptive, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			o.coal_count = (int)strtol(optarg, &end, 10);
			o.coal_us = 0;
			if (end != optarg && *end == ',')
				o.coal_us = (int)strtol(end + 1, &end, 10);
			if (end == optarg || *end || o.coal_count < 0 || o.coal_count > 65536 ||
			    o.coal_us < 0 || o.coal_us > 1000000) {
				fprintf(stderr, "fdma bench: bad --coalesce '%s' (N or N,USECS; N <= 65536, USECS <= 1000000)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			o.seconds = strtod(optarg, &end);
			if (*end || !(o.seconds > 0) || o.seconds > 3600) {
				fprintf(stderr, "fdma bench: --seconds must be in (0, 3600], not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'H':
			o.hugepages = 1;
			break;
		case 'p':
			o.per_call = 1;
			break;
		case 'm':
			if (strcmp(optarg, "host") && strcmp(optarg, "dmabuf")) {
				fprintf(stderr, "fdma bench: --mem must be host or dmabuf, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			o.dmabuf = !strcmp(optarg, "dmabuf");
			break;
		case 'j':
			o.json = 1;
			break;
		case 'g':
			o.plot = optarg;
			break;
		case 'W':
			o.wide = 1;
			break;
		case 'P':
			o.progress = 0;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return tool_usage_hint("bench");
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "fdma bench: one device URI, not also '%s', see --help\n",
			argv[optind + 1]);
		return EXIT_USAGE;
	}
	o.uri = tool_uri("bench", optind < argc ? argv[optind] : NULL);
	if (!o.uri)
		return EXIT_USAGE;
	if (o.dmabuf && (o.per_call || o.hugepages || o.copy == 1)) {
		fprintf(stderr, "fdma bench: --mem dmabuf moves data between a dma-buf and card memory: not with %s\n",
			o.per_call ? "--per-call" : o.hugepages ? "--hugepages" : "--dir copy");
		return EXIT_USAGE;
	}
	if (o.per_call)
		o.batch = 1;	/* one transfer at a time: that is the mode */
	/* Before anything slow: a Ctrl-C during the set-up still gets a row. */
	tool_catch_stop();
	if (tool_open(o.uri, &dev))
		return EXIT_FAIL;
	fdma_get_info(dev, &info);
	/* No --dir: copies where the device has nothing else to measure. */
	if (o.copy < 0)
		o.copy = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM) < 0 &&
			 fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MEM) >= 0;
	if (o.dmabuf && o.copy) {
		fprintf(stderr, "fdma bench: --mem dmabuf needs memory-mapped channels and card memory; %s has none\n",
			o.uri);
		fdma_close(dev);
		return EXIT_USAGE;
	}
	ch = fdma_find_chan(dev, o.dir, o.copy ? FDMA_KIND_MEM : FDMA_KIND_MM);
	if (ch < 0 || fdma_chan_set_wait(dev, ch, o.wait, 0) ||
	    (o.coal_count >= 0 && fdma_chan_set_coalesce(dev, ch, (unsigned int)o.coal_count,
							 (unsigned int)o.coal_us))) {
		fprintf(stderr, "fdma bench: %s\n", fdma_errmsg(dev));
		fdma_close(dev);
		return EXIT_FAIL;
	}
	/* Two batches in flight, and 3 of read-backs beside them (struct cardchk). */
	if ((o.dmabuf && o.dir == FDMA_C2H ? 5 : 2) * o.batch > info.chan[ch].ring_size) {
		fprintf(stderr, "fdma bench: --batch %u needs %u ring entries, the ring has %u\n",
			o.batch, (o.dmabuf && o.dir == FDMA_C2H ? 5 : 2) * o.batch,
			info.chan[ch].ring_size);
		fdma_close(dev);
		return EXIT_USAGE;
	}
	/* The figure's file first: a bad path fails now, not after the run. */
	if (o.plot) {
		char title[300];

		snprintf(title, sizeof(title), "fdma bench %s (%s, batch %u, wait %s)", o.uri,
			 o.copy ? "copy" : o.dir == FDMA_C2H ? "C2H" : "H2C", o.batch, wait_name(o.wait));
		if (plot_bench_begin(&fig, o.plot, title, dev,
				     tool_realtime(&info) ? 1 : info.link.paced ? -1 : 0)) {
			fdma_close(dev);
			return EXIT_FAIL;
		}
	}
	if (!o.json) {
		print_header(&o, &info);
		fflush(stdout);
	}
	/*
	 * Ctrl-C is looked at after each size: one that came during the set-up
	 * still ends the first size at once, with its row (interrupted).
	 */
	for (int i = 0; i < o.nsizes; i++) {
		struct bench_res r;
		struct tool_progress prog;
		char sz[32];

		fmt_size(o.sizes[i], sz, sizeof(sz));
		tool_progress_init(&prog, o.progress && !o.json);
		if ((o.per_call ? run_size_per_call(dev, &o, ch, o.sizes[i], &r)
				: run_size(dev, &o, ch, o.sizes[i], &r, &prog))) {
			fails++;
		} else {
			print_row(&o, &info, &r);
			/* What the row says: the ceiling where it shows one, memcpy where unpaced. */
			plot_bench_row(&fig, &(struct plot_bench_row){ .size = r.size, .mbps = r.mbps,
				.ceiling = tool_realtime(&info) ? r.ceiling : 0,
				.memcpy_mbps = info.link.paced ? 0 : r.memcpy_mbps,
				.cpu_pct = r.cpu_pct, .irqs_per_xfer = r.irqs_per_cpl });
			if (r.others_cpu_pct >= 0) {
				others_lo = others_lo < 0 || r.others_cpu_pct < others_lo ?
					    r.others_cpu_pct : others_lo;
				others_hi = r.others_cpu_pct > others_hi ? r.others_cpu_pct : others_hi;
			}
			/* The row says it too, but an exit status of 1 needs its reason on stderr. */
			if (r.errors) {
				fprintf(stderr, "fdma bench: the %s run had %" PRIu64
					" errors (failed transfers or bytes that did not match)\n", sz, r.errors);
				fails++;
			}
		}
		if (tool_stop_requested()) {
			fprintf(stderr, "fdma bench: interrupted during the %s run\n", sz);
			break;
		}
	}
	/*
	 * Unpaced, the figures are the software's share of the CPUs, and so is
	 * memcpy's: what else ran meanwhile moves both, and their ratio.
	 */
	if (!o.json && !info.link.paced && others_hi >= 0)
		printf("  load: other processes used %.0f-%.0f%% of a core meanwhile, on %ld CPUs; the run\n"
		       "  and memcpy shared them, so MB/s and %%memcpy move with that load\n",
		       others_lo, others_hi, sysconf(_SC_NPROCESSORS_ONLN));
	if (plot_fig_end(&fig))
		fails++;
	fdma_close(dev);
	return fails ? EXIT_FAIL : EXIT_OK;
}
