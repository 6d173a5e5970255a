// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: stream channels as V4L2 video devices (v4l2=1, or a backend's
 * format for its channel: a device tree's). A C2H channel
 * is a capture device, so that v4l2src, ffmpeg -f v4l2, OpenCV, v4l2-ctl
 * and a SoC's encoders and displays take the FPGA's frames from
 * /dev/videoN, as dma-bufs where they want (VIDIOC_EXPBUF) and into
 * dma-bufs of theirs (V4L2_MEMORY_DMABUF). An H2C channel is an output
 * device: each buffer queued to it goes to the design as one stream frame.
 *
 * The format is the FPGA design's: it is configured (module parameters,
 * docs/v4l2.md), not negotiated. S_FMT and TRY_FMT answer with it whatever
 * they are asked, ENUM_FMT, ENUM_FRAMESIZES and ENUM_FRAMEINTERVALS list
 * only it.
 *
 * Owner: the device holds its channel (fdma_chan_claim()) while it streams,
 * from vb2's start_streaming (STREAMON with enough buffers queued: two for
 * a capture, one for an output) to STREAMOFF; meanwhile the character
 * device's requests and knobs on it are -EBUSY, and starting is -EBUSY
 * while a file or another client uses it.
 *
 * Buffers: vb2's dma-sg allocator, mapped for the device that does the DMA.
 * A buffer is posted as one engine request per DMA segment, covering
 * sizeimage bytes: a frame of that size starts in the first (SOF) and ends
 * in the last (EOF). Capture: the engine never cuts a frame (docs/engine.md
 * section 13), so a frame of another size would put the next frame out of
 * step with the buffers: such a buffer is returned with V4L2_BUF_FLAG_ERROR
 * and the channel is reset (its source restarts at a frame boundary) and
 * armed again with the queued buffers, in order. Output: a buffer carries
 * exactly sizeimage bytes (bytesused), as the design takes whole frames.
 *
 * A backend's channel whose completions mark no frames (fdma_dmac.ko's:
 * a dmaengine transfer receives one frame) takes vb2's dma-contig
 * buffers instead, each frame one transfer (frame_reqs requests at most);
 * a frame of another size is an error buffer and nothing more, since the
 * next buffer receives the next frame whatever this one got.
 *
 * Completions arrive in ring order under the channel's lock (the client's
 * piece callback, from the reap): the first buffer posted and not done is
 * the one they are for. Frames the engine dropped (drop mode, no buffer
 * posted when a frame was due) show as gaps in the sequence numbers; time
 * stamps are the completion's (CLOCK_MONOTONIC, end of frame). An output
 * buffer keeps the time stamp its writer gave it (vb2 copies it back).
 *
 * Locks: vd->lock is the queue's, the ioctls' (vb2 takes it) and the
 * sysfs settings'; the control handler's lock is taken inside it; c->lock
 * the channel's, taken inside both, and by the reap that calls us back;
 * vd->qlock (a spinlock) guards the lists, which both sides touch.
 */
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <media/v4l2-ctrls.h>
#include <media/v4l2-device.h>
#include <media/v4l2-event.h>
#include <media/v4l2-ioctl.h>
#include <media/videobuf2-dma-contig.h>
#include <media/videobuf2-dma-sg.h>
#include <media/videobuf2-v4l2.h>

#include "fdma_compat.h"
#include "fdma_drv.h"

/* The configured format (module parameters; docs/v4l2.md). */
static char *fdma_v4l2_fmt = "YUYV";
module_param_named(v4l2_format, fdma_v4l2_fmt, charp, 0444);
MODULE_PARM_DESC(v4l2_format,
		 "v4l2=1: the frames' pixel format as a fourcc (YUYV, UYVY, GREY, Y16, RGB3, BGR3, XR24, NV12, BA81, RGGB; default YUYV); this and the other v4l2_* parameters are each video device's settings to start with (sysfs changes them per device)");
static unsigned int fdma_v4l2_width = 640;
module_param_named(v4l2_width, fdma_v4l2_width, uint, 0444);
MODULE_PARM_DESC(v4l2_width, "v4l2=1: frame width in pixels (default 640)");
static unsigned int fdma_v4l2_height = 480;
module_param_named(v4l2_height, fdma_v4l2_height, uint, 0444);
MODULE_PARM_DESC(v4l2_height, "v4l2=1: frame height in lines (default 480)");
static unsigned int fdma_v4l2_bpl;
module_param_named(v4l2_bytesperline, fdma_v4l2_bpl, uint, 0444);
MODULE_PARM_DESC(v4l2_bytesperline,
		 "v4l2=1: bytes per line, 0 for the format's own (default 0)");
static unsigned int fdma_v4l2_fps = 30;
module_param_named(v4l2_fps, fdma_v4l2_fps, uint, 0444);
MODULE_PARM_DESC(v4l2_fps, "v4l2=1: frames per second the design sends (1..1000, default 30)");
static bool fdma_v4l2_drop = true;
module_param_named(v4l2_drop, fdma_v4l2_drop, bool, 0444);
MODULE_PARM_DESC(v4l2_drop,
		 "v4l2=1: drop a frame that finds no buffer queued (a camera's behaviour, shown as a sequence gap) where the engine can; else hold the source back (default 1)");

/**
 * struct fdma_vfmt - a pixel format the device can be configured for
 * @fourcc: V4L2_PIX_FMT_*
 * @bpp: bits per pixel of the first plane (bytes per line = width * bpp / 8)
 * @num: sizeimage = bytesperline * height * @num / @den (a 4:2:0 planar
 *	format carries its chroma below the luma)
 * @den: see @num
 * @colorspace: V4L2_COLORSPACE_* the format implies
 */
struct fdma_vfmt {
	u32 fourcc;
	u8 bpp;
	u8 num, den;
	u8 colorspace;
};

static const struct fdma_vfmt fdma_vfmts[] = {
	{ V4L2_PIX_FMT_YUYV, 16, 1, 1, V4L2_COLORSPACE_REC709 },
	{ V4L2_PIX_FMT_UYVY, 16, 1, 1, V4L2_COLORSPACE_REC709 },
	{ V4L2_PIX_FMT_NV12, 8, 3, 2, V4L2_COLORSPACE_REC709 },
	{ V4L2_PIX_FMT_GREY, 8, 1, 1, V4L2_COLORSPACE_RAW },
	{ V4L2_PIX_FMT_Y16, 16, 1, 1, V4L2_COLORSPACE_RAW },
	{ V4L2_PIX_FMT_RGB24, 24, 1, 1, V4L2_COLORSPACE_SRGB },
	{ V4L2_PIX_FMT_BGR24, 24, 1, 1, V4L2_COLORSPACE_SRGB },
	{ V4L2_PIX_FMT_XRGB32, 32, 1, 1, V4L2_COLORSPACE_SRGB },
	{ V4L2_PIX_FMT_SBGGR8, 8, 1, 1, V4L2_COLORSPACE_RAW },
	{ V4L2_PIX_FMT_SRGGB8, 8, 1, 1, V4L2_COLORSPACE_RAW },
};

#define FDMA_VBUF_REQS	64	/* engine requests (DMA segments) per buffer, at most */

