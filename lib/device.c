// SPDX-License-Identifier: MIT
/* libfdma: devices (open by URI, close, info, errors). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdma_internal.h"
#include "fdma_mdev.h"

/* The public header restates the engine's formats: they must not drift. */
_Static_assert(FDMA_ST_OK == FDMA_CPL_OK && FDMA_ST_DESC_ERR == FDMA_CPL_DESC_ERR &&
	       FDMA_ST_ADDR_ERR == FDMA_CPL_ADDR_ERR && FDMA_ST_DATA_ERR == FDMA_CPL_DATA_ERR &&
	       FDMA_ST_ALIGN_ERR == FDMA_CPL_ALIGN_ERR && FDMA_ST_RANGE_ERR == FDMA_CPL_RANGE_ERR &&
	       FDMA_ST_LEN_ERR == FDMA_CPL_LEN_ERR && FDMA_ST_TRUNC == FDMA_CPL_TRUNC &&
	       FDMA_ST_CANCELED == FDMA_CPL_CANCELED, "FDMA_ST_* differ from the engine's");
_Static_assert(FDMA_CPL_SOF == FDMA_CPL_F_SOF && FDMA_CPL_EOF == FDMA_CPL_F_EOF &&
	       FDMA_CPL_OVERRUN == FDMA_CPL_F_OVERRUN, "FDMA_CPL_* flags differ from the engine's");
_Static_assert(sizeof(struct fdma_testgen_hdr) == sizeof(struct fdma_frame_hdr) &&
	       FDMA_TESTGEN_MAGIC == FDMA_FRAME_MAGIC &&
	       offsetof(struct fdma_testgen_hdr, crc) == offsetof(struct fdma_frame_hdr, crc) &&
	       offsetof(struct fdma_testgen_hdr, tstamp_ns) == offsetof(struct fdma_frame_hdr, tstamp_ns),
	       "struct fdma_testgen_hdr differs from the engine's frame header");

/*
 * Live devices. Every entry point checks its handle against this table, so
 * a call on a closed device fails with -EBADF instead of touching freed
 * memory (until the allocator hands the same address to a new device).
 *
 * Lookups take no lock: they are on every call of the data path, from
 * threads on different devices and channels, which must not serialise on
 * one process-wide lock. A slot is claimed with a compare-and-swap and
 * cleared with a store; a lookup reads each slot with acquire, pairing
 * with the release of the claim, so whoever finds a device also sees the
 * fields fdma_open() set before publishing it. fdma_close() must not race
 * with calls on the same device (fdma.h), so a lookup that finds a device
 * cannot see it freed under it; one on another device is unaffected.
 */
#define MAX_DEVS 64
static _Atomic(struct fdma_dev *) live[MAX_DEVS];

static bool live_add(struct fdma_dev *dev)
{
	for (size_t i = 0; i < MAX_DEVS; i++) {
		struct fdma_dev *none = NULL;

		if (atomic_compare_exchange_strong_explicit(&live[i], &none, dev,
							    memory_order_release,
							    memory_order_relaxed))
			return true;
	}
	return false;
}

static void live_remove(struct fdma_dev *dev)
{
	for (size_t i = 0; i < MAX_DEVS; i++)
		if (atomic_load_explicit(&live[i], memory_order_relaxed) == dev)
			atomic_store_explicit(&live[i], NULL, memory_order_release);
}

bool fdma_dev_live(const struct fdma_dev *dev)
{
	if (!dev)
		return false;
	for (size_t i = 0; i < MAX_DEVS; i++)
		if (atomic_load_explicit(&live[i], memory_order_acquire) == dev)
			return true;
	return false;
}

/*
 * The last error message, per thread and per device: a thread reads the
 * message of its own last failed call on that device, whatever other
 * threads do meanwhile. Each thread keeps a few slots keyed by the
 * device's serial number (not its address, which a later device may
 * reuse); the least recently written slot is the one reused.
 */
#define ERR_SLOTS 8
struct err_slot {
	u64 serial;		/* 0: unused */
	u64 stamp;		/* when last written, in this thread's writes */
	char msg[256];
};
static _Thread_local struct err_slot err_tls[ERR_SLOTS];
static _Thread_local u64 err_writes;
static atomic_ullong dev_serial;

static struct err_slot *err_slot_find(u64 serial)
{
	for (int i = 0; i < ERR_SLOTS; i++)
		if (err_tls[i].serial == serial)
			return &err_tls[i];
	return NULL;
}

int fdma_err(struct fdma_dev *dev, int err, const char *fmt, ...)
{
	struct err_slot *e = err_slot_find(dev->serial);
	va_list ap;

	if (!e) {
		e = &err_tls[0];
		for (int i = 1; i < ERR_SLOTS; i++)
			if (err_tls[i].stamp < e->stamp)
				e = &err_tls[i];
		e->serial = dev->serial;
	}
	e->stamp = ++err_writes;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return err;
}

const char *fdma_errmsg(const struct fdma_dev *dev)
{
	const struct err_slot *e;

	if (!fdma_dev_live(dev))
		return "invalid or closed device handle";
	e = err_slot_find(dev->serial);
	return e ? e->msg : "";
}

static void set_errbuf(char *errbuf, size_t errlen, const char *msg)
{
	if (errbuf && errlen)
		snprintf(errbuf, errlen, "%s", msg);
}

