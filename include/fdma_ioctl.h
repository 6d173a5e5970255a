/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * fdma.ko user interface: /dev/fdmaN ioctls and mmap layout. libfdma's
 * kdev: backend is written against this header; so can anyone else.
 *
 * Model: everything a process uses is owned by its open file. Buffers are
 * named by handles private to that file (another file's handle is -EBADF);
 * user space never passes a physical or bus address, only (handle, offset,
 * length), and every range is checked against the buffer. Each (file,
 * channel) pair has a completion queue in memory shared with user space:
 * the kernel produces entries at tail, user space consumes at head, so
 * reaping needs no system call when completions are already there.
 *
 * All ioctls return 0 or -1 with errno; sizes and counts are checked, and
 * a structure with non-zero reserved fields is -EINVAL (room to grow).
 *
 * Growth: a structure only ever grows at its end, and the ioctl number
 * carries the size the caller was built with (_IOC_SIZE). The driver
 * accepts any size from the structure's first version up: input bytes
 * beyond what it knows must be zero (else -E2BIG), and output is written
 * up to the caller's size only. New fields are announced by
 * FDMA_IOC_INFO's uapi_version and features; an older driver leaves them
 * 0. So a program built against this header works with older and newer
 * drivers alike, and checks features before it relies on one.
 * errno: ENOTTY unknown ioctl; EFAULT bad pointer; EINVAL bad field
 * (channel, flags, reserved, zero or misaligned length, offset or card
 * address, count); EBADF not one of this file's handles; ERANGE beyond the
 * buffer or card memory; E2BIG more descriptors than the ring holds;
 * EAGAIN no room now (queue or ring); EBUSY buffer in flight, or the
 * channel is held by another client (a network interface, a dmaengine
 * consumer): requests, CHAN_RESET, COALESCE, DROP and TESTGEN on it;
 * EOPNOTSUPP the channel or engine cannot; EIO broken channel; ENODEV
 * device removed.
 */
#ifndef FDMA_IOCTL_H
#define FDMA_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/*
 * 2: FDMA_IOC_CQ_EVENTFD, FDMA_IOC_TESTGEN_QUERY.
 * 3: INFO features and dma_align; STATS lost_irqs, timeouts, canceled,
 *    wd_reaps;
 *    size-checked ioctls (see "Growth" above); the capability and status
 *    values below. Version 2 programs run unchanged.
 * 4: FDMA_IOC_REG (feature FDMA_FEAT_REG).
 * 5: memory-to-memory channels (FDMA_IOC_CAP_MEM2MEM) and FDMA_IOC_COPY
 *    (feature FDMA_FEAT_MEMCPY).
 * 6: INFO engine and coal (feature FDMA_FEAT_ENGINE): which engine, and
 *    how it coalesces interrupts.
 * 7: INFO user_irqs and FDMA_IOC_USER_IRQ (feature FDMA_FEAT_USER_IRQ): the
 *    FPGA's own interrupts as eventfds.
 * 8: FDMA_IOC_BUF_IMPORT (feature FDMA_FEAT_DMABUF): a dma-buf as a buffer;
 *    FDMA_IOC_BUF_NVP2P (feature FDMA_FEAT_NVP2P, where the driver was built
 *    with NVIDIA's nv-p2p.h): GPU memory pinned through NVIDIA's P2P API.
 * 9: FDMA_IOC_REG_8 and FDMA_IOC_REG_16 (feature FDMA_FEAT_REG_WIDTH): 8- and
 *    16-bit register accesses; a driver before 9 refuses the flags (EINVAL).
 * 10: FDMA_IOC_BUF_EXPORT (feature FDMA_FEAT_EXPORT): an allocated buffer as
 *    a dma-buf fd, for any importer.
 * 11: FDMA_URING_CMD_SUBMIT (feature FDMA_FEAT_URING_CMD, and
 *    FDMA_FEAT_URING_STREAM): requests through io_uring, completed as CQEs.
 */
#define FDMA_UAPI_VERSION	11
#define FDMA_IOC_MAGIC		'F'
#define FDMA_IOC_MAX_CHAN	16
#define FDMA_IOC_MAX_BATCH	1024	/* requests per FDMA_IOC_SUBMIT */

/* FDMA_IOC_INFO: what the device is. */
struct fdma_ioc_info {
	__u32 uapi_version;	/* FDMA_UAPI_VERSION */
	__u32 engine_version;	/* major << 16 | minor */
	__u32 nchan;
	__u32 align;		/* bytes: offsets, card addresses, lengths */
	__u32 max_desc_len;
	__u32 ring_size;	/* descriptors per channel */
	__u32 cq_entries;	/* completion queue entries per (file, channel) */
	__u32 link_gen;		/* negotiated, from the PCIe capability; 0 unknown */
	__u32 link_width;
	__u32 mps;
	__u32 mrrs;
	__u32 irq_mode;		/* FDMA_IRQ_MODE_* granted */
	__u64 card_size;
	__u32 chan_caps[FDMA_IOC_MAX_CHAN];	/* FDMA_IOC_CAP_* */
	__u32 features;		/* FDMA_FEAT_* (uapi_version >= 3; 0 before) */
	/*
	 * The alignment of buffer offsets and lengths in requests, and of
	 * registered memory: the engine's align, or more where the
	 * architecture's DMA cache line is longer (non-coherent DMA: a sync
	 * must not touch bytes outside the request). 0 before version 3: use
	 * align.
	 */
	__u32 dma_align;
	__u32 engine;		/* FDMA_IOC_ENGINE_* (feature FDMA_FEAT_ENGINE) */
	__u32 coal;		/* FDMA_IOC_COAL_* (feature FDMA_FEAT_ENGINE) */
	__u32 user_irqs;	/* FDMA_IOC_USER_IRQ's irq is below (feature FDMA_FEAT_USER_IRQ) */
	/*
	 * C2H stream buffers' lengths: multiples of this, where it is coarser
	 * than dma_align (XDMA's AXI-Stream C2H: 64); 0 no such rule
	 * (feature FDMA_FEAT_C2H_STREAM_LEN).
	 */
	__u32 c2h_stream_len;
	__u32 rsvd[2];
};

#define FDMA_IOC_ENGINE_NONE	0	/* Linux dmaengine channels (fdma_dmac.ko) */
#define FDMA_IOC_ENGINE_FDMA	1
#define FDMA_IOC_ENGINE_XDMA	2	/* Xilinx XDMA (PG195) */

#define FDMA_IOC_COAL_COUNT	0x1	/* one interrupt per N completions */
#define FDMA_IOC_COAL_TIMER	0x2	/* ... or N us after the first */
#define FDMA_IOC_COAL_EMULATED	0x4	/* by descriptor flags, not by the engine */

#define FDMA_IRQ_MODE_MSIX	1
#define FDMA_IRQ_MODE_MSI	2
#define FDMA_IRQ_MODE_INTX	3
#define FDMA_IRQ_MODE_POLL	4	/* no interrupts: the driver polls (irq_mode=poll) */

/* chan_caps: the channel's direction and kind (engine CH_CAPS). */
#define FDMA_IOC_CAP_C2H	0x1	/* card to host; else host to card */
#define FDMA_IOC_CAP_STREAM	0x2	/* a stream (frames); else card memory */
#define FDMA_IOC_CAP_TESTGEN	0x4	/* a test generator (C2H) or checker (H2C) */
/*
 * Memory to memory (uapi_version >= 5): the device copies between two of
 * the file's buffers, queued with FDMA_IOC_COPY (FDMA_IOC_SUBMIT is
 * -EOPNOTSUPP there, and FDMA_IOC_COPY on any other channel). C2H, STREAM
 * and TESTGEN are 0 on such a channel.
 */
#define FDMA_IOC_CAP_MEM2MEM	0x8

/* features */
#define FDMA_FEAT_DMA_ALIGN	0x1	/* dma_align is set */
/*
 * A watchdog reaps completions no interrupt announced (poll, the eventfd,
 * SIGIO and FDMA_IOC_WAIT never depend on the interrupt alone), and
 * resets a memory-mapped channel that made no progress for the driver's
 * timeout: its requests come back with res -ETIMEDOUT.
 */
#define FDMA_FEAT_WATCHDOG	0x2
/*
 * When the device goes away (unbind, hot unplug) the driver takes its
 * buffers back at once: mappings of allocated buffers fault (SIGBUS),
 * registered memory is unpinned, and every ioctl but BUF_FREE and STATS
 * fails with ENODEV.
 */
#define FDMA_FEAT_REVOKE	0x4
/* FDMA_IOC_REG: the device's registers, one 32-bit word at a time. */
#define FDMA_FEAT_REG		0x8
/* FDMA_IOC_COPY on memory-to-memory channels (at least one exists). */
#define FDMA_FEAT_MEMCPY	0x10
/* INFO engine and coal are set. */
#define FDMA_FEAT_ENGINE	0x20
/* FDMA_IOC_USER_IRQ, and INFO user_irqs (0: the device forwards none). */
#define FDMA_FEAT_USER_IRQ	0x40
/*
 * C2H stream channels flag the first frame after drops (FDMA_CPL_F_OVERRUN):
 * the engine can tell (FDMA can, XDMA cannot). Meaningful with
 * FDMA_FEAT_ENGINE.
 */
#define FDMA_FEAT_OVERRUN_FLAG	0x80

/*
 * FDMA_IOC_BUF_IMPORT: a range of a dma-buf (GPU memory, udmabuf, a dma-heap,
 * any exporter) as a buffer, attached, pinned where the exporter can and
 * mapped for the device once. EIO on a request: the exporter moved the
 * buffer (docs/dmabuf.md): free the handle and import the fd again.
 */
#define FDMA_FEAT_DMABUF	0x100
/*
 * FDMA_IOC_BUF_NVP2P: GPU memory pinned once through NVIDIA's P2P API
 * (a discrete GPU's cudaMalloc memory, or Jetson's cudaHostAlloc memory).
 * When the application frees that memory, requests on the buffer end
 * with EIO as for a moved dma-buf; free the handle.
 */
#define FDMA_FEAT_NVP2P		0x200
/* FDMA_IOC_REG takes FDMA_IOC_REG_8 and FDMA_IOC_REG_16 (8- and 16-bit accesses). */
#define FDMA_FEAT_REG_WIDTH	0x400
/* c2h_stream_len is set. */
#define FDMA_FEAT_C2H_STREAM_LEN	0x800
/* FDMA_IOC_BUF_EXPORT (version 10) */
#define FDMA_FEAT_EXPORT	0x1000
/* FDMA_URING_CMD_SUBMIT on memory-mapped channels (version 11; not memory-to-memory ones) */
#define FDMA_FEAT_URING_CMD	0x2000
/*
 * FDMA_URING_CMD_SUBMIT on stream channels too: the kernel lets the driver
 * cancel a command when its ring or task goes away (Linux 6.7 and later).
 * Without it a stream request, which waits for a frame as long as it takes,
 * could outlive its process forever, holding the ring, the file and its
 * buffers, so it is refused (EOPNOTSUPP).
 */
#define FDMA_FEAT_URING_STREAM	0x4000

/*
 * FDMA_IOC_BUF_ALLOC: driver-allocated DMA memory, then mmap(mmap_offset)
 * with MAP_SHARED, at most size bytes from that offset (handle << 32).
 */
struct fdma_ioc_buf_alloc {
	__u64 size;		/* in: bytes, rounded up to pages */
	__u32 flags;		/* in: 0 */
	__u32 handle;		/* out */
	__u64 mmap_offset;	/* out: the offset to give mmap() */
	__u64 rsvd[2];
};

/* FDMA_IOC_BUF_REGISTER: pin user memory once, map it for the device. */
struct fdma_ioc_buf_reg {
	__u64 addr;		/* in: multiple of the alignment */
	__u64 size;		/* in: multiple of the alignment */
	__u32 flags;		/* in: 0 */
	__u32 handle;		/* out */
	__u64 rsvd[2];
};

/*
 * FDMA_IOC_BUF_IMPORT: [offset, offset + size) of the dma-buf fd, both
 * multiples of INFO dma_align. The buffer keeps its own reference: the fd
 * may be closed at once. EBADF fd is not open; EINVAL not a dma-buf, or a
 * bad field, or its mapping for this device is not aligned as the engine
 * needs; ERANGE beyond the dma-buf; ETIMEDOUT its fences did not signal in
 * 10 s; other errors are the exporter's (it cannot attach, pin or map it
 * for this device).
 */
struct fdma_ioc_buf_import {
	__s32 fd;		/* in: the dma-buf */
	__u32 flags;		/* in: 0 */
	__u64 offset;		/* in: in the dma-buf */
	__u64 size;		/* in: bytes */
	__u32 handle;		/* out */
	__u32 rsvd0;
	__u64 rsvd[2];
};

/*
 * FDMA_IOC_BUF_NVP2P: [va, va + size) of GPU memory, both multiples of
 * NVIDIA's page (64 KiB on a discrete GPU, 4 KiB on Jetson). EOPNOTSUPP
 * the driver was built without NVIDIA's nv-p2p.h; ENODEV NVIDIA's module
 * is not loaded; other errors are NVIDIA's (not GPU memory, not pinnable).
 */
struct fdma_ioc_buf_nvp2p {
	__u64 va;		/* in: the GPU (CUDA) address */
	__u64 size;		/* in: bytes */
	__u32 flags;		/* in: 0 */
	__u32 handle;		/* out */
	__u64 rsvd[2];
};

/*
 * FDMA_IOC_BUF_EXPORT: the memory of buffer handle (one FDMA_IOC_BUF_ALLOC
 * made) as a new dma-buf, its fd returned. flags: O_RDWR or O_RDONLY (the
 * dma-buf file's mode: PROT_WRITE mappings need O_RDWR), and O_CLOEXEC.
 * The dma-buf holds the pages itself: it stays whole after BUF_FREE, after
 * the fdma file is closed and after the device is removed, until its last
 * user (fd, mapping, importer) goes. Importers map it for their own
 * device; DMA_BUF_IOCTL_SYNC syncs their mappings for the CPU's accesses
 * through the dma-buf's own mmap (shared mappings only). EBADF no such
 * handle; EINVAL registered or imported memory (not the driver's to
 * give), an unknown flag or a reserved field set; ENODEV the device was
 * removed; EMFILE no fd free.
 */
struct fdma_ioc_buf_export {
	__u32 handle;		/* in */
	__u32 flags;		/* in: O_RDWR or O_RDONLY, | O_CLOEXEC */
	__s32 fd;		/* out: the dma-buf */
	__u32 rsvd0;
	__u64 rsvd[2];
};

/*
 * FDMA_IOC_BUF_FREE and FDMA_IOC_CHAN_RESET take a pointer to a __u32 (the
 * handle, the channel). BUF_FREE is -EBUSY while transfers use the buffer;
 * a mapping keeps the memory until munmap().
 */

/* One request of FDMA_IOC_SUBMIT (same meaning as struct fdma_req of fdma.h). */
struct fdma_ioc_req {
	__u32 handle;
	__u32 flags;		/* FDMA_IOC_REQ_* */
	__u64 offset;		/* in the buffer */
	__u64 card_addr;	/* memory-mapped channels */
	__u64 len;
	__u64 user_data;	/* returned in the completion entry */
};

#define FDMA_IOC_REQ_IRQ	0x1
#define FDMA_IOC_REQ_SOF	0x2
#define FDMA_IOC_REQ_EOF	0x4

/*
 * FDMA_IOC_SUBMIT: queue count requests on chan, one doorbell; all or
 * nothing. A request on registered memory is split where the memory is
 * not contiguous (one completion still): -E2BIG if the batch needs more
 * descriptors than the ring holds (FDMA_IOC_INFO ring_size), -EAGAIN if
 * not that many are free now. A C2H stream request cannot be split (a
 * frame starts in its one descriptor): -EMSGSIZE where its range is not
 * one piece of device-contiguous memory.
 */
struct fdma_ioc_submit {
	__u32 chan;
	__u32 count;		/* 1..FDMA_IOC_MAX_BATCH */
	__u64 reqs;		/* user pointer to count struct fdma_ioc_req */
	__u32 rsvd[4];
};

/*
 * One copy of FDMA_IOC_COPY: len bytes from buffer src_handle at src_offset
 * to buffer dst_handle at dst_offset (same meaning as struct fdma_copy of
 * fdma.h). Both ranges are checked against their buffers and aligned to
 * dma_align; in one buffer they must not overlap (-EINVAL): the device
 * copies front to back.
 */
struct fdma_ioc_copy {
	__u32 src_handle;
	__u32 dst_handle;
	__u64 src_offset;
	__u64 dst_offset;
	__u64 len;
	__u64 user_data;	/* returned in the completion entry */
	__u32 flags;		/* FDMA_IOC_REQ_IRQ */
	__u32 rsvd;		/* 0 */
};

/*
 * FDMA_IOC_COPY: queue count copies on memory-to-memory channel chan, one
 * doorbell; all or nothing, with the errors of FDMA_IOC_SUBMIT. One
 * completion entry per copy, its len the bytes copied. Each buffer counts
 * as in flight (BUF_FREE -EBUSY) until the copy's entry is queued.
 */
struct fdma_ioc_copy_submit {
	__u32 chan;
	__u32 count;		/* 1..FDMA_IOC_MAX_BATCH */
	__u64 copies;		/* user pointer to count struct fdma_ioc_copy */
	__u32 rsvd[4];
};

/*
 * Completion queue of (file, chan): mmap FDMA_CQ_MMAP_OFFSET(chan), size
 * FDMA_CQ_MMAP_BYTES(cq_entries). The header is at offset 0, entries at
 * FDMA_CQ_ENTRIES_OFFSET. Entry i lives at (i & mask).
 *   tail: written by the kernel (store-release) after the entries below it;
 *         read it with load-acquire.
 *   head: written by user space (store-release) once it has consumed the
 *         entries below it.
 * Submission refuses (-EAGAIN) requests that could overflow the queue, so
 * it never does.
 */
struct fdma_cq_hdr {
	__u32 head;
	__u32 tail;
	__u32 mask;		/* entries - 1 */
	__u32 rsvd[13];
};

struct fdma_cq_entry {
	__u64 user_data;
	__u64 len;		/* bytes moved */
	__s32 res;		/* 0 or a negative errno */
	__u16 status;		/* device completion status, FDMA_IOC_ST_* */
	__u16 flags;		/* FDMA_IOC_CPL_* */
};

/*
 * status: the engine's completion status (docs/engine.md, section 6), or
 * FDMA_IOC_ST_CANCELED for a request handed back by a channel reset (res
 * -ECANCELED, or -ETIMEDOUT when the reset was the watchdog's).
 */
#define FDMA_IOC_ST_OK		0
#define FDMA_IOC_ST_DESC_ERR	1	/* descriptor fetch failed (res -EIO) */
#define FDMA_IOC_ST_ADDR_ERR	2	/* host address unreachable (-EFAULT) */
#define FDMA_IOC_ST_DATA_ERR	3	/* data poisoned in flight (-EIO) */
#define FDMA_IOC_ST_ALIGN_ERR	4	/* misaligned (-EINVAL) */
#define FDMA_IOC_ST_RANGE_ERR	5	/* card address out of range (-ERANGE) */
#define FDMA_IOC_ST_LEN_ERR	6	/* bad length (-EINVAL) */
#define FDMA_IOC_ST_TRUNC	7	/* stream frame longer than the buffer (-EMSGSIZE) */
#define FDMA_IOC_ST_CANCELED	0xffff

#define FDMA_IOC_CPL_SOF	0x1
#define FDMA_IOC_CPL_EOF	0x2
#define FDMA_IOC_CPL_OVERRUN	0x4

#define FDMA_CQ_ENTRIES_OFFSET	64
#define FDMA_CQ_MMAP_OFFSET(chan)	((__u64)(chan) << 24)
#define FDMA_CQ_MMAP_BYTES(n)	\
	(FDMA_CQ_ENTRIES_OFFSET + (__u64)(n) * sizeof(struct fdma_cq_entry))

/*
 * FDMA_IOC_WAIT: move finished work into the queue now (no interrupt
 * needed, for polling users) and, if fewer than min_entries are queued,
 * sleep until there are, or timeout_us passes (-ETIMEDOUT), or a signal
 * (-EINTR). min_entries 0: never sleeps. -EAGAIN if fewer than min_entries
 * are queued and in flight together (it could never return). Its result:
 * entries queued, in ready (also written with -ETIMEDOUT and -EAGAIN).
 */
struct fdma_ioc_wait {
	__u32 chan;
	__u32 min_entries;
	__s64 timeout_us;	/* < 0: no limit */
	__u32 ready;		/* out */
	__u32 rsvd[3];
};

/* FDMA_IOC_COALESCE: interrupt after count completions or usecs. */
struct fdma_ioc_coalesce {
	__u32 chan;
	__u32 count;
	__u32 usecs;
	__u32 rsvd;
};

/*
 * FDMA_IOC_TESTGEN: the stream test generator / checker of a channel
 * (-EOPNOTSUPP without one); frames and errors are read after the settings.
 * enable FDMA_IOC_TESTGEN_QUERY changes nothing (frame_len and period_ns
 * must be 0): it only reads the counts, which another user of the channel
 * may be driving.
 */
struct fdma_ioc_testgen {
	__u32 chan;
	__u32 frame_len;
	__u32 period_ns;
	__u32 enable;		/* 0 off, 1 on, FDMA_IOC_TESTGEN_QUERY */
	__u64 frames;		/* out: frames generated or checked */
	__u64 errors;		/* out: frames that failed the checker */
};

#define FDMA_IOC_TESTGEN_QUERY	2

/* FDMA_IOC_STATS: a channel's counters, the driver's own. */
struct fdma_ioc_stats {
	__u32 chan;
	__u32 rsvd;
	__u64 transfers;	/* requests submitted */
	__u64 completions;
	__u64 bytes;
	__u64 descriptors;
	__u64 doorbells;
	__u64 interrupts;
	__u64 errors;
	__u64 resets;
	__u64 drops;
	__u64 syscalls;		/* submit + wait ioctls on this channel */
	/* uapi_version >= 3 (0 before) */
	__u64 lost_irqs;	/* completions found by the watchdog: their interrupt never came */
	__u64 timeouts;		/* resets by the watchdog: no progress for the timeout */
	__u64 canceled;		/* requests handed back by resets */
	__u64 wd_reaps;		/* reaps the watchdog did (lost or late interrupts) */
};

/* FDMA_IOC_DROP: C2H stream channel drops frames when no buffer is armed (1). */
struct fdma_ioc_drop {
	__u32 chan;
	__u32 drop;
};

/*
 * FDMA_IOC_CQ_EVENTFD: signal eventfd fd whenever entries are published to
 * the (file, chan) completion queue, or stop (fd -1). poll() on the device
 * file covers all of the file's queues; this gives one fd per channel.
 */
struct fdma_ioc_cq_eventfd {
	__u32 chan;
	__s32 fd;
	__u32 rsvd[2];
};

/*
 * FDMA_IOC_REG: read (or with FDMA_IOC_REG_WRITE write) the 32-bit register
 * at offset in memory BAR bar, for the FPGA's own registers beside the
 * engine; with FDMA_IOC_REG_16 (version 9) 16 bits at a multiple of 2,
 * with FDMA_IOC_REG_8 one byte, in the low bits of value (a read's
 * zero-extended, a write's must fit). The registers the driver drives (the
 * engine's register file, the MSI-X table and pending bits; in the VM
 * harness also the ivshmem registers), any byte of them, can be read, but
 * written only with FDMA_IOC_REG_FORCE by a caller with CAP_SYS_RAWIO:
 * they can point the device's DMA anywhere. Any other write needs
 * CAP_SYS_RAWIO too: the FPGA's own registers may start a bus master of
 * its own. bar_len is written back, also with -ERANGE.
 * errno: EINVAL bar over 5, offset not a multiple of the width, both
 * widths, a value wider than the access, unknown flags or reserved bits;
 * ENXIO not a memory BAR; ERANGE offset beyond the BAR; EPERM a write
 * without CAP_SYS_RAWIO, or an engine register written without FORCE.
 */
struct fdma_ioc_reg {
	__u32 bar;
	__u32 flags;		/* FDMA_IOC_REG_* */
	__u64 offset;		/* bytes from the BAR's start, a multiple of the width */
	__u32 value;		/* in for a write, out for a read */
	__u32 rsvd;
	__u64 bar_len;		/* out: the BAR's size in bytes */
};

/*
 * FDMA_IOC_USER_IRQ: signal eventfd fd whenever the device raises the
 * FPGA's own interrupt irq (below INFO user_irqs), or stop (fd -1). Per
 * open file; several files may each listen. errno: EINVAL irq out of
 * range or reserved bits; EOPNOTSUPP the driver got no interrupt vector
 * for it (MSI-X with fewer vectors, MSI, INTx, irq_mode=poll).
 */
struct fdma_ioc_user_irq {
	__u32 irq;
	__s32 fd;
	__u32 rsvd[2];
};

#define FDMA_IOC_REG_WRITE	0x1
#define FDMA_IOC_REG_FORCE	0x2
#define FDMA_IOC_REG_8		0x4	/* version 9: one byte */
#define FDMA_IOC_REG_16		0x8	/* version 9: 16 bits */

#define FDMA_IOC_INFO		_IOR(FDMA_IOC_MAGIC, 0x00, struct fdma_ioc_info)
#define FDMA_IOC_BUF_ALLOC	_IOWR(FDMA_IOC_MAGIC, 0x01, struct fdma_ioc_buf_alloc)
#define FDMA_IOC_BUF_REGISTER	_IOWR(FDMA_IOC_MAGIC, 0x02, struct fdma_ioc_buf_reg)
#define FDMA_IOC_BUF_FREE	_IOW(FDMA_IOC_MAGIC, 0x03, __u32)
#define FDMA_IOC_SUBMIT		_IOW(FDMA_IOC_MAGIC, 0x04, struct fdma_ioc_submit)
#define FDMA_IOC_WAIT		_IOWR(FDMA_IOC_MAGIC, 0x05, struct fdma_ioc_wait)
#define FDMA_IOC_COALESCE	_IOW(FDMA_IOC_MAGIC, 0x06, struct fdma_ioc_coalesce)
#define FDMA_IOC_CHAN_RESET	_IOW(FDMA_IOC_MAGIC, 0x07, __u32)
#define FDMA_IOC_TESTGEN	_IOWR(FDMA_IOC_MAGIC, 0x08, struct fdma_ioc_testgen)
#define FDMA_IOC_STATS		_IOWR(FDMA_IOC_MAGIC, 0x09, struct fdma_ioc_stats)
#define FDMA_IOC_DROP		_IOW(FDMA_IOC_MAGIC, 0x0a, struct fdma_ioc_drop)
#define FDMA_IOC_CQ_EVENTFD	_IOW(FDMA_IOC_MAGIC, 0x0b, struct fdma_ioc_cq_eventfd)
#define FDMA_IOC_REG		_IOWR(FDMA_IOC_MAGIC, 0x0c, struct fdma_ioc_reg)
#define FDMA_IOC_COPY		_IOW(FDMA_IOC_MAGIC, 0x0d, struct fdma_ioc_copy_submit)
#define FDMA_IOC_USER_IRQ	_IOW(FDMA_IOC_MAGIC, 0x0e, struct fdma_ioc_user_irq)
#define FDMA_IOC_BUF_IMPORT	_IOWR(FDMA_IOC_MAGIC, 0x0f, struct fdma_ioc_buf_import)
#define FDMA_IOC_BUF_NVP2P	_IOWR(FDMA_IOC_MAGIC, 0x10, struct fdma_ioc_buf_nvp2p)
#define FDMA_IOC_BUF_EXPORT	_IOWR(FDMA_IOC_MAGIC, 0x11, struct fdma_ioc_buf_export)

/*
 * FDMA_URING_CMD_SUBMIT: IORING_OP_URING_CMD on the device's file, with
 * sqe->cmd_op = FDMA_URING_CMD_SUBMIT and this structure in the SQE's
 * command area (16 bytes: any ring, no IORING_SETUP_SQE128 needed). It
 * queues count requests on chan as FDMA_IOC_SUBMIT does (the same checks,
 * one doorbell, all or nothing) and completes once, when all of them have:
 * the CQE's res is the bytes they moved together, or the first error one
 * of them ended with, a negative errno. The CQE's user_data is the SQE's;
 * the requests' own user_data and their completion flags (SOF, EOF,
 * OVERRUN) are not returned (the channel's statistics count drops), and
 * nothing goes into the file's completion queue. So a transfer and what
 * follows it, e.g. the write of its buffer to a file, can be linked
 * (IOSQE_IO_LINK) in one ring. Not on memory-to-memory channels.
 *
 * The requests are read from reqs, and their buffers looked up, when the
 * command is issued, which for a linked command is when the one before it
 * completes: keep the requests and the buffers until the CQE. A command
 * that is not the first of its link needs IOSQE_ASYNC on 6.7 and later
 * kernels up to at least 6.12, where io_uring reads such a command's 16
 * bytes from the submission queue when it issues it, not when it is
 * submitted (user space may have reused the slot by then); IOSQE_ASYNC
 * has io_uring copy the SQE at submission. The file must be open for
 * writing (EBADF).
 *
 * Errors, in the CQE, besides FDMA_IOC_SUBMIT's (EAGAIN is final here: the
 * command is not retried): ENOTTY unknown cmd_op; EINVAL reserved fields,
 * or requests of more than INT_MAX bytes together; EOPNOTSUPP a stream
 * channel where the kernel cannot cancel commands (no
 * FDMA_FEAT_URING_STREAM), a memory-to-memory channel, or a ring set up
 * with IORING_SETUP_IOPOLL; and those the requests end with (as in
 * completion entries: ECANCELED, ETIMEDOUT, EIO...). When the ring or its
 * task goes away with the requests in flight, the channel is reset as for
 * a file closed with transfers in flight; IORING_OP_ASYNC_CANCEL does not
 * reach a command.
 */
struct fdma_uring_submit {
	__u64 reqs;		/* user pointer to count struct fdma_ioc_req */
	__u16 chan;
	__u16 count;		/* 1..FDMA_IOC_MAX_BATCH */
	__u32 rsvd;
};

#define FDMA_URING_CMD_SUBMIT	_IOW(FDMA_IOC_MAGIC, 0x40, struct fdma_uring_submit)

#endif /* FDMA_IOCTL_H */
