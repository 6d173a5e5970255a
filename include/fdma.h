/* SPDX-License-Identifier: MIT */
/*
 * libfdma: zero-copy DMA between an FPGA and Linux user space.
 *
 * Conventions (as in liburing): every call is prefixed fdma_, returns 0 or a
 * count on success and a negative errno on failure, and leaves a message
 * naming what was wrong in fdma_errmsg(dev). Nothing aborts the process.
 * -EAGAIN always means "not now: reap completions and retry"; a request
 * that can never succeed as asked gets another error (-E2BIG for a batch
 * larger than the channel can ever hold).
 *
 * Each call's comment lists the errors it returns, but for two common ones:
 * a call taking a device returns -EBADF when dev is NULL or closed
 * (fdma_errmsg() then says so), and one taking a channel -EINVAL when ch is
 * not one of the device's (0 to fdma_info.nchan - 1). On kdev:, a call that
 * reaches the driver may also fail with its ioctl's errno (the message
 * names the ioctl); once the device is removed that is -ENODEV.
 *
 * Thread safety:
 * - Different devices are independent.
 * - On one device, buffer calls (fdma_buf_*), fdma_get_info(),
 *   fdma_chan_stats() and fdma_errmsg() may be called from any thread.
 * - Each channel is driven by one thread at a time: fdma_submit(),
 *   fdma_reap(), the fdma_chan_set_*() calls and streams on a
 *   channel need external locking if shared. Use one channel per thread.
 * - fdma_errmsg() returns the message of the calling thread's last failed
 *   call on that device: other threads' failures do not overwrite it.
 * - fdma_close() must not race with any other call on the device.
 */
#ifndef FDMA_H
#define FDMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FDMA_VERSION_STRING "0.1.0"

struct fdma_dev;
struct fdma_stream;

enum fdma_dir {
	FDMA_H2C = 0,		/* host to card */
	FDMA_C2H = 1,		/* card to host */
};

enum fdma_kind {
	FDMA_KIND_MM = 0,	/* memory-mapped: addresses in card memory */
	FDMA_KIND_STREAM = 1,	/* streaming: frames, no card address */
	FDMA_KIND_MEM = 2,	/* memory to memory: copies between buffers (fdma_submit_copy()) */
};

enum fdma_wait_mode {
	FDMA_WAIT_SPIN = 0,	/* poll completions, no interrupts: lowest latency, one busy core */
	FDMA_WAIT_SLEEP = 1,	/* sleep until the device interrupts */
	FDMA_WAIT_ADAPTIVE = 2,	/* spin up to spin_us, then sleep (the default) */
};

#define FDMA_MAX_CHAN 16

struct fdma_chan_info {
	uint8_t dir;		/* enum fdma_dir (FDMA_H2C on memory-to-memory channels) */
	uint8_t kind;		/* enum fdma_kind */
	uint8_t testgen;	/* stream test generator (C2H) or checker (H2C) present */
	uint8_t overrun_flag;	/* C2H stream: the first frame after drops has FDMA_CPL_OVERRUN */
	uint32_t ring_size;	/* descriptors */
};

struct fdma_link_info {
	unsigned gen, lanes, mps, mrrs;
	int paced;		/* 1 if the (simulated) device runs at link speed */
	double write_mbps;	/* model ceiling for device writes (C2H), 10^6 B/s; 0 if unknown */
	double read_mbps;	/* model ceiling for device reads (H2C) */
};

struct fdma_info {
	char backend[16];	/* "sim", "kdev" */
	char name[64];
	uint32_t version;	/* engine version, major << 16 | minor */
	uint32_t nchan;
	uint32_t align;		/* bytes: addresses and lengths must be multiples */
	uint32_t max_desc_len;	/* bytes per descriptor (longer requests are split) */
	uint64_t card_size;	/* bytes of card memory */
	struct fdma_link_info link;
	struct fdma_chan_info chan[FDMA_MAX_CHAN];
	char engine[16];	/* "fdma", "xdma"; "" when none (Linux dmaengine channels) */
	uint32_t coal;		/* FDMA_COAL_*: how interrupts can be coalesced */
	uint32_t user_irqs;	/* the FPGA's own interrupts: fdma_user_irq_fd() 0..user_irqs-1 */
};

