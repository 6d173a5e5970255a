/* SPDX-License-Identifier: MIT */
/*
 * Xilinx XDMA (DMA/Bridge Subsystem for PCI Express, PG195): the register
 * map and memory formats fdma's XDMA engine code (engine/fdma_eng_xdma.c)
 * and the XDMA model (model/xdma_model.c) use. Facts from PG195 as recorded
 * in docs/xdma.md; no libc or kernel headers, like fdma_regs.h.
 *
 * The DMA BAR is 64 KiB: bits [15:12] of an offset pick a block, bits
 * [11:8] the channel within it. Registers are 32-bit, little-endian. Unlike
 * the FDMA engine's, XDMA registers have side effects: W1S/W1C aliases,
 * a status register that clears on read, a run bit whose rising edge
 * restarts the channel. They need trapped MMIO, never plain shared memory.
 */
#ifndef XDMA_REGS_H
#define XDMA_REGS_H

#define XDMA_BAR_BYTES		0x10000u
#define XDMA_MAX_CHAN		4u	/* per direction */

#define XDMA_BLK_H2C		0x0000u
#define XDMA_BLK_C2H		0x1000u
#define XDMA_BLK_IRQ		0x2000u
#define XDMA_BLK_CFG		0x3000u
#define XDMA_BLK_H2C_SGDMA	0x4000u
#define XDMA_BLK_C2H_SGDMA	0x5000u
#define XDMA_BLK_SGDMA_COMMON	0x6000u
#define XDMA_BLK_MSIX		0x8000u

/* The channel block and the SGDMA block of channel n of a direction. */
#define XDMA_CH(c2h, n)		(((c2h) ? XDMA_BLK_C2H : XDMA_BLK_H2C) + (u32)(n) * 0x100u)
#define XDMA_SG(c2h, n) \
	(((c2h) ? XDMA_BLK_C2H_SGDMA : XDMA_BLK_H2C_SGDMA) + (u32)(n) * 0x100u)

/*
 * Identifier, in every block: [31:20] subsystem 0x1fc, [19:16] target,
 * [15] stream, [11:8] channel, [7:0] version.
 */
#define XDMA_ID			0x00u
#define XDMA_ID_SUBSYS(v)	((v) >> 20)
#define XDMA_ID_SUBSYS_VAL	0x1fcu
#define XDMA_ID_TARGET(v)	(((v) >> 16) & 0xfu)
#define XDMA_ID_STREAM		(1u << 15)
#define XDMA_ID_CHAN(v)		(((v) >> 8) & 0xfu)
#define XDMA_ID_VERSION(v)	((v) & 0xffu)
#define XDMA_ID_MAKE(target, stream, ch, ver) \
	(XDMA_ID_SUBSYS_VAL << 20 | (u32)(target) << 16 | ((stream) ? XDMA_ID_STREAM : 0) | \
	 (u32)(ch) << 8 | (u32)(ver))
#define XDMA_TARGET_H2C		0u
#define XDMA_TARGET_C2H		1u
#define XDMA_TARGET_IRQ		2u
#define XDMA_TARGET_CFG		3u
#define XDMA_TARGET_SGC		6u	/* the SGDMA common block */

/* ---- channel block (H2C 0x0000, C2H 0x1000, + n * 0x100) ---------------- */
#define XDMA_CH_CTRL		0x04u	/* read/write */
#define XDMA_CH_CTRL_W1S	0x08u
#define XDMA_CH_CTRL_W1C	0x0cu
#define XDMA_CH_STATUS		0x40u	/* write 1s to clear */
#define XDMA_CH_STATUS_RC	0x44u	/* the same bits, cleared by the read */
#define XDMA_CH_COMPLETED	0x48u	/* descriptors completed since RUN rose */
/* Alignments: [23:16] address alignment, [15:8] length granularity, [7:0] address bits. */
#define XDMA_CH_ALIGN		0x4cu
#define XDMA_CH_WB_LO		0x88u	/* poll-mode write-back address */
#define XDMA_CH_WB_HI		0x8cu
#define XDMA_CH_IE		0x90u	/* interrupt enable mask (status bits that interrupt) */
#define XDMA_CH_IE_W1S		0x94u
#define XDMA_CH_IE_W1C		0x98u
/*
 * Performance monitor: clock cycles and data beats (one per datapath word
 * read) while armed and the channel's RUN is set; 42-bit counts, the high
 * words [9:0] with bit 16 set once the count hit its maximum.
 */
