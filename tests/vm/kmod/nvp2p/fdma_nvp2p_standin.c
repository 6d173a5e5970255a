// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma_nvp2p_standin.ko: a stand-in for NVIDIA's peer-to-peer API, so that
 * fdma.ko's NVIDIA path (kernel/fdma_nvp2p.c) runs in the VM guests, where
 * there is no GPU. A test fixture of the VM harness, not part of fdma.
 *
 * It exports the calls of tests/vm/kmod/nvp2p/nv-p2p.h (the discrete GPU's
 * API, or Jetson's with FDMA_NV_P2P_JETSON) over "GPU memory" that is in
 * fact guest RAM, in GPU pages (64 KiB, or 4 KiB on Jetson), mapped for
 * the peer as a GPU's memory is: dma_map_resource(), never bounced
 * (swiotlb) and never synced, with the CPU's view write-combined.
 * /dev/fdma_gpu plays the application's CUDA calls:
 *   GPU_ALLOC   memory of size bytes; returns its GPU address and an mmap
 *               offset for the CPU's view of it (for the test's checks);
 *   GPU_FREE    frees it, as cudaFree does: with its pages pinned, the
 *               pinner's free callback runs first, now, whatever the pinner
 *               is doing (an awkward moment, by design);
 *   GPU_COUNTS  what is outstanding: allocations, page tables, mappings,
 *               callbacks run. A pinner that leaks shows here.
 * As NVIDIA's, the free callback must free the page table (and, on a
 * discrete GPU, the mapping with nvidia_p2p_free_dma_mapping); on Jetson
 * put_pages runs the callback too.
 */
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <nv-p2p.h>

#ifdef FDMA_NV_P2P_JETSON
#define GPU_PAGE_ORDER	0
#else
#define GPU_PAGE_ORDER	4	/* 64 KiB */
#endif
#define GPU_PAGE	(PAGE_SIZE << GPU_PAGE_ORDER)
#define GPU_VA_BASE	0x7e0000000000ULL

struct gpu_alloc_req {
	__u64 size;
	__u64 va;		/* out */
	__u64 mmap_offset;	/* out */
};

struct gpu_counts {
	__s64 allocs, tables, mappings, callbacks;
};

#define GPU_ALLOC	_IOWR('G', 1, struct gpu_alloc_req)
#define GPU_FREE	_IOW('G', 2, __u64)
#define GPU_COUNTS	_IOR('G', 3, struct gpu_counts)

/* One allocation, and the one pin of it a test makes at a time. */
struct gpu_mem {
	struct list_head node;
	u64 va, size;
	unsigned long npages;		/* of PAGE_SIZE */
	struct page **pages;
	struct nvidia_p2p_page_table *pt;	/* pinned: the pinner's table */
	void (*free_cb)(void *data);
	void *data;
};

static LIST_HEAD(mems);
static DEFINE_MUTEX(lock);
static u64 next_id;
static atomic64_t n_allocs, n_tables, n_maps, n_callbacks;

static struct gpu_mem *find(u64 va, u64 len)
{
	struct gpu_mem *m;

	list_for_each_entry(m, &mems, node)
		if (va >= m->va && len <= m->size && va - m->va <= m->size - len)
			return m;
	return NULL;
}

static struct gpu_mem *find_pt(struct nvidia_p2p_page_table *pt)
{
	struct gpu_mem *m;

	list_for_each_entry(m, &mems, node)
		if (m->pt == pt)
			return m;
	return NULL;
}

/* The free callback, then forget the pin: the callback frees the table. */
static void run_callback(struct gpu_mem *m)
{
	void (*cb)(void *data) = m->free_cb;
	void *data = m->data;

	m->pt = NULL;
	m->free_cb = NULL;
	atomic64_inc(&n_callbacks);
	mutex_unlock(&lock);
	cb(data);
	mutex_lock(&lock);
}

#ifdef FDMA_NV_P2P_JETSON

