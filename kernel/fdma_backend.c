// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: the interface a backend module sees (fdma_backend.h), over the
 * steps every backend's probe and remove share (fdma_dev.c). An FDMA
 * function (fdma_pci.c) takes those steps itself, with its engine's own
 * between them; a backend module describes its device once and takes
 * them all here. Exported in symbol namespace FDMA.
 */
#include <linux/log2.h>
#include <linux/module.h>

#include "fdma_drv.h"

static int fdma_backend_check(const struct fdma_backend_info *info)
{
	u32 i;

	if (!info->dma_dev || !info->nchan || info->nchan > FDMA_MAX_CHANNELS ||
	    info->ring_size < 2 || !is_power_of_2(info->ring_size) ||
	    !info->align || !is_power_of_2(info->align) ||
	    !info->max_len || info->max_len % info->align ||
	    !info->dma_align || !is_power_of_2(info->dma_align) ||
	    !info->dma_bits || info->dma_bits > 64)
		return -EINVAL;
	for (i = 0; i < info->nchan; i++)
		if (!info->chan[i].ops)
			return -EINVAL;
	return 0;
}

struct fdma_device *fdma_backend_add(const struct fdma_backend_info *info,
				     struct module *owner)
{
	struct fdma_device *fdev;
	u32 i;
	int ret;

	ret = fdma_backend_check(info);
	if (ret) {
		dev_err(info->dma_dev ?: info->parent,
			"fdma backend: a device description out of range (%u channels, ring %u, alignment %u, piece %u, %u bits)\n",
			info->nchan, info->ring_size, info->align, info->max_len,
			info->dma_bits);
		return ERR_PTR(ret);
	}
	fdev = fdma_dev_alloc(info->parent, info->dma_dev);
	if (IS_ERR(fdev))
		return fdev;
	fdev->caps.nchan = info->nchan;
	fdev->caps.align = info->align;
	fdev->caps.max_desc_len = info->max_len;
	fdev->caps.ring_max = info->ring_size;
	fdev->caps.coalesce = info->coalesce;
	fdev->caps.mem2mem = info->mem2mem;
	fdev->ring_size = info->ring_size;
	fdev->dma_align = info->dma_align;
	fdev->dma_bits = info->dma_bits;
	for (i = 0; i < info->nchan; i++) {
		struct fdma_chan *c = &fdev->chan[i];

		fdev->caps.chan_caps[i] = info->chan[i].caps;
		c->ops = info->chan[i].ops;
		c->priv = info->chan[i].priv;
		c->frame_reqs = info->chan[i].frame_reqs;
		c->video = info->chan[i].video;
		if (info->chan[i].lock_key)
			lockdep_set_class(&c->lock, info->chan[i].lock_key);
	}
	ret = fdma_dev_chans_init(fdev);
	if (ret)
		goto err_put;
	ret = fdma_dev_publish(fdev, owner);
	if (ret)
		goto err_chans;
	/* Optional, as an FDMA function's: the character device works without them. */
	fdma_v4l2_register(fdev);
	return fdev;

err_chans:
	fdma_dev_chans_stop(fdev);
	fdev->quiesced = true;
	fdma_dev_chans_free(fdev, true);
err_put:
	fdma_dev_put(fdev);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_NS_GPL(fdma_backend_add, FDMA);

bool fdma_backend_remove(struct fdma_device *fdev)
{
	bool broken = false;
	u32 i;

	/* The interfaces stop first, with the channels still there. */
	fdma_v4l2_unregister(fdev);
	fdma_dev_unpublish(fdev);
	fdma_dev_chans_stop(fdev);
	/* A channel whose reset failed may still write: keep its buffers. */
	for (i = 0; i < fdev->caps.nchan; i++)
		broken |= fdev->chan[i].broken;
	fdev->quiesced = !broken;
	fdma_dev_chans_free(fdev, false);
	return !broken;
}
EXPORT_SYMBOL_NS_GPL(fdma_backend_remove, FDMA);

u32 fdma_video_fourcc(const char *s)
{
	u32 fourcc = 0;
	int i;

	for (i = 0; i < 4 && s[i] && s[i] != '\n'; i++)
		fourcc |= (u32)s[i] << (8 * i);
	/* At most four characters, and a newline only at the end. */
	if (s[i] && (s[i] != '\n' || s[i + 1]))
		return 0;
	for (; i < 4; i++)
		fourcc |= (u32)' ' << (8 * i);
	return fourcc;
}
EXPORT_SYMBOL_NS_GPL(fdma_video_fourcc, FDMA);

struct device *fdma_dev_device(struct fdma_device *fdev)
{
	return &fdev->dev;
}
EXPORT_SYMBOL_NS_GPL(fdma_dev_device, FDMA);

void *fdma_chan_priv(const struct fdma_chan *c)
{
	return c->priv;
}
EXPORT_SYMBOL_NS_GPL(fdma_chan_priv, FDMA);

u32 fdma_chan_index(const struct fdma_chan *c)
{
	return c->idx;
}
EXPORT_SYMBOL_NS_GPL(fdma_chan_index, FDMA);

struct device *fdma_chan_device(const struct fdma_chan *c)
{
	return &c->fdev->dev;
}
EXPORT_SYMBOL_NS_GPL(fdma_chan_device, FDMA);

bool fdma_chan_broken(const struct fdma_chan *c)
{
	return c->broken;
}
EXPORT_SYMBOL_NS_GPL(fdma_chan_broken, FDMA);

u32 fdma_chan_coal_count(const struct fdma_chan *c)
{
	return c->coal_count;
}
EXPORT_SYMBOL_NS_GPL(fdma_chan_coal_count, FDMA);

void fdma_chan_set_max_len(struct fdma_chan *c, u32 len)
{
	c->ereq_max = len;
}
EXPORT_SYMBOL_NS_GPL(fdma_chan_set_max_len, FDMA);

void fdma_chan_count_irq(struct fdma_chan *c)
{
	atomic64_inc(&c->st.irqs);
}
EXPORT_SYMBOL_NS_GPL(fdma_chan_count_irq, FDMA);

void fdma_chan_kept_bytes(struct fdma_chan *c, u64 bytes)
{
	atomic64_add(bytes, &c->fdev->leaked_bytes);
}
EXPORT_SYMBOL_NS_GPL(fdma_chan_kept_bytes, FDMA);
