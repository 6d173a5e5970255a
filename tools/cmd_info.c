// SPDX-License-Identifier: MIT
/* fdma info: what the device is, its channels and its link. */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fdma_cmds.h"
#include "util.h"
#include "video.h"

/* A channel kind as JSON (short) or text names it. */
static const char *engine_name(const char *e)
{
	if (!strcmp(e, "fdma"))
		return "FDMA";
	if (!strcmp(e, "xdma"))
		return "Xilinx XDMA";
	return e;
}

/* How the device coalesces interrupts, in words (FDMA_COAL_*). */
static const char *coal_desc(uint32_t coal)
{
	if ((coal & FDMA_COAL_TIMER) && (coal & FDMA_COAL_COUNT))
		return "coalesced by count and timer in the engine";
	if (coal & FDMA_COAL_EMULATED)
		return "coalesced by count, emulated with descriptor flags (no timer in the engine)";
	if (coal & FDMA_COAL_COUNT)
		return "coalesced by count";
	return "one per completion";
}

static const char *kind_name(uint8_t kind, bool json)
{
	switch (kind) {
	case FDMA_KIND_MM:
		return json ? "mm" : "memory-mapped";
	case FDMA_KIND_STREAM:
		return "stream";
	case FDMA_KIND_MEM:
		return json ? "mem" : "memory-to-memory";
	default:
		return "unknown";
	}
}