int nvidia_p2p_get_pages(u64 vaddr, u64 size,
			 struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data)
{
	struct nvidia_p2p_page_table *pt;
	struct gpu_mem *m;
	u32 i;

	if (!free_callback || (vaddr | size) & (GPU_PAGE - 1) || !size)
		return -EINVAL;
	mutex_lock(&lock);
	m = find(vaddr, size);
	if (!m || m->pt) {
		mutex_unlock(&lock);
		return m ? -EBUSY : -EINVAL;
	}
	pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	if (pt)
		pt->pages = kcalloc(size / GPU_PAGE, sizeof(*pt->pages), GFP_KERNEL);
	if (!pt || !pt->pages) {
		kfree(pt);
		mutex_unlock(&lock);
		return -ENOMEM;
	}
	pt->page_size = NVIDIA_P2P_PAGE_SIZE_4KB;
	pt->size = size;
	pt->entries = size / GPU_PAGE;
	pt->vaddr = vaddr;
	for (i = 0; i < pt->entries; i++)
		pt->pages[i] = m->pages[(vaddr - m->va) / PAGE_SIZE + i];
	pt->free_callback = free_callback;
	pt->data = data;
	m->pt = pt;
	m->free_cb = free_callback;
	m->data = data;
	atomic64_inc(&n_tables);
	mutex_unlock(&lock);
	*page_table = pt;
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_get_pages);

/* Jetson's put_pages runs the free callback, which frees the table. */
int nvidia_p2p_put_pages(struct nvidia_p2p_page_table *page_table)
{
	struct gpu_mem *m;

	mutex_lock(&lock);
	m = find_pt(page_table);
	if (m)
		run_callback(m);
	mutex_unlock(&lock);
	return m ? 0 : -EINVAL;
}
EXPORT_SYMBOL(nvidia_p2p_put_pages);

int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table)
{
	kfree(page_table->pages);
	kfree(page_table);
	atomic64_dec(&n_tables);
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_free_page_table);

int nvidia_p2p_dma_map_pages(struct device *dev,
			     struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **map,
			     enum dma_data_direction direction)
{
	struct nvidia_p2p_dma_mapping *m;
	u32 i;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->entries = page_table->entries;
	m->hw_address = kcalloc(m->entries, sizeof(*m->hw_address), GFP_KERNEL);
	m->hw_len = kcalloc(m->entries, sizeof(*m->hw_len), GFP_KERNEL);
	if (!m->hw_address || !m->hw_len)
		goto nomem;
	for (i = 0; i < m->entries; i++) {
		m->hw_address[i] = dma_map_resource(dev, page_to_phys(page_table->pages[i]),
						    GPU_PAGE, direction, 0);
		if (dma_mapping_error(dev, m->hw_address[i]))
			goto unmap;
		m->hw_len[i] = GPU_PAGE;
	}
	m->page_table = page_table;
	m->dev = dev;
	m->direction = direction;
	atomic64_inc(&n_maps);
	*map = m;
	return 0;
unmap:
	while (i--)
		dma_unmap_resource(dev, m->hw_address[i], GPU_PAGE, direction, 0);
nomem:
	kfree(m->hw_address);
	kfree(m->hw_len);
	kfree(m);
	return -ENOMEM;
}
EXPORT_SYMBOL(nvidia_p2p_dma_map_pages);

int nvidia_p2p_dma_unmap_pages(struct nvidia_p2p_dma_mapping *map)
{
	u32 i;

	for (i = 0; i < map->entries; i++)
		dma_unmap_resource(map->dev, map->hw_address[i], GPU_PAGE,
				   map->direction, 0);
	kfree(map->hw_address);
	kfree(map->hw_len);
	kfree(map);
	atomic64_dec(&n_maps);
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_dma_unmap_pages);

#else

int nvidia_p2p_get_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 u64 length, struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data)
{
	struct nvidia_p2p_page_table *pt;
	struct gpu_mem *m;
	unsigned long first;
	u32 i;

	if (p2p_token || va_space || !free_callback || !length ||
	    (virtual_address | length) & (GPU_PAGE - 1))
		return -EINVAL;
	mutex_lock(&lock);
	m = find(virtual_address, length);
	if (!m || m->pt) {
		mutex_unlock(&lock);
		return m ? -EBUSY : -EINVAL;
	}
	pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	if (pt)
		pt->pages = kcalloc(length / GPU_PAGE, sizeof(*pt->pages), GFP_KERNEL);
	if (!pt || !pt->pages) {
		kfree(pt);
		mutex_unlock(&lock);
		return -ENOMEM;
	}
	pt->page_size = NVIDIA_P2P_PAGE_SIZE_64KB;
	pt->entries = length / GPU_PAGE;
	first = (virtual_address - m->va) / PAGE_SIZE;
	for (i = 0; i < pt->entries; i++) {
		pt->pages[i] = kzalloc(sizeof(*pt->pages[i]), GFP_KERNEL);
		if (!pt->pages[i])
			break;
		pt->pages[i]->physical_address =
			page_to_phys(m->pages[first + i * (GPU_PAGE / PAGE_SIZE)]);
	}
	if (i < pt->entries) {
		while (i--)
			kfree(pt->pages[i]);
		kfree(pt->pages);
		kfree(pt);
		mutex_unlock(&lock);
		return -ENOMEM;
	}
	m->pt = pt;
	m->free_cb = free_callback;
	m->data = data;
	atomic64_inc(&n_tables);
	mutex_unlock(&lock);
	*page_table = pt;
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_get_pages);

