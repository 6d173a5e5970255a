// SPDX-License-Identifier: MIT
/*
 * fdmasrc: a C2H stream channel as a live source.
 *
 * Zero-copy: each GstBuffer wraps one of the stream's DMA buffers (the
 * frame the device wrote, where it wrote it) and hands it back to the
 * device when its last reference goes. The frame format is the FPGA
 * design's, so it is configured (properties), not negotiated.
 *
 * Elements downstream may hold buffers (a filesink gathers 64 KiB before it
 * writes): a source that lent out every DMA buffer would stall. So, as
 * v4l2src does, the last buffer with the device is never lent: a frame
 * that lands in it is copied, its buffer given straight back, and the
 * copy counted (the "copies" property).
 *
 * The library lets one thread drive a channel at a time, and a buffer's
 * last reference may go in any thread: a returned buffer is queued, and
 * the streaming thread re-arms it before it waits for the next frame.
 */
#include <errno.h>
#include <string.h>

#include <gst/video/video.h>

#include "gstfdma.h"

GST_DEBUG_CATEGORY_STATIC(fdmasrc_debug);
#define GST_CAT_DEFAULT fdmasrc_debug

/* How long one wait for a frame lasts before returned buffers are re-armed. */
#define WAIT_SLICE_US 10000

/* The stream, shared by the element and its buffers downstream. */
struct fdmasrc_ring {
	gint refs;		/* the element's, and one per buffer downstream */
	GMutex lock;		/* returned, nreturned, streaming */
	GCond cond;		/* a buffer came back, or the element is flushing */
	struct fdma_dev *dev;
	struct fdma_stream *stream;
	gint ch;
	gboolean testgen;
	guint32 testgen_len;
	gint lent;		/* buffers downstream (atomic) */
	guint nbufs;
	guint *returned;	/* buffers given back and not yet re-armed */
	guint nreturned;
	gboolean streaming;	/* FALSE once the element stopped: nothing re-arms */
};

/* What a GstBuffer's memory stands for. */
struct fdmasrc_frame {
	struct fdmasrc_ring *ring;
	struct fdma_frame f;
};

enum ts_mode { TS_ARRIVAL, TS_DEVICE };

struct _GstFdmaSrc {
	GstPushSrc parent;

	/* Properties (GST_OBJECT_LOCK). */
	gchar *device;
	gint channel;
	guint nbufs;
	gchar *format;
	gint width, height, fps_n, fps_d;
	guint frame_size_prop;
	gboolean testgen;
	gboolean drop, drop_set;
	enum ts_mode ts_mode;
	guint timeout_s;

	/* Statistics (GST_OBJECT_LOCK). */
	guint64 frames, bytes, drops, errors, overruns, copies;

	/* Set by start() for the streaming thread. */
	struct fdmasrc_ring *ring;
	GstVideoInfo vinfo;
	gboolean is_video;
	guint64 frame_size;	/* bytes a frame must have; 0: any (format=bytes) */
	GstClockTime duration;
	gboolean discont;
	gboolean have_dev0;
	guint64 dev0_ns;	/* TS_DEVICE: the first frame's device time ... */
	GstClockTime pts0;	/* ... and its arrival */
	gint flushing;
};

enum {
	PROP_0,
	PROP_DEVICE,
	PROP_CHANNEL,
	PROP_BUFFERS,
	PROP_FORMAT,
	PROP_WIDTH,
	PROP_HEIGHT,
	PROP_FRAMERATE,
	PROP_FRAME_SIZE,
	PROP_TESTGEN,
	PROP_DROP,
	PROP_TIMESTAMP,
	PROP_TIMEOUT,
	PROP_FRAMES,
	PROP_BYTES,
	PROP_DROPS,
	PROP_ERRORS,
	PROP_OVERRUNS,
	PROP_COPIES,
};

