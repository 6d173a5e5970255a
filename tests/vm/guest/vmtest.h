/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the kernel driver's guest tests in tests/vm/guest. Header
 * only: each test is one static binary built from one .c file. A test
 * prints "VMTEST PASS <name>" or "VMTEST FAIL <name>: <why>" per check.
 */
#ifndef FDMA_VMTEST_H
#define FDMA_VMTEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FDMA_KO		"/fdma.ko"
#define FDMA_CLASS	"/sys/class/fdma"

static int vt_failed __attribute__((unused));

/*
 * $FDMA_VM_TAG, if set, is added to every result's name: the same program
 * run against another node (dmac.sh: the dmaengine client's) reports
 * results of its own.
 */
static inline const char *vt_tag(void)
{
	const char *t = getenv("FDMA_VM_TAG");

	return t ? t : "";
}

static inline void vt_pass(const char *name)
{
	printf("VMTEST PASS %s%s\n", name, vt_tag());
	fflush(stdout);
}

static inline void __attribute__((format(printf, 2, 3)))
vt_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("VMTEST FAIL %s%s: ", name, vt_tag());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	vt_failed = 1;
}

static inline void __attribute__((format(printf, 1, 2))) vt_info(const char *fmt, ...)
{
	va_list ap;

	printf("  ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* ---- patterns --------------------------------------------------------------- */

/* Word w of the pattern stream for seed (a mix of both, so shifts show). */
static inline uint64_t vt_word(uint64_t seed, uint64_t w)
{
	uint64_t x = (seed + 1) * 0x9e3779b97f4a7c15ull ^ (w * 0xbf58476d1ce4e5b9ull);

	x ^= x >> 31;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 29;
	return x;
}

/* Byte i of the pattern stream for seed. */
static inline uint8_t vt_byte(uint64_t seed, uint64_t i)
{
	return (uint8_t)(vt_word(seed, i >> 3) >> ((i & 7) * 8));
}

static inline void vt_fill(uint8_t *p, size_t n, uint64_t seed)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w = vt_word(seed, i >> 3);

		for (int b = 0; b < 8; b++)
			p[i + b] = (uint8_t)(w >> (b * 8));
	}
	for (; i < n; i++)
		p[i] = vt_byte(seed, i);
}

/* Index of the first byte that differs from the pattern, or -1. */
static inline long vt_check(const uint8_t *p, size_t n, uint64_t seed)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w = vt_word(seed, i >> 3);

		for (int b = 0; b < 8; b++)
			if (p[i + b] != (uint8_t)(w >> (b * 8)))
				return (long)(i + b);
	}
	for (; i < n; i++)
		if (p[i] != vt_byte(seed, i))
			return (long)i;
	return -1;
}

/* ---- files ----------------------------------------------------------------- */

static inline int vt_read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

/* Write a string to a sysfs file; 0 or -errno of the write. */
static inline int vt_write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : 0;
	close(fd);
	return (int)n;
}

