// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma_testexp.ko: a dma-buf exporter for fdma.ko's import tests, doing
 * what real exporters may do and the kernel's own test exporters do not,
 * and a dmaengine provider that misbehaves on demand for fdma_dmac.ko's.
 * A test fixture of the VM harness, not part of fdma.
 *
 * /dev/fdma_testexp:
 *   TESTEXP_CREATE  a dma-buf of size bytes (zeroed pages, mmap-able),
 *                   dynamic (pin/unpin, mapped under its reservation
 *                   lock). With TESTEXP_NULL_PAGES its mappings hand out
 *                   scatterlists whose entries have DMA addresses and
 *                   lengths but no struct page, as P2P and GPU exporters
 *                   do: an importer that looks at sg_page() crashes.
 *                   TESTEXP_P2P: a peer's memory as a GPU exports its
 *                   BAR: one entry mapped with dma_map_resource(), no
 *                   page, marked a bus address where the kernel keeps
 *                   the mark, offered only to importers that allow
 *                   peer-to-peer. Behind it is physically contiguous RAM
 *                   of ours, since the device model reaches only guest
 *                   RAM: bytes really move and the test checks them.
 *                   TESTEXP_P2P_BAR: the same over a real BAR, the
 *                   unused upper half of the ivshmem function's shared
 *                   memory (BAR2), at most 512 KiB: what a sync of a
 *                   peer's address does is seen (on arm64, a fault),
 *                   but the model refuses DMA there (ADDR_ERR), so no
 *                   byte moves. mmap() maps the BAR.
 *   TESTEXP_MOVE    move_notify on every attachment of the dma-buf fd,
 *                   now (a real exporter does it when it evicts memory),
 *                   whether or not they pinned it.
 *   TESTEXP_COUNTS  what is outstanding, over all its dma-bufs: buffers,
 *                   attachments, mappings, pins; imports refused for
 *                   not allowing peer-to-peer; whether this kernel can
 *                   mark bus addresses. An importer that leaks one shows
 *                   here after its files are closed.
 *   TESTEXP_PROV    a dmaengine provider of one private DMA_MEMCPY
 *                   channel (TESTEXP_PROV_ADD, whose name it returns;
 *                   TESTEXP_PROV_DEL). It moves no data: every
 *                   descriptor is held until TESTEXP_PROV_FIRE completes
 *                   them all (aborted, nothing moved) and calls their
 *                   callbacks, as a provider may, late. With
 *                   TESTEXP_PROV_FAIL set, terminate_all fails and keeps
 *                   what it holds; else it drops it without a callback.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/dmaengine.h>
#include <linux/file.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

MODULE_IMPORT_NS(DMA_BUF);

struct testexp_create {
	__u64 size;
	__u32 flags;
	__s32 fd;		/* out */
};

struct testexp_counts {
	__s64 bufs, attachments, maps, pins, moves;
	__s64 p2p_refused;	/* attachments refused: no peer-to-peer */
	__s64 can_mark;		/* 1: this kernel keeps the bus-address mark */
};

struct testexp_prov {
	__u32 cmd;		/* TESTEXP_PROV_* */
	__u32 flags;		/* ADD, MODE: TESTEXP_PROV_FAIL */
	__s64 n;		/* out: descriptors held (FIRE: fired) */
	char name[32];		/* out (ADD): the channel's dmaengine name */
};

#define TESTEXP_NULL_PAGES	0x1
#define TESTEXP_P2P		0x2
#define TESTEXP_P2P_BAR		0x4
#define TESTEXP_CREATE	_IOWR('X', 1, struct testexp_create)
#define TESTEXP_MOVE	_IOW('X', 2, __s32)
#define TESTEXP_COUNTS	_IOR('X', 3, struct testexp_counts)
#define TESTEXP_PROV	_IOWR('X', 4, struct testexp_prov)

#define TESTEXP_PROV_ADD	1
#define TESTEXP_PROV_DEL	2
#define TESTEXP_PROV_MODE	3
#define TESTEXP_PROV_FIRE	4
#define TESTEXP_PROV_FAIL	0x1