#define FDMA_COAL_COUNT		0x1	/* one interrupt per N completions */
#define FDMA_COAL_TIMER		0x2	/* ... or N us after the first unsignalled one */
#define FDMA_COAL_EMULATED	0x4	/* by flags on descriptors, not by the engine (XDMA) */

/* ---- devices -------------------------------------------------------- */

/*
 * Open a device by URI:
 *   sim[:opt=val,...]   the built-in simulated device (see fdma(7) / README)
 *   rtl[:opt=val,...]   the engine's RTL, Verilated (libfdma-rtl.so), as the device
 *   kdev:/dev/fdmaN     an engine behind the kernel driver fdma.ko
 * On failure *devp is NULL and, if errbuf is not NULL, the reason is written
 * there (there is no device to hold it). Returns 0, or:
 *   -EINVAL     devp or uri NULL, an unknown scheme, or a bad option or value
 *   -ENOMEM     out of memory
 *   -EMFILE     64 devices open already, or no file descriptor left in the process
 *   -ENFILE     no file descriptor left in the system
 *   -EAGAIN     sim: a device thread could not be started
 *   -ENOENT     kdev: no such device node; rtl: no libfdma-rtl.so
 *   -ENOEXEC    rtl: libfdma-rtl.so is not this library's plugin
 *   -EACCES     kdev: no read-write access to the node
 *   -ENODEV     kdev: not an fdma.ko device; sim:, rtl: no engine found
 *   -EPROTO     an engine version not known here; kdev: driver interface before 2, or implausible
 *   -ETIMEDOUT  sim:, rtl: the engine did not acknowledge its reset
 */
int fdma_open(struct fdma_dev **devp, const char *uri, char *errbuf, size_t errlen);
void fdma_close(struct fdma_dev *dev);
/*
 * The calling thread's last error message on dev ("" if it had none). It
 * stays valid until this thread's next failed call on any device.
 */
const char *fdma_errmsg(const struct fdma_dev *dev);
/*
 * The device's description. Returns 0, or:
 *   -EINVAL     info is NULL
 */
int fdma_get_info(struct fdma_dev *dev, struct fdma_info *info);
/*
 * First channel with this direction and kind (FDMA_KIND_MEM: any direction).
 * Returns its number, or:
 *   -ENOENT     the device has no such channel
 */
int fdma_find_chan(struct fdma_dev *dev, enum fdma_dir dir, enum fdma_kind kind);
/*
 * The alignment of channel ch's requests (buffer offsets and lengths), in
 * bytes: fdma_info.align, or 1 on the stream channels of an engine that
 * takes frames of any length from any address (FDMA engine 1.3
 * STREAM_BYTES; XDMA's AXI-ST, whose C2H buffers are 64-byte multiples:
 * 64 there, at any offset; with H2C_BYTES alone, the H2C ones only). That
 * is on sim: and rtl:; kdev: keeps user space to the DMA alignment.
 * Returns the alignment, a power of two; no errors but the common ones.
 */
int fdma_chan_align(struct fdma_dev *dev, int ch);

/* ---- buffers ---------------------------------------------------------- */

#define FDMA_BUF_HUGEPAGE 0x1	/* back with 2 MiB huge pages (falls back if none) */
#define FDMA_BUF_DMABUF   0x2	/* fdma_buf_flags(): an imported dma-buf */

/*
 * Allocate size bytes of DMA-able memory, align-aligned. Returns a handle >= 0, or:
 *   -EINVAL     size 0 or over 64 GiB (sim:addr=32: 64 MiB), or unknown flags
 *   -ENOMEM     the memory could not be had (kdev: or pinned, RLIMIT_MEMLOCK)
 *   -ENOSPC     no free buffer handle (4096), or sim: no free bus window
 */
int fdma_buf_alloc(struct fdma_dev *dev, size_t size, unsigned int flags);
/*
 * Register caller memory (addr and size multiples of the alignment). Returns a handle, or:
 *   -EINVAL     addr NULL, size 0 or over 64 GiB (sim:addr=32: 64 MiB), or either not aligned
 *   -ENOSPC     no free buffer handle, or sim: no free bus window
 *   -ENOMEM     kdev: the driver cannot pin that much (RLIMIT_MEMLOCK)
 *   -EFAULT     kdev: memory the driver cannot pin (unmapped, or a file's shared mapping)
 */
