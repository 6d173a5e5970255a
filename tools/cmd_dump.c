// SPDX-License-Identifier: MIT
/*
 * fdma dump / fdma load: copy card memory to a file and a file into card
 * memory, through a memory-mapped channel (the first of its direction, or
 * --chan's) in chunks of one DMA buffer, each submitted and waited for. The
 * card address must be aligned; a length that is not a multiple of the
 * alignment is handled by moving the whole aligned tail and, for load,
 * writing back the card's own bytes past the end of the file (read first),
 * so nothing else changes. Ctrl-C ends either between chunks with the
 * summary of what was copied, as the other commands end.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdma_cmds.h"
#include "util.h"

#define CHUNK (4u << 20)

struct dump_opts {
	const char *cmd, *uri, *file;
	uint64_t card, len;
	int chan;		/* -1: the first memory-mapped channel of the direction */
	int have_card, have_len, verify, json, progress;
};

/* What a run did, for the summary. */
struct dump_res {
	uint64_t bytes, mismatches;
	double secs;
	int ch, interrupted;
};

static void usage(FILE *f, const char *cmd)
{
	if (!strcmp(cmd, "dump"))
		fprintf(f,
			"usage: fdma dump [URI] --card ADDR --len BYTES -o FILE [--chan N]\n"
			"  Copies BYTES of card memory from ADDR to FILE ('-' for standard output)\n"
			"  over a C2H memory-mapped channel (dma_from_device's job).\n");
	else
		fprintf(f,
			"usage: fdma load [URI] --card ADDR FILE [--len BYTES] [--verify] [--chan N]\n"
			"  Copies FILE ('-' for standard input) into card memory at ADDR over an\n"
			"  H2C memory-mapped channel (dma_to_device's job); card bytes past the\n"
			"  file's end are left as they were.\n");
	fprintf(f,
		"options:\n"
		"  --card ADDR          card address (a multiple of the device's alignment,\n"
		"                       fdma info); 0x hexadecimal and K/M/G suffixes work\n"
		"  --len BYTES          bytes to copy (load: default the whole file)\n"
		"  --chan N             the memory-mapped channel (default: the first of the\n"
		"                       direction, C2H for dump, H2C for load; fdma info lists\n"
		"                       them); load --verify reads back on the first C2H one\n"
		"  -o, --output FILE    dump: where to write\n"
		"  --input FILE         load: the file, instead of the last argument\n"
		"  --verify             load: read the card back and compare with the file\n"
		"  --no-progress        no live progress line (shown only when stderr is a terminal)\n"
		"  --json               load/dump summary as one JSON object on stdout\n"
		"                       (dump -o - sends it to stderr)\n"
		"  --help               this text\n"
		"URI: default $FDMA_DEVICE. MB/s are 10^6 bytes per second, file I/O\n"
		"included. Ctrl-C stops between 4 MiB chunks: the summary says how much was\n"
		"copied (interrupted), exit status 0.\n");
}

static int parse(int argc, char **argv, struct dump_opts *o)
{
	static const struct option lopts[] = {
		{ "card", required_argument, NULL, 'a' },
		{ "len", required_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		{ "input", required_argument, NULL, 'i' },
		{ "verify", no_argument, NULL, 'v' },
		{ "chan", required_argument, NULL, 'c' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int dump = !strcmp(o->cmd, "dump"), opt, n;
	const char *uri = NULL;
	uint64_t v;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "ho:", lopts, NULL)) != -1) {
		switch (opt) {
		case 'a':
			if (tool_parse_size(optarg, &o->card)) {
				fprintf(stderr, "fdma %s: --card must be an address (e.g. 0, 0x100000, 64M), not '%s'\n",
					o->cmd, optarg);
				return -1;
			}
			o->have_card = 1;
			break;
		case 'l':
			if (tool_parse_size(optarg, &o->len) || !o->len) {
				fprintf(stderr, "fdma %s: --len must be a size >= 1 (e.g. 4096, 1M), not '%s'\n",
					o->cmd, optarg);
				return -1;
			}
			o->have_len = 1;
			break;
		case 'o':
			if (!dump) {
				fprintf(stderr, "fdma load: -o/--output is for dump; load reads FILE\n");
				return -1;
			}
			o->file = optarg;
			break;
		case 'i':
			if (dump) {
				fprintf(stderr, "fdma dump: --input is for load; dump writes -o FILE\n");
				return -1;
			}
			o->file = optarg;
			break;
		case 'v':
			if (dump) {
				fprintf(stderr, "fdma dump: --verify is for load\n");
				return -1;
			}
			o->verify = 1;
			break;
		case 'c':
			if (tool_parse_uint(optarg, 0, FDMA_MAX_CHAN - 1, &v)) {
				fprintf(stderr, "fdma %s: --chan must be a channel number 0..%d, not '%s'\n",
					o->cmd, FDMA_MAX_CHAN - 1, optarg);
				return -1;
			}
			o->chan = (int)v;
			break;
		case 'P':
			o->progress = 0;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'h':
			usage(stdout, o->cmd);
			return 1;
		default:
			tool_usage_hint(o->cmd);
			return -1;
		}
	}
	/*
	 * dump: [URI]. load: URI FILE, URI with --input, or FILE alone (its
	 * URI from FDMA_DEVICE).
	 */
	n = argc - optind;
	if (n > (dump || o->file ? 1 : 2)) {
		fprintf(stderr, "fdma %s: expected a device URI%s, see --help\n", o->cmd,
			dump ? "" : " and a FILE");
		return -1;
	}
	if (dump || o->file || n == 2 || (n == 1 && tool_is_uri(argv[optind])))
		uri = optind < argc ? argv[optind++] : NULL;
	if (!dump && optind < argc)
		o->file = argv[optind++];
	o->uri = tool_uri(o->cmd, uri);
	if (!o->uri)
		return -1;
	if (!o->have_card) {
		fprintf(stderr, "fdma %s: --card ADDR is required (the card address)\n", o->cmd);
		return -1;
	}
	if (dump && !o->have_len) {
		fprintf(stderr, "fdma dump: --len BYTES is required\n");
		return -1;
	}
	if (dump && !o->file) {
		fprintf(stderr, "fdma dump: -o FILE is required ('-' for standard output)\n");
		return -1;
	}
	if (!dump && !o->file) {
		fprintf(stderr, "fdma load: expected a FILE to load, see --help\n");
		return -1;
	}
	if (dump && !strcmp(o->file, "-") && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "fdma dump: -o - would write binary data to a terminal; redirect it or name a file\n");
		return -1;
	}
	return 0;
}

