/* SPDX-License-Identifier: MIT */
/*
 * FDMA engine, version 1.3: register map and memory formats.
 *
 * This header is the machine-readable half of docs/engine.md; the two
 * state the same facts. It is included by the engine core (engine/), the
 * device model (model/), libfdma and the kernel module, so it uses only the
 * fixed-width types the platform header provides (u8, u16, u32, u64) and
 * no libc or kernel headers.
 *
 * Conventions
 * - Registers are 32-bit, little-endian, in BAR0. 64-bit addresses are split
 *   into _LO/_HI pairs; write _LO first, _HI second.
 * - No register has a read side effect, and each register has exactly one
 *   writer: "host" (the driver writes, the device only reads), "dev" (the
 *   device writes, the host only reads), or "ro" (constant). This lets the
 *   same register file live in plain shared memory (the device model behind
 *   ivshmem), where a write cannot trigger anything by itself: after writing
 *   a doorbell, a reset request or a W1C strobe the host "kicks" the device
 *   (on an FPGA the write itself is the kick; behind ivshmem it is the
 *   ivshmem doorbell register).
 * - Handshakes use sequence numbers, never self-clearing bits: the host
 *   writes REQ = n, the device does the work and writes ACK = n.
 * - The hot path reads no register: the device writes its consumer index
 *   and status into a write-back block in host memory.
 */
#ifndef FDMA_REGS_H
#define FDMA_REGS_H

#define FDMA_ID_MAGIC		0x46444d41u	/* "FDMA" */
#define FDMA_VERSION_MAJOR	1u
#define FDMA_VERSION_MINOR	3u	/* 1.1: STATUS.BUSY; 1.2: MEM2MEM channels; 1.3: STREAM_BYTES */

/* PCI identity of an FDMA engine (see docs/engine.md). */
/*
 * No vendor ID is assigned to fdma: designs use their FPGA vendor's or their
 * own, and the driver is told which (docs/engine.md). These are defaults.
 */
#define FDMA_PCI_VENDOR		0x10eeu
#define FDMA_PCI_DEVICE		0xfd3au

/* ---- global registers ------------------------------------------------ */
#define FDMA_REG_ID		0x000	/* ro: FDMA_ID_MAGIC */
#define FDMA_REG_VERSION	0x004	/* ro: major << 16 | minor */
#define FDMA_REG_CAPS		0x008	/* ro: FDMA_CAPS_* */
#define FDMA_REG_MAX_DESC_LEN	0x00c	/* ro: largest descriptor length, bytes */
#define FDMA_REG_CARD_SIZE_LO	0x010	/* ro: card memory size, bytes */
#define FDMA_REG_CARD_SIZE_HI	0x014
#define FDMA_REG_RING_MAX	0x018	/* ro: largest ring, entries (power of 2) */
#define FDMA_REG_CTRL		0x020	/* host: FDMA_CTRL_* */
#define FDMA_REG_STATUS		0x024	/* dev: FDMA_STATUS_* */
#define FDMA_REG_RESET_REQ	0x028	/* host: write n to reset the whole engine */
#define FDMA_REG_RESET_ACK	0x02c	/* dev: n once the reset is done */

#define FDMA_CAPS_NCHAN(c)	((c) & 0xffu)		/* channel count */
#define FDMA_CAPS_ALIGN_LOG2(c)	(((c) >> 8) & 0xffu)	/* data alignment */
#define FDMA_CAPS_COALESCE	(1u << 16)	/* count + timer coalescing */
#define FDMA_CAPS_TESTGEN	(1u << 17)	/* stream test generator/checker */
#define FDMA_CAPS_MEM2MEM	(1u << 18)	/* 1.2: at least one memory-to-memory channel */
/*
 * 1.3: stream channels take descriptors of any address and any length
 * (bytes); memory-mapped and MEM2MEM channels keep the alignment. A host
 * that does not know the bit keeps to the alignment, which stays valid.
 */
#define FDMA_CAPS_STREAM_BYTES	(1u << 19)
/*
 * 1.3: H2C stream channels alone take descriptors of any address and
 * length; C2H stream buffers keep the alignment (an engine without a C2H
 * byte shifter). STREAM_BYTES says this and more.
 */
#define FDMA_CAPS_H2C_BYTES	(1u << 20)
#define FDMA_CAPS_MAKE(nchan, align_log2) \
	((u32)(nchan) | ((u32)(align_log2) << 8))

#define FDMA_CTRL_ENABLE	(1u << 0)	/* device may master the bus */
#define FDMA_STATUS_READY	(1u << 0)
/*
 * 1.1: the engine may still master the bus. Set while CTRL.ENABLE is 1;
 * after ENABLE is cleared, it drops to 0 once the engine issues no more
 * requests and every request it issued has completed. A host frees memory
 * the engine could reach only after reading BUSY = 0.
 */
