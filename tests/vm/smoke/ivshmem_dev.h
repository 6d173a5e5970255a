/* SPDX-License-Identifier: MIT */
/*
 * Guest side, no driver: find QEMU's ivshmem device (1af4:1110) in sysfs and
 * map its BARs through /sys/bus/pci/devices/X/resourceN. Header-only so
 * every smoke program stays one static binary built from one .c file.
 */
#ifndef FDMA_VM_IVSHMEM_DEV_H
#define FDMA_VM_IVSHMEM_DEV_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define IVSHMEM_VENDOR		0x1af4
#define IVSHMEM_DEVICE		0x1110
#define IVSHMEM_REG_IVPOSITION	8	/* BAR0: our peer id */
#define IVSHMEM_REG_DOORBELL	12	/* BAR0: peer << 16 | vector */
#define IVSHMEM_MODEL_PEER	1	/* fdma-modeld's peer id */

struct ivdev {
	char path[256];			/* /sys/bus/pci/devices/0000:00:03.0 */
	volatile uint32_t *bar0;	/* ivshmem registers */
	volatile uint32_t *bar2;	/* the FDMA register file (first 4 KiB) */
	size_t bar2_len;
};

static inline long ivdev_read_hex(const char *dir, const char *name)
{
	char p[320], buf[32];
	FILE *f;
	long v = -1;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 16);
	fclose(f);
	return v;
}

/* Find the device; why says what is wrong when it returns -1. */
static inline int ivdev_find(struct ivdev *d, char *why, size_t whylen)
{
	const char *base = "/sys/bus/pci/devices";
	DIR *dir = opendir(base);
	struct dirent *e;

	memset(d, 0, sizeof(*d));
	if (!dir) {
		snprintf(why, whylen, "cannot open %s: %s", base, strerror(errno));
		return -1;
	}
	while ((e = readdir(dir))) {
		char p[256];

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", base, e->d_name);
		if (ivdev_read_hex(p, "vendor") == IVSHMEM_VENDOR &&
		    ivdev_read_hex(p, "device") == IVSHMEM_DEVICE) {
			snprintf(d->path, sizeof(d->path), "%s", p);
			closedir(dir);
			return 0;
		}
	}
	closedir(dir);
	snprintf(why, whylen, "no PCI device %04x:%04x in %s (QEMU without -device ivshmem-doorbell?)",
		 IVSHMEM_VENDOR, IVSHMEM_DEVICE, base);
	return -1;
}

/* Name of the bound driver, or NULL if none. */
static inline const char *ivdev_driver(const struct ivdev *d)
{
	static char name[128];
	char p[320], t[256];
	ssize_t n;

	snprintf(p, sizeof(p), "%s/driver", d->path);
	n = readlink(p, t, sizeof(t) - 1);
	if (n < 0)
		return NULL;
	t[n] = 0;
	snprintf(name, sizeof(name), "%s", strrchr(t, '/') ? strrchr(t, '/') + 1 : t);
	return name;
}

/* Make sure the device decodes memory (the firmware normally did it). */
static inline void ivdev_enable(const struct ivdev *d)
{
	char p[320];
	uint16_t cmd = 0;
	int fd;

	snprintf(p, sizeof(p), "%s/config", d->path);
	fd = open(p, O_RDONLY);
	if (fd >= 0) {
		if (pread(fd, &cmd, 2, 4) != 2)
			cmd = 0;
		close(fd);
	}
	if (cmd & 2)
		return;
	snprintf(p, sizeof(p), "%s/enable", d->path);
	fd = open(p, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1", 1) < 0) {
		}
		close(fd);
	}
}

static inline void *ivdev_map(const struct ivdev *d, int bar, size_t *len, char *why, size_t whylen)
{
	char p[320];
	struct stat st;
	void *m;
	int fd;

	snprintf(p, sizeof(p), "%s/resource%d", d->path, bar);
	fd = open(p, O_RDWR | O_SYNC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(why, whylen, "cannot open %s: %s", p, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	*len = st.st_size < 4096 ? 4096 : (size_t)st.st_size;
	m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(why, whylen, "cannot mmap %s: %s", p, strerror(errno));
		return NULL;
	}
	return m;
}

/* Find, enable and map both BARs. */
static inline int ivdev_open(struct ivdev *d, char *why, size_t whylen)
{
	size_t len0;

	if (ivdev_find(d, why, whylen))
		return -1;
	ivdev_enable(d);
	d->bar0 = ivdev_map(d, 0, &len0, why, whylen);
	if (!d->bar0)
		return -1;
	d->bar2 = ivdev_map(d, 2, &d->bar2_len, why, whylen);
	if (!d->bar2)
		return -1;
	return 0;
}

static inline uint32_t ivdev_rd(const struct ivdev *d, uint32_t off)
{
	return __atomic_load_n(&d->bar2[off / 4], __ATOMIC_ACQUIRE);
}

static inline void ivdev_wr(const struct ivdev *d, uint32_t off, uint32_t v)
{
	__atomic_store_n(&d->bar2[off / 4], v, __ATOMIC_RELEASE);
}

/* Wake the model's channel ch: the ivshmem doorbell, peer 1, vector ch. */
static inline void ivdev_kick(const struct ivdev *d, unsigned int ch)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	d->bar0[IVSHMEM_REG_DOORBELL / 4] = (uint32_t)IVSHMEM_MODEL_PEER << 16 | (ch & 0xffff);
}

static inline double ivdev_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

#endif
