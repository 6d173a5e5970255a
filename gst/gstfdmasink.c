// SPDX-License-Identifier: MIT
/*
 * fdmasink: an H2C stream channel as a sink. Each buffer is one frame: it
 * goes out with start and end of frame marked, split across descriptors
 * where it is longer than one takes.
 *
 * Zero-copy where upstream takes the sink's allocator (offered in the
 * allocation query, with a pool for video): its buffers are the device's
 * DMA buffers, and a frame in one is sent from where it is, the GstBuffer
 * held until the device has read it. Any other frame is copied into one of
 * the sink's own DMA buffers (a ring of slots) and sent from there, counted
 * in "copies". Up to `buffers` frames are in flight, so the copy or the
 * production of the next frame overlaps the transfer of the last ones.
 *
 * testgen=true turns on the channel's checker, which counts each frame
 * good or bad by the test generator's rules (fdma_testgen_hdr): at the end
 * of the stream the sink fails the pipeline if a frame was bad or missing.
 */
#include <errno.h>
#include <string.h>


#include <gst/video/video.h>

#include "gstfdma.h"

GST_DEBUG_CATEGORY_STATIC(fdmasink_debug);
#define GST_CAT_DEFAULT fdmasink_debug

/* How long one wait for a completion lasts before flushing is looked at. */
#define WAIT_SLICE_US 20000
/* How long stop() waits for the frames in flight before resetting the channel. */
#define DRAIN_US 2000000
/* A request's user_data: frame number << 8 | LAST_PIECE on a frame's last | piece. */
#define LAST_PIECE 0x80

struct _GstFdmaSink {
	GstBaseSink parent;

	/* Properties (GST_OBJECT_LOCK). */
	gchar *device;
	gint channel;
	guint nbufs;
	gboolean testgen;

	/* Statistics (GST_OBJECT_LOCK). */
	guint64 frames, bytes, checked, check_errors, copies;

	/* Set by start(), used by the streaming thread. */
	struct gst_fdma_devref *ref;	/* the device, shared with the allocator's memory */
	struct fdma_dev *dev;
	GstAllocator *allocator;
	GstBuffer **inflight;	/* per frame slot: the buffer sent from its own memory, or NULL */
	gint ch;
	struct fdma_info info;
	int buf;		/* nbufs slots of slot bytes; -1: none yet */
	guint8 *base;
	guint64 slot;
	guint64 head, tail;	/* frames submitted, frames completed */
	guint pieces;		/* descriptors a frame of slot bytes takes */
	guint64 tg_frames0, tg_errors0;
	gboolean tg_on;
	struct fdma_cpl *cpl;
	gint flushing;
};