/**
 * struct fdma_vbuf - one V4L2 buffer
 * @vb: vb2's (first: buf_struct_size)
 * @node: on fdma_vdev.pending or .active
 * @req: the engine requests it is posted as (made at buf_prepare)
 * @nreq: how many
 * @ndesc: the descriptors they take in the ring
 * @left: of those, not yet back
 * @bytes: frame bytes landed in it
 * @status: the first request's error, else FDMA_CPL_OK
 * @bad: out of step with the frames (a frame of another size)
 * @overrun: the engine dropped frames before this one (CPL_F_OVERRUN)
 */
struct fdma_vbuf {
	struct vb2_v4l2_buffer vb;
	struct list_head node;
	struct fdma_ereq req[FDMA_VBUF_REQS];
	u32 nreq;
	u32 ndesc;
	u32 left;
	u32 bytes;
	u16 status;
	bool bad;
	bool overrun;
};

/**
 * struct fdma_vdev - the video device of one stream channel (capture or output)
 * @cl: the channel's client (fdma_chan_claim() while streaming)
 * @fdev: the fdma device (a reference, dropped at release)
 * @c: the channel
 * @v4l2: its v4l2_device
 * @vdev: /dev/videoN
 * @q: the buffer queue
 * @ctrls: the controls: the test pattern (capture), the checker and its
 *	counts (output)
 * @lock: the queue's and the ioctls', and @cfg's, @fmt's, @interval's
 *	and @drop's for the sysfs settings
 * @qlock: @pending and @active
 * @pending: queued by vb2, not yet posted (no room in the ring)
 * @active: posted, in ring order
 * @resync: resets the channel after a frame out of step
 * @fmt: the configured format
 * @cfg: the settings it was made from (sysfs shows them)
 * @interval: the configured frame interval
 * @sequence: the next frame's number
 * @drops: the channel's drop count when it was last looked at
 * @streaming: the channel is claimed and armed
 * @out_of_step: a resync is due; completions are canceled ones until then
 * @drop: capture: drop frames that find no buffer (else hold the source)
 * @ctrl_src: that control (grabbed while streaming), NULL without a test block
 * @testgen: the test pattern (capture) or frame checker (output) control:
 *	the channel's test generator or checker in place of the design's
 * @out: an output device (an H2C channel)
 * @contig: buffers from vb2's dma-contig allocator: the channel's frames
 *	are not marked (fdma_chan.frame_reqs), so each must go in the few
 *	requests one contiguous buffer makes
 * @chk_frames: output: frames the checker counted good this stream, up to
 *	the channel's last reset (which clears the device's counts)
 * @chk_errors: output: frames it counted bad, likewise
 * @chk_base: the device's counts (good, bad) when this stream began or
 *	the channel was last reset: earlier users' frames, not this stream's
 */
struct fdma_vdev {
	struct fdma_chan_client cl;
	struct fdma_device *fdev;
	struct fdma_chan *c;
	struct v4l2_device v4l2;
	struct video_device vdev;
	struct vb2_queue q;
	struct v4l2_ctrl_handler ctrls;
	struct mutex lock;		/* the queue and the ioctls */
	spinlock_t qlock;		/* pending, active */
	struct list_head pending;
	struct list_head active;
	struct work_struct resync;
	struct v4l2_pix_format fmt;
	struct fdma_video_cfg cfg;
	struct v4l2_fract interval;
	u32 sequence;
	u64 drops;
	bool streaming;
	bool out_of_step;
	struct v4l2_ctrl *ctrl_src;
	bool drop;
	bool testgen;
	bool out;
	bool contig;
	u64 chk_frames;
	u64 chk_errors;
	u32 chk_base[2];
};

static struct fdma_vbuf *to_vbuf(struct vb2_buffer *vb)
{
	return container_of(to_vb2_v4l2_buffer(vb), struct fdma_vbuf, vb);
}

static struct device *vdev_log(const struct fdma_vdev *vd)
{
	return vd->fdev->dma_dev;
}

/* ---- the configured format --------------------------------------------- */

static const struct fdma_vfmt *vfmt_find(u32 fourcc)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fdma_vfmts); i++)
		if (fdma_vfmts[i].fourcc == fourcc)
			return &fdma_vfmts[i];
	return NULL;
}

/*
 * Make cfg the device's format, checked: a format the device knows,
 * 16k by 16k at most, and the channel's alignment (a frame is whole
 * buffers of aligned length). Nothing changes on an error, which the log
 * explains. Under vd->lock, or before the device is registered.
 */
static int vfmt_set(struct fdma_vdev *vd, const struct fdma_video_cfg *cfg)
{
	struct v4l2_pix_format f = { 0 };
	const struct fdma_vfmt *vf = vfmt_find(cfg->fourcc);
	u32 minbpl;
	u64 size;

	if (!vf) {
		dev_err_ratelimited(vdev_log(vd), "v4l2 format %p4cc: not a format the video device knows (docs/v4l2.md)\n",
				    &cfg->fourcc);
		return -EINVAL;
	}
	if (!cfg->width || !cfg->height || cfg->width > 16384 || cfg->height > 16384 ||
	    !cfg->fps || cfg->fps > 1000) {
		dev_err_ratelimited(vdev_log(vd), "v4l2 width %u, height %u, fps %u: expected 1..16384 pixels and lines, 1..1000 frames per second\n",
				    cfg->width, cfg->height, cfg->fps);
		return -EINVAL;
	}
	/* 4:2:0: a chroma sample per 2x2 pixels. */
	if (vf->num != vf->den && ((cfg->width | cfg->height) & 1)) {
		dev_err_ratelimited(vdev_log(vd), "v4l2 %ux%u: %p4cc needs an even width and height\n",
				    cfg->width, cfg->height, &cfg->fourcc);
		return -EINVAL;
	}
	minbpl = DIV_ROUND_UP(cfg->width * vf->bpp, 8);
	if (cfg->bpl && (cfg->bpl < minbpl || cfg->bpl > 4 * minbpl)) {
		dev_err_ratelimited(vdev_log(vd), "v4l2 bytesperline %u: expected %u..%u for %p4cc at %u pixels\n",
				    cfg->bpl, minbpl, 4 * minbpl, &cfg->fourcc, cfg->width);
		return -EINVAL;
	}
	f.pixelformat = cfg->fourcc;
	f.width = cfg->width;
	f.height = cfg->height;
	f.field = V4L2_FIELD_NONE;
	f.bytesperline = cfg->bpl ? cfg->bpl : minbpl;
	/* 64-bit divisions through div_u64(): 32-bit ARM has no instruction for them. */
	size = div_u64((u64)f.bytesperline * f.height * vf->num, vf->den);
	if (size > SZ_256M || (u32)size % vd->fdev->dma_align) {
		dev_err_ratelimited(vdev_log(vd), "v4l2: a %llu-byte frame: the channel takes frames of whole multiples of %u bytes, up to 256 MiB (docs/v4l2.md)\n",
				    size, vd->fdev->dma_align);
		return -EINVAL;
	}
	/*
	 * Unmarked frames: one contiguous buffer, in frame_reqs requests at
	 * most, which the ring must hold. Its requests depend on sizeimage
	 * alone, so this check is every buffer's.
	 */
	if (vd->contig) {
		u32 most = min3(vd->c->frame_reqs, (u32)FDMA_VBUF_REQS,
				vd->fdev->ring_size / 2);

		if (DIV_ROUND_UP_ULL(size, vd->c->ereq_max) > most) {
			dev_err_ratelimited(vdev_log(vd), "v4l2: a %llu-byte frame: channel %u takes a frame in %u transfer(s) of %u bytes at most (docs/v4l2.md)\n",
					    size, vd->c->idx, most, vd->c->ereq_max);
			return -EINVAL;
		}
	}
	f.sizeimage = size;
	f.colorspace = vf->colorspace;
	f.ycbcr_enc = V4L2_YCBCR_ENC_DEFAULT;
	/*
	 * Raw samples (grey, Bayer) use their whole range: said, since V4L2's
	 * default for a format that is not RGB is limited range, which
	 * converters would then "correct" (GStreamer's videoconvert).
	 */
	f.quantization = vf->colorspace == V4L2_COLORSPACE_RAW ?
			 V4L2_QUANTIZATION_FULL_RANGE : V4L2_QUANTIZATION_DEFAULT;
	f.xfer_func = V4L2_XFER_FUNC_DEFAULT;
	vd->fmt = f;
	vd->cfg = *cfg;
	vd->interval.numerator = 1;
	vd->interval.denominator = cfg->fps;
	return 0;
}

