// SPDX-License-Identifier: MIT
/*
 * unbind_fault: remove() must not wait for a read() or write() that is
 * stuck in a page fault while copying between user memory and the
 * channel's bounce buffer.
 *
 * A read() of 64 KiB into memory registered with userfaultfd (missing
 * pages) and a write() of 64 KiB from such memory (each on its own
 * memory-mapped channel) both fault in the driver's copy_to_user() /
 * copy_from_user() and wait there for this program, holding the channels'
 * read/write locks. The device is unbound meanwhile: the unbind must
 * finish while they still wait (it used to wait for the read/write lock,
 * i.e. for as long as the fault was not resolved). Then the faults are
 * served: the read completes with the right data (the bounce buffer it
 * copies from is still there: it is freed only at the device's release),
 * the write fails with ENODEV, further reads too, the file closes, and
 * the device, bound again, works.
 */
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>

#include "vmtest.h"

#define LEN	(64 * 1024)
#define CARD	(32ull << 20)

static char dev[64];
static int fd = -1, uffd = -1;
static uint8_t *rmem, *wmem;

struct job {
	pthread_t t;
	ssize_t ret;
	int err;
	volatile int done;
};

static struct job rd, wr, unb;
static char bdf[64], drv[300];

static void *do_read(void *arg)
{
	(void)arg;
	rd.ret = pread(fd, rmem, LEN, CARD);
	rd.err = errno;
	__atomic_store_n(&rd.done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *do_write(void *arg)
{
	(void)arg;
	wr.ret = pwrite(fd, wmem, LEN, CARD + LEN);
	wr.err = errno;
	__atomic_store_n(&wr.done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *do_unbind(void *arg)
{
	(void)arg;
	unb.ret = vt_write_path(drv, "unbind", bdf);
	__atomic_store_n(&unb.done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int is_done(struct job *j)
{
	return __atomic_load_n(&j->done, __ATOMIC_ACQUIRE);
}

/* Next fault address within ms, 0 if none. */
static uint64_t next_fault(int ms)
{
	struct pollfd p = { .fd = uffd, .events = POLLIN };
	struct uffd_msg m;

	if (poll(&p, 1, ms) <= 0)
		return 0;
	if (read(uffd, &m, sizeof(m)) != sizeof(m) || m.event != UFFD_EVENT_PAGEFAULT)
		return 0;
	return m.arg.pagefault.address;
}

static int serve(uint64_t addr)
{
	static uint8_t page[4096] __attribute__((aligned(4096)));
	struct uffdio_copy c = {
		.dst = addr & ~4095ull,
		.src = (uintptr_t)page,
		.len = 4096,
	};

	memset(page, 0xee, sizeof(page));
	if (ioctl(uffd, UFFDIO_COPY, &c) && errno != EEXIST)
		return -errno;
	return 0;
}

static int works(void)
{
	uint8_t a[8192], b[8192];
	int f = vt_open_dev(dev, O_RDWR, 2000), ok;

	if (f < 0)
		return 0;
	vt_fill(a, sizeof(a), 4321);
	ok = pwrite(f, a, sizeof(a), 4099) == sizeof(a) &&
	     pread(f, b, sizeof(b), 4099) == sizeof(b) && !memcmp(a, b, sizeof(a));
	close(f);
	return ok;
}

int main(void)
{
	const char *T = "unbind_fault";
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	uint64_t pend[2];
	int npend = 0, bad = 0;
	double t0, t_unbind = -1;
	uint8_t *pat, *area;

	if (vt_find_dev("fdma", dev, sizeof(dev))) {
		vt_fail(T, "no fdma device in " FDMA_CLASS);
		return 1;
	}
	if (vt_bdf(dev, bdf, sizeof(bdf)) || vt_drv_dir(bdf, drv, sizeof(drv))) {
		vt_fail(T, "no PCI function behind " FDMA_CLASS "/%s: %s", dev, strerror(errno));
		return 1;
	}

	fd = vt_open_dev(dev, O_RDWR, 2000);
	pat = malloc(LEN);
	if (fd < 0 || !pat) {
		vt_fail(T, "open /dev/%s: %s", dev, strerror(errno));
		return 1;
	}
	/* What the read must return. */
	vt_fill(pat, LEN, 777);
	if (pwrite(fd, pat, LEN, CARD) != LEN) {
		vt_fail(T, "pwrite: %s", strerror(errno));
		return 1;
	}

	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		vt_fail(T, "userfaultfd: %s", strerror(errno));
		return 1;
	}
	area = mmap(NULL, 2 * LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		vt_fail(T, "mmap: %s", strerror(errno));
		return 1;
	}
	reg.range.start = (uintptr_t)area;
	reg.range.len = 2 * LEN;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		vt_fail(T, "UFFDIO_REGISTER: %s", strerror(errno));
		return 1;
	}
	rmem = area;
	wmem = area + LEN;

	/* Both get stuck in their first fault, holding the read/write locks. */
	pthread_create(&rd.t, NULL, do_read, NULL);
	pthread_create(&wr.t, NULL, do_write, NULL);
	t0 = vt_now();
	while (npend < 2 && vt_now() - t0 < 20) {
		uint64_t a = next_fault(100);

		if (a)
			pend[npend++] = a;
	}
	if (npend < 2) {
		vt_fail(T, "read() and write() did not both fault on the userfaultfd memory (%d faults; read done %d: %zd, write done %d: %zd)",
			npend, is_done(&rd), rd.ret, is_done(&wr), wr.ret);
		bad = 1;
	}

	/* Unbind while they wait: it must not wait for them. */
	t0 = vt_now();
	pthread_create(&unb.t, NULL, do_unbind, NULL);
	while (!is_done(&unb) && vt_now() - t0 < 15)
		usleep(10000);
	if (is_done(&unb)) {
		t_unbind = vt_now() - t0;
		if (unb.ret) {
			vt_fail(T, "unbind %s: %s", bdf, strerror((int)-unb.ret));
			bad = 1;
		}
	} else {
		vt_fail(T, "unbind did not finish in 15 s while a read() and a write() were stuck in a page fault");
		bad = 1;
	}
	if (is_done(&rd) || is_done(&wr)) {
		vt_fail(T, "read() or write() returned before its fault was served");
		bad = 1;
	}

	/* Serve every fault now, the held ones first. */
	for (int i = 0; i < npend; i++)
		if (serve(pend[i])) {
			vt_fail(T, "UFFDIO_COPY: %s", strerror(errno));
			bad = 1;
		}
	t0 = vt_now();
	while ((!is_done(&rd) || !is_done(&wr) || !is_done(&unb)) && vt_now() - t0 < 30) {
		uint64_t a = next_fault(50);

		if (a && serve(a)) {
			vt_fail(T, "UFFDIO_COPY: %s", strerror(errno));
			bad = 1;
			break;
		}
	}
	if (!is_done(&rd) || !is_done(&wr) || !is_done(&unb)) {
		vt_fail(T, "read() %s, write() %s, unbind %s 30 s after the faults were served",
			is_done(&rd) ? "done" : "stuck", is_done(&wr) ? "done" : "stuck",
			is_done(&unb) ? "done" : "stuck");
		return 1;	/* threads still blocked: nothing more can be checked */
	}
	pthread_join(rd.t, NULL);
	pthread_join(wr.t, NULL);
	pthread_join(unb.t, NULL);
	if (t_unbind >= 0)
		vt_info("unbind took %.2f s with read() and write() stuck in page faults",
			t_unbind);

	if (rd.ret != LEN) {
		vt_fail(T, "read(): %zd (%s), expected %d", rd.ret,
			rd.ret < 0 ? strerror(rd.err) : "short", LEN);
		bad = 1;
	} else if (memcmp(rmem, pat, LEN)) {
		vt_fail(T, "read() across the unbind returned wrong data");
		bad = 1;
	}
	if (wr.ret != -1 || wr.err != ENODEV) {
		vt_fail(T, "write() across the unbind: %zd (%s), expected ENODEV", wr.ret,
			wr.ret < 0 ? strerror(wr.err) : "success");
		bad = 1;
	}
	errno = 0;
	if (pread(fd, pat, 16, 0) != -1 || errno != ENODEV) {
		vt_fail(T, "read after unbind: %s, expected ENODEV", strerror(errno));
		bad = 1;
	}
	if (close(fd)) {
		vt_fail(T, "close: %s", strerror(errno));
		bad = 1;
	}
	close(uffd);
	munmap(area, 2 * LEN);

	if (vt_write_path(drv, "bind", bdf)) {
		vt_fail(T, "bind %s again: %s", bdf, strerror(errno));
		return 1;
	}
	if (vt_find_dev("fdma", dev, sizeof(dev)) || !works()) {
		vt_fail(T, "the device does not work after unbind and bind");
		return 1;
	}
	if (!bad)
		vt_pass(T);
	return bad;
}