#define FDMA_STATUS_BUSY	(1u << 1)

#define FDMA_MAX_CHANNELS	16u

/* ---- per-channel registers: block at FDMA_CH_BASE(ch) ------------------ */
#define FDMA_CH_BASE(ch)	(0x100u + (u32)(ch) * 0x80u)

#define FDMA_CH_CAPS		0x00	/* ro: FDMA_CH_CAP_* */
#define FDMA_CH_CTRL		0x04	/* host: FDMA_CH_CTRL_* */
#define FDMA_CH_STATUS		0x08	/* dev: FDMA_CH_ST_* */
#define FDMA_CH_STATUS_W1C	0x0c	/* host strobe: write 1s to clear error bits */
#define FDMA_CH_RING_LO		0x10	/* host: descriptor ring bus address */
#define FDMA_CH_RING_HI		0x14
#define FDMA_CH_RING_SIZE	0x18	/* host: entries, power of 2, 2..RING_MAX */
#define FDMA_CH_CPL_LO		0x20	/* host: completion ring (RING_SIZE records) */
#define FDMA_CH_CPL_HI		0x24
#define FDMA_CH_WB_LO		0x28	/* host: write-back block (struct fdma_wb) */
#define FDMA_CH_WB_HI		0x2c
#define FDMA_CH_PIDX		0x30	/* host doorbell: descriptors posted, free-running */
#define FDMA_CH_CIDX		0x34	/* dev: descriptors completed, free-running (debug copy of wb.cidx) */
#define FDMA_CH_COAL_COUNT	0x38	/* host: interrupt after N completions (0 = 1) */
#define FDMA_CH_COAL_USECS	0x3c	/* host: ... or N us after the oldest unsignalled one */
#define FDMA_CH_IRQ_VEC		0x40	/* host: MSI-X vector of this channel */
#define FDMA_CH_RESET_REQ	0x44	/* host: write n to reset this channel */
#define FDMA_CH_RESET_ACK	0x48	/* dev: n once the channel reset is done */
#define FDMA_CH_ERR_IDX		0x4c	/* dev: ring count of the descriptor that halted the channel */
#define FDMA_CH_TG_FRAME_LEN	0x50	/* host: test generator frame length, bytes */
#define FDMA_CH_TG_PERIOD_NS	0x54	/* host: test generator frame period, ns (0 = as fast as possible) */
#define FDMA_CH_TG_CTRL		0x58	/* host: bit 0 enables the generator/checker */
#define FDMA_CH_TG_FRAMES	0x5c	/* dev: frames generated (C2H) or checked (H2C) */
#define FDMA_CH_TG_ERRORS	0x60	/* dev: frames that failed the checker (H2C) */
#define FDMA_CH_OVERRUNS	0x64	/* dev: frames dropped for want of a descriptor */
#define FDMA_CH_IRQS		0x68	/* dev: interrupts raised */

#define FDMA_CH_CAP_C2H		(1u << 0)	/* else H2C */
#define FDMA_CH_CAP_STREAM	(1u << 1)	/* else memory-mapped to card memory */
#define FDMA_CH_CAP_TESTGEN	(1u << 2)	/* has a test generator (C2H) or checker (H2C) */
#define FDMA_CH_CAP_MEM2MEM	(1u << 3)	/* 1.2: reads host memory, writes host memory */
#define FDMA_CH_CAP_KNOWN	0xfu		/* bits a 1.2 host knows; it drives no channel with others */

#define FDMA_CH_CTRL_RUN	(1u << 0)	/* fetch and execute descriptors */
#define FDMA_CH_CTRL_IRQ_EN	(1u << 1)	/* raise interrupts */
#define FDMA_CH_CTRL_DROP	(1u << 2)	/* stream C2H: drop frames when the ring is empty (else backpressure) */
/*
 * 1.2: the host drives this MEM2MEM channel as one. A MEM2MEM channel run
 * without it halts on its first descriptor with DESC_ERR: a 1.1 host, which
 * would take the channel for H2C memory-mapped and put a card address in
 * dst, can never make it write host memory there.
 */
#define FDMA_CH_CTRL_M2M	(1u << 3)

