// SPDX-License-Identifier: MIT
/*
 * unbind_revoke: the device is unbound while a process has an allocated
 * buffer mapped, a registered buffer, and a request in flight. remove()
 * takes the device's memory back before it returns, so that nothing of the
 * DMA API is used on the device after it (it may be gone, or bound to
 * vfio-pci):
 *   - the request comes back canceled;
 *   - the mapping of the allocated buffer is gone: touching it is SIGBUS;
 *   - the registered pages are unpinned at once (the driver's debugfs
 *     count of pinned pages drops before the file is closed);
 *   - every ioctl but BUF_FREE and STATS, and mmap(), fail with ENODEV;
 *     BUF_FREE and close() work, and VmLck is back where it started;
 *   - bound again, the device works, and nothing is left pinned.
 * The driver before this test kept the mapping and the pins until close.
 */
#include <setjmp.h>

#include "vmioc.h"

static const char *T = "unbind_revoke";
static sigjmp_buf jb;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(jb, 1);
}

/* Does reading p fault? 1 SIGBUS, 0 it read. */
static int faults(volatile uint8_t *p)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	int hit = 0;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(jb, 1))
		hit = 1;
	else
		(void)p[123];
	sigaction(SIGBUS, &old, NULL);
	return hit;
}

/* A round trip on a fresh open of dev; 0 or -1. */
static int works(const char *dev)
{
	struct fdma_cq_entry e = { 0 };
	struct fdma_ioc_req r;
	struct vi_buf b;
	struct vi_dev v;
	int ret;

	if (vi_open(&v, dev) || vi_cq_map(&v, v.h2c) || vi_cq_map(&v, v.c2h) ||
	    vi_alloc(&v, 65536, &b))
		return -1;
	vt_fill(b.p, 32768, 42);
	r = (struct fdma_ioc_req){ .handle = b.handle, .len = 32768, .card_addr = 1 << 20 };
	ret = vi_submit(&v, v.h2c, &r, 1);
	if (!ret)
		ret = vi_collect(&v, v.h2c, &e, 1, 5000000);
	r.offset = 32768;
	if (!ret && !e.res)
		ret = vi_submit(&v, v.c2h, &r, 1);
	if (!ret && !e.res)
		ret = vi_collect(&v, v.c2h, &e, 1, 5000000);
	if (!ret && (e.res || vt_check(b.p + 32768, 32768, 42) >= 0))
		ret = -1;
	vi_free(&v, &b);
	vi_close(&v);
	return ret ? -1 : 0;
}

int main(void)
{
	struct fdma_ioc_buf_alloc a = { .size = 4096 };
	struct fdma_cq_entry e[4];
	struct fdma_ioc_req r;
	struct vi_buf al, rg;
	struct vi_dev d;
	char bdf[64], dev[64];
	long long pin0, pin1, pin2;
	long lck0, lck1, lck2;
	void *m;
	int ret;

	lck0 = vi_vmlck();
	pin0 = vi_pinned_total();
	ret = vi_open(&d, NULL);
	if (ret || d.c2h_stream < 0 || vi_cq_map(&d, d.c2h_stream) || vt_bdf(d.name, bdf, sizeof(bdf))) {
		vt_fail(T, "open: %s", strerror(ret ? -ret : errno));
		return 1;
	}
	snprintf(dev, sizeof(dev), "%s", d.name);
	if (vi_alloc(&d, 1 << 20, &al) || vi_register(&d, 1 << 20, 0, &rg)) {
		vt_fail(T, "buffers: %s", strerror(errno));
		return 1;
	}
	memset(al.p, 0x33, al.size);
	pin1 = vi_pinned_total();
	lck1 = vi_vmlck();
	if (pin0 < 0 || pin1 - pin0 < 256) {
		vt_fail(T, "debugfs pinned_pages %lld -> %lld for 1 MiB registered", pin0, pin1);
		return 1;
	}
	/* A stream buffer armed with no generator running: in flight until remove(). */
	r = (struct fdma_ioc_req){ .handle = al.handle, .len = 4096, .user_data = 7 };
	ret = vi_submit(&d, d.c2h_stream, &r, 1);
	if (ret) {
		vt_fail(T, "submit: %s", strerror(-ret));
		return 1;
	}

	ret = vi_unbind(bdf);
	if (ret) {
		vt_fail(T, "unbind %s: %s", bdf, strerror(-ret));
		return 1;
	}
	if (vi_cq_take(&d, d.c2h_stream, e, 4) != 1 || e[0].res != -ECANCELED)
		vt_fail(T, "the request in flight did not come back canceled");
	if (!faults(al.p))
		vt_fail(T, "the mapping of an allocated buffer still reads after remove() (0x%02x)",
			al.p[123]);
	pin2 = vi_pinned_total();
	if (pin2 != pin0)
		vt_fail(T, "%lld pages still pinned after remove() (before: %lld), the file still open",
			pin2 - pin0, pin0);
	ret = vi_submit(&d, d.c2h_stream, &r, 1);
	if (ret != -ENODEV)
		vt_fail(T, "SUBMIT after remove: %s, expected ENODEV", strerror(-ret));
	if (ioctl(d.fd, FDMA_IOC_BUF_ALLOC, &a) == 0 || errno != ENODEV)
		vt_fail(T, "BUF_ALLOC after remove: %s, expected ENODEV", strerror(errno));
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, d.fd, (off_t)FDMA_CQ_MMAP_OFFSET(0));
	if (m != MAP_FAILED || errno != ENODEV)
		vt_fail(T, "mmap after remove: %s, expected ENODEV", m == MAP_FAILED ?
			strerror(errno) : "it worked");
	/* The shells go with BUF_FREE and close; the charge with them. */
	if (vi_free(&d, &al) || vi_free(&d, &rg))
		vt_fail(T, "BUF_FREE after remove: %s", strerror(errno));
	vi_close(&d);
	/* The allocated buffer's last reference went with munmap(): its charge comes back from a work item. */
	lck2 = vi_vmlck_wait(lck0);
	if (lck2 != lck0)
		vt_fail(T, "VmLck %ld kB 3 s after close, %ld before the buffers (%ld with them)",
			lck2 / 1024, lck0 / 1024, lck1 / 1024);

	ret = vi_rebind(bdf, dev, sizeof(dev));
	if (ret) {
		vt_fail(T, "bind %s again: %s", bdf, strerror(-ret));
		return 1;
	}
	if (works(dev))
		vt_fail(T, "the device, bound again, does not move data");
	if (vi_pinned_total() != pin0)
		vt_fail(T, "%lld pages pinned at the end, %lld at the start", vi_pinned_total(), pin0);
	if (!vt_failed) {
		vt_info("remove(): request canceled, mapping gone (SIGBUS), %lld pages unpinned before close",
			pin1 - pin0);
		vt_pass(T);
	}
	return vt_failed;
}
