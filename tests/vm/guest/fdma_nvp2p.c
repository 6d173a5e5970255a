// SPDX-License-Identifier: MIT
/*
 * GPU memory pinned through NVIDIA's peer-to-peer API (FDMA_IOC_BUF_NVP2P),
 * against the API's stand-in (tests/vm/kmod/nvp2p/fdma_nvp2p_standin.c: the
 * discrete GPU's API in x86_64 guests, Jetson's in arm64 guests), whose
 * /dev/fdma_gpu plays the application's cudaMalloc and cudaFree and whose
 * free callback comes when the test frees the memory. Each check is a
 * VMTEST line:
 *   nvp2p_xfer         transfers both ways through the pinned memory, every
 *                      byte checked through the CPU's view of it;
 *   nvp2p_free_stream  the memory freed while the test generator fills its
 *                      stream windows: frames already armed finish whole or
 *                      end -EIO, the handle then refuses requests, and the
 *                      table and mapping are gone (the callback freed them);
 *   nvp2p_free_idle    freed with windows armed and no frame coming: they
 *                      end -EIO within the driver's grace, the channel works
 *                      after;
 *   nvp2p_release      BUF_FREE first, then the memory freed: no callback,
 *                      nothing left;
 *   nvp2p_kill         a process killed with pinned memory in flight leaves
 *                      no table or mapping behind;
 *   nvp2p_unbind       the device unbound with pinned memory in flight: the
 *                      request is canceled and the pages put at once, the
 *                      file still open;
 *   nvp2p_free_noack   freed while a request on it is in flight on a
 *                      channel that never acknowledges its reset (the
 *                      model's noack fault): the driver stops the engine
 *                      (bus mastering off) before the table goes, within
 *                      a second; the device refuses everything (ENODEV)
 *                      until it is bound again, and then moves data.
 * Needs fdma.ko built over the stand-in (tests/vm/run.sh) and the stand-in
 * loaded before it (run-guest.sh).
 */
#include <pthread.h>
#include <stdbool.h>

#include "vmioc.h"

struct gpu_alloc_req {
	uint64_t size;
	uint64_t va;
	uint64_t mmap_offset;
};

struct gpu_counts {
	int64_t allocs, tables, mappings, callbacks;
};

#define GPU_ALLOC	_IOWR('G', 1, struct gpu_alloc_req)
#define GPU_FREE	_IOW('G', 2, uint64_t)
#define GPU_COUNTS	_IOR('G', 3, struct gpu_counts)

#define SIZE		(1u << 20)
#define NWIN		8

static int gdev = -1;
static uint32_t win;	/* a stream window: NVIDIA's page, one DMA segment */

struct gmem {
	uint64_t va;
	uint8_t *cpu;
};

static int galloc(struct gmem *g)
{
	struct gpu_alloc_req r = { .size = SIZE };
	void *p;

	if (ioctl(gdev, GPU_ALLOC, &r))
		return -errno;
	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, gdev, (off_t)r.mmap_offset);
	if (p == MAP_FAILED)
		return -errno;
	g->va = r.va;
	g->cpu = p;
	return 0;
}

static int gfree(struct gmem *g)
{
	int ret = ioctl(gdev, GPU_FREE, &g->va) ? -errno : 0;

	munmap(g->cpu, SIZE);
	return ret;
}

static struct gpu_counts gcounts(void)
{
	struct gpu_counts n = { -1, -1, -1, -1 };

	ioctl(gdev, GPU_COUNTS, &n);
	return n;
}

static int pin(struct vi_dev *d, uint64_t va, uint32_t *h)
{
	struct fdma_ioc_buf_nvp2p r = { .va = va, .size = SIZE };

	if (ioctl(d->fd, FDMA_IOC_BUF_NVP2P, &r))
		return -errno;
	*h = r.handle;
	return 0;
}

