// SPDX-License-Identifier: MIT
/*
 * fdma play: send frames from a file (or a pipe) to an H2C stream channel,
 * the reverse of fdma stream --output. The file is raw frames of
 * --frame-size bytes back to back, read straight into a ring of DMA
 * buffers (frameio.h: O_DIRECT through io_uring, several frames ahead);
 * each frame goes out, in file order, as one or more pieces marked SOF..EOF.
 * With --testgen the channel's test checker is the sink and its counts of
 * good and bad frames are the verdict.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fdma_cmds.h"
#include "frameio.h"
#include "util.h"

#define MAX_PIECES 64

struct play_opts {
	const char *uri, *input;
	int chan;
	uint64_t frame, nbufs, max_frames;
	double fps;
	int have_nbufs, testgen, json, progress;
	int no_direct, no_uring;
	enum fdma_wait_mode wait;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fdma play [URI] FILE [options]   (URI: default $FDMA_DEVICE)\n"
		"  Sends the frames of FILE to an H2C stream channel (the reverse of\n"
		"  fdma stream --output). FILE ('-' for standard input) holds raw frames of\n"
		"  --frame-size bytes back to back, as fdma stream writes them; a partial\n"
		"  frame at the end is reported and not sent.\n"
		"options:\n"
		"  --input FILE         the file, instead of the second argument\n"
		"  --frame-size BYTES   bytes per frame (default 3110400, 1080p YUV 4:2:0); a\n"
		"                       multiple of the channel's alignment (fdma info: any\n"
		"                       length on an engine with byte streams)\n"
		"  --frames N           send at most N frames\n"
		"  --fps N              send at most N frames per second (default 0: as fast as\n"
		"                       the channel takes them); a sender that falls a frame\n"
		"                       behind does not burst to catch up\n"
		"  --buffers N          frames in flight (default 8; fewer if the ring cannot\n"
		"                       hold their descriptors)\n"
		"  --chan N             the stream channel (default: the first H2C stream one)\n"
		"  --testgen            make the channel's test checker the sink and fail unless\n"
		"                       it counts every frame sent as good (for files written\n"
		"                       by fdma stream --testgen)\n"
		"  --wait spin|sleep|adaptive   how to wait for completions (default sleep)\n"
		"  --no-direct          read the file through the page cache (a copy); by\n"
		"                       default it is read with O_DIRECT, into the DMA buffers\n"
		"                       by the disk itself, through io_uring, several frames\n"
		"                       ahead (the report says how, and why not where it cannot)\n"
		"  --no-uring           one read at a time (pread), not through io_uring\n"
		"  --no-progress        no live progress line (shown only when stderr is a terminal)\n"
		"  --json               one JSON object\n"
		"  --help               this text\n"
		"fps and MB/s (10^6 bytes) are from the first submission to the last\n"
		"completion, the first frame not counted (N frames, N - 1 periods: a paced\n"
		"run never reads faster than its --fps; '-', JSON null, with fewer than two\n"
		"frames); cpu is this process's sending\n"
		"thread (reading the file included), 'other threads' the rest of the process\n"
		"but the device model (io_uring's workers). Ctrl-C ends the run early and\n"
		"still prints the summary.\n");
}

static int parse_opts(int argc, char **argv, struct play_opts *o)
{
	static const struct option lopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "frame-size", required_argument, NULL, 'f' },
		{ "frames", required_argument, NULL, 'n' },
		{ "fps", required_argument, NULL, 'r' },
		{ "buffers", required_argument, NULL, 'b' },
		{ "chan", required_argument, NULL, 'c' },
		{ "testgen", no_argument, NULL, 'G' },
		{ "wait", required_argument, NULL, 'w' },
		{ "no-direct", no_argument, NULL, 'I' },
		{ "no-uring", no_argument, NULL, 'U' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *uri = NULL;
	uint64_t v;
	int opt, n;
	char *end;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			o->input = optarg;
			break;
		case 'f':
			if (tool_parse_size(optarg, &o->frame) || o->frame < 64 || o->frame > (256u << 20)) {
				fprintf(stderr, "fdma play: --frame-size must be 64..256M, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'n':
			if (tool_parse_uint(optarg, 1, UINT64_MAX, &o->max_frames)) {
				fprintf(stderr, "fdma play: --frames must be a number of frames >= 1, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'r':
			errno = 0;
			o->fps = strtod(optarg, &end);
			if (errno || end == optarg || *end || o->fps < 0 || o->fps > 1e6) {
				fprintf(stderr, "fdma play: --fps must be 0..1000000, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'b':
			if (tool_parse_uint(optarg, 1, 1024, &o->nbufs)) {
				fprintf(stderr, "fdma play: --buffers must be 1..1024, not '%s'\n", optarg);
				return -1;
			}
			o->have_nbufs = 1;
			break;
		case 'c':
			if (tool_parse_uint(optarg, 0, FDMA_MAX_CHAN - 1, &v)) {
				fprintf(stderr, "fdma play: --chan must be a channel number 0..%d, not '%s'\n",
					FDMA_MAX_CHAN - 1, optarg);
				return -1;
			}
			o->chan = (int)v;
			break;
		case 'G':
			o->testgen = 1;
			break;
		case 'w':
			if (tool_parse_wait(optarg, &o->wait)) {
				fprintf(stderr, "fdma play: --wait must be spin, sleep or adaptive, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'P':
			o->progress = 0;
			break;
		case 'I':
			o->no_direct = 1;
			break;
		case 'U':
			o->no_uring = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			tool_usage_hint("play");
			return -1;
		}
	}
	/* URI FILE; URI with --input; or FILE alone (its URI from FDMA_DEVICE). */
	n = argc - optind;
	if (n > 2 || (n == 2 && o->input) || (!o->input && !n)) {
		fprintf(stderr, "fdma play: expected a device URI and a FILE (or --input FILE), see --help\n");
		return -1;
	}
	if (n == 2 || (n == 1 && (o->input || tool_is_uri(argv[optind]))))
		uri = argv[optind++];
	if (optind < argc)
		o->input = argv[optind++];
	if (!o->input) {
		fprintf(stderr, "fdma play: expected a FILE (or --input FILE) after the URI, see --help\n");
		return -1;
	}
	o->uri = tool_uri("play", uri);
	return o->uri ? 0 : -1;
}

