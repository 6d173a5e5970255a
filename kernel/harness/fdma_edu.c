// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko, the VM harness's build: QEMU's edu device (1234:11e8) as a
 * second DMA target, bound with edu=1. It is a device model nobody here
 * wrote, so it keeps the driver's DMA mapping and interrupt plumbing
 * honest (QEMU docs/specs/edu.rst).
 *
 * edu moves up to 4 KiB between host memory and its own buffer, seen by
 * the device at 0x40000 (the DMA window); each DMA completes about 100 ms
 * of virtual time after the command and raises interrupt status bit 0x100.
 * It addresses 28 bits of host memory by default: QEMU's dma_mask property
 * changes that and the driver cannot discover it, so edu_dma_bits says it
 * (32 on arm64's virt machine, whose RAM starts at 1 GiB). Interrupts: MSI
 * (one vector) or INTx, which stays asserted until the status is
 * acknowledged.
 *
 * /dev/fdma-eduN: pwrite() and pread() at offset o, length n move the bytes
 * to and from edu's window at o, through one coherent buffer. An edu DMA
 * cannot be aborted: a call waits for its own DMA to finish. User memory is
 * copied to or from a kernel buffer of the caller's outside the device's
 * lock, so that remove(), which takes that lock, never waits for a page
 * fault in user memory (userfaultfd can make one last forever).
 *
 * The file is 4095 bytes, not 4096: QEMU 7.2's edu (Debian 12's QEMU) checks
 * a DMA's end against the window with an off-by-one and stops the whole VM
 * (hw_error) on any DMA that ends at the window's end, so its last byte is
 * never used.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "fdma_drv.h"
#include "fdma_harness.h"

#ifndef PCI_IRQ_INTX
#define PCI_IRQ_INTX PCI_IRQ_LEGACY
#endif

static bool fdma_param_edu;
module_param_named(edu, fdma_param_edu, bool, 0444);
MODULE_PARM_DESC(edu, "VM harness only: bind QEMU's edu device (1234:11e8) as /dev/fdma-eduN (default 0)");

static unsigned int fdma_param_edu_dma_bits = 28;

static int edu_set_dma_bits(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_uint_minmax(val, kp, 28, 64);

	if (ret)
		pr_err("%s=%s: expected 28..64\n", kp->name, val);
	return ret;
}

static const struct kernel_param_ops edu_dma_bits_ops = {
	.set = edu_set_dma_bits,
	.get = param_get_uint,
};
module_param_cb(edu_dma_bits, &edu_dma_bits_ops, &fdma_param_edu_dma_bits, 0444);
MODULE_PARM_DESC(edu_dma_bits,
		 "VM harness only: the DMA address width of QEMU's edu device, its dma_mask property (28..64, default 28, QEMU's default)");

#define EDU_VENDOR		0x1234
#define EDU_DEVICE		0x11e8

#define EDU_REG_IDENT		0x00	/* 0xMMmm00ed */
#define EDU_REG_IRQ_STATUS	0x24
#define EDU_REG_IRQ_ACK		0x64
#define EDU_REG_DMA_SRC		0x80	/* 64-bit */
#define EDU_REG_DMA_DST		0x88	/* 64-bit */
#define EDU_REG_DMA_COUNT	0x90	/* 64-bit */
#define EDU_REG_DMA_CMD		0x98	/* 64-bit */

#define EDU_IDENT_MAGIC		0xed
#define EDU_DMA_RUN		BIT(0)
#define EDU_DMA_TO_RAM		BIT(1)	/* else RAM to edu */
#define EDU_DMA_IRQ		BIT(2)	/* raise EDU_IRQ_DMA when done */
#define EDU_IRQ_DMA		0x100

#define EDU_DMA_WINDOW		0x40000
#define EDU_DMA_SIZE		4096	/* edu's buffer */
#define EDU_FILE_SIZE		(EDU_DMA_SIZE - 1)	/* what we use of it */

/* 100 ms of virtual time per DMA; TCG may stretch it. */
#define EDU_DMA_TIMEOUT_MS	3000

