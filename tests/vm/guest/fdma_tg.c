// SPDX-License-Identifier: MIT
/*
 * fdma_tg c2h|h2c on FRAME_LEN | off | query | reset: the test generator
 * of the first C2H stream channel, or the checker of the first H2C one,
 * through FDMA_IOC_TESTGEN, for tests that move the frames by other means
 * (the dmaengine slave test, tests/vm/kmod/fdma_slavetest.c, and the
 * dmaengine client's, dmac.sh). Prints "frames N errors M" (the device's
 * counts); reset: FDMA_IOC_CHAN_RESET on the channel (counts and the
 * checker's expected frame number back to 0). Exit 0, or 1 with a message.
 */
#include "vmioc.h"

int main(int argc, char **argv)
{
	struct fdma_ioc_testgen t = { 0 };
	struct vi_dev d;
	int ret, ch;

	if (argc < 3 || (strcmp(argv[1], "c2h") && strcmp(argv[1], "h2c")) ||
	    (!strcmp(argv[2], "on") && argc != 4)) {
		fprintf(stderr, "usage: fdma_tg c2h|h2c on FRAME_LEN | off | query | reset\n");
		return 2;
	}
	ret = vi_open(&d, NULL);
	if (ret) {
		fprintf(stderr, "fdma_tg: open the fdma device: %s\n", strerror(-ret));
		return 1;
	}
	ch = !strcmp(argv[1], "c2h") ? d.c2h_stream : d.h2c_stream;
	if (ch < 0) {
		fprintf(stderr, "fdma_tg: no %s stream channel\n", argv[1]);
		return 1;
	}
	t.chan = (uint32_t)ch;
	if (!strcmp(argv[2], "reset")) {
		ret = vi_reset(&d, ch);
		if (ret) {
			fprintf(stderr, "fdma_tg: FDMA_IOC_CHAN_RESET on channel %d: %s\n", ch,
				strerror(-ret));
			return 1;
		}
		t.enable = FDMA_IOC_TESTGEN_QUERY;
	} else if (!strcmp(argv[2], "on")) {
		t.enable = 1;
		t.frame_len = (uint32_t)strtoul(argv[3], NULL, 0);
	} else if (!strcmp(argv[2], "query")) {
		t.enable = FDMA_IOC_TESTGEN_QUERY;
	}
	if (ioctl(d.fd, FDMA_IOC_TESTGEN, &t)) {
		fprintf(stderr, "fdma_tg: FDMA_IOC_TESTGEN on channel %d: %s\n", ch, strerror(errno));
		return 1;
	}
	printf("frames %llu errors %llu\n", (unsigned long long)t.frames,
	       (unsigned long long)t.errors);
	vi_close(&d);
	return 0;
}
