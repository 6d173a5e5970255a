// SPDX-License-Identifier: MIT
/*
 * fdma stream: capture frames from a C2H stream channel through the
 * zero-copy stream API, optionally into a file or a pipe (raw frames, back
 * to back, written as they arrive), and report rate, drops, latency and
 * CPU. With --testgen the channel's test generator is the source and every
 * frame is checked (header, sequence, CRC-32 of the payload).
 * With --mem dmabuf the frames land in imported dma-bufs the CPU never
 * touches, as GPU memory would be: each frame is seen through the card.
 * --dir h2c hands over to fdma play (cmd_play.c).
 * A file is written from the frame buffers themselves (frameio.h: O_DIRECT
 * through io_uring), several frames at a time; a buffer goes back to the
 * device when its write is done.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "fdma_cmds.h"
#include "frameio.h"
#include "util.h"

#define DEFAULT_FRAME 3110400u	/* 1920 x 1080 YUV 4:2:0 */

struct stream_opts {
	const char *uri, *output;
	int chan;		/* -1: the first C2H stream channel */
	uint64_t frame, nbufs, max_frames;
	double fps, seconds, timeout, require_fps;
	int testgen, drop;	/* drop: -1 = by the source (see usage); -2 = the channel's own */
	int drop_given;		/* --drop or --hold */
	int json, progress;
	int dmabuf;		/* frames into imported dma-bufs, seen through the card */
	int no_direct, no_uring;	/* -o FILE: through the page cache; one write at a time */
	int no_check;		/* --testgen: each frame's header only */
	enum fdma_wait_mode wait;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fdma stream [URI] [options]   (URI: default $FDMA_DEVICE)\n"
		"       fdma stream [URI] --dir h2c --input FILE [options]   (same as fdma play)\n"
		"  Captures frames from a C2H stream channel into a ring of zero-copy\n"
		"  buffers, writes them to a file or a pipe as they arrive, and reports\n"
		"  rate, drops, latency and CPU. With --testgen the channel's built-in test\n"
		"  generator is the source and every frame is checked.\n"
		"options:\n"
		"  -o, --output FILE    write each frame as it arrives, raw and back to back\n"
		"                       (no header: what ffmpeg -f rawvideo expects); '-' is\n"
		"                       standard output, and the report then goes to stderr.\n"
		"                       A file is written from the frame buffers themselves,\n"
		"                       with O_DIRECT through io_uring, several frames at a\n"
		"                       time; the report says how, and why not where it cannot\n"
		"  --no-direct          write the file through the page cache (a copy)\n"
		"  --no-uring           one write at a time (pwrite), not through io_uring\n"
		"  --frames N           stop after N frames\n"
		"  --seconds S          stop after S seconds (default 5, or none with --frames)\n"
		"  --frame-size BYTES   largest frame, the size of each buffer (default 3110400,\n"
		"                       1080p YUV 4:2:0); with --testgen, the frames' size\n"
		"  --buffers N          frame buffers kept armed (default 8)\n"
		"  --chan N             the stream channel (default: the first C2H stream one)\n"
		"  --testgen            drive the channel's test generator and check each frame\n"
		"  --no-check           with --testgen, check each frame's header and sequence\n"
		"                       only, not its payload: a recording's own cost without\n"
		"                       the checking's (play the file back with --testgen to\n"
		"                       check it after)\n"
		"  --fps N              test generator frame rate (default 30; 0 = as fast as\n"
		"                       buffers allow)\n"
		"  --drop               no buffer armed when a frame is due: the device drops it,\n"
		"                       and one that falls a frame behind drops the frames it\n"
		"                       missed, as a camera does (the default with --fps > 0 or\n"
		"                       without --testgen)\n"
		"  --hold               hold the source back instead: nothing is lost, a paced\n"
		"                       source falls behind its rate (the default with --fps 0);\n"
		"                       not with --drop\n"
		"  --require-fps F      exit 1 if fewer than F frames per second arrived\n"
		"  --timeout S          fail if no frame arrives for S seconds (default 5)\n"
		"  --wait spin|sleep|adaptive   how to wait for frames (default sleep)\n"
		"  --mem host|dmabuf    frame buffers in host memory (default) or in dma-bufs\n"
		"                       imported as GPU memory is (/dev/dma_heap/system, else\n"
		"                       /dev/udmabuf; on sim:, else a memfd); the CPU never\n"
		"                       touches those: each frame is copied to card memory and\n"
		"                       read back into host memory to be checked or written\n"
		"                       (its time counts as checking)\n"
		"  --no-progress        no live progress line (shown only when stderr is a terminal)\n"
		"  --json               one JSON object\n"
		"  --help               this text\n"
		"Figures: fps and MB/s (10^6 bytes) are measured from the first frame's arrival\n"
		"to the last's ('-', JSON null, with fewer than two frames); 'dropped' is the\n"
		"device's count of frames it could not deliver. Errors are counted apart:\n"
		"integrity (a --testgen frame that fails its check), device (a buffer the\n"
		"device failed), timeouts (no frame for --timeout) and writing the output.\n"
		"A --testgen run at a set --fps that drops frames or arrives slower says\n"
		"'missed target'. Latency (--testgen on sim: only, whose frame time stamps\n"
		"are on this host's clock): from the frame's tick on the device, when it was\n"
		"ready to send, to the application holding it: waiting for a buffer, the\n"
		"link transfer of the whole frame and the host's wake-up. cpu is this\n"
		"process's capturing thread (application and library, writing included),\n"
		"less the time checking frames, shown apart; the device model's threads are\n"
		"shown apart too, and with -o FILE the process's other threads (io_uring's\n"
		"workers). 'output waits' counts the waits (up to 0.2 s each) for a write\n"
		"while every buffer was on the file: the file, not the link, held the\n"
		"stream back (--hold) or made the device drop frames (--drop). Ctrl-C ends\n"
		"the run early and still prints the summary.\n");
}

