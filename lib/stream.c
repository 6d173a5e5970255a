// SPDX-License-Identifier: MIT
/*
 * libfdma: C2H frame streams. A ring of N frame buffers stays armed on the
 * device; the application takes filled frames in order and gives them back.
 * One buffer per frame, one descriptor per buffer: a frame that does not
 * fit is reported, never silently cut. Each frame buffer is a DMA buffer of
 * its own, so that it is one piece of device-contiguous memory on every
 * backend (a driver allocates contiguous memory in bounded chunks).
 * fdma_stream_open_bufs() arms the caller's buffers instead (GPU memory
 * imported as dma-bufs, say), and leaves them to the caller at close.
 */
#include <stdlib.h>
#include <string.h>

#include "fdma_internal.h"

/*
 * A buffer is on the device (ARMED), filled and queued for the application
 * (READY), with the application (HELD), or owed to the device (OWED): it
 * came back with an error just as the channel was reset, and the channel
 * takes nothing until the reset has handed back its canceled transfers,
 * so it is armed at the next fdma_stream_get() that can.
 */
enum { ARMED, READY, HELD, OWED };

struct fdma_stream {
	struct fdma_dev *dev;
	int ch;
	int *buf;		/* handle of each frame buffer */
	u8 **base;		/* and its address */
	unsigned int nbufs;
	size_t slot;		/* bytes per frame buffer, aligned */
	bool own_bufs;		/* allocated here, freed at close */
	u8 *state;
	struct fdma_cpl *ready;	/* FIFO of filled frames */
	struct fdma_cpl *got;	/* reap scratch: all nbufs at once, so a reset's cancels come back together */
	unsigned int head, count;
	u64 drops_at_open;
};

static int arm(struct fdma_stream *s, unsigned int i)
{
	struct fdma_req r = {
		.buf = s->buf[i], .len = s->slot, .user_data = i,
	};
	int ret = fdma_submit(s->dev, s->ch, &r, 1);

	if (ret < 0)
		return ret;
	s->state[i] = ARMED;
	return 0;
}

/* Give a buffer back to the device, or owe it while the channel is being reset. */
static int give_back(struct fdma_stream *s, unsigned int i)
{
	int ret = arm(s, i);

	if (ret == -EAGAIN) {
		s->state[i] = OWED;
		return 0;
	}
	return ret;
}

