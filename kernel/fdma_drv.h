/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * fdma.ko: PCIe driver for the FDMA engine (docs/engine.md), built on the
 * OS-agnostic engine core in engine/. Objects, one file each:
 *
 *   fdma_main.c   module parameters, init and exit, device numbers
 *   fdma_pci.c    probe and remove of an FDMA function
 *   fdma_irq.c    MSI-X, MSI or INTx, per-channel interrupt handlers
 *   fdma_dev.c    the device every backend shares: class device, minor,
 *                 character device, the order of removal
 *   fdma_backend.c  the interface a backend module sees (include/fdma_backend.h,
 *                 exported in symbol namespace FDMA)
 *   fdma_chan.c   channels: requests, completion reaping and delivery,
 *                 recovery, the watchdog, batched submission, read/write
 *   fdma_ring.c   the FDMA engine's rings behind struct fdma_ring_ops
 *   fdma_buf.c    DMA buffers: allocated (mmap) and registered user memory
 *   fdma_cq.c     completion queues, one per (open file, channel)
 *   fdma_ioctl.c  the ioctls
 *   fdma_cdev.c   /dev/fdmaN: open/release, read/write, mmap, poll, fasync
 *   fdma_sysfs.c  attributes of /sys/class/fdma/fdmaN
 *   fdma_debugfs.c  /sys/kernel/debug/fdma: ring state, the model's faults
 *   fdma_dmaengine_provider.c  fdma's channels as a dmaengine provider
 *                 (memcpy and slave), for other drivers to use
 *
 * fdma_dmac.ko (dmac/) is the dmaengine client, the second backend: groups
 * of Linux dmaengine channels as /dev/fdmaN, with its own struct
 * fdma_ring_ops. It sees only include/fdma_backend.h of this module.
 */
#ifndef FDMA_DRV_H
#define FDMA_DRV_H

#include <linux/atomic.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/dma-direction.h>
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "fdma_backend.h"
#include "fdma_engine.h"
#include "fdma_ioctl.h"

#define FDMA_DRV_NAME		"fdma"

/* Device numbers: fdma0..31, then fdma-edu0..31. */
#define FDMA_MAX_DEVS		32
#define FDMA_EDU_MINOR_BASE	FDMA_MAX_DEVS
#define FDMA_MINORS		(2 * FDMA_MAX_DEVS)

/* The FPGA's own interrupts (XDMA's user IRQs) the driver can forward. */
#define FDMA_USER_IRQS_MAX	16

/* Bound on every reset handshake with the engine (libfdma uses the same). */
#define FDMA_RESET_TIMEOUT_US	200000

/* Largest chunk of a read() or write(): the channel's bounce buffer. */
#define FDMA_BOUNCE_SIZE	SZ_1M

/* Largest DMA segment the driver builds or lets an IOMMU merge. */
#define FDMA_MAX_SEG		SZ_1G

/* Upper bound of the coalescing timer accepted through sysfs. */
#define FDMA_COAL_USECS_MAX	1000000
#define FDMA_COAL_COUNT_MAX	65536

/*
 * Buffers. Handles are unique per device (another file's handle is not
 * found in this file's table: -EBADF). An allocated buffer is mmap'ed at
 * handle << 32, above every completion queue offset (chan << 24). One file
 * holds at most max_bufs_per_file of them (module parameter), so that one
 * opener cannot take every handle of the device.
 */
#define FDMA_HANDLE_MAX		65535		/* per device */
#define FDMA_BUFS_PER_FILE	1024		/* max_bufs_per_file default */
#define FDMA_BUF_MMAP_SHIFT	32
/*
 * A 32-bit process maps with mmap2(), whose offset is 32 bits of 4 KiB
 * units (on a 32-bit kernel, and as a compat task on a 64-bit one): the
 * buffers it allocates get handles up to 4095, so that they can be mapped.
 */
#define FDMA_HANDLE_MAX_MMAP2	(U32_MAX >> (FDMA_BUF_MMAP_SHIFT - 12))
#define FDMA_ALLOC_MAX		(SZ_4G - PAGE_SIZE)	/* FDMA_IOC_BUF_ALLOC */
#define FDMA_REG_MAX		(16ULL << 30)		/* FDMA_IOC_BUF_REGISTER */

/* Completion queue entries per (file, channel): module parameter bounds. */
#define FDMA_CQ_ENTRIES_MIN	64
#define FDMA_CQ_ENTRIES_MAX	65536

/*
 * Cookie of the read/write path's request (bit 63), of the dmaengine
 * provider's descriptors (bit 62 | pool index); others are ureq indices.
 */
#define FDMA_KCOOKIE		BIT_ULL(63)
#define FDMA_DCOOKIE		BIT_ULL(62)

/* pci_device_id.driver_data (FDMA_ID_IVSHMEM, 1, is fdma_harness.h's) */
#define FDMA_ID_XDMA		2	/* a Xilinx XDMA function (fdma_xdma.c) */

