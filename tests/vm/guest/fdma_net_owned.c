// SPDX-License-Identifier: MIT
/*
 * fdma_net_owned DEV TXCH RXCH: the channels a network interface holds
 * (net.sh gives them) refuse what the character device would change on
 * them, each with EBUSY: submit, reset, coalescing, drop, the test
 * generator (querying it stays allowed), and a write of sysfs's
 * coal_count. One result: net_owned.
 */
#include "vmioc.h"

static const char *T = "net_owned";
static int bad;

static void expect_busy(const char *what, int ch, int ret)
{
	if (ret == -1 && errno == EBUSY)
		return;
	vt_fail(T, "channel %d: %s: %s, expected EBUSY", ch, what,
		ret ? strerror(errno) : "accepted");
	bad = 1;
}

int main(int argc, char **argv)
{
	struct vi_dev d;
	int ch[2], ret;

	if (argc != 4) {
		fprintf(stderr, "usage: fdma_net_owned DEV TXCH RXCH\n");
		return 2;
	}
	ch[0] = atoi(argv[2]);
	ch[1] = atoi(argv[3]);
	ret = vi_open(&d, argv[1]);
	if (ret) {
		vt_fail(T, "open /dev/%s: %s", argv[1], strerror(-ret));
		return 1;
	}
	for (int i = 0; i < 2 && !bad; i++) {
		struct fdma_ioc_coalesce co = { .chan = ch[i], .count = 4 };
		struct fdma_ioc_drop dr = { .chan = ch[i], .drop = 1 };
		struct fdma_ioc_testgen tg = { .chan = ch[i], .frame_len = 4096, .enable = 1 };
		struct fdma_ioc_req rq = { .len = 4096 };
		struct fdma_ioc_submit sb = { .chan = ch[i], .count = 1, .reqs = (uintptr_t)&rq };
		uint32_t c = ch[i];
		char path[128], *val = "4\n";
		int fd;

		expect_busy("FDMA_IOC_COALESCE", ch[i], ioctl(d.fd, FDMA_IOC_COALESCE, &co));
		if (i == 1)
			expect_busy("FDMA_IOC_DROP", ch[i], ioctl(d.fd, FDMA_IOC_DROP, &dr));
		if (d.info.chan_caps[ch[i]] & FDMA_IOC_CAP_TESTGEN) {
			expect_busy("FDMA_IOC_TESTGEN (on)", ch[i], ioctl(d.fd, FDMA_IOC_TESTGEN, &tg));
			tg.enable = FDMA_IOC_TESTGEN_QUERY;
			tg.frame_len = 0;
			if (ioctl(d.fd, FDMA_IOC_TESTGEN, &tg)) {
				vt_fail(T, "channel %d: FDMA_IOC_TESTGEN query: %s", ch[i], strerror(errno));
				bad = 1;
			}
		}
		expect_busy("FDMA_IOC_CHAN_RESET", ch[i], ioctl(d.fd, FDMA_IOC_CHAN_RESET, &c));
		/* A buffer it could use, or the submit is refused for its handle first. */
		struct vi_buf b;

		if (!bad && !vi_alloc(&d, 4096, &b)) {
			rq.handle = b.handle;
			expect_busy("FDMA_IOC_SUBMIT", ch[i], ioctl(d.fd, FDMA_IOC_SUBMIT, &sb));
			vi_free(&d, &b);
		}
		snprintf(path, sizeof(path), "/sys/class/fdma/%s/ch%d/coal_count", argv[1], ch[i]);
		fd = open(path, O_WRONLY);
		if (fd < 0) {
			vt_fail(T, "open %s: %s", path, strerror(errno));
			bad = 1;
		} else {
			expect_busy(path, ch[i], write(fd, val, strlen(val)) < 0 ? -1 : 0);
			close(fd);
		}
	}
	vi_close(&d);
	if (!bad)
		vt_pass(T);
	return bad;
}