/* The ivshmem function's shared memory: its upper half is unused. */
#define TEXP_BAR		2
#define TEXP_BAR_OFF		SZ_512K

static atomic64_t n_bufs, n_attach, n_maps, n_pins, n_moves, n_refused;

struct texp_buf {
	struct page **pages;
	unsigned long npages;
	unsigned int order;	/* TESTEXP_P2P: one allocation of this order */
	u32 flags;
	struct pci_dev *bar_dev;	/* TESTEXP_P2P_BAR */
	phys_addr_t phys;	/* TESTEXP_P2P*: what dma_map_resource() maps */
	size_t size;
};

/* One mapping: the real one, and the copy without pages handed out. */
struct texp_map {
	struct sg_table real;
	struct sg_table bare;
	dma_addr_t res;		/* TESTEXP_P2P*: the resource's mapping */
};

static int texp_attach(struct dma_buf *d, struct dma_buf_attachment *a)
{
	struct texp_buf *b = d->priv;

	/* A peer's memory: only for importers that can take it. */
	if ((b->flags & (TESTEXP_P2P | TESTEXP_P2P_BAR)) && !a->peer2peer) {
		atomic64_inc(&n_refused);
		return -EOPNOTSUPP;
	}
	atomic64_inc(&n_attach);
	return 0;
}

static void texp_detach(struct dma_buf *d, struct dma_buf_attachment *a)
{
	atomic64_dec(&n_attach);
}

static int texp_pin(struct dma_buf_attachment *a)
{
	atomic64_inc(&n_pins);
	return 0;
}

static void texp_unpin(struct dma_buf_attachment *a)
{
	atomic64_dec(&n_pins);
}

/* A peer's memory: one entry, no page, a bus address. */
static struct sg_table *texp_map_p2p(struct dma_buf_attachment *a,
				     struct texp_buf *b, struct texp_map *m,
				     enum dma_data_direction dir)
{
	int ret;

	ret = sg_alloc_table(&m->bare, 1, GFP_KERNEL);
	if (ret)
		goto free;
	/* Two importers may map it: no cache line tracking applies to a BAR. */
	m->res = dma_map_resource(a->dev, b->phys, b->size, dir,
				  DMA_ATTR_SKIP_CPU_SYNC);
	ret = dma_mapping_error(a->dev, m->res);
	if (ret)
		goto table;
	sg_dma_address(m->bare.sgl) = m->res;
	sg_dma_len(m->bare.sgl) = b->size;
	m->bare.sgl->length = b->size;
	sg_dma_mark_bus_address(m->bare.sgl);
	a->priv = m;
	atomic64_inc(&n_maps);
	return &m->bare;
table:
	sg_free_table(&m->bare);
free:
	kfree(m);
	return ERR_PTR(ret);
}

static struct sg_table *texp_map(struct dma_buf_attachment *a,
				 enum dma_data_direction dir)
{
	struct texp_buf *b = a->dmabuf->priv;
	struct scatterlist *s, *t;
	struct texp_map *m;
	int ret, i;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return ERR_PTR(-ENOMEM);
	if (b->flags & (TESTEXP_P2P | TESTEXP_P2P_BAR))
		return texp_map_p2p(a, b, m, dir);
	ret = sg_alloc_table_from_pages(&m->real, b->pages, b->npages, 0,
					b->npages << PAGE_SHIFT, GFP_KERNEL);
	if (ret)
		goto free;
	ret = dma_map_sgtable(a->dev, &m->real, dir, 0);
	if (ret)
		goto table;
	if (!(b->flags & TESTEXP_NULL_PAGES)) {
		a->priv = m;
		atomic64_inc(&n_maps);
		return &m->real;
	}
	/* The same DMA view, with no page behind any entry. */
	ret = sg_alloc_table(&m->bare, m->real.nents, GFP_KERNEL);
	if (ret)
		goto unmap;
	t = m->bare.sgl;
	for_each_sgtable_dma_sg(&m->real, s, i) {
		sg_dma_address(t) = sg_dma_address(s);
		sg_dma_len(t) = sg_dma_len(s);
		t->length = sg_dma_len(s);
		t = sg_next(t);
	}
	m->bare.nents = m->real.nents;
	a->priv = m;
	atomic64_inc(&n_maps);
	return &m->bare;
unmap:
	dma_unmap_sgtable(a->dev, &m->real, dir, 0);
table:
	sg_free_table(&m->real);
free:
	kfree(m);
	return ERR_PTR(ret);
}