/*
 * The format to start with: the backend's for its channel (a device
 * tree's), else the module parameters'.
 */
static int vfmt_config(struct fdma_vdev *vd)
{
	struct fdma_video_cfg cfg = {
		.fourcc = fdma_video_fourcc(fdma_v4l2_fmt),
		.width = fdma_v4l2_width,
		.height = fdma_v4l2_height,
		.bpl = fdma_v4l2_bpl,
		.fps = fdma_v4l2_fps,
	};

	vd->drop = fdma_v4l2_drop;
	if (vd->c->video.fourcc)
		return vfmt_set(vd, &vd->c->video);
	if (!cfg.fourcc) {
		dev_err(vdev_log(vd), "v4l2_format=%s: a fourcc is 4 characters at most (docs/v4l2.md)\n",
			fdma_v4l2_fmt);
		return -EINVAL;
	}
	return vfmt_set(vd, &cfg);
}

/* ---- posting buffers ------------------------------------------------------ */

/*
 * Add the requests for len bytes at a to b (b->req, b->ndesc), at most
 * the channel's longest each; *n counts them, even beyond FDMA_VBUF_REQS,
 * so that the caller can refuse the buffer.
 */
static void vbuf_add(struct fdma_vdev *vd, struct fdma_vbuf *b, u32 *n,
		     dma_addr_t a, u32 len)
{
	struct fdma_chan *c = vd->c;

	while (len) {
		u32 l = min(len, c->ereq_max);

		if (*n < ARRAY_SIZE(b->req)) {
			b->req[*n] = (struct fdma_ereq){
				.host = a,
				.len = l,
				.cookie = FDMA_DCOOKIE | b->vb.vb2_buf.index,
			};
			b->ndesc += c->ops->ndesc(c, l);
		}
		(*n)++;
		a += l;
		len -= l;
	}
}

/*
 * Make b's engine requests: one per DMA segment (a contiguous buffer is
 * one), split at the channel's longest, up to sizeimage bytes. Returns
 * how many there are, 0 if a segment is not aligned as the engine needs.
 */
static u32 vbuf_reqs(struct fdma_vdev *vd, struct fdma_vbuf *b)
{
	struct vb2_buffer *vb = &b->vb.vb2_buf;
	u32 left = vd->fmt.sizeimage, n = 0, align = vd->fdev->dma_align;
	struct scatterlist *sg;
	struct sg_table *sgt;
	unsigned int i;

	b->ndesc = 0;
#if IS_ENABLED(CONFIG_VIDEOBUF2_DMA_CONTIG)
	if (vd->contig) {
		dma_addr_t a = vb2_dma_contig_plane_dma_addr(vb, 0);

		if (a & (align - 1))
			return 0;
		vbuf_add(vd, b, &n, a, left);
		return n;
	}
#endif
	sgt = vb2_dma_sg_plane_desc(vb, 0);
	for_each_sgtable_dma_sg(sgt, sg, i) {
		u32 len = min_t(u32, sg_dma_len(sg), left);
		dma_addr_t a = sg_dma_address(sg);

		if (!left)
			break;
		if ((a | len) & (align - 1))
			return 0;
		vbuf_add(vd, b, &n, a, len);
		left -= len;
	}
	return left ? 0 : n;
}

/*
 * Post what is pending, whole buffers in order, as long as the ring has
 * room. Under c->lock. from_reap: called back from the reap, which has
 * just looked at the channel (fdma_chan_usable() would reap again).
 */
static void vdev_post(struct fdma_vdev *vd, bool from_reap)
{
	struct fdma_chan *c = vd->c;
	struct fdma_vbuf *b;
	unsigned long flags;
	bool posted = false;
	u32 i, n;

	lockdep_assert_held(&c->lock);
	if (!vd->streaming || vd->out_of_step)
		return;
	if (from_reap ? READ_ONCE(c->fdev->dead) || !c->up || c->broken :
			fdma_chan_usable(c))
		return;
	for (;;) {
		spin_lock_irqsave(&vd->qlock, flags);
		b = list_first_entry_or_null(&vd->pending, struct fdma_vbuf, node);
		spin_unlock_irqrestore(&vd->qlock, flags);
		if (!b)
			break;
		/* buf_prepare made the requests: aligned, at most FDMA_VBUF_REQS. */
		n = b->nreq;
		if (c->ops->space(c) < b->ndesc)
			break;
		b->left = n;
		b->bytes = 0;
		b->status = FDMA_CPL_OK;
		b->bad = false;
		b->overrun = false;
		spin_lock_irqsave(&vd->qlock, flags);
		list_move_tail(&b->node, &vd->active);
		spin_unlock_irqrestore(&vd->qlock, flags);
		for (i = 0; i < n; i++)
			WARN_ON_ONCE(fdma_chan_post(c, &b->req[i]));
		posted = true;
	}
	if (posted)
		fdma_chan_doorbell(c);
}

/* ---- completions ------------------------------------------------------------ */

/* The engine's drops since we last looked: the sequence skips them. */
static void vdev_count_drops(struct fdma_vdev *vd)
{
	u64 d = fdma_chan_drops_locked(vd->c);

	vd->sequence += (u32)(d - vd->drops);
	vd->drops = d;
}

/*
 * One engine request of ours finished or was canceled (under c->lock).
 * taint: the channel's reset was not acknowledged and the engine may
 * still write: the buffer is given back as an error all the same (vb2
 * insists), and the log says so.
 */
