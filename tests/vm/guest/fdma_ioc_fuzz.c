// SPDX-License-Identifier: MIT
/*
 * Bad input to the ioctl interface, at random (ioc_check.h;
 * fdma_ioc_invalid.c has each case on its own).
 *
 * ioc_fuzz: at least 10,000 ioctls with random numbers among the real
 *   ioctl codes (and some near misses), random bytes in the structures,
 *   and, half of the time, plausible values with valid handles, channels
 *   and ranges; random mmaps. Then the device still works, and no pinned
 *   page, buffer or coherent byte is left. The memory it registers comes
 *   from slots of one pool, a slot per live buffer: no two of its buffers
 *   map the same memory (memory registered twice is ioc_batch_twice's, in
 *   fdma_ioc_xfer.c). On a device without an IOMMU both mappings of such
 *   memory have the same bus addresses, and the DMA API's debug cannot
 *   tell them apart: where both begin in one of its 8 KiB hash buckets, it
 *   reports a sync of either as memory the driver never mapped.
 */
#define IOC_T "ioc_fuzz"
#include "ioc_check.h"

/* ---- fuzz ------------------------------------------------------------------ */

static uint64_t rs = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static uint64_t rndn(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static void noop(int sig)
{
	(void)sig;
}

#define MAXLIVE 24

static struct {
	uint32_t handle;
	uint64_t size;
	int user;
	int slot;	/* the pool's slot it registered, or -1 */
} live[MAXLIVE];
static int nlive;

/*
 * A slot of the registration pool that no live buffer holds (see the top),
 * at random; any if all are held (the buffer is then not kept, but freed
 * at once).
 */
static int free_slot(void)
{
	int held[MAXLIVE] = { 0 }, n = 0, k;

	for (int i = 0; i < nlive; i++)
		if (live[i].slot >= 0)
			held[live[i].slot] = 1;
	for (int s = 0; s < MAXLIVE; s++)
		n += !held[s];
	if (!n)
		return (int)rndn(MAXLIVE);
	k = (int)rndn((uint64_t)n);
	for (int s = 0; s < MAXLIVE; s++)
		if (!held[s] && !k--)
			return s;
	return 0;
}

static uint32_t some_handle(void)
{
	if (nlive && rndn(8))
		return live[rndn(nlive)].handle;
	return rndn(4) ? (uint32_t)rndn(70000) : (uint32_t)rnd();
}

static uint32_t some_chan(void)
{
	return rndn(10) ? (uint32_t)rndn(d.info.nchan) : (uint32_t)rnd();
}

static void forget(uint32_t h)
{
	for (int i = 0; i < nlive; i++)
		if (live[i].handle == h) {
			live[i] = live[--nlive];
			return;
		}
}

static void fuzz(void)
{
	static const unsigned long codes[] = {
		FDMA_IOC_INFO, FDMA_IOC_BUF_ALLOC, FDMA_IOC_BUF_REGISTER, FDMA_IOC_BUF_FREE,
		FDMA_IOC_SUBMIT, FDMA_IOC_WAIT, FDMA_IOC_COALESCE, FDMA_IOC_CHAN_RESET,
		FDMA_IOC_TESTGEN, FDMA_IOC_STATS, FDMA_IOC_DROP, FDMA_IOC_CQ_EVENTFD,
	};
	const char *F = "ioc_fuzz";
	static union {
		uint8_t raw[512];
		struct fdma_ioc_info info;
		struct fdma_ioc_buf_alloc ba;
		struct fdma_ioc_buf_reg br;
		uint32_t u32;
		struct fdma_ioc_submit sb;
		struct fdma_ioc_wait w;
		struct fdma_ioc_coalesce co;
		struct fdma_ioc_testgen tg;
		struct fdma_ioc_stats st;
		struct fdma_ioc_drop dr;
		struct fdma_ioc_cq_eventfd ce;
	} a;
	static struct fdma_ioc_req reqs[64];
	struct itimerval it = { { 0, 200000 }, { 0, 200000 } };
	struct sigaction sa = { .sa_handler = noop };
	size_t pool_size = 8 << 20, slot_size = pool_size / MAXLIVE / 64 * 64;
	uint8_t *pool_raw = malloc(pool_size + 4096), *pool;
	long calls = 0, ok = 0, maps = 0, errs[160] = { 0 }, okc[12] = { 0 }, msgsize_other = 0;
	double t0 = vt_now();
	int iters = 12000, efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC), slot = -1;

	pool = (uint8_t *)(((uintptr_t)pool_raw + 4095) & ~(uintptr_t)4095);
	memset(pool, 0x5a, pool_size);
	for (unsigned int ch = 0; ch < d.info.nchan; ch++)
		vi_cq_map(&d, (int)ch);
	/* A blocking call must not hang the test: SIGALRM interrupts it. */
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);

	for (int it_n = 0; it_n < iters; it_n++) {
		int plausible = rndn(2), k = (int)rndn(sizeof(codes) / sizeof(codes[0]));
		unsigned long cmd = codes[k];
		void *arg = &a;
		int ret, e;

		slot = -1;
		for (size_t i = 0; i < sizeof(a.raw); i += 8) {
			uint64_t v = rnd();

			memcpy(a.raw + i, &v, 8);
		}
		switch (rndn(40)) {
		case 0:
			cmd = rnd();	/* anything */
			break;
		case 1:
			cmd ^= 1u << rndn(32);	/* a near miss: size, direction, number */
			break;
		}
		if (plausible) {
			switch (k) {
			case 1:
				memset(&a.ba, 0, sizeof(a.ba));
				a.ba.size = rndn(3) ? 1 + rndn(1 << 20) : rnd();
				if (!rndn(10))
					a.ba.flags = (uint32_t)rnd();
				break;
			case 2: {
				/* Up to 256 KiB in a slot no live buffer holds. */
				uint64_t size = (1 + rndn(4096)) * 64;

				slot = free_slot();
				memset(&a.br, 0, sizeof(a.br));
				a.br.addr = (uintptr_t)pool + (uint64_t)slot * slot_size +
					    rndn((slot_size - size) / 64 + 1) * 64;
				a.br.size = size;
				if (!rndn(10))
					a.br.addr += rndn(64);
				if (!rndn(10))
					a.br.size = rnd();
				break;
			}
			case 3:
				a.u32 = some_handle();
				break;
			case 4: {
				/* A valid batch, with one field spoiled a third of the time. */
				uint32_t n = 1 + (uint32_t)rndn(rndn(4) ? 8 : 64);
				int spoil = rndn(3) ? -1 : (int)rndn(6);

				for (uint32_t i = 0; i < n; i++) {
					struct fdma_ioc_req *q = &reqs[i];
					uint64_t sz = 64, units;

					q->handle = nlive ? live[rndn(nlive)].handle : some_handle();
					for (int j = 0; j < nlive; j++)
						if (live[j].handle == q->handle)
							sz = live[j].size & ~63ull;
					units = sz / 64 ? sz / 64 : 1;
					q->offset = rndn(units) * 64;
					q->len = (1 + rndn(units - q->offset / 64 < 256 ?
							   units - q->offset / 64 : 256)) * 64;
					q->card_addr = rndn(d.info.card_size / 64 - 4096) * 64;
					q->flags = (uint32_t)rndn(8);
					q->user_data = rnd();
					if (i != rndn(n))
						continue;
					switch (spoil) {
					case 0:
						q->handle = some_handle();
						break;
					case 1:
						q->len = rndn(2) ? rnd() : rndn(4096);
						break;
					case 2:
						q->offset = rndn(2) ? rnd() : q->offset + rndn(64);
						break;
					case 3:
						q->card_addr = rnd();
						break;
					case 4:
						q->flags = (uint32_t)rnd();
						break;
					}
				}
				memset(&a.sb, 0, sizeof(a.sb));
				a.sb.chan = some_chan();
				a.sb.count = spoil == 5 ? (uint32_t)rnd() : n;
				a.sb.reqs = rndn(30) ? (uintptr_t)reqs : rnd();
				if (!rndn(30))
					a.sb.rsvd[rndn(4)] = 1;
				break;
			}
			case 5:
				memset(&a.w, 0, sizeof(a.w));
				a.w.chan = some_chan();
				a.w.min_entries = (uint32_t)rndn(5);
				a.w.timeout_us = (int64_t)rndn(2000);
				break;
			case 6:
				memset(&a.co, 0, sizeof(a.co));
				a.co.chan = some_chan();
				a.co.count = (uint32_t)rndn(300);
				a.co.usecs = (uint32_t)rndn(2000);
				break;
			case 7:
				a.u32 = some_chan();
				break;
			case 8:
				a.tg.chan = some_chan();
				a.tg.frame_len = (uint32_t)rndn(9000);
				a.tg.period_ns = (uint32_t)rndn(200000);
				a.tg.enable = (uint32_t)rndn(4);
				break;
			case 9:
				memset(&a.st, 0, sizeof(a.st));
				a.st.chan = some_chan();
				break;
			case 10:
				a.dr.chan = some_chan();
				a.dr.drop = (uint32_t)rndn(3);
				break;
			case 11: {
				/* An eventfd, none, garbage, the device itself, a closed fd. */
				const int fds[] = { efd, -1, -2, d.fd, 1000 };

				memset(&a.ce, 0, sizeof(a.ce));
				a.ce.chan = some_chan();
				a.ce.fd = fds[rndn(5)];
				break;
			}
			}
		}
		/* Never wait long, whatever the bytes say. */
		if (cmd == FDMA_IOC_WAIT && (a.w.timeout_us < 0 || a.w.timeout_us > 5000))
			a.w.timeout_us = (int64_t)rndn(5000);
		switch (rndn(50)) {
		case 0:
			arg = NULL;
			break;
		case 1:
			arg = (void *)(uintptr_t)rnd();
			break;
		case 2:
			arg = (void *)0xffff888000001000ull;
			break;
		}
		ret = ioctl(d.fd, cmd, arg);
		e = errno;
		calls++;
		if (!ret) {
			ok++;
			if (cmd == codes[k])
				okc[k]++;
			if (cmd == FDMA_IOC_BUF_ALLOC || cmd == FDMA_IOC_BUF_REGISTER) {
				uint32_t h = cmd == FDMA_IOC_BUF_ALLOC ? a.ba.handle : a.br.handle;
				int kept = nlive < MAXLIVE;

				if (kept) {
					live[nlive].handle = h;
					live[nlive].size = cmd == FDMA_IOC_BUF_ALLOC ? a.ba.size : a.br.size;
					live[nlive].user = cmd == FDMA_IOC_BUF_REGISTER;
					live[nlive].slot = cmd == FDMA_IOC_BUF_REGISTER ? slot : -1;
					nlive++;
				}
				if (cmd == FDMA_IOC_BUF_ALLOC && rndn(2)) {
					void *p = mmap(NULL, a.ba.size, PROT_READ | PROT_WRITE,
						       MAP_SHARED, d.fd, (off_t)a.ba.mmap_offset);

					if (p != MAP_FAILED) {
						memset(p, 0x3c, a.ba.size);
						munmap(p, a.ba.size);
						maps++;
					}
				}
				if (!kept)	/* no room to remember it: free it */
					ioctl(d.fd, FDMA_IOC_BUF_FREE, &h);
			} else if (cmd == FDMA_IOC_BUF_FREE && arg == &a) {
				forget(a.u32);
			}
		} else {
			errs[e < 160 ? e : 0]++;
			/* EMSGSIZE is SUBMIT's alone: a C2H stream range not in one piece. */
			if (e == EMSGSIZE && _IOC_NR(cmd) != _IOC_NR(FDMA_IOC_SUBMIT))
				msgsize_other++;
		}
		/* Random mmaps. */
		if (!rndn(50)) {
			uint64_t off = rndn(2) ? FDMA_CQ_MMAP_OFFSET(rndn(20)) + rndn(2) * 4096
					       : ((uint64_t)some_handle() << 32) + rndn(3) * 4096;
			size_t len = (1 + rndn(64)) * 4096;
			void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       rndn(5) ? MAP_SHARED : MAP_PRIVATE, d.fd, (off_t)off);

			if (p != MAP_FAILED) {
				munmap(p, len);
				maps++;
			}
		}
		/* Consume whatever completed; sometimes free a buffer. */
		for (unsigned int ch = 0; ch < d.info.nchan; ch++)
			if (d.cq[ch].hdr)
				vi_cq_take(&d, (int)ch, NULL, 1 << 20);
		if (nlive > MAXLIVE / 2 && !rndn(4)) {
			int i = (int)rndn(nlive);

			if (!ioctl(d.fd, FDMA_IOC_BUF_FREE, &live[i].handle))
				live[i] = live[--nlive];
		}
	}
	it.it_value.tv_sec = it.it_value.tv_usec = 0;
	it.it_interval = it.it_value;
	setitimer(ITIMER_REAL, &it, NULL);

	/* Back to a known state: generators off, no coalescing, nothing in flight. */
	for (unsigned int ch = 0; ch < d.info.nchan; ch++) {
		struct fdma_ioc_testgen tg = { .chan = ch };
		struct fdma_ioc_drop dr = { .chan = ch };

		ioctl(d.fd, FDMA_IOC_TESTGEN, &tg);
		ioctl(d.fd, FDMA_IOC_DROP, &dr);
		vi_coalesce(&d, (int)ch, 0, 0);
		if (vi_reset(&d, (int)ch))
			vt_fail(F, "reset channel %u: %s", ch, strerror(errno));
		vi_cq_take(&d, (int)ch, NULL, 1 << 20);
	}
	for (int i = 0; i < nlive; i++)
		if (ioctl(d.fd, FDMA_IOC_BUF_FREE, &live[i].handle))
			vt_fail(F, "free buffer %u after the resets: %s", live[i].handle,
				strerror(errno));
	nlive = 0;
	vt_info("%ld ioctls in %.1f s: %ld succeeded, %ld mmaps; refused with EINVAL %ld, EBADF %ld, ERANGE %ld, EFAULT %ld, ENOTTY %ld, EAGAIN %ld, E2BIG %ld, EBUSY %ld, ENOMEM %ld, ETIMEDOUT %ld, EOPNOTSUPP %ld, ENOSPC %ld, EINTR %ld, EMSGSIZE %ld",
		calls, vt_now() - t0, ok, maps, errs[EINVAL], errs[EBADF], errs[ERANGE],
		errs[EFAULT], errs[ENOTTY], errs[EAGAIN], errs[E2BIG], errs[EBUSY], errs[ENOMEM],
		errs[ETIMEDOUT], errs[EOPNOTSUPP], errs[ENOSPC], errs[EINTR], errs[EMSGSIZE]);
	for (int e = 1; e < 160; e++)
		if (errs[e] && e != EINVAL && e != EBADF && e != ERANGE && e != EFAULT &&
		    e != ENOTTY && e != EAGAIN && e != E2BIG && e != EBUSY && e != ENOMEM &&
		    e != ETIMEDOUT && e != EOPNOTSUPP && e != ENOSPC && e != EINTR &&
		    e != EMSGSIZE)
			vt_fail(F, "%ld calls failed with an unexpected %s", errs[e], strerror(e));
	if (msgsize_other)
		vt_fail(F, "%ld calls but FDMA_IOC_SUBMIT failed with EMSGSIZE", msgsize_other);
	vt_info("succeeded: INFO %ld, BUF_ALLOC %ld, BUF_REGISTER %ld, BUF_FREE %ld, SUBMIT %ld, WAIT %ld, COALESCE %ld, CHAN_RESET %ld, TESTGEN %ld, STATS %ld, DROP %ld, CQ_EVENTFD %ld",
		okc[0], okc[1], okc[2], okc[3], okc[4], okc[5], okc[6], okc[7], okc[8], okc[9],
		okc[10], okc[11]);
	if (calls < 10000)
		vt_fail(F, "only %ld calls", calls);
	vi_close(&d);
	close(efd);
	free(pool_raw);
	if (vi_pinned(dev) != pinned0 || vi_nbufs(dev) != bufs0 ||
	    vt_attr_ll(dev, "allocated_bytes") != coh0)
		vt_fail(F, "after close: %lld pinned pages, %lld buffers, %lld allocated bytes (before: %lld, %lld, %lld)",
			vi_pinned(dev), vi_nbufs(dev), vt_attr_ll(dev, "allocated_bytes"), pinned0,
			bufs0, coh0);
	if (vi_open(&d, dev) || vi_cq_map(&d, d.h2c) || vi_cq_map(&d, d.c2h)) {
		vt_fail(F, "open again: %s", strerror(errno));
		return;
	}
	if (roundtrip_ok(F) && !vt_failed)
		vt_pass(F);
}

int main(void)
{
	if (ioc_setup())
		return 1;
	fuzz();
	vi_close(&d);
	return vt_failed;
}
