// SPDX-License-Identifier: MIT
/* fdma: the command-line tool. Dispatches to one subcommand. */
#include <stdio.h>
#include <string.h>

#include "fdma.h"
#include "fdma_cmds.h"
#include "util.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *what;
} cmds[] = {
	{ "info", fdma_cmd_info, "describe a device: engine, channels, link" },
	{ "bench", fdma_cmd_bench, "throughput, CPU, wake-ups and latency per transfer size" },
	{ "stream", fdma_cmd_stream, "capture frames from a C2H stream channel (file, pipe, test generator)" },
	{ "play", fdma_cmd_play, "send frames from a file to an H2C stream channel" },
	{ "soak", fdma_cmd_soak, "hours of checked transfers, sampled: trends, address spread, leaks" },
	{ "loop", fdma_cmd_loop, "frames out and back through a loopback: pps, doorbells, interrupts" },
	{ "dump", fdma_cmd_dump, "copy card memory to a file" },
	{ "load", fdma_cmd_load, "copy a file into card memory" },
	{ "model", fdma_cmd_model, "PCIe link model: payload ceilings per generation and width" },
	{ "reg", fdma_cmd_reg, "read or write a device register (the FPGA's own, beside the engine)" },
	{ "plot", fdma_cmd_plot, "draw JSON rows (--json output, the studies' files) as an SVG figure" },
	{ "doctor", fdma_cmd_doctor, "check the system: link training, MPS, IRQ mode, limits" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: fdma COMMAND [ARGS]   (fdma COMMAND --help, or fdma help COMMAND, for each)\n"
		   "\ncommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].what);
	fprintf(f, "  --version  print the version\n"
		   "\ndevices: sim[:option=value,...], e.g. sim:gen=2,lanes=1,mps=256,paced=1 (fdma(7))\n"
		   "         kdev:/dev/fdmaN (or /dev/fdmaN), an engine behind the driver fdma.ko\n"
		   "         without a URI, a command uses the environment's FDMA_DEVICE\n"
		   "exit status: 0 ok, 1 failure, 2 usage error\n");
}

static int find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(name, cmds[i].name))
			return (int)i;
	return -1;
}

/* getopt prefixes its messages with argv[0]: make it "fdma CMD". */
static int run_cmd(int i, int argc, char **argv)
{
	char prog[32];

	snprintf(prog, sizeof(prog), "fdma %s", cmds[i].name);
	argv[0] = prog;
	return cmds[i].fn(argc, argv);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* fdma help CMD: the command's own --help. */
	if (!strcmp(argv[1], "help") && argc > 2) {
		char *av[] = { NULL, "--help", NULL };
		int i = find_cmd(argv[2]);

		if (i < 0 || argc > 3) {
			fprintf(stderr, i < 0 ? "fdma help: unknown command '%s'\n"
				: "fdma help: one command at a time, not also '%s'\n", argv[i < 0 ? 2 : 3]);
			fprintf(stderr, "try 'fdma --help'\n");
			return EXIT_USAGE;
		}
		return run_cmd(i, 2, av);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("fdma %s\n", FDMA_VERSION_STRING);
		return EXIT_OK;
	}
	if (find_cmd(argv[1]) >= 0)
		return run_cmd(find_cmd(argv[1]), argc - 1, argv + 1);
	fprintf(stderr, "fdma: unknown command '%s'\ntry 'fdma --help'\n", argv[1]);
	return EXIT_USAGE;
}
