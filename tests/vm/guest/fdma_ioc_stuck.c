// SPDX-License-Identifier: MIT
/*
 * fdma_ioc_stuck N: the model was started with fault=stuck@N (its Nth
 * descriptor fetched, counted over all channels, never completes, nor
 * does anything after it on that channel, until a channel reset). Single
 * requests are submitted through FDMA_IOC_SUBMIT, alternately H2C and
 * C2H, each waited for with FDMA_IOC_WAIT (1 s): request N must time out
 * (ETIMEDOUT, nothing in the queue), and so must the requests queued
 * behind it; FDMA_IOC_CHAN_RESET must then hand every one of them back
 * in the mapped completion queue with -ECANCELED, count a reset, and
 * leave the channel working: 32 round trips after it, every byte
 * checked, without reloading the module. Like fdma_recover, which tests
 * the read/write path with the other faults.
 */
#include "vmioc.h"

static const char *T = "ioc_recover_stuck";

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	struct fdma_ioc_stats s0, s1;
	struct fdma_cq_entry e[8] = { { 0 } };
	struct fdma_ioc_req r;
	struct vi_buf b;
	struct vi_dev d;
	int stuck_ch = -1, ret;
	long at = -1;
	uint32_t ready;

	if (n < 1) {
		fprintf(stderr, "usage: fdma_ioc_stuck N\n");
		return 2;
	}
	ret = vi_open(&d, NULL);
	if (ret || d.h2c < 0 || d.c2h < 0 || vi_cq_map(&d, d.h2c) || vi_cq_map(&d, d.c2h) ||
	    vi_alloc(&d, 1 << 20, &b)) {
		vt_fail(T, "open, map, allocate: %s", strerror(ret ? -ret : errno));
		return 1;
	}
	/* Descriptor k (1-based): odd ones write card memory, even ones read it back. */
	for (long k = 1; k <= n + 1 && stuck_ch < 0; k++) {
		int ch = k & 1 ? d.h2c : d.c2h;
		uint64_t off = (uint64_t)((k - 1) / 2) * 4096;

		if (k & 1)
			vt_fill(b.p + off, 4096, (uint64_t)k);
		r = (struct fdma_ioc_req){ .handle = b.handle, .offset = (k & 1) ? off : off + 65536,
					   .card_addr = off, .len = 4096, .user_data = (uint64_t)k };
		ret = vi_submit(&d, ch, &r, 1);
		if (ret) {
			vt_fail(T, "descriptor %ld: submit: %s", k, strerror(-ret));
			return 1;
		}
		ret = vi_wait(&d, ch, 1, 1000000, &ready);
		if (ret == -ETIMEDOUT && ready == 0) {
			stuck_ch = ch;
			at = k;
			break;
		}
		if (ret || vi_cq_take(&d, ch, e, 1) != 1 || e[0].res || e[0].user_data != (uint64_t)k) {
			vt_fail(T, "descriptor %ld: %s, res %d", k, strerror(-ret), e[0].res);
			return 1;
		}
		if (!(k & 1) && vt_check(b.p + off + 65536, 4096, (uint64_t)(k - 1)) >= 0) {
			vt_fail(T, "descriptor %ld: read back wrong data", k);
			return 1;
		}
	}
	if (stuck_ch < 0 || at != n) {
		vt_fail(T, "no request stuck at descriptor %ld (stuck at %ld): did something fetch the model's descriptors first?",
			n, at);
		return 1;
	}
	/* More behind it: the channel completes nothing until reset. */
	for (int i = 0; i < 4; i++) {
		r.user_data = 100 + (uint64_t)i;
		r.offset = 131072 + (uint64_t)i * 4096;
		if (vi_submit(&d, stuck_ch, &r, 1))
			vt_fail(T, "submit behind the stuck request: %s", strerror(errno));
	}
	ret = vi_wait(&d, stuck_ch, 1, 300000, &ready);
	if (ret != -ETIMEDOUT || ready)
		vt_fail(T, "the stuck channel: wait returned %s with %u ready, expected ETIMEDOUT",
			strerror(-ret), ready);
	vi_stats(&d, stuck_ch, &s0);
	ret = vi_reset(&d, stuck_ch);
	if (ret) {
		vt_fail(T, "FDMA_IOC_CHAN_RESET: %s", strerror(-ret));
		return 1;
	}
	vi_stats(&d, stuck_ch, &s1);
	/* Handed back at once, in the queue: no wait needed. */
	ret = (int)vi_cq_take(&d, stuck_ch, e, 8);
	if (ret != 5)
		vt_fail(T, "%d entries in the queue after the reset, expected 5", ret);
	for (int i = 0; i < ret; i++) {
		uint64_t want = i ? 100 + (uint64_t)i - 1 : (uint64_t)at;

		if (e[i].res != -ECANCELED || e[i].status != 0xffff || e[i].user_data != want)
			vt_fail(T, "entry %d: user_data %llu res %d status 0x%x, expected %llu ECANCELED",
				i, (unsigned long long)e[i].user_data, e[i].res, e[i].status,
				(unsigned long long)want);
	}
	if (s1.resets != s0.resets + 1)
		vt_fail(T, "%llu resets counted, expected 1",
			(unsigned long long)(s1.resets - s0.resets));
	/* The channels work again, both ways, every byte. */
	for (int k = 0; k < 32 && !vt_failed; k++) {
		uint64_t off = 256 * 1024 + (uint64_t)k * 8192;

		vt_fill(b.p + off, 8192, 5000 + k);
		memset(b.p + off + 262144, 0, 8192);
		r = (struct fdma_ioc_req){ .handle = b.handle, .offset = off, .len = 8192,
					   .card_addr = (64ull << 20) + off, .user_data = 1 };
		ret = vi_submit(&d, d.h2c, &r, 1);
		if (!ret)
			ret = vi_collect(&d, d.h2c, e, 1, 5000000);
		r.offset += 262144;
		if (!ret && !e[0].res)
			ret = vi_submit(&d, d.c2h, &r, 1);
		if (!ret && !e[0].res)
			ret = vi_collect(&d, d.c2h, e, 1, 5000000);
		if (ret || e[0].res || vt_check(b.p + off + 262144, 8192, 5000 + k) >= 0)
			vt_fail(T, "round trip %d after the reset: %s, res %d", k, strerror(-ret),
				e[0].res);
	}
	vt_info("request at descriptor %ld stuck on channel %d, 4 behind it; FDMA_IOC_CHAN_RESET handed back 5 x ECANCELED; 32 round trips after",
		at, stuck_ch);
	vi_free(&d, &b);
	vi_close(&d);
	if (!vt_failed)
		vt_pass(T);
	return vt_failed;
}