struct stream_res {
	uint64_t frames, bytes, gaps, drops, bytes_checked, bytes_written;
	/* Errors by kind: frames failing the check, the device's, timeouts, the output's. */
	uint64_t errors, data_errors, device_errors, timeouts, write_errors;
	long long unread;	/* -o - into a pipe its reader closed: bytes it never read; else -1 */
	uint64_t first_len;
	double t_first, t_last, secs;
	double cpu, verify, model;
	int have_model, interrupted, epipe;
	int host_clock;		/* the device stamps frames with the host's clock (sim:) */
	const char *exporter;	/* --mem dmabuf: where the dma-bufs came from */
	double wakeups, irqs;
	/* -o FILE through frameio: how, and what it cost. */
	char io_how[400];
	int have_io, io_direct;
	double io_cpu;		/* the process's other threads: io_uring's workers */
	uint64_t output_waits;	/* every buffer waiting on a write */
};

/*
 * The test generator's frame: header, sequence, every payload word and the
 * CRC; with head_only (--no-check) the header and sequence alone.
 */
static int check_testgen(const struct fdma_frame *f, uint64_t frame, int head_only,
			 uint64_t *expect, uint64_t *gaps)
{
	const struct fdma_testgen_hdr *h = f->data;
	const uint8_t *p = (const uint8_t *)f->data + sizeof(*h);
	uint64_t nwords = (frame - sizeof(*h)) / 8;

	if (f->len != frame || h->magic != FDMA_TESTGEN_MAGIC || h->len != frame || h->rsvd)
		return -1;
	if (head_only)
		nwords = 0;
	else if (h->crc != crc32(0, p, (uInt)(frame - sizeof(*h))))
		return -1;
	/* The words too: a CRC can be right over a frame built wrongly. */
	for (uint64_t i = 0; i < nwords; i++) {
		uint64_t w;

		memcpy(&w, p + 8 * i, 8);
		if (w != ((uint64_t)h->seq << 32 | i))
			return -1;
	}
	for (uint64_t i = sizeof(*h) + 8 * nwords; i < frame && !head_only; i++)
		if (((const uint8_t *)f->data)[i])
			return -1;
	if (h->seq > *expect)
		*gaps += h->seq - *expect;
	*expect = (uint64_t)h->seq + 1;
	return 0;
}

/*
 * --mem dmabuf: one dma-buf per frame buffer, and a host buffer the frame
 * is read back into through card memory (the memory-mapped channels are
 * idle during a capture). The frame the loop works on then points at the
 * host copy; release_frame() hands the device its own back.
 */
struct dmabuf_view {
	int host, viewed;
	void *data;			/* the dma-buf's own pointer, NULL when unmapped */
	uint32_t align;
	uint64_t card_addr;
	int bufs[1024];			/* --buffers' limit */
};

static int open_dmabufs(struct fdma_dev *dev, int ch, const struct fdma_info *info,
			const struct stream_opts *o, struct dmabuf_view *dv, struct fdma_stream **sp,
			const char **exporter)
{
	/* Whole pages: an exporter hands out nothing smaller. */
	size_t size = (o->frame + 4095) & ~(size_t)4095;
	const char *how = NULL;

	if (info->card_size < size || fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MM) < 0 ||
	    fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM) < 0) {
		fprintf(stderr, "fdma stream: --mem dmabuf sees frames through card memory: %s has "
			"no memory-mapped channels or too little card memory for a frame\n", o->uri);
		return -1;
	}
	dv->align = info->align;
	dv->card_addr = 0;
	for (uint64_t i = 0; i < o->nbufs; i++) {
		dv->bufs[i] = tool_dmabuf_import("stream", dev, size, &how);
		if (dv->bufs[i] < 0)
			return -1;
	}
	dv->host = fdma_buf_alloc(dev, size, 0);
	/* The buffers are the device's: fdma_close() frees them on every path. */
	if (dv->host < 0 || fdma_stream_open_bufs(dev, ch, dv->bufs,
						  (unsigned int)o->nbufs, sp)) {
		fprintf(stderr, "fdma stream: %s\n", fdma_errmsg(dev));
		return -1;
	}
	*exporter = how;
	return 0;
}

static int view_frame(struct fdma_dev *dev, struct dmabuf_view *dv, struct fdma_frame *f)
{
	uint64_t len = (f->len + dv->align - 1) / dv->align * dv->align;
	int ret = tool_card_view(dev, dv->bufs[f->index], 0, dv->host, 0, len, dv->card_addr);

	dv->data = f->data;
	dv->viewed = 1;
	f->data = fdma_buf_addr(dev, dv->host);
	return ret;
}

static int release_frame(struct fdma_stream *s, struct dmabuf_view *dv, struct fdma_frame *f)
{
	if (dv->viewed)
		f->data = dv->data;
	dv->viewed = 0;
	return fdma_stream_release(s, f);
}