enum {
	PROP_0,
	PROP_DEVICE,
	PROP_CHANNEL,
	PROP_BUFFERS,
	PROP_TESTGEN,
	PROP_FRAMES,
	PROP_BYTES,
	PROP_CHECKED,
	PROP_CHECK_ERRORS,
	PROP_COPIES,
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK,
	GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

G_DEFINE_TYPE(GstFdmaSink, gst_fdma_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE(fdmasink, "fdmasink", GST_RANK_NONE, GST_TYPE_FDMA_SINK);

/* Frames that may be in flight: each holds its descriptors in the ring. */
static guint64 max_inflight(GstFdmaSink *self)
{
	guint64 fit = self->info.chan[self->ch].ring_size / MAX(self->pieces, 1);

	return MAX(MIN((guint64)self->nbufs, fit), 1);
}

/*
 * Reap completions until at most `keep` frames are in flight (waiting in
 * slices, so that a flush is seen). Returns GST_FLOW_OK, FLUSHING, or
 * ERROR with the error posted.
 */
static GstFlowReturn reap_until(GstFdmaSink *self, guint64 keep, gint64 timeout_us)
{
	gint64 deadline = timeout_us >= 0 ? g_get_monotonic_time() + timeout_us : 0;

	while (self->head - self->tail > keep) {
		int n = fdma_reap(self->dev, self->ch, self->cpl, self->nbufs * self->pieces, 1,
				  WAIT_SLICE_US);

		if (n == -ETIMEDOUT)
			n = 0;
		if (n < 0) {
			GST_ELEMENT_ERROR(self, RESOURCE, WRITE, ("Could not send a frame."),
					  ("%s", fdma_errmsg(self->dev)));
			return GST_FLOW_ERROR;
		}
		for (int i = 0; i < n; i++) {
			const struct fdma_cpl *c = &self->cpl[i];

			if (c->res < 0) {
				GST_ELEMENT_ERROR(self, RESOURCE, WRITE,
						  ("The device failed a frame."),
						  ("frame %" G_GUINT64_FORMAT ": %s (status %u)",
						   c->user_data >> 8, g_strerror(-c->res), c->status));
				return GST_FLOW_ERROR;
			}
			/* A frame is done when its last piece is (pieces complete in order). */
			if (c->user_data & LAST_PIECE) {
				gst_buffer_replace(&self->inflight[self->tail % self->nbufs], NULL);
				self->tail++;
			}
		}
		if (self->head - self->tail <= keep)
			break;
		if (g_atomic_int_get(&self->flushing))
			return GST_FLOW_FLUSHING;
		if (deadline && g_get_monotonic_time() > deadline) {
			GST_ELEMENT_ERROR(self, RESOURCE, WRITE, ("The device took no frame in time."),
					  ("%" G_GUINT64_FORMAT " frames in flight on channel %d; "
					   "'fdma doctor' checks the device", self->head - self->tail,
					   self->ch));
			return GST_FLOW_ERROR;
		}
	}
	return GST_FLOW_OK;
}

/* Slots for frames of size bytes: grown (while idle) when a larger frame comes. */
static GstFlowReturn ensure_slots(GstFdmaSink *self, guint64 size)
{
	guint64 align = self->info.align ? self->info.align : 1;
	guint64 slot = (size + align - 1) / align * align;
	GstFlowReturn flow;
	int buf;

	if (slot <= self->slot)
		return GST_FLOW_OK;
	flow = reap_until(self, 0, -1);
	if (flow != GST_FLOW_OK)
		return flow;
	if (self->buf >= 0)
		fdma_buf_free(self->dev, self->buf);
	self->buf = -1;
	self->slot = 0;
	buf = fdma_buf_alloc(self->dev, slot * self->nbufs, 0);
	if (buf < 0) {
		GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT,
				  ("Could not allocate %u DMA buffers of %" G_GUINT64_FORMAT " bytes.",
				   self->nbufs, slot), ("%s", fdma_errmsg(self->dev)));
		return GST_FLOW_ERROR;
	}
	self->buf = buf;
	self->base = fdma_buf_addr(self->dev, buf);
	self->slot = slot;
	self->pieces = (guint)((slot + self->info.max_desc_len - 1) / self->info.max_desc_len);
	g_free(self->cpl);
	self->cpl = g_new0(struct fdma_cpl, (gsize)self->nbufs * self->pieces);
	return GST_FLOW_OK;
}

static GstFlowReturn gst_fdma_sink_render(GstBaseSink *bsink, GstBuffer *buffer)
{
	GstFdmaSink *self = GST_FDMA_SINK(bsink);
	gsize size = gst_buffer_get_size(buffer);
	struct fdma_req req[64];
	guint64 off, slot_off;
	GstFlowReturn flow;
	unsigned int n = 0;
	guint64 dma_off = 0;
	int dma_buf = -1, ret;

	if (!size)
		return GST_FLOW_OK;
	if (gst_buffer_n_memory(buffer) == 1)
		dma_buf = gst_fdma_memory_buf(self->allocator, gst_buffer_peek_memory(buffer, 0),
					      &dma_off);
	/* The copy's slots are also the count of frames in flight: needed either way. */
	flow = ensure_slots(self, size);
	if (flow == GST_FLOW_OK)
		flow = reap_until(self, max_inflight(self) - 1, -1);
	if (flow != GST_FLOW_OK)
		return flow;
	if (self->pieces > G_N_ELEMENTS(req)) {
		GST_ELEMENT_ERROR(self, RESOURCE, WRITE, ("A frame of %" G_GSIZE_FORMAT " bytes is too large.",
				  size), ("it needs %u descriptors, at most %u", self->pieces,
				  (guint)G_N_ELEMENTS(req)));
		return GST_FLOW_ERROR;
	}
	slot_off = (self->head % self->nbufs) * self->slot;
	if (dma_buf < 0) {
		gst_buffer_extract(buffer, 0, self->base + slot_off, size);
		dma_buf = self->buf;
		dma_off = slot_off;
	} else {
		/* Upstream wrote it into our memory: held until the device has read it. */
		self->inflight[self->head % self->nbufs] = gst_buffer_ref(buffer);
	}
	off = 0;
	for (guint k = 0; off < size; k++) {
		guint64 len = MIN((guint64)size - off, (guint64)self->info.max_desc_len);

		req[k] = (struct fdma_req){
			.buf = dma_buf, .offset = dma_off + off, .len = len,
			.user_data = self->head << 8 | (off + len == size ? LAST_PIECE : 0) | k,
			.flags = (k == 0 ? FDMA_REQ_SOF : 0) | (off + len == size ? FDMA_REQ_EOF : 0),
		};
		off += len;
		n = k + 1;
	}
	ret = fdma_submit(self->dev, self->ch, req, n);
	if (ret < 0) {
		gst_buffer_replace(&self->inflight[self->head % self->nbufs], NULL);
		GST_ELEMENT_ERROR(self, RESOURCE, WRITE, ("Could not send a frame of %" G_GSIZE_FORMAT
				  " bytes.", size), ("%s", fdma_errmsg(self->dev)));
		return GST_FLOW_ERROR;
	}
	self->head++;
	GST_OBJECT_LOCK(self);
	if (dma_buf == self->buf)
		self->copies++;
	self->frames++;
	self->bytes += size;
	GST_OBJECT_UNLOCK(self);
	return GST_FLOW_OK;
}

/* The checker's counts since start; FALSE (and an error posted) where it saw a bad frame. */
static gboolean check_counts(GstFdmaSink *self)
{
	guint64 f, e, good, bad, sent;

	if (!self->tg_on || fdma_chan_testgen_counts(self->dev, self->ch, &f, &e))
		return TRUE;
	good = f - self->tg_frames0;
	bad = e - self->tg_errors0;
	GST_OBJECT_LOCK(self);
	self->checked = good;
	self->check_errors = bad;
	sent = self->frames;
	GST_OBJECT_UNLOCK(self);
	gst_element_post_message(GST_ELEMENT(self),
		gst_message_new_element(GST_OBJECT(self),
			gst_structure_new("fdmasink-check", "frames", G_TYPE_UINT64, sent,
					  "good", G_TYPE_UINT64, good, "bad", G_TYPE_UINT64, bad,
					  NULL)));
	if (bad || good != sent) {
		GST_ELEMENT_ERROR(self, STREAM, FAILED, ("The device's checker found bad frames."),
				  ("%" G_GUINT64_FORMAT " sent, %" G_GUINT64_FORMAT " good, %"
				   G_GUINT64_FORMAT " bad", sent, good, bad));
		return FALSE;
	}
	return TRUE;
}

static gboolean gst_fdma_sink_event(GstBaseSink *bsink, GstEvent *event)
{
	GstFdmaSink *self = GST_FDMA_SINK(bsink);

	/* The end of the stream: every frame sent, what it took, then the checker's verdict. */
	if (GST_EVENT_TYPE(event) == GST_EVENT_EOS && self->dev) {
		if (reap_until(self, 0, DRAIN_US) != GST_FLOW_OK) {
			gst_event_unref(event);
			return FALSE;
		}
		GST_OBJECT_LOCK(self);
		GstStructure *st = gst_structure_new("fdmasink-stats", "frames", G_TYPE_UINT64,
						     self->frames, "bytes", G_TYPE_UINT64, self->bytes,
						     "copies", G_TYPE_UINT64, self->copies, NULL);
		GST_OBJECT_UNLOCK(self);
		gst_element_post_message(GST_ELEMENT(self),
					 gst_message_new_element(GST_OBJECT(self), st));
		if (!check_counts(self)) {
			gst_event_unref(event);
			return FALSE;
		}
	}
	return GST_BASE_SINK_CLASS(gst_fdma_sink_parent_class)->event(bsink, event);
}

static gboolean gst_fdma_sink_stop(GstBaseSink *bsink);

/*
 * Offer the device's DMA buffers to upstream: the allocator always, and a
 * pool of frames where the caps say their size (raw video).
 */
static gboolean gst_fdma_sink_propose_allocation(GstBaseSink *bsink, GstQuery *query)
{
	GstFdmaSink *self = GST_FDMA_SINK(bsink);
	GstAllocationParams params;
	GstVideoInfo vi;
	GstCaps *caps;
	gboolean need_pool;

	if (!self->allocator)
		return FALSE;
	gst_allocation_params_init(&params);
	gst_query_parse_allocation(query, &caps, &need_pool);
	if (need_pool && caps && gst_video_info_from_caps(&vi, caps)) {
		GstBufferPool *pool = gst_buffer_pool_new();
		GstStructure *config = gst_buffer_pool_get_config(pool);

		gst_buffer_pool_config_set_params(config, caps, (guint)GST_VIDEO_INFO_SIZE(&vi), 2, 0);
		gst_buffer_pool_config_set_allocator(config, self->allocator, &params);
		if (gst_buffer_pool_set_config(pool, config))
			gst_query_add_allocation_pool(query, pool, (guint)GST_VIDEO_INFO_SIZE(&vi), 2, 0);
		gst_object_unref(pool);
	}
	gst_query_add_allocation_param(query, self->allocator, &params);
	return TRUE;
}

static gboolean gst_fdma_sink_start(GstBaseSink *bsink)
{
	GstFdmaSink *self = GST_FDMA_SINK(bsink);
	gchar *device;
	gboolean ok;

	GST_OBJECT_LOCK(self);
	device = g_strdup(self->device);
	self->frames = self->bytes = self->checked = self->check_errors = self->copies = 0;
	GST_OBJECT_UNLOCK(self);
	ok = gst_fdma_open_chan(GST_ELEMENT(self), device, FDMA_H2C, self->channel, &self->dev,
				&self->ch, &self->info);
	g_free(device);
	if (!ok)
		return FALSE;
	self->ref = gst_fdma_devref_new(self->dev);
	self->allocator = gst_fdma_allocator_new(self->ref);
	self->inflight = g_new0(GstBuffer *, self->nbufs);
	self->buf = -1;
	self->slot = 0;
	self->pieces = 1;
	self->head = self->tail = 0;
	if (self->testgen) {
		/* A reset starts the checker's expected sequence at 0, as a new stream's. */
		if (!self->info.chan[self->ch].testgen || fdma_chan_reset(self->dev, self->ch) ||
		    fdma_chan_set_testgen(self->dev, self->ch, 64, 0, 1) ||
		    fdma_chan_testgen_counts(self->dev, self->ch, &self->tg_frames0,
					     &self->tg_errors0)) {
			GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
					  ("Could not start channel %d's checker.", self->ch),
					  ("%s", self->info.chan[self->ch].testgen ?
					   fdma_errmsg(self->dev) : "the channel has none"));
			gst_fdma_sink_stop(bsink);
			return FALSE;
		}
		self->tg_on = TRUE;
	}
	return TRUE;
}