int fdma_buf_register(struct fdma_dev *dev, void *addr, size_t size);
/*
 * Import [offset, offset + size) of a dma-buf (GPU memory from CUDA or ROCm,
 * udmabuf, a dma-heap) as a buffer: requests, streams and the synchronous
 * calls take its handle like any other. offset and size are multiples of
 * the alignment. fd stays the caller's (it may be closed at once).
 * fdma_buf_addr() is NULL unless the exporter lets the dma-buf be mapped;
 * CPU access then follows the exporter's rules (DMA_BUF_IOCTL_SYNC).
 * -EIO from a request on it: the exporter moved the memory; free the handle
 * and import again (docs/dmabuf.md). Returns a handle, or:
 *   -EBADF      fd is not an open file
 *   -EINVAL     size 0 or over 64 GiB, offset or size not aligned; kdev: fd is not a dma-buf
 *   -ERANGE     [offset, offset + size) goes beyond the dma-buf
 *   -EOPNOTSUPP kdev: the driver predates dma-buf import
 *   -ENODEV     sim: fd cannot be mapped, as the simulated device needs (or mmap()'s other errno)
 *   -ENOSPC     no free buffer handle, or sim: no free bus window
 */
int fdma_buf_import_dmabuf(struct fdma_dev *dev, int fd, uint64_t offset, size_t size);
/*
 * Export buffer buf, one fdma_buf_alloc() made, as a dma-buf: an encoder, a
 * display, a GPU, a V4L2 device (V4L2_MEMORY_DMABUF) or another process
 * then uses the same memory, with no copy. Returns a new file descriptor
 * (close-on-exec; the caller closes it). The dma-buf holds the memory
 * itself: it stays valid after fdma_buf_free() and fdma_close(), until its
 * last user goes. Mapped with mmap() (MAP_SHARED), CPU accesses are
 * bracketed by DMA_BUF_IOCTL_SYNC, as for any dma-buf; this library's own
 * requests on buf need nothing more (docs/dmabuf.md). flags: 0, or
 * FDMA_EXPORT_RDONLY (the dma-buf cannot be mapped for writing). Errors:
 *   -EBADF      buf is not a buffer of dev
 *   -EINVAL     unknown flags; buf is registered or imported memory (not the driver's to give)
 *   -EOPNOTSUPP sim: (its memory is this process's); kdev: a driver before uapi 10
 *   -EMFILE     no free file descriptor
 *   -ENODEV     kdev: the device was removed
 */
int fdma_buf_export_dmabuf(struct fdma_dev *dev, int buf, unsigned int flags);
#define FDMA_EXPORT_RDONLY 0x1	/* a read-only dma-buf */
/*
 * GPU memory pinned once through NVIDIA's peer-to-peer API (kdev: only,
 * with fdma.ko built over NVIDIA's nv-p2p.h): [gpu_va, + size) of a
 * discrete GPU's cudaMalloc memory (multiples of 64 KiB) or of Jetson's
 * cudaHostAlloc memory (4 KiB). fdma_buf_addr() is NULL. When the
 * application frees that memory, requests on the buffer fail with -EIO;
 * free the handle. Returns a handle, or:
 *   -EOPNOTSUPP not kdev:, or an fdma.ko built without nv-p2p.h (or older than the call)
 *   -EINVAL     gpu_va or size 0 or out of range; kdev: not GPU memory, or not whole GPU pages
 *   -ENODEV     kdev: the driver has no PCI function to map it for, or the device was removed
 *   -ENOSPC     no free buffer handle
 */
int fdma_buf_import_nvp2p(struct fdma_dev *dev, uint64_t gpu_va, size_t size);
/*
 * Free or unregister a buffer. Returns 0, or:
 *   -EBADF      an unknown handle
 *   -EBUSY      transfers on it are in flight (nothing is freed)
 */
int fdma_buf_free(struct fdma_dev *dev, int buf);
/* Address and size of a buffer; NULL / 0 for an unknown handle. */
void *fdma_buf_addr(struct fdma_dev *dev, int buf);
size_t fdma_buf_size(struct fdma_dev *dev, int buf);
/*
 * The buffer handles dev holds now (allocated, registered, imported, and
 * those fdma_stream_open() made; not yet freed), and the bytes they span
 * together, as fdma_buf_size() gives them, in *bytes (may be NULL): a
 * long-running program sees whether it leaks buffers. From any thread;
 * while other threads allocate or free, the count may be off by the
 * changes in flight. Returns the count (>= 0); no errors but the common ones.
 */