/* A discrete GPU's put_pages: no callback; refused once it has run. */
int nvidia_p2p_put_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 struct nvidia_p2p_page_table *page_table)
{
	struct gpu_mem *m;

	mutex_lock(&lock);
	m = find_pt(page_table);
	if (m) {
		m->pt = NULL;
		m->free_cb = NULL;
	}
	mutex_unlock(&lock);
	if (!m)
		return -EINVAL;
	return nvidia_p2p_free_page_table(page_table);
}
EXPORT_SYMBOL(nvidia_p2p_put_pages);

int nvidia_p2p_free_page_table(struct nvidia_p2p_page_table *page_table)
{
	u32 i;

	for (i = 0; i < page_table->entries; i++)
		kfree(page_table->pages[i]);
	kfree(page_table->pages);
	kfree(page_table);
	atomic64_dec(&n_tables);
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_free_page_table);

int nvidia_p2p_dma_map_pages(struct pci_dev *peer,
			     struct nvidia_p2p_page_table *page_table,
			     struct nvidia_p2p_dma_mapping **dma_mapping)
{
	struct nvidia_p2p_dma_mapping *m;
	u32 i;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->entries = page_table->entries;
	m->dma_addresses = kcalloc(m->entries, sizeof(*m->dma_addresses), GFP_KERNEL);
	if (!m->dma_addresses)
		goto nomem;
	for (i = 0; i < m->entries; i++) {
		dma_addr_t a = dma_map_resource(&peer->dev,
						page_table->pages[i]->physical_address,
						GPU_PAGE, DMA_BIDIRECTIONAL, 0);

		if (dma_mapping_error(&peer->dev, a))
			goto unmap;
		m->dma_addresses[i] = a;
	}
	m->page_size_type = NVIDIA_P2P_PAGE_SIZE_64KB;
	m->pci_dev = peer;
	atomic64_inc(&n_maps);
	*dma_mapping = m;
	return 0;
unmap:
	while (i--)
		dma_unmap_resource(&peer->dev, m->dma_addresses[i], GPU_PAGE,
				   DMA_BIDIRECTIONAL, 0);
nomem:
	kfree(m->dma_addresses);
	kfree(m);
	return -ENOMEM;
}
EXPORT_SYMBOL(nvidia_p2p_dma_map_pages);

int nvidia_p2p_free_dma_mapping(struct nvidia_p2p_dma_mapping *dma_mapping)
{
	u32 i;

	for (i = 0; i < dma_mapping->entries; i++)
		dma_unmap_resource(&dma_mapping->pci_dev->dev, dma_mapping->dma_addresses[i],
				   GPU_PAGE, DMA_BIDIRECTIONAL, 0);
	kfree(dma_mapping->dma_addresses);
	kfree(dma_mapping);
	atomic64_dec(&n_maps);
	return 0;
}
EXPORT_SYMBOL(nvidia_p2p_free_dma_mapping);

int nvidia_p2p_dma_unmap_pages(struct pci_dev *peer,
			       struct nvidia_p2p_page_table *page_table,
			       struct nvidia_p2p_dma_mapping *dma_mapping)
{
	return nvidia_p2p_free_dma_mapping(dma_mapping);
}
EXPORT_SYMBOL(nvidia_p2p_dma_unmap_pages);

#endif

/* ---- /dev/fdma_gpu: the application's side ---------------------------- */

static void mem_free(struct gpu_mem *m)
{
	unsigned long i;

	for (i = 0; i < m->npages; i++)
		if (m->pages[i])
			__free_page(m->pages[i]);
	kvfree(m->pages);
	kfree(m);
}