#define GST_TYPE_FDMA_SRC_TIMESTAMP (gst_fdma_src_timestamp_get_type())
static GType gst_fdma_src_timestamp_get_type(void)
{
	static GType type;
	static const GEnumValue values[] = {
		{ TS_ARRIVAL, "The frame's arrival on the element's clock", "arrival" },
		{ TS_DEVICE, "The device's time in the frame's header (fdma_testgen_hdr), "
			     "counted from the first frame's arrival", "device" },
		{ 0, NULL, NULL },
	};

	if (g_once_init_enter(&type))
		g_once_init_leave(&type, g_enum_register_static("GstFdmaSrcTimestamp", values));
	return type;
}

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS,
	GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(GST_VIDEO_FORMATS_ALL) "; application/octet-stream"));

G_DEFINE_TYPE(GstFdmaSrc, gst_fdma_src, GST_TYPE_PUSH_SRC);
GST_ELEMENT_REGISTER_DEFINE(fdmasrc, "fdmasrc", GST_RANK_NONE, GST_TYPE_FDMA_SRC);

static void ring_unref(struct fdmasrc_ring *r)
{
	if (!g_atomic_int_dec_and_test(&r->refs))
		return;
	/* The last buffer is back: nothing points into the stream's memory. */
	if (r->testgen)
		fdma_chan_set_testgen(r->dev, r->ch, r->testgen_len, 0, 0);
	fdma_stream_close(r->stream);
	fdma_close(r->dev);
	g_free(r->returned);
	g_mutex_clear(&r->lock);
	g_cond_clear(&r->cond);
	g_free(r);
}

/* A buffer's last reference went (any thread): queue its frame for re-arming. */
static void frame_returned(gpointer data)
{
	struct fdmasrc_frame *fr = data;
	struct fdmasrc_ring *r = fr->ring;

	g_mutex_lock(&r->lock);
	if (r->streaming) {
		r->returned[r->nreturned++] = fr->f.index;
		g_cond_signal(&r->cond);
	}
	g_mutex_unlock(&r->lock);
	g_atomic_int_add(&r->lent, -1);
	g_free(fr);
	ring_unref(r);
}

/* Streaming thread: give the device the buffers that came back. */
static int rearm_returned(struct fdmasrc_ring *r)
{
	guint idx[64], n;
	int ret = 0;

	do {
		g_mutex_lock(&r->lock);
		n = MIN(r->nreturned, G_N_ELEMENTS(idx));
		r->nreturned -= n;
		memcpy(idx, r->returned + r->nreturned, n * sizeof(idx[0]));
		g_mutex_unlock(&r->lock);
		for (guint i = 0; i < n && !ret; i++) {
			struct fdma_frame f = { .index = idx[i] };

			ret = fdma_stream_release(r->stream, &f);
		}
	} while (n && !ret);
	return ret;
}

static GstCaps *make_caps(GstFdmaSrc *self)
{
	if (!self->is_video)
		return gst_caps_new_empty_simple("application/octet-stream");
	return gst_video_info_to_caps(&self->vinfo);
}

static GstCaps *gst_fdma_src_get_caps(GstBaseSrc *bsrc, GstCaps *filter)
{
	GstFdmaSrc *self = GST_FDMA_SRC(bsrc);
	GstCaps *caps;

	/* Before start() the format is not checked: offer the template. */
	if (!self->ring)
		caps = gst_pad_get_pad_template_caps(GST_BASE_SRC_PAD(bsrc));
	else
		caps = make_caps(self);
	if (filter) {
		GstCaps *c = gst_caps_intersect_full(filter, caps, GST_CAPS_INTERSECT_FIRST);

		gst_caps_unref(caps);
		caps = c;
	}
	return caps;
}