#define FDMA_REGS_BYTES		4096	/* the register file (docs/engine.md) */

enum fdma_irq_mode {
	FDMA_IRQ_AUTO = 0,	/* as a parameter: MSI-X, then MSI, then INTx */
	FDMA_IRQ_MSIX,
	FDMA_IRQ_MSI,
	FDMA_IRQ_INTX,
	FDMA_IRQ_POLL,		/* none: a thread reaps every poll_us (XDMA poll mode) */
};

/* Module parameters (fdma_main.c); timeout_ms and watchdog_ms are writable. */
extern unsigned int fdma_param_ring_size;
extern unsigned int fdma_param_timeout_ms;
extern unsigned int fdma_param_watchdog_ms;
extern unsigned int fdma_param_cq_entries;
extern unsigned int fdma_param_max_bufs;
extern enum fdma_irq_mode fdma_param_irq_mode;
extern bool fdma_param_dmaengine;
extern bool fdma_param_net;

/* User pages pinned by registrations, all devices (debugfs pinned_pages). */
extern atomic64_t fdma_pinned_total;

extern struct class fdma_class;

int fdma_minor_get(bool edu);
void fdma_minor_put(int minor);
dev_t fdma_devt(int minor);
const char *fdma_irq_mode_name(enum fdma_irq_mode mode);

struct fdma_device;
struct fdma_file;

/*
 * A DMA segment of a buffer: bus-contiguous and, for registered memory,
 * physically contiguous too (the intersection of a scatterlist entry and a
 * DMA segment), so that a range within it can be synced on its own.
 */
struct fdma_seg {
	u64 off;		/* offset in the buffer */
	dma_addr_t bus;
	u32 len;
};

/*
 * A buffer, named by a handle in its file's table. References: the table,
 * and each mapping of it into user space (vm_ops open/close). Transfers in
 * flight are counted in inflight (FDMA_IOC_BUF_FREE is -EBUSY then, and a
 * file is released only after its transfers were stopped). Its memory, of
 * either kind, is charged to the locked_vm of the process that made it
 * (RLIMIT_MEMLOCK) until the memory is freed (see fdma_buf.c). remove()
 * revokes it: its user mappings are zapped and its memory given back
 * while the device is still ours; what is left is a shell that the
 * file's release (or the last munmap) frees.
 */
enum fdma_buf_kind {
	FDMA_BUF_ALLOC,		/* the driver's own pages */
	FDMA_BUF_USER,		/* registered user memory, pinned */
	FDMA_BUF_DMABUF,	/* an imported dma-buf (fdma_dmabuf.c) */
	FDMA_BUF_NVP2P,		/* GPU memory pinned by NVIDIA's P2P API (fdma_nvp2p.c) */
};

struct fdma_nvp2p;

struct fdma_buffer {
	struct kref ref;
	struct fdma_device *fdev;
	u32 handle;
	enum fdma_buf_kind kind;
	bool tainted;		/* a reset failed with it in flight: kept */
	bool revoking;		/* remove() began: no fault maps it; under buf_lock */
	bool revoked;		/* memory given back at remove(); under buf_lock */
	u64 size;		/* usable bytes */
	atomic_t inflight;	/* requests using it, not yet completed */
	/* fdev->quarantine when tainted; then the uncharge queue (fdma_buf.c) */
	struct list_head qnode;

	/* RLIMIT_MEMLOCK: pages charged to mm's locked_vm (mmgrab'ed) */
	struct mm_struct *mm;
	unsigned long locked;

	/* fdev->bufs: every buffer whose memory remove() must revoke */
	struct list_head dnode;

	/*
	 * The memory: pages (allocated, or pinned user pages), their sg
	 * table, mapped once for the device. Under fdev->buf_lock when
	 * given back (revoked, or the last reference).
	 */
	struct page **pages;
	unsigned long npages;
	struct sg_table sgt;

	struct fdma_seg *seg;	/* ascending offsets */
	u32 nseg;

	/*
	 * FDMA_BUF_DMABUF: the dma-buf, our attachment and its mapping
	 * (NULL once the exporter moved it). stale: moved, requests -EIO.
	 */
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *dsgt;
	bool pinned;
	bool stale;
	/*
	 * The mapping needs the per-request syncs. Cleared under sync_lock
	 * before the mapping goes (a move, NVIDIA's free callback), so that
	 * no sync uses it after: a submission may still be syncing then.
	 */
	bool dsync;
	spinlock_t sync_lock;	/* dsync, against the syncs */
	/* remove() kept it for good: the exporter's calls leave it alone */
	bool kept;

	/* FDMA_BUF_NVP2P: the pin, shared with NVIDIA's free callback */
	struct fdma_nvp2p *nvp2p;
};

