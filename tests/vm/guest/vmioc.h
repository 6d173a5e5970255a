/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the guest tests of fdma.ko's ioctl interface
 * (include/fdma_ioctl.h): open a device, map completion queues and
 * buffers, submit, reap from the mapped queue, read the driver's counters.
 */
#ifndef FDMA_VMIOC_H
#define FDMA_VMIOC_H

#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>

#include "fdma.h"
#include "fdma_ioctl.h"
#include "vmtest.h"

struct vi_cq {
	struct fdma_cq_hdr *hdr;
	struct fdma_cq_entry *ent;
	size_t bytes;
};

struct vi_dev {
	int fd;
	char name[64];
	/*
	 * info.align is the alignment of host memory here: the driver's
	 * dma_align where it is larger (arm64 6.1: a 128-byte DMA cache line);
	 * engine_align is the engine's own.
	 */
	struct fdma_ioc_info info;
	uint32_t engine_align;
	struct vi_cq cq[FDMA_IOC_MAX_CHAN];
	int h2c, c2h, c2h_stream, h2c_stream;	/* channels, -1 if none */
	int mem;				/* the first memory-to-memory channel, or -1 */
};

struct vi_buf {
	uint32_t handle;
	uint8_t *p;		/* user address */
	size_t size;
	uint64_t mmap_offset;	/* allocated buffers */
	void *raw;		/* registered: what to free() */
};

static inline size_t vi_cq_bytes(const struct vi_dev *d)
{
	return (size_t)FDMA_CQ_MMAP_BYTES(d->info.cq_entries);
}

/*
 * Open /dev/<name> (if name is NULL: $FDMA_VM_DEV, which dmac.sh sets to
 * the dmaengine client's node, else the first fdma device) and read INFO.
 */
static inline int vi_open(struct vi_dev *d, const char *name)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if (!name)
		name = getenv("FDMA_VM_DEV");
	if (name)
		snprintf(d->name, sizeof(d->name), "%s", name);
	else if (vt_find_dev("fdma", d->name, sizeof(d->name)))
		return -ENOENT;
	d->fd = vt_open_dev(d->name, O_RDWR, 2000);
	if (d->fd < 0)
		return -errno;
	if (ioctl(d->fd, FDMA_IOC_INFO, &d->info)) {
		int e = errno;

		close(d->fd);
		d->fd = -1;
		return -e;
	}
	d->engine_align = d->info.align;
	if ((d->info.features & FDMA_FEAT_DMA_ALIGN) && d->info.dma_align > d->info.align)
		d->info.align = d->info.dma_align;
	d->h2c = d->c2h = d->c2h_stream = d->h2c_stream = d->mem = -1;
	for (unsigned int ch = 0; ch < d->info.nchan; ch++) {
		uint32_t c = d->info.chan_caps[ch];
		int *slot = (c & FDMA_IOC_CAP_MEM2MEM) ? &d->mem :
			    (c & 2) ? ((c & 1) ? &d->c2h_stream : &d->h2c_stream)
				    : ((c & 1) ? &d->c2h : &d->h2c);

		if (*slot < 0)
			*slot = (int)ch;
	}
	return 0;
}

static inline void vi_close(struct vi_dev *d)
{
	for (int ch = 0; ch < FDMA_IOC_MAX_CHAN; ch++)
		if (d->cq[ch].hdr)
			munmap(d->cq[ch].hdr, d->cq[ch].bytes);
	if (d->fd >= 0)
		close(d->fd);
	memset(d->cq, 0, sizeof(d->cq));
	d->fd = -1;
}

/* Map the completion queue of channel ch; 0 or -errno. */
static inline int vi_cq_map(struct vi_dev *d, int ch)
{
	struct vi_cq *q = &d->cq[ch];
	void *p;

	if (q->hdr)
		return 0;
	q->bytes = vi_cq_bytes(d);
	p = mmap(NULL, q->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd,
		 (off_t)FDMA_CQ_MMAP_OFFSET(ch));
	if (p == MAP_FAILED)
		return -errno;
	q->hdr = p;
	q->ent = (struct fdma_cq_entry *)((char *)p + FDMA_CQ_ENTRIES_OFFSET);
	return 0;
}