static void texp_unmap(struct dma_buf_attachment *a, struct sg_table *sgt,
		       enum dma_data_direction dir)
{
	struct texp_buf *b = a->dmabuf->priv;
	struct texp_map *m = a->priv;

	if (b->flags & (TESTEXP_P2P | TESTEXP_P2P_BAR)) {
		dma_unmap_resource(a->dev, m->res, b->size, dir,
				   DMA_ATTR_SKIP_CPU_SYNC);
	} else {
		dma_unmap_sgtable(a->dev, &m->real, dir, 0);
		sg_free_table(&m->real);
	}
	if (m->bare.sgl)
		sg_free_table(&m->bare);
	kfree(m);
	a->priv = NULL;
	atomic64_dec(&n_maps);
}

static void texp_free(struct texp_buf *b)
{
	unsigned long i;

	for (i = 0; b->pages && i < b->npages; i++)
		if (b->pages[i])
			__free_page(b->pages[i]);
	kvfree(b->pages);
	pci_dev_put(b->bar_dev);
	kfree(b);
}

static void texp_release(struct dma_buf *d)
{
	texp_free(d->priv);
	atomic64_dec(&n_bufs);
}

static int texp_mmap(struct dma_buf *d, struct vm_area_struct *vma)
{
	struct texp_buf *b = d->priv;

	if (b->bar_dev) {
		vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
		return vm_iomap_memory(vma, b->phys, b->size);
	}
	return vm_map_pages(vma, b->pages, b->npages);
}

static const struct dma_buf_ops texp_ops = {
	.attach = texp_attach,
	.detach = texp_detach,
	.pin = texp_pin,
	.unpin = texp_unpin,
	.map_dma_buf = texp_map,
	.unmap_dma_buf = texp_unmap,
	.release = texp_release,
	.mmap = texp_mmap,
};

/* Pages of b: one by one, or (TESTEXP_P2P) one contiguous allocation. */
static int texp_alloc(struct texp_buf *b)
{
	struct page *p;
	unsigned long i;

	b->pages = kvcalloc(b->npages, sizeof(*b->pages), GFP_KERNEL);
	if (!b->pages)
		return -ENOMEM;
	if (b->flags & TESTEXP_P2P) {
		b->order = get_order(b->size);
		p = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN, b->order);
		if (!p)
			return -ENOMEM;
		/* Each page its own reference: mapped to user space one by one. */
		split_page(p, b->order);
		for (i = 0; i < (1UL << b->order); i++) {
			if (i < b->npages)
				b->pages[i] = p + i;
			else
				__free_page(p + i);
		}
		b->phys = page_to_phys(p);
		return 0;
	}
	for (i = 0; i < b->npages; i++) {
		b->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!b->pages[i])
			return -ENOMEM;
	}
	return 0;
}

/* TESTEXP_P2P_BAR: the upper half of the ivshmem function's BAR2. */
static int texp_bar(struct texp_buf *b)
{
	struct pci_dev *pdev = NULL;

	while ((pdev = pci_get_device(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110,
				      pdev))) {
		if ((pci_resource_flags(pdev, TEXP_BAR) & IORESOURCE_MEM) &&
		    pci_resource_len(pdev, TEXP_BAR) >= TEXP_BAR_OFF + b->size)
			break;
	}
	if (!pdev)
		return -ENODEV;
	b->bar_dev = pdev;
	b->phys = pci_resource_start(pdev, TEXP_BAR) + TEXP_BAR_OFF;
	return 0;
}

