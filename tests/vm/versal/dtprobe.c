// SPDX-License-Identifier: GPL-2.0
/* The dt_binding and dt_memcpy_batch checks of tests/vm/versal/run.sh (docs/dmaengine.md 1.3; not
 * part of fdma.ko): bound to the "fdma,dtprobe" node whose dmas/dma-names name two ZDMA channels,
 * it requests them by name, runs a batch of memcpys with one issue_pending and prints what it saw
 * (tests/vm/versal/guest/20-dt-binding.sh judges the lines). */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/dmaengine.h>
#include <linux/dma-mapping.h>
#include <linux/completion.h>
#include <linux/slab.h>
#include <linux/of.h>

#define N 40
#define SZ 4096
static atomic_t done_cnt; static struct completion all_done; static int softirq_seen, hardirq_seen, nres_err;
static int want;

static void cb(void *p, const struct dmaengine_result *r)
{
	if (in_serving_softirq()) softirq_seen++;
	if (in_hardirq()) hardirq_seen++;
	if (r && r->result != DMA_TRANS_NOERROR) nres_err++;
	if (atomic_inc_return(&done_cnt) == want) complete(&all_done);
}

static void batch(struct device *dev, struct dma_chan *c)
{
	struct device *dd = c->device->dev;
	u8 *s = kmalloc(N * SZ, GFP_KERNEL), *d = kzalloc(N * SZ, GFP_KERNEL);
	dma_addr_t sa, da; int i, prepped = 0, bad = 0; dma_cookie_t ck = 0;
	if (!s || !d) goto out;
	for (i = 0; i < N * SZ; i++) s[i] = i * 7 + i / 4096;
	sa = dma_map_single(dd, s, N * SZ, DMA_TO_DEVICE);
	da = dma_map_single(dd, d, N * SZ, DMA_FROM_DEVICE);
	atomic_set(&done_cnt, 0); init_completion(&all_done);
	for (i = 0; i < N; i++) {
		struct dma_async_tx_descriptor *tx = dmaengine_prep_dma_memcpy(c, da + i * SZ, sa + i * SZ, SZ, DMA_PREP_INTERRUPT | DMA_CTRL_ACK);
		if (!tx) { dev_info(dev, "prep_memcpy #%d returned NULL (%d prepared)\n", i, prepped); break; }
		tx->callback_result = cb; tx->callback_param = NULL;
		ck = dmaengine_submit(tx); prepped++;
	}
	want = prepped;
	dma_async_issue_pending(c);
	if (!wait_for_completion_timeout(&all_done, 5 * HZ)) dev_info(dev, "timeout: %d of %d callbacks\n", atomic_read(&done_cnt), prepped);
	dev_info(dev, "last cookie status %d\n", dmaengine_tx_status(c, ck, NULL));
	dma_unmap_single(dd, sa, N * SZ, DMA_TO_DEVICE);
	dma_unmap_single(dd, da, N * SZ, DMA_FROM_DEVICE);
	for (i = 0; i < prepped * SZ; i++) if (d[i] != s[i]) bad++;
	dev_info(dev, "batch: %d memcpy of %d B, one issue_pending, %d callbacks (softirq %d hardirq %d, err %d), %d bad bytes, reuse %d\n",
		 prepped, SZ, atomic_read(&done_cnt), softirq_seen, hardirq_seen, nres_err, bad, c->device->descriptor_reuse);
out:
	kfree(s); kfree(d);
}

static int p_probe(struct platform_device *pdev)
{
	static const char *const names[] = { "tx", "rx", "nosuch" };
	struct dma_chan *ch[3] = {};
	struct dma_slave_caps caps;
	int i;
	for (i = 0; i < 3; i++) {
		struct dma_chan *c = dma_request_chan(&pdev->dev, names[i]);
		if (IS_ERR(c)) { dev_info(&pdev->dev, "dma_request_chan(%s): %ld\n", names[i], PTR_ERR(c)); continue; }
		ch[i] = c;
		dev_info(&pdev->dev, "%s -> %s (%s %s) memcpy %d slave %d cyclic %d private %d copy_align %d slave_caps %d\n",
			 names[i], dma_chan_name(c), dev_driver_string(c->device->dev), dev_name(c->device->dev),
			 dma_has_cap(DMA_MEMCPY, c->device->cap_mask), dma_has_cap(DMA_SLAVE, c->device->cap_mask),
			 dma_has_cap(DMA_CYCLIC, c->device->cap_mask), dma_has_cap(DMA_PRIVATE, c->device->cap_mask),
			 c->device->copy_align, dma_get_slave_caps(c, &caps));
	}
	{ struct dma_chan *again = dma_request_chan(&pdev->dev, "tx");
	  dev_info(&pdev->dev, "tx requested twice: %ld\n", IS_ERR(again) ? PTR_ERR(again) : 0L);
	  if (!IS_ERR(again)) dma_release_channel(again); }
	if (ch[0]) batch(&pdev->dev, ch[0]);
	for (i = 0; i < 3; i++) if (ch[i]) dma_release_channel(ch[i]);
	return 0;
}
static const struct of_device_id ids[] = { { .compatible = "fdma,dtprobe" }, {} };
MODULE_DEVICE_TABLE(of, ids);
static struct platform_driver drv = { .probe = p_probe, .driver = { .name = "dtprobe", .of_match_table = ids } };
module_platform_driver(drv);
MODULE_LICENSE("GPL");
