// SPDX-License-Identifier: MIT
/*
 * libfdma: the channel API. Every entry point checks the device handle,
 * the channel number and the arguments whose meaning does not depend on
 * the backend, with a message naming what was wrong, then hands over to
 * the backend (echan.c for sim:, kdev.c for kdev:).
 */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fdma_internal.h"

int64_t fdma_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void fdma_efd_drain(int efd)
{
	uint64_t v;

	if (read(efd, &v, sizeof(v)) != sizeof(v)) {
		/* EAGAIN: nothing signalled since the last drain. */
	}
}

void fdma_efd_signal(int efd)
{
	uint64_t one = 1;

	if (write(efd, &one, sizeof(one)) != sizeof(one)) {
		/* Only on overflow, and then the fd is readable anyway. */
	}
}

void fdma_chan_info_from_caps(struct fdma_chan_info *ci, u32 caps, u32 ring_size)
{
	ci->dir = (caps & FDMA_CH_CAP_C2H) ? FDMA_C2H : FDMA_H2C;
	ci->kind = (caps & FDMA_CH_CAP_MEM2MEM) ? FDMA_KIND_MEM :
		   (caps & FDMA_CH_CAP_STREAM) ? FDMA_KIND_STREAM : FDMA_KIND_MM;
	ci->testgen = !!(caps & FDMA_CH_CAP_TESTGEN);
	/* Where an engine cannot flag frames after drops, the caller clears this. */
	ci->overrun_flag = (caps & FDMA_CH_CAP_STREAM) && (caps & FDMA_CH_CAP_C2H);
	ci->ring_size = ring_size;
}

static int check_chan(struct fdma_dev *dev, int ch)
{
	if (!fdma_dev_live(dev))
		return -EBADF;
	if (ch < 0 || ch >= (int)dev->info.nchan)
		return fdma_err(dev, -EINVAL, "no channel %d on this device (it has %u)",
				ch, dev->info.nchan);
	return 0;
}

#define CHECK_CHAN(dev, ch)					\
	do {							\
		int ret_ = check_chan((dev), (ch));		\
		if (ret_)					\
			return ret_;				\
	} while (0)

/* Request i's buffer range (what: "" or "source "/"destination "), and its length. */
static int check_range(struct fdma_dev *dev, unsigned int i, const char *what, int h,
		       u64 offset, u64 len, struct fdma_buf **bp)
{
	struct fdma_buf *b = fdma_buf_lookup(dev, h);

	if (!b)
		return fdma_err(dev, -EBADF, "request %u: unknown %sbuffer handle %d", i, what, h);
	if (offset > b->size || len > b->size - offset)
		return fdma_err(dev, -ERANGE,
				"request %u: %soffset %llu + length %llu is beyond buffer %d's %zu bytes",
				i, what, (unsigned long long)offset, (unsigned long long)len,
				h, b->size);
	if (len > UINT32_MAX - dev->info.align + 1)
		return fdma_err(dev, -EINVAL, "request %u: length %llu is over 4 GiB",
				i, (unsigned long long)len);
	*bp = b;
	return 0;
}

int fdma_req_check(struct fdma_dev *dev, const struct fdma_ering *rules, unsigned int i,
		   const struct fdma_req *r, bool bus)
{
	struct fdma_buf *b = NULL;
	struct fdma_ereq q = { 0 };
	const char *why;
	int ret;

	ret = check_range(dev, i, "", r->buf, r->offset, r->len, &b);
	if (ret)
		return ret;
	if (r->flags & ~(FDMA_REQ_IRQ | FDMA_REQ_SOF | FDMA_REQ_EOF))
		return fdma_err(dev, -EINVAL, "request %u: unknown flags 0x%x", i, r->flags);
	/* Buffers start page-aligned: without a bus address the offset carries the alignment. */
	q.host = (bus ? b->bus : 0) + r->offset;
	q.card = r->card_addr;
	q.len = (u32)r->len;
	ret = fdma_ering_check(rules, &q, &why);
	if (ret)
		return fdma_err(dev, ret,
				"request %u (buffer %d offset %llu, card 0x%llx, %llu bytes): %s",
				i, r->buf, (unsigned long long)r->offset,
				(unsigned long long)r->card_addr, (unsigned long long)r->len, why);
	return 0;
}