static int same_counts(const char *T, struct gpu_counts a, struct gpu_counts b)
{
	if (a.allocs == b.allocs && a.tables == b.tables && a.mappings == b.mappings)
		return 0;
	vt_fail(T, "left behind: %lld allocations, %lld page tables, %lld mappings",
		(long long)(b.allocs - a.allocs), (long long)(b.tables - a.tables),
		(long long)(b.mappings - a.mappings));
	return -1;
}

static void test_xfer(struct vi_dev *d)
{
	const char *T = "nvp2p_xfer";
	struct gpu_counts n0 = gcounts();
	struct fdma_cq_entry e;
	struct fdma_ioc_req r;
	struct gmem g;
	uint32_t h;
	long bad;
	int ret;

	if (galloc(&g) || pin(d, g.va, &h)) {
		vt_fail(T, "alloc and pin: %s", strerror(errno));
		return;
	}
	vt_fill(g.cpu, SIZE / 2, 91);
	memset(g.cpu + SIZE / 2, 0xee, SIZE / 2);
	r = (struct fdma_ioc_req){ .handle = h, .len = SIZE / 2 };
	ret = vi_submit(d, d->h2c, &r, 1);
	if (!ret)
		ret = vi_collect(d, d->h2c, &e, 1, 5000000);
	if (!ret)
		ret = e.res;
	r.offset = SIZE / 2;
	if (!ret)
		ret = vi_submit(d, d->c2h, &r, 1);
	if (!ret)
		ret = vi_collect(d, d->c2h, &e, 1, 5000000);
	if (!ret)
		ret = e.res;
	if (ret)
		vt_fail(T, "transfers: %s", strerror(-ret));
	else if ((bad = vt_check(g.cpu + SIZE / 2, SIZE / 2, 91)) >= 0)
		vt_fail(T, "byte %ld of the C2H half is wrong", bad);
	vi_free_raw(d, h);
	gfree(&g);
	if (!same_counts(T, n0, gcounts()) && !vt_failed)
		vt_pass(T);
}

struct freer {
	uint64_t va;
	int ret;
};

static void *do_free(void *arg)
{
	struct freer *f = arg;

	f->ret = ioctl(gdev, GPU_FREE, &f->va) ? -errno : 0;
	return NULL;
}

