// SPDX-License-Identifier: MIT
/*
 * The device's DMA buffers as GstMemory, for fdmasink's upstream: a frame
 * written into such memory is sent from where it is, with no copy. And the
 * shared device reference that keeps the device open while memory of it
 * is still out (a pool upstream is emptied after the sink has stopped).
 * fdma_buf_alloc() and fdma_buf_free() may be called from any thread
 * (include/fdma.h), as a GstAllocator's are.
 */
#include "gstfdma.h"

struct gst_fdma_devref *gst_fdma_devref_new(struct fdma_dev *dev)
{
	struct gst_fdma_devref *d = g_new(struct gst_fdma_devref, 1);

	d->refs = 1;
	d->dev = dev;
	return d;
}

struct gst_fdma_devref *gst_fdma_devref_ref(struct gst_fdma_devref *d)
{
	g_atomic_int_inc(&d->refs);
	return d;
}

void gst_fdma_devref_unref(struct gst_fdma_devref *d)
{
	if (d && g_atomic_int_dec_and_test(&d->refs)) {
		fdma_close(d->dev);
		g_free(d);
	}
}

typedef struct {
	GstMemory mem;
	int buf;		/* the DMA buffer (shared memory: its parent's) */
	guint8 *data;		/* its mapping */
} GstFdmaMemory;

typedef struct {
	GstAllocator parent;
	struct gst_fdma_devref *dev;
} GstFdmaAllocator;

typedef struct {
	GstAllocatorClass parent_class;
} GstFdmaAllocatorClass;

static GType gst_fdma_allocator_get_type(void);
G_DEFINE_TYPE(GstFdmaAllocator, gst_fdma_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *fdma_alloc(GstAllocator *allocator, gsize size, GstAllocationParams *params)
{
	GstFdmaAllocator *a = (GstFdmaAllocator *)allocator;
	gsize maxsize = size + params->prefix + params->padding;
	GstFdmaMemory *m;
	int buf;

	/* DMA buffers are page-aligned: any alignment GStreamer asks for (< 4 KiB) holds. */
	if (params->align >= 4096) {
		GST_WARNING("alignment %" G_GSIZE_FORMAT " over a page", params->align + 1);
		return NULL;
	}
	buf = fdma_buf_alloc(a->dev->dev, maxsize, 0);
	if (buf < 0) {
		GST_WARNING("fdma_buf_alloc(%" G_GSIZE_FORMAT "): %s", maxsize,
			    fdma_errmsg(a->dev->dev));
		return NULL;
	}
	m = g_new(GstFdmaMemory, 1);
	gst_memory_init(GST_MEMORY_CAST(m), params->flags, allocator, NULL, maxsize, params->align,
			params->prefix, size);
	m->buf = buf;
	m->data = fdma_buf_addr(a->dev->dev, buf);
	return GST_MEMORY_CAST(m);
}

static void fdma_free(GstAllocator *allocator, GstMemory *mem)
{
	GstFdmaAllocator *a = (GstFdmaAllocator *)allocator;
	GstFdmaMemory *m = (GstFdmaMemory *)mem;

	if (!mem->parent)
		fdma_buf_free(a->dev->dev, m->buf);
	g_free(m);
}

static gpointer fdma_mem_map(GstMemory *mem, gsize maxsize, GstMapFlags flags)
{
	(void)maxsize;
	(void)flags;
	return ((GstFdmaMemory *)mem)->data;
}

static void fdma_mem_unmap(GstMemory *mem)
{
	(void)mem;
}

/* A part of the same DMA buffer (its parent keeps the buffer). */
static GstMemory *fdma_mem_share(GstMemory *mem, gssize offset, gssize size)
{
	GstFdmaMemory *m = (GstFdmaMemory *)mem, *s;
	GstMemory *parent = mem->parent ? mem->parent : mem;

	if (size == -1)
		size = (gssize)mem->size - offset;
	s = g_new(GstFdmaMemory, 1);
	gst_memory_init(GST_MEMORY_CAST(s),
			GST_MINI_OBJECT_FLAGS(parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
			mem->allocator, parent, mem->maxsize, mem->align,
			mem->offset + (gsize)offset, (gsize)size);
	s->buf = m->buf;
	s->data = m->data;
	return GST_MEMORY_CAST(s);
}

static gboolean fdma_mem_is_span(GstMemory *m1, GstMemory *m2, gsize *offset)
{
	if (((GstFdmaMemory *)m1)->buf != ((GstFdmaMemory *)m2)->buf)
		return FALSE;
	if (offset)
		*offset = m1->offset - (m1->parent ? m1->parent->offset : 0);
	return m1->offset + m1->size == m2->offset;
}

static void gst_fdma_allocator_finalize(GObject *obj)
{
	gst_fdma_devref_unref(((GstFdmaAllocator *)obj)->dev);
	G_OBJECT_CLASS(gst_fdma_allocator_parent_class)->finalize(obj);
}

static void gst_fdma_allocator_class_init(GstFdmaAllocatorClass *klass)
{
	GST_ALLOCATOR_CLASS(klass)->alloc = fdma_alloc;
	GST_ALLOCATOR_CLASS(klass)->free = fdma_free;
	G_OBJECT_CLASS(klass)->finalize = gst_fdma_allocator_finalize;
}

static void gst_fdma_allocator_init(GstFdmaAllocator *a)
{
	GstAllocator *alloc = GST_ALLOCATOR_CAST(a);

	alloc->mem_type = GST_FDMA_MEMORY_TYPE;
	alloc->mem_map = fdma_mem_map;
	alloc->mem_unmap = fdma_mem_unmap;
	alloc->mem_share = fdma_mem_share;
	alloc->mem_is_span = fdma_mem_is_span;
	GST_OBJECT_FLAG_SET(alloc, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}

GstAllocator *gst_fdma_allocator_new(struct gst_fdma_devref *d)
{
	GstFdmaAllocator *a = g_object_new(gst_fdma_allocator_get_type(), NULL);

	gst_object_ref_sink(a);
	a->dev = gst_fdma_devref_ref(d);
	return GST_ALLOCATOR_CAST(a);
}

int gst_fdma_memory_buf(GstAllocator *alloc, GstMemory *mem, guint64 *offset)
{
	if (!alloc || mem->allocator != alloc)
		return -1;
	*offset = mem->offset;
	return ((GstFdmaMemory *)mem)->buf;
}