static void sleep_until(double t)
{
	double d = t - tool_now();
	struct timespec ts;

	if (d <= 0)
		return;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);	/* Ctrl-C cuts it short: fine */
}

struct play_res {
	uint64_t frames, bytes, errors, sent;
	uint64_t tg_frames, tg_errors;
	long long tail;		/* bytes of a partial last frame, not sent */
	double t_first, t_last;	/* first submission, last frame's completion */
	double secs, cpu, model, io_cpu;
	int have_model, interrupted, have_tg;
	double wakeups, irqs;
	char io_how[400];	/* how the file was read (frameio_how()) */
	int io_direct;
};

/* -1 (unknown) with fewer than two frames. */
static double rate_fps(const struct play_res *r)
{
	return tool_rate((double)r->frames, 1, r->frames, r->t_first, r->t_last);
}

static double rate_mbps(const struct play_opts *o, const struct play_res *r)
{
	double v = tool_rate((double)r->bytes, (double)o->frame, r->frames, r->t_first, r->t_last);

	return v < 0 ? v : v / 1e6;
}

static void report(const struct play_opts *o, int ch, int paced, const struct play_res *r,
		   int target_met)
{
	double fps = rate_fps(r), mbps = rate_mbps(o, r);
	double secs = r->secs > 0 ? r->secs : 1;
	char fps_s[32], mbps_s[32];

	if (o->json) {
		printf("{\"uri\":");
		tool_json_str(stdout, o->uri);
		printf(",\"dir\":\"h2c\",\"chan\":%d,\"testgen\":%s,\"frame_size\":%" PRIu64 ",",
		       ch, o->testgen ? "true" : "false", o->frame);
		if (o->fps > 0)
			printf("\"fps_target\":%.3f,", o->fps);
		else
			printf("\"fps_target\":null,");
		printf("\"buffers\":%" PRIu64 ",\"wait\":\"%s\",\"paced\":%s,\"hugepages\":false,"
		       "\"seconds\":%.3f,\"frames\":%" PRIu64,
		       o->nbufs, o->wait == FDMA_WAIT_SPIN ? "spin" : o->wait == FDMA_WAIT_SLEEP ? "sleep" : "adaptive",
		       paced ? "true" : "false", r->secs, r->frames);
		tool_json_rate(stdout, "fps", "%.2f", fps);
		tool_json_rate(stdout, "mbps", "%.2f", mbps);
		printf(",\"bytes\":%" PRIu64 ",\"errors\":%" PRIu64 ",\"partial_tail_bytes\":%lld,",
		       r->bytes, r->errors, r->tail);
		if (r->have_tg)
			printf("\"checker_frames\":%" PRIu64 ",\"checker_errors\":%" PRIu64 ",",
			       r->tg_frames, r->tg_errors);
		else
			printf("\"checker_frames\":null,\"checker_errors\":null,");
		printf("\"io\":");
		tool_json_str(stdout, r->io_how);
		printf(",\"io_direct\":%s,\"io_cpu_pct\":%.2f,", r->io_direct ? "true" : "false",
		       r->io_cpu / secs * 100);
		printf("\"cpu_pct\":%.2f,", r->cpu / secs * 100);
		if (r->have_model)
			printf("\"model_cpu_pct\":%.1f,", r->model / secs * 100);
		else
			printf("\"model_cpu_pct\":null,");
		printf("\"wakeups_per_s\":%.1f,\"irqs_per_s\":%.1f,\"target_met\":%s,\"interrupted\":%s}\n",
		       r->wakeups / secs, r->irqs / secs,
		       target_met < 0 ? "null" : target_met ? "true" : "false",
		       r->interrupted ? "true" : "false");
		return;
	}
	printf("fdma play %s to %s, channel %d: %" PRIu64 "-byte frames", o->input, o->uri, ch, o->frame);
	if (o->fps > 0)
		printf(" at up to %g fps", o->fps);
	printf(", %.2f s%s\n", r->secs, r->interrupted ? " (interrupted)" : "");
	printf("  frames %" PRIu64 " (%s fps, %s MB/s), errors %" PRIu64 "\n", r->frames,
	       tool_fmt_rate(fps_s, sizeof(fps_s), "%.2f", fps),
	       tool_fmt_rate(mbps_s, sizeof(mbps_s), "%.1f", mbps), r->errors);
	if (r->have_tg)
		printf("  test checker: %" PRIu64 " frames good, %" PRIu64 " bad\n", r->tg_frames,
		       r->tg_errors);
	printf("  input: %s\n", r->io_how);
	printf("  cpu %.2f%% of a core", r->cpu / secs * 100);
	if (r->have_model)
		printf(", device model %.1f%%", r->model / secs * 100);
	printf(", other threads %.2f%%", r->io_cpu / secs * 100);
	printf(", %.1f wake-ups/s, %.1f interrupts/s\n", r->wakeups / secs, r->irqs / secs);
}

