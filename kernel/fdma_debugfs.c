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
 *   fdmaN/model          the VM harness's ivshmem stand-in only: the device
 *                        model's test block (model/fdma_mdbg.h). Write
 *                        "fault KIND CHAN AT" (KIND: desc, data, stuck, irq,
 *                        noack) to arm a fault at the AT-th descriptor CHAN
 *                        fetches from now, or "pace on|off|cfg"; read its
 *                        counters.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "fdma_drv.h"
#include "fdma_mdbg.h"

static struct dentry *fdma_debugfs_root;

static int chans_show(struct seq_file *m, void *unused)
{
	struct fdma_dev *fdev = m->private;
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
	*val = atomic64_read(&((struct fdma_dev *)data)->leaked_bytes);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(leaked_fops, leaked_get, NULL, "%llu\n");

static int pinned_get(void *data, u64 *val)
{
	*val = atomic64_read(&fdma_pinned_total);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(pinned_fops, pinned_get, NULL, "%llu\n");

/* ---- the device models' test block --------------------------------------- */

static const char * const fdma_fault_names[] = {
	[FDMA_MDBG_FAULT_DESC] = "desc",
	[FDMA_MDBG_FAULT_DATA] = "data",
	[FDMA_MDBG_FAULT_STUCK] = "stuck",
	[FDMA_MDBG_FAULT_IRQ] = "irq",
	[FDMA_MDBG_FAULT_NOACK] = "noack",
	[FDMA_MDBG_FAULT_MAGIC] = "magic",
};

static int model_show(struct seq_file *m, void *unused)
{
	struct fdma_dev *fdev = m->private;
	struct fdma_plat *p = &fdev->plat;

	if (READ_ONCE(fdev->dead))
		return -ENODEV;
	seq_printf(m, "faults %u\nrefused %u\nrogue_writes %u\nfault_ack %u\npace %u\n",
		   fdma_plat_rd32(p, fdev->mdbg + FDMA_MDBG_FAULTS),
		   fdma_plat_rd32(p, fdev->mdbg + FDMA_MDBG_REFUSED),
		   fdma_plat_rd32(p, fdev->mdbg + FDMA_MDBG_ROGUE_WRITES),
		   fdma_plat_rd32(p, fdev->mdbg + FDMA_MDBG_FAULT_ACK),
		   fdma_plat_rd32(p, fdev->mdbg + FDMA_MDBG_PACE));
	return 0;
}

static int model_open(struct inode *inode, struct file *file)
{
	return single_open(file, model_show, inode->i_private);
}

static ssize_t model_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct fdma_dev *fdev = ((struct seq_file *)file->private_data)->private;
	struct fdma_plat *p = &fdev->plat;
	char buf[64], kind[16];
	u32 ch, at, k;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (READ_ONCE(fdev->dead))
		return -ENODEV;
	if (sscanf(buf, "fault %15s %u %u", kind, &ch, &at) == 3) {
		for (k = 0; k < ARRAY_SIZE(fdma_fault_names); k++)
			if (fdma_fault_names[k] && !strcmp(kind, fdma_fault_names[k]))
				break;
		if (k == ARRAY_SIZE(fdma_fault_names) || ch >= fdev->caps.nchan ||
		    !at)
			return -EINVAL;
		fdma_plat_wr32(p, fdev->mdbg + FDMA_MDBG_FAULT_KIND, k);
		fdma_plat_wr32(p, fdev->mdbg + FDMA_MDBG_FAULT_CHAN, ch);
		fdma_plat_wr32(p, fdev->mdbg + FDMA_MDBG_FAULT_AT, at);
		/* The request last: the model reads it first. */
		wmb();
		fdma_plat_wr32(p, fdev->mdbg + FDMA_MDBG_FAULT_REQ,
			       fdma_plat_rd32(p, fdev->mdbg + FDMA_MDBG_FAULT_REQ) + 1);
		fdma_plat_kick(p, ch);
	} else if (sscanf(buf, "pace %15s", kind) == 1) {
		if (!strcmp(kind, "on"))
			k = FDMA_MDBG_PACE_ON;
		else if (!strcmp(kind, "off"))
			k = FDMA_MDBG_PACE_OFF;
		else if (!strcmp(kind, "cfg"))
			k = FDMA_MDBG_PACE_CFG;
		else
			return -EINVAL;
		fdma_plat_wr32(p, fdev->mdbg + FDMA_MDBG_PACE, k);
	} else {
		return -EINVAL;
	}
	return len;
}

static const struct file_operations model_fops = {
	.owner = THIS_MODULE,
	.open = model_open,
	.read = seq_read,
	.write = model_write,
	.llseek = seq_lseek,
	.release = single_release,
};

void fdma_debugfs_add(struct fdma_dev *fdev)
{
	struct dentry *d;

	if (!fdma_debugfs_root)
		return;
	d = debugfs_create_dir(dev_name(&fdev->dev), fdma_debugfs_root);
	fdev->debugfs = d;
	debugfs_create_file("chans", 0444, d, fdev, &chans_fops);
	debugfs_create_file_unsafe("leaked_bytes", 0444, d, fdev, &leaked_fops);
	/*
	 * Only a device model has the test block: the FDMA model's at 0xf00
	 * of its register file (behind ivshmem or QEMU's proxy), the XDMA
	 * model's in its user BAR. A card's registers there are reserved (or
	 * the design's), and are never written here: the magic must match.
	 */
	if (fdev->pdev &&
	    fdma_plat_rd32(&fdev->plat, fdev->mdbg + FDMA_MDBG_MAGIC) == FDMA_MDBG_MAGIC_VAL)
		debugfs_create_file("model", 0600, d, fdev, &model_fops);
}

/* Waits for readers and writers inside: nothing touches fdev after. */
void fdma_debugfs_remove(struct fdma_dev *fdev)
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
}

void fdma_debugfs_exit(void)
{
	debugfs_remove_recursive(fdma_debugfs_root);
	fdma_debugfs_root = NULL;
}