static void vdev_piece(struct fdma_chan *c, struct fdma_chan_client *cl,
		       const struct fdma_ecpl *e, bool taint)
{
	struct fdma_vdev *vd = container_of(cl, struct fdma_vdev, cl);
	enum vb2_buffer_state state = VB2_BUF_STATE_DONE;
	struct fdma_vbuf *b;
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&vd->qlock, flags);
	b = list_first_entry_or_null(&vd->active, struct fdma_vbuf, node);
	spin_unlock_irqrestore(&vd->qlock, flags);
	if (!b || (e->cookie & ~FDMA_DCOOKIE) != b->vb.vb2_buf.index) {
		dev_err_ratelimited(vdev_log(vd), "%s: completion of buffer %llu, not of the first posted\n",
				    video_device_node_name(&vd->vdev),
				    e->cookie & ~FDMA_DCOOKIE);
		return;
	}
	if (taint)
		dev_err_ratelimited(vdev_log(vd), "%s: buffer %u handed back with the channel not reset: the engine may still write it\n",
				    video_device_node_name(&vd->vdev), b->vb.vb2_buf.index);
	first = b->left == b->nreq;
	b->left--;
	if (b->status == FDMA_CPL_OK)
		b->status = e->status;
	if (e->flags & FDMA_CPL_F_OVERRUN)
		b->overrun = true;
	if (e->status == FDMA_CPL_OK) {
		b->bytes += e->len;
		/* A frame starts in the first request and ends in the last. */
		if (!vd->out && (first != !!(e->flags & FDMA_CPL_F_SOF) ||
				 !b->left != !!(e->flags & FDMA_CPL_F_EOF)))
			b->bad = true;
	}
	if (b->left)
		return;

	spin_lock_irqsave(&vd->qlock, flags);
	list_del(&b->node);
	if (b->status == FDMA_CPL_CANCELED && vd->out_of_step && vd->streaming) {
		/* A resync's cancel: armed again first thing, in order. */
		list_add_tail(&b->node, &vd->pending);
		spin_unlock_irqrestore(&vd->qlock, flags);
		return;
	}
	spin_unlock_irqrestore(&vd->qlock, flags);

	if (b->status == FDMA_CPL_CANCELED) {
		state = VB2_BUF_STATE_ERROR;
	} else {
		if (b->bytes != vd->fmt.sizeimage)
			b->bad = true;
		if (b->status != FDMA_CPL_OK || b->bad)
			state = VB2_BUF_STATE_ERROR;
		if (!vd->out) {
			/*
			 * The drop counter, read now, may already count frames
			 * dropped after this one (the reap runs late under
			 * load): they go in front of the frame the engine flags
			 * next, not this one. An engine that flags none: now.
			 */
			if (b->overrun || !vd->fdev->caps.overrun_flag)
				vdev_count_drops(vd);
			b->vb.vb2_buf.timestamp = ktime_get_ns();
			vb2_set_plane_payload(&b->vb.vb2_buf, 0,
					      min_t(u32, b->bytes, vd->fmt.sizeimage));
		}
		b->vb.sequence = vd->sequence++;
		b->vb.field = V4L2_FIELD_NONE;
		if (b->status == FDMA_CPL_OK)
			fdma_chan_account(c, b->status, b->bytes);
		/*
		 * An output frame the engine failed is cut short: the same
		 * reset. Unmarked frames (a buffer receives one) never fall
		 * out of step: the buffer is an error, and that is all.
		 */
		if (b->bad && vd->streaming && !vd->out_of_step && !vd->contig) {
			dev_warn_ratelimited(vdev_log(vd), "%s: a frame of %u bytes where %u were due (%s): resynchronizing\n",
					     video_device_node_name(&vd->vdev), b->bytes,
					     vd->fmt.sizeimage,
					     vd->out ? "the engine failed it" :
					     b->bytes < vd->fmt.sizeimage ?
					     "short" : "long, or out of step");
			vd->out_of_step = true;
			queue_work(system_highpri_wq, &vd->resync);
		}
	}
	vb2_buffer_done(&b->vb.vb2_buf, state);
	/* Room in the ring again. */
	vdev_post(vd, true);
}

/*
 * Output: add what the checker counted since the base to the stream's
 * counts, and make its counts now the base (under c->lock). reset: the
 * channel is about to be reset, which clears the device's counts: the
 * base is 0 after it.
 */
static void vdev_keep_checks(struct fdma_vdev *vd, bool reset)
{
	struct fdma_chan *c = vd->c;
	u32 frames, errors;

	if (!vd->out || !vd->testgen || !(c->caps & FDMA_CH_CAP_TESTGEN) || !c->up ||
	    READ_ONCE(c->fdev->dead))
		return;
	fdma_ering_testgen_counts(&c->ring, &frames, &errors);
	vd->chk_frames += frames - vd->chk_base[0];
	vd->chk_errors += errors - vd->chk_base[1];
	vd->chk_base[0] = reset ? 0 : frames;
	vd->chk_base[1] = reset ? 0 : errors;
}

/* Any reset of our channel, the channel layer's own included (a halted one). */
static void vdev_chan_reset(struct fdma_chan *c, struct fdma_chan_client *cl)
{
	vdev_keep_checks(container_of(cl, struct fdma_vdev, cl), true);
}

/*
 * The device stopped for good (its engine quiesced outside remove()):
 * nothing more comes, so waiters get an error instead of waiting forever.
 * Under rcu_read_lock(): vb2_queue_error() only sets a flag and wakes.
 */
static void vdev_gone(struct fdma_chan *c, struct fdma_chan_client *cl)
{
	vb2_queue_error(&container_of(cl, struct fdma_vdev, cl)->q);
}

static const struct fdma_client_ops vdev_client_ops = {
	.piece = vdev_piece,
	.reset = vdev_chan_reset,
	.gone = vdev_gone,
};

/*
 * A frame put the buffers out of step (capture: a frame of another size;
 * output: a frame the engine failed): reset the channel (a source restarts
 * at a frame boundary, a sink expects a new frame; what was posted comes
 * back canceled and goes back to pending, in order), then arm it again.
 */
static void vdev_resync(struct work_struct *work)
{
	struct fdma_vdev *vd = container_of(work, struct fdma_vdev, resync);
	struct fdma_chan *c = vd->c;
	unsigned long flags;
	LIST_HEAD(later);

	mutex_lock(&c->lock);
	if (vd->streaming && vd->out_of_step) {
		/* The canceled buffers were posted first: they go first again. */
		spin_lock_irqsave(&vd->qlock, flags);
		list_splice_init(&vd->pending, &later);
		spin_unlock_irqrestore(&vd->qlock, flags);
		/* A reset that is not acknowledged leaves the channel broken: say so. */
		if (fdma_chan_recover(c, "video frames out of step", -ECANCELED))
			vb2_queue_error(&vd->q);
		spin_lock_irqsave(&vd->qlock, flags);
		list_splice_tail(&later, &vd->pending);
		spin_unlock_irqrestore(&vd->qlock, flags);
		vd->out_of_step = false;
		if (!vd->out)
			vdev_count_drops(vd);
		vdev_post(vd, false);
	}
	mutex_unlock(&c->lock);
}

/* ---- vb2 -------------------------------------------------------------------- */

static int vq_setup(struct vb2_queue *q, unsigned int *nbufs,
		    unsigned int *nplanes, unsigned int sizes[],
		    struct device *alloc_devs[])
{
	struct fdma_vdev *vd = vb2_get_drv_priv(q);

	if (*nplanes)
		return *nplanes != 1 || sizes[0] < vd->fmt.sizeimage ? -EINVAL : 0;
	*nplanes = 1;
	sizes[0] = vd->fmt.sizeimage;
	return 0;
}

