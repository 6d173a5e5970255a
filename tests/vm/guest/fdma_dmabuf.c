// SPDX-License-Identifier: MIT
/*
 * dma-buf import against an exporter that does what real ones may
 * (tests/vm/kmod/fdma_testexp.c): scatterlists without struct pages, and
 * move_notify at awkward moments. Each check is a VMTEST line:
 *   dmabuf_nullpages      transfers both ways through a mapping with no
 *                         pages behind it, every byte checked;
 *   dmabuf_move_stream    move_notify while the test generator fills the
 *                         buffer's stream windows: the frames already
 *                         armed finish whole (or come back -EIO), none is
 *                         torn, and the handle then refuses requests with
 *                         EIO while the exporter shows the mapping gone;
 *   dmabuf_move_cancel    move_notify with windows armed and no frame
 *                         coming: they are canceled (-EIO) within the
 *                         driver's grace, and the channel works after;
 *   dmabuf_kill           a process killed with imported buffers in flight
 *                         leaves no attachment, mapping or pin behind;
 *   dmabuf_unbind         the device unbound with an imported buffer in
 *                         flight: the request is canceled and the
 *                         attachment released at once, the file still open.
 * Needs /fdma_testexp.ko loaded (run-guest.sh does it).
 */
#include <linux/dma-buf.h>
#include <pthread.h>
#include <stdbool.h>

#include "vmioc.h"

struct testexp_create {
	uint64_t size;
	uint32_t flags;
	int32_t fd;
};

struct testexp_counts {
	int64_t bufs, attachments, maps, pins, moves;
};

#define TESTEXP_NULL_PAGES	0x1
#define TESTEXP_CREATE	_IOWR('X', 1, struct testexp_create)
#define TESTEXP_MOVE	_IOW('X', 2, int32_t)
#define TESTEXP_COUNTS	_IOR('X', 3, struct testexp_counts)

#define SIZE		(1u << 20)
#define FRAME		4096u	/* a page: one DMA segment of the exporter's */
#define NWIN		8

static int xdev = -1;

static int xcreate(uint32_t flags, uint8_t **cpu)
{
	struct testexp_create c = { .size = SIZE, .flags = flags };
	void *p;

	if (ioctl(xdev, TESTEXP_CREATE, &c))
		return -errno;
	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, c.fd, 0);
	if (p == MAP_FAILED) {
		close(c.fd);
		return -errno;
	}
	*cpu = p;
	return c.fd;
}

static struct testexp_counts xcounts(void)
{
	struct testexp_counts n = { -1, -1, -1, -1, -1 };

	ioctl(xdev, TESTEXP_COUNTS, &n);
	return n;
}

static int import(struct vi_dev *d, int fd, uint64_t off, uint64_t size, uint32_t *h)
{
	struct fdma_ioc_buf_import r = { .fd = fd, .offset = off, .size = size };

	if (ioctl(d->fd, FDMA_IOC_BUF_IMPORT, &r))
		return -errno;
	*h = r.handle;
	return 0;
}

static void test_nullpages(struct vi_dev *d)
{
	const char *T = "dmabuf_nullpages";
	struct fdma_cq_entry e;
	struct fdma_ioc_req r;
	uint8_t *cpu;
	uint32_t h;
	long bad;
	int fd, ret;

	fd = xcreate(TESTEXP_NULL_PAGES, &cpu);
	if (fd < 0) {
		vt_fail(T, "create: %s", strerror(-fd));
		return;
	}
	ret = import(d, fd, 0, SIZE, &h);
	if (ret) {
		vt_fail(T, "import: %s", strerror(-ret));
		return;
	}
	vt_fill(cpu, SIZE / 2, 77);
	memset(cpu + SIZE / 2, 0xee, SIZE / 2);
	r = (struct fdma_ioc_req){ .handle = h, .len = SIZE / 2, .card_addr = 0 };
	ret = vi_submit(d, d->h2c, &r, 1);
	if (!ret)
		ret = vi_collect(d, d->h2c, &e, 1, 5000000);
	if (!ret && e.res)
		ret = e.res;
	r.offset = SIZE / 2;
	if (!ret)
		ret = vi_submit(d, d->c2h, &r, 1);
	if (!ret)
		ret = vi_collect(d, d->c2h, &e, 1, 5000000);
	if (!ret && e.res)
		ret = e.res;
	if (ret)
		vt_fail(T, "transfers: %s", strerror(-ret));
	else if ((bad = vt_check(cpu + SIZE / 2, SIZE / 2, 77)) >= 0)
		vt_fail(T, "byte %ld of the C2H half is wrong", bad);
	else
		vt_pass(T);
	vi_free_raw(d, h);
	munmap(cpu, SIZE);
	close(fd);
}

