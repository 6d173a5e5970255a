// SPDX-License-Identifier: MIT
/*
 * fdma_dmac.ko over a dmaengine provider that misbehaves (fdma_testexp.ko's:
 * it holds every descriptor until told, and its terminate can be made to
 * fail), with an imported dma-buf in flight. Each check is a VMTEST line:
 *   dmac_broken          a file closed with a copy held and the terminate
 *                        failing: the channel is broken, and rmmod of
 *                        fdma_dmac is refused, since the provider may still
 *                        call back into it;
 *   dmac_broken_move     the exporter moves the imported source meanwhile:
 *                        the driver cannot stop a dmaengine provider, says
 *                        so and keeps the mapping (no use after free of
 *                        anything, under KASAN in the debug kernel's row);
 *   dmac_late_callback   the provider completes the held copy now, late:
 *                        its callback runs into the module, which is still
 *                        there, and is counted on the channel;
 *   dmac_broken_recover  with terminate working again, a reset of the
 *                        channel succeeds, the module unloads, and nothing
 *                        of the import is left with the exporter.
 * Run by dmac.sh with fdma_testexp.ko loaded and no fdma_dmac.ko.
 */
#include <dirent.h>

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

struct testexp_prov {
	uint32_t cmd;
	uint32_t flags;
	int64_t n;
	char name[32];
};

#define TESTEXP_CREATE	_IOWR('X', 1, struct testexp_create)
#define TESTEXP_MOVE	_IOW('X', 2, int32_t)
#define TESTEXP_COUNTS	_IOR('X', 3, struct testexp_counts)
#define TESTEXP_PROV	_IOWR('X', 4, struct testexp_prov)

#define TESTEXP_PROV_ADD	1
#define TESTEXP_PROV_DEL	2
#define TESTEXP_PROV_MODE	3
#define TESTEXP_PROV_FIRE	4
#define TESTEXP_PROV_FAIL	0x1

#define DMAC_KO		"/fdma_dmac.ko"
#define SIZE		65536

static int xdev = -1;

static int prov(uint32_t cmd, uint32_t flags, struct testexp_prov *out)
{
	struct testexp_prov p = { .cmd = cmd, .flags = flags };

	if (ioctl(xdev, TESTEXP_PROV, &p))
		return -errno;
	if (out)
		*out = p;
	return 0;
}

static struct testexp_counts xcounts(void)
{
	struct testexp_counts n = { -1, -1, -1, -1, -1, -1, -1 };

	ioctl(xdev, TESTEXP_COUNTS, &n);
	return n;
}

