// SPDX-License-Identifier: MIT
/*
 * fdma loop: frames out of an H2C stream channel and back in on a C2H
 * stream channel, through a loopback in the design (or the model's joined
 * stream pairs, sim:loop=1), as a NIC's transmit and receive rings: packets
 * per second and Mbit/s per frame size, doorbells and interrupts per
 * packet, CPU, every byte and the order checked. Two ring disciplines:
 *
 * - per-packet: the simplest driver. One frame posted, its doorbell, then
 *   sleep until its completion's interrupt; the receiver takes one frame
 *   per interrupt and gives its buffer back at once (a doorbell each); no
 *   interrupt coalescing.
 * - batched: what NIC drivers do. Bursts of frames with one doorbell, two
 *   bursts in flight; the receiver takes whole batches per wake-up and
 *   gives the buffers back in one doorbell; interrupts coalesced.
 *
 * The sender runs in a thread of its own, the receiver in the main thread.
 * Frame k carries k in its first 8 bytes and a pattern of k after them, so
 * a lost, repeated, reordered or damaged frame is an error.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdma_cmds.h"
#include "plot.h"
#include "util.h"

#define MAX_SIZES	16
#define RX_BUFS		256	/* receive buffers posted */
#define TX_SLOTS	256	/* transmit frames kept, each reused after its completion */

enum loop_mode { MODE_PER_PACKET, MODE_BATCHED };

struct loop_opts {
	const char *uri;
	int tx, rx;
	uint64_t sizes[MAX_SIZES];
	int nsizes;
	unsigned int burst;
	double seconds;
	int modes;		/* bit per enum loop_mode */
	int json, progress;
	char host_cpus[256];	/* host_cpus() */
	const char *plot;	/* --plot FILE.svg */
};

struct loop_run {
	struct fdma_dev *dev;
	const struct loop_opts *o;
	enum loop_mode mode;
	uint32_t size;
	uint32_t rslot;		/* a receive buffer: size, rounded up to the channel's length unit (XDMA: 64) */
	int txbuf, rxbuf;
	uint8_t *tx, *rxp;
	atomic_bool stop;
	atomic_bool finished;	/* the sender is done: sent is final */
	atomic_uint_fast64_t sent;
	double tx_cpu;
	int tx_err;
};

struct loop_res {
	uint64_t frames, bytes, errors;
	int interrupted;	/* Ctrl-C (or SIGTERM) ended this run early */
	/* The rates' window, start to stop: what the wire still held after it is checked, not timed. */
	uint64_t win_frames, win_bytes;
	double secs, pps, mbps, mbit_s, cpu_pct, verify_cpu_pct, model_cpu_pct;
	double doorbells_per_pkt, irqs_per_pkt;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fdma loop [URI] [options]   (URI: default $FDMA_DEVICE)\n"
		"  Sends frames out of an H2C stream channel and takes them back on a C2H\n"
		"  stream channel, through a loopback in the design or the simulated\n"
		"  device's joined stream pairs (sim:loop=1): packets per second, Mbit/s,\n"
		"  doorbells and interrupts per packet, CPU; every byte and the order checked.\n"
		"options:\n"
		"  --sizes LIST        frame sizes in bytes, e.g. 64,1500 (default 64,128,256,512,1024,1500)\n"
		"  --mode per-packet|batched|both   the ring discipline (default both):\n"
		"                      per-packet: a doorbell per frame, wait for its interrupt,\n"
		"                      one frame per receive wake-up, no coalescing;\n"
		"                      batched: bursts with one doorbell, coalesced interrupts,\n"
		"                      batches per wake-up, buffers given back in batches\n"
		"  --burst N           frames per burst in batched mode (default 32)\n"
		"  --seconds S         time per size and mode (default 2)\n"
		"  --tx CH, --rx CH    the channels (default: the first H2C stream channel, and\n"
		"                      the C2H stream channel sim:loop=1 joins it to)\n"
		"  --no-progress       no live progress line (shown only when stderr is a terminal)\n"
		"  --json              one JSON object per size and mode\n"
		"  --plot FILE.svg     also draw the rows: frames/s against frame size per mode,\n"
		"                      interrupts and doorbells per frame\n"
		"  --help              this text\n"
		"pps counts frames received; Mbit/s their bytes (10^6 bits/s; JSON mbit_s,\n"
		"and mbps in MB/s, 10^6 bytes/s, as every command's), without any Ethernet\n"
		"overhead. cpu%% is both threads (sender and receiver) less the checking,\n"
		"shown apart; model%% is the simulated device's threads. Ctrl-C ends the\n"
		"run with the current size's row (interrupted) and exits 0.\n");
}