static int vq_prepare(struct vb2_buffer *vb)
{
	struct fdma_vdev *vd = vb2_get_drv_priv(vb->vb2_queue);
	struct fdma_vbuf *b = to_vbuf(vb);
	u32 n;

	if (vb2_plane_size(vb, 0) < vd->fmt.sizeimage)
		return -EINVAL;
	/*
	 * The design takes whole frames: an output buffer is one, its
	 * bytesused sizeimage, or 0, which vb2 makes the plane's length (a
	 * larger dma-buf): sizeimage bytes of it are sent.
	 */
	if (vd->out && vb2_get_plane_payload(vb, 0) != vd->fmt.sizeimage &&
	    vb2_get_plane_payload(vb, 0) != vb2_plane_size(vb, 0)) {
		dev_dbg(vdev_log(vd), "%s: buffer %u: bytesused %lu, a frame is %u\n",
			video_device_node_name(&vd->vdev), vb->index,
			vb2_get_plane_payload(vb, 0), vd->fmt.sizeimage);
		return -EINVAL;
	}
	/* Every segment aligned as the engine needs, and the whole in one ring. */
	n = vbuf_reqs(vd, b);
	if (!n || n > FDMA_VBUF_REQS || b->ndesc > vd->fdev->ring_size / 2) {
		dev_dbg(vdev_log(vd), "%s: buffer %u: %u pieces, or not aligned to %u bytes\n",
			video_device_node_name(&vd->vdev), vb->index, n,
			vd->fdev->dma_align);
		return -EINVAL;
	}
	/* An interrupt per frame, whatever the coalescing. */
	b->req[n - 1].flags = FDMA_DESC_IRQ;
	/* H2C: the frame's bounds go with the data (capture: the source's). */
	if (vd->out) {
		b->req[0].flags |= FDMA_DESC_SOF;
		b->req[n - 1].flags |= FDMA_DESC_EOF;
	}
	b->nreq = n;
	if (!vd->out)
		vb2_set_plane_payload(vb, 0, vd->fmt.sizeimage);
	return 0;
}

/* An output buffer's frames are progressive: ANY means that, others are refused. */
static int vq_out_validate(struct vb2_buffer *vb)
{
	struct vb2_v4l2_buffer *vbuf = to_vb2_v4l2_buffer(vb);

	if (vbuf->field == V4L2_FIELD_ANY)
		vbuf->field = V4L2_FIELD_NONE;
	return vbuf->field == V4L2_FIELD_NONE ? 0 : -EINVAL;
}

static void vq_queue(struct vb2_buffer *vb)
{
	struct fdma_vdev *vd = vb2_get_drv_priv(vb->vb2_queue);
	struct fdma_vbuf *b = to_vbuf(vb);
	unsigned long flags;

	spin_lock_irqsave(&vd->qlock, flags);
	list_add_tail(&b->node, &vd->pending);
	spin_unlock_irqrestore(&vd->qlock, flags);
	mutex_lock(&vd->c->lock);
	vdev_post(vd, false);
	mutex_unlock(&vd->c->lock);
}

/* Give every buffer we hold back to vb2 in state. */
static void vdev_return_all(struct fdma_vdev *vd, enum vb2_buffer_state state)
{
	struct fdma_vbuf *b, *tmp;
	unsigned long flags;
	LIST_HEAD(all);

	spin_lock_irqsave(&vd->qlock, flags);
	list_splice_init(&vd->active, &all);
	list_splice_tail_init(&vd->pending, &all);
	spin_unlock_irqrestore(&vd->qlock, flags);
	list_for_each_entry_safe(b, tmp, &all, node) {
		list_del(&b->node);
		vb2_buffer_done(&b->vb.vb2_buf, state);
	}
}

static int vq_start(struct vb2_queue *q, unsigned int count)
{
	struct fdma_vdev *vd = vb2_get_drv_priv(q);
	struct fdma_chan *c = vd->c;
	u64 period;
	int ret;

	/* The source (or sink) of a stream stays as it started. */
	v4l2_ctrl_grab(vd->ctrl_src, true);
	mutex_lock(&c->lock);
	ret = fdma_chan_claim(c, &vd->cl);
	if (ret) {
		mutex_unlock(&c->lock);
		v4l2_ctrl_grab(vd->ctrl_src, false);
		vdev_return_all(vd, VB2_BUF_STATE_QUEUED);
		return ret;
	}
	/* Where the engine cannot drop (XDMA), it holds the source back. */
	if (!vd->out)
		fdma_chan_set_drop_locked(c, vd->drop);
	vd->sequence = 0;
	vd->chk_frames = 0;
	vd->chk_errors = 0;
	vd->drops = fdma_chan_drops_locked(c);
	vd->out_of_step = false;
	vd->streaming = true;
	/*
	 * The test block as the control says, on or off: a file may have
	 * left it on. The checker takes frames as they come; the generator
	 * paces them.
	 */
	if (c->caps & FDMA_CH_CAP_TESTGEN) {
		period = vd->out ? 0 : div_u64((u64)NSEC_PER_SEC * vd->interval.numerator,
					       vd->interval.denominator);
		fdma_ering_set_testgen(&c->ring, vd->fmt.sizeimage, (u32)period, vd->testgen);
		/* After the enable, which zeroes XDMA's counts (FDMA keeps them to a reset). */
		if (vd->out)
			fdma_ering_testgen_counts(&c->ring, &vd->chk_base[0], &vd->chk_base[1]);
	}
	vdev_post(vd, false);
	mutex_unlock(&c->lock);
	return 0;
}

static void vq_stop(struct vb2_queue *q)
{
	struct fdma_vdev *vd = vb2_get_drv_priv(q);
	struct fdma_chan *c = vd->c;

	mutex_lock(&c->lock);
	vd->streaming = false;
	vd->out_of_step = false;
	/*
	 * What is posted comes back canceled (vdev_piece() returns it); the
	 * checker's counts are kept first (vdev_chan_reset()), and it stays
	 * the sink until the reset, so that no piece of a frame reaches the
	 * design's sink.
	 */
	if (c->up && !c->broken)
		fdma_chan_recover(c, vd->out ? "video output stopped" :
				  "video capture stopped", -ECANCELED);
	else
		vdev_keep_checks(vd, false);
	if (c->caps & FDMA_CH_CAP_TESTGEN && c->up)
		fdma_ering_set_testgen(&c->ring, vd->fmt.sizeimage, 0, false);
	fdma_chan_release(c);
	mutex_unlock(&c->lock);
	/* Not streaming: no frame queues a resync now. */
	cancel_work_sync(&vd->resync);
	v4l2_ctrl_grab(vd->ctrl_src, false);
	vdev_return_all(vd, VB2_BUF_STATE_ERROR);
}

static const struct vb2_ops fdma_vq_ops = {
	.queue_setup = vq_setup,
	.buf_out_validate = vq_out_validate,
	.buf_prepare = vq_prepare,
	.buf_queue = vq_queue,
	.start_streaming = vq_start,
	.stop_streaming = vq_stop,
	.wait_prepare = vb2_ops_wait_prepare,
	.wait_finish = vb2_ops_wait_finish,
};

/* ---- ioctls ------------------------------------------------------------------ */

/*
 * One table for both directions: the V4L2 core offers a capture device
 * only the capture and input calls, an output device only the output ones.
 */

static int vidioc_querycap(struct file *file, void *fh, struct v4l2_capability *cap)
{
	struct fdma_vdev *vd = video_drvdata(file);

	strscpy(cap->driver, KBUILD_MODNAME, sizeof(cap->driver));
	/* The card names the channel: its direction is in device_caps. */
	snprintf(cap->card, sizeof(cap->card), "%s channel %u",
		 dev_name(&vd->fdev->dev), vd->c->idx);
	return 0;
}

static int vidioc_enum_fmt(struct file *file, void *fh, struct v4l2_fmtdesc *f)
{
	struct fdma_vdev *vd = video_drvdata(file);

	if (f->index)
		return -EINVAL;
	f->pixelformat = vd->fmt.pixelformat;
	return 0;
}

/* G_FMT, S_FMT, TRY_FMT: the configured format, whatever was asked. */
static int vidioc_fmt(struct file *file, void *fh, struct v4l2_format *f)
{
	struct fdma_vdev *vd = video_drvdata(file);

	f->fmt.pix = vd->fmt;
	return 0;
}

