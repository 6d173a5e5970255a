// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: /sys/kernel/debug/fdma, for a person (or a test) looking into a
 * live driver. Nothing here is an interface programs should rely on.
 *
 *   pinned_pages         user pages pinned by registrations, every device:
 *                        0 once nothing is registered (nothing left pinned)
 *   fdmaN/chans          per channel: ring indices (posted, published,
 *                        reaped, the engine's count), status, requests in
 *                        flight, the read/write request, the watchdog
 *   fdmaN/leaked_bytes   memory kept for good: the engine never stopped
 *   fdmaN/model          the VM harness's build only, on a device model:
 *                        its test block (harness/fdma_mdbg.c)
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "fdma_drv.h"
#include "fdma_harness.h"

static struct dentry *fdma_debugfs_root;

static int chans_show(struct seq_file *m, void *unused)
{
	struct fdma_device *fdev = m->private;
	u32 i;

	seq_puts(m, "ch up broken pub cidx hw status inflight kreq bounce_users wd\n");
	for (i = 0; i < fdev->caps.nchan; i++) {
		struct fdma_chan *c = &fdev->chan[i];
		const char *kr;

		mutex_lock(&c->lock);
		kr = !c->kr.busy ? "-" : c->kr.abandoned ? "abandoned" : "busy";
		if (c->up) {
			struct fdma_ring_pos p;

			c->ops->pos(c, &p);
			seq_printf(m, "%u %d %d %u %u %u 0x%08x %u %s %d %d\n",
				   i, c->up, c->broken, p.posted, p.reaped,
				   p.done, c->ops->status(c),
				   p.posted - p.reaped, kr,
				   atomic_read(&c->bounce_users), c->wd_armed);
		} else {
			seq_printf(m, "%u 0 %d - - - - - %s %d %d\n", i,
				   c->broken, kr, atomic_read(&c->bounce_users),
				   c->wd_armed);
		}
		mutex_unlock(&c->lock);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(chans);

static int leaked_get(void *data, u64 *val)
{
	*val = atomic64_read(&((struct fdma_device *)data)->leaked_bytes);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(leaked_fops, leaked_get, NULL, "%llu\n");

static int pinned_get(void *data, u64 *val)
{
	*val = atomic64_read(&fdma_pinned_total);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(pinned_fops, pinned_get, NULL, "%llu\n");

/* Exported dma-bufs alive (fdma_export.c): they outlive files and devices. */
static int exports_get(void *data, u64 *val)
{
	*val = atomic64_read(&fdma_export_count);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(exports_fops, exports_get, NULL, "%llu\n");

static int export_bytes_get(void *data, u64 *val)
{
	*val = atomic64_read(&fdma_export_bytes);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(export_bytes_fops, export_bytes_get, NULL, "%llu\n");

void fdma_debugfs_add(struct fdma_device *fdev)
{
	struct dentry *d;

	if (!fdma_debugfs_root)
		return;
	d = debugfs_create_dir(dev_name(&fdev->dev), fdma_debugfs_root);
	fdev->debugfs = d;
	debugfs_create_file("chans", 0444, d, fdev, &chans_fops);
	debugfs_create_file_unsafe("leaked_bytes", 0444, d, fdev, &leaked_fops);
	fdma_harness_debugfs(fdev, d);
}

/* Waits for readers and writers inside: nothing touches fdev after. */
void fdma_debugfs_remove(struct fdma_device *fdev)
{
	debugfs_remove_recursive(fdev->debugfs);
	fdev->debugfs = NULL;
}

void fdma_debugfs_init(void)
{
	fdma_debugfs_root = debugfs_create_dir(FDMA_DRV_NAME, NULL);
	if (IS_ERR(fdma_debugfs_root)) {
		fdma_debugfs_root = NULL;
		return;
	}
	debugfs_create_file_unsafe("pinned_pages", 0444, fdma_debugfs_root,
				   NULL, &pinned_fops);
	debugfs_create_file_unsafe("exported_bufs", 0444, fdma_debugfs_root,
				   NULL, &exports_fops);
	debugfs_create_file_unsafe("exported_bytes", 0444, fdma_debugfs_root,
				   NULL, &export_bytes_fops);
}

void fdma_debugfs_exit(void)
{
	debugfs_remove_recursive(fdma_debugfs_root);
	fdma_debugfs_root = NULL;
}