#define XDMA_CH_PMON_CTRL	0xc0u
#define XDMA_CH_PMON_CYC_LO	0xc4u
#define XDMA_CH_PMON_CYC_HI	0xc8u
#define XDMA_CH_PMON_DAT_LO	0xccu
#define XDMA_CH_PMON_DAT_HI	0xd0u
#define XDMA_PMON_AUTO		(1u << 0)	/* stop after a STOP descriptor; clear at RUN's rise */
#define XDMA_PMON_CLEAR		(1u << 1)	/* write-only: clear both counts */
#define XDMA_PMON_RUN		(1u << 2)	/* armed */
#define XDMA_PMON_HI_BITS	0x3ffu
#define XDMA_PMON_MAXED		(1u << 16)
#define XDMA_PMON_MAX		((1ull << 42) - 1)

#define XDMA_ALIGN_ADDR(v)	(((v) >> 16) & 0xffu)
#define XDMA_ALIGN_LEN(v)	(((v) >> 8) & 0xffu)
#define XDMA_ALIGN_BITS(v)	((v) & 0xffu)
/* AXI-ST C2H descriptors' lengths: multiples of this, at least (PG195). */
#define XDMA_C2H_ST_LEN		64u

/* Control: RUN, and the events (by status bit) that may raise the channel's interrupt. */
#define XDMA_CTRL_RUN		(1u << 0)
#define XDMA_CTRL_IE_STOPPED	(1u << 1)
#define XDMA_CTRL_IE_COMPLETED	(1u << 2)
#define XDMA_CTRL_IE_ALIGN	(1u << 3)
#define XDMA_CTRL_IE_MAGIC	(1u << 4)
#define XDMA_CTRL_IE_LEN	(1u << 5)
#define XDMA_CTRL_IE_IDLE	(1u << 6)
#define XDMA_CTRL_IE_READ_ERR	(0x1fu << 9)
#define XDMA_CTRL_IE_WRITE_ERR	(0x1fu << 14)	/* H2C's AXI writes */
#define XDMA_CTRL_IE_DESC_ERR	(0x1fu << 19)
#define XDMA_CTRL_NONINC	(1u << 25)	/* non-incrementing card address */
#define XDMA_CTRL_POLL_WB	(1u << 26)	/* write the completed count to the write-back address */
#define XDMA_CTRL_IE_ERRORS	(XDMA_CTRL_IE_ALIGN | XDMA_CTRL_IE_MAGIC | XDMA_CTRL_IE_LEN | \
				 XDMA_CTRL_IE_READ_ERR | XDMA_CTRL_IE_WRITE_ERR | XDMA_CTRL_IE_DESC_ERR)

/*
 * Status. An event bit is set only when its IE bit in the control register
 * is; all bits clear when RUN rises. BUSY is the engine working a chain.
 */
#define XDMA_ST_BUSY		(1u << 0)
#define XDMA_ST_STOPPED		(1u << 1)	/* reached a descriptor with STOP, or an error */
#define XDMA_ST_COMPLETED	(1u << 2)	/* completed a descriptor with COMPLETED */
#define XDMA_ST_ALIGN		(1u << 3)	/* source and destination misaligned to each other */
#define XDMA_ST_MAGIC		(1u << 4)	/* a descriptor without the magic: stopped */
#define XDMA_ST_LEN		(1u << 5)	/* a length the channel does not take (stream: data width) */
#define XDMA_ST_IDLE		(1u << 6)	/* idle after RUN fell */
/* Data read errors: H2C reads host memory ([9] UR, [10] CA, [11] parity, [12] EP), C2H card memory */
#define XDMA_ST_READ_ERR	(0x1fu << 9)
#define XDMA_ST_READ_UR		(1u << 9)	/* H2C: host address unreachable; C2H: AXI DECERR */
#define XDMA_ST_READ_CA		(1u << 10)	/* H2C: completer abort; C2H: AXI SLVERR */
#define XDMA_ST_READ_PARITY	(1u << 11)	/* H2C: poisoned data */
#define XDMA_ST_READ_EP		(1u << 12)
/* Read errors about the data, not where it was: a data error, not an address error. */
#define XDMA_ST_DATA_ERRS	(XDMA_ST_READ_CA | XDMA_ST_READ_PARITY | XDMA_ST_READ_EP)
#define XDMA_ST_WRITE_ERR	(0x1fu << 14)	/* H2C's AXI writes to card memory: [14] DECERR, [15] SLVERR */
#define XDMA_ST_WRITE_DEC	(1u << 14)
#define XDMA_ST_DESC_ERR	(0x1fu << 19)	/* descriptor fetch: [19] UR, [20] CA, [21] parity, [22] EP, [23] unexpected */
#define XDMA_ST_DESC_UR		(1u << 19)
#define XDMA_ST_ERRORS		(XDMA_ST_ALIGN | XDMA_ST_MAGIC | XDMA_ST_LEN | XDMA_ST_READ_ERR | \
				 XDMA_ST_WRITE_ERR | XDMA_ST_DESC_ERR)

