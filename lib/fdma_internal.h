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

#define FDMA_MAX_BUFS		4096
#define FDMA_DEFAULT_RING	1024u
#define FDMA_RESET_TIMEOUT_US	200000u
#define FDMA_SYNC_TIMEOUT_US	10000000ll

struct fdma_buf {
	_Atomic int used;
	void *addr;
	size_t size;
	u64 bus;
	size_t map_len;		/* > 0: we mmap'ed it and unmap it on free */
	atomic_uint inflight;	/* transfers queued on it */
};

/* One posted request, found again by the engine cookie (its first ring slot). */
struct fdma_reqent {
	u64 user_data;
	int buf;
};

struct fdma_chan {
	struct fdma_ering ring;
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
	bool broken;		/* reset did not complete */
	u32 ctrl_flags;		/* CH_CTRL bits besides RUN */
	u32 coal_count, coal_usecs;
	struct fdma_chan_stats st;
};

struct fdma_dev {
	pthread_mutex_t lock;	/* buffers and error message */
	char err[256];
	struct fdma_info info;
	struct fdma_eng_caps caps;
	struct fdma_plat plat;
	/* the simulated device */
	struct fdma_model *model;
	struct fdma_link_cfg link;
	struct fdma_addrmap map;
	volatile u32 *regs;
	struct fdma_buf buf[FDMA_MAX_BUFS];
	struct fdma_chan ch[FDMA_MAX_CHAN];
};

/* URI options of the simulated device. */
struct fdma_sim_opts {
	struct fdma_model_cfg model;
	u32 ring;		/* descriptors per channel ring */
	u32 coal_count, coal_usecs;
};

int fdma_err(struct fdma_dev *dev, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int fdma_parse_sim_uri(const char *opts, struct fdma_sim_opts *o, char *why, size_t whylen);
int fdma_parse_size(const char *s, u64 *out);

/* sim backend */
int fdma_sim_open(struct fdma_dev *dev, const struct fdma_sim_opts *o);
void fdma_sim_close(struct fdma_dev *dev);

/* buffers (internal ones carry no handle) */
int fdma_map_mem(struct fdma_dev *dev, void *addr, size_t size, u64 *bus);
void fdma_unmap_mem(struct fdma_dev *dev, u64 bus);
void fdma_buf_unmap(struct fdma_buf *b);
struct fdma_buf *fdma_buf_lookup(struct fdma_dev *dev, int h);

/* channels */
int fdma_chan_setup(struct fdma_dev *dev, int ch, u32 ring_size);
void fdma_chan_teardown(struct fdma_dev *dev, int ch);

/* validation shared by the API entry points */
struct fdma_chan *fdma_get_chan(struct fdma_dev *dev, int ch);
bool fdma_dev_live(const struct fdma_dev *dev);

#endif
