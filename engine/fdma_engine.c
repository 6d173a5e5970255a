// SPDX-License-Identifier: MIT
/*
 * Engine core, the part every engine shares: choosing an engine, setting a
 * ring up, the request rules, completion folding and status names. The
 * engines themselves are fdma_eng_fdma.c and fdma_eng_xdma.c.
 */
#include "fdma_engine.h"

static bool streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

const struct fdma_eng_ops *fdma_eng_by_name(const char *name)
{
	static const struct fdma_eng_ops *const all[] = { &fdma_eng_fdma, &fdma_eng_xdma, NULL };
	u32 i;

	for (i = 0; all[i]; i++)
		if (streq(all[i]->name, name))
			return all[i];
	return NULL;
}

static bool is_pow2(u32 v)
{
	return v && !(v & (v - 1));
}

int fdma_ering_init(struct fdma_ering *r, struct fdma_plat *p,
		    const struct fdma_eng_caps *caps, u32 ch, u32 size,
		    void *desc, u64 desc_bus, void *rec, u64 rec_bus,
		    void *wb, u64 wb_bus, struct fdma_eslot *slot)
{
	const struct fdma_eng_ops *eng = caps->eng;

	if (ch >= caps->nchan || !is_pow2(size) || size < 2 ||
	    size > caps->ring_max)
		return -EINVAL;
	if ((desc_bus & 31) || (rec_bus & (eng->rec_bytes - 1)) || (wb_bus & 63))
		return -EINVAL;
	r->eng = eng;
	r->plat = p;
	r->ch = ch;
	r->caps = caps->chan_caps[ch];
	/*
	 * An H2C byte stream takes any address and length. C2H buffers may
	 * still want units (XDMA: lengths of 64 bytes, while the frames that
	 * land in them have any length; an engine with H2C_BYTES alone: its
	 * alignment for both).
	 */
	if (caps->stream_bytes && (r->caps & FDMA_CH_CAP_STREAM)) {
		bool c2h = r->caps & FDMA_CH_CAP_C2H;

		r->addr_align = c2h && caps->c2h_stream_addr ? caps->c2h_stream_addr : 1;
		r->align = c2h && caps->c2h_stream_len ? caps->c2h_stream_len : 1;
	} else {
		r->addr_align = caps->align;
		r->align = caps->align;
	}
	r->max_desc_len = caps->max_desc_len;
	r->card_size = caps->card_size;
	r->desc = desc;
	r->rec = rec;
	r->wbp = wb;
	r->slot = slot;
	r->desc_bus = desc_bus;
	r->rec_bus = rec_bus;
	r->wb_bus = wb_bus;
	r->size = size;
	r->pidx = 0;
	r->pidx_pub = 0;
	r->cidx = 0;
	r->ctrl = 0;
	r->done_at_reset = 0;
	r->doorbells = 0;
	return eng->ring_init(r, caps);
}

static bool aligned(u64 v, u32 align)
{
	return !(v & (align - 1));
}

int fdma_ering_check(const struct fdma_ering *r, const struct fdma_ereq *q,
		     const char **why)
{
	const char *dummy;
	bool stream = r->caps & FDMA_CH_CAP_STREAM;

	if (!why)
		why = &dummy;
	/* A kind from a later minor version: its descriptor format is unknown here. */
	if (r->caps & ~FDMA_CH_CAP_KNOWN) {
		*why = "channel of a kind this host does not know (CH_CAPS bits beyond 1.2)";
		return -EOPNOTSUPP;
	}
	if (q->len == 0) {
		*why = "length is zero";
		return -EINVAL;
	}
	if (!aligned(q->host, r->addr_align) || !aligned(q->len, r->align)) {
		*why = "host address or length not a multiple of the engine's alignment";
		return -EINVAL;
	}
	if (r->caps & FDMA_CH_CAP_MEM2MEM) {
		if (!aligned(q->dst, r->align)) {
			*why = "destination address not a multiple of the engine's alignment";
			return -EINVAL;
		}
		/* The engine copies front to back in pieces: it does not promise memmove. */
		if (q->host < q->dst + q->len && q->dst < q->host + q->len) {
			*why = "source and destination ranges overlap";
			return -EINVAL;
		}
	} else if (stream) {
		if ((r->caps & FDMA_CH_CAP_C2H) && q->len > r->max_desc_len) {
			*why = "stream buffer longer than the engine's maximum descriptor length";
			return -EINVAL;
		}
	} else {
		if (!aligned(q->card, r->align)) {
			*why = "card address not a multiple of the engine's alignment";
			return -EINVAL;
		}
		if (q->card > r->card_size || q->len > r->card_size - q->card) {
			*why = "card address range beyond the end of card memory";
			return -ERANGE;
		}
	}
	if (fdma_ering_ndesc(r, q->len) > r->size) {
		*why = "request needs more descriptors than the ring holds";
		return -EINVAL;
	}
	return 0;
}

void fdma_ecpl_fold(struct fdma_ecpl *acc, u64 cookie, u32 len, u16 status, u16 flags,
		    bool first)
{
	if (first) {
		acc->cookie = cookie;
		acc->len = 0;
		acc->status = FDMA_CPL_OK;
		acc->flags = 0;
	}
	acc->len += len;
	acc->flags |= flags;
	if (acc->status == FDMA_CPL_OK)
		acc->status = status;
}

int fdma_cpl_errno(u16 status)
{
	switch (status) {
	case FDMA_CPL_OK:
		return 0;
	case FDMA_CPL_ADDR_ERR:
		return -EFAULT;
	case FDMA_CPL_ALIGN_ERR:
	case FDMA_CPL_LEN_ERR:
		return -EINVAL;
	case FDMA_CPL_RANGE_ERR:
		return -ERANGE;
	case FDMA_CPL_TRUNC:
		return -EMSGSIZE;
	case FDMA_CPL_CANCELED:
		return -ECANCELED;
	default:
		return -EIO;
	}
}

const char *fdma_cpl_str(u16 status)
{
	switch (status) {
	case FDMA_CPL_OK:
		return "ok";
	case FDMA_CPL_DESC_ERR:
		return "descriptor fetch error";
	case FDMA_CPL_ADDR_ERR:
		return "host address not reachable";
	case FDMA_CPL_DATA_ERR:
		return "data error (poisoned)";
	case FDMA_CPL_ALIGN_ERR:
		return "misaligned address or length";
	case FDMA_CPL_RANGE_ERR:
		return "card address out of range";
	case FDMA_CPL_LEN_ERR:
		return "bad length";
	case FDMA_CPL_TRUNC:
		return "frame truncated";
	case FDMA_CPL_CANCELED:
		return "canceled by channel reset";
	default:
		return "unknown status";
	}
}