/* The configured frame format: video (format, width, height, framerate) or bytes. */
static gboolean configure_format(GstFdmaSrc *self)
{
	GstVideoFormat vf;

	self->is_video = g_strcmp0(self->format, "bytes") != 0;
	self->duration = self->fps_n > 0 ?
		gst_util_uint64_scale_int(GST_SECOND, self->fps_d, self->fps_n) : GST_CLOCK_TIME_NONE;
	if (!self->is_video) {
		self->frame_size = 0;
		if (!self->frame_size_prop) {
			GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("format=bytes needs frame-size."),
					  ("the largest frame the device sends, in bytes"));
			return FALSE;
		}
		return TRUE;
	}
	vf = gst_video_format_from_string(self->format);
	if (vf == GST_VIDEO_FORMAT_UNKNOWN || vf == GST_VIDEO_FORMAT_ENCODED) {
		GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("Unknown format '%s'.", self->format),
				  ("a GStreamer raw video format name (GRAY8, YUY2, UYVY, RGB, "
				   "I420, NV12, ...) or 'bytes'"));
		return FALSE;
	}
	if (self->width <= 0 || self->height <= 0 ||
	    !gst_video_info_set_format(&self->vinfo, vf, (guint)self->width, (guint)self->height)) {
		GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
				  ("format=%s needs width and height.", self->format),
				  ("got %dx%d", self->width, self->height));
		return FALSE;
	}
	GST_VIDEO_INFO_FPS_N(&self->vinfo) = self->fps_n;
	GST_VIDEO_INFO_FPS_D(&self->vinfo) = self->fps_d;
	self->frame_size = GST_VIDEO_INFO_SIZE(&self->vinfo);
	if (self->frame_size_prop && self->frame_size_prop != self->frame_size) {
		GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
				  ("frame-size %u does not match %s %dx%d (%" G_GUINT64_FORMAT " bytes).",
				   self->frame_size_prop, self->format, self->width, self->height,
				   self->frame_size),
				  ("leave frame-size at 0 for video formats"));
		return FALSE;
	}
	return TRUE;
}

static gboolean gst_fdma_src_start(GstBaseSrc *bsrc)
{
	GstFdmaSrc *self = GST_FDMA_SRC(bsrc);
	struct fdmasrc_ring *r;
	struct fdma_info info;
	guint64 size, period_ns = 0;
	gchar *device;
	int ret;

	if (!configure_format(self))
		return FALSE;
	size = self->is_video ? self->frame_size : self->frame_size_prop;
	r = g_new0(struct fdmasrc_ring, 1);
	r->refs = 1;
	g_mutex_init(&r->lock);
	g_cond_init(&r->cond);
	r->nbufs = self->nbufs;
	r->returned = g_new0(guint, MAX(self->nbufs, 1));
	GST_OBJECT_LOCK(self);
	device = g_strdup(self->device);
	GST_OBJECT_UNLOCK(self);
	ret = gst_fdma_open_chan(GST_ELEMENT(self), device, FDMA_C2H, self->channel, &r->dev, &r->ch,
				 &info);
	g_free(device);
	if (!ret)
		goto fail;
	if (self->testgen) {
		if (!info.chan[r->ch].testgen) {
			GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
					  ("Channel %d has no test generator.", r->ch),
					  ("set testgen=false to take the FPGA design's frames"));
			goto fail;
		}
		if (self->fps_n > 0)
			period_ns = gst_util_uint64_scale_int(GST_SECOND, self->fps_d, self->fps_n);
		if (period_ns > G_MAXUINT32 || size > G_MAXUINT32) {
			GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
					  ("The test generator cannot send this."),
					  ("at most 4 GiB frames, at least 0.25 frames/s"));
			goto fail;
		}
	}
	if (self->drop || self->drop_set) {
		ret = fdma_chan_set_drop(r->dev, r->ch, self->drop);
		if (ret == -EOPNOTSUPP && !self->drop_set) {
			GST_INFO_OBJECT(self, "the channel cannot drop frames: it holds the source back");
		} else if (ret < 0) {
			GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("drop=%s.", self->drop ? "true" : "false"),
					  ("%s", fdma_errmsg(r->dev)));
			goto fail;
		}
	}
	ret = fdma_stream_open(r->dev, r->ch, self->nbufs,
			       (size + info.align - 1) / info.align * info.align, &r->stream);
	if (ret < 0) {
		GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("Could not open the stream on channel %d.", r->ch),
				  ("%s", fdma_errmsg(r->dev)));
		goto fail;
	}
	if (self->testgen) {
		ret = fdma_chan_set_testgen(r->dev, r->ch, (guint32)size, (guint32)period_ns, 1);
		if (ret < 0) {
			GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("Could not start the test generator."),
					  ("%s", fdma_errmsg(r->dev)));
			goto fail;
		}
		r->testgen = TRUE;
		r->testgen_len = (guint32)size;
	}
	r->streaming = TRUE;
	self->ring = r;
	self->discont = TRUE;
	self->have_dev0 = FALSE;
	GST_OBJECT_LOCK(self);
	self->frames = self->bytes = self->drops = self->errors = self->overruns = self->copies = 0;
	GST_OBJECT_UNLOCK(self);
	GST_INFO_OBJECT(self, "channel %d, %u buffers of %" G_GUINT64_FORMAT " bytes", r->ch,
			self->nbufs, size);
	return TRUE;