static gboolean gst_fdma_sink_stop(GstBaseSink *bsink)
{
	GstFdmaSink *self = GST_FDMA_SINK(bsink);

	if (!self->dev)
		return TRUE;
	if (!self->cpl)
		self->cpl = g_new0(struct fdma_cpl, (gsize)self->nbufs * self->pieces);
	/* Frames still in flight: given time to go, then taken back by a reset. */
	g_atomic_int_set(&self->flushing, 0);
	if (reap_until(self, 0, DRAIN_US) != GST_FLOW_OK && !fdma_chan_reset(self->dev, self->ch))
		while (fdma_reap(self->dev, self->ch, self->cpl, self->nbufs * self->pieces, 0, 0) > 0)
			;
	if (self->tg_on)
		fdma_chan_set_testgen(self->dev, self->ch, 64, 0, 0);
	self->tg_on = FALSE;
	if (self->buf >= 0)
		fdma_buf_free(self->dev, self->buf);
	self->buf = -1;
	for (guint i = 0; i < self->nbufs; i++)
		gst_buffer_replace(&self->inflight[i], NULL);
	g_clear_pointer(&self->inflight, g_free);
	/* Memory of the allocator still upstream keeps the device open until it is freed. */
	gst_clear_object(&self->allocator);
	gst_fdma_devref_unref(self->ref);
	self->ref = NULL;
	self->dev = NULL;
	g_free(self->cpl);
	self->cpl = NULL;
	return TRUE;
}

