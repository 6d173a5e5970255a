// SPDX-License-Identifier: MIT
/*
 * edu_unbind_fault: remove() of the edu device must not wait for a read()
 * whose copy to user memory is stuck in a page fault.
 *
 * A read() of /dev/fdma-edu0 into userfaultfd memory (a missing page)
 * faults in the driver's copy_to_user() and waits there for this program.
 * The edu device is unbound meanwhile: the unbind must finish while the
 * read still waits (the driver before this test copied under the lock
 * remove() takes, so the unbind waited for as long as the fault lasted).
 * Then the fault is served, the read returns its bytes, and the device,
 * bound again, works.
 */
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>

#include "vmtest.h"

#define LEN	4000

static const char *T = "edu_unbind_fault";
static char dev[64], bdf[64];
static int fd = -1;
static uint8_t *area;
static volatile int rd_done, unb_done;
static ssize_t rd_ret;
static int unb_ret;

static void *do_read(void *arg)
{
	(void)arg;
	rd_ret = pread(fd, area, LEN, 0);
	__atomic_store_n(&rd_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *do_unbind(void *arg)
{
	(void)arg;
	unb_ret = vt_write_str("/sys/bus/pci/drivers/fdma-edu/unbind", bdf);
	__atomic_store_n(&unb_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int main(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	static uint8_t page[4096] __attribute__((aligned(4096)));
	uint8_t pat[LEN];
	pthread_t rt, ut;
	struct pollfd p;
	struct uffd_msg m;
	double t0, t_unbind = -1;
	int uffd, bad = 0;

	if (vt_find_dev("fdma-edu", dev, sizeof(dev))) {
		vt_fail(T, "no fdma-edu device in " FDMA_CLASS);
		return 1;
	}
	if (vt_bdf(dev, bdf, sizeof(bdf))) {
		vt_fail(T, "no PCI function behind " FDMA_CLASS "/%s: %s", dev, strerror(errno));
		return 1;
	}
	fd = vt_open_dev(dev, O_RDWR, 2000);
	vt_fill(pat, LEN, 55);
	if (fd < 0 || pwrite(fd, pat, LEN, 0) != LEN) {
		vt_fail(T, "open and pwrite /dev/%s: %s", dev, strerror(errno));
		return 1;
	}
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	area = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg.range.start = (uintptr_t)area;
	reg.range.len = 4096;
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) || area == MAP_FAILED ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		vt_fail(T, "userfaultfd: %s", strerror(errno));
		return 1;
	}

	pthread_create(&rt, NULL, do_read, NULL);
	p = (struct pollfd){ .fd = uffd, .events = POLLIN };
	if (poll(&p, 1, 20000) != 1 || read(uffd, &m, sizeof(m)) != sizeof(m)) {
		vt_fail(T, "the read did not fault on the userfaultfd memory (done %d: %zd)",
			rd_done, rd_ret);
		return 1;
	}
	t0 = vt_now();
	pthread_create(&ut, NULL, do_unbind, NULL);
	while (!__atomic_load_n(&unb_done, __ATOMIC_ACQUIRE) && vt_now() - t0 < 10)
		usleep(10000);
	if (unb_done)
		t_unbind = vt_now() - t0;
	else {
		vt_fail(T, "unbind did not finish in 10 s while a read() was stuck in a page fault");
		bad = 1;
	}
	if (rd_done) {
		vt_fail(T, "read() returned before its fault was served");
		bad = 1;
	}
	/* Serve the fault: the read finishes, and the unbind if it waited. */
	memset(page, 0, sizeof(page));
	{
		struct uffdio_copy c = { .dst = (uintptr_t)area, .src = (uintptr_t)page,
					 .len = 4096 };

		ioctl(uffd, UFFDIO_COPY, &c);
	}
	pthread_join(rt, NULL);
	pthread_join(ut, NULL);
	if (unb_ret) {
		vt_fail(T, "unbind: %s", strerror(-unb_ret));
		bad = 1;
	}
	if (rd_ret != LEN || memcmp(area, pat, LEN)) {
		vt_fail(T, "the read across the unbind: %zd bytes%s", rd_ret,
			rd_ret == LEN ? ", wrong" : "");
		bad = 1;
	}
	close(fd);
	if (vt_write_str("/sys/bus/pci/drivers/fdma-edu/bind", bdf) ||
	    vt_find_dev("fdma-edu", dev, sizeof(dev))) {
		vt_fail(T, "bind %s again: %s", bdf, strerror(errno));
		return 1;
	}
	fd = vt_open_dev(dev, O_RDWR, 2000);
	vt_fill(pat, 64, 56);
	if (fd < 0 || pwrite(fd, pat, 64, 100) != 64 || pread(fd, page, 64, 100) != 64 ||
	    memcmp(pat, page, 64)) {
		vt_fail(T, "edu does not work after binding again");
		bad = 1;
	}
	if (fd >= 0)
		close(fd);
	if (!bad) {
		vt_info("unbind took %.2f s with a read() stuck in a page fault", t_unbind);
		vt_pass(T);
	}
	return bad;
}
