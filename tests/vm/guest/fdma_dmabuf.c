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
 *                         attachment released at once, the file still open;
 *   dmabuf_p2p            a peer's memory (the exporter maps it with
 *                         dma_map_resource() and marks it a bus address,
 *                         as a GPU exports its BAR; RAM behind it, so that
 *                         the model can move bytes): transfers both ways,
 *                         every byte checked. Where the driver cannot tell
 *                         a peer's addresses and the device is not
 *                         coherent, it must not offer peer-to-peer: the
 *                         exporter refuses the import;
 *   dmabuf_p2p_bar        the same over a real BAR (the ivshmem function's
 *                         unused shared memory): the driver never syncs
 *                         it (a sync of a BAR faults on a non-coherent
 *                         arm64 guest), the model refuses the DMA, so both
 *                         requests end with its ADDR_ERR (EFAULT), no
 *                         byte of the BAR changes, and the channels work
 *                         after;
 *   dmabuf_move_noack     a move while a request on the buffer is in
 *                         flight on a channel that never acknowledges its
 *                         reset (the model's noack fault): the driver stops
 *                         the engine (bus mastering off) before the mapping
 *                         goes, within a second, and the device refuses
 *                         everything (ENODEV) until it is bound again; the
 *                         model refused the channel's writes after that.
 * Needs /fdma_testexp.ko loaded (run-guest.sh does it).
 */
#include <linux/dma-buf.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/mount.h>

#include "vmioc.h"

struct testexp_create {
	uint64_t size;
	uint32_t flags;
	int32_t fd;
};

struct testexp_counts {
	int64_t bufs, attachments, maps, pins, moves;
	int64_t p2p_refused, can_mark;
};

#define TESTEXP_NULL_PAGES	0x1
#define TESTEXP_P2P		0x2
#define TESTEXP_P2P_BAR		0x4
#define TESTEXP_CREATE	_IOWR('X', 1, struct testexp_create)
#define TESTEXP_MOVE	_IOW('X', 2, int32_t)
#define TESTEXP_COUNTS	_IOR('X', 3, struct testexp_counts)

#define SIZE		(1u << 20)
#define FRAME		4096u	/* a page: one DMA segment of the exporter's */
#define NWIN		8

static int xdev = -1;

static int xcreate_size(uint32_t flags, size_t size, uint8_t **cpu)
{
	struct testexp_create c = { .size = size, .flags = flags };
	void *p;

	if (ioctl(xdev, TESTEXP_CREATE, &c))
		return -errno;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, c.fd, 0);
	if (p == MAP_FAILED) {
		close(c.fd);
		return -errno;
	}
	*cpu = p;
	return c.fd;
}

static int xcreate(uint32_t flags, uint8_t **cpu)
{
	return xcreate_size(flags, SIZE, cpu);
}

static struct testexp_counts xcounts(void)
{
	struct testexp_counts n = { -1, -1, -1, -1, -1, -1, -1 };

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

/* One request of len bytes between [off, + len) of h and card address 0; its entry in *e. */
static int xfer(struct vi_dev *d, int ch, uint32_t h, uint64_t off, uint64_t len,
		struct fdma_cq_entry *e)
{
	struct fdma_ioc_req r = { .handle = h, .offset = off, .len = len, .card_addr = 0 };
	int ret = vi_submit(d, ch, &r, 1);