/* The length a transfer of len bytes needs (whole alignment units); UINT64_MAX if that overflows. */
static uint64_t align_up(uint64_t len, uint32_t align)
{
	if (len > UINT64_MAX - (align - 1))
		return UINT64_MAX;
	return (len + align - 1) / align * align;
}

/*
 * card..card+len, its last alignment unit whole, inside card memory: 0, or
 * -1 with the message. Compared as lengths, never as sums that could wrap.
 */
static int check_range(const struct dump_opts *o, const struct fdma_info *info)
{
	if (o->card % info->align) {
		fprintf(stderr, "fdma %s: --card 0x%" PRIx64 " is not a multiple of the device's "
			"alignment (%u bytes)\n", o->cmd, o->card, info->align);
		return -1;
	}
	if (o->card > info->card_size || o->len > info->card_size - o->card ||
	    align_up(o->len, info->align) > info->card_size - o->card) {
		fprintf(stderr, "fdma %s: 0x%" PRIx64 "+%" PRIu64 " is outside the card's memory "
			"(%" PRIu64 " bytes, 0x0..0x%" PRIx64 ")\n", o->cmd, o->card, o->len,
			info->card_size, info->card_size);
		return -1;
	}
	return 0;
}

static void summary(const struct dump_opts *o, const struct dump_res *r)
{
	FILE *out = !strcmp(o->cmd, "dump") && !strcmp(o->file, "-") ? stderr : stdout;
	double mbps = r->secs > 0 ? r->bytes / r->secs / 1e6 : 0;
	char cut[96] = "";

	if (o->json) {
		fprintf(out, "{\"uri\":");
		tool_json_str(out, o->uri);
		fprintf(out, ",\"op\":\"%s\",\"chan\":%d,\"card\":%" PRIu64 ",\"len\":%" PRIu64
			",\"bytes\":%" PRIu64 ",\"file\":", o->cmd, r->ch, o->card, o->len, r->bytes);
		tool_json_str(out, o->file);
		fprintf(out, ",\"seconds\":%.3f,\"mbps\":%.1f,\"verified\":%s", r->secs, mbps,
			o->verify ? "true" : "false");
		if (o->verify)
			fprintf(out, ",\"mismatches\":%" PRIu64, r->mismatches);
		fprintf(out, ",\"interrupted\":%s}\n", r->interrupted ? "true" : "false");
		return;
	}
	if (r->interrupted)
		snprintf(cut, sizeof(cut), " (interrupted: %" PRIu64 " of %" PRIu64 " bytes)",
			 r->bytes, o->len);
	if (!strcmp(o->cmd, "dump"))
		fprintf(out, "dumped %" PRIu64 " bytes from card 0x%" PRIx64 " to %s in %.3f s (%.1f MB/s)%s\n",
			r->bytes, o->card, strcmp(o->file, "-") ? o->file : "standard output", r->secs,
			mbps, cut);
	else
		fprintf(out, "loaded %" PRIu64 " bytes from %s to card 0x%" PRIx64 " in %.3f s (%.1f MB/s)%s%s\n",
			r->bytes, strcmp(o->file, "-") ? o->file : "standard input", o->card, r->secs,
			mbps, o->verify ? (r->mismatches ? ", verify FAILED" : ", verified") : "", cut);
}

