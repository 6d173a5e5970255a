// SPDX-License-Identifier: MIT
/*
 * Guest smoke test, no driver: fdma-modeld sits behind the ivshmem device.
 *   bar2_id   BAR2 holds the FDMA register file: ID, VERSION 1.1, a sane
 *             channel count (and the expected one, if given), READY status.
 *   kick_ack  an engine reset request plus an ivshmem doorbell kick reaches
 *             the model: RESET_ACK follows RESET_REQ within 2 s.
 * Usage: bar2_id [EXPECTED_NCHAN]. Must run while no driver is bound.
 */
#include "fdma_plat.h"
#include "fdma_regs.h"
#include "ivshmem_dev.h"

static int bar2_id(const struct ivdev *d, long want_nchan)
{
	uint32_t id = ivdev_rd(d, FDMA_REG_ID), ver = ivdev_rd(d, FDMA_REG_VERSION);
	uint32_t caps = ivdev_rd(d, FDMA_REG_CAPS), nchan = FDMA_CAPS_NCHAN(caps);
	uint32_t status = ivdev_rd(d, FDMA_REG_STATUS);
	uint32_t ivpos = d->bar0[IVSHMEM_REG_IVPOSITION / 4];

	printf("bar2_id: %s: BAR2 %zu KiB, ID 0x%08x, VERSION 0x%08x, CAPS 0x%08x (%u channels), "
	       "STATUS 0x%x, MAX_DESC_LEN %u, RING_MAX %u, IVPosition %u\n",
	       d->path, d->bar2_len >> 10, id, ver, caps, nchan, status,
	       ivdev_rd(d, FDMA_REG_MAX_DESC_LEN), ivdev_rd(d, FDMA_REG_RING_MAX), ivpos);
	if (id != FDMA_ID_MAGIC) {
		printf("VMTEST FAIL bar2_id: ID register 0x%08x, expected 0x%08x (is fdma-modeld serving the socket?)\n",
		       id, FDMA_ID_MAGIC);
		return 1;
	}
	if (ver != (FDMA_VERSION_MAJOR << 16 | FDMA_VERSION_MINOR)) {
		printf("VMTEST FAIL bar2_id: VERSION 0x%08x, expected 1.1\n", ver);
		return 1;
	}
	if (nchan < 1 || nchan > FDMA_MAX_CHANNELS || (want_nchan > 0 && nchan != want_nchan)) {
		printf("VMTEST FAIL bar2_id: %u channels, expected %ld\n", nchan, want_nchan);
		return 1;
	}
	for (uint32_t ch = 0; ch < nchan; ch++) {
		uint32_t vec = ivdev_rd(d, FDMA_CH_BASE(ch) + FDMA_CH_IRQ_VEC);
		uint32_t cc = ivdev_rd(d, FDMA_CH_BASE(ch) + FDMA_CH_CAPS);

		printf("bar2_id: channel %u: %s %s%s, IRQ_VEC %u\n", ch,
		       cc & FDMA_CH_CAP_C2H ? "C2H" : "H2C",
		       cc & FDMA_CH_CAP_STREAM ? "stream" : "memory-mapped",
		       cc & FDMA_CH_CAP_TESTGEN ? " (test generator)" : "", vec);
	}
	if (!(status & FDMA_STATUS_READY)) {
		printf("VMTEST FAIL bar2_id: STATUS 0x%x lacks READY\n", status);
		return 1;
	}
	if (ivpos != 0) {
		printf("VMTEST FAIL bar2_id: IVPosition %u, expected 0 (the guest is peer 0)\n", ivpos);
		return 1;
	}
	printf("VMTEST PASS bar2_id\n");
	return 0;
}

static int kick_ack(const struct ivdev *d)
{
	uint32_t n = ivdev_rd(d, FDMA_REG_RESET_REQ) + 1, ack = 0;
	double t0 = ivdev_now(), t;

	ivdev_wr(d, FDMA_REG_RESET_REQ, n);
	ivdev_kick(d, 0);	/* global registers: channel 0's vector */
	do {
		ack = ivdev_rd(d, FDMA_REG_RESET_ACK);
		t = ivdev_now() - t0;
		if (ack == n)
			break;
		usleep(200);
	} while (t < 2.0);
	if (ack != n) {
		printf("VMTEST FAIL kick_ack: RESET_ACK %u after 2 s, expected %u "
		       "(the doorbell did not reach fdma-modeld)\n", ack, n);
		return 1;
	}
	printf("kick_ack: RESET_ACK %u after %.1f ms\n", ack, t * 1e3);
	printf("VMTEST PASS kick_ack\n");
	return 0;
}

int main(int argc, char **argv)
{
	long want = argc > 1 ? strtol(argv[1], NULL, 0) : 0;
	struct ivdev d;
	const char *drv;
	char why[256];
	int fails = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ivdev_find(&d, why, sizeof(why))) {
		printf("VMTEST FAIL bar2_id: %s\nVMTEST FAIL kick_ack: no device\n", why);
		return 1;
	}
	drv = ivdev_driver(&d);
	if (drv) {
		printf("VMTEST FAIL bar2_id: driver '%s' is bound to %s; run before loading it\n"
		       "VMTEST FAIL kick_ack: driver bound\n", drv, d.path);
		return 1;
	}
	if (ivdev_open(&d, why, sizeof(why))) {
		printf("VMTEST FAIL bar2_id: %s\nVMTEST FAIL kick_ack: no BAR\n", why);
		return 1;
	}
	fails += bar2_id(&d, want);
	fails += kick_ack(&d);
	return fails ? 1 : 0;
}