/* Completion queue of one (file, channel), mmap'ed by user space. */
struct fdma_cq {
	struct fdma_file *file;
	struct page **pages;		/* the queue's memory, shared */
	u32 npages;
	struct fdma_cq_hdr *hdr;	/* vmap() of pages */
	struct fdma_cq_entry *ent;
	size_t bytes;
	u32 entries;
	u32 mask;
	u32 tail;		/* entries written, under the channel's lock */
	u32 pub;		/* tail as last published (READ_ONCE outside the lock) */
	u32 inflight;		/* requests of this file in flight on the channel */
	struct list_head dirty;	/* on chan->dirty while tail != pub */
	spinlock_t efd_lock;	/* efd: set by FDMA_IOC_CQ_EVENTFD, used by delivery */
	struct eventfd_ctx *efd;	/* signalled when entries are published */
};

/* Everything an open file of /dev/fdmaN owns. */
struct fdma_file {
	struct fdma_device *fdev;
	struct list_head node;		/* fdev->files */
	struct address_space *mapping;	/* of the device node: remove() zaps it */
	struct rw_semaphore bufs_sem;	/* bufs: read to use, write to change */
	struct idr bufs;
	u32 nbufs;
	struct mutex cq_lock;		/* creation of cq[] */
	struct fdma_cq *cq[FDMA_MAX_CHANNELS];
	wait_queue_head_t wq;		/* poll and FDMA_IOC_WAIT */
	struct fasync_struct *fasync;
	spinlock_t uirq_lock;		/* uirq */
	struct eventfd_ctx *uirq[FDMA_USER_IRQS_MAX];	/* FDMA_IOC_USER_IRQ */
};

/**
 * struct fdma_group - requests that complete as one (FDMA_URING_CMD_SUBMIT)
 * @done: called once, by whoever finishes the last request: under the
 *	channel's lock, in a task (the interrupt thread, an ioctl, the
 *	watchdog, a reset)
 * @bytes: bytes moved by the requests finished so far (a group moves at
 *	most INT_MAX: fdma_ioctl.c refuses more)
 * @left: requests not yet finished
 * @res: the first finished request's error, else 0
 * @chan: the channel they are on
 * @posted: on the ring (under the channel's lock)
 * @canceled: its owner gave up before it was posted (under the lock): it
 *	is then refused, -ECANCELED
 *
 * Its requests write no completion queue entry: the group is their only
 * consumer, known through @done alone.
 */
struct fdma_group {
	void (*done)(struct fdma_group *g);
	u32 bytes;
	u32 left;
	int res;
	u16 chan;
	bool posted;
	bool canceled;
};

/*
 * A request of FDMA_IOC_SUBMIT in flight: split into one or more engine
 * requests (at DMA segment boundaries), whose completions are folded into
 * one completion queue entry, or into its group. Indexed by the engine
 * requests' cookie.
 */
struct fdma_ureq {
	struct fdma_cq *cq;	/* the owner's queue; NULL when free */
	struct fdma_group *grp;	/* its group, which gets the result instead */
	struct fdma_buffer *buf;	/* a copy's source */
	struct fdma_buffer *dst;	/* a copy's destination, else NULL */
	u64 user_data;
	u64 off;		/* range in the buffer, for the CPU sync */
	u64 dst_off;		/* range in dst (same len) */
	u64 len;
	u64 done;		/* bytes moved, all pieces */
	u32 pieces;		/* engine requests not yet complete */
	u16 status;		/* first non-OK status of the pieces */
	u16 flags;		/* FDMA_CPL_F_*, OR of the pieces */
	int cancel_res;		/* the errno if status is FDMA_CPL_CANCELED */
	enum dma_data_direction dir;
};

/*
 * The read/write path's request on a channel: one at a time (the channel's
 * rw_lock), under the channel's ring lock. It moves bytes to or from the
 * bounce buffer of channel buf_of (its own, or the H2C channel's for the
 * partial blocks a write() reads first). A caller killed while waiting
 * leaves it in flight (abandoned): the slot and the bounce buffer are
 * free again only once it completes or is canceled.
 */
struct fdma_kreq {
	u64 cookie;
	bool busy;		/* posted, not yet released by its owner */
	bool done;		/* completed or canceled: cpl is valid */
	bool abandoned;		/* its caller left: completion frees the slot */
	int cancel_res;		/* why it was canceled (-ECANCELED, -ETIMEDOUT) */
	struct fdma_chan *buf_of;
	struct fdma_ecpl cpl;
};