/*
 * The memory-mapped channel of direction dir a run uses: --chan's, checked
 * to be one, or the first. -1 with the reason printed.
 */
static int mm_chan(const struct dump_opts *o, struct fdma_dev *dev, const struct fdma_info *info,
		   int chan, enum fdma_dir dir)
{
	const char *d = dir == FDMA_C2H ? "C2H" : "H2C";

	if (chan < 0) {
		chan = fdma_find_chan(dev, dir, FDMA_KIND_MM);
		if (chan < 0)
			fprintf(stderr, "fdma %s: %s has no %s memory-mapped channel\n", o->cmd, o->uri, d);
		return chan < 0 ? -1 : chan;
	}
	if ((uint32_t)chan >= info->nchan || info->chan[chan].dir != dir ||
	    info->chan[chan].kind != FDMA_KIND_MM) {
		fprintf(stderr, "fdma %s: channel %d of %s is not a%s %s memory-mapped channel "
			"(fdma info %s lists them)\n", o->cmd, chan, o->uri,
			dir == FDMA_H2C ? "n" : "", d, o->uri);
		return -1;
	}
	return chan;
}

/*
 * len bytes between buffer buf and card memory at card on channel ch,
 * waited for, as fdma_read_card() and fdma_write_card() do on the first
 * channel. 0, or the library's negative errno with its message.
 */
static int xfer(struct fdma_dev *dev, int ch, int buf, uint64_t card, uint64_t len)
{
	struct fdma_req rq = { .buf = buf, .card_addr = card, .len = len };
	struct fdma_cpl c;
	int n = fdma_submit(dev, ch, &rq, 1);

	if (n < 0)
		return n;
	/* Ctrl-C cuts a wait short: the transfer is in flight, so wait on for it. */
	do
		n = fdma_reap(dev, ch, &c, 1, 1, 10000000);
	while (n == -EINTR);
	if (n < 0)
		return n;
	if (n == 0)
		return -ETIMEDOUT;
	return c.res;
}

/* A failed xfer()'s reason: the library's message, or the completion's errno. */
static const char *xfer_err(struct fdma_dev *dev, int ret)
{
	const char *m = fdma_errmsg(dev);

	return m && *m ? m : strerror(-ret);
}