int fdma_cmd_play(int argc, char **argv)
{
	struct play_opts o = { .chan = -1, .frame = 3110400, .nbufs = 8, .progress = 1,
			       .wait = FDMA_WAIT_SLEEP };
	struct play_res r = { 0 };
	struct tool_progress prog;
	struct fdma_info info;
	struct fdma_chan_stats st0, st1;
	struct fdma_dev *dev;
	struct fdma_req req[MAX_PIECES];
	struct fdma_cpl *cpl = NULL;
	struct frameio *fio = NULL;
	struct frameio_done done[64];
	struct iovec iov[1024];
	int64_t got[1024];	/* bytes read into each buffer, -1 while reading */
	uint64_t slot, piece, npieces, head = 0, tail = 0, tg_f0 = 0, tg_e0 = 0, align;
	uint64_t nread = 0;	/* frames whose reads were submitted */
	int64_t to_us;
	double t0, cpu0, pcpu0, mcpu0 = 0, mcpu1 = 0, next_t, t_end, now, ts;
	int ch, ret, buf = -1, eof = 0, rc = EXIT_OK, target_met = -1, tg_on = 0;
	uint8_t *base;

	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	/* Before anything slow: a Ctrl-C during the set-up still ends with a summary. */
	tool_catch_stop();
	if (tool_open(o.uri, &dev))
		return EXIT_FAIL;
	fdma_get_info(dev, &info);
	ch = tool_stream_chan("play", dev, &info, o.uri, o.chan, FDMA_H2C);
	if (ch < 0) {
		fdma_close(dev);
		return EXIT_FAIL;
	}
	if (o.testgen && !info.chan[ch].testgen) {
		fprintf(stderr, "fdma play: channel %d has no test checker (drop --testgen)\n", ch);
		fdma_close(dev);
		return EXIT_FAIL;
	}
	/*
	 * The channel's own unit: any length where the engine takes byte
	 * streams (as fdma stream writes frames of any size there).
	 */
	align = (uint64_t)fdma_chan_align(dev, ch);
	if (o.frame % align) {
		fprintf(stderr, "fdma play: --frame-size %" PRIu64 " is not a multiple of channel %d's "
			"alignment (%" PRIu64 " bytes): its stream pieces must be aligned\n", o.frame,
			ch, align);
		fdma_close(dev);
		return EXIT_USAGE;
	}
	/* Pieces no longer than a descriptor, in whole alignment units. */
	piece = info.max_desc_len - info.max_desc_len % info.align;
	npieces = (o.frame + piece - 1) / piece;
	if (npieces > MAX_PIECES) {
		fprintf(stderr, "fdma play: a %" PRIu64 "-byte frame needs %" PRIu64 " descriptors, "
			"at most %d are supported\n", o.frame, npieces, MAX_PIECES);
		fdma_close(dev);
		return EXIT_USAGE;
	}
	if (npieces > info.chan[ch].ring_size) {
		fprintf(stderr, "fdma play: a %" PRIu64 "-byte frame needs %" PRIu64 " descriptors, "
			"the ring holds %u\n", o.frame, npieces, info.chan[ch].ring_size);
		fdma_close(dev);
		return EXIT_FAIL;
	}
	/* Every frame in flight holds its descriptors: no more frames than the ring takes. */
	if (o.nbufs * npieces > info.chan[ch].ring_size) {
		uint64_t fit = info.chan[ch].ring_size / npieces;

		if (o.have_nbufs)
			fprintf(stderr, "fdma play: note: --buffers %" PRIu64 " reduced to %" PRIu64
				": a frame needs %" PRIu64 " descriptors, the ring holds %u\n",
				o.nbufs, fit, npieces, info.chan[ch].ring_size);
		o.nbufs = fit;
	}
	/* Each frame's buffer starts on a page: where direct I/O wants it. */
	slot = (o.frame + 4095) & ~(uint64_t)4095;
	cpl = calloc(o.nbufs * npieces, sizeof(*cpl));
	buf = cpl ? fdma_buf_alloc(dev, slot * o.nbufs, 0) : -ENOMEM;
	if (buf < 0 || fdma_chan_set_wait(dev, ch, o.wait, 0)) {
		fprintf(stderr, "fdma play: %s\n", cpl ? fdma_errmsg(dev) : "out of memory");
		goto fail;
	}
	base = fdma_buf_addr(dev, buf);
	for (uint64_t i = 0; i < o.nbufs; i++)
		iov[i] = (struct iovec){ .iov_base = base + i * slot, .iov_len = o.frame };
	{
		struct frameio_cfg cfg = {
			.cmd = "play", .path = o.input, .write = 0, .bufs = iov,
			.nbufs = (unsigned int)o.nbufs, .direct = !o.no_direct, .uring = !o.no_uring,
		};

		if (frameio_open(&fio, &cfg))
			goto fail;
	}
	if (o.testgen) {
		/* A reset restarts the checker's expected sequence at 0, as the file's does. */
		if (fdma_chan_reset(dev, ch) || fdma_chan_set_testgen(dev, ch, (uint32_t)o.frame, 0, 1) ||
		    fdma_chan_testgen_counts(dev, ch, &tg_f0, &tg_e0)) {
			fprintf(stderr, "fdma play: %s\n", fdma_errmsg(dev));
			goto fail;
		}
		tg_on = 1;
	}
	tool_progress_init(&prog, o.progress);
	fdma_chan_stats(dev, ch, &st0);
	r.have_model = !fdma_model_cpu(dev, &mcpu0);
	t0 = tool_now();
	t_end = t0;
	next_t = t0;
	cpu0 = tool_thread_cpu();
	pcpu0 = tool_proc_cpu();
	/*
	 * nread: frames being read or read; head: frames submitted to the
	 * device; tail: frames completed; frame k is in buffer k % nbufs, read
	 * from offset k * frame. Reads run ahead into every buffer the device
	 * is done with; frames go out in file order as their reads complete.
	 */
	for (;;) {
		int stop = tool_stop_requested() || r.errors;
		int more = !eof && !stop && (!o.max_frames || nread < o.max_frames);
		int n;

		if (stop)
			r.interrupted = tool_stop_requested();
		while (more && nread < tail + o.nbufs) {
			got[nread % o.nbufs] = -1;
			ret = frameio_submit(fio, (unsigned int)(nread % o.nbufs), o.frame, nread * o.frame);
			if (ret) {
				fprintf(stderr, "fdma play: reading '%s': %s\n", o.input, strerror(-ret));
				r.errors++;
				break;
			}
			nread++;
			/* A read of a pipe waits in frameio_submit(): Ctrl-C ends it, and this. */
			more = (!o.max_frames || nread < o.max_frames) && !tool_stop_requested();
		}
		/* Reads done; waiting for one only when the device has nothing to do. */
		n = frameio_inflight(fio) ? frameio_reap(fio, done, 64, head == tail ? 200000 : 0) : 0;
		if (n < 0) {
			fprintf(stderr, "fdma play: reading '%s': %s\n", o.input, strerror(-n));
			r.errors++;
		}
		for (int i = 0; i < n; i++) {
			got[done[i].idx] = done[i].res;
			if (done[i].res == -EINTR) {
				r.interrupted = 1;
				eof = 1;
			} else if (done[i].res < 0 && !r.errors++) {
				fprintf(stderr, "fdma play: reading '%s': %s\n", o.input,
					strerror((int)-done[i].res));
			}
		}
		while (!eof && !r.errors && !tool_stop_requested() && head < nread &&
		       got[head % o.nbufs] >= 0) {
			if ((uint64_t)got[head % o.nbufs] < o.frame) {
				/* The end of the file: what was read ahead of it is nothing. */
				r.tail = got[head % o.nbufs];
				eof = 1;
				break;
			}
			for (uint64_t k = 0; k < npieces; k++) {
				uint64_t off = k * piece, len = o.frame - off < piece ? o.frame - off : piece;

				req[k] = (struct fdma_req){ .buf = buf, .offset = (head % o.nbufs) * slot + off,
					.len = len, .user_data = head << 8 | k,
					.flags = (k == 0 ? FDMA_REQ_SOF : 0) |
						 (k == npieces - 1 ? FDMA_REQ_EOF : 0) };
			}
			if (o.fps > 0)
				sleep_until(next_t);
			ts = tool_now();
			/* The window starts at the first submission, after the read and the pacing. */
			if (!head)
				r.t_first = ts;
			/*
			 * The schedule counts from the first submission, so frame k goes
			 * no sooner than k periods after it; late by a whole frame: start
			 * again from now, no burst.
			 */
			if (o.fps > 0)
				next_t = !head || ts - next_t >= 1 / o.fps ? ts + 1 / o.fps : next_t + 1 / o.fps;
			ret = fdma_submit(dev, ch, req, (unsigned int)npieces);
			if (ret < 0) {
				fprintf(stderr, "fdma play: submit: %s\n", fdma_errmsg(dev));
				r.errors++;
				more = 0;
				break;
			}
			head++;
			r.sent++;
		}
		more = !eof && !r.errors && !tool_stop_requested() &&
		       (!o.max_frames || head < o.max_frames);
		if (head == tail && (!more || head == nread) && !frameio_inflight(fio))
			break;
		if (head == tail)
			continue;	/* the device is idle: wait on the reads */
		/* Reads in flight: back soon to send what they bring. */
		to_us = frameio_inflight(fio) ? 5000 : more ? 200000 : 5000000;
		n = fdma_reap(dev, ch, cpl, (unsigned int)(o.nbufs * npieces), 1, to_us);
		now = tool_now();
		if (n == -ETIMEDOUT && to_us < 5000000)
			continue;
		if (n < 0) {
			fprintf(stderr, "fdma play: %s\n", fdma_errmsg(dev));
			r.errors++;
			break;
		}
		for (int i = 0; i < n; i++) {
			if (cpl[i].res) {
				if (!r.errors)
					fprintf(stderr, "fdma play: frame %" PRIu64 ": %s\n",
						cpl[i].user_data >> 8, strerror(-cpl[i].res));
				r.errors++;
				if ((cpl[i].user_data & 0xff) == npieces - 1)
					tail++;
				continue;
			}
			r.bytes += cpl[i].len;
			/* A frame is done with its last piece (user_data: frame << 8 | piece). */
			if ((cpl[i].user_data & 0xff) == npieces - 1) {
				tail++;
				r.frames++;
				r.t_last = now;
			}
		}
		t_end = now;
		if (tool_progress_due(&prog))
			tool_progress_show(&prog, "  %.1f s  %" PRIu64 " frames  %.1f MB/s  errors %" PRIu64,
					   t_end - t0, r.frames, r.bytes / (t_end - t0) / 1e6, r.errors);
	}
	tool_progress_end(&prog);
	r.secs = t_end - t0;
	r.cpu = tool_thread_cpu() - cpu0;
	fdma_model_cpu(dev, &mcpu1);
	r.model = mcpu1 - mcpu0;
	/* The rest of the process: io_uring's workers (and nothing else of fdma's). */
	r.io_cpu = tool_proc_cpu() - pcpu0 - r.cpu - (r.have_model ? r.model : 0);
	if (r.io_cpu < 0)
		r.io_cpu = 0;
	snprintf(r.io_how, sizeof(r.io_how), "%s", frameio_how(fio));
	r.io_direct = frameio_direct(fio);
	fdma_chan_stats(dev, ch, &st1);
	r.wakeups = (double)(st1.wakeups - st0.wakeups);
	r.irqs = (double)(st1.interrupts - st0.interrupts);
	if (tg_on) {
		uint64_t f1 = 0, e1 = 0;

		if (!fdma_chan_testgen_counts(dev, ch, &f1, &e1)) {
			r.have_tg = 1;
			r.tg_frames = f1 - tg_f0;
			r.tg_errors = e1 - tg_e0;
		}
	}
	if (o.fps > 0 && r.frames >= 2)
		target_met = rate_fps(&r) >= o.fps * 0.98;
	report(&o, ch, tool_realtime(&info), &r, target_met);
	if (r.tail > 0) {
		fprintf(stderr, "fdma play: '%s' ends with %lld bytes, not a whole %" PRIu64
			"-byte frame: not sent\n", o.input, r.tail, o.frame);
		rc = EXIT_FAIL;
	}
	if (target_met == 0)
		fprintf(stderr, "fdma play: missed target: %.2f fps of %g\n", rate_fps(&r), o.fps);
	if (tg_on && (!r.have_tg || r.tg_errors || r.tg_frames != r.frames)) {
		fprintf(stderr, "fdma play: the test checker counted %" PRIu64 " good and %" PRIu64
			" bad frames of %" PRIu64 " sent\n", r.tg_frames, r.tg_errors, r.frames);
		rc = EXIT_FAIL;
	}
	if (r.errors || (!r.frames && !r.interrupted)) {
		if (!r.frames && !r.errors)
			fprintf(stderr, "fdma play: '%s' holds no whole frame\n", o.input);
		rc = EXIT_FAIL;
	}
	if (tg_on)
		fdma_chan_set_testgen(dev, ch, (uint32_t)o.frame, 0, 0);
	if (fdma_inflight(dev, ch) > 0 && !fdma_chan_reset(dev, ch))
		while (fdma_reap(dev, ch, cpl, (unsigned int)(o.nbufs * npieces), 0, 0) > 0)
			;
	fdma_buf_free(dev, buf);
	free(cpl);
	frameio_close(fio);
	fdma_close(dev);
	return rc;

fail:
	if (buf >= 0)
		fdma_buf_free(dev, buf);
	free(cpl);
	frameio_close(fio);
	fdma_close(dev);
	return EXIT_FAIL;
}
