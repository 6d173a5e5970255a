/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fdma.ko's interface to a backend module: what a module that drives rings
 * of its own under fdma's user interface sees of fdma.ko, and all it sees
 * (fdma_dmac.ko, kernel/dmac/, builds with this folder on its include path
 * and not kernel/ itself). Its functions are exported in symbol namespace
 * FDMA. The request and completion a ring takes and gives back are the
 * engine core's (struct fdma_ereq, struct fdma_ecpl, FDMA_CPL_*).
 *
 * A backend describes its device in a struct fdma_backend_info (as a
 * platform device's platform data describes it to its driver): one struct
 * fdma_ring_ops and one private pointer per channel. fdma_backend_add()
 * makes it /dev/fdmaN; fdma.ko then calls the ring ops (with the channel's
 * lock held, except init and free) and the backend reports finished work
 * with fdma_chan_irq(). fdma_backend_remove() takes it down again.
 */
#ifndef FDMA_BACKEND_H
#define FDMA_BACKEND_H

#include <linux/device.h>
#include <linux/lockdep.h>
#include <linux/types.h>

#include "fdma_engine.h"

struct fdma_device;
struct fdma_chan;
struct module;

/**
 * struct fdma_ring_pos - where a channel's ring is, as free-running counts
 * @posted: descriptors handed to the device (doorbell)
 * @done: of those, completed by the device
 * @reaped: of those, reaped by the host
 */
struct fdma_ring_pos {
	u32 posted;
	u32 done;
	u32 reaped;
};

/**
 * struct fdma_ring_ops - what drives a channel's ring
 * @backend: its name, in /sys/class/fdma/fdmaN/backend
 * @coal_timer: it coalesces completions by time too, not only by count
 * @init: memory and start; sets the longest request it accepts
 *	(fdma_chan_set_max_len())
 * @free: the memory init took; a broken channel (fdma_chan_broken()) may
 *	keep what the device may still write
 * @start: after a reset that succeeded
 * @reset: stop; nothing posted is touched after 0, else the caller stops it
 * @stop: the channel is going down
 * @check: is this request one the ring can take? -EINVAL and *why if not
 * @ndesc: ring entries a request of len bytes takes
 * @space: free ring entries
 * @post: put one request on the ring (not yet started)
 * @doorbell: start what was posted; returns the doorbell writes made
 * @reap: finished requests in posting order, at most n, into e
 * @cancel: after a reset, what is left, as canceled or finished
 * @status: FDMA_CH_ST_*
 * @pos: the ring's counts
 * @set_coalesce: completions per interrupt, and microseconds
 * @set_ctrl: optional: CH_CTRL bits (mask, val)
 * @overruns: optional: stream frames the device dropped
 * @irq_ack: optional: the engine's interrupt acknowledge (XDMA's
 *	clear-on-read status)
 * @describe: what carries the channel: "<channel> of <device> (<driver>)"
 *
 * Called with the channel's lock held, except @init and @free (the channel
 * is not up). The optional ones may be NULL: the feature is then
 * -EOPNOTSUPP.
 */
struct fdma_ring_ops {
	const char *backend;
	bool coal_timer;
	int (*init)(struct fdma_chan *c);
	void (*free)(struct fdma_chan *c);
	void (*start)(struct fdma_chan *c);
	int (*reset)(struct fdma_chan *c);
	void (*stop)(struct fdma_chan *c);
	int (*check)(struct fdma_chan *c, const struct fdma_ereq *q,
		     const char **why);
	u32 (*ndesc)(struct fdma_chan *c, u32 len);
	u32 (*space)(struct fdma_chan *c);
	int (*post)(struct fdma_chan *c, const struct fdma_ereq *q);
	u32 (*doorbell)(struct fdma_chan *c);
	u32 (*reap)(struct fdma_chan *c, struct fdma_ecpl *e, u32 n);
	u32 (*cancel)(struct fdma_chan *c, struct fdma_ecpl *e, u32 n);
	u32 (*status)(struct fdma_chan *c);
	void (*pos)(struct fdma_chan *c, struct fdma_ring_pos *p);
	void (*set_coalesce)(struct fdma_chan *c, u32 count, u32 usecs);
	void (*set_ctrl)(struct fdma_chan *c, u32 mask, u32 val);
	u32 (*overruns)(struct fdma_chan *c);
	void (*irq_ack)(struct fdma_chan *c);
	int (*describe)(struct fdma_chan *c, char *buf, size_t len);
};

/**
 * struct fdma_video_cfg - the frames a stream channel carries, as its V4L2
 * video device shows them (docs/v4l2.md)
 * @fourcc: the pixel format, V4L2_PIX_FMT_*; 0: none given
 * @width: pixels
 * @height: lines
 * @bpl: bytes per line, 0 for the format's own
 * @fps: frames per second the design sends
 */
struct fdma_video_cfg {
	u32 fourcc;
	u32 width, height, bpl, fps;
};

/*
 * fdma_video_fourcc() - a pixel format's name ("YUYV", "Y16") as a V4L2
 * fourcc, padded with spaces as V4L2's are; a newline at the end (a sysfs
 * write) is ignored. Return: 0 if the name is longer than 4 characters.
 */
u32 fdma_video_fourcc(const char *s);

/**
 * struct fdma_backend_chan - one channel of a backend's device
 * @ops: its ring
 * @priv: the backend's, given back by fdma_chan_priv()
 * @caps: FDMA_CH_CAP_*
 * @frame_reqs: a stream channel whose completions do not mark frames
 *	themselves: the most requests one frame may span (a dmaengine
 *	slave C2H transfer receives one frame into one buffer: 1). 0: the
 *	device marks each frame's start and end (FDMA_CPL_F_SOF, _EOF) and
 *	a frame spans any number of requests.
 * @video: a stream channel that is a video device with this format
 *	whatever fdma.ko's v4l2= says (a device tree's fdma,video-*
 *	properties); @video.fourcc 0: a video device only with v4l2=1, in
 *	the v4l2_* parameters' format
 * @lock_key: lockdep class of the channel's lock (the backend's ops run
 *	under it and may take another fdma channel's), or NULL
 */
struct fdma_backend_chan {
	const struct fdma_ring_ops *ops;
	void *priv;
	u32 caps;
	u32 frame_reqs;
	struct fdma_video_cfg video;
	struct lock_class_key *lock_key;
};

/**
 * struct fdma_backend_info - a backend's device, as fdma.ko should see it
 * @parent: the parent of /sys/class/fdma/fdmaN, or NULL
 * @dma_dev: the device buffers are mapped for: the one that masters the bus
 * @ring_size: request pieces in flight per channel, a power of two
 * @align: address and length alignment of every piece
 * @max_len: the longest piece; a multiple of @align
 * @dma_align: registered memory's alignment (@align and the cache line)
 * @dma_bits: the bus addresses @dma_dev reaches
 * @coalesce: completions can be coalesced (FDMA_IOC_COALESCE)
 * @mem2mem: some channel copies memory (FDMA_IOC_COPY)
 * @nchan: channels, 1..FDMA_MAX_CHANNELS
 * @chan: each channel
 */
struct fdma_backend_info {
	struct device *parent;
	struct device *dma_dev;
	u32 ring_size;
	u32 align;
	u32 max_len;
	u32 dma_align;
	u32 dma_bits;
	bool coalesce;
	bool mem2mem;
	u32 nchan;
	struct fdma_backend_chan chan[FDMA_MAX_CHANNELS];
};

/*
 * fdma_backend_add() - a backend's device as /dev/fdmaN: every channel
 * brought up (@init), then published (sysfs, the node, debugfs), and its
 * stream channels made video devices where @info or v4l2=1 asks (one that
 * cannot be is left out, the log saying why). Open files hold @owner.
 *
 * Return: the device, or ERR_PTR: -EINVAL (a field of @info out of its
 * range), -ENOSPC (no minor left), -ENOMEM, or what a channel's @init
 * returned. On error nothing is left: every channel's @free was called.
 */
struct fdma_device *fdma_backend_add(const struct fdma_backend_info *info,
				     struct module *owner);

/*
 * fdma_backend_remove() - the video devices gone (their streams stopped),
 * no new operation (files see -ENODEV, sleepers wake), every channel
 * reset with what was in flight handed back, every buffer revoked, every
 * channel's @free called.
 *
 * Return: true if every channel stopped: the caller frees what its
 * channels' @priv point to, then drops the device with fdma_dev_put().
 * false if a channel's reset failed (fdma_chan_broken()): its device may
 * still write, so that channel's buffers are kept for good, and the caller
 * keeps the device and what its channels use, for good too.
 */
bool fdma_backend_remove(struct fdma_device *fdev);

/* The device's last reference from the backend; freed at the last close. */
void fdma_dev_put(struct fdma_device *fdev);

/* For the backend's messages: /sys/class/fdma/fdmaN. */
struct device *fdma_dev_device(struct fdma_device *fdev);

/*
 * fdma_chan_irq() - the channel has finished work (an interrupt, a
 * callback): reaps it, fills completion queues and wakes their files.
 * Process context; takes the channel's lock.
 */
void fdma_chan_irq(struct fdma_chan *c);

/* The channel's accessors, for its ring ops. */
void *fdma_chan_priv(const struct fdma_chan *c);
u32 fdma_chan_index(const struct fdma_chan *c);
struct device *fdma_chan_device(const struct fdma_chan *c);	/* fdmaN's */
bool fdma_chan_broken(const struct fdma_chan *c);	/* a reset failed */
u32 fdma_chan_coal_count(const struct fdma_chan *c);	/* under its lock */
void fdma_chan_set_max_len(struct fdma_chan *c, u32 len);	/* from @init */
void fdma_chan_count_irq(struct fdma_chan *c);		/* any context */
void fdma_chan_kept_bytes(struct fdma_chan *c, u64 bytes);	/* kept for good */

#endif /* FDMA_BACKEND_H */