int fdma_copy_check(struct fdma_dev *dev, const struct fdma_ering *rules, unsigned int i,
		    const struct fdma_copy *cp, bool bus)
{
	struct fdma_buf *sb = NULL, *db = NULL;
	struct fdma_ereq q = { 0 };
	const char *why;
	int ret;

	ret = check_range(dev, i, "source ", cp->src_buf, cp->src_offset, cp->len, &sb);
	if (!ret)
		ret = check_range(dev, i, "destination ", cp->dst_buf, cp->dst_offset, cp->len, &db);
	if (ret)
		return ret;
	if (cp->flags & ~FDMA_REQ_IRQ)
		return fdma_err(dev, -EINVAL, "request %u: unknown flags 0x%x (a copy takes FDMA_REQ_IRQ)",
				i, cp->flags);
	if (cp->rsvd)
		return fdma_err(dev, -EINVAL, "request %u: rsvd is %u, must be 0", i, cp->rsvd);
	/*
	 * Without bus addresses the offsets carry the alignment, and only the
	 * same buffer can overlap: give the two a common base then.
	 */
	q.host = (bus ? sb->bus : 0) + cp->src_offset;
	q.dst = (bus ? db->bus : (sb == db ? 0 : 1ull << 62)) + cp->dst_offset;
	q.len = (u32)cp->len;
	ret = fdma_ering_check(rules, &q, &why);
	if (ret)
		return fdma_err(dev, ret,
				"request %u (buffer %d offset %llu to buffer %d offset %llu, %llu bytes): %s",
				i, cp->src_buf, (unsigned long long)cp->src_offset, cp->dst_buf,
				(unsigned long long)cp->dst_offset, (unsigned long long)cp->len, why);
	return 0;
}

int fdma_submit(struct fdma_dev *dev, int ch, const struct fdma_req *reqs, unsigned int n)
{
	CHECK_CHAN(dev, ch);
	if (!reqs && n)
		return fdma_err(dev, -EINVAL, "fdma_submit: reqs is NULL");
	if (dev->info.chan[ch].kind == FDMA_KIND_MEM)
		return fdma_err(dev, -EINVAL,
				"fdma_submit: channel %d is memory-to-memory: use fdma_submit_copy()", ch);
	return dev->ops->submit(dev, ch, reqs, n);
}

int fdma_submit_copy(struct fdma_dev *dev, int ch, const struct fdma_copy *copies, unsigned int n)
{
	CHECK_CHAN(dev, ch);
	if (!copies && n)
		return fdma_err(dev, -EINVAL, "fdma_submit_copy: copies is NULL");
	if (dev->info.chan[ch].kind != FDMA_KIND_MEM)
		return fdma_err(dev, -EINVAL,
				"fdma_submit_copy: channel %d is not memory-to-memory (fdma_find_chan() with FDMA_KIND_MEM finds one)",
				ch);
	return dev->ops->submit_copy(dev, ch, copies, n);
}

int fdma_uring_prep(struct fdma_dev *dev, int ch, const struct fdma_req *reqs, unsigned int n,
		    struct fdma_uring_cmd *cmd, struct io_uring_sqe *sqe)
{
	CHECK_CHAN(dev, ch);
	if (!reqs || !cmd || !sqe)
		return fdma_err(dev, -EINVAL, "fdma_uring_prep: %s is NULL",
				!reqs ? "reqs" : !cmd ? "cmd" : "sqe");
	if (!n || n > FDMA_URING_MAX_REQS)
		return fdma_err(dev, -EINVAL, "fdma_uring_prep: %u requests: one command takes 1 to %d",
				n, FDMA_URING_MAX_REQS);
	if (dev->info.chan[ch].kind == FDMA_KIND_MEM)
		return fdma_err(dev, -EINVAL,
				"fdma_uring_prep: channel %d is memory-to-memory: copies have no io_uring command",
				ch);
	if (!dev->ops->uring_prep)
		return fdma_err(dev, -EOPNOTSUPP,
				"fdma_uring_prep: %s: has no kernel driver to take io_uring commands (kdev: does): use fdma_submit()",
				dev->info.backend);
	return dev->ops->uring_prep(dev, ch, reqs, n, cmd, sqe);
}