struct mover {
	int fd;
	int ret;
};

static void *do_move(void *arg)
{
	struct mover *m = arg;

	m->ret = ioctl(xdev, TESTEXP_MOVE, &m->fd) ? -errno : 0;
	return NULL;
}

/* move_notify from another thread while frames arrive (or, idle, do not). */
static void test_move(struct vi_dev *d, bool idle)
{
	const char *T = idle ? "dmabuf_move_cancel" : "dmabuf_move_stream";
	struct fdma_cq_entry e[NWIN];
	struct testexp_counts n0, n1, n2;
	struct mover m;
	pthread_t th;
	uint8_t *cpu;
	uint32_t h;
	int fd, ret, ok = 0, canceled = 0, taken = 0;
	double t0;

	n0 = xcounts();
	fd = xcreate(TESTEXP_NULL_PAGES, &cpu);
	if (fd < 0 || import(d, fd, 0, SIZE, &h)) {
		vt_fail(T, "create and import: %s", strerror(errno));
		return;
	}
	if (!idle && vi_testgen(d, FRAME, 1)) {
		vt_fail(T, "test generator: %s", strerror(errno));
		return;
	}
	ret = vi_arm_windows(d, h, NWIN, FRAME);
	if (ret) {
		vt_fail(T, "arm: %s", strerror(-ret));
		return;
	}
	/* Some frames in, the rest armed. */
	if (!idle) {
		ret = vi_collect(d, d->c2h_stream, e, 3, 5000000);
		if (ret) {
			vt_fail(T, "first frames: %s", strerror(-ret));
			return;
		}
		taken = 3;
	}
	m.fd = fd;
	t0 = vi_ms();
	pthread_create(&th, NULL, do_move, &m);
	ret = vi_collect(d, d->c2h_stream, e + taken, NWIN - taken, 15000000);
	pthread_join(th, NULL);
	if (!idle)
		vi_testgen(d, FRAME, 0);
	if (ret || m.ret) {
		vt_fail(T, "after the move: collect %s, move %s", strerror(-ret), strerror(-m.ret));
		return;
	}
	for (int i = 0; i < NWIN; i++) {
		uint64_t k = e[i].user_data;

		if (e[i].res == -EIO) {
			canceled++;
		} else if (e[i].res || k >= NWIN ||
			   vi_frame_ok(cpu + k * FRAME, e[i].len, FRAME)) {
			vt_fail(T, "window %llu: res %d len %llu, or a torn frame",
				(unsigned long long)k, e[i].res, (unsigned long long)e[i].len);
			return;
		} else {
			ok++;
		}
	}
	n1 = xcounts();
	ret = vi_arm_windows(d, h, NWIN, FRAME);
	if (ret != -EIO) {
		vt_fail(T, "a request after the move: %s, expected EIO", strerror(-ret));
		return;
	}
	if (idle && canceled != NWIN) {
		vt_fail(T, "%d of %d idle windows canceled (-EIO) by the move", canceled, NWIN);
		return;
	}
	if (n1.maps != n0.maps) {
		vt_fail(T, "the exporter still has %lld mappings after the move",
			(long long)(n1.maps - n0.maps));
		return;
	}
	vi_free_raw(d, h);
	munmap(cpu, SIZE);
	close(fd);
	n2 = xcounts();
	if (n2.bufs != n0.bufs || n2.attachments != n0.attachments || n2.pins != n0.pins) {
		vt_fail(T, "left behind: %lld buffers, %lld attachments, %lld pins",
			(long long)(n2.bufs - n0.bufs), (long long)(n2.attachments - n0.attachments),
			(long long)(n2.pins - n0.pins));
		return;
	}
	/* The channel is whole: frames into a buffer of the driver's own. */
	if (idle) {
		struct vi_buf b;

		if (vi_alloc(d, NWIN * FRAME, &b) || vi_testgen(d, FRAME, 1) ||
		    vi_arm_windows(d, b.handle, NWIN, FRAME) ||
		    vi_collect(d, d->c2h_stream, e, NWIN, 5000000) ||
		    vi_frame_ok(b.p, e[0].len, FRAME)) {
			vt_fail(T, "the stream channel after the cancel: %s", strerror(errno));
			return;
		}
		vi_testgen(d, FRAME, 0);
		vi_free(d, &b);
	}
	vt_info("%s: %d frames whole, %d canceled, move took %.0f ms\n", T, ok, canceled,
		vi_ms() - t0);
	vt_pass(T);
}

