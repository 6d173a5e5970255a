/* SPDX-License-Identifier: MIT */
/* libfdma internals, shared by the files in lib/ only. */
#ifndef FDMA_INTERNAL_H
#define FDMA_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>

#include "fdma.h"
#include "fdma_plat.h"
#include "fdma_engine.h"
#include "fdma_model.h"
#include "fdma_addrmap.h"
#include "fdma_mdev_opts.h"

#define FDMA_MAX_BUFS		4096
#define FDMA_USER_IRQS		32	/* at most, any engine (XDMA has 16) */
#define FDMA_DEFAULT_RING	1024u
#define FDMA_RESET_TIMEOUT_US	200000u
#define FDMA_SYNC_TIMEOUT_US	10000000ll

/*
 * Per-channel statistics have one writer (the channel's thread) and
 * readers anywhere (fdma_chan_stats()). Relaxed atomic loads and stores
 * keep each counter whole and cost the writer nothing over a plain add on
 * the machines we target; no reader needs the counters consistent with
 * one another. c is anything with a struct fdma_chan_stats st.
 */
#define STAT_ADD(c, f, k) \
	__atomic_store_n(&(c)->st.f, __atomic_load_n(&(c)->st.f, __ATOMIC_RELAXED) + (k), \
			 __ATOMIC_RELAXED)
#define STAT_GET(c, f) __atomic_load_n(&(c)->st.f, __ATOMIC_RELAXED)

/*
 * Buffers and channels are cache-line aligned: transfers bump a buffer's
 * inflight count and a channel's ring and statistics from the channel's
 * thread, and two threads on neighbouring entries must not share a line.
 */
struct fdma_buf {
	_Alignas(64) _Atomic int used;
	/*
	 * size, published with used for fdma_buf_count(), which reads slots it
	 * does not own without the lock: size itself is written plainly while
	 * a slot is taken again, perhaps as that reader looks.
	 */
	_Atomic size_t span;
	void *addr;
	size_t size;
	size_t map_len;		/* > 0: we mmap'ed it and unmap it on free */
	size_t map_off;		/* the mapping starts map_off bytes before addr */
	unsigned int flags;	/* FDMA_BUF_* in effect (HUGEPAGE: 2 MiB pages were had) */
	bool own;		/* kdev: the driver's memory (FDMA_IOC_BUF_ALLOC), which it may export */
	u64 bus;		/* sim: where the device sees it */
	u32 khandle;		/* kdev: the driver's handle for it */
	atomic_uint inflight;	/* sim: transfers queued on it */
};

/* One posted request, found again by the engine cookie (its first ring slot). */
struct fdma_reqent {
	u64 user_data;
	int buf;
	int dst_buf;		/* a copy's destination, else -1 */
};

/* A channel driven from user space by the engine core (lib/echan.c). */
struct fdma_echan {
	_Alignas(64) struct fdma_ering ring;
	bool present;
	void *mem;		/* descriptors, completions, write-back */
	u64 mem_bus;
	struct fdma_eslot *slot;
	struct fdma_reqent *req;
	int efd;		/* interrupt eventfd */
	enum fdma_wait_mode mode;
	unsigned int spin_us;
	bool irq_on;
	bool fd_used;		/* the application polls efd itself */
	bool canceling;		/* after a reset, handing back unfinished requests */
	bool halt_due;		/* a halting error was reaped: HALTED follows (section 10) */
	bool broken;		/* reset did not complete */
	u32 ctrl_flags;		/* CH_CTRL bits besides RUN */
	u32 coal_count, coal_usecs;
	atomic_uint irqs;	/* interrupts delivered (counted where they arrive) */
	struct fdma_chan_stats st;
};

/*
 * A backend: what a URI scheme opens. The API entry points (device.c,
 * buf.c, chan.c) check the device handle, the channel number and every
 * argument that does not depend on the backend, then call these; the
 * buffer slot is chosen (and published afterwards) by buf.c.
 */