/* The application frees the memory (another thread) while the buffer is in use. */
static void test_free(struct vi_dev *d, bool idle)
{
	const char *T = idle ? "nvp2p_free_idle" : "nvp2p_free_stream";
	struct fdma_cq_entry e[NWIN];
	struct gpu_counts n0 = gcounts(), n1;
	struct freer f;
	pthread_t th;
	struct gmem g;
	uint32_t h;
	int ret, ok = 0, ended = 0, taken = 0;
	double t0;

	if (galloc(&g) || pin(d, g.va, &h)) {
		vt_fail(T, "alloc and pin: %s", strerror(errno));
		return;
	}
	if (!idle && vi_testgen(d, win, 1)) {
		vt_fail(T, "test generator: %s", strerror(errno));
		return;
	}
	ret = vi_arm_windows(d, h, NWIN, win);
	if (ret) {
		vt_fail(T, "arm: %s", strerror(-ret));
		return;
	}
	if (!idle) {
		ret = vi_collect(d, d->c2h_stream, e, 3, 5000000);
		if (ret) {
			vt_fail(T, "first frames: %s", strerror(-ret));
			return;
		}
		taken = 3;
	}
	/* Frames are checked before the memory goes: keep a copy of the CPU view. */
	f.va = g.va;
	t0 = vi_ms();
	pthread_create(&th, NULL, do_free, &f);
	ret = vi_collect(d, d->c2h_stream, e + taken, NWIN - taken, 15000000);
	pthread_join(th, NULL);
	if (!idle)
		vi_testgen(d, win, 0);
	if (ret || f.ret) {
		vt_fail(T, "after the free: collect %s, free %s", strerror(-ret), strerror(-f.ret));
		return;
	}
	for (int i = 0; i < NWIN; i++) {
		uint64_t k = e[i].user_data;

		if (e[i].res == -EIO) {
			ended++;
		} else if (e[i].res || k >= NWIN ||
			   vi_frame_ok(g.cpu + k * win, e[i].len, win)) {
			vt_fail(T, "window %llu: res %d len %llu, or a torn frame",
				(unsigned long long)k, e[i].res, (unsigned long long)e[i].len);
			return;
		} else {
			ok++;
		}
	}
	munmap(g.cpu, SIZE);
	ret = vi_arm_windows(d, h, NWIN, win);
	if (ret != -EIO) {
		vt_fail(T, "a request after the free: %s, expected EIO", strerror(-ret));
		return;
	}
	if (idle && ended != NWIN) {
		vt_fail(T, "%d of %d idle windows ended -EIO by the free", ended, NWIN);
		return;
	}
	n1 = gcounts();
	if (n1.callbacks != n0.callbacks + 1) {
		vt_fail(T, "%lld free callbacks, expected 1", (long long)(n1.callbacks - n0.callbacks));
		return;
	}
	if (vi_free_raw(d, h)) {
		vt_fail(T, "BUF_FREE after the callback: %s", strerror(errno));
		return;
	}
	if (same_counts(T, n0, gcounts()))
		return;
	if (idle) {
		struct vi_buf b;

		if (vi_alloc(d, NWIN * win, &b) || vi_testgen(d, win, 1) ||
		    vi_arm_windows(d, b.handle, NWIN, win) ||
		    vi_collect(d, d->c2h_stream, e, NWIN, 5000000) ||
		    vi_frame_ok(b.p, e[0].len, win)) {
			vt_fail(T, "the stream channel after the free: %s", strerror(errno));
			return;
		}
		vi_testgen(d, win, 0);
		vi_free(d, &b);
	}
	vt_info("%s: %d frames whole, %d ended -EIO, the free took %.0f ms\n", T, ok, ended,
		vi_ms() - t0);
	vt_pass(T);
}