int fdma_buf_count(struct fdma_dev *dev, uint64_t *bytes);
/*
 * The FDMA_BUF_* flags in effect for a buffer (>= 0): FDMA_BUF_HUGEPAGE only
 * if it really is backed by 2 MiB huge pages. Returns them, or:
 *   -EBADF      an unknown handle
 */
int fdma_buf_flags(struct fdma_dev *dev, int buf);

/* ---- asynchronous transfers --------------------------------------------- */

struct fdma_req {
	int buf;		/* buffer handle */
	uint32_t flags;		/* FDMA_REQ_* */
	uint64_t offset;	/* in the buffer */
	uint64_t card_addr;	/* memory-mapped channels; ignored on streams */
	uint64_t len;		/* bytes */
	uint64_t user_data;	/* returned in the completion */
};

#define FDMA_REQ_IRQ 0x1	/* interrupt when this one completes, whatever the coalescing */
#define FDMA_REQ_SOF 0x2	/* H2C stream: first buffer of a frame */
#define FDMA_REQ_EOF 0x4	/* H2C stream: last buffer of a frame */

struct fdma_cpl {
	uint64_t user_data;
	uint64_t len;		/* bytes moved */
	int32_t res;		/* 0 or a negative errno */
	uint16_t status;	/* device completion status, FDMA_ST_* */
	uint16_t flags;		/* FDMA_CPL_SOF | EOF | OVERRUN on streams */
};

#define FDMA_CPL_SOF 0x1
#define FDMA_CPL_EOF 0x2
#define FDMA_CPL_OVERRUN 0x4	/* frames were dropped before this one */

/* struct fdma_cpl.status: what the device (or the library) said. */
#define FDMA_ST_OK		0
#define FDMA_ST_DESC_ERR	1	/* descriptor fetch failed (res -EIO) */
#define FDMA_ST_ADDR_ERR	2	/* host address unreachable (-EFAULT) */
#define FDMA_ST_DATA_ERR	3	/* data poisoned in flight (-EIO) */
#define FDMA_ST_ALIGN_ERR	4	/* address or length not aligned (-EINVAL) */
#define FDMA_ST_RANGE_ERR	5	/* card address out of range (-ERANGE) */
#define FDMA_ST_LEN_ERR		6	/* bad length (-EINVAL) */
#define FDMA_ST_TRUNC		7	/* stream frame longer than the buffer (-EMSGSIZE) */
#define FDMA_ST_CANCELED	0xffff	/* handed back by a channel reset (-ECANCELED) */

/*
 * Queue n requests on channel ch and ring the doorbell once. All or nothing:
 * returns n, or the batch's error or its first invalid request's (named in
 * fdma_errmsg()). Nothing is queued on an error:
 *   -EAGAIN     no room for all of them now, or a reset is handing back canceled ones: reap, retry
 *   -E2BIG      more descriptors (or queue entries) than the channel holds even idle: split it
 *   -EINVAL     reqs NULL, a memory-to-memory channel, or a request's flags, length or alignment
 *   -EBADF      a request names an unknown buffer handle
 *   -ERANGE     offset + len beyond the buffer, or the card range beyond card memory
 *   -EIO        the channel did not come back from a reset (kdev: or an imported buffer moved)
 *   -EOPNOTSUPP a channel of a kind this library does not know
 *   -EMSGSIZE   kdev: a C2H stream buffer not in one piece of device-contiguous memory
 *   -EBUSY      kdev: the driver's own user (its network interface) holds the channel
 */
int fdma_submit(struct fdma_dev *dev, int ch, const struct fdma_req *reqs, unsigned int n);

