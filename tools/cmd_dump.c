// SPDX-License-Identifier: MIT
/*
 * fdma dump / fdma load: copy card memory to a file and a file into card
 * memory, through the memory-mapped channels (fdma_read_card() and
 * fdma_write_card()) in chunks of one DMA buffer. The card address must be
 * aligned; a length that is not a multiple of the alignment is handled by
 * moving the whole aligned tail and, for load, writing back the card's own
 * bytes past the end of the file (read first), so nothing else changes.
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
	int have_card, have_len, verify, json, progress;
};

static void usage(FILE *f, const char *cmd)
{
	if (!strcmp(cmd, "dump"))
		fprintf(f,
			"usage: fdma dump URI --card ADDR --len BYTES -o FILE\n"
			"  Copies BYTES of card memory from ADDR to FILE ('-' for standard output)\n"
			"  over the device's C2H memory-mapped channel.\n");
	else
		fprintf(f,
			"usage: fdma load URI --card ADDR FILE [--len BYTES] [--verify]\n"
			"  Copies FILE ('-' for standard input) into card memory at ADDR over the\n"
			"  device's H2C memory-mapped channel; card bytes past the file's end are\n"
			"  left as they were.\n");
	fprintf(f,
		"options:\n"
		"  --card ADDR          card address (a multiple of the device's alignment,\n"
		"                       fdma info); 0x hexadecimal and K/M/G suffixes work\n"
		"  --len BYTES          bytes to copy (load: default the whole file)\n"
		"  -o, --output FILE    dump: where to write\n"
		"  --input FILE         load: the file, instead of the last argument\n"
		"  --verify             load: read the card back and compare with the file\n"
		"  --no-progress        no live progress line (shown only when stderr is a terminal)\n"
		"  --json               load/dump summary as one JSON object on stdout\n"
		"                       (dump -o - sends it to stderr)\n"
		"  --help               this text\n"
		"MB/s are 10^6 bytes per second, file I/O included.\n");
}

static int parse(int argc, char **argv, struct dump_opts *o)
{
	static const struct option lopts[] = {
		{ "card", required_argument, NULL, 'a' },
		{ "len", required_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		{ "input", required_argument, NULL, 'i' },
		{ "verify", no_argument, NULL, 'v' },
		{ "no-progress", no_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int dump = !strcmp(o->cmd, "dump"), opt;

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
			usage(stderr, o->cmd);
			return -1;
		}
	}
	if (optind < argc)
		o->uri = argv[optind++];
	if (!dump && optind < argc && !o->file)
		o->file = argv[optind++];
	if (!o->uri || optind != argc) {
		fprintf(stderr, "fdma %s: expected a device URI%s, see --help\n", o->cmd,
			dump ? "" : " and a FILE");
		return -1;
	}
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

static void summary(const struct dump_opts *o, uint64_t bytes, double secs, uint64_t mismatches)
{
	FILE *out = !strcmp(o->cmd, "dump") && !strcmp(o->file, "-") ? stderr : stdout;
	double mbps = secs > 0 ? bytes / secs / 1e6 : 0;

	if (o->json) {
		fprintf(out, "{\"uri\":");
		tool_json_str(out, o->uri);
		fprintf(out, ",\"op\":\"%s\",\"card\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"file\":",
			o->cmd, o->card, bytes);
		tool_json_str(out, o->file);
		fprintf(out, ",\"seconds\":%.3f,\"mbps\":%.1f,\"verified\":%s", secs, mbps,
			o->verify ? "true" : "false");
		if (o->verify)
			fprintf(out, ",\"mismatches\":%" PRIu64, mismatches);
		fprintf(out, "}\n");
	} else if (!strcmp(o->cmd, "dump")) {
		fprintf(out, "dumped %" PRIu64 " bytes from card 0x%" PRIx64 " to %s in %.3f s (%.1f MB/s)\n",
			bytes, o->card, strcmp(o->file, "-") ? o->file : "standard output", secs, mbps);
	} else {
		fprintf(out, "loaded %" PRIu64 " bytes from %s to card 0x%" PRIx64 " in %.3f s (%.1f MB/s)%s\n",
			bytes, strcmp(o->file, "-") ? o->file : "standard input", o->card, secs, mbps,
			o->verify ? (mismatches ? ", verify FAILED" : ", verified") : "");
	}
}

static int run(struct dump_opts *o)
{
	int dump = !strcmp(o->cmd, "dump");
	struct fdma_info info;
	struct fdma_dev *dev;
	struct tool_progress prog;
	uint8_t *p, *vp = NULL;
	uint64_t done = 0, mismatches = 0;
	int fd, buf = -1, vbuf = -1, rc = EXIT_FAIL, ret;
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
	while (done < o->len) {
		uint64_t n = o->len - done < CHUNK ? o->len - done : CHUNK;
		uint64_t xfer = align_up(n, info.align);
		uint64_t addr = o->card + done;

		if (tool_stop_requested()) {
			fprintf(stderr, "fdma %s: interrupted after %" PRIu64 " of %" PRIu64 " bytes\n",
				o->cmd, done, o->len);
			goto out_prog;
		}
		if (dump) {
			if (fdma_read_card(dev, buf, 0, addr, xfer)) {
				fprintf(stderr, "fdma dump: reading card 0x%" PRIx64 ": %s\n", addr, fdma_errmsg(dev));
				goto out_prog;
			}
			ret = tool_write_all(fd, p, n);
			if (ret) {
				fprintf(stderr, "fdma dump: writing '%s': %s\n", o->file, strerror(-ret));
				goto out_prog;
			}
		} else {
			long long got;

			/* A partial last unit keeps the card's own bytes after the file's end. */
			if (xfer != n && fdma_read_card(dev, buf, 0, addr, xfer)) {
				fprintf(stderr, "fdma load: reading card 0x%" PRIx64 ": %s\n", addr, fdma_errmsg(dev));
				goto out_prog;
			}
			got = tool_read_full(fd, p, n);
			if (got < 0) {
				fprintf(stderr, "fdma load: reading '%s': %s\n", o->file, strerror((int)-got));
				goto out_prog;
			}
			if ((uint64_t)got < n) {
				fprintf(stderr, "fdma load: '%s' ended after %" PRIu64 " of %" PRIu64 " bytes\n",
					o->file, done + (uint64_t)got, o->len);
				goto out_prog;
			}
			if (fdma_write_card(dev, buf, 0, addr, xfer)) {
				fprintf(stderr, "fdma load: writing card 0x%" PRIx64 ": %s\n", addr, fdma_errmsg(dev));
				goto out_prog;
			}
			if (vp) {
				if (fdma_read_card(dev, vbuf, 0, addr, xfer)) {
					fprintf(stderr, "fdma load: reading back 0x%" PRIx64 ": %s\n", addr,
						fdma_errmsg(dev));
					goto out_prog;
				}
				for (uint64_t i = 0; i < n; i++)
					if (vp[i] != p[i] && !mismatches++)
						fprintf(stderr, "fdma load: card 0x%" PRIx64 " reads 0x%02x, the file has 0x%02x\n",
							addr + i, vp[i], p[i]);
			}
		}
		done += n;
		if (tool_progress_due(&prog))
			tool_progress_show(&prog, "  %" PRIu64 " of %" PRIu64 " bytes (%.0f%%)", done, o->len,
					   done * 100.0 / o->len);
	}
	tool_progress_end(&prog);
	summary(o, done, tool_now() - t0, mismatches);
	if (mismatches)
		fprintf(stderr, "fdma load: %" PRIu64 " bytes differ on the card from the file\n", mismatches);
	else
		rc = EXIT_OK;
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
	struct dump_opts o = { .cmd = name, .progress = 1 };
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