struct fdma_edu {
	struct device dev;	/* /sys/class/fdma/fdma-eduN; release frees */
	struct cdev cdev;
	struct pci_dev *pdev;
	int minor;
	bool dead;
	bool broken;		/* a DMA never finished */

	void __iomem *mmio;
	void *buf;		/* EDU_DMA_SIZE coherent bytes */
	dma_addr_t bus;

	enum fdma_irq_mode irq_mode;
	bool irq_forced;
	int irq;		/* 0 if not requested */

	struct mutex lock;	/* one DMA at a time; owns buf */
	wait_queue_head_t wq;
	bool dma_done;		/* set by the interrupt handler */

	atomic64_t irqs;
	atomic64_t transfers;
	atomic64_t bytes;
	atomic64_t errors;
	atomic64_t lost_irqs;	/* DMA finished, no interrupt seen */
};

static struct fdma_edu *to_edu(struct device *dev)
{
	return container_of(dev, struct fdma_edu, dev);
}

static irqreturn_t fdma_edu_irq(int irq, void *data)
{
	struct fdma_edu *e = data;
	u32 status = readl(e->mmio + EDU_REG_IRQ_STATUS);

	if (!status)
		return IRQ_NONE;	/* INTx shared with another device */
	/* Lowers INTx; with MSI it only clears the status. */
	writel(status, e->mmio + EDU_REG_IRQ_ACK);
	atomic64_inc(&e->irqs);
	if (status & EDU_IRQ_DMA) {
		WRITE_ONCE(e->dma_done, true);
		wake_up(&e->wq);
	}
	return IRQ_HANDLED;
}

static bool edu_dma_running(struct fdma_edu *e)
{
	return readl(e->mmio + EDU_REG_DMA_CMD) & EDU_DMA_RUN;
}

/* Wait, with a bound, for a DMA that outlived its timeout. */
static void edu_drain(struct fdma_edu *e)
{
	unsigned int i;

	for (i = 0; i < 100 && edu_dma_running(e); i++)
		msleep(20);
	if (edu_dma_running(e)) {
		e->broken = true;
		dev_err(&e->pdev->dev, "DMA still running after %u ms: device disabled\n",
			EDU_DMA_TIMEOUT_MS + 2000);
	}
}

/* One DMA of len bytes at window offset off; called with e->lock held. */
static int edu_dma(struct fdma_edu *e, u32 off, u32 len, bool to_ram)
{
	u64 win = EDU_DMA_WINDOW + off;
	long left;

	lockdep_assert_held(&e->lock);
	if (e->broken)
		return -EIO;
	/* edu stops QEMU on a range outside its window: never send one. */
	if (!len || off >= EDU_FILE_SIZE || len > EDU_FILE_SIZE - off)
		return -EINVAL;

	WRITE_ONCE(e->dma_done, false);
	writeq(to_ram ? win : e->bus, e->mmio + EDU_REG_DMA_SRC);
	writeq(to_ram ? e->bus : win, e->mmio + EDU_REG_DMA_DST);
	writeq(len, e->mmio + EDU_REG_DMA_COUNT);
	writeq(EDU_DMA_RUN | EDU_DMA_IRQ | (to_ram ? EDU_DMA_TO_RAM : 0),
	       e->mmio + EDU_REG_DMA_CMD);

	/* Not interruptible: the DMA cannot be stopped, and owns buf. */
	left = wait_event_timeout(e->wq, READ_ONCE(e->dma_done),
				  msecs_to_jiffies(EDU_DMA_TIMEOUT_MS));
	if (left) {
		atomic64_inc(&e->transfers);
		atomic64_add(len, &e->bytes);
		return 0;
	}
	atomic64_inc(&e->errors);
	if (!edu_dma_running(e)) {
		atomic64_inc(&e->lost_irqs);
		dev_err_ratelimited(&e->pdev->dev, "DMA finished but its interrupt never came (%s)\n",
				    fdma_irq_mode_name(e->irq_mode));
		return -EIO;
	}
	dev_err_ratelimited(&e->pdev->dev, "DMA not finished after %u ms\n",
			    EDU_DMA_TIMEOUT_MS);
	edu_drain(e);
	return -ETIMEDOUT;
}