/*
 * io_uring: requests in an application's own ring (kdev:, fdma.ko of
 * interface 11, Linux 6.1 or 6.7 and later). fdma_uring_prep() fills an
 * SQE (struct io_uring_sqe, from liburing or <linux/io_uring.h>) that
 * queues n requests on channel ch when the ring issues it, with one
 * doorbell, and completes as one CQE once all are done: res the bytes they
 * moved together, or the first error one of them ended with (negative
 * errno, as a completion's res); user_data is the SQE's (set it after this
 * call, e.g. io_uring_sqe_set_data64()). The requests' own user_data and
 * their flags (SOF, EOF, OVERRUN) are not returned (fdma_chan_stats()
 * counts drops), and nothing of it comes back through fdma_reap(). So a
 * transfer and what must follow it, e.g. the write of its buffer to a
 * file, can be linked (IOSQE_IO_LINK) with no system call between them.
 *
 * The driver reads the requests from *cmd, and looks up their buffers,
 * when the ring issues the SQE, which for a linked one is when the SQE
 * before it completes: keep cmd and the buffers until its CQE. An SQE
 * that is not the first of its link needs IOSQE_ASYNC on Linux 6.7 to at
 * least 6.12 (io_uring reads its command from the submission queue only
 * when it issues it). The SQE's 64 bytes are overwritten; set its flags
 * after this call. An SQE the driver refuses completes with the errors of
 * fdma_submit() as its res (EAGAIN included: it is not retried).
 *
 * Returns 0, or (nothing is prepared):
 *   -EOPNOTSUPP sim: and rtl: (no kernel), a driver before interface 11, a
 *               kernel it offers no io_uring commands on, or a stream channel
 *               where the kernel cannot cancel commands (before Linux 6.7: a
 *               stream request waits for its frame as long as it takes);
 *               fall back to fdma_submit()
 *   -EINVAL     NULL cmd, sqe or reqs, n of 0 or over FDMA_URING_MAX_REQS,
 *               more than INT_MAX bytes in all, a memory-to-memory channel,
 *               or a request fdma_submit() would refuse for its flags,
 *               length or alignment
 *   -EBADF, -ERANGE  as fdma_submit()
 */
#define FDMA_URING_MAX_REQS 32
struct fdma_uring_cmd {
	uint64_t priv[FDMA_URING_MAX_REQS * 5];	/* the requests, as the driver reads them */
};
struct io_uring_sqe;
int fdma_uring_prep(struct fdma_dev *dev, int ch, const struct fdma_req *reqs, unsigned int n,
		    struct fdma_uring_cmd *cmd, struct io_uring_sqe *sqe);

/*
 * A copy between two buffers on a memory-to-memory channel (FDMA_KIND_MEM):
 * len bytes from src_buf at src_offset to dst_buf at dst_offset. Offsets
 * and length are multiples of the alignment; the two ranges must not
 * overlap (the engine copies front to back: it is memcpy, not memmove).
 */
struct fdma_copy {
	int src_buf;		/* buffer handles */
	int dst_buf;
	uint64_t src_offset;
	uint64_t dst_offset;
	uint64_t len;		/* bytes */
	uint64_t user_data;	/* returned in the completion */
	uint32_t flags;		/* FDMA_REQ_IRQ */
	uint32_t rsvd;		/* 0 */
};

/*
 * Queue n copies on memory-to-memory channel ch and ring the doorbell once;
 * the same all-or-nothing rule and return values as fdma_submit(). Their
 * completions come back through fdma_reap(), one per copy. fdma_submit() on
 * such a channel, and this call on any other, is -EINVAL. Besides
 * fdma_submit()'s errors (for copies):
 *   -EINVAL     ch not memory-to-memory, overlapping ranges, or rsvd not 0
 *   -EOPNOTSUPP kdev: a driver before interface 5, which takes no copies
 */
int fdma_submit_copy(struct fdma_dev *dev, int ch, const struct fdma_copy *copies, unsigned int n);

/*
 * Reap up to max completions. Waits, per the channel's wait mode, until at
 * least min_wait are available or timeout_us passes (-1: no limit while
 * transfers are in flight). Returns the number reaped (possibly fewer than
 * min_wait on timeout, or once a reset has handed everything back), or:
 *   -ETIMEDOUT  none arrived in time (a stuck channel: fdma_chan_reset())
 *   -EAGAIN     min_wait > 0 and nothing is in flight: nothing to wait for
 *   -EIO        the channel did not come back from a reset: fdma_chan_reset() again
 *   -EINVAL     cpls is NULL and max is not 0
 */
int fdma_reap(struct fdma_dev *dev, int ch, struct fdma_cpl *cpls, unsigned int max,
	      unsigned int min_wait, int64_t timeout_us);