int fdma_reap(struct fdma_dev *dev, int ch, struct fdma_cpl *cpls, unsigned int max,
	      unsigned int min_wait, int64_t timeout_us)
{
	CHECK_CHAN(dev, ch);
	if (!cpls && max)
		return fdma_err(dev, -EINVAL, "fdma_reap: cpls is NULL");
	if (min_wait > max)
		min_wait = max;
	return dev->ops->reap(dev, ch, cpls, max, min_wait, timeout_us);
}

int fdma_inflight(struct fdma_dev *dev, int ch)
{
	CHECK_CHAN(dev, ch);
	return dev->ops->inflight(dev, ch);
}

int fdma_chan_fd(struct fdma_dev *dev, int ch)
{
	CHECK_CHAN(dev, ch);
	return dev->ops->chan_fd(dev, ch);
}

int fdma_user_irq_fd(struct fdma_dev *dev, unsigned int irq)
{
	if (!fdma_dev_live(dev))
		return -EBADF;
	if (!dev->info.user_irqs)
		return fdma_err(dev, -EINVAL, "fdma_user_irq_fd: this device forwards no user interrupts (%s)",
				dev->info.engine[0] ? dev->info.engine : "no engine");
	if (irq >= dev->info.user_irqs)
		return fdma_err(dev, -EINVAL, "fdma_user_irq_fd: no user interrupt %u (the device has %u)",
				irq, dev->info.user_irqs);
	return dev->ops->user_irq_fd(dev, irq);
}

int fdma_chan_set_wait(struct fdma_dev *dev, int ch, enum fdma_wait_mode mode, unsigned int spin_us)
{
	CHECK_CHAN(dev, ch);
	if (mode != FDMA_WAIT_SPIN && mode != FDMA_WAIT_SLEEP && mode != FDMA_WAIT_ADAPTIVE)
		return fdma_err(dev, -EINVAL, "unknown wait mode %d", (int)mode);
	if (spin_us > 1000000)
		return fdma_err(dev, -EINVAL, "spin_us %u is over 1 s", spin_us);
	return dev->ops->set_wait(dev, ch, mode, spin_us);
}

int fdma_chan_set_coalesce(struct fdma_dev *dev, int ch, unsigned int count, unsigned int usecs)
{
	CHECK_CHAN(dev, ch);
	if (count > 65536 || usecs > 1000000)
		return fdma_err(dev, -EINVAL,
				"coalescing %u completions / %u us is out of range (65536 / 1000000)",
				count, usecs);
	if (usecs && !(dev->info.coal & FDMA_COAL_TIMER))
		return fdma_err(dev, -EOPNOTSUPP,
				"%s has no interrupt timer: coalescing by count only (usecs must be 0)",
				dev->info.engine[0] ? dev->info.engine : "this device");
	return dev->ops->set_coalesce(dev, ch, count, usecs);
}

int fdma_chan_set_drop(struct fdma_dev *dev, int ch, int drop)
{
	CHECK_CHAN(dev, ch);
	/* Only a source can drop what nobody takes: the card's C2H streams. */
	if (dev->info.chan[ch].kind != FDMA_KIND_STREAM || dev->info.chan[ch].dir != FDMA_C2H)
		return fdma_err(dev, -EINVAL, "channel %d is not a C2H stream channel", ch);
	return dev->ops->set_drop(dev, ch, drop);
}