static int gpu_alloc(struct gpu_alloc_req *r)
{
	struct gpu_mem *m;
	unsigned long i;

	if (!r->size || r->size > SZ_64M || r->size & (GPU_PAGE - 1))
		return -EINVAL;
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->size = r->size;
	m->npages = r->size >> PAGE_SHIFT;
	m->pages = kvcalloc(m->npages, sizeof(*m->pages), GFP_KERNEL);
	for (i = 0; m->pages && i < m->npages; i += 1UL << GPU_PAGE_ORDER) {
		struct page *pg = alloc_pages(GFP_KERNEL | __GFP_ZERO, GPU_PAGE_ORDER);
		unsigned long k;

		if (!pg)
			break;
		/* Single pages, each with its own count: the CPU maps them one by one. */
		split_page(pg, GPU_PAGE_ORDER);
		for (k = 0; k < (1UL << GPU_PAGE_ORDER); k++)
			m->pages[i + k] = pg + k;
	}
	if (!m->pages || i < m->npages) {
		mem_free(m);
		return -ENOMEM;
	}
	mutex_lock(&lock);
	m->va = GPU_VA_BASE + (next_id << 32);
	r->va = m->va;
	r->mmap_offset = next_id << 32;
	next_id++;
	list_add_tail(&m->node, &mems);
	atomic64_inc(&n_allocs);
	mutex_unlock(&lock);
	return 0;
}

/* cudaFree: a pinned allocation's free callback first, now. */
static int gpu_free(u64 va)
{
	struct gpu_mem *m;

	mutex_lock(&lock);
	m = find(va, 1);
	if (!m || m->va != va) {
		mutex_unlock(&lock);
		return -EINVAL;
	}
	if (m->pt)
		run_callback(m);
	list_del(&m->node);
	mutex_unlock(&lock);
	mem_free(m);
	atomic64_dec(&n_allocs);
	return 0;
}

static long gpu_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	void __user *p = (void __user *)arg;
	struct gpu_alloc_req r;
	struct gpu_counts n;
	u64 va;
	int ret;

	switch (cmd) {
	case GPU_ALLOC:
		if (copy_from_user(&r, p, sizeof(r)))
			return -EFAULT;
		ret = gpu_alloc(&r);
		if (!ret && copy_to_user(p, &r, sizeof(r)))
			return -EFAULT;
		return ret;
	case GPU_FREE:
		if (get_user(va, (u64 __user *)p))
			return -EFAULT;
		return gpu_free(va);
	case GPU_COUNTS:
		n.allocs = atomic64_read(&n_allocs);
		n.tables = atomic64_read(&n_tables);
		n.mappings = atomic64_read(&n_maps);
		n.callbacks = atomic64_read(&n_callbacks);
		return copy_to_user(p, &n, sizeof(n)) ? -EFAULT : 0;
	}
	return -ENOTTY;
}

/*
 * The CPU's view of an allocation, at its mmap offset: write-combined, as
 * a CPU sees GPU memory through a BAR, so that it agrees with the device
 * on a platform without coherent DMA (no one syncs GPU memory).
 */
static int gpu_mmap(struct file *f, struct vm_area_struct *vma)
{
	u64 va = GPU_VA_BASE + ((u64)vma->vm_pgoff << PAGE_SHIFT);
	unsigned long len = vma->vm_end - vma->vm_start;
	struct gpu_mem *m;
	int ret = -EINVAL;

	mutex_lock(&lock);
	m = find(va, len);
	if (m && m->va == va) {
		vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
		ret = vm_map_pages_zero(vma, m->pages, len >> PAGE_SHIFT);
	}
	mutex_unlock(&lock);
	return ret;
}

static const struct file_operations gpu_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = gpu_ioctl,
	.mmap = gpu_mmap,
};

static struct miscdevice gpu_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "fdma_gpu",
	.fops = &gpu_fops,
};

static void __exit standin_exit(void)
{
	struct gpu_mem *m, *t;

	misc_deregister(&gpu_misc);
	list_for_each_entry_safe(m, t, &mems, node) {
		list_del(&m->node);
		mem_free(m);
	}
}

static int __init standin_init(void)
{
	return misc_register(&gpu_misc);
}

module_init(standin_init);
module_exit(standin_exit);
MODULE_DESCRIPTION("fdma test fixture: a stand-in for NVIDIA's peer-to-peer API");
MODULE_LICENSE("Dual MIT/GPL");