/* Transfers queued and not yet reaped; no errors but the common ones. */
int fdma_inflight(struct fdma_dev *dev, int ch);

/*
 * A file descriptor that becomes readable when channel ch has completions
 * to reap (for poll/epoll): one per channel. After it polls readable, call
 * fdma_reap() with min_wait 0; the library drains the fd. Using it sets
 * the wait mode to sleep semantics (interrupts on). Returns the fd, or:
 *   -EMFILE     kdev: no file descriptor left in the process for its eventfd
 *   -ENFILE     kdev: none left in the system
 */
int fdma_chan_fd(struct fdma_dev *dev, int ch);
/*
 * A pollable fd (an eventfd) that becomes readable when the device raises
 * the FPGA's own interrupt irq (XDMA: usr_irq_req[irq]); a read of 8 bytes
 * gives how many since the last read. One per device and irq, closed by
 * fdma_close(). Returns the fd, or:
 *   -EINVAL     irq not below fdma_info's user_irqs (0 where the device cannot deliver them)
 *   -EMFILE     no file descriptor left in the process for the eventfd
 *   -ENFILE     none left in the system
 */
int fdma_user_irq_fd(struct fdma_dev *dev, unsigned int irq);

/*
 * How fdma_reap() waits on channel ch, and how long FDMA_WAIT_ADAPTIVE
 * spins (spin_us; 0 keeps it). Returns 0, or:
 *   -EINVAL     an unknown mode, or spin_us over 1 s
 */
int fdma_chan_set_wait(struct fdma_dev *dev, int ch, enum fdma_wait_mode mode,
		       unsigned int spin_us);
/*
 * Interrupt after count completions, or usecs after the oldest unsignalled
 * one. 0,0 = every one. Returns 0, or:
 *   -EINVAL     count over 65536, or usecs over 1 s
 *   -EOPNOTSUPP usecs without FDMA_COAL_TIMER (kdev: also count > 1 with no coalescing)
 *   -EBUSY      kdev: the driver's own user holds the channel
 */
int fdma_chan_set_coalesce(struct fdma_dev *dev, int ch, unsigned int count, unsigned int usecs);
/*
 * Streams: drop frames when no buffer is armed (1) or hold the source back (0, default).
 * Returns 0, or:
 *   -EINVAL     ch is not a C2H stream channel
 *   -EOPNOTSUPP drop where the engine cannot (XDMA without its test block);
 *               kdev: dmaengine channels
 *   -EBUSY      kdev: the driver's own user holds the channel
 */
int fdma_chan_set_drop(struct fdma_dev *dev, int ch, int drop);
/*
 * Reset a halted or stuck channel. Unfinished transfers come back from
 * fdma_reap() with res -ECANCELED (or their own error). The library does
 * this by itself when the device halts a channel on an error. Returns 0, or:
 *   -ETIMEDOUT  not acknowledged: the channel is broken (-EIO) until a reset succeeds
 *   -EBUSY      kdev: the driver's own user holds the channel
 */
int fdma_chan_reset(struct fdma_dev *dev, int ch);

/*
 * Stream test generator (C2H) / checker (H2C) of the engine, where present:
 * frames of frame_len bytes every period_ns (0 = as fast as possible).
 * Returns 0, or:
 *   -ENOTSUP    the channel has no test generator or checker
 *   -EINVAL     enable with frame_len under 40 bytes (the header and one word)
 *   -EBUSY      kdev: the driver's own user holds the channel
 */
int fdma_chan_set_testgen(struct fdma_dev *dev, int ch, uint32_t frame_len, uint32_t period_ns,
			  int enable);
/*
 * The test generator's frames (and what the checker expects): this 32-byte
 * header, then 64-bit little-endian words, word i = (uint64_t)seq << 32 | i.
 * crc is the CRC-32 (IEEE 802.3, as zlib's crc32()) of those words.
 */
struct fdma_testgen_hdr {
	uint32_t magic;		/* FDMA_TESTGEN_MAGIC */
	uint32_t seq;		/* frame number, from 0 */
	uint32_t len;		/* whole frame, header included */
	uint32_t crc;
	uint64_t tstamp_ns;	/* device time the frame was ready to send */
	uint64_t rsvd;
};

#define FDMA_TESTGEN_MAGIC 0x304d5246u	/* "FRM0" */