fail:
	ring_unref(r);
	return FALSE;
}

static gboolean gst_fdma_src_stop(GstBaseSrc *bsrc)
{
	GstFdmaSrc *self = GST_FDMA_SRC(bsrc);
	struct fdmasrc_ring *r = self->ring;

	if (!r)
		return TRUE;
	g_mutex_lock(&r->lock);
	r->streaming = FALSE;
	g_mutex_unlock(&r->lock);
	self->ring = NULL;
	/* Buffers still downstream keep the stream open until they come back. */
	ring_unref(r);
	return TRUE;
}

static gboolean gst_fdma_src_unlock(GstBaseSrc *bsrc)
{
	GstFdmaSrc *self = GST_FDMA_SRC(bsrc);

	g_atomic_int_set(&self->flushing, 1);
	if (self->ring) {
		g_mutex_lock(&self->ring->lock);
		g_cond_broadcast(&self->ring->cond);
		g_mutex_unlock(&self->ring->lock);
	}
	return TRUE;
}

static gboolean gst_fdma_src_unlock_stop(GstBaseSrc *bsrc)
{
	g_atomic_int_set(&GST_FDMA_SRC(bsrc)->flushing, 0);
	return TRUE;
}

static gboolean gst_fdma_src_query(GstBaseSrc *bsrc, GstQuery *query)
{
	GstFdmaSrc *self = GST_FDMA_SRC(bsrc);

	if (GST_QUERY_TYPE(query) == GST_QUERY_LATENCY && self->ring) {
		/* A frame is whole only when its last byte arrived: one frame time. */
		GstClockTime min = GST_CLOCK_TIME_IS_VALID(self->duration) ? self->duration : 0;
		GstClockTime max = GST_CLOCK_TIME_IS_VALID(self->duration) ?
			self->duration * self->nbufs : GST_CLOCK_TIME_NONE;

		gst_query_set_latency(query, TRUE, min, max);
		return TRUE;
	}
	return GST_BASE_SRC_CLASS(gst_fdma_src_parent_class)->query(bsrc, query);
}

static GstClockTime arrival_time(GstFdmaSrc *self)
{
	GstClock *clock = gst_element_get_clock(GST_ELEMENT(self));
	GstClockTime now, base;

	if (!clock)
		return GST_CLOCK_TIME_NONE;
	now = gst_clock_get_time(clock);
	base = gst_element_get_base_time(GST_ELEMENT(self));
	gst_object_unref(clock);
	return now > base ? now - base : 0;
}

