// SPDX-License-Identifier: MIT
/*
 * The loopback wire: see fdma_wire.h. Positions are free-running 64-bit
 * byte and frame counts, so full and empty never look alike and the
 * differences are right across wrap-around.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fdma_wire.h"

int fdma_wire_init(struct fdma_wire *w, uint64_t bytes, uint32_t frames, uint32_t mbps)
{
	memset(w, 0, sizeof(*w));
	if (!bytes || (bytes & (bytes - 1)) || !frames || (frames & (frames - 1)))
		return -EINVAL;
	w->data = malloc(bytes);
	w->flen = calloc(frames, sizeof(*w->flen));
	w->fat = calloc(frames, sizeof(*w->fat));
	if (!w->data || !w->flen || !w->fat) {
		fdma_wire_free(w);
		return -ENOMEM;
	}
	w->size = bytes;
	w->nframes = frames;
	w->mbps = mbps;
	return 0;
}

void fdma_wire_free(struct fdma_wire *w)
{
	free(w->data);
	free(w->flen);
	free(w->fat);
	w->data = NULL;
	w->flen = NULL;
	w->fat = NULL;
}

int fdma_wire_room(const struct fdma_wire *w, uint32_t len, bool sof, bool eof)
{
	/* A new SOF restarts at the open frame's start: its bytes go back (fdma_wire_put()). */
	uint64_t start = sof ? (w->open ? w->fstart : w->wpos) : w->fstart;
	uint64_t end = (sof ? start : w->wpos) + len;
	/*
	 * Acquire: the consumer copied a frame out before it published the
	 * room; writing over that room only after seeing it keeps the copy
	 * from reading our new bytes.
	 */
	uint64_t rpos = atomic_load_explicit(&w->rpos, memory_order_acquire);
	uint64_t ftail = atomic_load_explicit(&w->ftail, memory_order_acquire);

	if (!sof && !w->open)
		return 1;		/* stray bytes take no room */
	if (end - start > w->size)
		return -EMSGSIZE;
	if (end - rpos > w->size)
		return 0;
	/* Our own count of frames published: only this thread changes it. */
	if (eof && w->frames_in - ftail >= w->nframes)
		return 0;
	return 1;
}

static void copy_in(struct fdma_wire *w, uint64_t pos, const uint8_t *p, uint32_t len)
{
	uint64_t at = pos & (w->size - 1);
	uint64_t first = w->size - at < len ? w->size - at : len;

	memcpy(w->data + at, p, first);
	memcpy(w->data, p + first, len - first);
}

void fdma_wire_put(struct fdma_wire *w, const void *p, uint32_t len, bool sof, bool eof,
		   uint64_t at_ns)
{
	if (sof) {
		/* A frame begun and not ended is cut short by the next: it is lost. */
		w->wpos = w->open ? w->fstart : w->wpos;
		w->fstart = w->wpos;
		w->open = true;
	} else if (!w->open) {
		/* Bytes outside a frame (docs/engine.md, section 13): nothing receives them. */
		w->stray += len;
		return;
	}
	copy_in(w, w->wpos, p, len);
	w->wpos += len;
	if (!eof)
		return;
	w->flen[w->frames_in & (w->nframes - 1)] = (uint32_t)(w->wpos - w->fstart);
	w->fat[w->frames_in & (w->nframes - 1)] = at_ns;
	w->open = false;
	w->frames_in++;
	/* Release: the frame's bytes, length and time are in place before the consumer sees it. */
	atomic_store_explicit(&w->fhead, w->frames_in, memory_order_release);
}

void fdma_wire_abort(struct fdma_wire *w)
{
	if (w->open)
		w->wpos = w->fstart;
	w->open = false;
}

uint32_t fdma_wire_peek(struct fdma_wire *w)
{
	uint64_t ftail = atomic_load_explicit(&w->ftail, memory_order_relaxed);

	/* Acquire: pairs with the producer's release of fhead. */
	if (atomic_load_explicit(&w->fhead, memory_order_acquire) == ftail)
		return 0;
	return w->flen[ftail & (w->nframes - 1)];
}

bool fdma_wire_due(struct fdma_wire *w, uint32_t len, uint64_t now, uint64_t *deadline,
		   uint64_t *at_ns)
{
	/* peek() acquired fhead: the frame's time was stored before it. */
	uint64_t at = w->fat[atomic_load_explicit(&w->ftail, memory_order_relaxed) &
			     (w->nframes - 1)];
	uint64_t turn;

	if (!at)
		at = now;	/* put unpaced: there when put */
	if (!w->mbps) {
		*at_ns = at;
		return true;
	}
	if (now < w->next_ns) {
		*deadline = w->next_ns;
		return false;
	}
	/* Back to back after a late wake-up (under 1 ms): the rate holds on average. */
	turn = w->next_ns + 1000000 > now ? w->next_ns : now;
	if (turn < at)
		turn = at;	/* it goes on once it is there */
	w->next_ns = turn + (uint64_t)((len < 60 ? 60 : len) + 24) * 8000 / w->mbps;
	*at_ns = turn;
	return true;
}

void fdma_wire_read(const struct fdma_wire *w, uint32_t off, void *dst, uint32_t len)
{
	uint64_t at = (atomic_load_explicit(&w->rpos, memory_order_relaxed) + off) & (w->size - 1);
	uint64_t first = w->size - at < len ? w->size - at : len;

	memcpy(dst, w->data + at, first);
	memcpy((uint8_t *)dst + first, w->data, len - first);
}

void fdma_wire_pop(struct fdma_wire *w)
{
	uint64_t ftail = atomic_load_explicit(&w->ftail, memory_order_relaxed);
	uint64_t len = w->flen[ftail & (w->nframes - 1)];

	/* Release: the frame was read out before its room is handed back. */
	atomic_store_explicit(&w->rpos, atomic_load_explicit(&w->rpos, memory_order_relaxed) + len,
			      memory_order_release);
	atomic_store_explicit(&w->ftail, ftail + 1, memory_order_release);
}
