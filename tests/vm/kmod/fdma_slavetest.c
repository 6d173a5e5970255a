// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma_slavetest.ko: an in-kernel dmaengine client of fdma.ko's stream
 * channels (DMA_SLAVE, dmaengine=1), the way a driver that streams through
 * dmaengine uses them. A test fixture of the VM harness, not part of fdma.
 *
 * At load it takes the first C2H and H2C slave channels of an fdma device
 * (dma_request_channel with a filter, then dmaengine_slave_config naming
 * the direction, which the other kind of channel refuses), then
 *   c2h: arms `frames` buffers of `frame_len` bytes (one
 *        dmaengine_prep_slave_single each, one dma_async_issue_pending for
 *        all), waits for every callback, and checks each frame the engine's
 *        test generator wrote (the caller enabled it with frame_len):
 *        result NOERROR, residue 0, magic, length, consecutive sequence
 *        numbers, payload words and CRC-32;
 *   h2c: sends `frames` frames of the same format, each as a scatterlist of
 *        two segments, one issue_pending, waits for every callback; the
 *        caller then asks the engine's checker how many it counted good.
 * It prints "fdma_slavetest: ..." lines and fails the load (-EIO) on any
 * mismatch, so insmod's status is the result.
 */
#include <linux/completion.h>
#include <linux/crc32.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

static unsigned int frames = 32;
module_param(frames, uint, 0444);
static unsigned int frame_len = 4096;
module_param(frame_len, uint, 0444);

#define TG_MAGIC	0x304d5246u	/* "FRM0" */

struct tg_hdr {
	__le32 magic, seq, len, crc;
	__le64 tstamp_ns, rsvd;
};

struct xfer {
	struct completion *all;
	atomic_t *left;
	enum dmaengine_tx_result result;
	u32 residue;
	bool called;
};

static void done_cb(void *param, const struct dmaengine_result *res)
{
	struct xfer *x = param;

	x->result = res->result;
	x->residue = res->residue;
	x->called = true;
	if (atomic_dec_and_test(x->left))
		complete(x->all);
}

static bool filter(struct dma_chan *chan, void *param)
{
	return !strcmp(dev_driver_string(chan->device->dev), "fdma");
}

/*
 * The first free fdma slave channel of direction dir: the device's
 * capabilities name both directions, the channel's own slave_config
 * refuses the other one.
 */
static struct dma_chan *take(enum dma_transfer_direction dir)
{
	struct dma_slave_config cfg = { .direction = dir };
	struct dma_chan *wrong[4], *chan = NULL;
	dma_cap_mask_t mask;
	int n = 0, i;

	dma_cap_zero(mask);
	dma_cap_set(DMA_SLAVE, mask);
	while (n < ARRAY_SIZE(wrong)) {
		chan = dma_request_channel(mask, filter, NULL);
		if (!chan || !dmaengine_slave_config(chan, &cfg))
			break;
		wrong[n++] = chan;
		chan = NULL;
	}
	for (i = 0; i < n; i++)
		dma_release_channel(wrong[i]);
	return chan;
}

/* A test frame: the header, then words (u64)seq << 32 | i, the CRC over them. */
static void build_frame(u8 *p, u32 seq, u32 len)
{
	struct tg_hdr *h = (struct tg_hdr *)p;
	__le64 *w = (__le64 *)(p + sizeof(*h));
	u32 i, n = (len - sizeof(*h)) / 8;

	for (i = 0; i < n; i++)
		w[i] = cpu_to_le64((u64)seq << 32 | i);
	memset(h, 0, sizeof(*h));
	h->magic = cpu_to_le32(TG_MAGIC);
	h->seq = cpu_to_le32(seq);
	h->len = cpu_to_le32(len);
	/* zlib's crc32(0, ...) is the kernel's crc32_le(~0, ...) ^ ~0. */
	h->crc = cpu_to_le32(crc32_le(~0U, (u8 *)w, len - sizeof(*h)) ^ ~0U);
}

static int check_frame(const u8 *p, u32 len, u32 seq)
{
	const struct tg_hdr *h = (const struct tg_hdr *)p;
	u32 crc = crc32_le(~0U, p + sizeof(*h), len - sizeof(*h)) ^ ~0U;

	if (le32_to_cpu(h->magic) != TG_MAGIC || le32_to_cpu(h->len) != len ||
	    le32_to_cpu(h->seq) != seq || le32_to_cpu(h->crc) != crc)
		return -EIO;
	return 0;
}