/* ---- SGDMA block (H2C 0x4000, C2H 0x5000, + n * 0x100) ------------------ */
#define XDMA_SG_DESC_LO		0x80u	/* first descriptor's bus address */
#define XDMA_SG_DESC_HI		0x84u
#define XDMA_SG_DESC_ADJ	0x88u	/* extra descriptors adjacent to the first */
#define XDMA_SG_CREDITS		0x8cu	/* stream C2H credit mode: descriptors the engine may fetch */

/* ---- IRQ block (0x2000) -------------------------------------------------- */
/*
 * Bit i of the channel masks is the i-th channel that exists, H2C channels
 * first, then C2H (fdma numbers its channels the same way). Vector number
 * registers hold four 5-bit fields at [4:0], [12:8], [20:16], [28:24].
 */
#define XDMA_IRQ_USER_EN	0x04u
#define XDMA_IRQ_USER_EN_W1S	0x08u
#define XDMA_IRQ_USER_EN_W1C	0x0cu
#define XDMA_IRQ_CHAN_EN	0x10u
#define XDMA_IRQ_CHAN_EN_W1S	0x14u
#define XDMA_IRQ_CHAN_EN_W1C	0x18u
#define XDMA_IRQ_USER_REQ	0x40u	/* ro: user interrupts asserted */
#define XDMA_IRQ_CHAN_REQ	0x44u	/* ro: channel interrupts asserted */
#define XDMA_IRQ_USER_PEND	0x48u	/* ro: asserted and enabled */
#define XDMA_IRQ_CHAN_PEND	0x4cu
#define XDMA_IRQ_USER_VEC(i)	(0x80u + (u32)(i) / 4 * 4)	/* 16 user interrupts */
#define XDMA_IRQ_CHAN_VEC(i)	(0xa0u + (u32)(i) / 4 * 4)	/* 8 channels */
#define XDMA_IRQ_VEC_SHIFT(i)	(((u32)(i) % 4) * 8)
#define XDMA_USER_IRQS		16u

/* ---- config block (0x3000) ---------------------------------------------- */
#define XDMA_CFG_MPS		0x08u	/* log2(MPS) - 7 */
#define XDMA_CFG_MRRS		0x0cu	/* log2(MRRS) - 7 */
#define XDMA_CFG_SYSTEM_ID	0x10u	/* 0xff01 */
#define XDMA_CFG_MSI_EN		0x14u	/* [0] MSI, [1] MSI-X enabled in config space */
#define XDMA_CFG_DATA_WIDTH	0x18u	/* 0: 64, 1: 128, 2: 256, 3: 512 bits */
#define XDMA_CFG_PCIE_CTRL	0x1cu	/* [0] relaxed ordering on read requests (reset 1) */
/* AXI user payload / read request: [6:4] effective (ro), [2:0] programmed (rw), log2 - 7. */
#define XDMA_CFG_USER_MPS	0x40u
#define XDMA_CFG_USER_MRRS	0x44u
#define XDMA_CFG_WR_FLUSH	0x60u	/* [4:0] AXI-ST C2H write flush timeout, 2^N clocks (0: off) */

/* ---- MSI-X (0x8000): 32 vectors, 16 DMA and 16 user ---------------------- */
#define XDMA_MSIX_VECTORS	32u
#define XDMA_MSIX_TABLE		0x000u	/* 16 bytes a vector: address lo, hi, data, control */
#define XDMA_MSIX_PBA		0xfe0u	/* pending bits, one per vector */
#define XDMA_MSIX_CTRL_MASK	(1u << 0)