static int vidioc_s_fmt(struct file *file, void *fh, struct v4l2_format *f)
{
	struct fdma_vdev *vd = video_drvdata(file);

	if (vb2_is_busy(&vd->q) && f->fmt.pix.pixelformat != vd->fmt.pixelformat)
		return -EBUSY;
	return vidioc_fmt(file, fh, f);
}

static int vidioc_enum_framesizes(struct file *file, void *fh,
				  struct v4l2_frmsizeenum *fs)
{
	struct fdma_vdev *vd = video_drvdata(file);

	if (fs->index || fs->pixel_format != vd->fmt.pixelformat)
		return -EINVAL;
	fs->type = V4L2_FRMSIZE_TYPE_DISCRETE;
	fs->discrete.width = vd->fmt.width;
	fs->discrete.height = vd->fmt.height;
	return 0;
}

static int vidioc_enum_frameintervals(struct file *file, void *fh,
				      struct v4l2_frmivalenum *fi)
{
	struct fdma_vdev *vd = video_drvdata(file);

	if (fi->index || fi->pixel_format != vd->fmt.pixelformat ||
	    fi->width != vd->fmt.width || fi->height != vd->fmt.height)
		return -EINVAL;
	fi->type = V4L2_FRMIVAL_TYPE_DISCRETE;
	fi->discrete = vd->interval;
	return 0;
}

/*
 * G_PARM and S_PARM: the design's frame interval, whatever was asked (an
 * output's is the rate its sink takes frames at).
 */
static int vidioc_parm(struct file *file, void *fh, struct v4l2_streamparm *a)
{
	struct fdma_vdev *vd = video_drvdata(file);

	if (a->type != vd->q.type)
		return -EINVAL;
	if (vd->out) {
		memset(&a->parm.output, 0, sizeof(a->parm.output));
		a->parm.output.capability = V4L2_CAP_TIMEPERFRAME;
		a->parm.output.timeperframe = vd->interval;
		a->parm.output.writebuffers = 2;
		return 0;
	}
	memset(&a->parm.capture, 0, sizeof(a->parm.capture));
	a->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
	a->parm.capture.timeperframe = vd->interval;
	a->parm.capture.readbuffers = 2;
	return 0;
}

static int vidioc_enum_input(struct file *file, void *fh, struct v4l2_input *in)
{
	if (in->index)
		return -EINVAL;
	strscpy(in->name, "FPGA stream", sizeof(in->name));
	in->type = V4L2_INPUT_TYPE_CAMERA;
	return 0;
}

static int vidioc_g_input(struct file *file, void *fh, unsigned int *i)
{
	*i = 0;
	return 0;
}

static int vidioc_s_input(struct file *file, void *fh, unsigned int i)
{
	return i ? -EINVAL : 0;
}

static int vidioc_enum_output(struct file *file, void *fh, struct v4l2_output *out)
{
	if (out->index)
		return -EINVAL;
	strscpy(out->name, "FPGA stream", sizeof(out->name));
	out->type = V4L2_OUTPUT_TYPE_ANALOG;
	return 0;
}

static const struct v4l2_ioctl_ops fdma_vioctl_ops = {
	.vidioc_querycap = vidioc_querycap,
	.vidioc_enum_fmt_vid_cap = vidioc_enum_fmt,
	.vidioc_g_fmt_vid_cap = vidioc_fmt,
	.vidioc_s_fmt_vid_cap = vidioc_s_fmt,
	.vidioc_try_fmt_vid_cap = vidioc_fmt,
	.vidioc_enum_framesizes = vidioc_enum_framesizes,
	.vidioc_enum_frameintervals = vidioc_enum_frameintervals,
	.vidioc_g_parm = vidioc_parm,
	.vidioc_s_parm = vidioc_parm,
	.vidioc_enum_input = vidioc_enum_input,
	.vidioc_g_input = vidioc_g_input,
	.vidioc_s_input = vidioc_s_input,
	.vidioc_enum_fmt_vid_out = vidioc_enum_fmt,
	.vidioc_g_fmt_vid_out = vidioc_fmt,
	.vidioc_s_fmt_vid_out = vidioc_s_fmt,
	.vidioc_try_fmt_vid_out = vidioc_fmt,
	.vidioc_enum_output = vidioc_enum_output,
	.vidioc_g_output = vidioc_g_input,
	.vidioc_s_output = vidioc_s_input,
	.vidioc_reqbufs = vb2_ioctl_reqbufs,
	.vidioc_create_bufs = vb2_ioctl_create_bufs,
	.vidioc_prepare_buf = vb2_ioctl_prepare_buf,
	.vidioc_querybuf = vb2_ioctl_querybuf,
	.vidioc_qbuf = vb2_ioctl_qbuf,
	.vidioc_dqbuf = vb2_ioctl_dqbuf,
	.vidioc_expbuf = vb2_ioctl_expbuf,
	.vidioc_streamon = vb2_ioctl_streamon,
	.vidioc_streamoff = vb2_ioctl_streamoff,
	.vidioc_log_status = v4l2_ctrl_log_status,
	.vidioc_subscribe_event = v4l2_ctrl_subscribe_event,
	.vidioc_unsubscribe_event = v4l2_event_unsubscribe,
};

static const struct v4l2_file_operations fdma_vfops = {
	.owner = THIS_MODULE,
	.open = v4l2_fh_open,
	.release = vb2_fop_release,
	.read = vb2_fop_read,
	.write = vb2_fop_write,
	.poll = vb2_fop_poll,
	.mmap = vb2_fop_mmap,
	.unlocked_ioctl = video_ioctl2,
};

/* ---- controls --------------------------------------------------------------- */

static const char * const fdma_test_patterns[] = {
	"Design's source",
	"Test generator",
	NULL,
};

/*
 * The output's checker: driver controls, in the user class, at an offset
 * no driver in the kernel reserves (include/uapi/linux/v4l2-controls.h).
 */
#define FDMA_CID_BASE		(V4L2_CID_USER_BASE + 0x1f00)
#define FDMA_CID_CHECKER	(FDMA_CID_BASE + 0)
#define FDMA_CID_CHECKED	(FDMA_CID_BASE + 1)
#define FDMA_CID_CHECK_ERRORS	(FDMA_CID_BASE + 2)

static int vdev_s_ctrl(struct v4l2_ctrl *ctrl)
{
	struct fdma_vdev *vd = container_of(ctrl->handler, struct fdma_vdev, ctrls);

	if (ctrl->id != V4L2_CID_TEST_PATTERN && ctrl->id != FDMA_CID_CHECKER)
		return -EINVAL;
	/* Taken when streaming starts, and grabbed (EBUSY) until it stops. */
	vd->testgen = ctrl->val == 1;
	return 0;
}

/* The checker's counts this stream: kept ones plus the device's since its last reset. */
static int vdev_g_ctrl(struct v4l2_ctrl *ctrl)
{
	struct fdma_vdev *vd = container_of(ctrl->handler, struct fdma_vdev, ctrls);
	struct fdma_chan *c = vd->c;

	mutex_lock(&c->lock);
	/* While streaming, the device's counts so far; after, the channel is not ours. */
	if (vd->streaming)
		vdev_keep_checks(vd, false);
	*ctrl->p_new.p_s64 = ctrl->id == FDMA_CID_CHECKED ? vd->chk_frames : vd->chk_errors;
	mutex_unlock(&c->lock);
	return 0;
}