int fdma_cmd_info(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fdma_dev *dev;
	char carrier[32], source[FDMA_MAX_CHAN][96], video[FDMA_MAX_CHAN][TOOL_VIDEO_NAME];
	struct tool_vfmt vf;
	struct fdma_info in;
	const char *uri;
	int opt, json = 0, dmae, rt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		if (opt == 'j') {
			json = 1;
		} else if (opt == 'h') {
			printf("usage: fdma info [URI] [--json]\n"
			       "  Prints the device's engine version, capabilities, channels and\n"
			       "  link with the link model's payload ceilings. --json: one object,\n"
			       "  its channels in channel_list (index, dir, kind, ring, testgen,\n"
			       "  source, video). kdev: names each channel's video device\n"
			       "  (fdma.ko v4l2=1) with its format and the rate it needs.\n"
			       "  URI: sim:, rtl:, kdev:/dev/fdmaN or /dev/fdmaN; without it,\n"
			       "  $FDMA_DEVICE.\n");
			return EXIT_OK;
		} else {
			return tool_usage_hint("info");
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "fdma info: one device at a time, not also '%s'\n", argv[optind + 1]);
		return tool_usage_hint("info");
	}
	uri = tool_uri("info", optind < argc ? argv[optind] : NULL);
	if (!uri)
		return EXIT_USAGE;
	if (tool_open(uri, &dev))
		return EXIT_FAIL;
	fdma_get_info(dev, &in);
	/* fdma.ko's node names what carries it: the engine, or dmaengine. */
	if (tool_kdev_attr(uri, "backend", carrier, sizeof(carrier)))
		carrier[0] = '\0';
	dmae = !strcmp(carrier, "dmaengine");
	rt = tool_realtime(&in);
	for (uint32_t i = 0; i < in.nchan; i++) {
		char a[24];

		snprintf(a, sizeof(a), "ch%u/source", i);
		if (tool_kdev_attr(uri, a, source[i], sizeof(source[i])))
			source[i][0] = '\0';
	}
	/* fdma.ko v4l2=1's video devices, named "<node>-ch<i>". */
	if (!strncmp(uri, "kdev:", 5))
		tool_video_nodes("", strrchr(uri, '/') ? strrchr(uri, '/') + 1 : uri + 5, video,
				 in.nchan);
	else
		memset(video, 0, sizeof(video));

	if (json) {
		/* The name comes from the device (kdev: its driver): escaped. */
		printf("{\"backend\":");
		tool_json_str(stdout, in.backend);
		printf(",\"name\":");
		tool_json_str(stdout, in.name);
		printf(",\"carrier\":");
		tool_json_str(stdout, carrier[0] ? carrier : in.backend);
		printf(",\"engine\":");
		tool_json_str(stdout, in.engine);
		printf(",\"coalescing\":\"%s\"", coal_desc(in.coal));
		printf(",\"version\":\"%u.%u\",\"channels\":%u,"
		       "\"align\":%u,\"max_desc_len\":%u,\"card_size\":%" PRIu64 ",\"gen\":%u,"
		       "\"lanes\":%u,\"mps\":%u,\"mrrs\":%u,\"paced\":%s,",
		       in.version >> 16, in.version & 0xffff, in.nchan, in.align,
		       in.max_desc_len, in.card_size, in.link.gen, in.link.lanes, in.link.mps,
		       in.link.mrrs, rt ? "true" : "false");
		/* null: the link is not known (e.g. no PCIe capability), so no ceiling. */
		if (in.link.write_mbps > 0)
			printf("\"write_mbps\":%.1f,\"read_mbps\":%.1f,", in.link.write_mbps,
			       in.link.read_mbps);
		else
			printf("\"write_mbps\":null,\"read_mbps\":null,");
		printf("\"channel_list\":[");
		for (uint32_t i = 0; i < in.nchan; i++) {
			printf("%s{\"index\":%u,\"dir\":\"%s\",\"kind\":\"%s\",\"ring\":%u,\"testgen\":%s,"
			       "\"align\":%d,\"source\":",
			       i ? "," : "", i, in.chan[i].dir == FDMA_C2H ? "c2h" : "h2c",
			       kind_name(in.chan[i].kind, true), in.chan[i].ring_size,
			       in.chan[i].testgen ? "true" : "false", fdma_chan_align(dev, (int)i));
			tool_json_str(stdout, source[i]);
			printf(",\"video\":");
			if (video[i][0])
				tool_json_str(stdout, video[i]);
			else
				printf("null");
			printf("}");
		}
		printf("]}\n");
	} else {
		printf("device     %s (%s backend)\n", in.name, in.backend);
		if (dmae)
			printf("engine     none: Linux dmaengine, %u channel%s, %u-byte alignment, pieces up to %u bytes\n",
			       in.nchan, in.nchan == 1 ? "" : "s", in.align, in.max_desc_len);
		else
			printf("engine     %s %u.%u, %u channels, %u-byte alignment, descriptors up to %u bytes\n",
			       engine_name(in.engine), in.version >> 16, in.version & 0xffff, in.nchan,
			       in.align, in.max_desc_len);
		printf("interrupts %s\n", coal_desc(in.coal));
		printf("card mem   %" PRIu64 " MiB\n", in.card_size >> 20);
		if (in.link.gen)
			printf("link       gen%u x%u, MPS %u, MRRS %u%s\n", in.link.gen, in.link.lanes,
			       in.link.mps, in.link.mrrs, rt ? ", paced in real time" :
			       /* The RTL's link is paced in its clocks, far slower than the wall's. */
			       in.link.paced ? ", paced in the RTL's clocks, not in real time "
					       "(a few MB/s of wall time)" : ", unpaced");
		else if (dmae)
			printf("link       unknown: no link model for a dmaengine channel, so no ceiling\n");
		else
			printf("link       unknown (the device has no PCIe link status)\n");
		if (in.link.write_mbps > 0)
			printf("ceiling    %.1f MB/s device writes (C2H), %.1f MB/s device reads (H2C) (link model%s)\n",
			       in.link.write_mbps, in.link.read_mbps,
			       !rt && in.link.paced ? ", in the RTL's clocks" : "");
		for (uint32_t i = 0; in.link.write_mbps > 0 && i < in.nchan; i++) {
			if (in.chan[i].kind != FDMA_KIND_MEM)
				continue;
			/* A copy reads and writes: the slower direction bounds it. */
			printf("           %.1f MB/s copies (memory to memory)\n",
			       in.link.write_mbps < in.link.read_mbps ? in.link.write_mbps
								      : in.link.read_mbps);
			break;
		}
		for (uint32_t i = 0; i < in.nchan; i++) {
			int al = fdma_chan_align(dev, (int)i);
			char units[40] = "", vid[160] = "";

			/*
			 * Frames of any length from any address (engine 1.3),
			 * or a channel stricter than the device (XDMA's C2H
			 * stream buffers, 64-byte units).
			 */
			if (al == 1 && in.align > 1)
				snprintf(units, sizeof(units), ", any length");
			else if (al > (int)in.align)
				snprintf(units, sizeof(units), ", %d-byte units", al);
			if (video[i][0] && !tool_video_format("", video[i], &vf))
				snprintf(vid, sizeof(vid), ", /dev/%.31s (%.4s %ux%u at %u fps: %.1f MB/s)",
					 video[i], vf.fourcc, vf.width, vf.height, vf.fps,
					 (double)vf.sizeimage * vf.fps / 1e6);
			else if (video[i][0])
				snprintf(vid, sizeof(vid), ", /dev/%.31s", video[i]);
			printf("channel %-2u %s%s, ring %u%s%s%s%s%s\n", i,
			       /* A copy has no direction across the link: it crosses both ways. */
			       in.chan[i].kind == FDMA_KIND_MEM ? "" :
			       in.chan[i].dir == FDMA_C2H ? "C2H " : "H2C ",
			       kind_name(in.chan[i].kind, false),
			       in.chan[i].ring_size,
			       in.chan[i].testgen ? (in.chan[i].dir == FDMA_C2H ? ", test generator"
									  : ", test checker") : "",
			       units, source[i][0] ? ", " : "", source[i], vid);
		}
	}
	fdma_close(dev);
	return EXIT_OK;
}