/* Frame k: k, then the pattern of k (any byte offset: a slot is size * i). */
static void frame_fill(uint8_t *p, uint32_t size, uint64_t k)
{
	memcpy(p, &k, size < 8 ? size : 8);
	if (size > 8)
		tool_pat_fill(p + 8, size - 8, k);
}

static int frame_check(const uint8_t *p, uint32_t size, uint64_t k)
{
	if (memcmp(p, &k, size < 8 ? size : 8))
		return -1;
	return size > 8 && tool_pat_check(p + 8, size - 8, k) ? -1 : 0;
}

/*
 * The sender. per-packet: one frame, its doorbell, its completion (an
 * interrupt away). batched: up to two bursts in flight, each one doorbell.
 */
static void *sender(void *arg)
{
	struct loop_run *r = arg;
	unsigned int burst = r->mode == MODE_BATCHED ? r->o->burst : 1;
	unsigned int window = r->mode == MODE_BATCHED ? 2 * burst : 1;
	struct fdma_req *req = calloc(burst, sizeof(*req));
	struct fdma_cpl *cpl = calloc(window, sizeof(*cpl));
	uint64_t next = 0, done = 0;
	double c0 = tool_thread_cpu();

	if (!req || !cpl) {
		r->tx_err = -ENOMEM;
		goto out;
	}
	while (!atomic_load(&r->stop)) {
		while (next - done + burst <= window) {
			for (unsigned int i = 0; i < burst; i++, next++) {
				uint32_t slot = (uint32_t)(next % TX_SLOTS);

				/* The slot's last frame has completed: window < TX_SLOTS. */
				frame_fill(r->tx + (uint64_t)slot * r->size, r->size, next);
				req[i] = (struct fdma_req){ .buf = r->txbuf,
					.offset = (uint64_t)slot * r->size, .len = r->size,
					.flags = FDMA_REQ_SOF | FDMA_REQ_EOF, .user_data = next };
			}
			if (fdma_submit(r->dev, r->o->tx, req, burst) != (int)burst) {
				r->tx_err = -EIO;
				goto out;
			}
		}
		{
			int n = fdma_reap(r->dev, r->o->tx, cpl, window, burst, 200000);

			if (n == -ETIMEDOUT)
				continue;	/* the receiver holds the wire: look at stop */
			if (n < 0) {
				r->tx_err = n;
				goto out;
			}
			for (int i = 0; i < n; i++)
				if (cpl[i].res)
					r->tx_err = cpl[i].res;
			done += (uint64_t)n;
		}
	}
	/* What is in flight completes once the receiver takes it. */
	while (done < next) {
		int n = fdma_reap(r->dev, r->o->tx, cpl, window, 1, 2000000);

		if (n <= 0)
			break;
		done += (uint64_t)n;
	}
out:
	atomic_store(&r->sent, next);
	r->tx_cpu = tool_thread_cpu() - c0;
	atomic_store(&r->finished, true);
	free(req);
	free(cpl);
	return NULL;
}

static int post_rx(struct loop_run *r, const uint32_t *slots, unsigned int n)
{
	struct fdma_req req[RX_BUFS];

	for (unsigned int i = 0; i < n; i++)
		req[i] = (struct fdma_req){ .buf = r->rxbuf, .offset = (uint64_t)slots[i] * r->rslot,
					    .len = r->rslot, .user_data = slots[i] };
	return fdma_submit(r->dev, r->o->rx, req, n) == (int)n ? 0 : -1;
}

