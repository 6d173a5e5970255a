// SPDX-License-Identifier: MIT
/*
 * The interface's version 3 and its rules for growing.
 *
 * ioc_info_v3: FDMA_IOC_INFO says the header's version (4), the features
 *   this driver has (DMA_ALIGN, WATCHDOG, REVOKE, REG), and a DMA alignment that is a power of
 *   two, at least the engine's, and the one sysfs shows; STATS has the
 *   version 3 counters.
 * ioc_size_growth: an ioctl with a larger structure than the driver's
 *   (a newer program) works when the bytes the driver does not know are
 *   zero (-E2BIG otherwise), and gets output only up to the driver's size;
 *   a smaller one, or the wrong direction, is ENOTTY.
 * ioc_dma_align: where the DMA alignment is larger than the engine's (a
 *   DMA cache line of 128 bytes of arm64 6.1), registered memory and request
 *   offsets aligned to the engine's but not to it are EINVAL; elsewhere
 *   the test says there is nothing stricter to check.
 * mmap_flags: driver mappings cannot grow (mremap: VM_DONTEXPAND) and are
 *   not dumped (VM_DONTDUMP: "dd" in smaps).
 */
#include "vmioc.h"

/* A program built against a future header: one more field at the end. */
struct big_info {
	struct fdma_ioc_info in;
	uint8_t extra[32];
};

struct big_stats {
	struct fdma_ioc_stats st;
	uint64_t extra[2];
};

static void info_v3(struct vi_dev *d)
{
	const char *T = "ioc_info_v3";
	const struct fdma_ioc_info *in = &d->info;
	uint32_t want = FDMA_FEAT_DMA_ALIGN | FDMA_FEAT_WATCHDOG | FDMA_FEAT_REVOKE |
			FDMA_FEAT_REG;
	struct fdma_ioc_stats st;
	long long sys = vt_attr_ll(d->name, "dma_align");

	if (in->uapi_version != FDMA_UAPI_VERSION)
		vt_fail(T, "uapi_version %u, expected %u", in->uapi_version, FDMA_UAPI_VERSION);
	else if ((in->features & want) != want)
		vt_fail(T, "features 0x%x, expected 0x%x at least", in->features, want);
	else if (!in->dma_align || (in->dma_align & (in->dma_align - 1)) ||
		 in->dma_align < d->engine_align)
		vt_fail(T, "dma_align %u beside align %u", in->dma_align, d->engine_align);
	else if (sys != in->dma_align)
		vt_fail(T, "sysfs dma_align %lld, INFO %u", sys, in->dma_align);
	else if (vi_stats(d, 0, &st))
		vt_fail(T, "STATS: %s", strerror(errno));
	else {
		vt_info("uapi %u, features 0x%x, align %u, dma_align %u", in->uapi_version, in->features,
			d->engine_align, in->dma_align);
		vt_pass(T);
	}
}

static void growth(struct vi_dev *d)
{
	const char *T = "ioc_size_growth";
	struct big_info bi;
	struct big_stats bs;
	unsigned long nr_info = _IOC(_IOC_READ, FDMA_IOC_MAGIC, 0x00, sizeof(bi));
	unsigned long nr_stats = _IOC(_IOC_READ | _IOC_WRITE, FDMA_IOC_MAGIC, 0x09, sizeof(bs));
	int ok = 1;

	memset(&bi, 0xaa, sizeof(bi));
	if (ioctl(d->fd, nr_info, &bi)) {
		vt_fail(T, "INFO with %zu bytes: %s", sizeof(bi), strerror(errno));
		ok = 0;
	} else {
		for (size_t i = 0; i < sizeof(bi.extra); i++)
			if (bi.extra[i] != 0xaa) {
				vt_fail(T, "INFO wrote %zu bytes past its structure", i + 1);
				ok = 0;
				break;
			}
		if (bi.in.uapi_version != d->info.uapi_version || bi.in.nchan != d->info.nchan) {
			vt_fail(T, "INFO with a larger structure says something else");
			ok = 0;
		}
	}
	memset(&bs, 0, sizeof(bs));
	if (ioctl(d->fd, nr_stats, &bs)) {
		vt_fail(T, "STATS with %zu zero-padded bytes: %s", sizeof(bs), strerror(errno));
		ok = 0;
	}
	bs.extra[1] = 1;
	if (!ioctl(d->fd, nr_stats, &bs) || errno != E2BIG) {
		vt_fail(T, "STATS with an unknown non-zero field: %s, expected E2BIG",
			strerror(errno));
		ok = 0;
	}
	if (!ioctl(d->fd, _IOC(_IOC_READ, FDMA_IOC_MAGIC, 0x00, sizeof(bi.in) - 4), &bi) ||
	    errno != ENOTTY) {
		vt_fail(T, "INFO with a short structure: %s, expected ENOTTY", strerror(errno));
		ok = 0;
	}
	if (!ioctl(d->fd, _IOC(_IOC_WRITE, FDMA_IOC_MAGIC, 0x00, sizeof(bi.in)), &bi) ||
	    errno != ENOTTY) {
		vt_fail(T, "INFO written, not read: %s, expected ENOTTY", strerror(errno));
		ok = 0;
	}
	if (!ioctl(d->fd, _IOC(_IOC_READ, FDMA_IOC_MAGIC, 0x7f, 8), &bi) || errno != ENOTTY) {
		vt_fail(T, "an unknown number: %s, expected ENOTTY", strerror(errno));
		ok = 0;
	}
	if (ok)
		vt_pass(T);
}