/*
 * Frames checked and failed by an H2C checker (or generated, for C2H);
 * frames or errors may be NULL. Returns 0, or:
 *   -ENOTSUP    the channel has no test generator or checker
 */
int fdma_chan_testgen_counts(struct fdma_dev *dev, int ch, uint64_t *frames, uint64_t *errors);

struct fdma_chan_stats {
	uint64_t bytes;		/* moved by completed transfers */
	uint64_t transfers;	/* requests submitted */
	uint64_t completions;	/* requests reaped */
	uint64_t descriptors;	/* descriptors posted */
	uint64_t doorbells;
	uint64_t interrupts;	/* raised by the device */
	uint64_t wakeups;	/* times a waiting thread was put to sleep and woken */
	uint64_t errors;	/* completions with res != 0 */
	uint64_t drops;		/* stream frames dropped by the device */
	uint64_t resets;	/* channel resets */
	uint64_t irq_timeouts;	/* sleeps ended by timeout with completions ready (lost irq) */
	uint64_t syscalls;	/* system calls the library made for this channel */
};
/*
 * On kdev: devices, descriptors, doorbells, interrupts, drops and resets
 * are the driver's counts for the channel since the open (other users of
 * the channel included); the rest are this handle's. Returns 0, or:
 *   -EINVAL     st is NULL
 */

int fdma_chan_stats(struct fdma_dev *dev, int ch, struct fdma_chan_stats *st);

/* ---- synchronous helpers ---------------------------------------------- */

/*
 * Copy len bytes between buffer buf at offset and card memory, on the
 * first memory-mapped channel of that direction, and wait. Returns 0,
 * fdma_submit()'s or fdma_reap()'s error, the completion's res, or:
 *   -ENOENT     no memory-mapped channel in that direction
 *   -EBUSY      that channel has asynchronous transfers in flight
 *   -ETIMEDOUT  no completion within 10 s (the transfer stays in flight)
 */
int fdma_write_card(struct fdma_dev *dev, int buf, uint64_t offset, uint64_t card_addr,
		    uint64_t len);
int fdma_read_card(struct fdma_dev *dev, int buf, uint64_t offset, uint64_t card_addr,
		   uint64_t len);

/* ---- streams (C2H frames) ----------------------------------------------- */

struct fdma_frame {
	void *data;		/* NULL for a buffer the CPU cannot map (fdma_buf_addr()) */
	uint64_t len;		/* bytes of frame in the buffer */
	uint32_t index;		/* buffer number, for fdma_stream_release() */
	uint32_t flags;		/* FDMA_CPL_* */
};

/*
 * Keep nbufs buffers of buf_size bytes armed on C2H stream channel ch.
 * buf_size must hold a whole frame. Returns 0 with the stream in *sp,
 * fdma_buf_alloc()'s or fdma_submit()'s error (arming a buffer), or:
 *   -EINVAL     sp NULL, ch not a C2H stream, nbufs not 2..ring_size, buf_size not 1..max_desc_len
 *   -EBUSY      the channel has transfers in flight
 *   -ENOMEM     out of memory
 */
int fdma_stream_open(struct fdma_dev *dev, int ch, unsigned int nbufs, size_t buf_size,
		     struct fdma_stream **sp);
/*
 * The same over the caller's buffers (e.g. GPU memory from
 * fdma_buf_import_dmabuf()): frame i lands in bufs[i], each used up to the
 * smallest one's size (whole alignment units, at most the maximum
 * descriptor length). They stay the caller's: free them after
 * fdma_stream_close(). Returns what fdma_stream_open() does, or also:
 *   -EINVAL     bufs NULL, nbufs 0, a handle given twice, or the smallest under one unit
 *   -EBADF      an unknown handle
 */
int fdma_stream_open_bufs(struct fdma_dev *dev, int ch, const int *bufs, unsigned int nbufs,
			  struct fdma_stream **sp);
/*
 * Next filled frame, waiting up to timeout_us (-1: forever). Returns 0, or:
 *   -ETIMEDOUT  no frame within timeout_us
 *   -EAGAIN     no buffer is armed: the application holds them all (or a
 *               reset has just handed back the last ones armed: call again)
 *   -EMSGSIZE   a frame did not fit in one buffer (a larger buf_size)
 *   -EIO        the device failed on a buffer, or the channel did not come back from a reset
 *   -EFAULT     the device could not reach a buffer
 *   -EINVAL     s or f is NULL
 *   -EBADF      the stream's device has been closed
 */