static int texp_create(struct testexp_create *c)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	u32 kinds = TESTEXP_NULL_PAGES | TESTEXP_P2P | TESTEXP_P2P_BAR;
	struct dma_buf *d;
	struct texp_buf *b;
	int fd, ret;

	if (!c->size || c->size > SZ_64M || (c->flags & ~kinds) ||
	    hweight32(c->flags) > 1)
		return -EINVAL;
	if ((c->flags & TESTEXP_P2P && c->size > SZ_4M) ||
	    (c->flags & TESTEXP_P2P_BAR && c->size > TEXP_BAR_OFF))
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->flags = c->flags;
	b->size = PAGE_ALIGN(c->size);
	b->npages = b->size >> PAGE_SHIFT;
	ret = b->flags & TESTEXP_P2P_BAR ? texp_bar(b) : texp_alloc(b);
	if (ret) {
		texp_free(b);
		return ret;
	}
	info.ops = &texp_ops;
	info.size = b->size;
	info.flags = O_RDWR;
	info.priv = b;
	d = dma_buf_export(&info);
	if (IS_ERR(d)) {
		texp_free(b);
		return PTR_ERR(d);
	}
	atomic64_inc(&n_bufs);
	fd = dma_buf_fd(d, O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(d);
		return fd;
	}
	c->fd = fd;
	return 0;
}

static int texp_move(int fd)
{
	struct dma_buf *d = dma_buf_get(fd);

	if (IS_ERR(d))
		return PTR_ERR(d);
	if (d->ops != &texp_ops) {
		dma_buf_put(d);
		return -EINVAL;
	}
	dma_resv_lock(d->resv, NULL);
	dma_buf_move_notify(d);
	dma_resv_unlock(d->resv);
	atomic64_inc(&n_moves);
	dma_buf_put(d);
	return 0;
}

/* ---- the misbehaving dmaengine provider ---------------------------------- */

struct tprov_desc {
	struct dma_async_tx_descriptor tx;
	struct list_head node;
	size_t len;
};

static struct tprov {
	struct dma_device dd;
	struct dma_chan chan;
	spinlock_t lock;	/* the lists, fail */
	struct list_head held;	/* submitted, in order */
	struct list_head prepped;	/* prepared, not submitted */
	bool fail;		/* terminate_all fails */
	bool registered;
	struct platform_device *pdev;
} tprov;

static DEFINE_MUTEX(tprov_mutex);	/* add and delete */

static dma_cookie_t tprov_submit(struct dma_async_tx_descriptor *tx)
{
	struct tprov_desc *t = container_of(tx, struct tprov_desc, tx);
	struct dma_chan *chan = tx->chan;
	unsigned long flags;
	dma_cookie_t cookie;

	spin_lock_irqsave(&tprov.lock, flags);
	cookie = chan->cookie + 1;
	if (cookie < DMA_MIN_COOKIE)
		cookie = DMA_MIN_COOKIE;
	chan->cookie = cookie;
	tx->cookie = cookie;
	list_move_tail(&t->node, &tprov.held);
	spin_unlock_irqrestore(&tprov.lock, flags);
	return cookie;
}

static struct dma_async_tx_descriptor *
tprov_prep_memcpy(struct dma_chan *chan, dma_addr_t dst, dma_addr_t src,
		  size_t len, unsigned long flags)
{
	struct tprov_desc *t = kzalloc(sizeof(*t), GFP_NOWAIT);
	unsigned long irq;

	if (!t)
		return NULL;
	dma_async_tx_descriptor_init(&t->tx, chan);
	t->tx.flags = flags;
	t->tx.tx_submit = tprov_submit;
	t->len = len;
	spin_lock_irqsave(&tprov.lock, irq);
	list_add_tail(&t->node, &tprov.prepped);
	spin_unlock_irqrestore(&tprov.lock, irq);
	return &t->tx;
}

/* Held, not moved: nothing to start. */
static void tprov_issue_pending(struct dma_chan *chan)
{
}

static enum dma_status tprov_tx_status(struct dma_chan *chan,
				       dma_cookie_t cookie,
				       struct dma_tx_state *st)
{
	dma_cookie_t last = READ_ONCE(chan->completed_cookie);
	dma_cookie_t used = READ_ONCE(chan->cookie);