/* The frame's time stamp: its arrival, or its device time where it carries one. */
static GstClockTime frame_pts(GstFdmaSrc *self, const struct fdma_frame *f)
{
	GstClockTime pts = arrival_time(self);
	const struct fdma_testgen_hdr *h = f->data;

	if (self->ts_mode != TS_DEVICE || f->len < sizeof(*h) || h->magic != FDMA_TESTGEN_MAGIC ||
	    !GST_CLOCK_TIME_IS_VALID(pts))
		return pts;
	if (!self->have_dev0 || h->tstamp_ns < self->dev0_ns) {
		self->have_dev0 = TRUE;
		self->dev0_ns = h->tstamp_ns;
		self->pts0 = pts;
	}
	return self->pts0 + (h->tstamp_ns - self->dev0_ns);
}

/*
 * Drops counted by the device since the last frame's: a gap, and a message
 * saying so. The count is read after the frame arrived, so a drop just
 * after it may be counted with it; the engine's OVERRUN flag, where it has
 * one, marks the first frame after drops exactly.
 */
static void note_drops(GstFdmaSrc *self, const struct fdma_frame *f)
{
	guint64 drops = fdma_stream_drops(self->ring->stream), gap;

	GST_OBJECT_LOCK(self);
	gap = drops > self->drops ? drops - self->drops : 0;
	self->drops = MAX(drops, self->drops);
	if (f->flags & FDMA_CPL_OVERRUN)
		self->overruns++;
	GST_OBJECT_UNLOCK(self);
	if (gap || (f->flags & FDMA_CPL_OVERRUN)) {
		self->discont = TRUE;
		gst_element_post_message(GST_ELEMENT(self),
			gst_message_new_element(GST_OBJECT(self),
				gst_structure_new("fdmasrc-drops", "dropped", G_TYPE_UINT64, gap,
						  "total-dropped", G_TYPE_UINT64, drops,
						  "overrun", G_TYPE_BOOLEAN,
						  (gboolean)!!(f->flags & FDMA_CPL_OVERRUN), NULL)));
	}
}

/* Wait for the next whole frame; GST_FLOW_OK with *f held by us. */
static GstFlowReturn next_frame(GstFdmaSrc *self, struct fdma_frame *f)
{
	struct fdmasrc_ring *r = self->ring;
	gint64 deadline = self->timeout_s ?
		g_get_monotonic_time() + (gint64)self->timeout_s * G_USEC_PER_SEC : 0;
	int ret;

	for (;;) {
		if (g_atomic_int_get(&self->flushing))
			return GST_FLOW_FLUSHING;
		ret = rearm_returned(r);
		if (!ret)
			ret = fdma_stream_get(r->stream, f, WAIT_SLICE_US);
		if (!ret) {
			if (!self->frame_size || f->len == self->frame_size)
				return GST_FLOW_OK;
			/* Not a frame of the configured format: counted, never passed on. */
			GST_WARNING_OBJECT(self, "frame of %" G_GUINT64_FORMAT " bytes, expected %"
					   G_GUINT64_FORMAT ": dropped", (guint64)f->len, self->frame_size);
			GST_OBJECT_LOCK(self);
			self->errors++;
			GST_OBJECT_UNLOCK(self);
			self->discont = TRUE;
			ret = fdma_stream_release(r->stream, f);
			if (!ret)
				continue;
		}
		if (ret == -EAGAIN) {
			/* Every buffer is downstream: wait for one to come back. */
			g_mutex_lock(&r->lock);
			if (!r->nreturned && !g_atomic_int_get(&self->flushing))
				g_cond_wait_until(&r->cond, &r->lock,
						  g_get_monotonic_time() + WAIT_SLICE_US);
			g_mutex_unlock(&r->lock);
			ret = -ETIMEDOUT;
		}
		if (ret == -ETIMEDOUT) {
			if (!deadline || g_get_monotonic_time() < deadline)
				continue;
			GST_ELEMENT_ERROR(self, RESOURCE, READ, ("No frame in %u s.", self->timeout_s),
					  ("channel %d; 'fdma doctor' checks the device", r->ch));
			return GST_FLOW_ERROR;
		}
		GST_ELEMENT_ERROR(self, RESOURCE, READ, ("Could not read a frame."),
				  ("%s", fdma_errmsg(r->dev)));
		return GST_FLOW_ERROR;
	}
}