static int run_one(struct fdma_dev *dev, const struct loop_opts *o, enum loop_mode mode,
		   uint32_t size, struct loop_res *res, struct tool_progress *prog)
{
	struct loop_run r = { .dev = dev, .o = o, .mode = mode, .size = size,
			      .txbuf = -1, .rxbuf = -1 };
	unsigned int batch = mode == MODE_BATCHED ? o->burst : 1;
	unsigned int unit = (unsigned int)fdma_chan_align(dev, o->rx);
	struct fdma_chan_stats t0, t1, r0, r1;
	struct fdma_info info;
	struct fdma_cpl cpl[RX_BUFS];
	uint32_t slots[RX_BUFS];
	uint64_t expect = 0;
	double start, c0, m0 = 0, m1 = 0, verify = 0, stop_at = 0;
	pthread_t th;
	bool timer;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	if (fdma_get_info(dev, &info) || (int)unit < 1) {
		fprintf(stderr, "fdma loop: %s\n", fdma_errmsg(dev));
		return -1;
	}
	r.rslot = (size + unit - 1) / unit * unit;
	r.txbuf = fdma_buf_alloc(dev, (size_t)size * TX_SLOTS, 0);
	r.rxbuf = fdma_buf_alloc(dev, (size_t)r.rslot * RX_BUFS, 0);
	if (r.txbuf < 0 || r.rxbuf < 0) {
		fprintf(stderr, "fdma loop: %s\n", fdma_errmsg(dev));
		goto out;
	}
	r.tx = fdma_buf_addr(dev, r.txbuf);
	r.rxp = fdma_buf_addr(dev, r.rxbuf);
	/*
	 * Interrupt-driven both ways, as a driver is: coalesced only when
	 * batched, by count and time. Without a timer (XDMA) a count would
	 * leave a run's last frames waiting for the rest of it: there every
	 * completion asks, and the engine merges what comes before the host
	 * acknowledges.
	 */
	timer = mode == MODE_BATCHED && (info.coal & FDMA_COAL_TIMER);
	if (fdma_chan_set_wait(dev, o->tx, FDMA_WAIT_SLEEP, 0) ||
	    fdma_chan_set_wait(dev, o->rx, FDMA_WAIT_SLEEP, 0) ||
	    fdma_chan_set_coalesce(dev, o->tx, timer ? batch : 1, timer ? 100 : 0) ||
	    fdma_chan_set_coalesce(dev, o->rx, timer ? batch : 1, timer ? 20 : 0) ||
	    fdma_chan_set_drop(dev, o->rx, 0)) {
		fprintf(stderr, "fdma loop: %s\n", fdma_errmsg(dev));
		goto out;
	}
	for (uint32_t i = 0; i < RX_BUFS; i++)
		slots[i] = i;
	if (post_rx(&r, slots, RX_BUFS)) {
		fprintf(stderr, "fdma loop: posting receive buffers: %s\n", fdma_errmsg(dev));
		goto out;
	}
	fdma_chan_stats(dev, o->tx, &t0);
	fdma_chan_stats(dev, o->rx, &r0);
	fdma_model_cpu(dev, &m0);
	c0 = tool_thread_cpu();
	start = tool_now();
	if (pthread_create(&th, NULL, sender, &r)) {
		fprintf(stderr, "fdma loop: cannot start the sender thread\n");
		goto out;
	}
	for (;;) {
		double now = tool_now();
		int n, k = 0;

		if (!stop_at && (now - start >= o->seconds || tool_stop_requested())) {
			atomic_store(&r.stop, true);
			stop_at = now;
			res->secs = now - start;
			res->win_frames = res->frames;
			res->win_bytes = res->bytes;
			res->interrupted = now - start < o->seconds;
		}
		if (!stop_at && tool_progress_due(prog))
			tool_progress_show(prog, "  %s %u bytes: %.1f s of %g, %" PRIu64 " frames, "
					   "%.0f pps, errors %" PRIu64,
					   mode == MODE_BATCHED ? "batched" : "per-packet", size,
					   now - start, o->seconds, res->frames,
					   res->frames / (now - start), res->errors);
		/* After the stop: until every frame the sender sent is in (5 s at most). */
		if (stop_at && ((atomic_load(&r.finished) && res->frames >= atomic_load(&r.sent)) ||
				now - stop_at > 5))
			break;
		n = fdma_reap(dev, o->rx, cpl, batch, 1, 200000);
		if (n == -ETIMEDOUT || n == -EAGAIN)
			continue;
		if (n < 0) {
			fprintf(stderr, "fdma loop: receive: %s\n", fdma_errmsg(dev));
			break;
		}
		{
			double v0 = tool_thread_cpu();

			for (int i = 0; i < n; i++) {
				uint32_t slot = (uint32_t)cpl[i].user_data;

				if (cpl[i].res || cpl[i].len != size ||
				    frame_check(r.rxp + (uint64_t)slot * r.rslot, size, expect))
					res->errors++;
				expect++;
				res->frames++;
				res->bytes += cpl[i].len;
				slots[k++] = slot;
			}
			verify += tool_thread_cpu() - v0;
		}
		/* Given back at once: one doorbell per batch taken (per frame, per-packet). */
		if (post_rx(&r, slots, (unsigned int)k)) {
			fprintf(stderr, "fdma loop: reposting: %s\n", fdma_errmsg(dev));
			break;
		}
	}
	pthread_join(th, NULL);
	fdma_chan_stats(dev, o->tx, &t1);
	fdma_chan_stats(dev, o->rx, &r1);
	fdma_model_cpu(dev, &m1);
	if (r.tx_err) {
		fprintf(stderr, "fdma loop: send: %s\n", strerror(-r.tx_err));
		res->errors++;
	}
	/* Every frame sent came back, in order (flow control: none may be dropped). */
	if (atomic_load(&r.sent) != res->frames) {
		fprintf(stderr, "fdma loop: %" PRIu64 " frames sent, %" PRIu64 " received\n",
			(uint64_t)atomic_load(&r.sent), res->frames);
		res->errors++;
	}
	if (res->win_frames && res->secs > 0) {
		double pk = (double)res->frames;

		res->pps = res->win_frames / res->secs;
		/* One unit per key across the commands: mbps is MB/s; Mbit/s is mbit_s. */
		res->mbps = res->win_bytes / res->secs / 1e6;
		res->mbit_s = res->win_bytes * 8 / res->secs / 1e6;
		res->doorbells_per_pkt = (double)(t1.doorbells - t0.doorbells + r1.doorbells -
						  r0.doorbells) / pk;
		res->irqs_per_pkt = (double)(t1.interrupts - t0.interrupts + r1.interrupts -
					     r0.interrupts) / pk;
		/* CPU over the whole run, drain included, as the counts above. */
		double all = tool_now() - start;

		res->cpu_pct = (tool_thread_cpu() - c0 - verify + r.tx_cpu) / all * 100;
		res->verify_cpu_pct = verify / all * 100;
		res->model_cpu_pct = (m1 - m0) / all * 100;
	}
	/* The receive buffers still posted: taken back by a reset. */
	if (fdma_inflight(dev, o->rx) > 0 && !fdma_chan_reset(dev, o->rx))
		while (fdma_reap(dev, o->rx, cpl, RX_BUFS, 0, 0) > 0)
			;
	ret = 0;
out:
	if (r.txbuf >= 0)
		fdma_buf_free(dev, r.txbuf);
	if (r.rxbuf >= 0)
		fdma_buf_free(dev, r.rxbuf);
	return ret;
}