/* ---- character device --------------------------------------------------- */

static int edu_lock(struct fdma_edu *e, struct file *file)
{
	if (file->f_flags & O_NONBLOCK)
		return mutex_trylock(&e->lock) ? 0 : -EAGAIN;
	return mutex_lock_interruptible(&e->lock);
}

static int fdma_edu_open(struct inode *inode, struct file *file)
{
	struct fdma_edu *e = container_of(inode->i_cdev, struct fdma_edu,
					  cdev);

	if (READ_ONCE(e->dead))
		return -ENODEV;
	file->private_data = e;
	return 0;
}

static ssize_t fdma_edu_read(struct file *file, char __user *buf,
			     size_t count, loff_t *ppos)
{
	struct fdma_edu *e = file->private_data;
	void *tmp;
	ssize_t ret;

	ret = fdma_range_check(EDU_FILE_SIZE, *ppos, &count, false);
	if (ret || !count)
		return ret;
	tmp = kmalloc(count, GFP_KERNEL);
	if (!tmp)
		return -ENOMEM;
	ret = edu_lock(e, file);
	if (ret)
		goto out;
	if (READ_ONCE(e->dead))
		ret = -ENODEV;
	else
		ret = edu_dma(e, *ppos, count, true);
	if (!ret)
		memcpy(tmp, e->buf, count);
	mutex_unlock(&e->lock);
	if (!ret && copy_to_user(buf, tmp, count))
		ret = -EFAULT;
	if (!ret) {
		*ppos += count;
		ret = count;
	}
out:
	kfree(tmp);
	return ret;
}

static ssize_t fdma_edu_write(struct file *file, const char __user *buf,
			      size_t count, loff_t *ppos)
{
	struct fdma_edu *e = file->private_data;
	void *tmp;
	ssize_t ret;

	ret = fdma_range_check(EDU_FILE_SIZE, *ppos, &count, true);
	if (ret || !count)
		return ret;
	tmp = memdup_user(buf, count);
	if (IS_ERR(tmp))
		return PTR_ERR(tmp);
	ret = edu_lock(e, file);
	if (ret)
		goto out;
	if (READ_ONCE(e->dead)) {
		ret = -ENODEV;
	} else {
		memcpy(e->buf, tmp, count);
		ret = edu_dma(e, *ppos, count, false);
	}
	mutex_unlock(&e->lock);
	if (!ret) {
		*ppos += count;
		ret = count;
	}
out:
	kfree(tmp);
	return ret;
}

static loff_t fdma_edu_llseek(struct file *file, loff_t offset, int whence)
{
	return fixed_size_llseek(file, offset, whence, EDU_FILE_SIZE);
}

static const struct file_operations fdma_edu_fops = {
	.owner = THIS_MODULE,
	.open = fdma_edu_open,
	.read = fdma_edu_read,
	.write = fdma_edu_write,
	.llseek = fdma_edu_llseek,
};

/* ---- sysfs -------------------------------------------------------------- */

static ssize_t irq_mode_show(struct device *dev, struct device_attribute *a,
			     char *buf)
{
	return sysfs_emit(buf, "%s\n", fdma_irq_mode_name(to_edu(dev)->irq_mode));
}
static DEVICE_ATTR_RO(irq_mode);

static ssize_t edu_stat_show(char *buf, atomic64_t *v)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(v));
}

static ssize_t transfers_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	return edu_stat_show(buf, &to_edu(dev)->transfers);
}

static ssize_t bytes_show(struct device *dev, struct device_attribute *a,
			  char *buf)
{
	return edu_stat_show(buf, &to_edu(dev)->bytes);
}

static ssize_t errors_show(struct device *dev, struct device_attribute *a,
			   char *buf)
{
	return edu_stat_show(buf, &to_edu(dev)->errors);
}

static ssize_t lost_irqs_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	return edu_stat_show(buf, &to_edu(dev)->lost_irqs);
}