static gboolean gst_fdma_sink_unlock(GstBaseSink *bsink)
{
	g_atomic_int_set(&GST_FDMA_SINK(bsink)->flushing, 1);
	return TRUE;
}

static gboolean gst_fdma_sink_unlock_stop(GstBaseSink *bsink)
{
	g_atomic_int_set(&GST_FDMA_SINK(bsink)->flushing, 0);
	return TRUE;
}

static void gst_fdma_sink_set_property(GObject *obj, guint id, const GValue *v, GParamSpec *ps)
{
	GstFdmaSink *self = GST_FDMA_SINK(obj);

	GST_OBJECT_LOCK(self);
	switch (id) {
	case PROP_DEVICE:
		g_free(self->device);
		self->device = g_value_dup_string(v);
		break;
	case PROP_CHANNEL:
		self->channel = g_value_get_int(v);
		break;
	case PROP_BUFFERS:
		self->nbufs = g_value_get_uint(v);
		break;
	case PROP_TESTGEN:
		self->testgen = g_value_get_boolean(v);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
	}
	GST_OBJECT_UNLOCK(self);
}

static void gst_fdma_sink_get_property(GObject *obj, guint id, GValue *v, GParamSpec *ps)
{
	GstFdmaSink *self = GST_FDMA_SINK(obj);

	GST_OBJECT_LOCK(self);
	switch (id) {
	case PROP_DEVICE:
		g_value_set_string(v, self->device);
		break;
	case PROP_CHANNEL:
		g_value_set_int(v, self->channel);
		break;
	case PROP_BUFFERS:
		g_value_set_uint(v, self->nbufs);
		break;
	case PROP_TESTGEN:
		g_value_set_boolean(v, self->testgen);
		break;
	case PROP_FRAMES:
		g_value_set_uint64(v, self->frames);
		break;
	case PROP_BYTES:
		g_value_set_uint64(v, self->bytes);
		break;
	case PROP_CHECKED:
		g_value_set_uint64(v, self->checked);
		break;
	case PROP_CHECK_ERRORS:
		g_value_set_uint64(v, self->check_errors);
		break;
	case PROP_COPIES:
		g_value_set_uint64(v, self->copies);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
	}
	GST_OBJECT_UNLOCK(self);
}