int fdma_open(struct fdma_dev **devp, const char *uri, char *errbuf, size_t errlen)
{
	struct fdma_sim_opts o;
	struct fdma_dev *dev;
	char why[200], rtl_opts[512];
	const char *opts = NULL, *path = NULL;
	int ret;

	if (!devp) {
		set_errbuf(errbuf, errlen, "devp is NULL");
		return -EINVAL;
	}
	*devp = NULL;
	if (!uri) {
		set_errbuf(errbuf, errlen, "URI is NULL");
		return -EINVAL;
	}
	if (!strcmp(uri, "sim")) {
		opts = "";
	} else if (!strncmp(uri, "sim:", 4)) {
		opts = uri + 4;
	} else if (!strcmp(uri, "rtl") || !strncmp(uri, "rtl:", 4)) {
		/* The RTL engine: a simulated device with rtl=1 first. */
		snprintf(rtl_opts, sizeof(rtl_opts), "rtl=1%s%s", uri[3] && uri[4] ? "," : "",
			 uri[3] ? uri + 4 : "");
		opts = rtl_opts;
	} else if (!strncmp(uri, "kdev:", 5)) {
		path = uri + 5;
		if (!*path) {
			set_errbuf(errbuf, errlen,
				   "kdev: needs the device node's path, e.g. kdev:/dev/fdma0");
			return -EINVAL;
		}
	} else {
		snprintf(why, sizeof(why),
			 "unknown device URI '%.100s' (expected sim[:option=value,...], rtl[:option=value,...] or kdev:/dev/fdmaN)",
			 uri);
		set_errbuf(errbuf, errlen, why);
		return -EINVAL;
	}
	if (opts) {
		ret = fdma_parse_sim_uri(opts, &o, why, sizeof(why));
		if (ret) {
			set_errbuf(errbuf, errlen, why);
			return ret;
		}
	}
	/* Its buffers and channels are cache-line aligned: so must it be. */
	dev = aligned_alloc(_Alignof(struct fdma_dev), sizeof(*dev));
	if (dev)
		memset(dev, 0, sizeof(*dev));
	if (!dev) {
		set_errbuf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&dev->lock, NULL);
	dev->serial = atomic_fetch_add_explicit(&dev_serial, 1, memory_order_relaxed) + 1;
	for (int i = 0; i < FDMA_USER_IRQS; i++)
		dev->uirq_efd[i] = -1;
	if (!live_add(dev)) {
		set_errbuf(errbuf, errlen, "too many open devices (64)");
		pthread_mutex_destroy(&dev->lock);
		free(dev);
		return -EMFILE;
	}
	ret = opts ? fdma_sim_open(dev, &o) : fdma_kdev_open(dev, path);
	if (ret) {
		set_errbuf(errbuf, errlen, fdma_errmsg(dev));
		fdma_close(dev);
		return ret;
	}
	*devp = dev;
	return 0;
}

void fdma_close(struct fdma_dev *dev)
{
	if (!fdma_dev_live(dev))
		return;
	live_remove(dev);
	/* A backend that failed half-way through opening has set ops: it undoes what it did. */
	if (dev->ops)
		dev->ops->close(dev);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

int fdma_get_info(struct fdma_dev *dev, struct fdma_info *info)
{
	if (!fdma_dev_live(dev))
		return -EBADF;
	if (!info)
		return fdma_err(dev, -EINVAL, "fdma_get_info: info is NULL");
	*info = dev->info;
	return 0;
}

int fdma_find_chan(struct fdma_dev *dev, enum fdma_dir dir, enum fdma_kind kind)
{
	if (!fdma_dev_live(dev))
		return -EBADF;
	for (u32 i = 0; i < dev->info.nchan; i++)
		if (dev->info.chan[i].kind == kind &&
		    (kind == FDMA_KIND_MEM || dev->info.chan[i].dir == dir))
			return (int)i;
	if (kind == FDMA_KIND_MEM)
		return fdma_err(dev, -ENOENT, "no memory-to-memory channel on this device");
	return fdma_err(dev, -ENOENT, "no %s %s channel on this device",
			dir == FDMA_H2C ? "H2C" : "C2H",
			kind == FDMA_KIND_MM ? "memory-mapped" : "stream");
}

int fdma_model_cpu(struct fdma_dev *dev, double *seconds)
{
	if (!fdma_dev_live(dev))
		return -EBADF;
	if (!seconds)
		return fdma_err(dev, -EINVAL, "fdma_model_cpu: seconds is NULL");
	if (!dev->sim || !dev->sim->mdev)
		return fdma_err(dev, -ENOTSUP, "no simulated device behind this handle");
	*seconds = fdma_mdev_cpu_seconds(dev->sim->mdev);
	return 0;
}

int fdma_ceiling(struct fdma_dev *dev, enum fdma_dir dir, uint64_t size, double *mbps)
{
	if (!fdma_dev_live(dev))
		return -EBADF;
	if (!mbps || !size)
		return fdma_err(dev, -EINVAL, "fdma_ceiling: NULL result or zero size");
	if (!dev->link_known)
		return fdma_err(dev, -ENOTSUP,
				"the link of this device is not known (no PCIe capability?): no ceiling");
	*mbps = fdma_link_xfer_Bps(&dev->link, dir == FDMA_C2H ? 1 : 0, size) / 1e6;
	return 0;
}
