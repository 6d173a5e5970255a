// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: interrupts. MSI-X, then MSI, then INTx, unless irq_mode forces
 * one; what was granted is logged and shown in sysfs (irq_mode).
 *
 * Channel ch raises vector ch when there are enough vectors, else vector
 * ch % nvec (several channels then share one). Each vector is a threaded
 * interrupt: the hard handler counts the interrupt per channel and wakes
 * the thread; the thread reaps the channels of its vector under their
 * locks (fdma_chan_irq(): completion queues, read/write waiters), in
 * process context, since a channel reset sleeps.
 *
 * INTx: the FDMA engine 1.x has no interrupt acknowledge register, so a
 * level-triggered INTx line could never be lowered (docs/engine.md,
 * section 7); an FDMA function is therefore never run on INTx, unless a
 * shim acknowledges it (struct fdma_shim_ops: the VM harness's ivshmem,
 * whose IntrStatus is read to clear, if that ivshmem has an INTx pin;
 * QEMU's ivshmem-doorbell, QEMU >= 2.6, has none: it interrupts by MSI-X
 * only, and irq_mode=msi or intx fails the probe). An XDMA function can run
 * on INTx: its IRQ block says which channels are asserted, and their
 * clear-on-read status (read in the thread) lowers the line, which stays
 * masked until then (IRQF_ONESHOT).
 *
 * Every interrupt, and every poll, acknowledges the channel's interrupt
 * before it reaps (fdma_chan_intr(): XDMA sends the next one only then).
 *
 * irq_mode=poll: no interrupts; a thread reaps the channels every poll_us
 * while requests are in flight, every ms otherwise (XDMA's poll mode).
 *
 * Vectors belong to fdev->irq_pdev: the function itself, or, for a
 * function behind QEMU's proxy in the VM harness, the ivshmem carrier of
 * harness/fdma_carrier.c (fdma_harness_irq_pdev()).
 */
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/kthread.h>
#include <linux/pci.h>

#include "fdma_compat.h"
#include "fdma_drv.h"
#include "fdma_harness.h"

#ifndef PCI_IRQ_INTX
#define PCI_IRQ_INTX PCI_IRQ_LEGACY
#endif

void fdma_irq_count(struct fdma_device *fdev, u32 mask)
{
	while (mask) {
		struct fdma_chan *c = &fdev->chan[__ffs(mask)];

		mask &= mask - 1;
		atomic64_inc(&c->st.irqs);
	}
}

/*
 * The channels of mask whose client drives the ring (a network interface:
 * its NAPI is scheduled from here) are handed to it; the others are left
 * for the thread. The client is read once: its release waits for RCU,
 * which an interrupt handler holds off.
 */
static u32 fdma_irq_clients(struct fdma_device *fdev, u32 mask)
{
	u32 thread = 0;

	while (mask) {
		struct fdma_chan *c = &fdev->chan[__ffs(mask)];
		struct fdma_chan_client *cl = READ_ONCE(c->client);

		if (cl && cl->ops->own_ring)
			cl->ops->irq(c, cl);
		else
			thread |= mask & -mask;
		mask &= mask - 1;
	}
	return thread;
}

static irqreturn_t fdma_irq_msi(int irq, void *data)
{
	struct fdma_vec *v = data;

	fdma_irq_count(v->fdev, v->chan_mask);
	return fdma_irq_clients(v->fdev, v->chan_mask) ? IRQ_WAKE_THREAD : IRQ_HANDLED;
}

/* The thread: acknowledge and reap every channel of the vector. */
static irqreturn_t fdma_irq_thread(int irq, void *data)
{
	struct fdma_vec *v = data;
	u32 mask = v->chan_mask;

	while (mask) {
		fdma_chan_intr(&v->fdev->chan[__ffs(mask)]);
		mask &= mask - 1;
	}
	return IRQ_HANDLED;
}

/* INTx of an engine that says which channels interrupt (XDMA), maybe shared. */
static irqreturn_t fdma_irq_engine_intx(int irq, void *data)
{
	struct fdma_vec *v = data;
	struct fdma_device *fdev = v->fdev;
	u32 mask = fdma_eng_irq_pending(&fdev->plat, &fdev->caps) & v->chan_mask;

	if (!mask)
		return IRQ_NONE;
	fdma_irq_count(fdev, mask);
	/*
	 * A client that drives its ring masks the channel at the engine in
	 * its handler, which lowers the line (its poll unmasks it once done):
	 * the thread, which reads the clear-on-read status of the others,
	 * would only kick it, and the line would stay up meanwhile.
	 */
	return fdma_irq_clients(fdev, mask) ? IRQ_WAKE_THREAD : IRQ_HANDLED;
}

/* ---- poll mode ------------------------------------------------------------ */

static bool chan_busy(struct fdma_chan *c)
{
	struct fdma_chan_client *cl;
	struct fdma_ring_pos p;
	bool busy = false;

	/*
	 * A ring its client drives keeps buffers posted while idle (a
	 * receive ring): the client says whether there is work to fetch.
	 */
	rcu_read_lock();
	cl = READ_ONCE(c->client);
	if (cl && cl->ops->own_ring) {
		busy = cl->ops->busy(c, cl);
		rcu_read_unlock();
		return busy;
	}
	rcu_read_unlock();
	mutex_lock(&c->lock);
	if (c->up) {
		c->ops->pos(c, &p);
		busy = p.posted != p.reaped;
	}
	mutex_unlock(&c->lock);
	return busy;
}

static int fdma_poll_thread(void *data)
{
	struct fdma_device *fdev = data;

	while (!kthread_should_stop()) {
		bool busy = false;
		u32 i;

		for (i = 0; i < fdev->caps.nchan; i++) {
			struct fdma_chan *c = &fdev->chan[i];

			if (chan_busy(c)) {
				busy = true;
				fdma_chan_intr(c);
			}
		}
		if (busy) {
			unsigned int us = READ_ONCE(fdma_param_poll_us);

			usleep_range(us, us + us / 2);
		} else {
			schedule_timeout_interruptible(msecs_to_jiffies(1));
		}
	}
	return 0;
}

static int fdma_poll_start(struct fdma_device *fdev)
{
	struct task_struct *t;

	t = kthread_run(fdma_poll_thread, fdev, "fdma%d-poll", fdev->minor);
	if (IS_ERR(t))
		return PTR_ERR(t);
	fdev->poll_task = t;
	fdev->irq_mode = FDMA_IRQ_POLL;
	fdev->irq_forced = true;
	dev_info(&fdev->pdev->dev, "interrupts: none, polled every %u us (irq_mode=poll)\n",
		 fdma_param_poll_us);
	return 0;
}

/* A user interrupt's vector: its listeners are told from the thread. */
static irqreturn_t fdma_irq_user(int irq, void *data)
{
	return IRQ_WAKE_THREAD;
}

static irqreturn_t fdma_irq_user_thread(int irq, void *data)
{
	struct fdma_vec *v = data;

	fdma_user_irq(v->fdev, v->user);
	return IRQ_HANDLED;
}

void fdma_user_irq(struct fdma_device *fdev, u32 k)
{
	struct fdma_file *f;

	mutex_lock(&fdev->files_lock);
	list_for_each_entry(f, &fdev->files, node) {
		spin_lock_irq(&f->uirq_lock);
		if (f->uirq[k])
			fdma_eventfd_signal(f->uirq[k]);
		spin_unlock_irq(&f->uirq_lock);
	}
	mutex_unlock(&fdev->files_lock);
}

static int fdma_irq_alloc(struct fdma_device *fdev, enum fdma_irq_mode mode)
{
	struct pci_dev *pdev = fdev->irq_pdev;
	/* MSI-X: a vector per channel, and one per user interrupt if there are enough. */
	u32 want = fdev->caps.nchan + (mode == FDMA_IRQ_MSIX ? fdev->caps.user_irqs : 0);
	int n;

	switch (mode) {
	case FDMA_IRQ_MSIX:
		if (!pdev->msix_cap)
			return -ENODEV;
		return pci_alloc_irq_vectors(pdev, 1, want, PCI_IRQ_MSIX);
	case FDMA_IRQ_MSI:
		if (!pdev->msi_cap)
			return -ENODEV;
		return pci_alloc_irq_vectors(pdev, 1, want, PCI_IRQ_MSI);
	case FDMA_IRQ_INTX:
		if (fdev->caps.eng->irq_pending) {
			if (!pdev->pin || !pdev->irq)
				return -ENODEV;
			return pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_INTX);
		}
		if (!fdev->shim || !fdev->shim->intx) {
			dev_info(&pdev->dev,
				 "INTx not usable: FDMA 1.x has no interrupt acknowledge register\n");
			return -EOPNOTSUPP;
		}
		if (!pdev->pin || !pdev->irq)
			return -ENODEV;
		n = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_INTX);
		if (n > 0)	/* the shim acknowledges it: its status unmasked */
			fdev->shim->intx_enable(fdev, true);
		return n;
	default:
		return -EINVAL;
	}
}

