// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: the device node every backend shares. An FDMA function
 * (fdma_pci.c) and a group of dmaengine channels (fdma_dmac.ko) are the
 * same /dev/fdmaN with the same user interface; what differs sits behind
 * each channel's struct fdma_ring_ops. This file is the part of probe and
 * remove they have in common (a backend module reaches it through
 * fdma_backend.c's two calls, fdma_backend_add() and _remove()):
 *
 *   fdma_dev_alloc()       the class device, its minor and locks
 *   (backend)              capabilities, ring_size, dma_align, c->ops
 *   fdma_dev_chans_init()  every channel up
 *   fdma_dev_publish()     sysfs, /dev/fdmaN, debugfs
 *   ...
 *   fdma_dev_unpublish()   dead: sleepers woken, no new opens
 *   fdma_dev_chans_stop()  everything in flight handed back
 *   (backend)              the device stops mastering the bus: quiesced
 *   fdma_dev_chans_free()  buffers revoked, rings freed
 *   fdma_dev_put()         freed now, or at the last close
 *
 * Lifetime: struct fdma_device embeds the class device; open files hold it
 * through the character device, so it outlives the backend's removal until
 * the last close. The character device's owner is the backend's module, so
 * that module stays while a file is open.
 */
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "fdma_drv.h"

static void fdma_dev_release(struct device *dev)
{
	struct fdma_device *fdev = to_fdma_dev(dev);
	u32 i;

	/*
	 * Buffers kept because a reset failed: remove() gave their memory
	 * back, or kept it for good; what is left is bookkeeping.
	 */
	fdma_buf_quarantine_free(fdev);
	/* No file is open: no read() or write() uses them any more. */
	for (i = 0; i < FDMA_MAX_CHANNELS; i++)
		fdma_chan_free_bounce(&fdev->chan[i]);
	ida_destroy(&fdev->handles);
	fdma_sysfs_free(fdev);
	if (fdev->minor >= 0)
		fdma_minor_put(fdev->minor);
	pci_dev_put(fdev->pdev);
	put_device(fdev->dma_dev);
	kfree(fdev);
}

/*
 * A new device named fdmaN, child of parent, whose buffers are mapped for
 * dma_dev (both referenced until the release). Freed with fdma_dev_put().
 */
struct fdma_device *fdma_dev_alloc(struct device *parent, struct device *dma_dev)
{
	struct fdma_device *fdev;
	u32 i;
	int ret;

	fdev = kzalloc(sizeof(*fdev), GFP_KERNEL);
	if (!fdev)
		return ERR_PTR(-ENOMEM);
	fdev->dma_dev = get_device(dma_dev);
	mutex_init(&fdev->files_lock);
	INIT_LIST_HEAD(&fdev->files);
	init_rwsem(&fdev->revoke_sem);
	ida_init(&fdev->handles);
	mutex_init(&fdev->buf_lock);
	INIT_LIST_HEAD(&fdev->bufs);
	spin_lock_init(&fdev->qlock);
	INIT_LIST_HEAD(&fdev->quarantine);
	fdev->minor = -1;
	fdev->h2c = -1;
	fdev->c2h = -1;
	device_initialize(&fdev->dev);
	fdev->dev.release = fdma_dev_release;
	fdev->dev.class = &fdma_class;
	fdev->dev.parent = parent;
	for (i = 0; i < FDMA_MAX_CHANNELS; i++)
		fdma_chan_setup(fdev, i);

	ret = fdma_minor_get(false);
	if (ret < 0)
		goto err;
	fdev->minor = ret;
	fdev->dev.devt = fdma_devt(fdev->minor);
	ret = dev_set_name(&fdev->dev, "fdma%d", fdev->minor);
	if (ret)
		goto err;
	return fdev;
err:
	put_device(&fdev->dev);
	return ERR_PTR(ret);
}

/* Bring up channels 0..nchan-1 (c->ops set by the backend); all or none. */
int fdma_dev_chans_init(struct fdma_device *fdev)
{
	u32 i;
	int ret;

	for (i = 0; i < fdev->caps.nchan; i++) {
		ret = fdma_chan_init(fdev, i);
		if (ret) {
			fdma_dev_chans_stop(fdev);
			fdma_dev_chans_free(fdev, true);
			return ret;
		}
	}
	return 0;
}

/* sysfs, /dev/fdmaN (opens hold owner), debugfs. */
int fdma_dev_publish(struct fdma_device *fdev, struct module *owner)
{
	int ret;

	ret = fdma_sysfs_init(fdev);
	if (ret)
		return ret;
	cdev_init(&fdev->cdev, &fdma_cdev_fops);
	fdev->cdev.owner = owner;
	ret = cdev_device_add(&fdev->cdev, &fdev->dev);
	if (ret)
		return ret;
	fdma_debugfs_add(fdev);
	return 0;
}

/*
 * New operations fail from here (-ENODEV), sleepers wake up and leave; no
 * new opens and no sysfs or debugfs access once this returns.
 */
void fdma_dev_unpublish(struct fdma_device *fdev)
{
	u32 i;

	WRITE_ONCE(fdev->dead, true);
	for (i = 0; i < fdev->caps.nchan; i++)
		wake_up_all(&fdev->chan[i].wq);
	fdma_files_wake(fdev);
	fdma_debugfs_remove(fdev);
	cdev_device_del(&fdev->cdev, &fdev->dev);
}

/* Every channel reset (bounded), everything in flight handed back. */
void fdma_dev_chans_stop(struct fdma_device *fdev)
{
	u32 i;

	for (i = 0; i < fdev->caps.nchan; i++)
		fdma_chan_stop(&fdev->chan[i]);
}

/*
 * Once the device stopped mastering the bus (fdev->quiesced set by the
 * backend, or left false to keep what it may still write): the bounce
 * buffers unmapped, every buffer revoked, the rings freed. free_bounce: no
 * file can be open (a failed probe), so the bounce pages go too.
 */
void fdma_dev_chans_free(struct fdma_device *fdev, bool free_bounce)
{
	u32 i;

	for (i = 0; i < fdev->caps.nchan; i++)
		fdma_chan_unmap_bounce(&fdev->chan[i]);
	down_write(&fdev->revoke_sem);
	fdma_buf_revoke_all(fdev);
	up_write(&fdev->revoke_sem);
	for (i = 0; i < fdev->caps.nchan; i++) {
		fdma_chan_free(&fdev->chan[i]);
		if (free_bounce)
			fdma_chan_free_bounce(&fdev->chan[i]);
	}
}

void fdma_dev_put(struct fdma_device *fdev)
{
	put_device(&fdev->dev);
}
EXPORT_SYMBOL_NS_GPL(fdma_dev_put, FDMA);