	dma_set_tx_state(st, last, used, 0);
	return dma_async_is_complete(cookie, last, used);
}

static void tprov_free_list(struct list_head *list)
{
	struct tprov_desc *t, *tmp;

	list_for_each_entry_safe(t, tmp, list, node) {
		list_del(&t->node);
		kfree(t);
	}
}

static int tprov_terminate_all(struct dma_chan *chan)
{
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&tprov.lock, flags);
	if (tprov.fail) {
		spin_unlock_irqrestore(&tprov.lock, flags);
		return -EIO;
	}
	list_splice_init(&tprov.held, &gone);
	list_splice_init(&tprov.prepped, &gone);
	spin_unlock_irqrestore(&tprov.lock, flags);
	tprov_free_list(&gone);
	return 0;
}

static void tprov_free_chan(struct dma_chan *chan)
{
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&tprov.lock, flags);
	list_splice_init(&tprov.held, &gone);
	list_splice_init(&tprov.prepped, &gone);
	spin_unlock_irqrestore(&tprov.lock, flags);
	tprov_free_list(&gone);
}

/* Every held descriptor completes now, aborted: its callback runs late. */
static long tprov_fire(void)
{
	struct tprov_desc *t, *tmp;
	unsigned long flags;
	long n = 0;
	LIST_HEAD(fired);

	spin_lock_irqsave(&tprov.lock, flags);
	list_splice_init(&tprov.held, &fired);
	spin_unlock_irqrestore(&tprov.lock, flags);
	list_for_each_entry_safe(t, tmp, &fired, node) {
		struct dmaengine_result res = {
			.result = DMA_TRANS_ABORTED,
			.residue = t->len,
		};

		WRITE_ONCE(tprov.chan.completed_cookie, t->tx.cookie);
		if (t->tx.callback_result)
			t->tx.callback_result(t->tx.callback_param, &res);
		else if (t->tx.callback)
			t->tx.callback(t->tx.callback_param);
		list_del(&t->node);
		kfree(t);
		n++;
	}
	return n;
}

static void tprov_release(struct dma_device *dd)
{
}

static int tprov_probe(struct platform_device *pdev)
{
	struct dma_device *dd = &tprov.dd;
	int ret;

	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	memset(dd, 0, sizeof(*dd));
	memset(&tprov.chan, 0, sizeof(tprov.chan));
	dd->dev = &pdev->dev;
	dma_cap_set(DMA_MEMCPY, dd->cap_mask);
	dma_cap_set(DMA_PRIVATE, dd->cap_mask);
	dd->device_prep_dma_memcpy = tprov_prep_memcpy;
	dd->device_issue_pending = tprov_issue_pending;
	dd->device_tx_status = tprov_tx_status;
	dd->device_terminate_all = tprov_terminate_all;
	dd->device_free_chan_resources = tprov_free_chan;
	dd->device_release = tprov_release;
	INIT_LIST_HEAD(&dd->channels);
	tprov.chan.device = dd;
	list_add_tail(&tprov.chan.device_node, &dd->channels);
	return dma_async_device_register(dd);
}

static struct platform_driver tprov_driver = {
	.driver = { .name = "fdma_testexp_dma" },
	.probe = tprov_probe,
};

static int tprov_add(struct testexp_prov *p)
{
	int ret = 0;

	mutex_lock(&tprov_mutex);
	if (tprov.registered) {
		ret = -EEXIST;
		goto out;
	}
	spin_lock_init(&tprov.lock);
	INIT_LIST_HEAD(&tprov.held);
	INIT_LIST_HEAD(&tprov.prepped);
	tprov.fail = p->flags & TESTEXP_PROV_FAIL;
	ret = platform_driver_register(&tprov_driver);
	if (ret)
		goto out;
	tprov.pdev = platform_device_register_simple("fdma_testexp_dma", -1,
						     NULL, 0);
	if (IS_ERR(tprov.pdev)) {
		ret = PTR_ERR(tprov.pdev);
		platform_driver_unregister(&tprov_driver);
		goto out;
	}
	if (!tprov.pdev->dev.driver) {
		/* The probe failed (its reason is in the log). */
		platform_device_unregister(tprov.pdev);
		platform_driver_unregister(&tprov_driver);
		ret = -ENODEV;
		goto out;
	}
	tprov.registered = true;
	strscpy(p->name, dma_chan_name(&tprov.chan), sizeof(p->name));
out:
	mutex_unlock(&tprov_mutex);
	return ret;
}

