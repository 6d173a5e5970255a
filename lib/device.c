// SPDX-License-Identifier: MIT
/* libfdma: devices (open by URI, close, info, errors). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdma_internal.h"

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
 * Live devices. Every entry point checks its handle against this list, so
 * a call on a closed device fails with -EBADF instead of touching freed
 * memory (until the allocator hands the same address to a new device).
 */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fdma_dev *live[64];

static bool live_add(struct fdma_dev *dev)
{
	bool ok = false;

	pthread_mutex_lock(&live_lock);
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]) && !ok; i++) {
		if (!live[i]) {
			live[i] = dev;
			ok = true;
		}
	}
	pthread_mutex_unlock(&live_lock);
	return ok;
}

static void live_remove(struct fdma_dev *dev)
{
	pthread_mutex_lock(&live_lock);
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		if (live[i] == dev)
			live[i] = NULL;
	pthread_mutex_unlock(&live_lock);
}

bool fdma_dev_live(const struct fdma_dev *dev)
{
	bool ok = false;

	if (!dev)
		return false;
	pthread_mutex_lock(&live_lock);
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]) && !ok; i++)
		ok = live[i] == dev;
	pthread_mutex_unlock(&live_lock);
	return ok;
}

int fdma_err(struct fdma_dev *dev, int err, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&dev->err_lock);
	va_start(ap, fmt);
	vsnprintf(dev->err, sizeof(dev->err), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&dev->err_lock);
	return err;
}

const char *fdma_errmsg(const struct fdma_dev *dev)
{
	if (!fdma_dev_live(dev))
		return "invalid or closed device handle";
	return dev->err;
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
	char why[200];
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
	} else if (!strncmp(uri, "kdev:", 5) && uri[5]) {
		path = uri + 5;
	} else {
		snprintf(why, sizeof(why),
			 "unknown device URI '%.100s' (expected sim[:option=value,...] or kdev:/dev/fdmaN)",
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
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		set_errbuf(errbuf, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&dev->lock, NULL);
	pthread_mutex_init(&dev->err_lock, NULL);
	for (int i = 0; i < FDMA_MAX_CHAN; i++)
		dev->ch[i].efd = -1;
	if (!live_add(dev)) {
		set_errbuf(errbuf, errlen, "too many open devices (64)");
		pthread_mutex_destroy(&dev->lock);
		pthread_mutex_destroy(&dev->err_lock);
		free(dev);
		return -EMFILE;
	}
	ret = opts ? fdma_sim_open(dev, &o) : fdma_kdev_open(dev, path);
	if (ret) {
		set_errbuf(errbuf, errlen, dev->err);
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
	pthread_mutex_destroy(&dev->err_lock);
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
		if (dev->info.chan[i].dir == dir && dev->info.chan[i].kind == kind)
			return (int)i;
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
	if (!dev->model)
		return fdma_err(dev, -ENOTSUP, "no simulated device behind this handle");
	*seconds = fdma_model_cpu_seconds(dev->model);
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