/* The default pair: the first H2C stream channel, and the C2H one sim:loop=1 joins it to. */
static int default_chans(struct fdma_dev *dev, struct loop_opts *o)
{
	struct fdma_info info;
	int rx[FDMA_MAX_CHAN], nrx = 0, tx = -1;

	fdma_get_info(dev, &info);
	for (uint32_t i = 0; i < info.nchan; i++) {
		if (info.chan[i].kind != FDMA_KIND_STREAM)
			continue;
		if (info.chan[i].dir == FDMA_C2H)
			rx[nrx++] = (int)i;
		else if (tx < 0)
			tx = (int)i;
	}
	if (o->tx < 0)
		o->tx = tx;
	if (o->rx < 0 && nrx)
		o->rx = rx[nrx > 1 ? 1 : 0];	/* pair 0's frames arrive on pair 1's */
	if (o->tx < 0 || o->rx < 0 || info.chan[o->tx].kind != FDMA_KIND_STREAM ||
	    info.chan[o->tx].dir != FDMA_H2C || info.chan[o->rx].kind != FDMA_KIND_STREAM ||
	    info.chan[o->rx].dir != FDMA_C2H) {
		fprintf(stderr, "fdma loop: %s needs an H2C and a C2H stream channel (--tx, --rx)\n",
			o->uri);
		return -1;
	}
	if (info.chan[o->rx].testgen) {
		fprintf(stderr, "fdma loop: channel %d is fed by its test generator, not by a loopback "
			"(on sim:, add loop=1)\n", o->rx);
		return -1;
	}
	return 0;
}