static GstFlowReturn gst_fdma_src_create(GstPushSrc *psrc, GstBuffer **outbuf)
{
	GstFdmaSrc *self = GST_FDMA_SRC(psrc);
	struct fdmasrc_ring *r = self->ring;
	struct fdmasrc_frame *fr;
	struct fdma_frame f;
	GstFlowReturn flow;
	GstBuffer *buf;

	flow = next_frame(self, &f);
	if (flow != GST_FLOW_OK)
		return flow;
	note_drops(self, &f);
	if ((guint)g_atomic_int_get(&r->lent) + 1 < r->nbufs) {
		fr = g_new(struct fdmasrc_frame, 1);
		fr->ring = r;
		fr->f = f;
		g_atomic_int_inc(&r->refs);
		g_atomic_int_inc(&r->lent);
		buf = gst_buffer_new_wrapped_full(0, f.data, f.len, 0, f.len, fr, frame_returned);
	} else {
		/* The device's last buffer: lent, it would leave the ring empty. */
		buf = gst_buffer_new_memdup(f.data, f.len);
		if (fdma_stream_release(r->stream, &f) < 0) {
			gst_buffer_unref(buf);
			GST_ELEMENT_ERROR(self, RESOURCE, READ, ("Could not give a buffer back."),
					  ("%s", fdma_errmsg(r->dev)));
			return GST_FLOW_ERROR;
		}
		GST_OBJECT_LOCK(self);
		self->copies++;
		GST_OBJECT_UNLOCK(self);
	}
	GST_BUFFER_PTS(buf) = frame_pts(self, &f);
	GST_BUFFER_DURATION(buf) = self->duration;
	GST_OBJECT_LOCK(self);
	GST_BUFFER_OFFSET(buf) = self->frames;
	GST_BUFFER_OFFSET_END(buf) = ++self->frames;
	self->bytes += f.len;
	GST_OBJECT_UNLOCK(self);
	if (self->discont) {
		GST_BUFFER_FLAG_SET(buf, GST_BUFFER_FLAG_DISCONT);
		self->discont = FALSE;
	}
	*outbuf = buf;
	return GST_FLOW_OK;
}

static void gst_fdma_src_set_property(GObject *obj, guint id, const GValue *v, GParamSpec *ps)
{
	GstFdmaSrc *self = GST_FDMA_SRC(obj);

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
	case PROP_FORMAT:
		g_free(self->format);
		self->format = g_value_dup_string(v);
		break;
	case PROP_WIDTH:
		self->width = g_value_get_int(v);
		break;
	case PROP_HEIGHT:
		self->height = g_value_get_int(v);
		break;
	case PROP_FRAMERATE:
		self->fps_n = gst_value_get_fraction_numerator(v);
		self->fps_d = gst_value_get_fraction_denominator(v);
		break;
	case PROP_FRAME_SIZE:
		self->frame_size_prop = g_value_get_uint(v);
		break;
	case PROP_TESTGEN:
		self->testgen = g_value_get_boolean(v);
		break;
	case PROP_DROP:
		self->drop = g_value_get_boolean(v);
		self->drop_set = TRUE;
		break;
	case PROP_TIMESTAMP:
		self->ts_mode = (enum ts_mode)g_value_get_enum(v);
		break;
	case PROP_TIMEOUT:
		self->timeout_s = g_value_get_uint(v);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
	}
	GST_OBJECT_UNLOCK(self);
}