struct fdma_ops {
	void (*close)(struct fdma_dev *dev);
	int (*buf_alloc)(struct fdma_dev *dev, struct fdma_buf *b, size_t size, unsigned int flags);
	int (*buf_register)(struct fdma_dev *dev, struct fdma_buf *b, void *addr, size_t size);
	/* [offset, + size) of dma-buf fd (checked: aligned, size > 0, fd >= 0). */
	int (*buf_import)(struct fdma_dev *dev, struct fdma_buf *b, int fd, u64 offset, size_t size);
	/* NVIDIA P2P: GPU memory (optional: NULL where the backend cannot). */
	int (*buf_nvp2p)(struct fdma_dev *dev, struct fdma_buf *b, u64 gpu_va, size_t size);
	/* A new dma-buf fd over b (an allocated buffer), or NULL: not offered. */
	int (*buf_export)(struct fdma_dev *dev, struct fdma_buf *b, unsigned int flags);
	/* 0, or -EBUSY while transfers use it (b stays valid). */
	int (*buf_free)(struct fdma_dev *dev, struct fdma_buf *b);
	int (*submit)(struct fdma_dev *dev, int ch, const struct fdma_req *reqs, unsigned int n);
	int (*submit_copy)(struct fdma_dev *dev, int ch, const struct fdma_copy *c, unsigned int n);
	/*
	 * One request on a memory-mapped channel, waited for up to timeout_us
	 * (fdma_read_card(), fdma_write_card()): 0, the error (its message
	 * set), or -EOPNOTSUPP with nothing done: submit and reap instead.
	 * Optional.
	 */
	int (*xfer)(struct fdma_dev *dev, int ch, const struct fdma_req *r, int64_t timeout_us);
	/* fdma_uring_prep() (chan.c checked the arguments); NULL: no kernel to take it. */
	int (*uring_prep)(struct fdma_dev *dev, int ch, const struct fdma_req *reqs, unsigned int n,
			  struct fdma_uring_cmd *cmd, struct io_uring_sqe *sqe);
	int (*reap)(struct fdma_dev *dev, int ch, struct fdma_cpl *cpls, unsigned int max,
		    unsigned int min_wait, int64_t timeout_us);
	int (*inflight)(struct fdma_dev *dev, int ch);
	int (*chan_fd)(struct fdma_dev *dev, int ch);
	/* irq < info.user_irqs (checked). */
	int (*user_irq_fd)(struct fdma_dev *dev, unsigned int irq);
	int (*set_wait)(struct fdma_dev *dev, int ch, enum fdma_wait_mode mode, unsigned int spin_us);
	int (*set_coalesce)(struct fdma_dev *dev, int ch, unsigned int count, unsigned int usecs);
	int (*set_drop)(struct fdma_dev *dev, int ch, int drop);
	int (*reset)(struct fdma_dev *dev, int ch);
	int (*set_testgen)(struct fdma_dev *dev, int ch, u32 frame_len, u32 period_ns, int enable);
	int (*testgen_counts)(struct fdma_dev *dev, int ch, u64 *frames, u64 *errors);
	int (*stats)(struct fdma_dev *dev, int ch, struct fdma_chan_stats *st);
	/* One register (32 bits, FDMA_REG_8 or _16 in flags); reg.c checked bar, flags, alignment. */
	int (*reg)(struct fdma_dev *dev, unsigned int bar, u64 off, u32 *val, bool write,
		   unsigned int flags);
};

struct fdma_kdev;
struct fdma_mdev;
struct fdma_sim;

struct fdma_dev {
	pthread_mutex_t lock;	/* the buffer table; backends' buffer calls run under it */
	u64 serial;		/* this process's devices, numbered from 1: keys error messages */
	const struct fdma_ops *ops;
	struct fdma_info info;
	bool link_known;	/* link describes the device's link: ceilings can be computed */
	struct fdma_link_cfg link;
	struct fdma_buf buf[FDMA_MAX_BUFS];
	/* fdma_chan_align(): set by the backend as it opens each channel */
	u32 chan_align[FDMA_MAX_CHAN];
	int uirq_efd[FDMA_USER_IRQS];	/* fdma_user_irq_fd(), -1 until asked for */
	/* The backend's own state: one of them, the other NULL. */
	struct fdma_sim *sim;		/* sim: and rtl: (sim.c, echan.c) */
	struct fdma_kdev *kdev;		/* kdev: the kernel driver (kdev.c) */
};

/*
 * sim: and rtl:: the engine core drives the simulated device in-process,
 * its channels from user space (echan.c).
 */
struct fdma_sim {
	struct fdma_eng_caps caps;
	struct fdma_plat plat;
	struct fdma_mdev *mdev;		/* the device (model/fdma_mdev.h) */
	struct fdma_addrmap map;	/* buffers and rings: bus address -> memory */
	struct fdma_echan ch[FDMA_MAX_CHAN];
};