/*
 * The CPUs the sender and receiver may run on, as taskset -c prints them
 * ("0-1", "0,2"). The per-packet rate depends on it: a wake-up from a
 * thread on another CPU costs an interrupt, on the same CPU a switch
 * (docs/studies/net.md).
 */
static void host_cpus(char *buf, size_t len)
{
	cpu_set_t set;
	size_t n = 0;

	buf[0] = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int i = 0; i < CPU_SETSIZE && n + 24 < len; i++) {
		int j = i;

		if (!CPU_ISSET(i, &set))
			continue;
		while (j + 1 < CPU_SETSIZE && CPU_ISSET(j + 1, &set))
			j++;
		n += (size_t)snprintf(buf + n, len - n, j > i ? "%s%d-%d" : "%s%d", n ? "," : "", i, j);
		i = j;
	}
}

static void print_row(const struct loop_opts *o, enum loop_mode mode, uint32_t size,
		      const struct loop_res *r)
{
	const char *m = mode == MODE_BATCHED ? "batched" : "per-packet";

	if (o->json) {
		printf("{\"uri\":");
		tool_json_str(stdout, o->uri);
		printf(",\"host_cpus\":\"%s\"", o->host_cpus);
		printf(",\"tx\":%d,\"rx\":%d,\"mode\":\"%s\",\"size\":%u,\"burst\":%u,\"seconds\":%.3f,"
		       "\"frames\":%" PRIu64 ",\"pps\":%.0f,\"mbps\":%.2f,\"mbit_s\":%.2f,"
		       "\"doorbells_per_packet\":%.4f,\"irqs_per_packet\":%.4f,\"cpu_pct\":%.2f,"
		       "\"verify_cpu_pct\":%.2f,\"model_cpu_pct\":%.1f,\"errors\":%" PRIu64
		       ",\"interrupted\":%s}\n",
		       o->tx, o->rx, m, size, mode == MODE_BATCHED ? o->burst : 1, r->secs,
		       r->frames, r->pps, r->mbps, r->mbit_s, r->doorbells_per_pkt, r->irqs_per_pkt,
		       r->cpu_pct, r->verify_cpu_pct, r->model_cpu_pct, r->errors,
		       r->interrupted ? "true" : "false");
	} else {
		printf("%-10s %6u %10.0f %9.2f %8.3f %8.3f %7.1f %6.1f %7.1f %6" PRIu64 "%s\n", m,
		       size, r->pps, r->mbit_s, r->doorbells_per_pkt, r->irqs_per_pkt, r->cpu_pct,
		       r->verify_cpu_pct, r->model_cpu_pct, r->errors,
		       r->interrupted ? "  (interrupted)" : "");
	}
	fflush(stdout);
}