static DEVICE_ATTR_RO(transfers);
static DEVICE_ATTR_RO(bytes);
static DEVICE_ATTR_RO(errors);
static DEVICE_ATTR_RO(lost_irqs);

static ssize_t interrupts_show(struct device *dev, struct device_attribute *a,
			       char *buf)
{
	return edu_stat_show(buf, &to_edu(dev)->irqs);
}
static DEVICE_ATTR_RO(interrupts);

static ssize_t size_show(struct device *dev, struct device_attribute *a,
			 char *buf)
{
	return sysfs_emit(buf, "%u\n", EDU_FILE_SIZE);
}
static DEVICE_ATTR_RO(size);

static struct attribute *fdma_edu_attrs[] = {
	&dev_attr_irq_mode.attr,
	&dev_attr_size.attr,
	&dev_attr_interrupts.attr,
	&dev_attr_transfers.attr,
	&dev_attr_bytes.attr,
	&dev_attr_errors.attr,
	&dev_attr_lost_irqs.attr,
	NULL
};
ATTRIBUTE_GROUPS(fdma_edu);

/* ---- probe and remove ------------------------------------------------- */

static int edu_irq_setup(struct fdma_edu *e)
{
	struct pci_dev *pdev = e->pdev;
	enum fdma_irq_mode mode = fdma_param_irq_mode;
	int n = -ENODEV, ret;

	e->irq_forced = mode != FDMA_IRQ_AUTO;
	/* Nothing pending from an earlier user: INTx would fire at once. */
	writel(~0u, e->mmio + EDU_REG_IRQ_ACK);

	if (mode == FDMA_IRQ_MSIX) {
		dev_err(&pdev->dev, "irq_mode=msix: edu has no MSI-X\n");
		return -ENODEV;
	}
	if (mode == FDMA_IRQ_AUTO || mode == FDMA_IRQ_MSI) {
		n = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSI);
		e->irq_mode = FDMA_IRQ_MSI;
		if (n < 0)
			dev_info(&pdev->dev, "msi not available (%d)\n", n);
	}
	if (n < 0 && (mode == FDMA_IRQ_AUTO || mode == FDMA_IRQ_INTX)) {
		n = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_INTX);
		e->irq_mode = FDMA_IRQ_INTX;
	}
	if (n < 0) {
		dev_err(&pdev->dev, "no usable interrupt for irq_mode=%s (%d)\n",
			fdma_irq_mode_name(mode), n);
		return n;
	}
	ret = request_irq(pci_irq_vector(pdev, 0), fdma_edu_irq,
			  e->irq_mode == FDMA_IRQ_INTX ? IRQF_SHARED : 0,
			  dev_name(&e->dev), e);
	if (ret) {
		pci_free_irq_vectors(pdev);
		return ret;
	}
	e->irq = pci_irq_vector(pdev, 0);
	dev_info(&pdev->dev, "interrupts: %s, irq %d%s\n",
		 fdma_irq_mode_name(e->irq_mode), e->irq,
		 e->irq_forced ? " (forced by irq_mode)" : "");
	return 0;
}

static void edu_irq_teardown(struct fdma_edu *e)
{
	if (!e->irq)
		return;
	free_irq(e->irq, e);
	pci_free_irq_vectors(e->pdev);
	e->irq = 0;
}

static void fdma_edu_release(struct device *dev)
{
	struct fdma_edu *e = to_edu(dev);

	if (e->minor >= 0)
		fdma_minor_put(e->minor);
	kfree(e);
}