/* Entries ready in the mapped queue (no system call). */
static inline uint32_t vi_cq_ready(const struct vi_dev *d, int ch)
{
	const struct vi_cq *q = &d->cq[ch];

	return __atomic_load_n(&q->hdr->tail, __ATOMIC_ACQUIRE) - q->hdr->head;
}

/* Take up to max entries from the mapped queue; returns how many. */
static inline int vi_cq_take(struct vi_dev *d, int ch, struct fdma_cq_entry *out, int max)
{
	struct vi_cq *q = &d->cq[ch];
	uint32_t head = q->hdr->head;
	uint32_t tail = __atomic_load_n(&q->hdr->tail, __ATOMIC_ACQUIRE);
	int n = 0;

	while (head != tail && n < max) {
		if (out)
			out[n] = q->ent[head & q->hdr->mask];
		head++;
		n++;
	}
	__atomic_store_n(&q->hdr->head, head, __ATOMIC_RELEASE);
	return n;
}

/* Allocate a driver buffer and map it; 0 or -errno. */
static inline int vi_alloc(struct vi_dev *d, size_t size, struct vi_buf *b)
{
	struct fdma_ioc_buf_alloc a = { .size = size };
	void *p;

	memset(b, 0, sizeof(*b));
	if (ioctl(d->fd, FDMA_IOC_BUF_ALLOC, &a))
		return -errno;
	p = mmap(NULL, a.size, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd,
		 (off_t)a.mmap_offset);
	if (p == MAP_FAILED) {
		int e = errno;

		ioctl(d->fd, FDMA_IOC_BUF_FREE, &a.handle);
		return -e;
	}
	b->handle = a.handle;
	b->p = p;
	b->size = a.size;
	b->mmap_offset = a.mmap_offset;
	return 0;
}

/*
 * Register size bytes of malloc'ed memory starting skew bytes past a page
 * boundary, skew rounded up to the device's alignment; 0 or -errno.
 */
static inline int vi_register(struct vi_dev *d, size_t size, size_t skew, struct vi_buf *b)
{
	struct fdma_ioc_buf_reg r = { 0 };
	uint8_t *raw;

	skew = (skew + d->info.align - 1) / d->info.align * d->info.align;
	memset(b, 0, sizeof(*b));
	raw = malloc(size + skew + 8192);
	if (!raw)
		return -ENOMEM;
	b->raw = raw;
	b->p = (uint8_t *)(((uintptr_t)raw + 4095) & ~(uintptr_t)4095) + skew;
	b->size = size;
	r.addr = (uintptr_t)b->p;
	r.size = size;
	if (ioctl(d->fd, FDMA_IOC_BUF_REGISTER, &r)) {
		int e = errno;

		free(raw);
		b->raw = NULL;
		return -e;
	}
	b->handle = r.handle;
	return 0;
}

/* FDMA_IOC_BUF_ALLOC without mapping; the handle or -errno. */
static inline long vi_alloc_raw(struct vi_dev *d, size_t size)
{
	struct fdma_ioc_buf_alloc a = { .size = size };

	if (ioctl(d->fd, FDMA_IOC_BUF_ALLOC, &a))
		return -errno;
	return a.handle;
}

static inline int vi_free_raw(struct vi_dev *d, uint32_t h)
{
	return ioctl(d->fd, FDMA_IOC_BUF_FREE, &h) ? -errno : 0;
}

static inline int vi_free(struct vi_dev *d, struct vi_buf *b)
{
	int ret = ioctl(d->fd, FDMA_IOC_BUF_FREE, &b->handle) ? -errno : 0;

	if (!ret) {
		if (b->raw)
			free(b->raw);
		else if (b->p)
			munmap(b->p, b->size);
		memset(b, 0, sizeof(*b));
	}
	return ret;
}

static inline int vi_submit(struct vi_dev *d, int ch, const struct fdma_ioc_req *r, uint32_t n)
{
	struct fdma_ioc_submit s = { .chan = (uint32_t)ch, .count = n, .reqs = (uintptr_t)r };

	return ioctl(d->fd, FDMA_IOC_SUBMIT, &s) ? -errno : 0;
}