static int dmac_load(const char *params)
{
	int fd = open(DMAC_KO, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static int dmac_unload(void)
{
	return syscall(SYS_delete_module, "fdma_dmac", O_NONBLOCK) ? -errno : 0;
}

/* The fdma node whose channel 0 is dmaengine channel chan; 0 or -ENOENT. */
static int find_node(const char *chan, char *name, size_t len)
{
	DIR *dir = opendir(FDMA_CLASS);
	struct dirent *e;
	int ret = -ENOENT;
	char src[256];

	if (!dir)
		return -ENOENT;
	while (ret && (e = readdir(dir))) {
		if (strncmp(e->d_name, "fdma", 4) || e->d_name[4] < '0' || e->d_name[4] > '9' ||
		    strlen(e->d_name) >= len)
			continue;
		if (vt_attr_str(e->d_name, "ch0/source", src, sizeof(src)) || !strstr(src, chan))
			continue;
		memcpy(name, e->d_name, strlen(e->d_name) + 1);
		ret = 0;
	}
	closedir(dir);
	return ret;
}

int main(void)
{
	const char *T = "dmac_broken";
	struct testexp_create c = { .size = SIZE };
	struct testexp_counts n0, n1, n2;
	struct fdma_ioc_stats s0, s1;
	struct fdma_ioc_copy cp;
	struct testexp_prov p;
	char params[96], node[64], st[128];
	struct vi_buf dst;
	struct vi_dev d;
	int64_t held;
	uint8_t *cpu;
	uint32_t h;
	int ret;

	xdev = open("/dev/fdma_testexp", O_RDWR | O_CLOEXEC);
	if (xdev < 0) {
		vt_fail(T, "/dev/fdma_testexp: %s (is fdma_testexp.ko loaded?)", strerror(errno));
		return 1;
	}
	n0 = xcounts();
	ret = prov(TESTEXP_PROV_ADD, 0, &p);
	if (ret) {
		vt_fail(T, "the test provider: %s", strerror(-ret));
		return 1;
	}
	snprintf(params, sizeof(params), "chans=%s", p.name);
	ret = dmac_load(params);
	if (!ret)
		ret = find_node(p.name, node, sizeof(node));
	if (ret) {
		vt_fail(T, "insmod " DMAC_KO " %s: %s", params, strerror(-ret));
		dmac_unload();
		prov(TESTEXP_PROV_DEL, 0, NULL);
		return 1;
	}
	vt_info("%s over %s (the test provider)", node, p.name);

	/* A copy from an imported dma-buf, held by the provider. */
	if (ioctl(xdev, TESTEXP_CREATE, &c) || vi_open(&d, node) || vi_cq_map(&d, d.mem) ||
	    vi_alloc(&d, SIZE, &dst)) {
		vt_fail(T, "create, open, map: %s", strerror(errno));
		return 1;
	}
	cpu = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, c.fd, 0);
	{
		struct fdma_ioc_buf_import r = { .fd = c.fd, .size = SIZE };

		ret = ioctl(d.fd, FDMA_IOC_BUF_IMPORT, &r) ? -errno : 0;
		h = r.handle;
	}
	if (cpu == MAP_FAILED || ret) {
		vt_fail(T, "mmap and import: %s", strerror(ret ? -ret : errno));
		return 1;
	}
	vt_fill(cpu, SIZE, 31);
	cp = (struct fdma_ioc_copy){ .src_handle = h, .dst_handle = dst.handle, .len = SIZE };
	ret = prov(TESTEXP_PROV_MODE, TESTEXP_PROV_FAIL, NULL);
	if (!ret)
		ret = vi_copy(&d, d.mem, &cp, 1) ? -errno : 0;
	if (!ret)
		ret = prov(TESTEXP_PROV_MODE, TESTEXP_PROV_FAIL, &p);
	/* One descriptor per page of the import: its DMA segments. */
	held = p.n;
	if (ret || held < 1) {
		vt_fail(T, "a copy held by the provider: %s, %lld held", strerror(-ret),
			(long long)held);
		return 1;
	}
	/* Closed with the copy in flight: the reset's terminate fails. */
	munmap(dst.p, dst.size);
	vi_close(&d);
	n1 = xcounts();
	snprintf(st, sizeof(st), "ch0/status");
	if (vt_attr_str(node, st, st, sizeof(st)) || !strstr(st, "broken")) {
		vt_fail(T, "the channel's status '%s' does not say broken", st);
	} else if (n1.attachments != n0.attachments + 1 || n1.maps != n0.maps + 1) {
		vt_fail(T, "the import, in flight on a channel that may still write it, was let go: %lld attachments, %lld mappings",
			(long long)(n1.attachments - n0.attachments), (long long)(n1.maps - n0.maps));
	} else {
		ret = dmac_unload();
		if (!ret)
			vt_fail(T, "rmmod fdma_dmac went through with a channel the provider may still call back on");
		else if (ret != -EWOULDBLOCK && ret != -EBUSY)
			vt_fail(T, "rmmod fdma_dmac: %s, expected EWOULDBLOCK", strerror(-ret));
		else
			vt_pass(T);
	}

	/* The exporter moves the source the broken channel may still read. */
	T = "dmac_broken_move";
	ret = ioctl(xdev, TESTEXP_MOVE, &c.fd) ? -errno : 0;
	n2 = xcounts();
	if (ret)
		vt_fail(T, "move: %s", strerror(-ret));
	else if (n2.maps != n1.maps)
		vt_fail(T, "the mapping a broken channel may still use was given back");
	else if (vt_dmesg_has("cannot be stopped: its mapping is kept") != 1)
		vt_fail(T, "the kernel log does not say the mapping is kept");
	else
		vt_pass(T);

	/* The held copy completes now, after the terminate that failed. */
	T = "dmac_late_callback";
	if (vi_open(&d, node) || vi_stats(&d, 0, &s0)) {
		/* Fired all the same: the callbacks must find what they touch. */
		vt_fail(T, "open %s: %s", node, strerror(errno));
		prov(TESTEXP_PROV_FIRE, 0, &p);
		usleep(100000);
		return 1;
	}
	ret = prov(TESTEXP_PROV_FIRE, 0, &p);
	usleep(100000);	/* its work item reaps */
	/* Without coalescing each descriptor asked for its callback. */
	if (ret || p.n != held)
		vt_fail(T, "fire: %s, %lld of %lld fired", strerror(-ret), (long long)p.n,
			(long long)held);
	else if (vi_stats(&d, 0, &s1) || s1.interrupts != s0.interrupts + (uint64_t)held)
		vt_fail(T, "%lld late callbacks, %llu counted", (long long)held,
			(unsigned long long)(s1.interrupts - s0.interrupts));
	else
		vt_pass(T);

	/* The terminate works again: the channel recovers, the module goes. */
	T = "dmac_broken_recover";
	ret = prov(TESTEXP_PROV_MODE, 0, NULL);
	if (!ret)
		ret = vi_reset(&d, 0);
	vi_close(&d);
	if (ret) {
		vt_fail(T, "FDMA_IOC_CHAN_RESET with terminate working: %s", strerror(-ret));
		return 1;
	}
	ret = dmac_unload();
	munmap(cpu, SIZE);
	close(c.fd);
	n2 = xcounts();
	if (ret)
		vt_fail(T, "rmmod fdma_dmac after the channel recovered: %s", strerror(-ret));
	else if (n2.bufs != n0.bufs || n2.attachments != n0.attachments || n2.maps != n0.maps ||
		 n2.pins != n0.pins)
		vt_fail(T, "left behind: %lld buffers, %lld attachments, %lld mappings, %lld pins",
			(long long)(n2.bufs - n0.bufs), (long long)(n2.attachments - n0.attachments),
			(long long)(n2.maps - n0.maps), (long long)(n2.pins - n0.pins));
	else if ((ret = prov(TESTEXP_PROV_DEL, 0, NULL)))
		vt_fail(T, "the provider, its channel released: %s", strerror(-ret));
	else
		vt_pass(T);
	return 0;
}