struct fdma_chan_counters {
	atomic64_t irqs;	/* interrupts on this channel's vector */
	atomic64_t completions;	/* requests completed without error */
	atomic64_t bytes;	/* bytes those requests moved */
	atomic64_t errors;	/* requests failed: error status, canceled, timeout */
	atomic64_t resets;	/* channel resets (recovery and abort) */
	atomic64_t canceled;	/* requests handed back by a reset */
	atomic64_t lost_irqs;	/* found complete only by the watchdog or a timed-out wait */
	atomic64_t timeouts;	/* resets because the engine made no progress */
	atomic64_t wd_reaps;	/* reaps done by the watchdog (lost_irqs among them) */
	atomic64_t transfers;	/* requests submitted */
	atomic64_t descriptors;	/* descriptors posted */
	atomic64_t doorbells;	/* doorbell writes */
	atomic64_t syscalls;	/* FDMA_IOC_SUBMIT and FDMA_IOC_WAIT calls */
};

struct fdma_chan {
	struct fdma_device *fdev;
	const struct fdma_ring_ops *ops;
	void *priv;		/* the backend module's (fdma_backend.h) */
	u32 idx;
	u32 caps;		/* FDMA_CH_CAP_* */
	u32 frame_reqs;		/* requests per frame at most, 0: marked frames (fdma_backend.h) */
	struct fdma_video_cfg video;	/* the backend's video format (fdma_backend.h) */
	u32 vec;		/* interrupt vector, written to CH_IRQ_VEC */
	bool up;		/* ring allocated and started */
	bool broken;		/* a reset was never acknowledged */

	/*
	 * The ring lock: serialises everything that drives the ring (the
	 * engine core wants one caller at a time), the request tables and
	 * the delivery into completion queues. Held briefly (a reset waits
	 * up to FDMA_RESET_TIMEOUT_US); never in interrupt context: the
	 * interrupt's thread takes it to reap.
	 */
	struct mutex lock;
	/* The read/write path: owns the bounce buffer across a read() or write(). */
	struct mutex rw_lock;
	wait_queue_head_t wq;	/* read/write waiters: woken after each reap */
	u32 events;		/* bumped after each reap or reset */

	/* The FDMA engine's ring (fdma_ring.c); unused by other backends. */
	struct fdma_ering ring;
	struct fdma_eslot *slot;
	void *ring_mem;		/* write-back block, descriptors, completions */
	dma_addr_t ring_bus;
	size_t ring_bytes;
	u32 ereq_max;		/* longest engine request: fits u32 and the ring */

	struct fdma_ureq *ureq;	/* ring_size entries */
	u32 *ufree;		/* free ureq indices (a stack) */
	u32 nufree;
	struct fdma_kreq kr;	/* the read/write path's request */
	struct list_head dirty;	/* completion queues to publish */

	/*
	 * Memory-mapped channels: the read/write bounce buffer, kernel pages
	 * with a streaming mapping (synced around each transfer). remove()
	 * unmaps it (bounce_mapped, under lock); the pages stay until the
	 * device's release, since a read() may still be copying from them.
	 * bounce_users counts transfers in flight into or out of it.
	 */
	void *bounce;
	dma_addr_t bounce_bus;
	size_t bounce_size;	/* used: at most PAGE_SIZE << bounce_order */
	size_t bounce_map_len;	/* mapped */
	unsigned int bounce_order;
	bool bounce_mapped;
	/* a channel whose reset failed with a request on this buffer in flight */
	struct fdma_chan *bounce_tainter;
	atomic_t bounce_users;

	/*
	 * The watchdog (fdma_chan.c): armed while anything is in flight; it
	 * reaps completions no interrupt announced and resets a
	 * memory-mapped channel that made no progress for timeout_ms.
	 */
	struct delayed_work wd;
	bool wd_armed;		/* under lock */
	u32 wd_cidx;		/* host's reaped count at the last tick */
	u32 wd_hw;		/* device's completion count at the last tick */
	s64 wd_irqs;		/* st.irqs at the last tick */
	u32 prog_hw;		/* device's count when progress was last seen */
	unsigned long prog_at;	/* jiffies then */

	u32 coal_count;		/* CH_COAL_COUNT, under lock */
	u32 coal_usecs;		/* CH_COAL_USECS, under lock */
	u32 ctrl_flags;		/* CH_CTRL.DROP, under lock */
	u64 drops_seen;		/* wb.overruns, widened to 64 bits, under lock */
	u64 cookie;

	/*
	 * The client that holds the channel, if any (fdma_chan_claim()): a
	 * network interface or a dmaengine consumer through the provider.
	 * While one does, the character device's requests, resets and knobs
	 * on the channel are -EBUSY (fdma_chan_busy()). Set and cleared
	 * under lock; read without it (READ_ONCE) by the interrupt handlers,
	 * which is why a client waits for RCU after fdma_chan_release().
	 */
	struct fdma_chan_client *client;
	/* Its video device (v4l2=1, fdma_v4l2.c), which claims it while streaming. */
	struct fdma_vdev *vdev;

	struct fdma_chan_counters st;
};