static void gst_fdma_src_get_property(GObject *obj, guint id, GValue *v, GParamSpec *ps)
{
	GstFdmaSrc *self = GST_FDMA_SRC(obj);

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
	case PROP_FORMAT:
		g_value_set_string(v, self->format);
		break;
	case PROP_WIDTH:
		g_value_set_int(v, self->width);
		break;
	case PROP_HEIGHT:
		g_value_set_int(v, self->height);
		break;
	case PROP_FRAMERATE:
		gst_value_set_fraction(v, self->fps_n, self->fps_d);
		break;
	case PROP_FRAME_SIZE:
		g_value_set_uint(v, self->frame_size_prop);
		break;
	case PROP_TESTGEN:
		g_value_set_boolean(v, self->testgen);
		break;
	case PROP_DROP:
		g_value_set_boolean(v, self->drop);
		break;
	case PROP_TIMESTAMP:
		g_value_set_enum(v, self->ts_mode);
		break;
	case PROP_TIMEOUT:
		g_value_set_uint(v, self->timeout_s);
		break;
	case PROP_FRAMES:
		g_value_set_uint64(v, self->frames);
		break;
	case PROP_BYTES:
		g_value_set_uint64(v, self->bytes);
		break;
	case PROP_DROPS:
		g_value_set_uint64(v, self->drops);
		break;
	case PROP_ERRORS:
		g_value_set_uint64(v, self->errors);
		break;
	case PROP_OVERRUNS:
		g_value_set_uint64(v, self->overruns);
		break;
	case PROP_COPIES:
		g_value_set_uint64(v, self->copies);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(obj, id, ps);
	}
	GST_OBJECT_UNLOCK(self);
}

static void gst_fdma_src_finalize(GObject *obj)
{
	GstFdmaSrc *self = GST_FDMA_SRC(obj);

	g_free(self->device);
	g_free(self->format);
	G_OBJECT_CLASS(gst_fdma_src_parent_class)->finalize(obj);
}

static void gst_fdma_src_init(GstFdmaSrc *self)
{
	self->channel = -1;
	self->nbufs = 8;
	self->format = g_strdup("bytes");
	self->fps_n = 0;
	self->fps_d = 1;
	self->drop = TRUE;
	gst_base_src_set_live(GST_BASE_SRC(self), TRUE);
	gst_base_src_set_format(GST_BASE_SRC(self), GST_FORMAT_TIME);
}

#define RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY)
#define RO (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)