/* A sim: or rtl: URI's options: the device's, and the library's own. */
struct fdma_sim_opts {
	struct fdma_mdev_opts dev;	/* the device (model/fdma_mdev_opts.h) */
	bool no_wb;		/* wb=0: XDMA completions from registers, not the write-back */
	u32 ring;		/* descriptors per channel ring */
	u32 coal_count, coal_usecs;
};

int fdma_err(struct fdma_dev *dev, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int fdma_parse_sim_uri(const char *opts, struct fdma_sim_opts *o, char *why, size_t whylen);
struct fdma_buf *fdma_buf_lookup(struct fdma_dev *dev, int h);
/* Buffer memory: 2 MiB huge pages (NULL if the system has none free), or
 * populated anonymous pages (thp: ask for transparent huge pages). */
void *fdma_mmap_hugetlb(size_t size, size_t *len);
void *fdma_mmap_anon(size_t size, bool thp, size_t *len);
void *fdma_mmap_fd(int fd, u64 offset, size_t size, size_t *map_off, size_t *len);
void fdma_buf_unmap(struct fdma_buf *b);
int64_t fdma_now_us(void);
/* Empty an interrupt eventfd (one read: it is not in semaphore mode). */
void fdma_efd_drain(int efd);
/*
 * Make an fdma_chan_fd() readable again. The device signals new
 * completions only; the library signals the ones already waiting (taken
 * after they finished, or left by a reap that stopped at max), so that
 * the fd is readable whenever there is something to reap.
 */
void fdma_efd_signal(int efd);
/* A channel's description in struct fdma_info, from its CH_CAPS. */
void fdma_chan_info_from_caps(struct fdma_chan_info *ci, u32 caps, u32 ring_size);
/*
 * Check request i of a batch: its buffer handle, its range in the buffer,
 * its flags, and the engine's rules (rules: a ring, or a copy of its rule
 * fields), with a message naming what is wrong. bus: the host address is
 * the buffer's bus address (else only the offset's alignment is known).
 */
int fdma_req_check(struct fdma_dev *dev, const struct fdma_ering *rules, unsigned int i,
		   const struct fdma_req *r, bool bus);
/* The same for copy i of a batch on a memory-to-memory channel. */
int fdma_copy_check(struct fdma_dev *dev, const struct fdma_ering *rules, unsigned int i,
		    const struct fdma_copy *cp, bool bus);

struct fdma_rtl_counts;
/* The RTL harness's counts (clocks, TLPs, MSI-X messages); -ENODEV if not rtl:. */
int fdma_rtl_counts_get(struct fdma_dev *dev, struct fdma_rtl_counts *out);

/* sim: backend (sim.c), its channels (echan.c) */
int fdma_sim_open(struct fdma_dev *dev, const struct fdma_sim_opts *o);
extern const struct fdma_ops fdma_sim_ops;
int fdma_echan_setup(struct fdma_dev *dev, int ch, u32 ring_size);
void fdma_echan_teardown(struct fdma_dev *dev, int ch);
int fdma_echan_submit(struct fdma_dev *dev, int ch, const struct fdma_req *reqs, unsigned int n);
int fdma_echan_submit_copy(struct fdma_dev *dev, int ch, const struct fdma_copy *cps, unsigned int n);
int fdma_echan_reap(struct fdma_dev *dev, int ch, struct fdma_cpl *cpls, unsigned int max,
		    unsigned int min_wait, int64_t timeout_us);
int fdma_echan_inflight(struct fdma_dev *dev, int ch);
int fdma_echan_fd(struct fdma_dev *dev, int ch);
int fdma_echan_set_wait(struct fdma_dev *dev, int ch, enum fdma_wait_mode mode, unsigned int spin_us);
int fdma_echan_set_coalesce(struct fdma_dev *dev, int ch, unsigned int count, unsigned int usecs);
int fdma_echan_set_drop(struct fdma_dev *dev, int ch, int drop);
int fdma_echan_reset(struct fdma_dev *dev, int ch);
int fdma_echan_set_testgen(struct fdma_dev *dev, int ch, u32 frame_len, u32 period_ns, int enable);
int fdma_echan_testgen_counts(struct fdma_dev *dev, int ch, u64 *frames, u64 *errors);
int fdma_echan_stats(struct fdma_dev *dev, int ch, struct fdma_chan_stats *st);

/* kdev: backend (kdev.c): path is the device node */
int fdma_kdev_open(struct fdma_dev *dev, const char *path);
extern const struct fdma_ops fdma_kdev_ops;

bool fdma_dev_live(const struct fdma_dev *dev);

#endif