/*
 * A client of a channel, besides the character device, which uses every
 * channel nobody holds. The channel layer knows its client only through
 * these calls (a client finds its own object with container_of()).
 *
 * own_ring: the client drives the ring itself, through fdma_ering_*
 * outside c->lock (the network interface, from its NAPI): the channel
 * layer never reaps or resets it, and hands its interrupts on: irq from
 * the hard interrupt (interrupts off), kick from process context (an
 * interrupt thread, irq_mode=poll's thread), busy when irq_mode=poll's
 * thread asks whether the ring has work coming.
 *
 * Otherwise the client posts through the channel layer (fdma_chan_post(),
 * cookies with FDMA_DCOOKIE), which reaps, resets and recovers the ring
 * and hands each finished request of the client's to piece, under c->lock
 * (taint: the reset was not acknowledged, the device may still write).
 */
struct fdma_chan_client;

struct fdma_client_ops {
	bool own_ring;
	void (*irq)(struct fdma_chan *c, struct fdma_chan_client *cl);
	void (*kick)(struct fdma_chan *c, struct fdma_chan_client *cl);
	bool (*busy)(struct fdma_chan *c, struct fdma_chan_client *cl);
	/*
	 * Optional: the device stopped for good outside remove() (its
	 * engine quiesced while memory was taken away): the client stops
	 * handing it work. Under rcu_read_lock(), so it must not sleep.
	 */
	void (*gone)(struct fdma_chan *c, struct fdma_chan_client *cl);
	void (*piece)(struct fdma_chan *c, struct fdma_chan_client *cl,
		      const struct fdma_ecpl *e, bool taint);
	/*
	 * Optional: the channel is about to be reset (under c->lock), by
	 * the client or by the channel layer (a halted channel recovered
	 * at a reap): the device then clears the channel's counts, the
	 * test generator's and checker's among them.
	 */
	void (*reset)(struct fdma_chan *c, struct fdma_chan_client *cl);
};

struct fdma_chan_client {
	const struct fdma_client_ops *ops;
};

struct fdma_vec {
	struct fdma_device *fdev;
	u32 idx;
	int irq;		/* Linux irq number, 0 if not requested */
	u32 chan_mask;		/* channels raising this vector */
	int user;		/* or the user interrupt it carries, else -1 */
	char name[32];
};

/*
 * A stand-in for an FDMA function whose register file is not in its BAR0
 * and whose INTx is acknowledged outside the engine: the VM harness's
 * ivshmem-doorbell (harness/fdma_ivshmem.c). A card has none (fdev->shim
 * is NULL), and the fdma.ko a user builds has no code that sets one.
 */
struct fdma_shim_ops {
	const char *name;	/* for the log: "... behind <name>" */
	/* regs, regs_bar, regs_len and plat (regs, pdev, doorbell) */
	int (*map)(struct fdma_device *fdev);
	void (*unmap)(struct fdma_device *fdev);
	/* INTx: a handler that reads and clears the shim's status; NULL: no INTx */
	irq_handler_t intx;
	void (*intx_enable)(struct fdma_device *fdev, bool on);
	/* FDMA_IOC_REG: a BAR of the shim's own registers, refused like the engine's */
	bool (*owns_bar)(struct fdma_device *fdev, u32 bar);
};

struct fdma_sysfs;
struct fdma_dmae;
struct fdma_dmae_chan;
struct fdma_net;

struct fdma_device {
	struct device dev;	/* /sys/class/fdma/fdmaN; release frees this */
	struct cdev cdev;
	struct pci_dev *pdev;	/* an FDMA function; NULL for other backends */
	/*
	 * The device that masters the bus for this node: buffers are mapped
	 * for it. pdev's, or a backend module's (dmac/: a dmaengine provider's).
	 */
	struct device *dma_dev;
	int minor;
	const struct fdma_shim_ops *shim;	/* NULL: a card (see above) */
	bool xdma;		/* a Xilinx XDMA function */
	bool dead;		/* removed: every operation fails with -ENODEV */
	/*
	 * The engine stopped mastering the bus (STATUS.BUSY seen 0, bus
	 * mastering off): memory it could reach may be freed. Without it,
	 * remove() keeps (leaks) what a broken channel or tainted buffer
	 * holds, rather than free memory a device may still write.
	 */
	bool quiesced;
	/*
	 * Against remove(): creating buffers and mmap() take it for reading
	 * and check dead inside; remove() takes it for writing to revoke.
	 */
	struct rw_semaphore revoke_sem;

	void __iomem *shim_regs;	/* the shim's own registers, if it has them */
	void __iomem *regs;	/* the register file */
	void __iomem *user;	/* XDMA: the user BAR, or NULL */
	int regs_bar;		/* the BAR of the engine's registers ... */
	u32 regs_len;		/* ... and their bytes: what FDMA_IOC_REG guards */
	/* Whose interrupts these are: pdev, or (VM harness) an ivshmem carrier. */
	struct pci_dev *irq_pdev;
	struct task_struct *poll_task;	/* FDMA_IRQ_POLL */
	struct fdma_plat plat;
	struct fdma_eng_caps caps;
	u64 card_size;		/* usable card memory: caps.card_size aligned */
	u32 ring_size;
	int dma_bits;
	u32 dma_align;		/* registered memory: engine and cache-line alignment */