static void gst_fdma_src_class_init(GstFdmaSrcClass *klass)
{
	GObjectClass *oc = G_OBJECT_CLASS(klass);
	GstElementClass *ec = GST_ELEMENT_CLASS(klass);
	GstBaseSrcClass *bc = GST_BASE_SRC_CLASS(klass);

	oc->set_property = gst_fdma_src_set_property;
	oc->get_property = gst_fdma_src_get_property;
	oc->finalize = gst_fdma_src_finalize;

	g_object_class_install_property(oc, PROP_DEVICE,
		g_param_spec_string("device", "Device",
				    "libfdma device URI (kdev:/dev/fdma0, /dev/fdma0, sim:...); "
				    "NULL: the environment's FDMA_DEVICE", NULL, RW));
	g_object_class_install_property(oc, PROP_CHANNEL,
		g_param_spec_int("channel", "Channel",
				 "C2H stream channel (-1: the device's first)", -1, FDMA_MAX_CHAN - 1, -1, RW));
	g_object_class_install_property(oc, PROP_BUFFERS,
		g_param_spec_uint("buffers", "Buffers",
				  "DMA buffers in the ring (armed on the device or downstream)",
				  2, 4096, 8, RW));
	g_object_class_install_property(oc, PROP_FORMAT,
		g_param_spec_string("format", "Format",
				    "The design's frame format: a raw video format (GRAY8, YUY2, RGB, "
				    "I420, ...) or 'bytes' for frames that are not video",
				    "bytes", RW));
	g_object_class_install_property(oc, PROP_WIDTH,
		g_param_spec_int("width", "Width", "Video frame width, pixels", 0, 65535, 0, RW));
	g_object_class_install_property(oc, PROP_HEIGHT,
		g_param_spec_int("height", "Height", "Video frame height, lines", 0, 65535, 0, RW));
	g_object_class_install_property(oc, PROP_FRAMERATE,
		gst_param_spec_fraction("framerate", "Frame rate",
					"Frames per second the design sends (0/1: unknown or "
					"variable; with testgen, as fast as possible)",
					0, 1, G_MAXINT, 1, 0, 1, RW));
	g_object_class_install_property(oc, PROP_FRAME_SIZE,
		g_param_spec_uint("frame-size", "Frame size",
				  "format=bytes: the largest frame, bytes (video: 0, from the format)",
				  0, G_MAXUINT, 0, RW));
	g_object_class_install_property(oc, PROP_TESTGEN,
		g_param_spec_boolean("testgen", "Test generator",
				     "Drive the channel's test generator (frames of the configured "
				     "size at the frame rate)", FALSE, RW));
	g_object_class_install_property(oc, PROP_DROP,
		g_param_spec_boolean("drop", "Drop",
				     "The device drops frames while no buffer is armed (a gap and "
				     "DISCONT); false holds the source back. Default true where the "
				     "device can drop", TRUE, RW));
	g_object_class_install_property(oc, PROP_TIMESTAMP,
		g_param_spec_enum("timestamp", "Time stamps", "What a buffer's PTS is",
				  GST_TYPE_FDMA_SRC_TIMESTAMP, TS_ARRIVAL, RW));
	g_object_class_install_property(oc, PROP_TIMEOUT,
		g_param_spec_uint("timeout", "Timeout",
				  "Fail when no frame arrives for this many seconds (0: wait forever)",
				  0, 3600, 0, RW));
	g_object_class_install_property(oc, PROP_FRAMES,
		g_param_spec_uint64("frames", "Frames", "Frames passed on", 0, G_MAXUINT64, 0, RO));
	g_object_class_install_property(oc, PROP_BYTES,
		g_param_spec_uint64("bytes", "Bytes", "Bytes passed on", 0, G_MAXUINT64, 0, RO));
	g_object_class_install_property(oc, PROP_DROPS,
		g_param_spec_uint64("drops", "Drops", "Frames the device dropped", 0, G_MAXUINT64, 0,
				    RO));
	g_object_class_install_property(oc, PROP_ERRORS,
		g_param_spec_uint64("errors", "Errors",
				    "Frames not of the configured size, not passed on", 0, G_MAXUINT64,
				    0, RO));
	g_object_class_install_property(oc, PROP_OVERRUNS,
		g_param_spec_uint64("overruns", "Overruns",
				    "Frames the device marked as following dropped ones", 0,
				    G_MAXUINT64, 0, RO));
	g_object_class_install_property(oc, PROP_COPIES,
		g_param_spec_uint64("copies", "Copies",
				    "Frames passed on as copies: downstream held every other buffer",
				    0, G_MAXUINT64, 0, RO));

	gst_element_class_set_static_metadata(ec, "fdma source", "Source/Video",
		"Frames from an FPGA's C2H stream channel, zero-copy (libfdma)", "fdma");
	gst_element_class_add_static_pad_template(ec, &src_template);
	gst_type_mark_as_plugin_api(GST_TYPE_FDMA_SRC_TIMESTAMP, 0);

	bc->get_caps = gst_fdma_src_get_caps;
	bc->start = gst_fdma_src_start;
	bc->stop = gst_fdma_src_stop;
	bc->unlock = gst_fdma_src_unlock;
	bc->unlock_stop = gst_fdma_src_unlock_stop;
	bc->query = gst_fdma_src_query;
	GST_PUSH_SRC_CLASS(klass)->create = gst_fdma_src_create;

	GST_DEBUG_CATEGORY_INIT(fdmasrc_debug, "fdmasrc", 0, "fdma source");
}