static inline long long vt_read_ll(const char *path)
{
	char buf[64];

	if (vt_read_str(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 0);
}

/* /sys/class/fdma/<dev>/<attr> */
static inline long long vt_attr_ll(const char *dev, const char *attr)
{
	char p[256];

	snprintf(p, sizeof(p), FDMA_CLASS "/%s/%s", dev, attr);
	return vt_read_ll(p);
}

static inline int vt_attr_str(const char *dev, const char *attr, char *buf, size_t len)
{
	char p[256];

	snprintf(p, sizeof(p), FDMA_CLASS "/%s/%s", dev, attr);
	return vt_read_str(p, buf, len);
}

static inline int vt_attr_write(const char *dev, const char *attr, const char *val)
{
	char p[256];

	snprintf(p, sizeof(p), FDMA_CLASS "/%s/%s", dev, attr);
	return vt_write_str(p, val);
}

/*
 * Name of the first device in /sys/class/fdma whose name starts with prefix
 * followed by a digit ("fdma" finds fdma0, not fdma-edu0). 0 or -ENOENT.
 */
static inline int vt_find_dev(const char *prefix, char *name, size_t len)
{
	DIR *d = opendir(FDMA_CLASS);
	struct dirent *e;
	size_t pl = strlen(prefix);
	int ret = -ENOENT;

	if (!d)
		return -ENOENT;
	while ((e = readdir(d))) {
		if (!strncmp(e->d_name, prefix, pl) && strlen(e->d_name) < len &&
		    e->d_name[pl] >= '0' && e->d_name[pl] <= '9') {
			memcpy(name, e->d_name, strlen(e->d_name) + 1);
			ret = 0;
			break;
		}
	}
	closedir(d);
	return ret;
}

/* Wait up to ms for /dev/<name> and open it. */
static inline int vt_open_dev(const char *name, int flags, int ms)
{
	char p[128];
	int fd = -1;

	snprintf(p, sizeof(p), "/dev/%s", name);
	for (int i = 0; i <= ms / 10; i++) {
		fd = open(p, flags);
		if (fd >= 0 || errno != ENOENT)
			break;
		usleep(10000);
	}
	return fd;
}

/*
 * Find the first fdma device, name it in dev and open it read-write.
 * Returns the fd, or -1 after reporting the failure under test t.
 */
static inline int vt_open_fdma(const char *t, char *dev, size_t len)
{
	int fd;

	if (vt_find_dev("fdma", dev, len)) {
		vt_fail(t, "no fdma device in " FDMA_CLASS);
		return -1;
	}
	fd = vt_open_dev(dev, O_RDWR, 2000);
	if (fd < 0)
		vt_fail(t, "open /dev/%s: %s", dev, strerror(errno));
	return fd;
}

/* ---- PCI -------------------------------------------------------------------- */

/* The PCI address (BDF) of class device dev (fdma0, fdma-edu0): 0, or -1 with errno. */
static inline int vt_bdf(const char *dev, char *bdf, size_t len)
{
	char link[300], target[300];
	ssize_t n;

	snprintf(link, sizeof(link), FDMA_CLASS "/%s/device", dev);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return -1;
	target[n] = 0;
	snprintf(bdf, len, "%s", strrchr(target, '/') + 1);
	return 0;
}

/*
 * The sysfs directory of the driver bound to PCI function bdf
 * (/sys/bus/pci/drivers/fdma, or fdma_xdma for an XDMA function), for
 * unbind and bind; 0, or -1 if none is bound.
 */
static inline int vt_drv_dir(const char *bdf, char *dir, size_t len)
{
	char link[300], target[300];
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/driver", bdf);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return -1;
	target[n] = 0;
	snprintf(dir, len, "/sys/bus/pci/drivers/%s", strrchr(target, '/') + 1);
	return 0;
}

/* Write val to the file name in directory dir (a driver's bind or unbind). */
static inline int vt_write_path(const char *dir, const char *name, const char *val)
{
	char path[320];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return vt_write_str(path, val);
}

/* sysfs directory of the first PCI device vendor:device; 0 or -ENOENT. */
static inline int vt_pci_find(unsigned int vendor, unsigned int device, char *path, size_t len)
{
	const char *base = "/sys/bus/pci/devices";
	DIR *d = opendir(base);
	struct dirent *e;
	int ret = -ENOENT;

	if (!d)
		return ret;
	while ((e = readdir(d))) {
		char p[256];

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%.64s/vendor", base, e->d_name);
		if (vt_read_ll(p) != vendor)
			continue;
		snprintf(p, sizeof(p), "%s/%.64s/device", base, e->d_name);
		if (vt_read_ll(p) != device)
			continue;
		snprintf(path, len, "%s/%.64s", base, e->d_name);
		ret = 0;
		break;
	}
	closedir(d);
	return ret;
}

/* One byte of a PCI function's configuration space, or -errno. */
static inline int vt_pci_cfg8(const char *devpath, unsigned int off)
{
	char p[300];
	uint8_t b;
	int fd;
	ssize_t n;

	snprintf(p, sizeof(p), "%s/config", devpath);
	fd = open(p, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = pread(fd, &b, 1, off);
	close(fd);
	return n == 1 ? b : -EIO;
}

/* ---- modules and the kernel log ------------------------------------------- */

static inline int vt_insmod(const char *params)
{
	int fd = open(FDMA_KO, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = (int)syscall(SYS_finit_module, fd, params, 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

static inline int vt_rmmod(int flags)
{
	return syscall(SYS_delete_module, "fdma", flags) ? -errno : 0;
}

static inline int vt_module_loaded(void)
{
	struct stat st;

	return stat("/sys/module/fdma", &st) == 0;
}

/* Does the kernel log contain needle? 1, 0, or -errno. */
static inline int vt_dmesg_has(const char *needle)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	char rec[2048];
	int found = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);

		if (n < 0) {
			if (errno == EPIPE)	/* overwritten record: go on */
				continue;
			break;
		}
		rec[n] = 0;
		if (strstr(rec, needle)) {
			found = 1;
			break;
		}
	}
	close(fd);
	return found;
}

/* A buffer of len bytes followed by an inaccessible guard page. */
static inline uint8_t *vt_guarded(size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t span = (len + pg - 1) / pg * pg;
	uint8_t *p = mmap(NULL, span + pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + span, pg, PROT_NONE)) {
		munmap(p, span + pg);
		return NULL;
	}
	/* The buffer ends exactly at the guard page. */
	return p + span - len;
}

/*
 * pread()/pwrite() straight to the kernel, for deliberately bad arguments
 * (NULL, sizes beyond any object) that the C library's annotations reject.
 */
static inline ssize_t vt_pread(int fd, void *buf, size_t n, off_t off)
{
	return syscall(SYS_pread64, fd, buf, n, off);
}

static inline ssize_t vt_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return syscall(SYS_pwrite64, fd, buf, n, off);
}

static inline double vt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif /* FDMA_VMTEST_H */