/* From the first frame's arrival to the last's: -1 (unknown) with fewer than two. */
static double rate_fps(const struct stream_res *r)
{
	return tool_rate((double)r->frames, 1, r->frames, r->t_first, r->t_last);
}

static double rate_mbps(const struct stream_res *r)
{
	double v = tool_rate((double)r->bytes, (double)r->first_len, r->frames, r->t_first,
			     r->t_last);

	return v < 0 ? v : v / 1e6;
}

/*
 * -o - into a pipe whose reader went away: the bytes still in the pipe,
 * which it never read (the pipe keeps them until the writer closes too);
 * -1 for anything else.
 */
static long long pipe_unread(int fd)
{
	struct stat sb;
	int n;

	if (fstat(fd, &sb) || !S_ISFIFO(sb.st_mode) || ioctl(fd, FIONREAD, &n))
		return -1;
	return n;
}

static const char *wait_name(enum fdma_wait_mode w)
{
	return w == FDMA_WAIT_SPIN ? "spin" : w == FDMA_WAIT_SLEEP ? "sleep" : "adaptive";
}

static void print_report(FILE *out, const struct stream_opts *o, int ch, int paced,
			 const struct stream_res *r, struct tool_lat *lat, int target_met)
{
	double fps = rate_fps(r), mbps = rate_mbps(r);
	int lat_known = o->testgen && r->host_clock && lat->n;
	double p50 = tool_lat_pct(lat, 50), p99 = tool_lat_pct(lat, 99), max = tool_lat_pct(lat, 100);
	const char *mode = o->drop == -2 ? "source" : o->drop ? "drop" : "hold";
	char fps_s[32], mbps_s[32];

	if (o->json) {
		fprintf(out, "{\"uri\":");
		tool_json_str(out, o->uri);
		fprintf(out, ",\"dir\":\"c2h\",\"chan\":%d,\"testgen\":%s,\"frame_size\":%" PRIu64 ",",
			ch, o->testgen ? "true" : "false", o->frame);
		if (o->testgen && o->fps > 0)
			fprintf(out, "\"fps_target\":%.3f,", o->fps);
		else
			fprintf(out, "\"fps_target\":null,");
		fprintf(out, "\"mode\":\"%s\",\"buffers\":%" PRIu64 ",\"wait\":\"%s\",\"paced\":%s,"
			"\"hugepages\":false,\"seconds\":%.3f,\"frames\":%" PRIu64,
			mode, o->nbufs, wait_name(o->wait), paced ? "true" : "false", r->secs, r->frames);
		tool_json_rate(out, "fps", "%.2f", fps);
		tool_json_rate(out, "mbps", "%.2f", mbps);
		fprintf(out, ",\"bytes\":%" PRIu64 ",\"dropped\":%" PRIu64 ",", r->bytes, r->drops);
		if (o->testgen)
			fprintf(out, "\"seq_gaps\":%" PRIu64 ",", r->gaps);
		else
			fprintf(out, "\"seq_gaps\":null,");
		fprintf(out, "\"errors\":%" PRIu64 ",\"data_errors\":%" PRIu64 ",\"device_errors\":%"
			PRIu64 ",\"timeouts\":%" PRIu64 ",\"write_errors\":%" PRIu64
			",\"bytes_checked\":%" PRIu64 ",\"bytes_written\":%" PRIu64 ",",
			r->errors, r->data_errors, r->device_errors, r->timeouts, r->write_errors,
			r->bytes_checked, r->bytes_written);
		if (r->unread >= 0)
			fprintf(out, "\"bytes_unread\":%lld,", r->unread);
		else
			fprintf(out, "\"bytes_unread\":null,");
		if (lat_known)
			fprintf(out, "\"p50_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f,", p50, p99, max);
		else
			fprintf(out, "\"p50_us\":null,\"p99_us\":null,\"max_us\":null,");
		fprintf(out, "\"cpu_pct\":%.2f,\"verify_cpu_pct\":%.2f,", r->cpu / r->secs * 100,
			r->verify / r->secs * 100);
		if (r->have_model)
			fprintf(out, "\"model_cpu_pct\":%.1f,", r->model / r->secs * 100);
		else
			fprintf(out, "\"model_cpu_pct\":null,");
		fprintf(out, "\"mem\":\"%s\",\"exporter\":", o->dmabuf ? "dmabuf" : "host");
		if (r->exporter)
			tool_json_str(out, r->exporter);
		else
			fprintf(out, "null");
		if (r->have_io) {
			fprintf(out, ",\"io\":");
			tool_json_str(out, r->io_how);
			fprintf(out, ",\"io_direct\":%s,\"io_cpu_pct\":%.2f,\"output_waits\":%" PRIu64,
				r->io_direct ? "true" : "false", r->io_cpu / r->secs * 100, r->output_waits);
		} else {
			fprintf(out, ",\"io\":null,\"io_direct\":null,\"io_cpu_pct\":null,"
				"\"output_waits\":null");
		}
		fprintf(out, ",\"wakeups_per_s\":%.1f,\"irqs_per_s\":%.1f,\"target_met\":%s,"
			"\"interrupted\":%s}\n",
			r->wakeups / r->secs, r->irqs / r->secs,
			target_met < 0 ? "null" : target_met ? "true" : "false",
			r->interrupted ? "true" : "false");
		fflush(out);
		return;
	}
	fprintf(out, "fdma stream on %s, channel %d: ", o->uri, ch);
	if (o->testgen) {
		fprintf(out, "test generator, %" PRIu64 "-byte frames", o->frame);
		if (o->fps > 0)
			fprintf(out, " at %g fps", o->fps);
		else
			fprintf(out, " as fast as buffers allow");
	} else {
		fprintf(out, "frames up to %" PRIu64 " bytes", o->frame);
	}
	fprintf(out, ", %s mode, %.2f s%s\n", mode, r->secs, r->interrupted ? " (interrupted)" : "");
	if (r->exporter)
		fprintf(out, "  frames into dma-bufs (%s), seen through the card\n", r->exporter);
	fprintf(out, "  frames %" PRIu64 " (%s fps, %s MB/s), dropped by the device %" PRIu64,
		r->frames, tool_fmt_rate(fps_s, sizeof(fps_s), "%.2f", fps),
		tool_fmt_rate(mbps_s, sizeof(mbps_s), "%.1f", mbps), r->drops);
	if (o->testgen)
		fprintf(out, " (sequence gaps %" PRIu64 ")", r->gaps);
	fprintf(out, "\n");
	/* Integrity is the frames' own check; what else went wrong is said apart. */
	if (o->testgen)
		fprintf(out, "  integrity errors %" PRIu64 " (%" PRIu64 " bytes checked)\n",
			r->data_errors, r->bytes_checked);
	if (r->device_errors || r->timeouts || r->write_errors)
		fprintf(out, "  other errors: device %" PRIu64 ", timeouts %" PRIu64
			", writing the output %" PRIu64 "\n",
			r->device_errors, r->timeouts, r->write_errors);
	if (o->output) {
		fprintf(out, "  written %" PRIu64 " bytes to %s", r->bytes_written,
			strcmp(o->output, "-") ? o->output : "standard output");
		if (r->unread >= 0)
			fprintf(out, "; the reader closed the pipe after reading %" PRIu64 " (%lld unread)",
				r->bytes_written - (uint64_t)r->unread, r->unread);
		else if (r->epipe)
			fprintf(out, " (the reader closed the pipe)");
		fprintf(out, "\n");
		if (r->have_io)
			fprintf(out, "  output: %s; waits with every buffer on the file %" PRIu64 "\n",
				r->io_how, r->output_waits);
	}
	if (lat_known)
		fprintf(out, "  latency frame ready to application: p50 %.1f us, p99 %.1f us, max %.1f us\n",
			p50, p99, max);
	fprintf(out, "  cpu %.2f%% of a core", r->cpu / r->secs * 100);
	if (o->testgen)
		fprintf(out, " (+%.2f%% checking frames)", r->verify / r->secs * 100);
	if (r->have_model)
		fprintf(out, ", device model %.1f%%", r->model / r->secs * 100);
	if (r->have_io)
		fprintf(out, ", other threads %.2f%%", r->io_cpu / r->secs * 100);
	fprintf(out, ", %.1f wake-ups/s, %.1f interrupts/s\n", r->wakeups / r->secs,
		r->irqs / r->secs);
	fflush(out);
}