	enum fdma_irq_mode irq_mode;	/* granted */
	bool irq_forced;
	u32 nvec;
	struct fdma_vec vec[FDMA_MAX_CHANNELS + FDMA_USER_IRQS_MAX];
	u32 nuirq;		/* user interrupts with a vector of their own (vec[nchan + k]) */

	struct fdma_chan chan[FDMA_MAX_CHANNELS];
	int h2c;		/* first memory-mapped H2C channel, or -1 */
	int c2h;		/* first memory-mapped C2H channel, or -1 */

	struct fdma_sysfs *sysfs;
	struct fdma_dmae *dmae[2];	/* dmaengine providers: memcpy, slave */
	bool dmae_of;		/* their channels named in its device-tree node */
	struct fdma_net *net[FDMA_MAX_CHANNELS / 2];	/* network interfaces (net=1) */

	struct mutex files_lock;	/* files */
	struct list_head files;		/* open files, woken and revoked on remove */
	struct ida handles;		/* buffer handles, unique per device */
	struct mutex buf_lock;		/* bufs; every buffer's memory release */
	struct list_head bufs;		/* every buffer of every file */
	spinlock_t qlock;		/* quarantine */
	struct list_head quarantine;	/* tainted buffers, freed at release */
	atomic64_t pinned_pages;	/* user pages pinned by registrations */
	atomic64_t nbufs;		/* buffers alive (allocated + registered) */
	atomic64_t alloc_bytes;		/* pages of allocated buffers */
	atomic64_t leaked_bytes;	/* kept for good: the engine never quiesced */

	struct dentry *debugfs;
};

static inline struct fdma_device *to_fdma_dev(struct device *dev)
{
	return container_of(dev, struct fdma_device, dev);
}

/* fdma_pci.c */
extern struct pci_driver fdma_pci_driver;
int fdma_pci_stop_dma(struct fdma_device *fdev, const char *why);

/* fdma_dev.c: fdma_pci.c's steps; a backend module's are fdma_backend.h's */
struct fdma_device *fdma_dev_alloc(struct device *parent, struct device *dma_dev);
int fdma_dev_chans_init(struct fdma_device *fdev);
int fdma_dev_publish(struct fdma_device *fdev, struct module *owner);
void fdma_dev_unpublish(struct fdma_device *fdev);
void fdma_dev_chans_stop(struct fdma_device *fdev);
void fdma_dev_chans_free(struct fdma_device *fdev, bool free_bounce);

/* fdma_ring.c */
extern const struct fdma_ring_ops fdma_ring_engine_ops;

/*
 * fdma_net.c: network interfaces over stream pairs (net=1). register and
 * unregister: at probe and first thing at remove. Built only with
 * CONFIG_PAGE_POOL (Kbuild); without it net=1 is refused at load, so these
 * do nothing.
 */
#if IS_ENABLED(CONFIG_PAGE_POOL)
int fdma_net_register(struct fdma_device *fdev);
void fdma_net_unregister(struct fdma_device *fdev);
void fdma_net_release(struct fdma_device *fdev);
#else
static inline int fdma_net_register(struct fdma_device *fdev)
{
	return 0;
}

static inline void fdma_net_unregister(struct fdma_device *fdev)
{
}

static inline void fdma_net_release(struct fdma_device *fdev)
{
}
#endif

/*
 * fdma_v4l2.c: stream channels as V4L2 video devices (C2H capture, H2C
 * output): every one with v4l2=1, and those a backend gives a format
 * (fdma_chan.video). register and unregister: at probe and first thing at
 * remove. Built only with V4L2 and vb2's dma-sg allocator (Kbuild);
 * without them v4l2=1 is refused at load and these do nothing.
 */
struct fdma_vdev;
extern bool fdma_param_v4l2;
#ifdef FDMA_V4L2
void fdma_v4l2_register(struct fdma_device *fdev);
void fdma_v4l2_unregister(struct fdma_device *fdev);
#else
/* A backend's device tree asking for video devices is told why there are none. */
static inline void fdma_v4l2_register(struct fdma_device *fdev)
{
	u32 i;

	for (i = 0; i < fdev->caps.nchan; i++)
		if (fdev->chan[i].video.fourcc) {
			dev_warn(fdev->dma_dev, "%s: no video devices: fdma.ko was built for a kernel without V4L2 or vb2's dma-sg allocator\n",
				 dev_name(&fdev->dev));
			return;
		}
}

static inline void fdma_v4l2_unregister(struct fdma_device *fdev)
{
}
#endif

