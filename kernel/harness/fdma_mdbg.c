// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko, the VM harness's build: the device models' test block
 * (engine/fdma_mdbg.h) as /sys/kernel/debug/fdma/fdmaN/model, on a device
 * that has one. Write "fault KIND CHAN AT" (KIND: desc, data, stuck, irq,
 * noack, magic) to arm a fault at the AT-th descriptor CHAN fetches from
 * now, or "pace on|off|cfg"; read its counters.
 *
 * Only a device model has the block: the FDMA model's at 0xf00 of its
 * register file (behind ivshmem or QEMU's proxy), the XDMA model's in its
 * user BAR. A card's registers there are reserved (or the design's), and
 * are never written here: the magic must match first.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "fdma_drv.h"
#include "fdma_mdbg.h"
#include "fdma_harness.h"

/* Where the block is, as a plat offset. */
static u32 mdbg(const struct fdma_device *fdev)
{
	return fdev->xdma ? FDMA_PLAT_BAR1 : 0;
}

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
	struct fdma_device *fdev = m->private;
	struct fdma_plat *p = &fdev->plat;

	if (READ_ONCE(fdev->dead))
		return -ENODEV;
	seq_printf(m, "faults %u\nrefused %u\nrogue_writes %u\nfault_ack %u\npace %u\n",
		   fdma_plat_rd32(p, mdbg(fdev) + FDMA_MDBG_FAULTS),
		   fdma_plat_rd32(p, mdbg(fdev) + FDMA_MDBG_REFUSED),
		   fdma_plat_rd32(p, mdbg(fdev) + FDMA_MDBG_ROGUE_WRITES),
		   fdma_plat_rd32(p, mdbg(fdev) + FDMA_MDBG_FAULT_ACK),
		   fdma_plat_rd32(p, mdbg(fdev) + FDMA_MDBG_PACE));
	return 0;
}

static int model_open(struct inode *inode, struct file *file)
{
	return single_open(file, model_show, inode->i_private);
}

static ssize_t model_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct fdma_device *fdev = ((struct seq_file *)file->private_data)->private;
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
		fdma_plat_wr32(p, mdbg(fdev) + FDMA_MDBG_FAULT_KIND, k);
		fdma_plat_wr32(p, mdbg(fdev) + FDMA_MDBG_FAULT_CHAN, ch);
		fdma_plat_wr32(p, mdbg(fdev) + FDMA_MDBG_FAULT_AT, at);
		/* The request last: the model reads it first. */
		wmb();
		fdma_plat_wr32(p, mdbg(fdev) + FDMA_MDBG_FAULT_REQ,
			       fdma_plat_rd32(p, mdbg(fdev) + FDMA_MDBG_FAULT_REQ) + 1);
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
		fdma_plat_wr32(p, mdbg(fdev) + FDMA_MDBG_PACE, k);
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

void fdma_harness_debugfs(struct fdma_device *fdev, struct dentry *dir)
{
	if (fdev->pdev &&
	    fdma_plat_rd32(&fdev->plat, mdbg(fdev) + FDMA_MDBG_MAGIC) == FDMA_MDBG_MAGIC_VAL)
		debugfs_create_file("model", 0600, dir, fdev, &model_fops);
}
