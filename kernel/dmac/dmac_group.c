// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma_dmac.ko: groups of dmaengine channels as /dev/fdmaN, and the
 * module (dmac.h). Each group's channels are requested and checked first,
 * then described to fdma.ko (struct fdma_backend_info, one
 * struct fdma_ring_ops of dmac_ring.c per channel) and added as one
 * device.
 *
 * Groups come from the module parameter chans= (any platform: a group per
 * ';'-separated list) or from the device tree: a node with compatible
 * "fdma,dmaengine" whose dmas/dma-names name the channels (mem* for
 * memory-to-memory), bound as a platform device; docs/dmaengine.md
 * section 2.2 has the binding. A group's channels must map memory for
 * the same device (buffers are mapped once, for it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "fdma_compat.h"
#include "dmac.h"

MODULE_IMPORT_NS(FDMA);

static char *dmac_param_chans;
module_param_named(chans, dmac_param_chans, charp, 0444);
MODULE_PARM_DESC(chans,
		 "Groups of dmaengine channels, each a /dev/fdmaN: groups separated by ';', channels by ','; a channel is a dmaengine channel name (dma0chan1), a provider device (0000:00:03.0: its first free memcpy channel) or memcpy[*N] (any free memcpy channels). Default: without \"fdma,dmaengine\" device-tree nodes, one group of every free memcpy channel of the first provider that has one");

/*
 * The longest piece handed to a provider in one prep. dmaengine has no
 * generic "longest memcpy" (dma_get_max_seg_size() is about merging
 * scatterlists, 64 KiB where a driver sets none, and providers split a
 * memcpy into their own descriptors: ZDMA up to 1 GiB each, fdma's
 * provider up to its ring), so requests are split here: one prep per MiB
 * costs little. A provider that refuses a piece with nothing in flight
 * fails that request with a message; then lower it.
 */
static unsigned int dmac_param_max_piece = SZ_1M;
module_param_named(max_piece, dmac_param_max_piece, uint, 0444);
MODULE_PARM_DESC(max_piece,
		 "Longest memcpy handed to a provider in one prep, bytes, 4096..1073741824 (default 1 MiB)");

static bool dmac_param_sync_wait;
module_param_named(sync_wait, dmac_param_sync_wait, bool, 0444);
MODULE_PARM_DESC(sync_wait,
		 "Wait for each copy inside FDMA_IOC_COPY with dma_sync_wait() (a busy loop), one issue_pending per piece: the naive way, for comparisons only (default 0)");

static unsigned int dmac_param_ring_size = 256;
module_param_named(ring_size, dmac_param_ring_size, uint, 0444);
MODULE_PARM_DESC(ring_size,
		 "Request pieces in flight per channel, a power of two, 2..65536 (default 256; a device-tree group's fdma,ring-size overrides it)");

static LIST_HEAD(dmac_groups);
struct workqueue_struct *dmac_wq;
/*
 * Our channel's lock is held while the provider takes its own (fdma.ko's
 * provider: another fdma channel's lock, in tx_status and terminate): a
 * class of their own, so that lockdep does not see recursion.
 */
static struct lock_class_key dmac_lock_key;

/* ---- groups ----------------------------------------------------------------- */

/* What a channel spec asks for. */
struct dmac_want {
	const char *name;	/* a channel or provider device name; NULL: any */
	struct device *same;	/* only channels mapping for it; NULL: any */
};

static bool dmac_filter(struct dma_chan *chan, void *param)
{
	const struct dmac_want *w = param;

	if (w->same && dmaengine_get_dma_device(chan) != w->same)
		return false;
	return !w->name || !strcmp(dma_chan_name(chan), w->name) ||
	       !strcmp(dev_name(chan->device->dev), w->name);
}

static const char *dmac_kind_name(enum dmac_kind kind)
{
	return kind == DMAC_MEM ? "memcpy" : kind == DMAC_H2C ? "h2c" : "c2h";
}

/*
 * Does slave channel chan move data in kind's direction? The capabilities
 * say where they can (fdma's provider names both directions for its
 * device); device_config with the direction asks the channel itself (a
 * provider without one is taken at its word: the name said h2c or c2h).
 */
static int dmac_slave_dir(struct dma_chan *chan, enum dmac_kind kind)
{
	enum dma_transfer_direction dir = kind == DMAC_C2H ? DMA_DEV_TO_MEM :
							   DMA_MEM_TO_DEV;
	struct dma_slave_config cfg = { .direction = dir };
	struct dma_slave_caps caps;

	if (!dma_get_slave_caps(chan, &caps) && !(caps.directions & BIT(dir)))
		return -EINVAL;
	if (!chan->device->device_config)
		return 0;
	return dmaengine_slave_config(chan, &cfg);
}

/*
 * Request the channels of one spec into g, exclusive until released: an
 * optional "h2c:" or "c2h:" (a slave channel of that direction; else a
 * memcpy one), then memcpy[*N] (any free ones, mapping for the group's
 * first one's device), a channel name or a provider device.
 */
static int dmac_request(struct dmac_group *g, const char *spec, bool quiet)
{
	struct dma_chan *tried[FDMA_MAX_CHANNELS];
	enum dmac_kind kind = DMAC_MEM;
	struct dmac_want w = { .name = spec };
	unsigned int want = 1, got = 0, ntried = 0, i;
	dma_cap_mask_t mask;
	int ret = 0;

	if (!strncmp(spec, "h2c:", 4) || !strncmp(spec, "c2h:", 4)) {
		kind = spec[0] == 'h' ? DMAC_H2C : DMAC_C2H;
		w.name = spec + 4;
	} else if (!strncmp(spec, "memcpy", 6) &&
		   (!spec[6] || (spec[6] == '*' && !kstrtouint(spec + 7, 0, &want)))) {
		w.name = NULL;
		if (!want) {
			pr_err("%s: no channels asked for\n", spec);
			return -EINVAL;
		}
	}
	dma_cap_zero(mask);
	dma_cap_set(kind == DMAC_MEM ? DMA_MEMCPY : DMA_SLAVE, mask);
	while (got < want) {
		struct dma_chan *chan;

		if (g->n == FDMA_MAX_CHANNELS) {
			pr_err("%s: more than %u channels in a group\n", spec,
			       FDMA_MAX_CHANNELS);
			ret = -E2BIG;
			break;
		}
		/* Any: but mapping for the same device as the group's first. */
		if (!w.name && g->n)
			w.same = dmaengine_get_dma_device(g->ch[0].chan);
		chan = dma_request_channel(mask, dmac_filter, &w);
		if (!chan) {
			if (!quiet && ntried)
				pr_err("%s: %u free slave channel(s) found, none moving data %s\n",
				       spec, ntried, kind == DMAC_H2C ?
				       "to the device" : "from the device");
			else if (!quiet)
				pr_err("%s: no free %s channel%s\n", spec,
				       kind == DMAC_MEM ? "memcpy" : "slave",
				       got ? " more" : "");
			ret = -ENODEV;
			break;
		}
		/* Held while we look on, so that the next request finds another. */
		if (kind != DMAC_MEM && dmac_slave_dir(chan, kind)) {
			tried[ntried++] = chan;
			if (ntried < ARRAY_SIZE(tried))
				continue;
			ret = -ENODEV;
			break;
		}
		g->ch[g->n].chan = chan;
		g->ch[g->n++].kind = kind;
		got++;
	}
	for (i = 0; i < ntried; i++)
		dma_release_channel(tried[i]);
	return ret;
}

static void dmac_group_free(struct dmac_group *g)
{
	u32 i;

	for (i = 0; i < g->n; i++)
		dma_release_channel(g->ch[i].chan);
	kfree(g);
}

/*
 * What a group must be, checked as soon as its channels are requested
 * (before any node exists): its channels map memory for one device, and
 * each can be terminated.
 */
static int dmac_group_check(struct dmac_group *g)
{
	struct device *dd = dmaengine_get_dma_device(g->ch[0].chan);
	u32 i;

	for (i = 0; i < g->n; i++) {
		struct dma_chan *chan = g->ch[i].chan;

		/* Buffers are mapped once, for one device (docs/dmaengine.md 2.3). */
		if (dmaengine_get_dma_device(chan) != dd) {
			pr_err("%s and %s map memory for different devices (%s, %s): put them in two groups\n",
			       dma_chan_name(g->ch[0].chan), dma_chan_name(chan),
			       dev_name(dd),
			       dev_name(dmaengine_get_dma_device(chan)));
			return -EINVAL;
		}
		/* A reset and a teardown need it: nothing else stops a transfer. */
		if (!chan->device->device_terminate_all) {
			pr_err("%s cannot be terminated (its provider has no device_terminate_all)\n",
			       dma_chan_name(chan));
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * The group's channels (checked) become /dev/fdmaN (a child of parent, if
 * given), with ring slots per channel.
 */
static int dmac_group_create(struct dmac_group *g, struct device *parent,
			     u32 ring_size, bool sync,
			     const struct fdma_video_cfg *video)
{
	struct fdma_backend_info info = {
		.parent = parent,
		.dma_dev = dmaengine_get_dma_device(g->ch[0].chan),
		.ring_size = ring_size,
		.coalesce = true,
		.nchan = g->n,
	};
	struct fdma_device *fdev;
	u32 align = 1, i;

	for (i = 0; i < g->n; i++) {
		struct dma_chan *chan = g->ch[i].chan;

		align = max_t(u32, align, 1u << chan->device->copy_align);
		if (g->ch[i].kind == DMAC_MEM)
			info.mem2mem = true;
		strscpy(g->ch[i].name, dma_chan_name(chan), sizeof(g->ch[i].name));
		strscpy(g->ch[i].dev, dev_name(chan->device->dev),
			sizeof(g->ch[i].dev));
		strscpy(g->ch[i].drv, dev_driver_string(chan->device->dev),
			sizeof(g->ch[i].drv));
	}
	info.align = align;
	info.max_len = round_down(dmac_param_max_piece, align);
	info.dma_align = max_t(u32, align, dma_get_cache_alignment());
	info.dma_bits = fls64(dma_get_mask(info.dma_dev));
	for (i = 0; i < g->n; i++) {
		struct dmac_chan *dc = &g->ch[i];

		dmac_chan_prepare(dc, sync, ring_size, align, info.max_len);
		info.chan[i] = (struct fdma_backend_chan){
			.ops = &dmac_ops,
			.priv = dc,
			.caps = dc->kind == DMAC_MEM ? FDMA_CH_CAP_MEM2MEM :
				dc->kind == DMAC_H2C ? FDMA_CH_CAP_STREAM :
				FDMA_CH_CAP_STREAM | FDMA_CH_CAP_C2H,
			/*
			 * dmaengine marks no frames: a C2H transfer receives
			 * one, an H2C frame is one transfer of its pieces.
			 */
			.frame_reqs = dc->kind == DMAC_MEM ? 0 : dc->max_segs,
			.lock_key = &dmac_lock_key,
		};
		if (video && dc->kind != DMAC_MEM)
			info.chan[i].video = *video;
	}
	fdev = fdma_backend_add(&info, THIS_MODULE);
	if (IS_ERR(fdev))
		return PTR_ERR(fdev);
	g->fdev = fdev;
	for (i = 0; i < g->n; i++)
		dev_info(fdma_dev_device(fdev), "channel %u: %s of %s (%s), %s%s\n", i,
			 g->ch[i].name, g->ch[i].dev, g->ch[i].drv,
			 dmac_kind_name(g->ch[i].kind),
			 g->ch[i].sync ? ", waited for with dma_sync_wait()" : "");
	return 0;
}

/*
 * The group goes: no new operation, everything in flight terminated and
 * handed back (terminate_sync: the providers no longer touch our memory,
 * so it may be given back), buffers revoked, channels released. Open
 * files keep fdma.ko's device until their last close.
 */
static void dmac_group_destroy(struct dmac_group *g)
{
	struct fdma_device *fdev = g->fdev;
	bool stopped;
	u32 i;

	stopped = fdma_backend_remove(fdev);
	for (i = 0; i < g->n; i++)
		dmac_chan_cancel_work(&g->ch[i]);
	if (!stopped) {
		/*
		 * A late callback may still come: what it touches is kept for
		 * good: the group, its slots, the fdma device its channels
		 * live in (its reference is not put) and this module (pinned
		 * by the terminate that failed, dmac_reset()).
		 */
		dev_crit(fdma_dev_device(fdev), "removed; a channel was never terminated: its group, channels and fdma_dmac are kept\n");
		return;
	}
	dev_info(fdma_dev_device(fdev), "removed\n");
	fdma_dev_put(fdev);
	dmac_group_free(g);
}

/*
 * One group from "spec,spec,...", or every free memcpy channel: its
 * channels requested, on the list; made a node later (dmac_init_module()).
 */
static int dmac_group_add(char *specs)
{
	struct dmac_group *g = kzalloc(sizeof(*g), GFP_KERNEL);
	char *spec;
	int ret = 0;

	if (!g)
		return -ENOMEM;
	if (!specs) {
		/* Every free memcpy channel, at most a group's worth. */
		while (g->n < FDMA_MAX_CHANNELS && !dmac_request(g, "memcpy", true))
			;
		if (!g->n) {
			pr_err("no free memcpy channel: name channels with chans=\n");
			ret = -ENODEV;
		}
	} else {
		while (!ret && (spec = strsep(&specs, ","))) {
			spec = strim(spec);
			if (!*spec) {
				pr_err("chans=: an empty channel in a group\n");
				ret = -EINVAL;
			} else {
				ret = dmac_request(g, spec, false);
			}
		}
	}
	if (!ret)
		ret = dmac_group_check(g);
	if (ret) {
		dmac_group_free(g);
		return ret;
	}
	list_add_tail(&g->node, &dmac_groups);
	return 0;
}

static void dmac_groups_destroy(void)
{
	struct dmac_group *g, *tmp;

	list_for_each_entry_safe_reverse(g, tmp, &dmac_groups, node) {
		list_del(&g->node);
		if (g->fdev)
			dmac_group_destroy(g);
		else
			dmac_group_free(g);
	}
}

/* ---- device tree: compatible = "fdma,dmaengine" ------------------------------ */

/*
 * fdma,video-format (a fourcc of up to 4 characters), -width, -height and
 * the optional -bytes-per-line and -fps (default 30): the frames the
 * group's stream channels carry, each then a V4L2 video device in that
 * format (fdma.ko checks the values, and leaves out a device it cannot
 * make, saying why). Without fdma,video-format: none (fdma.ko's v4l2=1
 * makes them, in its parameters' format).
 */
static int dmac_of_video(struct device *dev, struct fdma_video_cfg *v)
{
	struct device_node *np = dev->of_node;
	const char *fmt;

	*v = (struct fdma_video_cfg){ .fps = 30 };
	if (of_property_read_string(np, "fdma,video-format", &fmt))
		return 0;
	v->fourcc = fdma_video_fourcc(fmt);
	if (!fmt[0] || !v->fourcc)
		return dev_err_probe(dev, -EINVAL,
				     "fdma,video-format \"%s\": expected a fourcc of 1 to 4 characters (\"YUYV\")\n",
				     fmt);
	if (of_property_read_u32(np, "fdma,video-width", &v->width) ||
	    of_property_read_u32(np, "fdma,video-height", &v->height))
		return dev_err_probe(dev, -EINVAL,
				     "fdma,video-format needs fdma,video-width and fdma,video-height\n");
	of_property_read_u32(np, "fdma,video-bytes-per-line", &v->bpl);
	of_property_read_u32(np, "fdma,video-fps", &v->fps);
	return 0;
}

/*
 * Every dma-names entry is a channel of the group, in order, requested by
 * name (dma_request_chan: the provider's xlate); a provider not there yet
 * is -EPROBE_DEFER, so the group appears when its providers do.
 */
static int dmac_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	int n = of_property_count_strings(dev->of_node, "dma-names"), i, ret;
	u32 ring = dmac_param_ring_size;
	struct fdma_video_cfg video;
	struct dmac_group *g;

	ret = dmac_of_video(dev, &video);
	if (ret)
		return ret;
	if (n <= 0 || n > FDMA_MAX_CHANNELS)
		return dev_err_probe(dev, -EINVAL,
				     "dma-names: expected 1..%u channels, found %d\n",
				     FDMA_MAX_CHANNELS, n);
	of_property_read_u32(dev->of_node, "fdma,ring-size", &ring);
	if (ring < 2 || ring > 65536 || !is_power_of_2(ring))
		return dev_err_probe(dev, -EINVAL,
				     "fdma,ring-size %u: expected a power of two, 2..65536\n",
				     ring);
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		enum dmac_kind kind;
		struct dma_chan *chan;
		const char *name;

		ret = of_property_read_string_index(dev->of_node, "dma-names",
						    i, &name);
		if (ret)
			goto err;
		if (!strncmp(name, "mem", 3)) {
			kind = DMAC_MEM;
		} else if (!strncmp(name, "h2c", 3) || !strncmp(name, "tx", 2)) {
			kind = DMAC_H2C;
		} else if (!strncmp(name, "c2h", 3) || !strncmp(name, "rx", 2)) {
			kind = DMAC_C2H;
		} else {
			ret = dev_err_probe(dev, -EINVAL,
					    "dma-names \"%s\": expected mem*, h2c*/tx* or c2h*/rx*\n",
					    name);
			goto err;
		}
		chan = dma_request_chan(dev, name);
		if (IS_ERR(chan)) {
			ret = dev_err_probe(dev, PTR_ERR(chan),
					    "channel \"%s\"\n", name);
			goto err;
		}
		g->ch[g->n].chan = chan;
		g->ch[g->n++].kind = kind;
		if (kind == DMAC_MEM ?
		    !dma_has_cap(DMA_MEMCPY, chan->device->cap_mask) :
		    dmac_slave_dir(chan, kind)) {
			ret = dev_err_probe(dev, -EINVAL,
					    "channel \"%s\" (%s) cannot %s\n",
					    name, dma_chan_name(chan),
					    kind == DMAC_MEM ? "copy memory" :
					    kind == DMAC_H2C ? "move data to the device" :
					    "move data from the device");
			goto err;
		}
	}
	ret = dmac_group_check(g);
	if (!ret)
		ret = dmac_group_create(g, dev, ring,
					of_property_read_bool(dev->of_node, "fdma,sync-wait"),
					video.fourcc ? &video : NULL);
	if (ret)
		goto err;
	platform_set_drvdata(pdev, g);
	return 0;
err:
	dmac_group_free(g);
	return ret;
}

static void dmac_remove_group(struct platform_device *pdev)
{
	dmac_group_destroy(platform_get_drvdata(pdev));
}

FDMA_PLATFORM_REMOVE(dmac_remove, dmac_remove_group);

static const struct of_device_id dmac_of_match[] = {
	{ .compatible = "fdma,dmaengine" },
	{ }
};
MODULE_DEVICE_TABLE(of, dmac_of_match);

static struct platform_driver dmac_platform_driver = {
	.driver = {
		.name = "fdma_dmac",
		.of_match_table = dmac_of_match,
	},
	.probe = dmac_probe,
	.remove = dmac_remove,
};

static bool dmac_have_dt_groups(void)
{
	struct device_node *np = of_find_compatible_node(NULL, NULL,
							 "fdma,dmaengine");

	of_node_put(np);
	return np;
}

static int __init dmac_init_module(void)
{
	char *copy = NULL, *p, *grp;
	int ret = 0;

	if (dmac_param_ring_size < 2 || dmac_param_ring_size > 65536 ||
	    !is_power_of_2(dmac_param_ring_size)) {
		pr_err("ring_size=%u: expected a power of two, 2..65536\n",
		       dmac_param_ring_size);
		return -EINVAL;
	}
	if (dmac_param_max_piece < SZ_4K || dmac_param_max_piece > SZ_1G) {
		pr_err("max_piece=%u: expected 4096..1073741824\n",
		       dmac_param_max_piece);
		return -EINVAL;
	}
	dmac_wq = alloc_workqueue("fdma_dmac", WQ_HIGHPRI, 0);
	if (!dmac_wq)
		return -ENOMEM;
	if (!dmac_param_chans || !*dmac_param_chans) {
		/* The device tree says which groups there are, if it has any. */
		if (!dmac_have_dt_groups())
			ret = dmac_group_add(NULL);
	} else {
		copy = kstrdup(dmac_param_chans, GFP_KERNEL);
		p = copy;
		if (!copy)
			ret = -ENOMEM;
		while (!ret && p && (grp = strsep(&p, ";")))
			ret = dmac_group_add(grp);
		kfree(copy);
	}
	/*
	 * Every group's channels found and checked first, then the nodes:
	 * what fails for a user's reason fails before a node exists that a
	 * file could open while the load still fails (what is left is
	 * running out of memory). The device tree's groups come last.
	 */
	if (!ret) {
		struct dmac_group *g;

		list_for_each_entry(g, &dmac_groups, node) {
			ret = dmac_group_create(g, NULL, dmac_param_ring_size,
						dmac_param_sync_wait, NULL);
			if (ret)
				break;
		}
	}
	if (!ret)
		ret = platform_driver_register(&dmac_platform_driver);
	if (ret) {
		dmac_groups_destroy();
		destroy_workqueue(dmac_wq);
	}
	return ret;
}

static void __exit dmac_exit_module(void)
{
	platform_driver_unregister(&dmac_platform_driver);
	dmac_groups_destroy();
	destroy_workqueue(dmac_wq);
}

module_init(dmac_init_module);
module_exit(dmac_exit_module);

MODULE_DESCRIPTION("fdma over dmaengine: user-space DMA on any dmaengine memcpy channel");
MODULE_LICENSE("Dual MIT/GPL");