static inline int vi_copy(struct vi_dev *d, int ch, const struct fdma_ioc_copy *c, uint32_t n)
{
	struct fdma_ioc_copy_submit s = { .chan = (uint32_t)ch, .count = n,
					  .copies = (uintptr_t)c };

	return ioctl(d->fd, FDMA_IOC_COPY, &s) ? -errno : 0;
}

/* FDMA_IOC_WAIT; *ready (if not NULL) gets the queued count. */
static inline int vi_wait(struct vi_dev *d, int ch, uint32_t min, int64_t timeout_us,
			  uint32_t *ready)
{
	struct fdma_ioc_wait w = { .chan = (uint32_t)ch, .min_entries = min,
				   .timeout_us = timeout_us };
	int ret = ioctl(d->fd, FDMA_IOC_WAIT, &w) ? -errno : 0;

	if (ready)
		*ready = w.ready;
	return ret;
}

/* Wait for n entries and take them; 0 or -errno. */
static inline int vi_collect(struct vi_dev *d, int ch, struct fdma_cq_entry *out, int n,
			     int64_t timeout_us)
{
	int got = 0;

	while (got < n) {
		int ret = vi_wait(d, ch, (uint32_t)(n - got), timeout_us, NULL);

		got += vi_cq_take(d, ch, out ? out + got : NULL, n - got);
		if (ret && got < n)
			return ret;
	}
	return 0;
}

static inline int vi_stats(struct vi_dev *d, int ch, struct fdma_ioc_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->chan = (uint32_t)ch;
	return ioctl(d->fd, FDMA_IOC_STATS, st) ? -errno : 0;
}

static inline int vi_coalesce(struct vi_dev *d, int ch, uint32_t count, uint32_t usecs)
{
	struct fdma_ioc_coalesce c = { .chan = (uint32_t)ch, .count = count, .usecs = usecs };

	return ioctl(d->fd, FDMA_IOC_COALESCE, &c) ? -errno : 0;
}

static inline int vi_reset(struct vi_dev *d, int ch)
{
	uint32_t c = (uint32_t)ch;

	return ioctl(d->fd, FDMA_IOC_CHAN_RESET, &c) ? -errno : 0;
}

/* Device-wide leak counters from sysfs. */
static inline long long vi_pinned(const char *dev)
{
	return vt_attr_ll(dev, "pinned_pages");
}

static inline long long vi_nbufs(const char *dev)
{
	return vt_attr_ll(dev, "buffers");
}

/*
 * Check that a batch came back complete: n entries, each res 0 and len
 * as asked, user_data base..base+n-1 each exactly once. Returns 0 or
 * describes the first problem in why.
 */
static inline int vi_check_cpl(const struct fdma_cq_entry *e, int n, uint64_t base,
			       uint64_t len, char *why, size_t whylen)
{
	static unsigned char seen[4096];

	if (n > (int)sizeof(seen)) {
		snprintf(why, whylen, "too many entries");
		return -1;
	}
	memset(seen, 0, (size_t)n);
	for (int i = 0; i < n; i++) {
		uint64_t k = e[i].user_data - base;

		if (e[i].res || e[i].status) {
			snprintf(why, whylen, "entry %d (user_data %llu): res %d (%s), status %u", i,
				 (unsigned long long)e[i].user_data, e[i].res, strerror(-e[i].res),
				 e[i].status);
			return -1;
		}
		if (k >= (uint64_t)n || seen[k]) {
			snprintf(why, whylen, "entry %d: unexpected user_data %llu", i,
				 (unsigned long long)e[i].user_data);
			return -1;
		}
		seen[k] = 1;
		if (len && e[i].len != len) {
			snprintf(why, whylen, "entry %d: len %llu, expected %llu", i,
				 (unsigned long long)e[i].len, (unsigned long long)len);
			return -1;
		}
	}
	return 0;
}

/* ---- the PCI function, debugfs, the device model's test block ----------- */

#define VI_DEBUGFS	"/sys/kernel/debug/fdma"

/* User pages pinned by the driver, all devices (debugfs), or -1. */
/* VmLck of this process in bytes, or -1. */
static inline long vi_vmlck(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb * 1024L;
}