/* ---- SGDMA common (0x6000) ---------------------------------------------- */
#define XDMA_SGC_DESC_CTRL	0x10u	/* descriptor engine control; W1S 0x14, W1C 0x18 */
#define XDMA_SGC_DESC_CTRL_W1S	0x14u
#define XDMA_SGC_DESC_CTRL_W1C	0x18u
#define XDMA_SGC_CREDIT_EN	0x20u	/* [19:16] C2H channels, [3:0] H2C: credit mode on */
#define XDMA_SGC_CREDIT_EN_W1S	0x24u
#define XDMA_SGC_CREDIT_EN_W1C	0x28u

/* ---- descriptor: 32 bytes, 32-byte aligned ------------------------------- */
struct xdma_desc {
	u32 ctrl;	/* XDMA_DESC_MAGIC << 16 | nxt_adj << 8 | flags */
	u32 len;	/* bytes, [27:0] */
	u32 src_lo, src_hi;
	u32 dst_lo, dst_hi;
	u32 next_lo, next_hi;
};

#define XDMA_DESC_MAGIC		0xad4bu
#define XDMA_DESC_MAGIC_OF(c)	((c) >> 16)
#define XDMA_DESC_ADJ(n)	((u32)(n) << 8)	/* descriptors after "next" that follow it in memory */
#define XDMA_DESC_ADJ_OF(c)	(((c) >> 8) & 0x3fu)
#define XDMA_DESC_ADJ_MAX	63u
#define XDMA_DESC_STOP		(1u << 0)	/* the chain ends here */
#define XDMA_DESC_COMPLETED	(1u << 1)	/* set STATUS.COMPLETED when done (an interrupt) */
#define XDMA_DESC_EOP		(1u << 4)	/* H2C stream: last piece of a packet */
#define XDMA_DESC_LEN_MAX	((1u << 28) - 1)

/*
 * Stream C2H: the engine writes a result record for each descriptor at the
 * descriptor's source address (32 bytes; fdma keeps them beside the ring).
 */
struct xdma_result {
	u32 status;	/* XDMA_RES_MAGIC << 16 | flags */
	u32 len;	/* bytes written to the buffer */
	u32 rsvd[6];
};

#define XDMA_RES_MAGIC		0x52b4u
#define XDMA_RES_EOP		(1u << 0)

/* Poll-mode write-back: the completed count, bit 31 an error. */
#define XDMA_WB_COUNT(v)	((v) & 0x00ffffffu)
#define XDMA_WB_ERR		(1u << 31)

/*
 * ---- fdma's stream test block, behind the user BAR ----------------------
 * XDMA has no test generator: this block is what an FPGA design (and the
 * XDMA model) puts on the AXI-Lite user BAR to source and check test
 * frames on the stream channels (frame format: struct fdma_frame_hdr).
 * The engine code finds it by its magic; without it stream channels work,
 * only without TESTGEN. Block k (XDMA_TG_CH(c2h, n)) serves stream channel
 * n of a direction: the generator for C2H, the checker for H2C.
 */
#define XDMA_TG_MAGIC		0x00u	/* XDMA_TG_MAGIC_VAL */
#define XDMA_TG_MAGIC_VAL	0x47544446u	/* "FDTG" */
#define XDMA_TG_USER_IRQ	0x04u	/* write bit k: the design raises user interrupt k (tests) */
#define XDMA_TG_SCRATCH		0x08u	/* read/write, nothing else: for register tools */
#define XDMA_TG_CH(c2h, n)	(0x100u + ((c2h) ? 0x400u : 0u) + (u32)(n) * 0x100u)
#define XDMA_TG_FRAME_LEN	0x00u
#define XDMA_TG_PERIOD_NS	0x04u
#define XDMA_TG_CTRL		0x08u	/* bit 0 enable, bit 1 drop frames when no buffer (else hold) */
#define XDMA_TG_FRAMES		0x0cu	/* frames generated or checked */
#define XDMA_TG_ERRORS		0x10u	/* frames that failed the checker */
#define XDMA_TG_OVERRUNS	0x14u	/* frames dropped, free-running */
#define XDMA_TG_CTRL_EN		(1u << 0)
#define XDMA_TG_CTRL_DROP	(1u << 1)
#define XDMA_TG_CTRL_RESTART	(1u << 2)	/* strobe: frame numbers, schedule and counts from 0 */

#endif /* XDMA_REGS_H */
