// SPDX-License-Identifier: MIT
/*
 * Teardown while the device is in use.
 *
 * rmmod_open: rmmod while a process holds /dev/fdmaN open is refused
 * (EBUSY/EWOULDBLOCK: the open file holds the module), and the device
 * keeps working.
 *
 * unbind_inflight: unbinding the PCI device (the driver's remove()) while
 * two processes are moving data through it and a third just holds it open:
 * remove() waits for the transfers in flight, stops the channels and
 * returns; the processes then get ENODEV, never wrong data, and can still
 * close their files. Binding again gives a working device.
 *
 * kill_inflight: processes killed (SIGKILL) in the middle of large
 * transfers, many times; the device works afterwards.
 */
#include <signal.h>

#include "vmtest.h"

static char dev[64];

/* Move data until an error; exit 0 on ENODEV, 1 on wrong data or another error. */
static void mover(int fd, int c2h, uint64_t off)
{
	size_t len = 4 << 20;
	uint8_t *a = malloc(len), *b = malloc(len);

	if (!a || !b)
		_exit(3);
	vt_fill(a, len, off);
	for (int k = 0; ; k++) {
		ssize_t n = c2h ? pread(fd, b, len, off) : pwrite(fd, a, len, off);

		if (n < 0) {
			if (errno == ENODEV)
				_exit(0);
			vt_info("%s: %s", c2h ? "pread" : "pwrite", strerror(errno));
			_exit(1);
		}
		if (n != (ssize_t)len) {
			/* Cut short by remove(): the next call must say ENODEV. */
			if (n == 0 || (c2h && k > 0 && memcmp(a, b, n)))
				_exit(4);
			continue;
		}
		if (c2h && k > 0 && memcmp(a, b, len))
			_exit(5);
		/* A short write is remove() cutting it: the next call says ENODEV. */
		if (c2h && k == 0 && pwrite(fd, a, len, off) < 0) {
			if (errno == ENODEV)
				_exit(0);
			vt_info("seeding pwrite: %s", strerror(errno));
			_exit(6);
		}
	}
}

static int works(void)
{
	uint8_t a[8192], b[8192];
	int fd = vt_open_dev(dev, O_RDWR, 2000), ok;

	if (fd < 0)
		return 0;
	vt_fill(a, sizeof(a), 1234);
	ok = pwrite(fd, a, sizeof(a), 4099) == sizeof(a) &&
	     pread(fd, b, sizeof(b), 4099) == sizeof(b) && !memcmp(a, b, sizeof(a));
	close(fd);
	return ok;
}

static void rmmod_open(void)
{
	const char *T = "rmmod_open";
	int fd = vt_open_dev(dev, O_RDWR, 2000), ret;

	if (fd < 0) {
		vt_fail(T, "open /dev/%s: %s", dev, strerror(errno));
		return;
	}
	ret = vt_rmmod(O_NONBLOCK);
	if (ret != -EWOULDBLOCK && ret != -EBUSY)
		vt_fail(T, "rmmod with /dev/%s open: %s, expected EBUSY or EWOULDBLOCK",
			dev, ret ? strerror(-ret) : "unloaded");
	else if (!vt_module_loaded() || !works())
		vt_fail(T, "the device does not work after the refused rmmod");
	else
		vt_info("rmmod with /dev/%s open: %s", dev, strerror(-ret));
	close(fd);
	if (!vt_failed)
		vt_pass(T);
}

static void unbind_inflight(void)
{
	const char *T = "unbind_inflight";
	char bdf[64], drv[300], path[300], buf[64];
	int fd, idle, status, bad = 0;
	pid_t pid[2];

	if (vt_bdf(dev, bdf, sizeof(bdf)) || vt_drv_dir(bdf, drv, sizeof(drv))) {
		vt_fail(T, "no PCI function behind " FDMA_CLASS "/%s: %s", dev, strerror(errno));
		return;
	}

	fd = vt_open_dev(dev, O_RDWR, 2000);
	idle = vt_open_dev(dev, O_RDONLY, 2000);
	if (fd < 0 || idle < 0) {
		vt_fail(T, "open /dev/%s: %s", dev, strerror(errno));
		return;
	}
	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			mover(fd, i, (uint64_t)(16 + 8 * i) << 20);
	}
	usleep(300000);
	if (vt_write_path(drv, "unbind", bdf)) {
		vt_fail(T, "unbind %s: %s", bdf, strerror(errno));
		bad = 1;
	}
	for (int i = 0; i < 2; i++) {
		waitpid(pid[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			vt_fail(T, "%s process: status 0x%x (1: an error other than ENODEV, 4: a wrong short transfer, 5: wrong data, 6: the seeding write failed)",
				i ? "C2H" : "H2C", status);
			bad = 1;
		}
	}
	errno = 0;
	if (pread(idle, buf, 16, 0) != -1 || errno != ENODEV) {
		vt_fail(T, "read on a file open across the unbind: %s, expected ENODEV",
			strerror(errno));
		bad = 1;
	}
	if (close(fd) || close(idle)) {
		vt_fail(T, "close after unbind: %s", strerror(errno));
		bad = 1;
	}
	snprintf(path, sizeof(path), "/dev/%s", dev);
	if (access(path, F_OK) == 0 && vt_find_dev("fdma", buf, sizeof(buf)) != 0) {
		vt_fail(T, "%s still exists after unbind", path);
		bad = 1;
	}
	if (vt_write_path(drv, "bind", bdf)) {
		vt_fail(T, "bind %s again: %s", bdf, strerror(errno));
		return;
	}
	if (vt_find_dev("fdma", dev, sizeof(dev)) || !works()) {
		vt_fail(T, "the device does not work after unbind and bind");
		return;
	}
	if (!bad)
		vt_pass(T);
}

static void kill_inflight(void)
{
	const char *T = "kill_inflight";
	long long r0 = vt_attr_ll(dev, "ch0/resets") + vt_attr_ll(dev, "ch1/resets");
	/* The upper half of card memory, whatever its size (the RTL has 64 MiB). */
	uint64_t base = (uint64_t)vt_attr_ll(dev, "card_size") / 2;
	int fd = vt_open_dev(dev, O_RDWR, 2000);

	if (fd < 0) {
		vt_fail(T, "open /dev/%s: %s", dev, strerror(errno));
		return;
	}
	for (int round = 0; round < 10; round++) {
		pid_t pid[2];

		for (int i = 0; i < 2; i++) {
			pid[i] = fork();
			if (pid[i] == 0)
				mover(fd, i, base + ((uint64_t)(8 * i) << 20));
		}
		usleep(20000 + round * 17000);
		for (int i = 0; i < 2; i++) {
			int status;

			kill(pid[i], SIGKILL);
			waitpid(pid[i], &status, 0);
			if (!WIFSIGNALED(status) && (!WIFEXITED(status) || WEXITSTATUS(status)))
				vt_fail(T, "round %d: process %d ended with status 0x%x", round, i,
					status);
		}
	}
	close(fd);
	vt_info("10 rounds of SIGKILL during 4 MiB transfers: %lld channel resets (aborted transfers)",
		vt_attr_ll(dev, "ch0/resets") + vt_attr_ll(dev, "ch1/resets") - r0);
	if (!works())
		vt_fail(T, "the device does not work after the kills");
	else if (!vt_failed)
		vt_pass(T);
}

int main(void)
{
	if (vt_find_dev("fdma", dev, sizeof(dev))) {
		vt_fail("rmmod_open", "no fdma device in " FDMA_CLASS);
		return 1;
	}
	rmmod_open();
	kill_inflight();
	unbind_inflight();
	return vt_failed;
}