static int run(struct dump_opts *o)
{
	int dump = !strcmp(o->cmd, "dump");
	struct fdma_info info;
	struct fdma_dev *dev;
	struct tool_progress prog;
	struct dump_res r = { 0 };
	uint8_t *p, *vp = NULL;
	int fd, buf = -1, vbuf = -1, rc = EXIT_FAIL, ret, rd = -1;
	double t0;

	tool_catch_stop();
	if (tool_open(o->uri, &dev))
		return EXIT_FAIL;
	fdma_get_info(dev, &info);
	/* A range the card cannot hold fails before the output file is created or truncated. */
	if (o->have_len && check_range(o, &info)) {
		fdma_close(dev);
		return EXIT_USAGE;
	}
	r.ch = mm_chan(o, dev, &info, o->chan, dump ? FDMA_C2H : FDMA_H2C);
	/* load reads the card too: its --verify, and the card's bytes past a file's odd end. */
	if (r.ch >= 0 && !dump)
		rd = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM);
	if (r.ch < 0) {
		fdma_close(dev);
		return EXIT_FAIL;
	}
	fd = dump ? tool_open_out("dump", o->file) : tool_open_in("load", o->file);
	if (fd < 0)
		goto out_close;
	if (!dump && !o->have_len) {
		struct stat sb;

		if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
			fprintf(stderr, "fdma load: '%s' is not a regular file: give --len BYTES\n", o->file);
			goto out_fd;
		}
		if (!sb.st_size) {
			fprintf(stderr, "fdma load: '%s' is empty\n", o->file);
			goto out_fd;
		}
		o->len = (uint64_t)sb.st_size;
	}
	if (check_range(o, &info)) {
		rc = EXIT_USAGE;
		goto out_fd;
	}
	if (!dump && rd < 0 && (o->verify || o->len % info.align)) {
		fprintf(stderr, "fdma load: %s has no C2H memory-mapped channel to read the card back "
			"(%s)\n", o->uri, o->verify ? "--verify" : "a length not a multiple of the alignment");
		goto out_fd;
	}
	buf = fdma_buf_alloc(dev, CHUNK, 0);
	if (buf < 0 || (o->verify && (vbuf = fdma_buf_alloc(dev, CHUNK, 0)) < 0)) {
		fprintf(stderr, "fdma %s: %s\n", o->cmd, fdma_errmsg(dev));
		goto out_buf;
	}
	p = fdma_buf_addr(dev, buf);
	if (vbuf >= 0)
		vp = fdma_buf_addr(dev, vbuf);
	tool_progress_init(&prog, o->progress);
	t0 = tool_now();
	while (r.bytes < o->len) {
		uint64_t n = o->len - r.bytes < CHUNK ? o->len - r.bytes : CHUNK;
		uint64_t tlen = align_up(n, info.align);
		uint64_t addr = o->card + r.bytes;

		/* Between chunks: what was copied is whole, and the summary says how much. */
		if (tool_stop_requested()) {
			r.interrupted = 1;
			break;
		}
		if (dump) {
			ret = xfer(dev, r.ch, buf, addr, tlen);
			if (ret) {
				fprintf(stderr, "fdma dump: reading card 0x%" PRIx64 ": %s\n", addr,
					xfer_err(dev, ret));
				goto out_prog;
			}
			ret = tool_write_all(fd, p, n);
			if (ret == -EINTR) {
				r.interrupted = 1;	/* nothing of this chunk written */
				break;
			}
			if (ret) {
				fprintf(stderr, "fdma dump: writing '%s': %s\n", o->file, strerror(-ret));
				goto out_prog;
			}
		} else {
			long long got;

			/* A partial last unit keeps the card's own bytes after the file's end. */
			if (tlen != n && (ret = xfer(dev, rd, buf, addr, tlen))) {
				fprintf(stderr, "fdma load: reading card 0x%" PRIx64 ": %s\n", addr,
					xfer_err(dev, ret));
				goto out_prog;
			}
			got = tool_read_full(fd, p, n);
			if (got == -EINTR) {
				r.interrupted = 1;	/* nothing of this chunk read */
				break;
			}
			if (got < 0) {
				fprintf(stderr, "fdma load: reading '%s': %s\n", o->file, strerror((int)-got));
				goto out_prog;
			}
			if ((uint64_t)got < n) {
				fprintf(stderr, "fdma load: '%s' ended after %" PRIu64 " of %" PRIu64 " bytes\n",
					o->file, r.bytes + (uint64_t)got, o->len);
				goto out_prog;
			}
			ret = xfer(dev, r.ch, buf, addr, tlen);
			if (ret) {
				fprintf(stderr, "fdma load: writing card 0x%" PRIx64 ": %s\n", addr,
					xfer_err(dev, ret));
				goto out_prog;
			}
			if (vp) {
				ret = xfer(dev, rd, vbuf, addr, tlen);
				if (ret) {
					fprintf(stderr, "fdma load: reading back 0x%" PRIx64 ": %s\n", addr,
						xfer_err(dev, ret));
					goto out_prog;
				}
				for (uint64_t i = 0; i < n; i++)
					if (vp[i] != p[i] && !r.mismatches++)
						fprintf(stderr, "fdma load: card 0x%" PRIx64 " reads 0x%02x, the file has 0x%02x\n",
							addr + i, vp[i], p[i]);
			}
		}
		r.bytes += n;
		if (tool_progress_due(&prog))
			tool_progress_show(&prog, "  %" PRIu64 " of %" PRIu64 " bytes (%.0f%%)", r.bytes,
					   o->len, r.bytes * 100.0 / o->len);
	}
	tool_progress_end(&prog);
	r.secs = tool_now() - t0;
	summary(o, &r);
	if (r.mismatches)
		fprintf(stderr, "fdma load: %" PRIu64 " bytes differ on the card from the file\n",
			r.mismatches);
	else
		rc = EXIT_OK;
	if (r.interrupted)
		fprintf(stderr, "fdma %s: interrupted after %" PRIu64 " of %" PRIu64 " bytes\n",
			o->cmd, r.bytes, o->len);
	goto out_buf;
out_prog:
	tool_progress_end(&prog);
out_buf:
	if (vbuf >= 0)
		fdma_buf_free(dev, vbuf);
	if (buf >= 0)
		fdma_buf_free(dev, buf);
out_fd:
	if (fd > STDERR_FILENO && close(fd) && dump && rc == EXIT_OK) {
		fprintf(stderr, "fdma dump: closing '%s': %s\n", o->file, strerror(errno));
		rc = EXIT_FAIL;
	}
out_close:
	fdma_close(dev);
	return rc;
}

static int cmd(const char *name, int argc, char **argv)
{
	struct dump_opts o = { .cmd = name, .chan = -1, .progress = 1 };
	int ret = parse(argc, argv, &o);

	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_USAGE;
	return run(&o);
}

int fdma_cmd_dump(int argc, char **argv)
{
	return cmd("dump", argc, argv);
}

int fdma_cmd_load(int argc, char **argv)
{
	return cmd("load", argc, argv);
}