/* Arm the buffers owed to the device; those the channel cannot take yet stay owed. */
static int pay_owed(struct fdma_stream *s)
{
	for (unsigned int i = 0; i < s->nbufs; i++) {
		if (s->state[i] != OWED)
			continue;
		int ret = arm(s, i);

		if (ret == -EAGAIN)
			return 0;
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Free the buffers and the stream (nothing of it may be armed). */
static void stream_free(struct fdma_stream *s)
{
	for (unsigned int i = 0; s->own_bufs && s->buf && i < s->nbufs; i++)
		if (s->buf[i] >= 0)
			fdma_buf_free(s->dev, s->buf[i]);
	free(s->buf);
	free(s->base);
	free(s->state);
	free(s->ready);
	free(s->got);
	free(s);
}

/*
 * The stream's checks and state; its buffers come from the caller: bufs
 * (the caller's, buf_size bytes of each used) or, when NULL, allocated.
 */
/*
 * The unit of a frame buffer's length: the device's alignment, or the
 * channel's where it is coarser (XDMA's C2H stream buffers: 64 bytes on an
 * engine whose memory-mapped channels take any byte).
 */
static size_t stream_unit(const struct fdma_dev *dev, int ch)
{
	return dev->chan_align[ch] > dev->info.align ? dev->chan_align[ch] : dev->info.align;
}

static int stream_open(struct fdma_dev *dev, const char *fn, int ch, const int *bufs,
		       unsigned int nbufs, size_t buf_size, struct fdma_stream **sp)
{
	struct fdma_stream *s;
	struct fdma_chan_stats st;
	int ret;

	if (!sp)
		return fdma_err(dev, -EINVAL, "%s: sp is NULL", fn);
	*sp = NULL;
	if (ch < 0 || ch >= (int)dev->info.nchan)
		return fdma_err(dev, -EINVAL, "no channel %d on this device (it has %u)",
				ch, dev->info.nchan);
	if (dev->info.chan[ch].dir != FDMA_C2H || dev->info.chan[ch].kind != FDMA_KIND_STREAM)
		return fdma_err(dev, -EINVAL, "channel %d is not a C2H stream channel", ch);
	if (nbufs < 2 || nbufs > dev->info.chan[ch].ring_size)
		return fdma_err(dev, -EINVAL, "%s: %u buffers (need 2..%u)",
				fn, nbufs, dev->info.chan[ch].ring_size);
	if (buf_size == 0 || buf_size > dev->info.max_desc_len)
		return fdma_err(dev, -EINVAL,
				"%s: buffer size %zu (need 1..%u, the maximum descriptor length)",
				fn, buf_size, dev->info.max_desc_len);
	if (fdma_inflight(dev, ch))
		return fdma_err(dev, -EBUSY, "channel %d has transfers in flight", ch);
	s = calloc(1, sizeof(*s));
	if (!s)
		return fdma_err(dev, -ENOMEM, "out of memory");
	s->dev = dev;
	s->ch = ch;
	s->nbufs = nbufs;
	s->own_bufs = !bufs;
	s->slot = (buf_size + stream_unit(dev, ch) - 1) & ~(size_t)(stream_unit(dev, ch) - 1);
	s->state = calloc(nbufs, 1);
	s->ready = calloc(nbufs, sizeof(*s->ready));
	s->got = calloc(nbufs, sizeof(*s->got));
	s->buf = calloc(nbufs, sizeof(*s->buf));
	s->base = calloc(nbufs, sizeof(*s->base));
	if (!s->state || !s->ready || !s->got || !s->buf || !s->base) {
		ret = fdma_err(dev, -ENOMEM, "out of memory");
		goto fail;
	}
	for (unsigned int i = 0; i < nbufs; i++)
		s->buf[i] = -1;
	for (unsigned int i = 0; i < nbufs; i++) {
		s->buf[i] = bufs ? bufs[i] : fdma_buf_alloc(dev, s->slot, 0);
		if (s->buf[i] < 0) {
			ret = s->buf[i];
			goto fail;
		}
		s->base[i] = fdma_buf_addr(dev, s->buf[i]);
	}
	fdma_chan_stats(dev, ch, &st);
	s->drops_at_open = st.drops;
	for (unsigned int i = 0; i < nbufs; i++) {
		ret = arm(s, i);
		if (ret < 0)
			goto fail_armed;
	}
	*sp = s;
	return 0;

fail_armed:
	fdma_stream_close(s);
	return ret;
fail:
	stream_free(s);
	return ret;
}

int fdma_stream_open(struct fdma_dev *dev, int ch, unsigned int nbufs, size_t buf_size,
		     struct fdma_stream **sp)
{
	if (!fdma_dev_live(dev))
		return -EBADF;
	return stream_open(dev, "fdma_stream_open", ch, NULL, nbufs, buf_size, sp);
}

int fdma_stream_open_bufs(struct fdma_dev *dev, int ch, const int *bufs, unsigned int nbufs,
			  struct fdma_stream **sp)
{
	const char *fn = "fdma_stream_open_bufs";
	size_t size = SIZE_MAX;

	if (!fdma_dev_live(dev))
		return -EBADF;
	if (!bufs || !nbufs)
		return fdma_err(dev, -EINVAL, "%s: no buffers", fn);
	/* Every frame buffer holds the same: the smallest's size, whole units. */
	for (unsigned int i = 0; i < nbufs; i++) {
		size_t n = fdma_buf_size(dev, bufs[i]);

		if (!n)
			return fdma_err(dev, -EBADF, "%s: unknown buffer handle %d", fn, bufs[i]);
		for (unsigned int j = 0; j < i; j++)
			if (bufs[j] == bufs[i])
				return fdma_err(dev, -EINVAL, "%s: buffer %d given twice", fn,
						bufs[i]);
		if (n < size)
			size = n;
	}
	if (size > dev->info.max_desc_len)
		size = dev->info.max_desc_len;
	if (ch >= 0 && ch < (int)dev->info.nchan)
		size &= ~(size_t)(stream_unit(dev, ch) - 1);
	return stream_open(dev, fn, ch, bufs, nbufs, size, sp);
}

int fdma_stream_get(struct fdma_stream *s, struct fdma_frame *f, int64_t timeout_us)
{
	struct fdma_cpl cpl;
	unsigned int i;
	int ret;

	if (!s)
		return -EINVAL;
	/* A stream may outlive its device: no message into a device that is gone. */
	if (!fdma_dev_live(s->dev))
		return -EBADF;
	if (!f)
		return fdma_err(s->dev, -EINVAL, "fdma_stream_get: f is NULL");
	for (;;) {
		while (!s->count) {
			int n = pay_owed(s);

			if (n < 0)
				return n;
			n = fdma_reap(s->dev, s->ch, s->got, s->nbufs, 1, timeout_us);

			if (n < 0)
				return n;
			for (int k = 0; k < n; k++) {
				s->ready[(s->head + s->count) % s->nbufs] = s->got[k];
				s->count++;
				s->state[s->got[k].user_data] = READY;
			}
		}
		cpl = s->ready[s->head];
		s->head = (s->head + 1) % s->nbufs;
		s->count--;
		i = (unsigned int)cpl.user_data;
		if (!cpl.res && (cpl.flags & (FDMA_CPL_SOF | FDMA_CPL_EOF)) ==
				(FDMA_CPL_SOF | FDMA_CPL_EOF))
			break;
		/* Give the buffer straight back (or owe it: see OWED). */
		ret = give_back(s, i);
		if (ret < 0)
			return ret;
		/* Buffers canceled by a channel reset are not news: wait on. */
		if (cpl.res == -ECANCELED)
			continue;
		return fdma_err(s->dev, cpl.res ? cpl.res : -EMSGSIZE, "stream buffer %u: %s", i,
				cpl.res ? fdma_cpl_str(cpl.status)
					: "frame does not fit in one buffer (open the stream with a larger buf_size)");
	}
	s->state[i] = HELD;
	f->data = s->base[i];
	f->len = cpl.len;
	f->index = i;
	f->flags = cpl.flags;
	return 0;
}

int fdma_stream_release(struct fdma_stream *s, const struct fdma_frame *f)
{
	if (!s)
		return -EINVAL;
	if (!fdma_dev_live(s->dev))
		return -EBADF;
	if (!f)
		return fdma_err(s->dev, -EINVAL, "fdma_stream_release: f is NULL");
	if (f->index >= s->nbufs || s->state[f->index] != HELD)
		return fdma_err(s->dev, -EINVAL,
				"fdma_stream_release: buffer %u is not held by the application (double release?)",
				f->index);
	return give_back(s, f->index);
}

int fdma_stream_bufs(const struct fdma_stream *s, struct iovec *iov, unsigned int n)
{
	if (!s)
		return -EINVAL;
	if (!fdma_dev_live(s->dev))
		return -EBADF;
	if (!iov && n)
		return fdma_err(s->dev, -EINVAL, "fdma_stream_bufs: iov is NULL");
	for (unsigned int i = 0; i < n && i < s->nbufs; i++)
		iov[i] = (struct iovec){ .iov_base = s->base[i], .iov_len = s->slot };
	return (int)s->nbufs;
}

uint64_t fdma_stream_drops(const struct fdma_stream *s)
{
	struct fdma_chan_stats st;

	if (!s || fdma_chan_stats(s->dev, s->ch, &st))
		return 0;
	return st.drops - s->drops_at_open;
}

void fdma_stream_close(struct fdma_stream *s)
{
	struct fdma_cpl got[64];

	if (!s)
		return;
	/* Take the armed buffers back from the device before freeing them. */
	if (fdma_inflight(s->dev, s->ch) > 0 && !fdma_chan_reset(s->dev, s->ch))
		while (fdma_reap(s->dev, s->ch, got, 64, 0, 0) > 0)
			;
	stream_free(s);
}