int fdma_cmd_loop(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "sizes", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'm' },
		{ "burst", required_argument, NULL, 'b' },
		{ "seconds", required_argument, NULL, 't' },
		{ "tx", required_argument, NULL, 'T' },
		{ "rx", required_argument, NULL, 'R' },
		{ "json", no_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, 'g' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct loop_opts o = { .tx = -1, .rx = -1, .burst = 32, .seconds = 2, .modes = 3,
			       .sizes = { 64, 128, 256, 512, 1024, 1500 }, .nsizes = 6,
			       .progress = 1 };
	struct fdma_dev *dev;
	struct plot_fig fig = { 0 };
	uint64_t v;
	int opt, fails = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (opt) {
		case 's': {
			char *save = NULL, *tok, *list = strdup(optarg);

			o.nsizes = 0;
			for (tok = list ? strtok_r(list, ",", &save) : NULL; tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (o.nsizes == MAX_SIZES || tool_parse_size(tok, &v) || v < 1 ||
				    v > 65536) {
					fprintf(stderr, "fdma loop: --sizes: '%s' is not a frame size of 1..65536 bytes (at most %d sizes)\n",
						tok, MAX_SIZES);
					free(list);
					return EXIT_USAGE;
				}
				o.sizes[o.nsizes++] = v;
			}
			free(list);
			if (!o.nsizes) {
				fprintf(stderr, "fdma loop: --sizes is empty\n");
				return EXIT_USAGE;
			}
			break;
		}
		case 'm':
			if (!strcmp(optarg, "per-packet")) {
				o.modes = 1 << MODE_PER_PACKET;
			} else if (!strcmp(optarg, "batched")) {
				o.modes = 1 << MODE_BATCHED;
			} else if (!strcmp(optarg, "both")) {
				o.modes = 3;
			} else {
				fprintf(stderr, "fdma loop: --mode must be per-packet, batched or both, not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'b':
			if (tool_parse_uint(optarg, 1, RX_BUFS / 4, &v)) {
				fprintf(stderr, "fdma loop: --burst must be 1..%d, not '%s'\n", RX_BUFS / 4,
					optarg);
				return EXIT_USAGE;
			}
			o.burst = (unsigned int)v;
			break;
		case 't':
			if (tool_parse_secs(optarg, 3600, &o.seconds)) {
				fprintf(stderr, "fdma loop: --seconds must be in (0, 3600], not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'T':
		case 'R':
			if (tool_parse_uint(optarg, 0, FDMA_MAX_CHAN - 1, &v)) {
				fprintf(stderr, "fdma loop: --%s must be a channel 0..%d, not '%s'\n",
					opt == 'T' ? "tx" : "rx", FDMA_MAX_CHAN - 1, optarg);
				return EXIT_USAGE;
			}
			*(opt == 'T' ? &o.tx : &o.rx) = (int)v;
			break;
		case 'j':
			o.json = 1;
			break;
		case 'g':
			o.plot = optarg;
			break;
		case 'P':
			o.progress = 0;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			return tool_usage_hint("loop");
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "fdma loop: one device URI (e.g. sim:loop=1), not also '%s', see --help\n",
			argv[optind + 1]);
		return EXIT_USAGE;
	}
	o.uri = tool_uri("loop", optind < argc ? argv[optind] : NULL);
	if (!o.uri)
		return EXIT_USAGE;
	tool_catch_stop();
	if (tool_open(o.uri, &dev))
		return EXIT_FAIL;
	if (default_chans(dev, &o)) {
		fdma_close(dev);
		return EXIT_FAIL;
	}
	host_cpus(o.host_cpus, sizeof(o.host_cpus));
	/* The figure's file first: a bad path fails now, not after the run. */
	if (o.plot) {
		char title[300];

		snprintf(title, sizeof(title), "fdma loop %s (channel %d to %d, CPUs %s)", o.uri, o.tx,
			 o.rx, o.host_cpus);
		if (plot_loop_begin(&fig, o.plot, title, dev)) {
			fdma_close(dev);
			return EXIT_FAIL;
		}
	}
	if (!o.json) {
		printf("fdma loop on %s: channel %d (H2C) to channel %d (C2H), sender and receiver on CPUs %s\n"
		       "%-10s %6s %10s %9s %8s %8s %7s %6s %7s %6s\n", o.uri, o.tx, o.rx, o.host_cpus,
		       "mode", "bytes", "pps", "Mbit/s", "db/pkt", "irq/pkt", "cpu%", "vfy%",
		       "model%", "errors");
	}
	/* Ctrl-C ends the run in progress, which still gets its row, and no other starts. */
	for (int i = 0; i < o.nsizes && !tool_stop_requested(); i++) {
		for (int m = MODE_PER_PACKET; m <= MODE_BATCHED && !tool_stop_requested(); m++) {
			struct tool_progress prog;
			struct loop_res r;
			int ret;

			if (!(o.modes & (1 << m)))
				continue;
			tool_progress_init(&prog, o.progress);
			ret = run_one(dev, &o, (enum loop_mode)m, (uint32_t)o.sizes[i], &r, &prog);
			tool_progress_end(&prog);
			if (ret) {
				fails++;
				continue;
			}
			print_row(&o, (enum loop_mode)m, (uint32_t)o.sizes[i], &r);
			plot_loop_row(&fig, m == MODE_BATCHED, (uint32_t)o.sizes[i], r.pps,
				      r.irqs_per_pkt, r.doorbells_per_pkt);
			if (r.errors || (!r.frames && !r.interrupted))
				fails++;
			if (r.interrupted)
				fprintf(stderr, "fdma loop: interrupted during the %u-byte %s run\n",
					(unsigned int)o.sizes[i], m == MODE_BATCHED ? "batched" : "per-packet");
		}
	}
	if (plot_fig_end(&fig))
		fails++;
	fdma_close(dev);
	return fails ? EXIT_FAIL : EXIT_OK;
}
