/* SPDX-License-Identifier: MIT */
/*
 * The model's loopback wire (sim: option loop=1): the frames one H2C
 * stream channel sends become the frames a C2H stream channel receives, as
 * a cable between two ports of a NIC. One producer (the H2C channel's
 * thread) and one consumer (the C2H channel's thread): a single-producer,
 * single-consumer ring of bytes beside a ring of frame lengths. A frame is
 * visible to the consumer only once whole (its EOF), so the consumer never
 * waits in the middle of one.
 */
#ifndef FDMA_WIRE_H
#define FDMA_WIRE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fdma_wire {
	uint8_t *data;
	uint32_t *flen;		/* frame lengths, in order */
	uint64_t *fat;		/* when each frame crossed the sender's link (ns, 0: unpaced) */
	uint64_t size;		/* bytes of data, a power of two */
	uint32_t nframes;	/* entries of flen, a power of two */

	/* The producer's, on a cache line of their own. */
	_Alignas(64) uint64_t wpos;	/* bytes written, free-running */
	uint64_t fstart;	/* where the open frame started */
	bool open;		/* a frame has begun (SOF) and not ended */
	uint64_t stray;		/* bytes outside any frame, dropped */
	uint64_t frames_in;	/* frames published */

	/* Published by the producer: frames complete (release). */
	_Alignas(64) atomic_uint_fast64_t fhead;
	/* Published by the consumer: frames taken and bytes freed (release). */
	_Alignas(64) atomic_uint_fast64_t ftail;
	atomic_uint_fast64_t rpos;
	/* The consumer's own: the wire's rate (Mbit/s, 0: none), when the next frame may come off. */
	uint32_t mbps;
	uint64_t next_ns;
};

/*
 * bytes and frames: powers of two; mbps: the wire's rate (0: none). A
 * frame of len bytes takes max(len, 60) + 24 bytes of it, as on Ethernet.
 * 0 or -ENOMEM / -EINVAL.
 */
int fdma_wire_init(struct fdma_wire *w, uint64_t bytes, uint32_t frames, uint32_t mbps);
void fdma_wire_free(struct fdma_wire *w);

/*
 * Producer. Whether a descriptor of len bytes (ending a frame if eof) can
 * be taken now: 1 yes, 0 not yet (the consumer must free room first),
 * -EMSGSIZE never (the frame would not fit in the whole wire).
 */
int fdma_wire_room(const struct fdma_wire *w, uint32_t len, bool sof, bool eof);
/*
 * Append a descriptor's bytes after fdma_wire_room() said yes, once they
 * have crossed the sending engine's link (store and forward). at_ns: when
 * they did (0 unpaced), no later than now; a frame is there for the
 * receiver from its last descriptor's at_ns on, however late the
 * receiver's thread sees it.
 */
void fdma_wire_put(struct fdma_wire *w, const void *p, uint32_t len, bool sof, bool eof,
		   uint64_t at_ns);
/* The producer's channel was reset: a frame it had begun is dropped. */
void fdma_wire_abort(struct fdma_wire *w);

/* Consumer. The length of the next whole frame, 0 if none yet. */
uint32_t fdma_wire_peek(struct fdma_wire *w);
/*
 * Whether the wire's rate lets that frame (len bytes) off at now (ns),
 * one frame after another, each for its time; if not, *deadline is when.
 * Always true on a wire without a rate. When true, *at_ns is when the
 * receiving engine has the frame: when it crossed the sender's link (now
 * for an unpaced sender), or its turn on a rated wire if that came later.
 * The receiver starts on it from there, not from when its thread noticed
 * it: the model's own delays are not the link's.
 */
bool fdma_wire_due(struct fdma_wire *w, uint32_t len, uint64_t now, uint64_t *deadline,
		   uint64_t *at_ns);
/* Copy len bytes from offset off of that frame. */
void fdma_wire_read(const struct fdma_wire *w, uint32_t off, void *dst, uint32_t len);
/* Done with that frame, delivered or dropped: its room goes back. */
void fdma_wire_pop(struct fdma_wire *w);

#endif