/* fdma_irq.c */
int fdma_irq_setup(struct fdma_device *fdev);
void fdma_irq_teardown(struct fdma_device *fdev);
/* A hard handler's count of an interrupt for the channels of chan_mask. */
void fdma_irq_count(struct fdma_device *fdev, u32 chan_mask);
/* The FPGA's interrupt k: every file listening for it is told (process context). */
void fdma_user_irq(struct fdma_device *fdev, u32 k);
/* An interrupt (or a poll) for channel c: acknowledge it, then reap. */
void fdma_chan_intr(struct fdma_chan *c);

/* XDMA functions (fdma_xdma.c), bound by their own pci_driver */
extern struct pci_driver fdma_xdma_driver;
int fdma_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id);
void fdma_pci_remove(struct pci_dev *pdev);
void fdma_pci_shutdown(struct pci_dev *pdev);
extern unsigned int fdma_param_poll_us;
int fdma_xdma_map(struct fdma_device *fdev);
void fdma_xdma_limits(struct fdma_device *fdev);

/*
 * A checked request of FDMA_IOC_SUBMIT or a copy of FDMA_IOC_COPY, as the
 * channel posts it.
 */
struct fdma_sub {
	struct fdma_buffer *buf;	/* the buffer; a copy's source */
	struct fdma_buffer *dst;	/* a copy's destination, else NULL */
	u64 off;		/* in buf */
	u64 dst_off;		/* in dst */
	u64 card_addr;		/* memory-mapped channels */
	u64 len;
	u64 user_data;
	u32 flags;		/* FDMA_IOC_REQ_* */
};

/* The DMA direction of a channel's transfers, for the syncs. */
static inline enum dma_data_direction fdma_chan_dir(const struct fdma_chan *c)
{
	return (c->caps & FDMA_CH_CAP_C2H) ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
}

/* fdma_chan.c */
void fdma_chan_setup(struct fdma_device *fdev, u32 idx);
u32 fdma_chan_piece(const struct fdma_chan *c, const struct fdma_sub *s,
		    u64 done, struct fdma_ereq *q);
int fdma_chan_init(struct fdma_device *fdev, u32 idx);
void fdma_chan_stop(struct fdma_chan *c);
void fdma_chan_free(struct fdma_chan *c);
void fdma_chan_unmap_bounce(struct fdma_chan *c);
void fdma_chan_free_bounce(struct fdma_chan *c);
void fdma_chan_irq(struct fdma_chan *c);
void fdma_chan_reap(struct fdma_chan *c);
int fdma_chan_reset(struct fdma_chan *c);
int fdma_chan_release_file(struct fdma_chan *c, struct fdma_cq *q);
int fdma_chan_cancel_group(struct fdma_chan *c, struct fdma_group *g);
int fdma_chan_submit(struct fdma_chan *c, struct fdma_cq *q, struct fdma_group *grp,
		     const struct fdma_sub *s, u32 n, u32 ndesc);
int fdma_chan_set_drop(struct fdma_chan *c, bool drop);
int fdma_chan_set_drop_locked(struct fdma_chan *c, bool drop);
u64 fdma_chan_drops(struct fdma_chan *c);
u64 fdma_chan_drops_locked(struct fdma_chan *c);
int fdma_chan_set_coalesce(struct fdma_chan *c, u32 count, u32 usecs);
ssize_t fdma_chan_read(struct fdma_chan *c, char __user *buf, size_t count,
		       u64 pos);
ssize_t fdma_chan_write(struct fdma_chan *c, struct fdma_chan *rd,
			const char __user *buf, size_t count, u64 pos);
/*
 * A client takes a channel and gives it back (under c->lock): claim is
 * -ENODEV once removed, -EBUSY while another client holds it or a file's
 * requests are in flight on it. busy: -EBUSY while a client holds it, for
 * every request and knob of the character device.
 */
int fdma_chan_claim(struct fdma_chan *c, struct fdma_chan_client *cl);
void fdma_chan_release(struct fdma_chan *c);
int fdma_chan_busy(const struct fdma_chan *c);
void fdma_chan_gone(struct fdma_chan *c);
/* For a client that posts through the channel layer; under c->lock. */
int fdma_chan_usable(struct fdma_chan *c);
int fdma_chan_post(struct fdma_chan *c, const struct fdma_ereq *q);
void fdma_chan_doorbell(struct fdma_chan *c);
int fdma_chan_account(struct fdma_chan *c, u16 status, u64 len);
int fdma_chan_recover(struct fdma_chan *c, const char *why, int cancel_res);
u32 fdma_chan_reap_locked(struct fdma_chan *c);
u32 fdma_chan_reap_nosleep(struct fdma_chan *c);
int fdma_chan_reset_cancel(struct fdma_chan *c, const char *why,
			   int cancel_res);
int fdma_chan_release_buf(struct fdma_chan *c, struct fdma_buffer *b);