static void test_release(struct vi_dev *d)
{
	const char *T = "nvp2p_release";
	struct gpu_counts n0 = gcounts(), n1;
	struct gmem g;
	uint32_t h;

	if (galloc(&g) || pin(d, g.va, &h) || vi_free_raw(d, h)) {
		vt_fail(T, "alloc, pin, free the handle: %s", strerror(errno));
		return;
	}
	n1 = gcounts();
	if (n1.tables != n0.tables || n1.mappings != n0.mappings) {
		vt_fail(T, "after BUF_FREE: %lld tables, %lld mappings still held",
			(long long)(n1.tables - n0.tables), (long long)(n1.mappings - n0.mappings));
		return;
	}
	gfree(&g);
	n1 = gcounts();
#ifdef __aarch64__
	/* Jetson's put_pages runs the callback itself. */
	if (n1.callbacks != n0.callbacks + 1) {
#else
	if (n1.callbacks != n0.callbacks) {
#endif
		vt_fail(T, "%lld free callbacks", (long long)(n1.callbacks - n0.callbacks));
		return;
	}
	if (!same_counts(T, n0, n1))
		vt_pass(T);
}

static void test_kill(void)
{
	const char *T = "nvp2p_kill";
	struct gpu_counts n0 = gcounts(), n1;
	struct gmem g;
	int p[2];
	pid_t pid;
	char c;

	if (galloc(&g) || pipe(p)) {
		vt_fail(T, "alloc: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		struct vi_dev d;
		uint32_t h;

		if (vi_open(&d, NULL) || vi_cq_map(&d, d.c2h_stream) || pin(&d, g.va, &h) ||
		    vi_arm_windows(&d, h, NWIN, win) || write(p[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1) {
		vt_fail(T, "the child did not get its buffer armed");
		waitpid(pid, NULL, 0);
		return;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(p[0]);
	n1 = gcounts();
	if (n1.tables != n0.tables || n1.mappings != n0.mappings)
		vt_fail(T, "left behind by a killed process: %lld tables, %lld mappings",
			(long long)(n1.tables - n0.tables), (long long)(n1.mappings - n0.mappings));
	else
		vt_pass(T);
	gfree(&g);
}

static void test_unbind(struct vi_dev *d)
{
	const char *T = "nvp2p_unbind";
	struct gpu_counts n0 = gcounts(), n1;
	struct fdma_cq_entry e;
	char bdf[64], dev[64];
	struct gmem g;
	uint32_t h;
	int ret;

	if (vt_bdf(d->name, bdf, sizeof(bdf)) || galloc(&g) || pin(d, g.va, &h) ||
	    vi_arm_windows(d, h, NWIN, win)) {
		vt_fail(T, "set-up: %s", strerror(errno));
		return;
	}
	ret = vi_unbind(bdf);
	if (ret) {
		vt_fail(T, "unbind %s: %s", bdf, strerror(-ret));
		return;
	}
	n1 = gcounts();
	if (vi_cq_take(d, d->c2h_stream, &e, 1) != 1 || e.res != -ECANCELED)
		vt_fail(T, "the request in flight did not come back canceled");
	else if (n1.tables != n0.tables || n1.mappings != n0.mappings)
		vt_fail(T, "after remove(), the file still open: %lld tables, %lld mappings",
			(long long)(n1.tables - n0.tables), (long long)(n1.mappings - n0.mappings));
	else if (vi_free_raw(d, h))
		vt_fail(T, "BUF_FREE after remove: %s", strerror(errno));
	vi_close(d);
	gfree(&g);
	ret = vi_rebind(bdf, dev, sizeof(dev));
	if (ret)
		vt_fail(T, "bind again: %s", strerror(-ret));
	else if (!vt_failed)
		vt_pass(T);
}

/* A request of len bytes of h through channel ch, and its entry. */
static int xfer(struct vi_dev *d, int ch, uint32_t h, uint64_t off, uint64_t len,
		struct fdma_cq_entry *e)
{
	struct fdma_ioc_req r = { .handle = h, .offset = off, .len = len };
	int ret = vi_submit(d, ch, &r, 1);

	return ret ? ret : vi_collect(d, ch, e, 1, 5000000);
}

/* Freed with a request stuck on a channel that does not acknowledge resets. Last. */
static void test_free_noack(void)
{
	const char *T = "nvp2p_free_noack";
	struct gpu_counts n0 = gcounts(), n1;
	struct fdma_cq_entry e;
	struct fdma_ioc_req r;
	char bdf[64], dev[64];
	struct vi_dev d;
	struct vi_buf b;
	struct gmem g;
	uint32_t h;
	double ms;
	int ret, failed_before = vt_failed;

	vt_failed = 0;	/* this test's own failures, below */
	if (vi_open(&d, NULL) || vi_cq_map(&d, d.h2c) || vi_cq_map(&d, d.c2h) ||
	    vt_bdf(d.name, bdf, sizeof(bdf)) || galloc(&g) || pin(&d, g.va, &h)) {
		vt_fail(T, "set-up: %s", strerror(errno));
		return;
	}
	ret = vi_fault(d.name, "noack", d.h2c, 1);
	r = (struct fdma_ioc_req){ .handle = h, .len = win };
	if (!ret)
		ret = vi_submit(&d, d.h2c, &r, 1);
	if (!ret && vi_wait(&d, d.h2c, 1, 200000, NULL) != -ETIMEDOUT)
		ret = -EPROTO;
	if (ret) {
		vt_fail(T, "a request stuck on a channel that does not acknowledge resets: %s",
			strerror(-ret));
		return;
	}
	ms = vi_ms();
	ret = gfree(&g);
	ms = vi_ms() - ms;
	n1 = gcounts();
	if (ret) {
		vt_fail(T, "free: %s", strerror(-ret));
	} else if (ms > 3000) {
		vt_fail(T, "the free callback took %.0f ms", ms);
	} else if (vi_cq_take(&d, d.h2c, &e, 1) != 1 || e.res != -EIO) {
		vt_fail(T, "the request on the freed memory did not come back EIO");
	} else if (n1.tables != n0.tables || n1.mappings != n0.mappings) {
		vt_fail(T, "the callback left %lld tables, %lld mappings",
			(long long)(n1.tables - n0.tables), (long long)(n1.mappings - n0.mappings));
	} else {
		struct fdma_ioc_req q = { .handle = h, .len = win };

		/* Stopped: even the channel that worked refuses now. */
		ret = vi_submit(&d, d.c2h, &q, 1);
		if (ret != -ENODEV)
			vt_fail(T, "a request after the engine was stopped: %s, expected ENODEV",
				strerror(-ret));
		else if (vt_dmesg_has("engine stopped, bus mastering off") != 1)
			vt_fail(T, "the kernel log does not say the engine was stopped");
	}
	vi_free_raw(&d, h);
	vi_close(&d);
	/* Bound again: the engine's reset at probe ends the fault. */
	ret = vi_unbind(bdf);
	if (!ret)
		ret = vi_rebind(bdf, dev, sizeof(dev));
	if (ret) {
		vt_fail(T, "unbind and bind %s: %s", bdf, strerror(-ret));
	} else if (!vi_open(&d, dev)) {
		/* Both channels move data again, every byte checked. */
		ret = vi_cq_map(&d, d.h2c) || vi_cq_map(&d, d.c2h) ? -errno : vi_alloc(&d, 65536, &b);
		if (!ret) {
			vt_fill(b.p, 32768, 71);
			memset(b.p + 32768, 0, 32768);
			ret = xfer(&d, d.h2c, b.handle, 0, 32768, &e);
			if (!ret)
				ret = e.res;
			if (!ret)
				ret = xfer(&d, d.c2h, b.handle, 32768, 32768, &e);
			if (!ret)
				ret = e.res;
			if (!ret && vt_check(b.p + 32768, 32768, 71) >= 0)
				ret = -EILSEQ;
			vi_free(&d, &b);
		}
		vi_close(&d);
		if (ret)
			vt_fail(T, "the device bound again: %s", strerror(-ret));
	} else {
		vt_fail(T, "open %s: %s", dev, strerror(errno));
	}
	if (!vt_failed) {
		vt_info("%s: the free callback returned after %.0f ms", T, ms);
		vt_pass(T);
	}
	vt_failed |= failed_before;
}

int main(void)
{
	struct vi_dev d;
	int ret;

	gdev = open("/dev/fdma_gpu", O_RDWR | O_CLOEXEC);
	if (gdev < 0) {
		vt_fail("nvp2p", "/dev/fdma_gpu: %s (is fdma_nvp2p_standin.ko loaded?)",
			strerror(errno));
		return 1;
	}
	ret = vi_open(&d, NULL);
	if (ret || d.c2h_stream < 0 || d.h2c < 0 || d.c2h < 0 ||
	    !(d.info.features & FDMA_FEAT_NVP2P)) {
		vt_fail("nvp2p", "open: %s, or no stream channel, or no FDMA_FEAT_NVP2P",
			strerror(-ret));
		return 1;
	}
	if (vi_cq_map(&d, d.h2c) || vi_cq_map(&d, d.c2h) || vi_cq_map(&d, d.c2h_stream)) {
		vt_fail("nvp2p", "map the completion queues: %s", strerror(errno));
		return 1;
	}
#ifdef __aarch64__
	win = 4096;
#else
	win = 65536;
#endif
	test_xfer(&d);
	test_free(&d, false);
	test_free(&d, true);
	test_release(&d);
	test_kill();
	test_unbind(&d);
	test_free_noack();
	return 0;
}