static void gst_fdma_sink_finalize(GObject *obj)
{
	g_free(GST_FDMA_SINK(obj)->device);
	G_OBJECT_CLASS(gst_fdma_sink_parent_class)->finalize(obj);
}

static void gst_fdma_sink_init(GstFdmaSink *self)
{
	self->channel = -1;
	self->nbufs = 4;
	self->buf = -1;
}

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)
#define RO (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)

static void gst_fdma_sink_class_init(GstFdmaSinkClass *klass)
{
	GObjectClass *oc = G_OBJECT_CLASS(klass);
	GstElementClass *ec = GST_ELEMENT_CLASS(klass);
	GstBaseSinkClass *bc = GST_BASE_SINK_CLASS(klass);

	oc->set_property = gst_fdma_sink_set_property;
	oc->get_property = gst_fdma_sink_get_property;
	oc->finalize = gst_fdma_sink_finalize;

	g_object_class_install_property(oc, PROP_DEVICE,
		g_param_spec_string("device", "Device",
				    "libfdma device URI (kdev:/dev/fdma0, /dev/fdma0, sim:...); "
				    "NULL: the environment's FDMA_DEVICE", NULL, RW));
	g_object_class_install_property(oc, PROP_CHANNEL,
		g_param_spec_int("channel", "Channel",
				 "H2C stream channel (-1: the device's first)", -1, FDMA_MAX_CHAN - 1, -1, RW));
	g_object_class_install_property(oc, PROP_BUFFERS,
		g_param_spec_uint("buffers", "Buffers", "Frames in flight at most", 1, 4096, 4, RW));
	g_object_class_install_property(oc, PROP_TESTGEN,
		g_param_spec_boolean("testgen", "Test checker",
				     "Check every frame with the channel's checker (the test "
				     "generator's format); fail at the end of the stream if one was "
				     "bad or missing", FALSE, RW));
	g_object_class_install_property(oc, PROP_FRAMES,
		g_param_spec_uint64("frames", "Frames", "Frames sent", 0, G_MAXUINT64, 0, RO));
	g_object_class_install_property(oc, PROP_BYTES,
		g_param_spec_uint64("bytes", "Bytes", "Bytes sent", 0, G_MAXUINT64, 0, RO));
	g_object_class_install_property(oc, PROP_CHECKED,
		g_param_spec_uint64("checked", "Checked",
				    "testgen: frames the checker counted good (at the end of the stream)",
				    0, G_MAXUINT64, 0, RO));
	g_object_class_install_property(oc, PROP_CHECK_ERRORS,
		g_param_spec_uint64("check-errors", "Check errors",
				    "testgen: frames the checker counted bad (at the end of the stream)",
				    0, G_MAXUINT64, 0, RO));

	g_object_class_install_property(oc, PROP_COPIES,
		g_param_spec_uint64("copies", "Copies",
				    "Frames copied into the sink's DMA buffers (not in its allocator's memory)",
				    0, G_MAXUINT64, 0, RO));

	gst_element_class_set_static_metadata(ec, "fdma sink", "Sink/Video",
		"Frames to an FPGA's H2C stream channel (libfdma)", "fdma");
	gst_element_class_add_static_pad_template(ec, &sink_template);

	bc->start = gst_fdma_sink_start;
	bc->stop = gst_fdma_sink_stop;
	bc->render = gst_fdma_sink_render;
	bc->propose_allocation = gst_fdma_sink_propose_allocation;
	bc->event = gst_fdma_sink_event;
	bc->unlock = gst_fdma_sink_unlock;
	bc->unlock_stop = gst_fdma_sink_unlock_stop;

	GST_DEBUG_CATEGORY_INIT(fdmasink_debug, "fdmasink", 0, "fdma sink");
}