static const struct v4l2_ctrl_ops fdma_vctrl_ops = {
	.s_ctrl = vdev_s_ctrl,
	.g_volatile_ctrl = vdev_g_ctrl,
};

static const struct v4l2_ctrl_config fdma_vctrl_checker = {
	.ops = &fdma_vctrl_ops,
	.id = FDMA_CID_CHECKER,
	.name = "Frame Checker",
	.type = V4L2_CTRL_TYPE_BOOLEAN,
	.max = 1,
	.step = 1,
};

/* The checker's counts this stream: read-only, read from the device when asked. */
#define FDMA_VCTRL_COUNT(cid, label) {					\
	.ops = &fdma_vctrl_ops,						\
	.id = (cid),							\
	.name = (label),						\
	.type = V4L2_CTRL_TYPE_INTEGER64,				\
	.max = S64_MAX,							\
	.step = 1,							\
	.flags = V4L2_CTRL_FLAG_READ_ONLY | V4L2_CTRL_FLAG_VOLATILE,	\
}

static const struct v4l2_ctrl_config fdma_vctrl_counts[] = {
	FDMA_VCTRL_COUNT(FDMA_CID_CHECKED, "Checked Frames"),
	FDMA_VCTRL_COUNT(FDMA_CID_CHECK_ERRORS, "Checker Errors"),
};

/*
 * Capture: V4L2_CID_TEST_PATTERN picks the test generator. Output: the
 * checker in place of the design's sink, and its counts.
 */
static int vdev_add_ctrls(struct fdma_vdev *vd)
{
	struct v4l2_ctrl_handler *h = &vd->ctrls;

	v4l2_ctrl_handler_init(h, 3);
	if (!(vd->c->caps & FDMA_CH_CAP_TESTGEN))
		return 0;
	if (vd->out) {
		vd->ctrl_src = v4l2_ctrl_new_custom(h, &fdma_vctrl_checker, NULL);
		v4l2_ctrl_new_custom(h, &fdma_vctrl_counts[0], NULL);
		v4l2_ctrl_new_custom(h, &fdma_vctrl_counts[1], NULL);
	} else {
		vd->ctrl_src = v4l2_ctrl_new_std_menu_items(h, &fdma_vctrl_ops,
							    V4L2_CID_TEST_PATTERN,
							    ARRAY_SIZE(fdma_test_patterns) - 2,
							    0, 0, fdma_test_patterns);
	}
	return h->error;
}

/* ---- settings: sysfs, before streaming ------------------------------------------ */

/*
 * /sys/class/video4linux/videoN/{format,width,height,bytesperline,fps,drop}:
 * the device's own settings, starting from the module parameters, so that
 * two channels carry two formats. A change is refused (-EBUSY) while the
 * queue holds buffers, which were sized for the format they were made for,
 * and checked as the parameters are (-EINVAL, the log saying why).
 */
enum fdma_vattr { VA_WIDTH, VA_HEIGHT, VA_BPL, VA_FPS, VA_DROP };

static struct fdma_vdev *dev_to_vd(struct device *dev)
{
	return container_of(to_video_device(dev), struct fdma_vdev, vdev);
}

static ssize_t format_show(struct device *dev, struct device_attribute *a, char *buf)
{
	struct fdma_vdev *vd = dev_to_vd(dev);

	u32 f = vd->cfg.fourcc;

	/* The fourcc's characters, lowest byte first, whatever the CPU's byte order. */
	return sysfs_emit(buf, "%c%c%c%c\n", f & 0xff, (f >> 8) & 0xff, (f >> 16) & 0xff,
			  f >> 24);
}

static ssize_t vattr_store(struct fdma_vdev *vd, const char *buf, size_t len, int field)
{
	struct fdma_video_cfg cfg;
	u32 v = 0;
	bool b;
	int ret;

	if (field < 0)
		ret = fdma_video_fourcc(buf) ? 0 : -EINVAL;
	else if (field == VA_DROP)
		ret = kstrtobool(buf, &b);
	else
		ret = kstrtou32(buf, 0, &v);
	if (ret)
		return ret;
	mutex_lock(&vd->lock);
	if (vb2_is_busy(&vd->q)) {
		mutex_unlock(&vd->lock);
		return -EBUSY;
	}
	cfg = vd->cfg;
	switch (field) {
	case VA_WIDTH:
		cfg.width = v;
		break;
	case VA_HEIGHT:
		cfg.height = v;
		break;
	case VA_BPL:
		cfg.bpl = v;
		break;
	case VA_FPS:
		cfg.fps = v;
		break;
	case VA_DROP:
		vd->drop = b;
		break;
	default:
		cfg.fourcc = fdma_video_fourcc(buf);
	}
	ret = field == VA_DROP ? 0 : vfmt_set(vd, &cfg);
	mutex_unlock(&vd->lock);
	return ret ? ret : len;
}

static ssize_t format_store(struct device *dev, struct device_attribute *a,
			    const char *buf, size_t len)
{
	return vattr_store(dev_to_vd(dev), buf, len, -1);
}

#define FDMA_VATTR(name, field, expr)						\
static ssize_t name##_show(struct device *dev, struct device_attribute *a,	\
			   char *buf)						\
{										\
	struct fdma_vdev *vd = dev_to_vd(dev);					\
										\
	return sysfs_emit(buf, "%u\n", (u32)(expr));				\
}										\
static ssize_t name##_store(struct device *dev, struct device_attribute *a,	\
			    const char *buf, size_t len)			\
{										\
	return vattr_store(dev_to_vd(dev), buf, len, field);			\
}										\
static DEVICE_ATTR_RW(name)

FDMA_VATTR(width, VA_WIDTH, vd->cfg.width);
FDMA_VATTR(height, VA_HEIGHT, vd->cfg.height);
FDMA_VATTR(bytesperline, VA_BPL, vd->cfg.bpl);
FDMA_VATTR(fps, VA_FPS, vd->cfg.fps);
FDMA_VATTR(drop, VA_DROP, vd->drop);
static DEVICE_ATTR_RW(format);

static struct attribute *fdma_vattrs[] = {
	&dev_attr_format.attr,
	&dev_attr_width.attr,
	&dev_attr_height.attr,
	&dev_attr_bytesperline.attr,
	&dev_attr_fps.attr,
	&dev_attr_drop.attr,
	NULL,
};

/* drop is a capture's: an output sends what it is given. */
static umode_t vattr_visible(struct kobject *kobj, struct attribute *attr, int n)
{
	struct fdma_vdev *vd = dev_to_vd(kobj_to_dev(kobj));

	return attr == &dev_attr_drop.attr && vd->out ? 0 : attr->mode;
}

static const struct attribute_group fdma_vattr_group = {
	.attrs = fdma_vattrs,
	.is_visible = vattr_visible,
};

static const struct attribute_group *fdma_vattr_groups[] = {
	&fdma_vattr_group,
	NULL,
};

/* ---- registration ------------------------------------------------------------- */

static void vdev_release(struct video_device *vdev)
{
	struct fdma_vdev *vd = container_of(vdev, struct fdma_vdev, vdev);

	v4l2_ctrl_handler_free(&vd->ctrls);
	v4l2_device_unregister(&vd->v4l2);
	mutex_destroy(&vd->lock);
	fdma_dev_put(vd->fdev);
	kfree(vd);
}