/* fdma_dmaengine_provider.c */
int fdma_dmae_register(struct fdma_device *fdev);
void fdma_dmae_unregister(struct fdma_device *fdev);
void fdma_dmae_detach(struct fdma_device *fdev);
void fdma_dmae_exit(void);

/* fdma_buf.c */
int fdma_buf_alloc(struct fdma_file *f, struct fdma_ioc_buf_alloc *a,
		   struct fdma_buffer **bp);
int fdma_buf_register(struct fdma_file *f, struct fdma_ioc_buf_reg *r,
		      struct fdma_buffer **bp);
void fdma_buf_publish(struct fdma_file *f, struct fdma_buffer *b);
void fdma_buf_unreserve(struct fdma_file *f, struct fdma_buffer *b);
int fdma_buf_import(struct fdma_file *f, struct fdma_ioc_buf_import *r,
		    struct fdma_buffer **bp);
int fdma_buf_import_nvp2p(struct fdma_file *f, struct fdma_ioc_buf_nvp2p *r,
			  struct fdma_buffer **bp);
int fdma_buf_free(struct fdma_file *f, u32 handle);
struct fdma_buffer *fdma_buf_get(struct fdma_file *f, u32 handle);
void fdma_buf_put(struct fdma_buffer *b);
void fdma_buf_free_all(struct fdma_file *f);
void fdma_buf_quarantine_free(struct fdma_device *fdev);
void fdma_buf_revoke_all(struct fdma_device *fdev);
void fdma_buf_exit(void);
int fdma_buf_mmap(struct fdma_file *f, struct vm_area_struct *vma, u64 off);
u32 fdma_buf_piece(const struct fdma_buffer *b, u64 off, u64 left, u32 max,
		   dma_addr_t *bus);
void fdma_buf_sync(struct fdma_buffer *b, u64 off, u64 len,
		   enum dma_data_direction dir, bool for_device);
int fdma_buf_hold(struct fdma_buffer *b);
void fdma_buf_unhold(struct fdma_buffer *b);
int fdma_buf_stop_using(struct fdma_buffer *b, const char *why);
void fdma_buf_nosync(struct fdma_buffer *b);

/* fdma_export.c */
struct dma_buf *fdma_buf_export(struct fdma_file *f, u32 handle, int oflags);
extern atomic64_t fdma_export_count;
extern atomic64_t fdma_export_bytes;

/* fdma_dmabuf.c */
int fdma_dmabuf_map(struct fdma_buffer *b, u64 off);
void fdma_dmabuf_unmap(struct fdma_buffer *b);
void fdma_dmabuf_keep(struct fdma_buffer *b);

/* fdma_nvp2p.c, where the build has NVIDIA's nv-p2p.h (Kbuild NV_P2P_INC) */
#ifdef FDMA_NV_P2P
int fdma_nvp2p_map(struct fdma_buffer *b, u64 va);
void fdma_nvp2p_unmap(struct fdma_buffer *b);
void fdma_nvp2p_forget(struct fdma_buffer *b);
u32 fdma_nvp2p_page(void);
#else
static inline int fdma_nvp2p_map(struct fdma_buffer *b, u64 va)
{
	return -EOPNOTSUPP;
}

static inline void fdma_nvp2p_unmap(struct fdma_buffer *b)
{
}

static inline void fdma_nvp2p_forget(struct fdma_buffer *b)
{
}

static inline u32 fdma_nvp2p_page(void)
{
	return 0;
}
#endif

/* fdma_cq.c */
struct fdma_cq *fdma_file_cq(struct fdma_file *f, u32 ch);
void fdma_file_free_cqs(struct fdma_file *f);
u32 fdma_cq_queued(const struct fdma_cq *q);
int fdma_cq_mmap(struct fdma_file *f, struct vm_area_struct *vma, u64 off);
void fdma_file_notify(struct fdma_file *f);
void fdma_cq_notify(struct fdma_cq *q);

/* fdma_ioctl.c */
long fdma_cdev_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
int fdma_ioc_submit_group(struct fdma_file *f, u32 chan, u32 count, u64 uptr,
			  struct fdma_group *grp);
struct io_uring_cmd;
int fdma_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags);
u32 fdma_uring_features(void);

/* fdma_cdev.c */
extern const struct file_operations fdma_cdev_fops;
int fdma_range_check(u64 size, loff_t pos, size_t *count, bool write);
void fdma_files_wake(struct fdma_device *fdev);

/* fdma_sysfs.c */
int fdma_sysfs_init(struct fdma_device *fdev);
void fdma_sysfs_free(struct fdma_device *fdev);

/* fdma_debugfs.c */
void fdma_debugfs_init(void);
void fdma_debugfs_exit(void);
void fdma_debugfs_add(struct fdma_device *fdev);
void fdma_debugfs_remove(struct fdma_device *fdev);

#endif /* FDMA_DRV_H */
