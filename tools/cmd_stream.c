// SPDX-License-Identifier: MIT
/*
 * fdma stream: receive frames from a C2H stream channel's test generator
 * through the zero-copy stream API, check every frame (header, sequence,
 * CRC-32 of the payload) and report rate, drops, latency and CPU.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fdma_cmds.h"
#include "fdma_regs_user.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fdma stream URI [options]\n"
		"  Streams frames from the device's C2H stream channel (its test generator)\n"
		"  into a ring of buffers, checks each one and reports what arrived.\n"
		"options:\n"
		"  --frame-size BYTES   frame size (default 3110400, 1080p YUV 4:2:0)\n"
		"  --fps N              frames per second (default 30; 0 = as fast as possible)\n"
		"  --seconds S          how long (default 5)\n"
		"  --buffers N          frame buffers kept armed (default 8)\n"
		"  --drop               let the device drop frames when no buffer is armed\n"
		"                       (default: hold the source back)\n"
		"  --wait spin|sleep|adaptive   (default sleep)\n"
		"  --json               one JSON object\n"
		"  --help               this text\n");
}

int fdma_cmd_stream(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "frame-size", required_argument, NULL, 'f' },
		{ "fps", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 't' },
		{ "buffers", required_argument, NULL, 'b' },
		{ "drop", no_argument, NULL, 'D' },
		{ "wait", required_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t frame = 3110400, nbufs = 8;
	double fps = 30, seconds = 5;
	int json = 0, drop = 0, opt, ch, ret, rc = EXIT_OK;
	enum fdma_wait_mode wait = FDMA_WAIT_SLEEP;
	struct fdma_dev *dev;
	struct fdma_stream *s;
	struct fdma_chan_stats st0, st1;
	struct tool_lat lat = { 0 };
	uint64_t frames = 0, bytes = 0, errors = 0, gaps = 0, expect = 0;
	double t0, t, cpu0, mcpu0 = 0, mcpu1 = 0, verify = 0;
	int have_model;
	char *end;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (tool_parse_size(optarg, &frame) || frame < 64 || frame > (256u << 20)) {
				fprintf(stderr, "fdma stream: --frame-size must be 64..256M, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'r':
			fps = strtod(optarg, &end);
			if (*end || fps < 0 || fps > 1e6) {
				fprintf(stderr, "fdma stream: --fps must be 0..1000000, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 't':
			seconds = strtod(optarg, &end);
			if (*end || !(seconds > 0) || seconds > 86400) {
				fprintf(stderr, "fdma stream: --seconds must be in (0, 86400], not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'b':
			nbufs = strtoull(optarg, &end, 10);
			if (*end || nbufs < 2 || nbufs > 1024) {
				fprintf(stderr, "fdma stream: --buffers must be 2..1024, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'D':
			drop = 1;
			break;
		case 'w':
			if (tool_parse_wait(optarg, &wait)) {
				fprintf(stderr, "fdma stream: --wait must be spin, sleep or adaptive, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "fdma stream: expected one device URI (e.g. sim:), see --help\n");
		return EXIT_USAGE;
	}
	if (tool_open(argv[optind], &dev))
		return EXIT_FAIL;
	ch = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	if (ch < 0 || fdma_chan_set_wait(dev, ch, wait, 0) ||
	    fdma_chan_set_drop(dev, ch, drop) ||
	    fdma_chan_set_testgen(dev, ch, (uint32_t)frame,
				  fps > 0 ? (uint32_t)(1e9 / fps) : 0, 1) ||
	    (ret = fdma_stream_open(dev, ch, (unsigned int)nbufs, frame, &s))) {
		fprintf(stderr, "fdma stream: %s\n", fdma_errmsg(dev));
		fdma_close(dev);
		return EXIT_FAIL;
	}
	fdma_chan_stats(dev, ch, &st0);
	have_model = !fdma_model_cpu(dev, &mcpu0);
	t0 = tool_now();
	cpu0 = tool_thread_cpu();
	while ((t = tool_now()) - t0 < seconds) {
		struct fdma_frame f;
		const struct fdma_frame_hdr *h;
		double v0, now;

		ret = fdma_stream_get(s, &f, 2000000);
		if (ret) {
			fprintf(stderr, "fdma stream: %s\n", fdma_errmsg(dev));
			errors++;
			if (ret == -ETIMEDOUT || ret == -EBADF)
				break;
			continue;
		}
		now = tool_now();
		v0 = tool_thread_cpu();
		h = f.data;
		if (f.len != frame || h->magic != FDMA_FRAME_MAGIC || h->len != frame ||
		    h->crc != crc32(0, (const unsigned char *)f.data + sizeof(*h), (uInt)(frame - sizeof(*h)))) {
			errors++;
		} else {
			if (h->seq != expect)
				gaps += h->seq > expect ? h->seq - expect : 0;
			expect = (uint64_t)h->seq + 1;
			tool_lat_add(&lat, (now - h->tstamp_ns * 1e-9) * 1e6);
		}
		verify += tool_thread_cpu() - v0;
		frames++;
		bytes += f.len;
		if (fdma_stream_release(s, &f)) {
			fprintf(stderr, "fdma stream: %s\n", fdma_errmsg(dev));
			errors++;
		}
	}
	t = tool_now() - t0;
	cpu0 = tool_thread_cpu() - cpu0 - verify;
	fdma_model_cpu(dev, &mcpu1);
	fdma_chan_stats(dev, ch, &st1);
	{
		uint64_t drops = fdma_stream_drops(s);
		double p50 = tool_lat_pct(&lat, 50), p99 = tool_lat_pct(&lat, 99);
		double max = tool_lat_pct(&lat, 100);
		char model[32] = "null", lp50[32] = "null", lp99[32] = "null", lmax[32] = "null";

		/*
		 * Only a simulated device has model threads to measure, and only
		 * its frame time stamps are on this host's clock: another
		 * device's clock has an unknown offset, so no latency.
		 */
		if (have_model) {
			snprintf(model, sizeof(model), "%.1f", (mcpu1 - mcpu0) / t * 100);
			snprintf(lp50, sizeof(lp50), "%.1f", p50);
			snprintf(lp99, sizeof(lp99), "%.1f", p99);
			snprintf(lmax, sizeof(lmax), "%.1f", max);
		}

		if (json)
			printf("{\"frame_size\":%" PRIu64 ",\"fps_target\":%.1f,\"seconds\":%.2f,"
			       "\"frames\":%" PRIu64 ",\"fps\":%.1f,\"mbps\":%.1f,\"dropped\":%" PRIu64
			       ",\"seq_gaps\":%" PRIu64 ",\"errors\":%" PRIu64 ",\"bytes_checked\":%" PRIu64
			       ",\"p50_us\":%s,\"p99_us\":%s,\"max_us\":%s,\"cpu_pct\":%.2f,"
			       "\"verify_cpu_pct\":%.2f,\"model_cpu_pct\":%s,\"wakeups_per_s\":%.1f,"
			       "\"irqs_per_s\":%.1f}\n",
			       frame, fps, t, frames, frames / t, bytes / t / 1e6, drops, gaps, errors,
			       bytes, lp50, lp99, lmax, cpu0 / t * 100, verify / t * 100, model,
			       (st1.wakeups - st0.wakeups) / t, (st1.interrupts - st0.interrupts) / t);
		else
			printf("fdma stream on %s: %" PRIu64 "-byte frames at %.0f fps target, %.1f s\n"
			       "  frames %" PRIu64 " (%.1f fps, %.1f MB/s), dropped %" PRIu64
			       " (sequence gaps %" PRIu64 "), integrity errors %" PRIu64 " (%" PRIu64
			       " bytes checked)\n"
			       "  latency frame-ready to application: %s%s us, p99 %s us, max %s us\n"
			       "  cpu %.2f%% of a core (+%.2f%% checking frames; device model %s%%), "
			       "%.1f wake-ups/s, %.1f interrupts/s\n",
			       argv[optind], frame, fps, t, frames, frames / t, bytes / t / 1e6, drops, gaps,
			       errors, bytes, have_model ? "p50 " : "(the device clock is not this host's) p50 ",
			       lp50, lp99, lmax, cpu0 / t * 100, verify / t * 100, model,
			       (st1.wakeups - st0.wakeups) / t, (st1.interrupts - st0.interrupts) / t);
	}
	if (errors || !frames)
		rc = EXIT_FAIL;
	fdma_chan_set_testgen(dev, ch, (uint32_t)frame, 0, 0);
	fdma_stream_close(s);
	tool_lat_free(&lat);
	fdma_close(dev);
	return rc;
}