#define FDMA_CH_ST_RUNNING	(1u << 0)	/* RUN seen, ring latched */
#define FDMA_CH_ST_HALTED	(1u << 1)	/* stopped on an error; reset to recover */
#define FDMA_CH_ST_IDLE		(1u << 2)	/* nothing posted */
#define FDMA_CH_ST_STOPPED	(1u << 3)	/* stopped by a STOP descriptor; next doorbell resumes */
#define FDMA_CH_ST_DESC_ERR	(1u << 8)	/* W1C: a descriptor fetch failed */
#define FDMA_CH_ST_ADDR_ERR	(1u << 9)	/* W1C: a host address was not reachable */
#define FDMA_CH_ST_DATA_ERR	(1u << 10)	/* W1C: poisoned data */
#define FDMA_CH_ST_ALIGN_ERR	(1u << 11)	/* W1C: address or length misaligned */
#define FDMA_CH_ST_RANGE_ERR	(1u << 12)	/* W1C: card address out of range */
#define FDMA_CH_ST_LEN_ERR	(1u << 13)	/* W1C: length 0 or over MAX_DESC_LEN */
#define FDMA_CH_ST_OVERRUN	(1u << 14)	/* W1C: stream frames were dropped */
#define FDMA_CH_ST_ERR_MASK	0x7f00u

/* ---- memory formats (host memory, little-endian) ----------------------- */

/*
 * Descriptor: 32 bytes, 32-byte aligned, in a ring of RING_SIZE entries.
 * Descriptor number n (free-running) lives in entry n % RING_SIZE.
 *   H2C memory-mapped: src = host bus address, dst = card address
 *   C2H memory-mapped: src = card address,     dst = host bus address
 *   C2H stream:        src = 0,                dst = host bus address
 *   H2C stream:        src = host bus address, dst = 0
 *   MEM2MEM (1.2):     src = host bus address, dst = host bus address
 * src, dst and len must be multiples of the data alignment (CAPS).
 */
struct fdma_desc {
	u64 src;
	u64 dst;
	u32 len;
	u32 ctrl;	/* FDMA_DESC_* */
	u64 cookie;	/* echoed in the completion record */
};

#define FDMA_DESC_IRQ		(1u << 0)	/* interrupt on completion, whatever the coalescing */
#define FDMA_DESC_SOF		(1u << 1)	/* H2C stream: first piece of a frame */
#define FDMA_DESC_EOF		(1u << 2)	/* H2C stream: last piece of a frame */
#define FDMA_DESC_STOP		(1u << 3)	/* stop after this one (ST_STOPPED) */

/*
 * Completion record: 16 bytes; descriptor n's record is entry
 * n % RING_SIZE of the completion ring. The device writes the record,
 * then the write-back block's cidx; PCIe orders posted writes, so a host
 * that reads cidx with acquire ordering sees every record below it.
 */
struct fdma_cpl_rec {
	u64 cookie;
	u32 len;	/* bytes moved (C2H stream: bytes of the frame in this buffer) */
	u16 status;	/* FDMA_CPL_* */
	u16 flags;	/* FDMA_CPL_F_* */
};

#define FDMA_CPL_OK		0
#define FDMA_CPL_DESC_ERR	1	/* descriptor fetch failed */
#define FDMA_CPL_ADDR_ERR	2	/* host address unreachable (unsupported request) */
#define FDMA_CPL_DATA_ERR	3	/* data poisoned in flight */
#define FDMA_CPL_ALIGN_ERR	4	/* address or length not aligned */
#define FDMA_CPL_RANGE_ERR	5	/* card address out of range */
#define FDMA_CPL_LEN_ERR	6	/* length 0 or over MAX_DESC_LEN */
#define FDMA_CPL_TRUNC		7	/* C2H stream: frame longer than the buffer chain */

#define FDMA_CPL_F_SOF		(1u << 0)	/* stream: buffer starts a frame */
#define FDMA_CPL_F_EOF		(1u << 1)	/* stream: buffer ends a frame */
#define FDMA_CPL_F_OVERRUN	(1u << 2)	/* stream: frames were dropped before this one */

/* Write-back block: 64 bytes, 64-byte aligned, written only by the device. */
struct fdma_wb {
	u32 cidx;	/* descriptors completed, free-running */
	u32 status;	/* copy of CH_STATUS */
	u32 overruns;	/* copy of CH_OVERRUNS */
	u32 irqs;	/* copy of CH_IRQS */
	u32 rsvd[12];
};

/*
 * Test generator frame header (C2H stream generator, H2C stream checker):
 * 32 bytes at the start of every frame. The payload after it is 64-bit
 * little-endian words, word i = (u64)seq << 32 | i, and crc is the CRC-32
 * (IEEE 802.3, as zlib's crc32) of the payload.
 */
struct fdma_frame_hdr {
	u32 magic;	/* FDMA_FRAME_MAGIC */
	u32 seq;	/* frame number, from 0 */
	u32 len;	/* whole frame, header included */
	u32 crc;
	u64 tstamp_ns;	/* device time the frame was ready to send */
	u64 rsvd;
};

#define FDMA_FRAME_MAGIC	0x304d5246u	/* "FRM0" */

#endif /* FDMA_REGS_H */
