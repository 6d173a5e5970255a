// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma_testexp.ko: a dma-buf exporter for fdma.ko's import tests, doing
 * what real exporters may do and the kernel's own test exporters do not.
 * A test fixture of the VM harness, not part of fdma.
 *
 * /dev/fdma_testexp:
 *   TESTEXP_CREATE  a dma-buf of size bytes (zeroed pages, mmap-able),
 *                   dynamic (pin/unpin, mapped under its reservation
 *                   lock). With TESTEXP_NULL_PAGES its mappings hand out
 *                   scatterlists whose entries have DMA addresses and
 *                   lengths but no struct page, as P2P and GPU exporters
 *                   do: an importer that looks at sg_page() crashes.
 *   TESTEXP_MOVE    move_notify on every attachment of the dma-buf fd,
 *                   now (a real exporter does it when it evicts memory),
 *                   whether or not they pinned it.
 *   TESTEXP_COUNTS  what is outstanding, over all its dma-bufs: buffers,
 *                   attachments, mappings, pins. An importer that leaks
 *                   one shows here after its files are closed.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/file.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
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
};

#define TESTEXP_NULL_PAGES	0x1
#define TESTEXP_CREATE	_IOWR('X', 1, struct testexp_create)
#define TESTEXP_MOVE	_IOW('X', 2, __s32)
#define TESTEXP_COUNTS	_IOR('X', 3, struct testexp_counts)

static atomic64_t n_bufs, n_attach, n_maps, n_pins, n_moves;

struct texp_buf {
	struct page **pages;
	unsigned long npages;
	u32 flags;
};

/* One mapping: the real one, and the copy without pages handed out. */
struct texp_map {
	struct sg_table real;
	struct sg_table bare;
};

static int texp_attach(struct dma_buf *d, struct dma_buf_attachment *a)
{
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
	struct texp_map *m = a->priv;

	dma_unmap_sgtable(a->dev, &m->real, dir, 0);
	sg_free_table(&m->real);
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

static int texp_create(struct testexp_create *c)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct dma_buf *d;
	struct texp_buf *b;
	unsigned long i;
	int fd;

	if (!c->size || c->size > SZ_64M || (c->flags & ~TESTEXP_NULL_PAGES))
		return -EINVAL;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->flags = c->flags;
	b->npages = PAGE_ALIGN(c->size) >> PAGE_SHIFT;
	b->pages = kvcalloc(b->npages, sizeof(*b->pages), GFP_KERNEL);
	for (i = 0; b->pages && i < b->npages; i++) {
		b->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!b->pages[i])
			break;
	}
	if (!b->pages || i < b->npages) {
		texp_free(b);
		return -ENOMEM;
	}
	info.ops = &texp_ops;
	info.size = b->npages << PAGE_SHIFT;
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

static long texp_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *p = (void __user *)arg;
	struct testexp_create c;
	struct testexp_counts n;
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
		return copy_to_user(p, &n, sizeof(n)) ? -EFAULT : 0;
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

module_misc_device(texp_misc);
MODULE_DESCRIPTION("fdma test fixture: a dma-buf exporter that moves and hides pages");
MODULE_LICENSE("Dual MIT/GPL");