/* Move n frames on chan (dir), each through its own buffer; 0 or -errno. */
static int run(struct dma_chan *chan, enum dma_transfer_direction dir)
{
	struct device *dev = dmaengine_get_dma_device(chan);
	enum dma_data_direction ddir = dir == DMA_DEV_TO_MEM ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	DECLARE_COMPLETION_ONSTACK(all);
	atomic_t left = ATOMIC_INIT(frames);
	struct xfer *x;
	u8 **buf;
	dma_addr_t *bus;
	u32 i, seq0 = 0;
	int ret = 0, mapped = 0;

	x = kcalloc(frames, sizeof(*x), GFP_KERNEL);
	buf = kcalloc(frames, sizeof(*buf), GFP_KERNEL);
	bus = kcalloc(frames, sizeof(*bus), GFP_KERNEL);
	if (!x || !buf || !bus) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < frames; i++) {
		buf[i] = kmalloc(frame_len, GFP_KERNEL);
		if (!buf[i]) {
			ret = -ENOMEM;
			goto out;
		}
		if (dir == DMA_MEM_TO_DEV)
			build_frame(buf[i], i, frame_len);
		else
			memset(buf[i], 0, frame_len);
		bus[i] = dma_map_single(dev, buf[i], frame_len, ddir);
		if (dma_mapping_error(dev, bus[i])) {
			ret = -ENOMEM;
			goto out;
		}
		mapped++;
	}
	for (i = 0; i < frames; i++) {
		struct dma_async_tx_descriptor *tx;
		struct scatterlist sg[2];
		u32 half = frame_len / 2 & ~63u;

		x[i].all = &all;
		x[i].left = &left;
		if (dir == DMA_MEM_TO_DEV && half) {
			/* Two segments, one frame: SOF on the first, EOF on the second. */
			sg_init_table(sg, 2);
			sg_dma_address(&sg[0]) = bus[i];
			sg_dma_len(&sg[0]) = half;
			sg_dma_address(&sg[1]) = bus[i] + half;
			sg_dma_len(&sg[1]) = frame_len - half;
			tx = dmaengine_prep_slave_sg(chan, sg, 2, dir, DMA_PREP_INTERRUPT);
		} else {
			tx = dmaengine_prep_slave_single(chan, bus[i], frame_len, dir,
							 DMA_PREP_INTERRUPT);
		}
		if (!tx) {
			pr_err("fdma_slavetest: %s: prep of frame %u refused\n",
			       dma_chan_name(chan), i);
			ret = -EIO;
			break;
		}
		tx->callback_result = done_cb;
		tx->callback_param = &x[i];
		if (dma_submit_error(dmaengine_submit(tx))) {
			ret = -EIO;
			break;
		}
	}
	if (ret) {
		dmaengine_terminate_sync(chan);
		goto out;
	}
	/* One issue for the whole batch: one doorbell. */
	dma_async_issue_pending(chan);
	if (!wait_for_completion_timeout(&all, msecs_to_jiffies(20000))) {
		pr_err("fdma_slavetest: %s: %d of %u frames never completed\n",
		       dma_chan_name(chan), atomic_read(&left), frames);
		dmaengine_terminate_sync(chan);
		ret = -EIO;
		goto out;
	}
	for (i = 0; i < frames; i++) {
		if (x[i].result != DMA_TRANS_NOERROR || x[i].residue) {
			pr_err("fdma_slavetest: %s: frame %u: result %d, residue %u\n",
			       dma_chan_name(chan), i, x[i].result, x[i].residue);
			ret = -EIO;
		}
	}
	if (dir == DMA_DEV_TO_MEM) {
		for (i = 0; i < frames; i++)
			dma_sync_single_for_cpu(dev, bus[i], frame_len, ddir);
		seq0 = le32_to_cpu(((struct tg_hdr *)buf[0])->seq);
		for (i = 0; i < frames && !ret; i++) {
			if (check_frame(buf[i], frame_len, seq0 + i)) {
				pr_err("fdma_slavetest: %s: frame %u (buffer %u) is not the generator's frame %u\n",
				       dma_chan_name(chan), seq0 + i, i, seq0 + i);
				ret = -EIO;
			}
		}
	}
	if (!ret)
		pr_info("fdma_slavetest: %s: %u frames of %u bytes %s, one issue_pending\n",
			dma_chan_name(chan), frames, frame_len,
			dir == DMA_DEV_TO_MEM ? "received and checked" : "sent");
out:
	for (i = 0; i < mapped; i++)
		dma_unmap_single(dev, bus[i], frame_len, ddir);
	for (i = 0; buf && i < frames; i++)
		kfree(buf[i]);
	kfree(x);
	kfree(buf);
	kfree(bus);
	return ret;
}

static int __init fdma_slavetest_init(void)
{
	struct dma_chan *c2h, *h2c;
	int ret;

	if (!frames || frame_len < 64 || frame_len % 64)
		return -EINVAL;
	c2h = take(DMA_DEV_TO_MEM);
	h2c = take(DMA_MEM_TO_DEV);
	if (!c2h || !h2c) {
		pr_err("fdma_slavetest: no fdma slave channel for %s\n", c2h ? "H2C" : "C2H");
		ret = -ENODEV;
		goto out;
	}
	ret = run(c2h, DMA_DEV_TO_MEM);
	if (!ret)
		ret = run(h2c, DMA_MEM_TO_DEV);
out:
	if (c2h)
		dma_release_channel(c2h);
	if (h2c)
		dma_release_channel(h2c);
	return ret;
}

static void __exit fdma_slavetest_exit(void)
{
}

module_init(fdma_slavetest_init);
module_exit(fdma_slavetest_exit);
MODULE_DESCRIPTION("fdma VM harness: a dmaengine slave client of fdma.ko's stream channels");
MODULE_LICENSE("Dual MIT/GPL");