static int fdma_edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct fdma_edu *e;
	u32 ident;
	int ret;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->pdev = pdev;
	e->minor = -1;
	mutex_init(&e->lock);
	init_waitqueue_head(&e->wq);
	device_initialize(&e->dev);
	e->dev.release = fdma_edu_release;
	e->dev.class = &fdma_class;
	e->dev.parent = &pdev->dev;
	e->dev.groups = fdma_edu_groups;

	ret = fdma_minor_get(true);
	if (ret < 0)
		goto err_put;
	e->minor = ret;
	e->dev.devt = fdma_devt(e->minor);
	ret = dev_set_name(&e->dev, "fdma-edu%d",
			   e->minor - FDMA_EDU_MINOR_BASE);
	if (ret)
		goto err_put;

	ret = pci_enable_device(pdev);
	if (ret)
		goto err_put;
	ret = pci_request_regions(pdev, "fdma-edu");
	if (ret)
		goto err_disable;
	e->mmio = pci_iomap(pdev, 0, 0);
	if (!e->mmio) {
		ret = -ENOMEM;
		goto err_regions;
	}
	ident = readl(e->mmio + EDU_REG_IDENT);
	if ((ident & 0xff) != EDU_IDENT_MAGIC) {
		dev_info(&pdev->dev, "not an edu device (ident 0x%08x)\n",
			 ident);
		ret = -ENODEV;
		goto err_unmap;
	}
	ret = dma_set_mask_and_coherent(&pdev->dev,
					DMA_BIT_MASK(fdma_param_edu_dma_bits));
	if (ret) {
		dev_err(&pdev->dev, "no %u-bit DMA (edu_dma_bits)\n",
			fdma_param_edu_dma_bits);
		goto err_unmap;
	}
	e->buf = dma_alloc_coherent(&pdev->dev, EDU_DMA_SIZE, &e->bus,
				    GFP_KERNEL);
	if (!e->buf) {
		ret = -ENOMEM;
		goto err_unmap;
	}
	pci_set_master(pdev);
	ret = edu_irq_setup(e);
	if (ret)
		goto err_master;

	cdev_init(&e->cdev, &fdma_edu_fops);
	e->cdev.owner = THIS_MODULE;
	pci_set_drvdata(pdev, e);
	ret = cdev_device_add(&e->cdev, &e->dev);
	if (ret)
		goto err_irq;
	dev_info(&pdev->dev, "%s: edu %u.%u, DMA window 0x%x, %u bytes used, %u-bit DMA\n",
		 dev_name(&e->dev), ident >> 24, (ident >> 16) & 0xff,
		 EDU_DMA_WINDOW, EDU_FILE_SIZE, fdma_param_edu_dma_bits);
	return 0;

err_irq:
	pci_set_drvdata(pdev, NULL);
	edu_irq_teardown(e);
err_master:
	pci_clear_master(pdev);
	dma_free_coherent(&pdev->dev, EDU_DMA_SIZE, e->buf, e->bus);
err_unmap:
	pci_iounmap(pdev, e->mmio);
err_regions:
	pci_release_regions(pdev);
err_disable:
	pci_disable_device(pdev);
err_put:
	put_device(&e->dev);
	return ret;
}

static void fdma_edu_remove(struct pci_dev *pdev)
{
	struct fdma_edu *e = pci_get_drvdata(pdev);

	WRITE_ONCE(e->dead, true);
	cdev_device_del(&e->cdev, &e->dev);
	/* Wait for a DMA in progress: it owns the buffer. */
	mutex_lock(&e->lock);
	if (!e->broken)
		edu_drain(e);
	mutex_unlock(&e->lock);
	edu_irq_teardown(e);
	pci_clear_master(pdev);
	dma_free_coherent(&pdev->dev, EDU_DMA_SIZE, e->buf, e->bus);
	pci_iounmap(pdev, e->mmio);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
	pci_set_drvdata(pdev, NULL);
	put_device(&e->dev);
}

static const struct pci_device_id fdma_edu_ids[] = {
	{ PCI_DEVICE(EDU_VENDOR, EDU_DEVICE) },
	{ }
};

static struct pci_driver fdma_edu_driver = {
	.name = "fdma-edu",
	.id_table = fdma_edu_ids,
	.probe = fdma_edu_probe,
	.remove = fdma_edu_remove,
};

int fdma_harness_init(void)
{
	return fdma_param_edu ? pci_register_driver(&fdma_edu_driver) : 0;
}

void fdma_harness_exit(void)
{
	if (fdma_param_edu)
		pci_unregister_driver(&fdma_edu_driver);
}