	return ret ? ret : vi_collect(d, ch, e, 1, 5000000);
}

/*
 * The DMA API's syncs, counted with its trace events (kernels from 6.11;
 * else -1): QEMU models no caches, so a sync of a peer's memory is seen
 * there, not in its effect (a BAR's cache maintenance is a no-op under
 * TCG, where a real arm64 faults).
 */
static const char *const sync_events[] = {
	"dma_sync_single_for_device", "dma_sync_single_for_cpu",
	"dma_sync_sg_for_device", "dma_sync_sg_for_cpu",
};
static char tracing[64];

static int syncs_trace(int on)
{
	char path[160];
	struct stat st;

	if (!tracing[0]) {
		if (stat("/sys/kernel/tracing/events", &st) &&
		    mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL))
			return -1;
		snprintf(tracing, sizeof(tracing), "/sys/kernel/tracing");
	}
	for (size_t i = 0; i < sizeof(sync_events) / sizeof(sync_events[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/dma/%s/enable", tracing, sync_events[i]);
		if (vt_write_str(path, on ? "1" : "0"))
			return -1;
	}
	if (on) {
		snprintf(path, sizeof(path), "%s/trace", tracing);
		return vt_write_str(path, "") ? -1 : 0;
	}
	return 0;
}

/* Syncs of device bdf traced since syncs_trace(1), or -1. */
static long syncs_of(const char *bdf)
{
	char path[160], line[512];
	long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", tracing);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#' && strstr(line, "dma_sync_") && strstr(line, bdf))
			n++;
	fclose(f);
	return n;
}

/* Both channels still move data (after a device error): every byte checked. */
static int channels_ok(struct vi_dev *d, uint64_t seed)
{
	struct fdma_cq_entry e;
	struct vi_buf b;
	int ret = vi_alloc(d, 65536, &b);

	if (ret)
		return ret;
	vt_fill(b.p, 32768, seed);
	memset(b.p + 32768, 0, 32768);
	ret = xfer(d, d->h2c, b.handle, 0, 32768, &e);
	if (!ret)
		ret = e.res;
	if (!ret)
		ret = xfer(d, d->c2h, b.handle, 32768, 32768, &e);
	if (!ret)
		ret = e.res;
	if (!ret && vt_check(b.p + 32768, 32768, seed) >= 0)
		ret = -EILSEQ;
	vi_free(d, &b);
	return ret;
}

/*
 * A peer's memory: RAM of the exporter's behind a resource mapping
 * (dmabuf_p2p), or the ivshmem function's BAR (dmabuf_p2p_bar).
 */
static void test_p2p(struct vi_dev *d, bool bar)
{
	const char *T = bar ? "dmabuf_p2p_bar" : "dmabuf_p2p";
	const char *coh = getenv("fdmavm_coherent");
	size_t size = bar ? 65536 : SIZE;
	struct testexp_counts n0 = xcounts(), n1;
	struct fdma_cq_entry e1, e2;
	uint8_t *cpu, *keep = NULL;
	char bdf[64] = "";
	long bad, syncs = -1;
	int fd, ret, traced;
	bool offered;
	uint32_t h;

	/* The driver offers peer-to-peer where it can tell a peer's addresses, or needs no sync. */
	offered = n0.can_mark == 1 || !coh || strcmp(coh, "0");
	fd = xcreate_size(bar ? TESTEXP_P2P_BAR : TESTEXP_P2P, size, &cpu);
	if (fd < 0) {
		vt_fail(T, "create: %s", strerror(-fd));
		return;
	}
	ret = import(d, fd, 0, size, &h);
	n1 = xcounts();
	if (!offered) {
		if (ret == -EOPNOTSUPP && n1.p2p_refused == n0.p2p_refused + 1) {
			vt_info("%s: no bus-address marks on this kernel and a non-coherent device: the driver does not offer peer-to-peer, and the exporter refused",
				T);
			vt_pass(T);
		} else {
			vt_fail(T, "import on a non-coherent device without bus-address marks: %s (refused %lld times), expected EOPNOTSUPP from the exporter",
				strerror(-ret), (long long)(n1.p2p_refused - n0.p2p_refused));
		}
		goto out;
	}
	if (ret) {
		vt_fail(T, "import: %s (the exporter refused %lld times: no peer-to-peer offered)",
			strerror(-ret), (long long)(n1.p2p_refused - n0.p2p_refused));
		goto out;
	}
	keep = malloc(size);
	if (!keep) {
		vt_fail(T, "malloc");
		goto free;
	}
	/*
	 * RAM: H2C from the first half, C2H of the same bytes into the
	 * second. The BAR: H2C from it, C2H into it, which the model
	 * refuses (it reaches guest RAM only).
	 */
	vt_fill(cpu, bar ? size : size / 2, 91);
	if (!bar)
		memset(cpu + size / 2, 0x5a, size / 2);
	memcpy(keep, cpu, size);
	/* Every sync of the device's while only the peer's memory moves. */
	traced = vt_bdf(d->name, bdf, sizeof(bdf)) ? -1 : syncs_trace(1);
	ret = xfer(d, d->h2c, h, 0, bar ? size : size / 2, &e1);
	if (!ret)
		ret = xfer(d, d->c2h, h, bar ? 0 : size / 2, bar ? size : size / 2, &e2);
	if (!traced) {
		syncs = syncs_of(bdf);
		syncs_trace(0);
	}
	if (ret) {
		vt_fail(T, "transfers: %s", strerror(-ret));
	} else if (syncs > 0) {
		vt_fail(T, "the driver synced the peer's memory for the CPU or the device (%ld syncs)",
			syncs);
	} else if (!bar && (e1.res || e2.res)) {
		vt_fail(T, "H2C res %d, C2H res %d", e1.res, e2.res);
	} else if (!bar && (bad = vt_check(cpu, size / 2, 91)) >= 0) {
		vt_fail(T, "byte %ld of the H2C half changed", bad);
	} else if (!bar && (bad = vt_check(cpu + size / 2, size / 2, 91)) >= 0) {
		vt_fail(T, "byte %ld of the C2H half is wrong", bad);
	} else if (bar && (e1.res != -EFAULT || e1.status != FDMA_IOC_ST_ADDR_ERR ||
			   e2.res != -EFAULT || e2.status != FDMA_IOC_ST_ADDR_ERR)) {
		vt_fail(T, "H2C from the BAR: res %d status %u, C2H into it: res %d status %u; expected the model's ADDR_ERR (EFAULT)",
			e1.res, e1.status, e2.res, e2.status);
	} else if (bar && memcmp(cpu, keep, size)) {
		vt_fail(T, "the BAR's bytes changed");
	} else if (bar && (ret = channels_ok(d, 93))) {
		vt_fail(T, "the channels after the device's error: %s", strerror(-ret));
	} else {
		if (syncs < 0)
			vt_info("%s: no DMA trace events on this kernel: syncs not counted", T);
		vt_pass(T);
	}
free:
	vi_free_raw(d, h);
out:
	free(keep);
	munmap(cpu, size);
	close(fd);
}

/*
 * A move with a request in flight on a channel that never acknowledges
 * its reset: the engine is stopped before the mapping goes. Last: the
 * device is bound again at the end, under a name of its own.
 */
static void test_move_noack(void)
{
	const char *T = "dmabuf_move_noack";
	struct testexp_counts n0 = xcounts(), n1, n2;
	struct fdma_cq_entry e;
	struct fdma_ioc_req r;
	char bdf[64], dev[64];
	long long r0, r1;
	struct vi_dev d;
	int fd, ret, failed_before = vt_failed;
	uint8_t *cpu;
	double ms;
	uint32_t h;

	vt_failed = 0;	/* this test's own failures, below */
	if (vi_open(&d, NULL) || vi_cq_map(&d, d.h2c) || vi_cq_map(&d, d.c2h)) {
		vt_fail(T, "open: %s", strerror(errno));
		return;
	}
	if (vt_bdf(d.name, bdf, sizeof(bdf))) {
		vt_fail(T, "no PCI address for %s", d.name);
		vi_close(&d);
		return;
	}
	fd = xcreate_size(0, 65536, &cpu);
	if (fd < 0 || import(&d, fd, 0, 65536, &h)) {
		vt_fail(T, "create and import: %s", strerror(errno));
		vi_close(&d);
		return;
	}
	vt_fill(cpu, 65536, 94);
	r0 = vi_model_ctr(d.name, "refused");
	ret = vi_fault(d.name, "noack", d.h2c, 1);
	r = (struct fdma_ioc_req){ .handle = h, .len = 65536, .card_addr = 0 };
	if (!ret)
		ret = vi_submit(&d, d.h2c, &r, 1);
	if (!ret && vi_wait(&d, d.h2c, 1, 200000, NULL) != -ETIMEDOUT)
		ret = -EPROTO;
	if (ret) {
		vt_fail(T, "a request stuck on a channel that does not acknowledge resets: %s",
			strerror(-ret));
		vi_close(&d);
		return;
	}
	ms = vi_ms();
	ret = ioctl(xdev, TESTEXP_MOVE, &fd) ? -errno : 0;
	ms = vi_ms() - ms;
	n1 = xcounts();
	if (ret) {
		vt_fail(T, "move: %s", strerror(-ret));
	} else if (ms > 3000) {
		vt_fail(T, "move_notify took %.0f ms under the exporter's lock", ms);
	} else if (vi_cq_take(&d, d.h2c, &e, 1) != 1 || e.res != -EIO) {
		vt_fail(T, "the request on the moved buffer did not come back EIO");
	} else if (n1.maps != n0.maps) {
		vt_fail(T, "the mapping was not given back (%lld left)", (long long)(n1.maps - n0.maps));
	} else {
		struct fdma_ioc_req q = { .handle = h, .len = 4096 };

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
	munmap(cpu, 65536);
	close(fd);
	/* Bound again: the engine's reset at probe ends the fault. */
	ret = vi_unbind(bdf);
	if (!ret)
		ret = vi_rebind(bdf, dev, sizeof(dev));
	n2 = xcounts();
	r1 = ret ? -1 : vi_model_ctr(dev, "refused");
	if (ret) {
		vt_fail(T, "unbind and bind %s: %s", bdf, strerror(-ret));
	} else if (n2.attachments != n0.attachments || n2.pins != n0.pins || n2.bufs != n0.bufs) {
		vt_fail(T, "left behind: %lld attachments, %lld pins, %lld buffers",
			(long long)(n2.attachments - n0.attachments), (long long)(n2.pins - n0.pins),
			(long long)(n2.bufs - n0.bufs));
	} else if (r1 <= r0) {
		vt_fail(T, "the model refused none of the channel's writes (%lld, %lld before)", r1, r0);
	} else if (!vt_failed) {
		struct vi_dev d2;

		ret = vi_open(&d2, dev);
		if (!ret && (vi_cq_map(&d2, d2.h2c) || vi_cq_map(&d2, d2.c2h)))
			ret = -errno;
		if (!ret)
			ret = channels_ok(&d2, 95);
		vi_close(&d2);
		if (ret)
			vt_fail(T, "the device bound again: %s", strerror(-ret));
		else
			vt_info("%s: move returned after %.0f ms; the model refused %lld writes", T, ms,
				r1 - r0);
		if (!ret)
			vt_pass(T);
	}
	vt_failed |= failed_before;
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
	test_p2p(&d, false);
	test_p2p(&d, true);
	test_unbind(&d);
	test_move_noack();
	return 0;
}