static int parse_opts(int argc, char **argv, struct stream_opts *o)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "frames", required_argument, NULL, 'n' },
		{ "frame-size", required_argument, NULL, 'f' },
		{ "fps", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 't' },
		{ "buffers", required_argument, NULL, 'b' },
		{ "chan", required_argument, NULL, 'c' },
		{ "testgen", no_argument, NULL, 'G' },
		{ "drop", no_argument, NULL, 'D' },
		{ "hold", no_argument, NULL, 'L' },
		{ "require-fps", required_argument, NULL, 'R' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "wait", required_argument, NULL, 'w' },
		{ "mem", required_argument, NULL, 'm' },
		{ "no-direct", no_argument, NULL, 'I' },
		{ "no-uring", no_argument, NULL, 'U' },
		{ "no-check", no_argument, NULL, 'K' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, have_secs = 0, have_fps = 0, drop_opts = 0;
	uint64_t v;
	char *end;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "ho:", lopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			o->output = optarg;
			break;
		case 'n':
			if (tool_parse_uint(optarg, 1, UINT64_MAX, &o->max_frames)) {
				fprintf(stderr, "fdma stream: --frames must be a number of frames >= 1, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'f':
			if (tool_parse_size(optarg, &o->frame) || o->frame < 64 || o->frame > (256u << 20)) {
				fprintf(stderr, "fdma stream: --frame-size must be 64..256M, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'r':
			errno = 0;
			o->fps = strtod(optarg, &end);
			/* The generator's period is 32-bit nanoseconds: 0.25 fps at the slowest. */
			if (errno || end == optarg || *end || !(o->fps == 0 || (o->fps >= 0.25 && o->fps <= 1e6))) {
				fprintf(stderr, "fdma stream: --fps must be 0 or 0.25..1000000, not '%s'\n", optarg);
				return -1;
			}
			have_fps = 1;
			break;
		case 't':
			if (tool_parse_secs(optarg, 7 * 86400, &o->seconds)) {
				fprintf(stderr, "fdma stream: --seconds must be in (0, 604800], not '%s'\n", optarg);
				return -1;
			}
			have_secs = 1;
			break;
		case 'b':
			if (tool_parse_uint(optarg, 2, 1024, &o->nbufs)) {
				fprintf(stderr, "fdma stream: --buffers must be 2..1024, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'c':
			if (tool_parse_uint(optarg, 0, FDMA_MAX_CHAN - 1, &v)) {
				fprintf(stderr, "fdma stream: --chan must be a channel number 0..%d, not '%s'\n",
					FDMA_MAX_CHAN - 1, optarg);
				return -1;
			}
			o->chan = (int)v;
			break;
		case 'G':
			o->testgen = 1;
			break;
		case 'D':
		case 'L':
			o->drop = opt == 'D';
			o->drop_given = 1;
			drop_opts |= opt == 'D' ? 1 : 2;
			break;
		case 'R':
			errno = 0;
			o->require_fps = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->require_fps > 0)) {
				fprintf(stderr, "fdma stream: --require-fps must be a rate > 0, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'T':
			if (tool_parse_secs(optarg, 86400, &o->timeout)) {
				fprintf(stderr, "fdma stream: --timeout must be in (0, 86400], not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'w':
			if (tool_parse_wait(optarg, &o->wait)) {
				fprintf(stderr, "fdma stream: --wait must be spin, sleep or adaptive, not '%s'\n", optarg);
				return -1;
			}
			break;
		case 'm':
			if (strcmp(optarg, "host") && strcmp(optarg, "dmabuf")) {
				fprintf(stderr, "fdma stream: --mem must be host or dmabuf, not '%s'\n", optarg);
				return -1;
			}
			o->dmabuf = !strcmp(optarg, "dmabuf");
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
		case 'K':
			o->no_check = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			tool_usage_hint("stream");
			return -1;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "fdma stream: one device URI, not also '%s', see --help\n",
			argv[optind + 1]);
		return -1;
	}
	o->uri = tool_uri("stream", optind < argc ? argv[optind] : NULL);
	if (!o->uri)
		return -1;
	if (drop_opts == 3) {
		fprintf(stderr, "fdma stream: --drop and --hold are opposites: give one\n");
		return -1;
	}
	if (o->no_check && !o->testgen) {
		fprintf(stderr, "fdma stream: --no-check leaves out part of --testgen's check: add --testgen\n");
		return -1;
	}
	if (have_fps && !o->testgen) {
		fprintf(stderr, "fdma stream: --fps sets the test generator's rate: add --testgen "
			"(a capture takes frames at the source's own rate)\n");
		return -1;
	}
	if (!have_secs)
		o->seconds = o->max_frames ? 0 : 5;
	if (o->testgen && o->frame < sizeof(struct fdma_testgen_hdr))
		o->frame = sizeof(struct fdma_testgen_hdr);
	if (o->drop < 0)
		o->drop = !(o->testgen && o->fps == 0);
	if (o->output && !strcmp(o->output, "-") && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "fdma stream: --output - would write binary frames to a terminal; "
			"redirect it or name a file\n");
		return -1;
	}
	return 0;
}

/*
 * -o FILE: a file written from the frame buffers; held[i] is the frame in
 * buffer i while its write is in flight.
 */
struct output {
	struct frameio *fio;
	struct fdma_frame *held;
	uint64_t off;		/* where the next frame goes in the file */
};

static int output_open(struct output *out, const struct stream_opts *o, struct fdma_stream *s,
		       struct fdma_dev *dev)
{
	struct iovec iov[1024];
	struct frameio_cfg cfg = {
		.cmd = "stream", .path = o->output, .write = 1, .bufs = iov,
		.nbufs = (unsigned int)o->nbufs, .direct = !o->no_direct, .uring = !o->no_uring,
	};

	if (fdma_stream_bufs(s, iov, 1024) != (int)o->nbufs) {
		fprintf(stderr, "fdma stream: %s\n", fdma_errmsg(dev));
		return -1;
	}
	out->held = calloc(o->nbufs, sizeof(*out->held));
	if (!out->held) {
		fprintf(stderr, "fdma stream: out of memory\n");
		return -1;
	}
	return frameio_open(&out->fio, &cfg) ? -1 : 0;
}

/*
 * Buffers whose writes are done go back to the device; waits up to
 * timeout_us for one when none is done. Returns how many, or -1 when the
 * stream cannot go on (the message printed, the error counted); a write
 * that failed is counted in r->write_errors.
 */
static int output_reap(struct output *out, struct fdma_stream *s, struct fdma_dev *dev,
		       const char *path, struct stream_res *r, int64_t timeout_us)
{
	struct frameio_done d[64];
	int n = frameio_reap(out->fio, d, 64, timeout_us);

	if (n < 0) {
		fprintf(stderr, "fdma stream: waiting for writes to '%s': %s\n", path, strerror(-n));
		r->write_errors++;
		r->errors++;
		return -1;
	}
	int ret = n;

	for (int i = 0; i < n; i++) {
		if (d[i].res == -EINTR) {
			/* Ctrl-C while a pipe's reader was away: the frame is not in the file. */
			r->interrupted = 1;
		} else if (d[i].res < 0) {
			if (!r->write_errors)
				fprintf(stderr, "fdma stream: writing '%s': %s\n", path,
					strerror((int)-d[i].res));
			r->write_errors++;
			r->errors++;
		} else {
			r->bytes_written += (uint64_t)d[i].res;
		}
		/* Every buffer reaped goes back, whatever became of the others. */
		if (fdma_stream_release(s, &out->held[d[i].idx])) {
			if (ret >= 0)
				fprintf(stderr, "fdma stream: %s\n", fdma_errmsg(dev));
			r->device_errors++;
			r->errors++;
			ret = -1;
		}
	}
	return ret;
}

/* Every write done (their buffers back with the device), the file closed. */
static void output_close(struct output *out, struct fdma_stream *s, struct fdma_dev *dev,
			 const char *path, struct stream_res *r)
{
	int ret;

	if (!out->fio) {
		free(out->held);
		out->held = NULL;
		return;
	}
	while (frameio_inflight(out->fio) && output_reap(out, s, dev, path, r, -1) >= 0)
		;
	snprintf(r->io_how, sizeof(r->io_how), "%s", frameio_how(out->fio));
	r->io_direct = frameio_direct(out->fio);
	r->have_io = 1;
	ret = frameio_close(out->fio);
	out->fio = NULL;
	if (ret) {
		fprintf(stderr, "fdma stream: closing '%s': %s\n", path, strerror(-ret));
		r->write_errors++;
		r->errors++;
	}
	free(out->held);
	out->held = NULL;
}

/* --dir h2c (or --input): the reverse direction is fdma play; pass the rest on. */
static int h2c_redirect(int argc, char **argv, int *ret)
{
	int h2c = 0;
	char **nv;
	int nc = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if ((!strcmp(argv[i], "--dir") && i + 1 < argc && !strcmp(argv[i + 1], "h2c")) ||
		    !strcmp(argv[i], "--dir=h2c"))
			h2c = 1;
	}
	if (!h2c)
		return 0;
	nv = calloc((size_t)argc + 1, sizeof(*nv));
	if (!nv) {
		fprintf(stderr, "fdma stream: out of memory\n");
		*ret = EXIT_FAIL;
		return 1;
	}
	nv[nc++] = argv[0];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dir=h2c"))
			continue;
		if (!strcmp(argv[i], "--dir") && i + 1 < argc && !strcmp(argv[i + 1], "h2c")) {
			i++;
			continue;
		}
		nv[nc++] = argv[i];
	}
	*ret = fdma_cmd_play(nc, nv);
	free(nv);
	return 1;
}

int fdma_cmd_stream(int argc, char **argv)
{
	struct stream_opts o = { .chan = -1, .frame = DEFAULT_FRAME, .nbufs = 8, .fps = 30,
				 .timeout = 5, .drop = -1, .progress = 1, .wait = FDMA_WAIT_SLEEP };
	struct stream_res r = { .unread = -1 };
	struct tool_progress prog;
	struct tool_lat lat = { 0 };
	struct fdma_info info;
	struct fdma_dev *dev;
	struct fdma_stream *s = NULL;
	struct fdma_chan_stats st0, st1;
	struct dmabuf_view dv = { .host = -1 };
	struct output out = { 0 };
	struct stat osb;
	uint64_t expect = 0;
	double t0, cpu0, pcpu0, mcpu0 = 0, mcpu1 = 0, last_seen;
	int ch, ret, rc = EXIT_OK, fd = -1, target_met = -1, tg_on = 0, realtime;
	char fps_s[32];
	FILE *rep;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--dir") && i + 1 < argc && strcmp(argv[i + 1], "h2c") &&
		    strcmp(argv[i + 1], "c2h")) {
			fprintf(stderr, "fdma stream: --dir must be c2h or h2c, not '%s'\n", argv[i + 1]);
			return EXIT_USAGE;
		}
	if (h2c_redirect(argc, argv, &ret))
		return ret;
	/* --dir c2h is the default: drop it before getopt sees it. */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--dir=c2h") ||
		    (!strcmp(argv[i], "--dir") && i + 1 < argc && !strcmp(argv[i + 1], "c2h"))) {
			int k = !strcmp(argv[i], "--dir=c2h") ? 1 : 2;

			memmove(&argv[i], &argv[i + k], (size_t)(argc - i - k + 1) * sizeof(*argv));
			argc -= k;
			i--;
		}
	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	/* With the frames on standard output, the report goes to stderr. */
	rep = o.output && !strcmp(o.output, "-") ? stderr : stdout;
	/* Before anything slow: a Ctrl-C during the set-up still ends with a summary. */
	tool_catch_stop();

	if (tool_open(o.uri, &dev))
		return EXIT_FAIL;
	fdma_get_info(dev, &info);
	realtime = tool_realtime(&info);
	ch = tool_stream_chan("stream", dev, &info, o.uri, o.chan, FDMA_C2H);
	if (ch < 0)
		goto fail_close;
	if (o.testgen && !info.chan[ch].testgen) {
		fprintf(stderr, "fdma stream: channel %d has no test generator (drop --testgen to "
			"capture its own source)\n", ch);
		goto fail_close;
	}
	/*
	 * Standard output, a pipe or a device, and frames seen through the
	 * card (one host copy), are written as they come, with write(2): a
	 * reader that closes its pipe ends the run.
	 */
	if (o.output && (!strcmp(o.output, "-") || o.dmabuf ||
			 (!stat(o.output, &osb) && !S_ISREG(osb.st_mode)))) {
		fd = tool_open_out("stream", o.output);
		if (fd < 0)
			goto fail_close;
	}
	/* A channel that cannot choose (dmaengine) keeps its source's way, unless asked. */
	ret = fdma_chan_set_wait(dev, ch, o.wait, 0);
	if (!ret) {
		ret = fdma_chan_set_drop(dev, ch, o.drop);
		if (ret == -EOPNOTSUPP && !o.drop_given) {
			o.drop = -2;
			ret = 0;
		}
	}
	if (!ret && o.dmabuf) {
		if (open_dmabufs(dev, ch, &info, &o, &dv, &s, &r.exporter))
			goto fail_close;
	} else if (ret || fdma_stream_open(dev, ch, (unsigned int)o.nbufs, o.frame, &s)) {
		fprintf(stderr, "fdma stream: %s\n", fdma_errmsg(dev));
		goto fail_close;
	}
	if (o.output && fd < 0 && output_open(&out, &o, s, dev))
		goto fail_stream;
	fdma_chan_stats(dev, ch, &st0);
	r.have_model = !fdma_model_cpu(dev, &mcpu0);
	/* The model's generator stamps with CLOCK_MONOTONIC; the RTL's counts its own clocks. */
	r.host_clock = r.have_model && !strcmp(info.backend, "sim");
	/* The source starts once every buffer is armed: nothing is owed at the start. */
	if (o.testgen) {
		if (fdma_chan_set_testgen(dev, ch, (uint32_t)o.frame,
					  o.fps > 0 ? (uint32_t)(1e9 / o.fps + 0.5) : 0, 1)) {
			fprintf(stderr, "fdma stream: %s\n", fdma_errmsg(dev));
			goto fail_stream;
		}
		tg_on = 1;
	}
	tool_progress_init(&prog, o.progress);
	t0 = tool_now();
	last_seen = t0;
	cpu0 = tool_thread_cpu();
	pcpu0 = tool_proc_cpu();
	for (;;) {
		struct fdma_frame f;
		double now = tool_now(), v0, left = 0.2;
		int64_t to_us;

		if (tool_stop_requested()) {
			r.interrupted = 1;
			break;
		}
		if (o.max_frames && r.frames >= o.max_frames)
			break;
		if (o.seconds > 0) {
			if (now - t0 >= o.seconds)
				break;
			if (o.seconds - (now - t0) < left)
				left = o.seconds - (now - t0);
		}
		if (now - last_seen >= o.timeout) {
			fprintf(stderr, "fdma stream: no frame for %.1f s on channel %d%s\n", o.timeout, ch,
				o.testgen ? "" : info.chan[ch].testgen && !strcmp(info.backend, "sim")
				? " (on sim: the only source is the test generator: add --testgen)"
				: " (is the source running?)");
			r.timeouts++;
			r.errors++;
			break;
		}
		if (tool_progress_due(&prog)) {
			char fs[32], ms[32];

			tool_progress_show(&prog, "  %.1f s  %" PRIu64 " frames  %s fps  %s MB/s  "
					   "dropped %" PRIu64 "  errors %" PRIu64, now - t0, r.frames,
					   tool_fmt_rate(fs, sizeof(fs), "%.1f", rate_fps(&r)),
					   tool_fmt_rate(ms, sizeof(ms), "%.1f", rate_mbps(&r)),
					   fdma_stream_drops(s), r.errors);
		}
		/* Short waits: the time limit, Ctrl-C and the progress line are looked at in between. */
		to_us = (int64_t)(left * 1e6);
		if (out.fio) {
			/* Buffers whose writes are done go back to the device first. */
			if (output_reap(&out, s, dev, o.output, &r, 0) < 0 || r.write_errors ||
			    r.interrupted)
				break;
			if (frameio_inflight(out.fio) == o.nbufs) {
				/*
				 * Every buffer waits on the file: the device has none,
				 * and no frame can be late.
				 */
				r.output_waits++;
				ret = output_reap(&out, s, dev, o.output, &r, to_us > 0 ? to_us : 1);
				last_seen = tool_now();
				if (ret < 0)
					break;
				continue;
			}
			/* Writes in flight: back soon to give their buffers back. */
			if (frameio_inflight(out.fio) && to_us > 5000)
				to_us = 5000;
		}
		ret = fdma_stream_get(s, &f, to_us > 0 ? to_us : 1);
		if (ret == -ETIMEDOUT || ret == -EINTR)
			continue;
		if (ret) {
			fprintf(stderr, "fdma stream: %s\n", fdma_errmsg(dev));
			r.device_errors++;
			r.errors++;
			if (ret == -EMSGSIZE || ret == -ECANCELED)
				continue;
			break;
		}
		now = tool_now();
		last_seen = now;
		if (!r.frames) {
			r.t_first = now;
			r.first_len = f.len;
		}
		r.t_last = now;
		r.frames++;
		r.bytes += f.len;
		v0 = tool_thread_cpu();
		if (o.dmabuf && (o.testgen || fd >= 0) && view_frame(dev, &dv, &f)) {
			fprintf(stderr, "fdma stream: reading frame %" PRIu64 " through the card: %s\n",
				r.frames - 1, fdma_errmsg(dev));
			r.device_errors++;
			r.errors++;
			break;
		}
		r.verify += tool_thread_cpu() - v0;
		if (o.testgen) {
			v0 = tool_thread_cpu();
			if (check_testgen(&f, o.frame, o.no_check, &expect, &r.gaps)) {
				r.data_errors++;
				r.errors++;
			} else if (r.host_clock) {
				const struct fdma_testgen_hdr *h = f.data;

				tool_lat_add(&lat, (now - h->tstamp_ns * 1e-9) * 1e6);
			}
			r.bytes_checked += o.no_check ? sizeof(struct fdma_testgen_hdr) : f.len;
			r.verify += tool_thread_cpu() - v0;
		}
		if (out.fio && f.len) {
			/* The buffer is the file's until its write is done (output_reap()). */
			out.held[f.index] = f;
			ret = frameio_submit(out.fio, f.index, f.len, out.off);
			if (ret) {
				fprintf(stderr, "fdma stream: writing '%s': %s\n", o.output, strerror(-ret));
				r.write_errors++;
				r.errors++;
				release_frame(s, &dv, &f);
				break;
			}
			out.off += f.len;
			continue;
		}
		if (fd >= 0 && !r.epipe) {
			size_t done;

			ret = tool_write_some(fd, f.data, f.len, &done);
			/* What write() took, a torn last frame's bytes included. */
			r.bytes_written += done;
			if (ret == -EPIPE) {
				/* The reader (ffmpeg, head) is done: end of the run, not a failure. */
				r.epipe = 1;
				r.unread = pipe_unread(fd);
			} else if (ret == -EINTR) {
				/* Ctrl-C before any of this frame was written: the file holds whole frames. */
				r.interrupted = 1;
			} else if (ret) {
				fprintf(stderr, "fdma stream: writing '%s': %s\n", o.output, strerror(-ret));
				r.write_errors++;
				r.errors++;
			}
		}
		if (release_frame(s, &dv, &f)) {
			fprintf(stderr, "fdma stream: %s\n", fdma_errmsg(dev));
			r.device_errors++;
			r.errors++;
			break;
		}
		if (r.epipe || r.interrupted || (fd >= 0 && r.errors))
			break;
	}
	/* The run ends when its last frame is in the file. */
	output_close(&out, s, dev, o.output, &r);
	r.secs = tool_now() - t0;
	r.cpu = tool_thread_cpu() - cpu0 - r.verify;
	tool_progress_end(&prog);
	if (tg_on)
		fdma_chan_set_testgen(dev, ch, (uint32_t)o.frame, 0, 0);
	fdma_model_cpu(dev, &mcpu1);
	r.model = mcpu1 - mcpu0;
	/* The rest of the process: io_uring's workers (and nothing else of fdma's). */
	r.io_cpu = tool_proc_cpu() - pcpu0 - (r.cpu + r.verify) - (r.have_model ? r.model : 0);
	if (r.io_cpu < 0)
		r.io_cpu = 0;
	fdma_chan_stats(dev, ch, &st1);
	r.drops = fdma_stream_drops(s);
	r.wakeups = (double)(st1.wakeups - st0.wakeups);
	r.irqs = (double)(st1.interrupts - st0.interrupts);
	if (o.testgen && o.fps > 0 && r.frames >= 2)
		/* 2% for the model's and the host's timer jitter over a short run. */
		target_met = !r.drops && rate_fps(&r) >= o.fps * 0.98;
	else if (o.testgen && o.fps > 0 && !r.interrupted && r.secs >= 2 / o.fps)
		/* Two periods went by and fewer than two frames came: no rate, and short of it. */
		target_met = 0;
	print_report(rep, &o, ch, realtime, &r, &lat, target_met);
	if (target_met == 0)
		fprintf(stderr, "fdma stream: missed target: %s fps of %g, %" PRIu64
			" frames dropped by the device (%s)\n",
			tool_fmt_rate(fps_s, sizeof(fps_s), "%.2f", rate_fps(&r)), o.fps, r.drops,
			o.drop == -2 ? "the channel's source decides whether it waits"
			: o.drop ? "the source cannot be held: frames it could not send are lost"
			       : "the source was held back and fell behind");
	/* rtl: runs its link in clocks, far slower than the wall: no rate can be kept. */
	if (target_met == 0 && !realtime && info.link.paced)
		fprintf(stderr, "fdma stream: %s is not paced in real time (the RTL runs at a few "
			"MB/s of wall time): --fps 0 takes frames as fast as it makes them\n", o.uri);
	if (r.output_waits && r.drops)
		fprintf(stderr, "fdma stream: the output is the bottleneck: the device dropped %"
			PRIu64 " frames, and every buffer was waiting on a write to '%s' (%" PRIu64
			" waits; a faster disk, or more --buffers to ride out its stalls)\n",
			r.drops, o.output, r.output_waits);
	if (o.require_fps > 0 && rate_fps(&r) < o.require_fps) {
		if (rate_fps(&r) < 0)
			fprintf(stderr, "fdma stream: %" PRIu64 " frame%s give no rate: below "
				"--require-fps %g\n", r.frames, r.frames == 1 ? "" : "s", o.require_fps);
		else
			fprintf(stderr, "fdma stream: %.2f fps is below --require-fps %g\n",
				rate_fps(&r), o.require_fps);
		rc = EXIT_FAIL;
	}
	if (r.errors || !r.frames)
		rc = EXIT_FAIL;
	if (!r.frames && !r.errors)
		fprintf(stderr, "fdma stream: no frame arrived\n");
	if (fd > STDERR_FILENO && close(fd)) {
		fprintf(stderr, "fdma stream: closing '%s': %s\n", o.output, strerror(errno));
		rc = EXIT_FAIL;
	}
	fdma_stream_close(s);
	tool_lat_free(&lat);
	fdma_close(dev);
	return rc;

fail_stream:
	output_close(&out, s, dev, o.output, &r);
	fdma_stream_close(s);
fail_close:
	if (fd > STDERR_FILENO)
		close(fd);
	fdma_close(dev);
	return EXIT_FAIL;
}