static void dma_align(struct vi_dev *d)
{
	const char *T = "ioc_dma_align";
	uint32_t a = d->engine_align, da = d->info.dma_align;
	struct fdma_ioc_buf_reg r;
	struct fdma_ioc_req q;
	struct vi_buf b;
	uint8_t *raw;
	int ret;

	if (da <= a) {
		vt_info("dma_align %u = the engine's alignment here: nothing stricter to check", da);
		vt_pass(T);
		return;
	}
	raw = aligned_alloc(4096, 1 << 20);
	r = (struct fdma_ioc_buf_reg){ .addr = (uintptr_t)raw + a, .size = 65536 };
	if (!ioctl(d->fd, FDMA_IOC_BUF_REGISTER, &r) || errno != EINVAL)
		vt_fail(T, "registering memory at an offset of %u (dma_align %u): %s, expected EINVAL",
			a, da, strerror(errno));
	ret = vi_alloc(d, 65536, &b);
	if (ret) {
		vt_fail(T, "allocate: %s", strerror(-ret));
		return;
	}
	q = (struct fdma_ioc_req){ .handle = b.handle, .offset = a, .len = da };
	ret = vi_submit(d, d->h2c, &q, 1);
	if (ret != -EINVAL)
		vt_fail(T, "a request at buffer offset %u: %s, expected EINVAL", a, strerror(-ret));
	q.offset = 0;
	q.len = a;
	ret = vi_submit(d, d->h2c, &q, 1);
	if (ret != -EINVAL)
		vt_fail(T, "a request of %u bytes: %s, expected EINVAL", a, strerror(-ret));
	vi_free(d, &b);
	free(raw);
	if (!vt_failed)
		vt_pass(T);
}

static void mmap_flags(struct vi_dev *d)
{
	const char *T = "mmap_flags";
	char line[512], want[64];
	struct vi_buf b;
	int in = 0, dd = 0;
	void *p;
	FILE *f;

	if (vi_alloc(d, 65536, &b)) {
		vt_fail(T, "allocate: %s", strerror(errno));
		return;
	}
	p = mremap(b.p, b.size, 2 * b.size, MREMAP_MAYMOVE);
	if (p != MAP_FAILED) {
		vt_fail(T, "mremap grew a buffer mapping");
		b.p = p;
		b.size *= 2;
	}
	snprintf(want, sizeof(want), "%lx-", (unsigned long)b.p);
	f = fopen("/proc/self/smaps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, want, strlen(want)))
			in = 1;
		else if (in && !strncmp(line, "VmFlags:", 8)) {
			dd = strstr(line, " dd") != NULL;
			break;
		}
	}
	if (f)
		fclose(f);
	if (!in || !dd)
		vt_fail(T, "the buffer mapping %s in smaps%s", in ? "is" : "is not",
			in ? " but not VM_DONTDUMP" : "");
	vi_free(d, &b);
	if (!vt_failed)
		vt_pass(T);
}

int main(void)
{
	struct vi_dev d;
	int failed = 0;

	if (vi_open(&d, NULL)) {
		vt_fail("ioc_info_v3", "open: %s", strerror(errno));
		return 1;
	}
	info_v3(&d);
	failed |= vt_failed;
	vt_failed = 0;
	growth(&d);
	failed |= vt_failed;
	vt_failed = 0;
	dma_align(&d);
	failed |= vt_failed;
	vt_failed = 0;
	mmap_flags(&d);
	failed |= vt_failed;
	vi_close(&d);
	return failed;
}