int fdma_chan_reset(struct fdma_dev *dev, int ch)
{
	CHECK_CHAN(dev, ch);
	return dev->ops->reset(dev, ch);
}

int fdma_chan_set_testgen(struct fdma_dev *dev, int ch, uint32_t frame_len, uint32_t period_ns,
			  int enable)
{
	CHECK_CHAN(dev, ch);
	if (!dev->info.chan[ch].testgen)
		return fdma_err(dev, -ENOTSUP, "channel %d has no test generator or checker", ch);
	if (enable && frame_len < FDMA_TG_FRAME_MIN)
		return fdma_err(dev, -EINVAL, "frame length %u is under the %u-byte minimum",
				frame_len, FDMA_TG_FRAME_MIN);
	return dev->ops->set_testgen(dev, ch, frame_len, period_ns, enable);
}

int fdma_chan_testgen_counts(struct fdma_dev *dev, int ch, uint64_t *frames, uint64_t *errors)
{
	uint64_t f = 0, e = 0;
	int ret;

	CHECK_CHAN(dev, ch);
	if (!dev->info.chan[ch].testgen)
		return fdma_err(dev, -ENOTSUP, "channel %d has no test generator or checker", ch);
	ret = dev->ops->testgen_counts(dev, ch, &f, &e);
	if (ret)
		return ret;
	if (frames)
		*frames = f;
	if (errors)
		*errors = e;
	return 0;
}

int fdma_chan_align(struct fdma_dev *dev, int ch)
{
	CHECK_CHAN(dev, ch);
	return (int)dev->chan_align[ch];
}

int fdma_chan_stats(struct fdma_dev *dev, int ch, struct fdma_chan_stats *st)
{
	CHECK_CHAN(dev, ch);
	if (!st)
		return fdma_err(dev, -EINVAL, "fdma_chan_stats: st is NULL");
	memset(st, 0, sizeof(*st));
	return dev->ops->stats(dev, ch, st);
}

/* ---- synchronous helpers --------------------------------------------------------- */

static int sync_xfer(struct fdma_dev *dev, enum fdma_dir dir, int buf, uint64_t offset,
		     uint64_t card_addr, uint64_t len)
{
	struct fdma_req r = { .buf = buf, .offset = offset, .card_addr = card_addr, .len = len };
	struct fdma_cpl cpl;
	int ch = fdma_find_chan(dev, dir, FDMA_KIND_MM), ret;

	if (ch < 0)
		return ch;
	/* Its completion must be the next one on the channel. */
	if (fdma_inflight(dev, ch) > 0)
		return fdma_err(dev, -EBUSY,
				"channel %d has transfers in flight: reap them before a synchronous %s",
				ch, dir == FDMA_H2C ? "write" : "read");
	/* One system call where the backend has a way (kdev: an io_uring command). */
	if (dev->ops->xfer) {
		ret = dev->ops->xfer(dev, ch, &r, FDMA_SYNC_TIMEOUT_US);
		if (ret != -EOPNOTSUPP)
			return ret;
	}
	ret = fdma_submit(dev, ch, &r, 1);
	if (ret < 0)
		return ret;
	ret = fdma_reap(dev, ch, &cpl, 1, 1, FDMA_SYNC_TIMEOUT_US);
	if (ret < 0)
		return ret;
	if (cpl.res)
		return fdma_err(dev, cpl.res, "%s of %llu bytes at card 0x%llx failed: %s",
				dir == FDMA_H2C ? "write" : "read", (unsigned long long)len,
				(unsigned long long)card_addr, fdma_cpl_str(cpl.status));
	return 0;
}

int fdma_write_card(struct fdma_dev *dev, int buf, uint64_t offset, uint64_t card_addr, uint64_t len)
{
	return sync_xfer(dev, FDMA_H2C, buf, offset, card_addr, len);
}

int fdma_read_card(struct fdma_dev *dev, int buf, uint64_t offset, uint64_t card_addr, uint64_t len)
{
	return sync_xfer(dev, FDMA_C2H, buf, offset, card_addr, len);
}