int fdma_stream_get(struct fdma_stream *s, struct fdma_frame *f, int64_t timeout_us);
/*
 * Give the buffer back to the device (while a reset hands back canceled
 * transfers, the next fdma_stream_get() arms it). Returns 0, or:
 *   -EINVAL     s or f is NULL, or the buffer is not held (released twice?)
 *   -EIO        the channel did not come back from a reset
 *   -EBADF      the stream's device has been closed
 */
int fdma_stream_release(struct fdma_stream *s, const struct fdma_frame *f);
/*
 * The stream's frame buffers, for I/O that takes them as they are (O_DIRECT
 * writes of the frames, io_uring_register_buffers() with an application's
 * own ring): iov[i] is frame buffer i, the one fdma_frame.index names, its
 * address (NULL where the CPU cannot map it) and the stream's buffer size.
 * Fills the first min(n, buffers) entries. Returns the number of buffers,
 * or:
 *   -EINVAL     s NULL, or iov NULL with n > 0
 *   -EBADF      the stream's device has been closed
 */
int fdma_stream_bufs(const struct fdma_stream *s, struct iovec *iov, unsigned int n);
/* Frames dropped by the device since open (0 if s is NULL). */
uint64_t fdma_stream_drops(const struct fdma_stream *s);
void fdma_stream_close(struct fdma_stream *s);

/* ---- registers ------------------------------------------------------------ */

/*
 * Read or write the register at offset of memory BAR bar: the FPGA's own
 * registers beside the engine. 32 bits at a multiple of 4, or with
 * FDMA_REG_16 16 bits at a multiple of 2, with FDMA_REG_8 one byte (a
 * read's value zero-extended; a write's must fit). The registers the
 * library and driver drive (the engine's register file, the MSI-X table)
 * can be read, but written only with FDMA_REG_FORCE; XDMA's status
 * registers that clear when read are read only with it too
 * (fdma_reg_read_flags(); fdma_reg_read() is it with flags 0). On kdev:
 * these also need CAP_SYS_RAWIO, and so does any write. A debugging path:
 * one system call per access on kdev:. Returns 0, or:
 *   -EINVAL     bar over 5, offset not a multiple of the width, value NULL or
 *               wider than the access, both widths, or unknown flags
 *   -EPERM      one of those without FDMA_REG_FORCE, or kdev: without CAP_SYS_RAWIO
 *   -ENXIO      no such memory BAR
 *   -ERANGE     offset beyond the BAR
 *   -EOPNOTSUPP kdev: a driver without register access (before interface 4, or no
 *               PCI device), or without 8- and 16-bit ones (before 9); sim:, rtl:
 *               an 8- or 16-bit write (their BARs are the engine's 32-bit registers)
 */
#define FDMA_REG_FORCE	0x1
#define FDMA_REG_8	0x2	/* one byte */
#define FDMA_REG_16	0x4	/* 16 bits */

int fdma_reg_read(struct fdma_dev *dev, unsigned int bar, uint64_t offset, uint32_t *value);
int fdma_reg_read_flags(struct fdma_dev *dev, unsigned int bar, uint64_t offset, uint32_t *value,
			unsigned int flags);
int fdma_reg_write(struct fdma_dev *dev, unsigned int bar, uint64_t offset, uint32_t value,
		   unsigned int flags);

/* ---- utilities ----------------------------------------------------------- */

/*
 * The link model's payload ceiling for transfers of size bytes in dir,
 * counting the per-transfer descriptor and completion traffic (MB/s,
 * 10^6 bytes). Returns 0, or:
 *   -EINVAL     mbps NULL or size 0
 *   -ENOTSUP    the link is not known (kdev: the driver reports no PCIe link)
 */
int fdma_ceiling(struct fdma_dev *dev, enum fdma_dir dir, uint64_t size, double *mbps);

/*
 * Thread CPU time of the simulated device's threads, seconds. Returns 0, or:
 *   -EINVAL     seconds is NULL
 *   -ENOTSUP    not a simulated device (kdev:)
 */
int fdma_model_cpu(struct fdma_dev *dev, double *seconds);

#ifdef __cplusplus
}
#endif
#endif /* FDMA_H */