static void fdma_irq_free_vectors(struct fdma_device *fdev)
{
	u32 i;

	for (i = 0; i < fdev->nvec; i++) {
		if (fdev->vec[i].irq)
			free_irq(fdev->vec[i].irq, &fdev->vec[i]);
		fdev->vec[i].irq = 0;
	}
	if (fdev->nvec && fdev->irq_mode == FDMA_IRQ_INTX && fdev->shim)
		fdev->shim->intx_enable(fdev, false);
	if (fdev->nvec)
		pci_free_irq_vectors(fdev->irq_pdev);
	fdev->nvec = 0;
	if (fdev->irq_pdev && fdev->irq_pdev != fdev->pdev)
		fdma_harness_irq_put(fdev, fdev->irq_pdev);
	fdev->irq_pdev = NULL;
}

int fdma_irq_setup(struct fdma_device *fdev)
{
	static const enum fdma_irq_mode order[] = {
		FDMA_IRQ_MSIX, FDMA_IRQ_MSI, FDMA_IRQ_INTX,
	};
	struct pci_dev *pdev = fdev->pdev;
	enum fdma_irq_mode mode = FDMA_IRQ_AUTO;
	irq_handler_t handler;
	unsigned long flags;
	int n = -ENODEV, ret;
	u32 i;

	if (fdma_param_irq_mode == FDMA_IRQ_POLL)
		return fdma_poll_start(fdev);
	/* The VM harness may lend another function's vectors (fdma_harness.h). */
	fdev->irq_pdev = fdma_harness_irq_pdev(fdev);
	if (IS_ERR(fdev->irq_pdev)) {
		ret = PTR_ERR(fdev->irq_pdev);
		fdev->irq_pdev = NULL;
		return ret;
	}
	if (!fdev->irq_pdev)
		fdev->irq_pdev = pdev;
	fdev->irq_forced = fdma_param_irq_mode != FDMA_IRQ_AUTO;
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		if (fdev->irq_forced && order[i] != fdma_param_irq_mode)
			continue;
		mode = order[i];
		n = fdma_irq_alloc(fdev, mode);
		if (n > 0)
			break;
		dev_info(&pdev->dev, "%s not available (%d)\n",
			 fdma_irq_mode_name(mode), n);
	}
	if (n <= 0) {
		if (fdev->irq_forced)
			dev_err(&pdev->dev, "irq_mode=%s: this device cannot interrupt that way\n",
				fdma_irq_mode_name(fdma_param_irq_mode));
		else
			dev_err(&pdev->dev, "no usable interrupt (MSI-X, MSI or INTx)\n");
		fdma_irq_free_vectors(fdev);
		return n ? n : -ENODEV;
	}
	fdev->irq_mode = mode;
	fdev->nvec = n;
	fdev->nuirq = 0;
	if (mode == FDMA_IRQ_MSIX && fdev->caps.user_irqs &&
	    n >= fdev->caps.nchan + min_t(u32, fdev->caps.user_irqs, FDMA_USER_IRQS_MAX))
		fdev->nuirq = min_t(u32, fdev->caps.user_irqs, FDMA_USER_IRQS_MAX);

	for (i = 0; i < fdev->nvec; i++)
		fdev->vec[i].user = -1;
	for (i = 0; i < fdev->caps.nchan; i++) {
		fdev->chan[i].vec = i % n;
		fdev->vec[i % n].chan_mask |= BIT(i);
	}
	for (i = 0; i < fdev->nuirq; i++)
		fdev->vec[fdev->caps.nchan + i].user = i;
	handler = fdma_irq_msi;
	flags = 0;
	if (mode == FDMA_IRQ_INTX) {
		handler = fdev->shim ? fdev->shim->intx : fdma_irq_engine_intx;
		/* XDMA's line stays high until the thread reads the status: masked till then. */
		flags = IRQF_SHARED | (fdev->shim ? 0 : IRQF_ONESHOT);
	}
	for (i = 0; i < fdev->nvec; i++) {
		struct fdma_vec *v = &fdev->vec[i];
		int irq = pci_irq_vector(fdev->irq_pdev, i);

		v->fdev = fdev;
		v->idx = i;
		if (v->user >= 0) {
			snprintf(v->name, sizeof(v->name), "fdma%d-user%d", fdev->minor, v->user);
			ret = request_threaded_irq(irq, fdma_irq_user, fdma_irq_user_thread, 0,
						   v->name, v);
		} else if (v->chan_mask) {
			snprintf(v->name, sizeof(v->name), "fdma%d-%u", fdev->minor, i);
			ret = request_threaded_irq(irq, handler, fdma_irq_thread,
						   flags, v->name, v);
		} else {
			continue;	/* a vector nobody raises */
		}
		if (ret) {
			dev_err(&pdev->dev, "cannot request irq %d: %d\n",
				irq, ret);
			fdma_irq_free_vectors(fdev);
			return ret;
		}
		v->irq = irq;
	}
	dev_info(&pdev->dev, "interrupts: %s, %u vector%s for %u channel%s and %u user interrupt%s%s\n",
		 fdma_irq_mode_name(mode), fdev->nvec,
		 fdev->nvec == 1 ? "" : "s", fdev->caps.nchan,
		 fdev->caps.nchan == 1 ? "" : "s", fdev->nuirq, fdev->nuirq == 1 ? "" : "s",
		 fdev->irq_forced ? " (forced by irq_mode)" : "");
	return 0;
}

void fdma_irq_teardown(struct fdma_device *fdev)
{
	if (fdev->poll_task) {
		kthread_stop(fdev->poll_task);
		fdev->poll_task = NULL;
	}
	fdma_irq_free_vectors(fdev);
}