static int vdev_add(struct fdma_device *fdev, struct fdma_chan *c)
{
	struct fdma_vdev *vd = kzalloc(sizeof(*vd), GFP_KERNEL);
	struct vb2_queue *q;
	int ret;

	if (!vd)
		return -ENOMEM;
	vd->fdev = fdev;
	vd->c = c;
	vd->out = !(c->caps & FDMA_CH_CAP_C2H);
	vd->contig = c->frame_reqs;
	vd->cl.ops = &vdev_client_ops;
	mutex_init(&vd->lock);
	spin_lock_init(&vd->qlock);
	INIT_LIST_HEAD(&vd->pending);
	INIT_LIST_HEAD(&vd->active);
	INIT_WORK(&vd->resync, vdev_resync);
	if (!c->ereq_max) {
		dev_err(vdev_log(vd), "%s: channel %u takes no requests\n",
			dev_name(&fdev->dev), c->idx);
		ret = -EINVAL;
		goto err_free;
	}
	if (vd->contig && !IS_ENABLED(CONFIG_VIDEOBUF2_DMA_CONTIG)) {
		dev_err(vdev_log(vd), "%s: channel %u takes a frame in one piece, and vb2's dma-contig allocator is not in this kernel\n",
			dev_name(&fdev->dev), c->idx);
		ret = -EOPNOTSUPP;
		goto err_free;
	}
	ret = vfmt_config(vd);
	if (ret)
		goto err_free;
	/*
	 * Named first, and registered with no device: given one,
	 * v4l2_device_register() names itself after the device's driver and
	 * takes the device's drvdata where it has none, and a backend's DMA
	 * device may have no driver (a dmaengine channel's own device) and
	 * is not ours. The node's parent is set below.
	 */
	snprintf(vd->v4l2.name, sizeof(vd->v4l2.name), "%s-ch%u",
		 dev_name(&fdev->dev), c->idx);
	ret = v4l2_device_register(NULL, &vd->v4l2);
	if (ret)
		goto err_free;
	ret = vdev_add_ctrls(vd);
	if (ret)
		goto err_ctrls;
	vd->v4l2.ctrl_handler = &vd->ctrls;

	q = &vd->q;
	q->type = vd->out ? V4L2_BUF_TYPE_VIDEO_OUTPUT : V4L2_BUF_TYPE_VIDEO_CAPTURE;
	/*
	 * No USERPTR: the engine moves whole aligned pieces (dma_align, a
	 * cache line at least), and memory from malloc() is not; dma-bufs
	 * (DMABUF) and our own buffers (MMAP, EXPBUF) are page-aligned.
	 */
	q->io_modes = VB2_MMAP | VB2_DMABUF | (vd->out ? VB2_WRITE : VB2_READ);
	q->drv_priv = vd;
	q->buf_struct_size = sizeof(struct fdma_vbuf);
	q->ops = &fdma_vq_ops;
	/*
	 * dma-sg where a frame spans requests; dma-contig (one piece) where
	 * the channel does not mark frames and each must be one transfer.
	 */
#if IS_ENABLED(CONFIG_VIDEOBUF2_DMA_CONTIG)
	q->mem_ops = vd->contig ? &vb2_dma_contig_memops : &vb2_dma_sg_memops;
#else
	q->mem_ops = &vb2_dma_sg_memops;
#endif
	q->timestamp_flags = vd->out ? V4L2_BUF_FLAG_TIMESTAMP_COPY :
			     V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC |
			     V4L2_BUF_FLAG_TSTAMP_SRC_EOF;
	/* An output sends a single frame queued (a still image, write()'s last). */
	FDMA_VB2_MIN_QUEUED(q) = vd->out ? 1 : 2;
	q->lock = &vd->lock;
	q->dev = fdev->dma_dev;
	q->gfp_flags = fdev->dma_bits <= 32 ? GFP_DMA32 : 0;
	ret = vb2_queue_init(q);
	if (ret)
		goto err_ctrls;

	strscpy(vd->vdev.name, vd->v4l2.name, sizeof(vd->vdev.name));
	vd->vdev.v4l2_dev = &vd->v4l2;
	/*
	 * Under what the fdma device hangs from (the PCI function, a device
	 * tree group's platform device), else what does its DMA: the V4L2
	 * core takes bus_info from it (PCI:..., platform:...).
	 */
	vd->vdev.dev_parent = fdev->dev.parent ?: fdev->dma_dev;
	vd->vdev.fops = &fdma_vfops;
	vd->vdev.ioctl_ops = &fdma_vioctl_ops;
	vd->vdev.release = vdev_release;
	vd->vdev.lock = &vd->lock;
	vd->vdev.queue = q;
	vd->vdev.vfl_dir = vd->out ? VFL_DIR_TX : VFL_DIR_RX;
	vd->vdev.device_caps = (vd->out ? V4L2_CAP_VIDEO_OUTPUT : V4L2_CAP_VIDEO_CAPTURE) |
			       V4L2_CAP_STREAMING | V4L2_CAP_READWRITE;
	video_set_drvdata(&vd->vdev, vd);
	/* Created with the node, before its uevent (the V4L2 core leaves groups alone). */
	vd->vdev.dev.groups = fdma_vattr_groups;
	get_device(&fdev->dev);
	ret = video_register_device(&vd->vdev, VFL_TYPE_VIDEO, -1);
	if (ret) {
		fdma_dev_put(fdev);
		goto err_ctrls;
	}
	c->vdev = vd;
	dev_info(fdev->dma_dev, "%s: channel %u as %s (%s): %p4cc %ux%u, %u bytes per line, %u bytes, %u/%u s, buffers from vb2's %s\n",
		 dev_name(&fdev->dev), c->idx, video_device_node_name(&vd->vdev),
		 vd->out ? "output" : "capture",
		 &vd->fmt.pixelformat, vd->fmt.width, vd->fmt.height,
		 vd->fmt.bytesperline, vd->fmt.sizeimage, vd->interval.numerator,
		 vd->interval.denominator, vd->contig ? "dma-contig" : "dma-sg");
	return 0;

err_ctrls:
	v4l2_ctrl_handler_free(&vd->ctrls);
	v4l2_device_unregister(&vd->v4l2);
err_free:
	mutex_destroy(&vd->lock);
	kfree(vd);
	return ret;
}

/*
 * A video device per stream channel (capture for C2H, output for H2C):
 * each with v4l2=1, else those the backend gave a format; one that fails
 * is skipped, saying why.
 */
void fdma_v4l2_register(struct fdma_device *fdev)
{
	u32 i;
	int ret;

	for (i = 0; i < fdev->caps.nchan; i++) {
		struct fdma_chan *c = &fdev->chan[i];

		if (!(c->caps & FDMA_CH_CAP_STREAM) || c->client ||
		    (!fdma_param_v4l2 && !c->video.fourcc))
			continue;
		ret = vdev_add(fdev, c);
		if (ret)
			dev_warn(fdev->dma_dev, "%s: channel %u: no video device (%d)\n",
				 dev_name(&fdev->dev), i, ret);
	}
}

/*
 * At remove, first: streaming stops (the channel reset, every buffer given
 * back), the nodes go; files still open get -ENODEV and free the device at
 * their last close.
 */
void fdma_v4l2_unregister(struct fdma_device *fdev)
{
	u32 i;

	for (i = 0; i < fdev->caps.nchan; i++) {
		struct fdma_vdev *vd = fdev->chan[i].vdev;

		if (!vd)
			continue;
		fdev->chan[i].vdev = NULL;
		vb2_video_unregister_device(&vd->vdev);
	}
}
