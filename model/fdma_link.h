/* SPDX-License-Identifier: MIT */
/*
 * fdma_link.h - analytic PCIe link model.
 *
 * Computes the payload ceilings of a PCIe link (generation, lanes, MPS,
 * MRRS, RCB, header format, ECRC, optional DLLP term, read latency and
 * outstanding tags) and the wall-clock time one transfer occupies the link,
 * which the simulated device uses to pace its data mover in real time.
 * docs/link-model.md derives every formula and constant.
 *
 * Conventions: 1 MB = 10^6 bytes; rates are payload bytes per second in one
 * direction; H2C = device reads host memory, C2H = device writes host memory.
 * Every function is pure and deterministic. A configuration that
 * fdma_link_validate() rejects yields 0 from the rate and time functions.
 */
#ifndef FDMA_LINK_H
#define FDMA_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FDMA_LINK_H2C	0	/* read: completions carry the data downstream */
#define FDMA_LINK_C2H	1	/* posted writes carry the data upstream */

/* Per-descriptor traffic the engine adds to every transfer (engine format). */
#define FDMA_LINK_DESC_BYTES	32	/* descriptor fetched by the device */
#define FDMA_LINK_CMPL_BYTES	16	/* completion record written to the host */
#define FDMA_LINK_WB_BYTES	4	/* ring write-back written to the host */

struct fdma_link_cfg {
	unsigned gen;		/* 1..5 */
	unsigned lanes;		/* 1, 2, 4, 8, 16 */
	unsigned mps;		/* max payload size: 128..4096, power of 2 */
	unsigned mrrs;		/* max read request size: 128..4096, power of 2 */
	unsigned rcb;		/* 0: read completions carry up to MPS bytes;
				 * 64 or 128: the root complex splits
				 * completions at the RCB */
	bool addr64;		/* 4DW request headers (64-bit addresses,
				 * default) else 3DW */
	bool ecrc;		/* +4 bytes per TLP */
	bool dllp;		/* subtract pcie-bench's conservative DLLP term:
				 * one 8-byte Ack plus one 8-byte FC update per
				 * Ack latency limit (spec table, in symbol
				 * times, read as bytes), i.e. 16/limit of the
				 * raw rate; default off (see the doc) */
	unsigned tags;		/* outstanding read requests the device keeps
				 * in flight: 1..1024 (default 32) */
	unsigned rtt_ns;	/* device read round trip to host memory, >= 1
				 * (default 800) */
	unsigned irq_ns;	/* MSI write to host interrupt entry (default
				 * 1000); reported, never used in pacing */
};

/* Link bytes one transfer puts on the wire, per direction. */
struct fdma_link_cost {
	uint64_t up_bytes;	/* toward the host: writes, read requests */
	uint64_t down_bytes;	/* toward the device: read completions */
	uint64_t read_reqs;	/* data read requests (each holds a tag) */
};

/* gen 2, x1, MPS 256, MRRS 512, rcb 0, addr64, no ecrc, no dllp, tags 32,
 * rtt 800, irq 1000 */
void fdma_link_defaults(struct fdma_link_cfg *c);

/* 0 or -EINVAL, writing a message naming the bad field and its allowed
 * values into why (may be NULL). */
int fdma_link_validate(const struct fdma_link_cfg *c, char *why, size_t whylen);

/* Name of the first invalid field ("gen", "lanes", "mps", "mrrs", "rcb",
 * "tags", "rtt_ns"), or NULL when the configuration is valid. */
const char *fdma_link_bad_field(const struct fdma_link_cfg *c);

/* bytes/s per direction after line encoding and SKP ordered sets:
 * lanes * R * 0.997 */
double fdma_link_raw_Bps(const struct fdma_link_cfg *c);

/* Hz of a 64-bit datapath that carries the link's encoded rate (lanes * R
 * / 8 bytes): the clock of an XDMA with a 64-bit AXI interface, 62.5 MHz
 * at gen2 x1 */
double fdma_link_clock_hz(const struct fdma_link_cfg *c);

/* bytes/s per direction left for TLPs: raw, less the DLLP term if enabled */
double fdma_link_tlp_Bps(const struct fdma_link_cfg *c);

/* payload ceilings for large transfers, bytes/s: posted writes (device
 * writes host memory = C2H) and reads (device reads host memory = H2C) */
double fdma_link_write_Bps(const struct fdma_link_cfg *c);
double fdma_link_read_Bps(const struct fdma_link_cfg *c);

/* payload ceiling of memory-to-memory copies (engine 1.2), bytes/s: a copy
 * reads and writes host memory, crossing the link both ways, so it runs at
 * the slower direction's ceiling (the model charges reads and writes to
 * separate directions, as it does for concurrent H2C and C2H transfers) */
double fdma_link_copy_Bps(const struct fdma_link_cfg *c);

/* What bounds fdma_link_read_Bps(): "link" (completion bandwidth
 * downstream), "requests" (request bandwidth upstream) or "tags"
 * (tags * MRRS / rtt); NULL for an invalid configuration. */
const char *fdma_link_read_limit(const struct fdma_link_cfg *c);

/* payload bytes carried by one read completion TLP */
unsigned fdma_link_cpl_bytes(const struct fdma_link_cfg *c);

/* Link bytes of one transfer of size bytes in dir, data TLPs plus the
 * per-descriptor traffic (descriptor fetch completion downstream,
 * completion record and write-back writes upstream). 0 or -EINVAL. */
int fdma_link_xfer_cost(const struct fdma_link_cfg *c, int dir, uint64_t size,
			struct fdma_link_cost *out);

/* Payload bytes/s of one transfer of size bytes including the
 * per-descriptor traffic. dir: 0 = H2C (read), 1 = C2H (write). */
double fdma_link_xfer_Bps(const struct fdma_link_cfg *c, int dir, uint64_t size);

/* Wall-clock nanoseconds (rounded to nearest) the link needs to carry one
 * transfer of size bytes in dir; from_idle adds the read round trip for H2C
 * (first completion arrives rtt_ns after the first request). */
uint64_t fdma_link_xfer_ns(const struct fdma_link_cfg *c, int dir,
			   uint64_t size, bool from_idle);

/*
 * Nanoseconds from a doorbell to its descriptor in an engine that had run
 * dry: the descriptor fetch's read round trip (rtt_ns). The doorbell's
 * posted write is not charged. 0 for an invalid configuration.
 */
uint64_t fdma_link_fetch_ns(const struct fdma_link_cfg *c);

/* human-readable one-liner, e.g. "gen2 x1 MPS 256 MRRS 512"; non-default
 * options are appended */
void fdma_link_describe(const struct fdma_link_cfg *c, char *buf, size_t len);

#endif /* FDMA_LINK_H */
