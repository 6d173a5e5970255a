/* SPDX-License-Identifier: MIT */
/*
 * GStreamer elements over libfdma: fdmasrc (a C2H stream channel as a live
 * source) and fdmasink (an H2C stream channel as a sink). What the two
 * share: opening the device a property or FDMA_DEVICE names, and finding
 * the channel. This folder sees include/fdma.h only, as a program would.
 */
#ifndef GST_FDMA_H
#define GST_FDMA_H

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>
#include <gst/base/gstpushsrc.h>

#include <fdma.h>

G_BEGIN_DECLS

#define GST_TYPE_FDMA_SRC (gst_fdma_src_get_type())
G_DECLARE_FINAL_TYPE(GstFdmaSrc, gst_fdma_src, GST, FDMA_SRC, GstPushSrc)

#define GST_TYPE_FDMA_SINK (gst_fdma_sink_get_type())
G_DECLARE_FINAL_TYPE(GstFdmaSink, gst_fdma_sink, GST, FDMA_SINK, GstBaseSink)

GST_ELEMENT_REGISTER_DECLARE(fdmasrc);
GST_ELEMENT_REGISTER_DECLARE(fdmasink);

/* Registers both elements: the plugin's entry, and a test's static registration. */
gboolean gst_fdma_plugin_init(GstPlugin *plugin);

/*
 * Open the device named by uri, or by the environment's FDMA_DEVICE when
 * uri is NULL or empty, and find stream channel ch in direction dir (the
 * first such channel when ch is -1). On failure posts an error on el's bus
 * naming the device or channel, closes what it opened and returns FALSE.
 */
gboolean gst_fdma_open_chan(GstElement *el, const gchar *uri, enum fdma_dir dir, gint ch,
			    struct fdma_dev **devp, gint *chp, struct fdma_info *info);

/*
 * A device shared by an element and what it handed out (buffers lent
 * downstream, memory of its allocator): the last reference closes it.
 */
struct gst_fdma_devref {
	gint refs;
	struct fdma_dev *dev;
};

struct gst_fdma_devref *gst_fdma_devref_new(struct fdma_dev *dev);
struct gst_fdma_devref *gst_fdma_devref_ref(struct gst_fdma_devref *d);
void gst_fdma_devref_unref(struct gst_fdma_devref *d);

/*
 * An allocator whose memory is the device's DMA buffers (fdma_buf_alloc()),
 * so that an element upstream writes frames where the device reads them.
 * Memory type "fdma".
 */
#define GST_FDMA_MEMORY_TYPE "fdma"
GstAllocator *gst_fdma_allocator_new(struct gst_fdma_devref *d);
/*
 * The DMA buffer behind mem and the offset of mem's bytes in it, when mem
 * is memory of alloc (not of another device's allocator); else -1.
 */
int gst_fdma_memory_buf(GstAllocator *alloc, GstMemory *mem, guint64 *offset);

G_END_DECLS

#endif /* GST_FDMA_H */