/*
 * VmLck once it is want, or after 3 s: a charge whose buffer went with
 * munmap() comes back from the driver's work item, not at once.
 */
static inline long vi_vmlck_wait(long want)
{
	long v = vi_vmlck();

	for (int i = 0; i < 300 && v != want; i++) {
		usleep(10000);
		v = vi_vmlck();
	}
	return v;
}

static inline long long vi_pinned_total(void)
{
	return vt_read_ll(VI_DEBUGFS "/pinned_pages");
}

/*
 * Tell the device model (the VM's FDMA engine) through the driver's
 * debugfs: "fault KIND CHAN AT" or "pace on|off|cfg". 0 or -errno.
 */
static inline int vi_model(const char *dev, const char *cmd)
{
	char path[128];

	snprintf(path, sizeof(path), VI_DEBUGFS "/%s/model", dev);
	return vt_write_str(path, cmd);
}

/* One of the model's counters (faults, refused, rogue_writes, ...), or -1. */
static inline long long vi_model_ctr(const char *dev, const char *name)
{
	char path[128], line[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), VI_DEBUGFS "/%s/model", dev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(name);

		if (!strncmp(line, name, n) && line[n] == ' ')
			v = atoll(line + n + 1);
	}
	fclose(f);
	return v;
}

/* Arm a fault on channel ch at its at-th descriptor from now; 0 or -errno. */
static inline int vi_fault(const char *dev, const char *kind, int ch, unsigned int at)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "fault %s %d %u", kind, ch, at);
	return vi_model(dev, cmd);
}

static char vi_drv[300] __attribute__((unused)) = "/sys/bus/pci/drivers/fdma";

static inline int vi_unbind(const char *bdf)
{
	/* fdma or fdma_xdma: whichever has it, to bind it there again. */
	vt_drv_dir(bdf, vi_drv, sizeof(vi_drv));
	return vt_write_path(vi_drv, "unbind", bdf);
}

/* Bind bdf again (to the driver vi_unbind() took it from) and find its device name; 0 or -errno. */
static inline int vi_rebind(const char *bdf, char *dev, size_t len)
{
	int ret = vt_write_path(vi_drv, "bind", bdf);

	if (ret)
		return ret;
	return vt_find_dev("fdma", dev, len) ? -ENODEV : 0;
}

/* The test generator of d's C2H stream channel, len-byte frames: on or off. 0 or -errno. */
static inline int vi_testgen(struct vi_dev *d, uint32_t len, int on)
{
	struct fdma_ioc_testgen t = { .chan = (uint32_t)d->c2h_stream, .frame_len = len,
				      .enable = on ? 1 : 0 };

	return ioctl(d->fd, FDMA_IOC_TESTGEN, &t) ? -errno : 0;
}

/*
 * Arm n windows of len bytes, back to back from the start of buffer h, on
 * d's C2H stream channel (user_data: the window's number). 0 or -errno.
 */
static inline int vi_arm_windows(struct vi_dev *d, uint32_t h, int n, uint32_t len)
{
	struct fdma_ioc_req r[64];

	if (n > 64)
		return -EINVAL;
	for (int i = 0; i < n; i++)
		r[i] = (struct fdma_ioc_req){ .handle = h, .offset = (uint64_t)i * len,
					      .len = len, .user_data = (uint64_t)i };
	return vi_submit(d, d->c2h_stream, r, (uint32_t)n);
}

/* A test generator frame of want bytes, whole at p (len bytes came): 0, or -1. */
static inline int vi_frame_ok(const uint8_t *p, uint64_t len, uint32_t want)
{
	struct fdma_testgen_hdr h;

	memcpy(&h, p, sizeof(h));
	if (len != want || h.magic != FDMA_TESTGEN_MAGIC || h.len != want)
		return -1;
	for (uint64_t i = 0; i < (want - sizeof(h)) / 8; i++) {
		uint64_t w;

		memcpy(&w, p + sizeof(h) + 8 * i, 8);
		if (w != ((uint64_t)h.seq << 32 | i))
			return -1;
	}
	return 0;
}

/* Milliseconds on the monotonic clock. */
static inline double vi_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#endif /* FDMA_VMIOC_H */