/* A child imports, arms, and is killed; nothing of the import is left. */
static void test_kill(void)
{
	const char *T = "dmabuf_kill";
	struct testexp_counts n0 = xcounts(), n1;
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p)) {
		vt_fail(T, "pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		struct vi_dev d;
		uint8_t *cpu;
		uint32_t h;
		int fd;

		if (vi_open(&d, NULL) || vi_cq_map(&d, d.c2h_stream))
			_exit(1);
		fd = xcreate(TESTEXP_NULL_PAGES, &cpu);
		if (fd < 0 || import(&d, fd, 0, SIZE, &h) || vi_arm_windows(&d, h, NWIN, FRAME))
			_exit(1);
		if (write(p[1], "r", 1) != 1)
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
	n1 = xcounts();
	if (n1.bufs != n0.bufs || n1.attachments != n0.attachments || n1.maps != n0.maps ||
	    n1.pins != n0.pins)
		vt_fail(T, "left behind by a killed importer: %lld buffers, %lld attachments, %lld mappings, %lld pins",
			(long long)(n1.bufs - n0.bufs), (long long)(n1.attachments - n0.attachments),
			(long long)(n1.maps - n0.maps), (long long)(n1.pins - n0.pins));
	else
		vt_pass(T);
}

static void test_unbind(struct vi_dev *d)
{
	const char *T = "dmabuf_unbind";
	struct testexp_counts n0 = xcounts(), n1, n2;
	struct fdma_cq_entry e;
	char bdf[64], dev[64];
	uint8_t *cpu;
	uint32_t h;
	int fd, ret;

	if (vt_bdf(d->name, bdf, sizeof(bdf))) {
		vt_fail(T, "no PCI address for %s", d->name);
		return;
	}
	fd = xcreate(TESTEXP_NULL_PAGES, &cpu);
	if (fd < 0 || import(d, fd, 0, SIZE, &h) || vi_arm_windows(d, h, NWIN, FRAME)) {
		vt_fail(T, "create, import, arm: %s", strerror(errno));
		return;
	}
	ret = vi_unbind(bdf);
	if (ret) {
		vt_fail(T, "unbind %s: %s", bdf, strerror(-ret));
		return;
	}
	n1 = xcounts();
	if (vi_cq_take(d, d->c2h_stream, &e, 1) != 1 || e.res != -ECANCELED)
		vt_fail(T, "the request in flight did not come back canceled");
	else if (n1.attachments != n0.attachments || n1.maps != n0.maps || n1.pins != n0.pins)
		vt_fail(T, "after remove(), the file still open: %lld attachments, %lld mappings, %lld pins",
			(long long)(n1.attachments - n0.attachments),
			(long long)(n1.maps - n0.maps), (long long)(n1.pins - n0.pins));
	else if (vi_free_raw(d, h))
		vt_fail(T, "BUF_FREE after remove: %s", strerror(errno));
	vi_close(d);
	munmap(cpu, SIZE);
	close(fd);
	n2 = xcounts();
	if (n2.bufs != n0.bufs)
		vt_fail(T, "%lld exported buffers left", (long long)(n2.bufs - n0.bufs));
	ret = vi_rebind(bdf, dev, sizeof(dev));
	if (ret)
		vt_fail(T, "bind again: %s", strerror(-ret));
	else if (!vt_failed)
		vt_pass(T);
}

int main(void)
{
	struct vi_dev d;
	int ret;

	xdev = open("/dev/fdma_testexp", O_RDWR | O_CLOEXEC);
	if (xdev < 0) {
		vt_fail("dmabuf", "/dev/fdma_testexp: %s (is fdma_testexp.ko loaded?)",
			strerror(errno));
		return 1;
	}
	ret = vi_open(&d, NULL);
	if (ret || d.c2h_stream < 0 || d.h2c < 0 || d.c2h < 0 ||
	    !(d.info.features & FDMA_FEAT_DMABUF)) {
		vt_fail("dmabuf", "open: %s, or no stream channel, or no FDMA_FEAT_DMABUF",
			strerror(-ret));
		return 1;
	}
	if (vi_cq_map(&d, d.h2c) || vi_cq_map(&d, d.c2h) || vi_cq_map(&d, d.c2h_stream)) {
		vt_fail("dmabuf", "map the completion queues: %s", strerror(errno));
		return 1;
	}
	test_nullpages(&d);
	test_move(&d, false);
	test_move(&d, true);
	test_kill();
	test_unbind(&d);
	return 0;
}