static int tprov_del(void)
{
	int ret = 0;

	mutex_lock(&tprov_mutex);
	if (!tprov.registered) {
		ret = -ENOENT;
	} else if (tprov.chan.client_count) {
		ret = -EBUSY;	/* a client holds the channel */
	} else {
		/* Unregistered here: the driver has no remove() of its own. */
		dma_async_device_unregister(&tprov.dd);
		platform_device_unregister(tprov.pdev);
		platform_driver_unregister(&tprov_driver);
		tprov.registered = false;
	}
	mutex_unlock(&tprov_mutex);
	return ret;
}

static int texp_prov(struct testexp_prov *p)
{
	struct list_head *pos;
	unsigned long flags;

	switch (p->cmd) {
	case TESTEXP_PROV_ADD:
		return tprov_add(p);
	case TESTEXP_PROV_DEL:
		return tprov_del();
	}
	if (!READ_ONCE(tprov.registered))
		return -ENOENT;
	switch (p->cmd) {
	case TESTEXP_PROV_MODE:
		spin_lock_irqsave(&tprov.lock, flags);
		tprov.fail = p->flags & TESTEXP_PROV_FAIL;
		p->n = 0;
		list_for_each(pos, &tprov.held)
			p->n++;
		spin_unlock_irqrestore(&tprov.lock, flags);
		return 0;
	case TESTEXP_PROV_FIRE:
		p->n = tprov_fire();
		return 0;
	}
	return -EINVAL;
}

static long texp_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *p = (void __user *)arg;
	struct testexp_create c;
	struct testexp_counts n;
	struct testexp_prov pr;
	__s32 fd;
	int ret;

	switch (cmd) {
	case TESTEXP_CREATE:
		if (copy_from_user(&c, p, sizeof(c)))
			return -EFAULT;
		ret = texp_create(&c);
		if (!ret && copy_to_user(p, &c, sizeof(c)))
			return -EFAULT;	/* the fd stays installed: the test exits */
		return ret;
	case TESTEXP_MOVE:
		if (get_user(fd, (__s32 __user *)p))
			return -EFAULT;
		return texp_move(fd);
	case TESTEXP_COUNTS:
		n.bufs = atomic64_read(&n_bufs);
		n.attachments = atomic64_read(&n_attach);
		n.maps = atomic64_read(&n_maps);
		n.pins = atomic64_read(&n_pins);
		n.moves = atomic64_read(&n_moves);
		n.p2p_refused = atomic64_read(&n_refused);
#ifdef SG_DMA_BUS_ADDRESS
		n.can_mark = 1;
#else
		n.can_mark = 0;
#endif
		return copy_to_user(p, &n, sizeof(n)) ? -EFAULT : 0;
	case TESTEXP_PROV:
		if (copy_from_user(&pr, p, sizeof(pr)))
			return -EFAULT;
		ret = texp_prov(&pr);
		if (!ret && copy_to_user(p, &pr, sizeof(pr)))
			return -EFAULT;
		return ret;
	}
	return -ENOTTY;
}

static const struct file_operations texp_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = texp_ioctl,
};

static struct miscdevice texp_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "fdma_testexp",
	.fops = &texp_fops,
};

static int __init texp_init(void)
{
	return misc_register(&texp_misc);
}

static void __exit texp_exit(void)
{
	misc_deregister(&texp_misc);
	/* No client can hold the channel: each holds this module. */
	tprov_del();
}

module_init(texp_init);
module_exit(texp_exit);
MODULE_DESCRIPTION("fdma test fixture: a dma-buf exporter that moves and hides pages, and a dmaengine provider that holds and fails");
MODULE_LICENSE("Dual MIT/GPL");
