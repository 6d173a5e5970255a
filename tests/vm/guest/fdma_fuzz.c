// SPDX-License-Identifier: MIT
/*
 * ioc_fuzz_cov: a coverage-guided fuzzer of fdma.ko's user interface
 * (include/fdma_ioctl.h, docs/vm-harness.md "Coverage").
 *
 * usage: fdma_fuzz SECONDS [SEED]
 *        fdma_fuzz --replay FILE
 *
 * A program is a short sequence of calls (at most MAXCALLS): every ioctl,
 * mmap of completion queues and of buffers, read and write, poll, fasync,
 * a file closed and opened again, a completion queue's head written by
 * hand, a dma-buf moved or GPU memory freed under the driver, raw ioctl
 * numbers with random bytes. The arguments know the interface: a buffer
 * handle names the result of an earlier call of the program (valid, freed
 * since, another file's) or is made up; sizes, offsets, counts and card
 * addresses are the device's limits (alignment, page, ring, batch and
 * queue sizes, longest descriptor, card memory, a buffer's end) or just
 * beside them, or random; channels are the device's, of the kind the call
 * wants or another, or none. Calls go to two open files (and a read-only
 * one), and a program may run its calls on two threads at once. Where the
 * DMA API's debug is on, no two live buffers register the same memory
 * (see regs below: that debug cannot tell their mappings apart).
 *
 * With fdma.ko built for coverage (tests/vm/run.sh --coverage: then
 * /sys/kernel/debug/fdma_cov/points counts the coverage points reached), a
 * program that raises that count is kept, and most later programs are
 * kept ones mutated (an argument changed; a call added, removed, copied,
 * moved to the other thread or file; two programs spliced). Without it,
 * every program is new (blind).
 *
 * It runs for SECONDS, prints the calls made, the programs run and kept
 * and the points reached, and passes if every ioctl failed, when it did,
 * with an errno the interface names, no read or write counted more bytes
 * than its buffer holds, the device still moves a transfer both ways with
 * every byte right, and no buffer or pinned page is left. The kernel log
 * (KASAN, lockdep, ...) is the row's to check.
 *
 * SEED (default 1, printed) makes the programs and their mutations; which
 * programs are kept depends on the points they reach, and that on timing
 * (interrupts, two threads), so two runs with one seed are the same
 * program for program only as long as they keep the same ones. The first
 * programs after which the kernel logged a report (KASAN, lockdep, the DMA
 * API's debug, UBSAN, a warning) or an error are printed, a call a line; --replay
 * runs such a program again from a file, call by call, on one thread,
 * printing each call's result and what the kernel logged. A fatal signal
 * in the fuzzer itself (SIGSEGV, SIGBUS, SIGFPE) prints the program it
 * came in the same way before the fuzzer dies of it.
 */
#include <linux/udmabuf.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/time.h>

#include "vmioc.h"

static const char *T = "ioc_fuzz_cov";

#define MAXCALLS	24
#define NSLOTS		8
#define NFILES		3	/* 0, 1 read-write; 2 read-only */
#define CORPUS		1024
#define MAXMADE		256
#define MAXREQS		(FDMA_IOC_MAX_BATCH + 8)
#define POOL_BYTES	(16u << 20)
#define IO_BYTES	(1u << 20)	/* read() and write()'s buffer, per thread */
#define ALLOC_BUDGET	(64ull << 20)	/* driver buffers one file may hold here */
#define COV_POINTS	"/sys/kernel/debug/fdma_cov/points"

enum op {
	OP_INFO, OP_ALLOC, OP_REGISTER, OP_IMPORT, OP_NVP2P, OP_FREE, OP_SUBMIT, OP_COPY,
	OP_WAIT, OP_COALESCE, OP_RESET, OP_TESTGEN, OP_STATS, OP_DROP, OP_CQ_EVENTFD,
	OP_USER_IRQ, OP_REG, OP_MMAP, OP_RW, OP_POLL, OP_FASYNC, OP_REOPEN, OP_CQ_HEAD,
	OP_RAW, OP_MOVE, NOPS
};

static const char * const op_names[NOPS] = {
	"INFO", "BUF_ALLOC", "BUF_REGISTER", "BUF_IMPORT", "BUF_NVP2P", "BUF_FREE", "SUBMIT",
	"COPY", "WAIT", "COALESCE", "CHAN_RESET", "TESTGEN", "STATS", "DROP", "CQ_EVENTFD",
	"USER_IRQ", "REG", "mmap", "read/write", "poll", "fasync", "reopen", "cq_head", "raw",
	"move",
};

/* How often a new call is each op (out of the sum). */
static const unsigned int op_weight[NOPS] = {
	[OP_INFO] = 2, [OP_ALLOC] = 12, [OP_REGISTER] = 8, [OP_IMPORT] = 4, [OP_NVP2P] = 3,
	[OP_FREE] = 8, [OP_SUBMIT] = 18, [OP_COPY] = 8, [OP_WAIT] = 10, [OP_COALESCE] = 3,
	[OP_RESET] = 3, [OP_TESTGEN] = 4, [OP_STATS] = 2, [OP_DROP] = 2, [OP_CQ_EVENTFD] = 2,
	[OP_USER_IRQ] = 2, [OP_REG] = 3, [OP_MMAP] = 5, [OP_RW] = 4, [OP_POLL] = 2,
	[OP_FASYNC] = 1, [OP_REOPEN] = 1, [OP_CQ_HEAD] = 2, [OP_RAW] = 4, [OP_MOVE] = 1,
};

/*
 * A value: its kind in the top byte, a parameter below. Resolved when the
 * call runs, against what it is a size or offset of (a buffer, card
 * memory, the rest of a buffer after an offset).
 */
enum {
	V_TAB,		/* interesting[param % ninteresting] */
	V_END_MINUS,	/* the end less param units (param 0: the end itself) */
	V_END_PLUS,	/* the end plus param bytes */
	V_RAND,		/* a multiple of the unit below the end, from param */
	V_RAW,		/* param itself (56 bits) */
	V_KINDS
};
#define V(kind, param)	(((uint64_t)(kind) << 56) | ((param) & ((1ull << 56) - 1)))

/* A channel: one of the device's (by number), the first that is none, or garbage. */
#define CH_NONE		0xfe
#define CH_JUNK		0xff

struct call {
	uint8_t op;
	uint8_t file;		/* 0, 1, 2 (read-only) */
	uint8_t thread;		/* 0 or 1 */
	uint8_t slot;		/* the buffer slot it makes or names */
	uint8_t slot2;		/* a second buffer (COPY's destination) */
	uint8_t hkind;		/* the handle: 0 the slot's, 1 the other file's slot, 2 made up, 3 slot's + 1 */
	uint8_t chan;
	uint8_t spoil;		/* one thing made wrong (op-specific), 0 none */
	uint32_t count;		/* a batch's requests: V_TAB index, or small literal */
	uint32_t flags;		/* op-specific choices */
	uint64_t a, b, c;	/* values: size/length, offset, card address */
	uint64_t seed;		/* everything else (a batch's other requests, raw bytes) */
};

struct prog {
	int n;
	struct call c[MAXCALLS];
};

/* ---- random numbers ---------------------------------------------------------- */

static inline uint64_t xs(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static inline uint64_t xn(uint64_t *s, uint64_t n)
{
	return n ? xs(s) % n : 0;
}

static uint64_t grs;	/* the generator's: programs and mutations */

static uint64_t rn(uint64_t n)
{
	return xn(&grs, n);
}

/* ---- the device and the run's state ------------------------------------------- */

static struct vi_dev d;		/* file 0's INFO */
static char dev[64];
static uint64_t interesting[96];
static int ninteresting;
static int chan_h2c[FDMA_IOC_MAX_CHAN], chan_c2h[FDMA_IOC_MAX_CHAN];
static int chan_h2cs[FDMA_IOC_MAX_CHAN], chan_c2hs[FDMA_IOC_MAX_CHAN], chan_mem[FDMA_IOC_MAX_CHAN];
static int nh2c, nc2h, nh2cs, nc2hs, nmem;

struct slot {
	int valid;		/* made and not freed since */
	uint32_t handle;	/* kept after a free: a stale handle */
	uint64_t size;
	uint64_t mmap_offset;	/* allocated buffers */
};

struct file {
	int fd;
	struct fdma_cq_hdr *cq[FDMA_IOC_MAX_CHAN];
	size_t cq_bytes;
	struct slot slot[NSLOTS];
	uint32_t made[MAXMADE];	/* every handle made since the last cleanup */
	int nmade;
	uint64_t alloc_bytes;
};

static struct file files[NFILES];
static pthread_mutex_t st_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *pool;			/* memory to register (guarded()) */
static int efd = -1;			/* an eventfd */
#define DMABUF_BYTES	(256u << 10)
static int udma_fd = -1;		/* a udmabuf dma-buf */
static int texp_dev = -1, texp_fd = -1;	/* fdma_testexp's dma-buf, that moves */
static int gpu_dev = -1;		/* the NVIDIA P2P stand-in's /dev/fdma_gpu */
static uint64_t gpu_va, gpu_size = 1 << 20;
static int closed_fd = 1000;		/* a number no file has */
static uint8_t *ro_page;		/* a read-only page */
static int touched_ctl;			/* a program set TESTGEN, DROP or COALESCE */
static uint32_t chan_used;		/* channels a program queued work on */

/* What happened: per op, calls, successes, errnos. */
static long n_calls, n_ok[NOPS], n_op[NOPS];
static double t_op[NOPS], t_cleanup;	/* seconds spent */
static long n_errno[NOPS][160];
static long n_unexpected;
static char unexpected_what[200];

/* ---- values --------------------------------------------------------------------- */

static void add_int(uint64_t v)
{
	for (int i = 0; i < ninteresting; i++)
		if (interesting[i] == v)
			return;
	if (ninteresting < (int)(sizeof(interesting) / sizeof(interesting[0])))
		interesting[ninteresting++] = v;
}

static void make_interesting(void)
{
	const struct fdma_ioc_info *in = &d.info;
	uint64_t al = in->align ? in->align : 64;
	static const uint64_t fixed[] = {
		0, 1, 2, 3, 4, 7, 8, 16, 63, 64, 65, 255, 256, 511, 512, 1023, 1024, 1025,
		4095, 4096, 4097, 8192, 65535, 65536, 65537, 1 << 20, (1 << 20) + 4096,
		(4 << 20) - 4096, 4 << 20, (4 << 20) + 4096, 16 << 20, 1ull << 31,
		(1ull << 32) - 1, 1ull << 32, 1ull << 40, 1ull << 63, (1ull << 63) - 1,
		~0ull, ~0ull - 4095,
	};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		add_int(fixed[i]);
	add_int(al - 1);
	add_int(al);
	add_int(al + 1);
	add_int(2 * al);
	add_int(in->max_desc_len - al);
	add_int(in->max_desc_len);
	add_int((uint64_t)in->max_desc_len + al);
	add_int(in->ring_size - 1);
	add_int(in->ring_size);
	add_int(in->ring_size + 1);
	add_int((uint64_t)in->ring_size * 4096);
	add_int((uint64_t)in->ring_size * 4096 + 4096);
	add_int(in->cq_entries - 1);
	add_int(in->cq_entries);
	add_int(in->cq_entries + 1);
	add_int(FDMA_IOC_MAX_BATCH);
	add_int(FDMA_IOC_MAX_BATCH + 1);
	add_int(in->card_size - 4096);
	add_int(in->card_size - al);
	add_int(in->card_size);
	add_int(in->card_size + al);
	add_int(~0ull - in->card_size + 1);
}

/*
 * The value v names, for something that ends at end (a buffer's size,
 * card memory) in units of unit; seeded choices from *s.
 */
static uint64_t val(uint64_t v, uint64_t end, uint64_t unit, uint64_t *s)
{
	uint64_t p = v & ((1ull << 56) - 1);

	if (!unit)
		unit = 1;
	switch (v >> 56) {
	case V_TAB:
		return interesting[p % (uint64_t)ninteresting];
	case V_END_MINUS:
		return end - (p % 4) * unit;
	case V_END_PLUS:
		return end + p % 4097;
	case V_RAND:
		return end >= unit ? xn(s, end / unit) * unit : 0;
	default:
		return p;
	}
}

/* A new value: mostly about end, sometimes the table, rarely raw. */
static uint64_t gen_val(void)
{
	switch (rn(10)) {
	case 0: case 1: case 2:
		return V(V_TAB, rn(1 << 16));
	case 3: case 4:
		return V(V_END_MINUS, rn(4));
	case 5:
		return V(V_END_PLUS, rn(2) ? rn(4097) : 1);
	case 6: case 7: case 8:
		return V(V_RAND, rn(1 << 16));
	default:
		return V(V_RAW, rn(2) ? rn(1 << 20) : xs(&grs));
	}
}

/* A small count: 1..8 mostly, or from the table. */
static uint32_t gen_count(void)
{
	switch (rn(8)) {
	case 0:
		return 0x80000000u | (uint32_t)rn(1 << 16);	/* from the table */
	case 1:
		return (uint32_t)(1 + rn(64));
	default:
		return (uint32_t)(1 + rn(8));
	}
}

static uint64_t count_of(uint32_t c)
{
	return c & 0x80000000u ? interesting[(c & 0xffff) % (uint32_t)ninteresting] : c;
}

/* ---- channels ------------------------------------------------------------------- */

static int pick(const int *list, int n)
{
	return n ? list[rn((uint64_t)n)] : (int)rn(d.info.nchan ? d.info.nchan : 1);
}

/* A channel for op: mostly of the kind it wants. */
static uint8_t gen_chan(int op)
{
	unsigned int r = (unsigned int)rn(20);

	if (r == 0)
		return CH_NONE;
	if (r == 1)
		return CH_JUNK;
	if (r < 5 || !d.info.nchan)
		return (uint8_t)rn(d.info.nchan ? d.info.nchan : 1);
	switch (op) {
	case OP_SUBMIT:
		switch (rn(4)) {
		case 0: return (uint8_t)pick(chan_h2c, nh2c);
		case 1: return (uint8_t)pick(chan_c2h, nc2h);
		case 2: return (uint8_t)pick(chan_c2hs, nc2hs);
		default: return (uint8_t)pick(chan_h2cs, nh2cs);
		}
	case OP_COPY:
		return (uint8_t)pick(chan_mem, nmem);
	case OP_TESTGEN:
	case OP_DROP:
		return (uint8_t)(rn(2) ? pick(chan_c2hs, nc2hs) : pick(chan_h2cs, nh2cs));
	default:
		return (uint8_t)rn(d.info.nchan);
	}
}

static uint32_t chan_of(uint8_t c, uint64_t *s)
{
	if (c == CH_NONE)
		return d.info.nchan;
	if (c == CH_JUNK)
		return xn(s, 2) ? FDMA_IOC_MAX_CHAN + (uint32_t)xn(s, 4) : (uint32_t)xs(s);
	return c;
}

/* ---- programs ------------------------------------------------------------------- */

static void gen_call(struct call *c, const uint8_t *made, int nmade_slots)
{
	uint64_t w = 0, r;
	int op;

	for (int i = 0; i < NOPS; i++)
		w += op_weight[i];
	r = rn(w);
	for (op = 0; op < NOPS - 1 && r >= op_weight[op]; op++)
		r -= op_weight[op];
	memset(c, 0, sizeof(*c));
	c->op = (uint8_t)op;
	c->file = rn(16) ? (uint8_t)rn(2) : 2;
	c->thread = 0;
	/* Mostly a slot an earlier call of the program made. */
	c->slot = nmade_slots && rn(5) ? made[rn((uint64_t)nmade_slots)] : (uint8_t)rn(NSLOTS);
	c->slot2 = nmade_slots && rn(5) ? made[rn((uint64_t)nmade_slots)] : (uint8_t)rn(NSLOTS);
	c->hkind = rn(8) ? 0 : (uint8_t)(1 + rn(3));
	c->chan = gen_chan(op);
	c->spoil = rn(4) ? 0 : (uint8_t)(1 + rn(8));
	c->count = gen_count();
	c->flags = (uint32_t)xs(&grs);
	c->a = gen_val();
	c->b = gen_val();
	c->c = gen_val();
	c->seed = xs(&grs) | 1;
	/*
	 * Sizes of new buffers: mostly sensible, so that the rest has
	 * something to use, and mostly small (under TCG and KASAN, every
	 * megabyte allocated, zeroed and pinned takes its time).
	 */
	if ((op == OP_ALLOC || op == OP_REGISTER) && rn(3))
		c->a = V(V_RAW, (1 + rn(rn(8) ? 16 : 1024)) * 4096 - (rn(4) ? 0 : rn(4096)));
	if (op == OP_SUBMIT || op == OP_COPY) {
		if (rn(2))
			c->b = V(V_RAW, 0);
		if (rn(2))
			c->a = V(V_RAW, (1 + rn(64)) * (d.info.align ? d.info.align : 64));
	}
}

static void gen_prog(struct prog *p)
{
	uint8_t made[MAXCALLS];
	int nm = 0;

	p->n = 1 + (int)rn(rn(4) ? 8 : MAXCALLS);
	for (int i = 0; i < p->n; i++) {
		gen_call(&p->c[i], made, nm);
		if (p->c[i].op == OP_ALLOC || p->c[i].op == OP_REGISTER ||
		    p->c[i].op == OP_IMPORT || p->c[i].op == OP_NVP2P)
			made[nm++] = p->c[i].slot;
	}
	if (rn(4) == 0)	/* two threads */
		for (int i = 0; i < p->n; i++)
			p->c[i].thread = (uint8_t)rn(2);
}

static void mutate(struct prog *p, const struct prog *other)
{
	int i = p->n ? (int)rn((uint64_t)p->n) : 0;
	struct call *c = &p->c[i];
	uint8_t made[MAXCALLS];
	int nm = 0;

	for (int k = 0; k < p->n; k++)
		if (p->c[k].op == OP_ALLOC || p->c[k].op == OP_REGISTER)
			made[nm++] = p->c[k].slot;
	switch (rn(14)) {
	case 0: {	/* a new call in its place, on the same thread */
		uint8_t th = c->thread;

		gen_call(c, made, nm);
		c->thread = th;
		break;
	}
	case 1:	/* a call more */
		if (p->n < MAXCALLS) {
			memmove(&p->c[i + 1], &p->c[i], (size_t)(p->n - i) * sizeof(*c));
			p->n++;
			gen_call(&p->c[i], made, nm);
		}
		break;
	case 2:	/* a call less */
		if (p->n > 1) {
			memmove(&p->c[i], &p->c[i + 1], (size_t)(p->n - i - 1) * sizeof(*c));
			p->n--;
		}
		break;
	case 3:	/* a call twice */
		if (p->n < MAXCALLS) {
			memmove(&p->c[i + 1], &p->c[i], (size_t)(p->n - i) * sizeof(*c));
			p->n++;
		}
		break;
	case 4:	/* the other thread, or the other file */
		if (rn(2))
			c->thread ^= 1;
		else
			c->file = c->file == 2 ? 0 : c->file ^ 1;
		break;
	case 5:	/* spliced: our start, the other's end */
		if (other && other->n) {
			int j = (int)rn((uint64_t)other->n), k = i + 1;

			for (; j < other->n && k < MAXCALLS; j++, k++)
				p->c[k] = other->c[j];
			p->n = k;
		}
		break;
	case 6:
		c->a = rn(2) ? gen_val() : (c->a ^ (1ull << rn(56)));
		break;
	case 7:
		c->b = gen_val();
		break;
	case 8:
		c->c = gen_val();
		break;
	case 9:
		c->chan = gen_chan(c->op);
		break;
	case 10:
		c->count = gen_count();
		c->spoil = rn(2) ? 0 : (uint8_t)(1 + rn(8));
		break;
	case 11:
		c->flags ^= 1u << rn(32);
		break;
	case 12:
		c->slot = (uint8_t)rn(NSLOTS);
		c->slot2 = (uint8_t)rn(NSLOTS);
		c->hkind = rn(4) ? 0 : (uint8_t)rn(4);
		break;
	default:
		c->seed = xs(&grs) | 1;
		break;
	}
}

/* ---- running a program ------------------------------------------------------------ */

/*
 * A call's flags: bits 0-19 are its op's choices (fsel() picks among n from
 * a byte), 20-25 the ioctl number's variant (cmd_of()), 26-31 the argument
 * pointer's (argp()); F_PLAIN: the real number and a good pointer.
 */
#define F_PLAIN		0xfff00000u

static inline unsigned int fsel(uint32_t f, int shift, unsigned int n)
{
	return ((f >> shift) & 0xff) % n;
}

static __thread int last_ret, last_err;	/* the last call's, for --replay */

static void note(int op, int ret, int e)
{
	last_ret = ret;
	last_err = e;
	__atomic_fetch_add(&n_calls, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&n_op[op], 1, __ATOMIC_RELAXED);
	if (!ret)
		__atomic_fetch_add(&n_ok[op], 1, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&n_errno[op][e > 0 && e < 160 ? e : 0], 1, __ATOMIC_RELAXED);
}

/* The errnos include/fdma_ioctl.h names (and the ones of its calls' own). */
static int errno_ok(int e)
{
	switch (e) {
	case ENOTTY: case EFAULT: case EINVAL: case EBADF: case ERANGE: case E2BIG:
	case EAGAIN: case EBUSY: case EOPNOTSUPP: case EIO: case ENODEV: case ENOSPC:
	case ENOMEM: case ETIMEDOUT: case EINTR: case EMSGSIZE: case EPERM: case ENXIO:
		return 1;
	}
	return 0;
}

static int xioctl(int op, int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg), e = errno;

	note(op, ret, e);
	if (ret && !errno_ok(e) && !__atomic_fetch_add(&n_unexpected, 1, __ATOMIC_RELAXED))
		snprintf(unexpected_what, sizeof(unexpected_what), "%s (cmd 0x%lx): %s",
			 op_names[op], cmd, strerror(e));
	errno = e;
	return ret;
}

static int open_file(int i)
{
	struct file *f = &files[i];

	f->fd = vt_open_dev(dev, i == 2 ? O_RDONLY : O_RDWR, 2000);
	if (f->fd < 0)
		return -errno;
	f->cq_bytes = (size_t)FDMA_CQ_MMAP_BYTES(d.info.cq_entries);
	for (unsigned int ch = 0; ch < d.info.nchan && i < 2; ch++) {
		void *p = mmap(NULL, f->cq_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
			       (off_t)FDMA_CQ_MMAP_OFFSET(ch));

		f->cq[ch] = p == MAP_FAILED ? NULL : p;
	}
	return 0;
}

/*
 * Registered ranges alive, where the DMA API's debug is on: there no two
 * live buffers register the same memory. On a device without an IOMMU
 * both mappings of such memory have the same bus addresses, and the DMA
 * API's debug, which looks a sync up by its address, finds two mappings,
 * neither a perfect fit, and reports the sync as one of memory the driver
 * never mapped (fdma_ioc_xfer.c's ioc_batch_twice covers memory registered
 * twice where nothing is reported). Under st_lock.
 */
static struct reg_range {
	int file;
	uint32_t handle;	/* 0 while claimed (reg_claim()) */
	uint32_t ticket;
	uintptr_t lo, hi;
} regs[2 * MAXMADE];
static int nregs, no_overlap;

static void reg_drop_locked(int file, uint32_t h)
{
	for (int i = 0; i < nregs; i++)
		if (regs[i].file == file && (regs[i].handle == h || !h)) {
			regs[i--] = regs[--nregs];
			if (h)
				break;
		}
}

/*
 * Claim [lo, hi) for a registration about to be made, unless it would
 * share a page with one alive or claimed (pages, not bytes: the driver
 * maps whole pages, so two registrations of different bytes of one page
 * map it twice): the claim's ticket, or 0. Checked and claimed in one hold
 * of st_lock: the two threads of a program may register the same memory
 * at once, and a check apart from the claim let both go ahead (the DMA
 * API's debug then reported the syncs, and the row failed).
 */
static uint32_t reg_claim(int file, uintptr_t lo, uintptr_t hi)
{
	static uint32_t tickets;
	uintptr_t plo = lo & ~(uintptr_t)4095, phi = (hi + 4095) & ~(uintptr_t)4095;
	uint32_t t = 0;
	int hit = 0;

	pthread_mutex_lock(&st_lock);
	for (int i = 0; i < nregs && !hit; i++)
		hit = plo < regs[i].hi && regs[i].lo < phi;
	if (!hit && nregs < (int)(sizeof(regs) / sizeof(regs[0]))) {
		t = ++tickets ? tickets : ++tickets;
		regs[nregs++] = (struct reg_range){ file, 0, t, lo, hi };
	}
	pthread_mutex_unlock(&st_lock);
	return t;
}

/* The registration claimed as ticket t was made (as handle h), or not. */
static void reg_settle(uint32_t t, int made, int file, uint32_t h, uintptr_t lo, uintptr_t hi)
{
	int i;

	pthread_mutex_lock(&st_lock);
	for (i = 0; i < nregs && regs[i].ticket != t; i++)
		;
	if (i < nregs && made) {
		regs[i].handle = h;
	} else if (i < nregs) {
		regs[i] = regs[--nregs];
	} else if (made && nregs < (int)(sizeof(regs) / sizeof(regs[0]))) {
		/* OP_REOPEN dropped the claim: it may be the file opened since that has it. */
		regs[nregs++] = (struct reg_range){ file, h, 0, lo, hi };
	}
	pthread_mutex_unlock(&st_lock);
}

/* Under st_lock (OP_REOPEN's other thread may be using the file). */
static void close_file(int i)
{
	struct file *f = &files[i];

	for (int ch = 0; ch < FDMA_IOC_MAX_CHAN; ch++)
		if (f->cq[ch]) {
			munmap(f->cq[ch], f->cq_bytes);
			f->cq[ch] = NULL;
		}
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	reg_drop_locked(i, 0);
	memset(f->slot, 0, sizeof(f->slot));
	f->nmade = 0;
	f->alloc_bytes = 0;
}

/* Consume every queued completion (under st_lock): the head moves to the tail. */
static void drain_locked(void)
{
	for (int i = 0; i < 2; i++)
		for (int ch = 0; ch < FDMA_IOC_MAX_CHAN; ch++) {
			struct fdma_cq_hdr *h = files[i].cq[ch];

			if (h)
				__atomic_store_n(&h->head, __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE),
						 __ATOMIC_RELEASE);
		}
}

static void drain(void)
{
	pthread_mutex_lock(&st_lock);
	drain_locked();
	pthread_mutex_unlock(&st_lock);
}

/* The handle a call names (under st_lock); its size in *size, 0 if unknown. */
static uint32_t handle_of(const struct call *c, int file, int which, uint64_t *s, uint64_t *size)
{
	int sl = which ? c->slot2 : c->slot;
	const struct slot *x;

	*size = 0;
	switch (c->hkind) {
	case 2:
		switch (xn(s, 4)) {
		case 0: return 0;
		case 1: return 65535;
		case 2: return 65536;
		default: return (uint32_t)xs(s);
		}
	case 1:
		file = file == 1 ? 0 : 1;
		break;
	}
	x = &files[file].slot[sl % NSLOTS];
	if (x->handle || x->valid)
		*size = x->size;
	return x->handle + (c->hkind == 3);
}

static void remember(int file, int sl, uint32_t h, uint64_t size, uint64_t mmap_off)
{
	struct file *f = &files[file];
	struct slot *x = &f->slot[sl % NSLOTS];

	pthread_mutex_lock(&st_lock);
	x->valid = 1;
	x->handle = h;
	x->size = size;
	x->mmap_offset = mmap_off;
	if (f->nmade < MAXMADE) {
		f->made[f->nmade++] = h;
		h = 0;
	}
	pthread_mutex_unlock(&st_lock);
	if (h)	/* no room to remember it: free it now */
		ioctl(f->fd, FDMA_IOC_BUF_FREE, &h);
}

static void forget(int file, uint32_t h)
{
	struct file *f = &files[file];

	pthread_mutex_lock(&st_lock);
	reg_drop_locked(file, h);
	for (int i = 0; i < NSLOTS; i++)
		if (f->slot[i].valid && f->slot[i].handle == h) {
			f->slot[i].valid = 0;
			if (f->alloc_bytes >= f->slot[i].size)
				f->alloc_bytes -= f->slot[i].size;
		}
	for (int i = 0; i < f->nmade; i++)
		if (f->made[i] == h) {
			f->made[i] = f->made[--f->nmade];
			break;
		}
	pthread_mutex_unlock(&st_lock);
}

/* An argument pointer: mostly the structure, sometimes not a good one. */
static void *argp(void *good, uint32_t flags)
{
	switch (flags >> 26) {
	case 0:
		return NULL;
	case 1:
		return (void *)(uintptr_t)0x10000;	/* nothing mapped there */
	case 2:
		return (void *)(uintptr_t)0xffff888000001000ull;
	case 3:
		return ro_page;
	default:
		return good;
	}
}

/*
 * The ioctl number: mostly cmd, sometimes with the structure's size grown
 * (zeros, or a non-zero byte beyond what the driver knows) or shrunk, or
 * the direction turned. The argument buffer has room for the growth.
 */
static unsigned long cmd_of(unsigned long cmd, uint32_t flags, uint8_t *arg)
{
	unsigned int sz = _IOC_SIZE(cmd);

	switch ((flags >> 20) & 63) {
	case 0:
		return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), sz + 8);
	case 1:
		arg[sz + 3] = 1;
		return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), sz + 8);
	case 2:
		return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), sz - 4);
	case 3:
		return _IOC(_IOC_DIR(cmd) ^ _IOC_WRITE, _IOC_TYPE(cmd), _IOC_NR(cmd), sz);
	default:
		return cmd;
	}
}

struct tls {
	struct fdma_ioc_req reqs[MAXREQS];
	struct fdma_ioc_copy copies[MAXREQS];
	uint8_t *io;		/* IO_BYTES (guarded()) */
};

static struct tls tls_of[2];

/*
 * bytes of memory (a multiple of the page size) followed by an
 * inaccessible page, or NULL. A length past the end (OP_RW's 1 TiB, a
 * registration's) then makes the kernel fault at that page (EFAULT, or a
 * short count) and stop there. After a static array came the rest of the
 * program's data, libc's included, for such a read to fill with card
 * memory: the fuzzer crashed or hung some calls later.
 */
static uint8_t *guarded(size_t bytes)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *p = mmap(NULL, bytes + pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + bytes, pg, PROT_NONE)) {
		munmap(p, bytes + pg);
		return NULL;
	}
	return p;
}

/* One call, on thread th. */
static void run_call1(const struct call *c, int th)
{
	struct tls *t = &tls_of[th];
	uint64_t s = c->seed, size = 0, size2 = 0, al = d.info.align ? d.info.align : 64;
	int fi = c->file % NFILES, fd, ret, e;
	union {
		uint8_t raw[512];
		struct fdma_ioc_info info;
		struct fdma_ioc_buf_alloc ba;
		struct fdma_ioc_buf_reg br;
		struct fdma_ioc_buf_import bi;
		struct fdma_ioc_buf_nvp2p bn;
		uint32_t u32;
		struct fdma_ioc_submit sb;
		struct fdma_ioc_copy_submit cs;
		struct fdma_ioc_wait w;
		struct fdma_ioc_coalesce co;
		struct fdma_ioc_testgen tg;
		struct fdma_ioc_stats st;
		struct fdma_ioc_drop dr;
		struct fdma_ioc_cq_eventfd ce;
		struct fdma_ioc_user_irq ui;
		struct fdma_ioc_reg rg;
	} a;
	uint32_t h, h2;
	unsigned long cmd;

	memset(&a, 0, sizeof(a));
	pthread_mutex_lock(&st_lock);
	fd = files[fi].fd;
	h = handle_of(c, fi, 0, &s, &size);
	h2 = handle_of(c, fi, 1, &s, &size2);
	pthread_mutex_unlock(&st_lock);

	switch (c->op) {
	case OP_INFO:
		cmd = cmd_of(FDMA_IOC_INFO, c->flags, a.raw);
		xioctl(c->op, fd, cmd, argp(&a, c->flags));
		break;

	case OP_ALLOC: {
		uint64_t sz = val(c->a, 1 << 20, 4096, &s);

		/* Never more than the budget: larger sizes only where no memory has them. */
		if (sz > (32u << 20) && sz < (1ull << 40))
			sz &= (32u << 20) - 1;
		if (files[fi].alloc_bytes + sz > ALLOC_BUDGET && sz < (1ull << 40))
			break;
		a.ba.size = sz;
		if (c->spoil == 1)
			a.ba.flags = 1u << xn(&s, 32);
		if (c->spoil == 2)
			a.ba.rsvd[xn(&s, 2)] = xs(&s);
		cmd = cmd_of(FDMA_IOC_BUF_ALLOC, c->flags, a.raw);
		if (xioctl(c->op, fd, cmd, argp(&a, c->flags)) || cmd != FDMA_IOC_BUF_ALLOC)
			break;
		files[fi].alloc_bytes += (sz + 4095) & ~4095ull;
		remember(fi, c->slot, a.ba.handle, (sz + 4095) & ~4095ull, a.ba.mmap_offset);
		if (c->flags & 0x10) {	/* mapped and written at once */
			void *p = mmap(NULL, (sz + 4095) & ~4095ull, PROT_READ | PROT_WRITE, MAP_SHARED,
				       fd, (off_t)a.ba.mmap_offset);

			if (p != MAP_FAILED) {
				for (uint64_t i = 0; i < sz; i += 4096)
					((volatile uint8_t *)p)[i] = 0x3c;
				munmap(p, (sz + 4095) & ~4095ull);
			}
		}
		break;
	}

	case OP_REGISTER: {
		uint64_t off = val(c->b, POOL_BYTES, al, &s), sz;
		uint32_t claim = 0;
		int is_reg, made;

		if (off > POOL_BYTES)
			off = POOL_BYTES;
		sz = val(c->a, POOL_BYTES - off, al, &s);
		a.br.addr = (uintptr_t)pool + off;
		switch (c->spoil) {
		case 1: a.br.addr += 1 + xn(&s, al - 1); break;
		case 2: a.br.addr = (uintptr_t)ro_page; break;
		case 3: a.br.addr = xn(&s, 2) ? 0 : 0xffff888000000000ull; break;
		case 4: a.br.flags = 1u << xn(&s, 32); break;
		case 5: a.br.rsvd[xn(&s, 2)] = 1; break;
		}
		a.br.size = sz;
		cmd = cmd_of(FDMA_IOC_BUF_REGISTER, c->flags, a.raw);
		/*
		 * See regs: skipped where the DMA API's debug could not tell two
		 * apart. Whatever the spoiling and the variant of the number:
		 * the driver may take an odd address, a flag, or the read-only
		 * page too.
		 */
		is_reg = _IOC_TYPE(cmd) == _IOC_TYPE(FDMA_IOC_BUF_REGISTER) &&
			 _IOC_NR(cmd) == _IOC_NR(FDMA_IOC_BUF_REGISTER);
		if (no_overlap && is_reg && !(claim = reg_claim(fi, a.br.addr, a.br.addr + sz)))
			break;
		made = !xioctl(c->op, fd, cmd, argp(&a, c->flags)) && is_reg;
		if (made && cmd == FDMA_IOC_BUF_REGISTER)
			remember(fi, c->slot, a.br.handle, sz, 0);
		if (claim)
			reg_settle(claim, made, fi, a.br.handle, a.br.addr, a.br.addr + sz);
		break;
	}

	case OP_IMPORT: {
		const int fds[] = { udma_fd, texp_fd, -1, fd, efd, closed_fd };
		uint64_t off;
		uintptr_t key;
		uint32_t claim = 0;
		int is_imp, made;

		a.bi.fd = fds[fsel(c->flags, 0, 6)];
		if ((a.bi.fd == udma_fd || a.bi.fd == texp_fd) && a.bi.fd < 0)
			a.bi.fd = udma_fd >= 0 ? udma_fd : texp_fd;
		off = val(c->b, DMABUF_BYTES, al, &s);
		a.bi.offset = off;
		a.bi.size = val(c->a, DMABUF_BYTES - (off < DMABUF_BYTES ? off : 0), al, &s);
		if (c->spoil == 1)
			a.bi.flags = 1;
		if (c->spoil == 2)
			a.bi.rsvd0 = 1;
		cmd = cmd_of(FDMA_IOC_BUF_IMPORT, c->flags, a.raw);
		/*
		 * See regs: two live imports of one dma-buf map its pages twice
		 * (an exporter maps the whole buffer for each attachment), so
		 * where the DMA API's debug is on, one at a time per dma-buf
		 * (a made-up range per descriptor stands for its pages).
		 */
		is_imp = _IOC_TYPE(cmd) == _IOC_TYPE(FDMA_IOC_BUF_IMPORT) &&
			 _IOC_NR(cmd) == _IOC_NR(FDMA_IOC_BUF_IMPORT) && a.bi.fd >= 0;
		key = ((uintptr_t)1 << 62) + (uintptr_t)a.bi.fd * 8192;
		if (no_overlap && is_imp && !(claim = reg_claim(fi, key, key + 1)))
			break;
		made = !xioctl(c->op, fd, cmd, argp(&a, c->flags)) && is_imp;
		if (made && cmd == FDMA_IOC_BUF_IMPORT)
			remember(fi, c->slot, a.bi.handle, a.bi.size, 0);
		if (claim)
			reg_settle(claim, made, fi, a.bi.handle, key, key + 1);
		break;
	}

	case OP_NVP2P: {
		uint64_t off = val(c->b, gpu_size, 65536, &s);

		a.bn.va = c->spoil == 1 ? xs(&s) : gpu_va + off;
		a.bn.size = val(c->a, gpu_size - (off < gpu_size ? off : 0), 65536, &s);
		if (c->spoil == 2)
			a.bn.flags = 1;
		cmd = cmd_of(FDMA_IOC_BUF_NVP2P, c->flags, a.raw);
		if (!xioctl(c->op, fd, cmd, argp(&a, c->flags)) && cmd == FDMA_IOC_BUF_NVP2P)
			remember(fi, c->slot, a.bn.handle, a.bn.size, 0);
		break;
	}

	case OP_FREE:
		a.u32 = h;
		if (!xioctl(c->op, fd, FDMA_IOC_BUF_FREE, argp(&a, c->flags)))
			forget(fi, h);
		break;

	case OP_SUBMIT:
	case OP_COPY: {
		uint64_t n = count_of(c->count), off, len, card;
		int spoilt = (int)xn(&s, n ? n : 1);

		if (n > MAXREQS)
			n = MAXREQS;
		off = val(c->b, size, al, &s);
		len = val(c->a, size > off ? size - off : 0, al, &s);
		card = val(c->c, d.info.card_size, al, &s);
		for (uint64_t i = 0; i < n; i++) {
			/* Tiles of one buffer by default: a valid batch. */
			uint64_t o = size && len && len <= size ? (off + i * len) % (size - len + 1) : off;

			o &= ~(al - 1);
			if (c->op == OP_SUBMIT) {
				struct fdma_ioc_req *q = &t->reqs[i];

				*q = (struct fdma_ioc_req){ .handle = h, .offset = o, .len = len,
							    .card_addr = (card + i * len) % (d.info.card_size ? d.info.card_size : 1),
							    .flags = c->flags & 7, .user_data = i };
				q->card_addr &= ~(al - 1);
				if (xn(&s, 8) == 0)
					q->handle = h2;
				if ((int)i != spoilt)
					continue;
				switch (c->spoil) {
				case 1: q->handle = (uint32_t)xs(&s); break;
				case 2: q->len = xn(&s, 2) ? 0 : len + 1; break;
				case 3: q->offset += 1 + xn(&s, al - 1); break;
				case 4: q->card_addr = d.info.card_size - xn(&s, 2) * al; break;
				case 5: q->flags = (uint32_t)xs(&s); break;
				}
			} else {
				struct fdma_ioc_copy *q = &t->copies[i];
				uint64_t o2 = size2 && len && len <= size2 ?
					      ((off + (i + 1) * len) % (size2 - len + 1)) & ~(al - 1) : off;

				*q = (struct fdma_ioc_copy){ .src_handle = h, .dst_handle = h2,
							     .src_offset = o, .dst_offset = o2, .len = len,
							     .flags = c->flags & 1, .user_data = i };
				if ((int)i != spoilt)
					continue;
				switch (c->spoil) {
				case 1: q->dst_handle = (uint32_t)xs(&s); break;
				case 2: q->len = 0; break;
				case 3: q->src_offset += 1 + xn(&s, al - 1); break;
				case 4: q->dst_handle = h; q->dst_offset = o; break;	/* overlap */
				case 5: q->flags = (uint32_t)xs(&s); break;
				case 6: q->rsvd = 1; break;
				}
			}
		}
		if (c->chan < FDMA_IOC_MAX_CHAN)
			__atomic_fetch_or(&chan_used, 1u << c->chan, __ATOMIC_RELAXED);
		if (c->op == OP_SUBMIT) {
			a.sb.chan = chan_of(c->chan, &s);
			a.sb.count = (uint32_t)n;
			a.sb.reqs = (uintptr_t)t->reqs;
			if (c->spoil == 6)
				a.sb.count = (uint32_t)count_of(c->count) ?: (uint32_t)xs(&s);
			if (c->spoil == 7)
				a.sb.rsvd[xn(&s, 4)] = 1;
			if (c->spoil == 8)
				a.sb.reqs = xn(&s, 2) ? 0 : 0x10000;
			xioctl(c->op, fd, FDMA_IOC_SUBMIT, argp(&a, c->flags));
		} else {
			a.cs.chan = chan_of(c->chan, &s);
			a.cs.count = (uint32_t)n;
			a.cs.copies = (uintptr_t)t->copies;
			if (c->spoil == 7)
				a.cs.rsvd[xn(&s, 4)] = 1;
			if (c->spoil == 8)
				a.cs.copies = 0;
			xioctl(c->op, fd, FDMA_IOC_COPY, argp(&a, c->flags));
		}
		break;
	}

	case OP_WAIT: {
		static const int64_t tmo[] = { 0, 1, 100, 1000, 5000, 50000, -1 };
		static const uint32_t mins[] = { 0, 1, 1, 2, 3, 8, 0xffffffffu };

		a.w.chan = chan_of(c->chan, &s);
		a.w.min_entries = mins[fsel(c->flags, 0, 7)];
		a.w.timeout_us = tmo[fsel(c->flags, 8, 7)];
		/* No limit only when it cannot sleep. */
		if (a.w.timeout_us < 0 && a.w.min_entries)
			a.w.timeout_us = 5000;
		if (c->spoil == 1)
			a.w.rsvd[xn(&s, 3)] = 1;
		cmd = cmd_of(FDMA_IOC_WAIT, c->flags, a.raw);
		xioctl(c->op, fd, cmd, argp(&a, c->flags));
		drain();
		break;
	}

	case OP_COALESCE: {
		static const uint32_t cnt[] = { 0, 1, 2, 32, 255, 256, 65535, 0xffffffffu };
		static const uint32_t us[] = { 0, 1, 100, 1000, 1000000, 0xffffffffu };

		a.co.chan = chan_of(c->chan, &s);
		a.co.count = cnt[fsel(c->flags, 0, 8)];
		a.co.usecs = us[fsel(c->flags, 8, 6)];
		if (c->spoil == 1)
			a.co.rsvd = 1;
		touched_ctl = 1;
		xioctl(c->op, fd, FDMA_IOC_COALESCE, argp(&a, c->flags));
		break;
	}

	case OP_RESET:
		a.u32 = chan_of(c->chan, &s);
		xioctl(c->op, fd, FDMA_IOC_CHAN_RESET, argp(&a, c->flags));
		drain();
		break;

	case OP_TESTGEN: {
		static const uint32_t len[] = { 64, 4096, 4096, 9000, 0, 4095, 65536, 1 << 20, 0xffffffffu };
		static const uint32_t per[] = { 0, 100000, 1000000, 1000, 0xffffffffu };

		a.tg.chan = chan_of(c->chan, &s);
		a.tg.enable = fsel(c->flags, 0, 4) == 3 ? (uint32_t)xs(&s) : fsel(c->flags, 0, 4);
		if (a.tg.enable != FDMA_IOC_TESTGEN_QUERY || c->spoil == 1) {
			a.tg.frame_len = len[fsel(c->flags, 8, 9)];
			a.tg.period_ns = per[((c->flags >> 16) & 15) % 5];
		}
		touched_ctl = 1;
		cmd = cmd_of(FDMA_IOC_TESTGEN, c->flags, a.raw);
		xioctl(c->op, fd, cmd, argp(&a, c->flags));
		break;
	}

	case OP_STATS:
		a.st.chan = chan_of(c->chan, &s);
		if (c->spoil == 1)
			a.st.rsvd = 1;
		cmd = cmd_of(FDMA_IOC_STATS, c->flags, a.raw);
		xioctl(c->op, fd, cmd, argp(&a, c->flags));
		break;

	case OP_DROP:
		a.dr.chan = chan_of(c->chan, &s);
		a.dr.drop = fsel(c->flags, 0, 3);
		touched_ctl = 1;
		xioctl(c->op, fd, FDMA_IOC_DROP, argp(&a, c->flags));
		break;

	case OP_CQ_EVENTFD: {
		const int fds[] = { efd, -1, -2, fd, closed_fd };

		a.ce.chan = chan_of(c->chan, &s);
		a.ce.fd = fds[fsel(c->flags, 0, 5)];
		if (c->spoil == 1)
			a.ce.rsvd[xn(&s, 2)] = 1;
		xioctl(c->op, fd, FDMA_IOC_CQ_EVENTFD, argp(&a, c->flags));
		break;
	}

	case OP_USER_IRQ: {
		const int fds[] = { efd, -1, -2, fd };
		const uint32_t irqs[] = { 0, 1, d.info.user_irqs ? d.info.user_irqs - 1 : 0,
					  d.info.user_irqs, 31, 32, 0xffffffffu };

		a.ui.irq = irqs[fsel(c->flags, 0, 7)];
		a.ui.fd = fds[fsel(c->flags, 8, 4)];
		if (c->spoil == 1)
			a.ui.rsvd[xn(&s, 2)] = 1;
		xioctl(c->op, fd, FDMA_IOC_USER_IRQ, argp(&a, c->flags));
		break;
	}

	case OP_REG: {
		static const uint64_t offs[] = { 0, 4, 0x20, 0xf00, 0xffc, 0x1000, 0x1ff0, 0x2000,
						 (1 << 20) - 4, 1 << 20, 2, 0x4000 };
		/* Read, read FORCE, write (never with FORCE: that points the DMA anywhere). */
		static const uint32_t fl[] = { 0, FDMA_IOC_REG_FORCE, FDMA_IOC_REG_WRITE, 0x4 };

		a.rg.bar = fsel(c->flags, 0, 8);
		a.rg.offset = ((c->flags >> 8) & 15) < 12 ? offs[(c->flags >> 8) & 15] : xs(&s) & ~3ull;
		a.rg.flags = fl[(c->flags >> 12) & 3];
		a.rg.value = (uint32_t)xs(&s);
		if (c->spoil == 1)
			a.rg.rsvd = 1;
		cmd = cmd_of(FDMA_IOC_REG, c->flags, a.raw);
		xioctl(c->op, fd, cmd, argp(&a, c->flags));
		break;
	}

	case OP_MMAP: {
		uint64_t off, len;
		int prot = (c->flags & 0x10) ? PROT_READ : PROT_READ | PROT_WRITE;
		int fl = (c->flags & 0x20) ? MAP_PRIVATE : MAP_SHARED;
		void *p;

		switch (c->flags & 3) {
		case 0:	/* a completion queue */
			off = FDMA_CQ_MMAP_OFFSET(chan_of(c->chan, &s)) + (c->spoil == 1 ? 4096 : 0);
			len = xn(&s, 2) ? FDMA_CQ_MMAP_BYTES(d.info.cq_entries) : val(c->a, 1 << 20, 4096, &s);
			break;
		case 1:	/* a buffer */
			pthread_mutex_lock(&st_lock);
			off = files[fi].slot[c->slot % NSLOTS].mmap_offset;
			pthread_mutex_unlock(&st_lock);
			off += val(c->b, size, 4096, &s) & ~4095ull;
			len = val(c->a, size, 4096, &s);
			break;
		default:
			off = ((uint64_t)h << 32) + (xs(&s) & 0xffff000ull);
			len = val(c->a, 1 << 20, 4096, &s);
			break;
		}
		if (!len || len > (64u << 20))
			len = 4096;
		p = mmap(NULL, len, prot, fl, fd, (off_t)off);
		e = errno;
		note(c->op, p == MAP_FAILED, e);
		if (p == MAP_FAILED)
			break;
		if ((c->flags & 0x40) && (c->flags & 3) == 1) {
			/* freed while mapped: the mapping keeps the memory */
			a.u32 = h;
			if (!xioctl(OP_FREE, fd, FDMA_IOC_BUF_FREE, &a.u32))
				forget(fi, h);
		}
		if ((prot & PROT_WRITE) && (c->flags & 3) != 0)
			for (uint64_t i = 0; i < len; i += 4096)
				((volatile uint8_t *)p)[i] = (uint8_t)i;
		else
			for (uint64_t i = 0; i < len; i += 4096)
				(void)((volatile uint8_t *)p)[i];
		munmap(p, len);
		break;
	}

	case OP_RW: {
		uint64_t off = val(c->c, d.info.card_size, al, &s);
		uint64_t len = val(c->a, IO_BYTES, al, &s);
		void *buf = t->io;
		ssize_t n;

		/* A length past the buffer: EFAULT, or a short count, at its guard page. */
		if (len > IO_BYTES)
			len = xn(&s, 2) ? IO_BYTES : len;
		if (len > IO_BYTES && len < (1ull << 40))
			len = IO_BYTES;
		switch (c->spoil) {
		case 1: buf = NULL; break;
		case 2: buf = ro_page; break;
		case 3: off = (uint64_t)-(int64_t)xn(&s, 4096); break;
		}
		if (c->flags & 1)
			n = vt_pwrite(fd, buf, len, (off_t)off);
		else
			n = vt_pread(fd, buf, len, (off_t)off);
		e = errno;
		note(c->op, n < 0, e);
		/* Past the guard page nothing can have moved: the driver miscounted. */
		if (n > (ssize_t)IO_BYTES && !__atomic_fetch_add(&n_unexpected, 1, __ATOMIC_RELAXED))
			snprintf(unexpected_what, sizeof(unexpected_what),
				 "%s of 0x%llx bytes at 0x%llx: %zd bytes, more than the buffer's %u",
				 c->flags & 1 ? "pwrite" : "pread", (unsigned long long)len,
				 (unsigned long long)off, n, IO_BYTES);
		break;
	}

	case OP_POLL: {
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLPRI };

		ret = poll(&p, 1, 0) < 0;
		note(c->op, ret, errno);
		break;
	}

	case OP_FASYNC: {
		int fl = fcntl(fd, F_GETFL);

		fcntl(fd, F_SETOWN, getpid());
		ret = fcntl(fd, F_SETFL, (c->flags & 1) ? fl | O_ASYNC : fl & ~O_ASYNC);
		note(c->op, ret < 0, errno);
		break;
	}

	case OP_REOPEN:
		/* The other thread may be using it: the close waits for nothing. */
		pthread_mutex_lock(&st_lock);
		close_file(fi);
		ret = open_file(fi);
		pthread_mutex_unlock(&st_lock);
		note(c->op, ret, -ret);
		break;

	case OP_CQ_HEAD: {
		struct fdma_cq_hdr *hd;
		uint32_t v;

		pthread_mutex_lock(&st_lock);
		hd = files[fi % 2].cq[chan_of(c->chan, &s) % FDMA_IOC_MAX_CHAN];
		if (hd) {
			uint32_t tail = __atomic_load_n(&hd->tail, __ATOMIC_ACQUIRE);

			switch (fsel(c->flags, 0, 4)) {
			case 0: v = tail + 1; break;
			case 1: v = tail - 1 - hd->mask; break;
			case 2: v = tail - (uint32_t)xn(&s, 8); break;
			default: v = (uint32_t)xs(&s); break;
			}
			__atomic_store_n(&hd->head, v, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&st_lock);
		note(c->op, 0, 0);
		break;
	}

	case OP_RAW: {
		static const unsigned long codes[] = {
			FDMA_IOC_INFO, FDMA_IOC_BUF_ALLOC, FDMA_IOC_BUF_REGISTER, FDMA_IOC_BUF_FREE,
			FDMA_IOC_SUBMIT, FDMA_IOC_WAIT, FDMA_IOC_COALESCE, FDMA_IOC_CHAN_RESET,
			FDMA_IOC_TESTGEN, FDMA_IOC_STATS, FDMA_IOC_DROP, FDMA_IOC_CQ_EVENTFD,
			FDMA_IOC_REG, FDMA_IOC_COPY, FDMA_IOC_USER_IRQ, FDMA_IOC_BUF_IMPORT,
			FDMA_IOC_BUF_NVP2P,
		};

		cmd = codes[fsel(c->flags, 0, sizeof(codes) / sizeof(codes[0]))];
		if (c->spoil == 1)
			cmd ^= 1ul << xn(&s, 32);
		if (c->spoil == 2)
			cmd = (uint32_t)xs(&s);
		for (size_t i = 0; i < sizeof(a.raw); i += 8) {
			uint64_t v = xs(&s);

			memcpy(a.raw + i, &v, 8);
		}
		if ((c->flags >> 8) & 1)	/* a valid handle in front */
			a.u32 = h;
		/* Never a long wait, a huge allocation or a forced register write. */
		if (_IOC_TYPE(cmd) == FDMA_IOC_MAGIC && _IOC_NR(cmd) == _IOC_NR(FDMA_IOC_WAIT))
			a.w.timeout_us = (int64_t)xn(&s, 5000);
		if (_IOC_TYPE(cmd) == FDMA_IOC_MAGIC && _IOC_NR(cmd) == _IOC_NR(FDMA_IOC_BUF_ALLOC) &&
		    a.ba.size < (1ull << 40))
			a.ba.size &= (16u << 20) - 1;
		if (_IOC_TYPE(cmd) == FDMA_IOC_MAGIC && _IOC_NR(cmd) == _IOC_NR(FDMA_IOC_REG) &&
		    (a.rg.flags & FDMA_IOC_REG_WRITE))
			a.rg.flags &= ~FDMA_IOC_REG_FORCE;
		ret = ioctl(fd, cmd, argp(&a, c->flags));
		e = errno;
		note(c->op, ret, e);
		/* What it may have made is freed at the cleanup, by closing the file. */
		if (!ret && _IOC_TYPE(cmd) == FDMA_IOC_MAGIC &&
		    (_IOC_NR(cmd) == _IOC_NR(FDMA_IOC_BUF_ALLOC) ||
		     _IOC_NR(cmd) == _IOC_NR(FDMA_IOC_BUF_REGISTER) ||
		     _IOC_NR(cmd) == _IOC_NR(FDMA_IOC_BUF_IMPORT) ||
		     _IOC_NR(cmd) == _IOC_NR(FDMA_IOC_BUF_NVP2P)))
			__atomic_store_n(&files[fi].alloc_bytes, ALLOC_BUDGET, __ATOMIC_RELAXED);
		if (!ret)
			__atomic_fetch_or(&chan_used, ~0u, __ATOMIC_RELAXED);
		if (!ret && _IOC_TYPE(cmd) == FDMA_IOC_MAGIC &&
		    (_IOC_NR(cmd) == _IOC_NR(FDMA_IOC_TESTGEN) || _IOC_NR(cmd) == _IOC_NR(FDMA_IOC_DROP) ||
		     _IOC_NR(cmd) == _IOC_NR(FDMA_IOC_COALESCE)))
			touched_ctl = 1;
		drain();
		break;
	}

	case OP_MOVE:
		if ((c->flags & 1) && texp_dev >= 0 && texp_fd >= 0) {
			int32_t x = texp_fd;

			ret = ioctl(texp_dev, _IOW('X', 2, int32_t), &x);
			note(c->op, ret, errno);
		} else if (gpu_dev >= 0) {
			/* GPU memory freed under its pins (their callbacks run), then new memory. */
			struct { uint64_t size, va, mmap_offset; } g = { .size = gpu_size };

			ioctl(gpu_dev, _IOW('G', 2, uint64_t), &gpu_va);
			ret = ioctl(gpu_dev, _IOWR('G', 1, typeof(g)), &g);
			if (!ret)
				gpu_va = g.va;
			note(c->op, ret, errno);
		}
		break;
	}
}

static __thread const struct call *running_call;	/* for fatal() */

static void run_call(const struct call *c, int th)
{
	double t = vt_now();

	running_call = c;
	run_call1(c, th);
	t = vt_now() - t;
	pthread_mutex_lock(&st_lock);
	t_op[c->op] += t;
	pthread_mutex_unlock(&st_lock);
}

/* The second thread: runs the calls of the program marked thread 1. */
static pthread_t th2;
static pthread_mutex_t th_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t th_cond = PTHREAD_COND_INITIALIZER;
static const struct prog *th_prog;
static int th_gen, th_done_gen, th_stop;

static void *th_main(void *unused)
{
	int seen = 0;

	(void)unused;
	for (;;) {
		const struct prog *p;

		pthread_mutex_lock(&th_lock);
		while (th_gen == seen && !th_stop)
			pthread_cond_wait(&th_cond, &th_lock);
		if (th_stop) {
			pthread_mutex_unlock(&th_lock);
			return NULL;
		}
		seen = th_gen;
		p = th_prog;
		pthread_mutex_unlock(&th_lock);
		for (int i = 0; i < p->n; i++)
			if (p->c[i].thread)
				run_call(&p->c[i], 1);
		pthread_mutex_lock(&th_lock);
		th_done_gen = seen;
		pthread_cond_broadcast(&th_cond);
		pthread_mutex_unlock(&th_lock);
	}
}

/* Back to a known state after a program: its buffers freed, queues drained. */
static void cleanup(void)
{
	double t0 = vt_now();
	int busy = 0;

	drain();
	for (int i = 0; i < 2; i++) {
		struct file *f = &files[i];

		for (int k = f->nmade - 1; k >= 0; k--) {
			uint32_t h = f->made[k];

			if (!ioctl(f->fd, FDMA_IOC_BUF_FREE, &h) || errno != EBUSY) {
				f->made[k] = f->made[--f->nmade];
				pthread_mutex_lock(&st_lock);
				reg_drop_locked(i, h);
				pthread_mutex_unlock(&st_lock);
			}
			else
				busy = 1;
		}
	}
	if (busy) {
		/*
		 * Still in flight: a moment for the device, then the channels
		 * the program used reset (a stream window no frame fills).
		 */
		usleep(2000);
		for (unsigned int ch = 0; ch < d.info.nchan; ch++) {
			uint32_t c = ch;

			if (chan_used & (1u << ch))
				ioctl(files[0].fd, FDMA_IOC_CHAN_RESET, &c);
		}
		drain();
		for (int i = 0; i < 2; i++) {
			struct file *f = &files[i];

			for (int k = f->nmade - 1; k >= 0; k--) {
				uint32_t h = f->made[k];

				if (!ioctl(f->fd, FDMA_IOC_BUF_FREE, &h) || errno != EBUSY) {
					f->made[k] = f->made[--f->nmade];
					pthread_mutex_lock(&st_lock);
					reg_drop_locked(i, h);
					pthread_mutex_unlock(&st_lock);
				}
			}
		}
	}
	chan_used = 0;
	if (touched_ctl) {
		for (unsigned int ch = 0; ch < d.info.nchan; ch++) {
			struct fdma_ioc_testgen tg = { .chan = ch };
			struct fdma_ioc_drop dr = { .chan = ch };
			struct fdma_ioc_coalesce co = { .chan = ch };

			ioctl(files[0].fd, FDMA_IOC_TESTGEN, &tg);
			ioctl(files[0].fd, FDMA_IOC_DROP, &dr);
			ioctl(files[0].fd, FDMA_IOC_COALESCE, &co);
		}
		touched_ctl = 0;
	}
	for (int i = 0; i < 2; i++) {
		struct file *f = &files[i];

		memset(f->slot, 0, sizeof(f->slot));
		/* What raw calls made is not known: the file closes. */
		if (f->alloc_bytes >= ALLOC_BUDGET || f->nmade) {
			pthread_mutex_lock(&st_lock);
			close_file(i);
			pthread_mutex_unlock(&st_lock);
			if (open_file(i))
				vt_fail(T, "open /dev/%s again: %s", dev, strerror(errno));
		}
		f->alloc_bytes = 0;
	}
	t_cleanup += vt_now() - t0;
}

static void run_prog(const struct prog *p)
{
	int two = 0;

	for (int i = 0; i < p->n; i++)
		two |= p->c[i].thread;
	if (two) {
		pthread_mutex_lock(&th_lock);
		th_prog = p;
		th_gen++;
		pthread_cond_broadcast(&th_cond);
		pthread_mutex_unlock(&th_lock);
	}
	for (int i = 0; i < p->n; i++)
		if (!p->c[i].thread)
			run_call(&p->c[i], 0);
	if (two) {
		pthread_mutex_lock(&th_lock);
		while (th_done_gen != th_gen)
			pthread_cond_wait(&th_cond, &th_lock);
		pthread_mutex_unlock(&th_lock);
	}
	cleanup();
}

/* ---- coverage ---------------------------------------------------------------------- */

static int cov_fd = -1;

static long long points(void)
{
	char buf[32];
	ssize_t n;

	if (cov_fd < 0)
		return -1;
	do
		n = pread(cov_fd, buf, sizeof(buf) - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return atoll(buf);
}

/* ---- the seeds: a few programs that use the interface as meant ------------------------- */

/* Call k of p: op on channel ch, the rest from base. */
static struct call *sc(struct prog *p, int op, int ch)
{
	struct call *c = &p->c[p->n++];

	*c = (struct call){ .op = (uint8_t)op, .chan = (uint8_t)ch, .count = 1, .flags = F_PLAIN,
			    .a = V(V_RAW, 4096), .b = V(V_RAW, 0), .c = V(V_RAW, 0), .seed = 7 };
	return c;
}

/* WAIT's flags: min_entries mins[i], timeout 50 ms. */
#define F_WAIT(i)	(F_PLAIN | 0x0500 | (i))

static void seed_progs(struct prog *corpus, int *n)
{
	int h2c = pick(chan_h2c, nh2c), c2h = pick(chan_c2h, nc2h), mem = pick(chan_mem, nmem);
	int c2hs = pick(chan_c2hs, nc2hs);
	struct prog *p;

	/* allocate, H2C, C2H, wait, free */
	p = &corpus[(*n)++];
	memset(p, 0, sizeof(*p));
	sc(p, OP_ALLOC, 0)->a = V(V_RAW, 65536);
	sc(p, OP_SUBMIT, h2c);
	sc(p, OP_SUBMIT, c2h);
	sc(p, OP_WAIT, c2h)->flags = F_WAIT(1);
	sc(p, OP_FREE, 0);
	/* registered memory, a batch of 8 */
	p = &corpus[(*n)++];
	memset(p, 0, sizeof(*p));
	sc(p, OP_REGISTER, 0)->a = V(V_RAW, 1 << 20);
	sc(p, OP_SUBMIT, h2c)->count = 8;
	sc(p, OP_WAIT, h2c)->flags = F_WAIT(5);
	/* a copy between two buffers */
	p = &corpus[(*n)++];
	memset(p, 0, sizeof(*p));
	sc(p, OP_ALLOC, 0)->a = V(V_RAW, 65536);
	sc(p, OP_ALLOC, 0)->slot = 1;
	p->c[1].a = V(V_RAW, 65536);
	sc(p, OP_COPY, mem)->slot2 = 1;
	sc(p, OP_WAIT, mem)->flags = F_WAIT(1);
	/* stream: the test generator's 4 KiB frames into two windows */
	p = &corpus[(*n)++];
	memset(p, 0, sizeof(*p));
	sc(p, OP_ALLOC, 0)->a = V(V_RAW, 65536);
	sc(p, OP_SUBMIT, c2hs)->count = 2;
	sc(p, OP_TESTGEN, c2hs)->flags = F_PLAIN | 0x10101;
	sc(p, OP_WAIT, c2hs)->flags = F_WAIT(3);
	/* a dma-buf, GPU memory */
	p = &corpus[(*n)++];
	memset(p, 0, sizeof(*p));
	sc(p, OP_IMPORT, 0)->a = V(V_RAW, 65536);
	sc(p, OP_SUBMIT, h2c);
	sc(p, OP_NVP2P, 0)->slot = 1;
	p->c[2].a = V(V_RAW, 65536);
	sc(p, OP_WAIT, h2c)->flags = F_WAIT(1);
}

/* ---- the end: a known state, then a checked transfer -------------------------------- */

static int roundtrip_ok(void)
{
	struct vi_dev x;
	struct vi_buf b;
	struct fdma_ioc_req r;
	struct fdma_cq_entry e[2] = { { 0 } };
	int ok = 0;

	if (vi_open(&x, dev) || vi_cq_map(&x, x.h2c) || vi_cq_map(&x, x.c2h)) {
		vt_fail(T, "open /dev/%s after the fuzzing: %s", dev, strerror(errno));
		return 0;
	}
	if (vi_alloc(&x, 2 * 65536, &b)) {
		vt_fail(T, "allocate after the fuzzing: %s", strerror(errno));
		vi_close(&x);
		return 0;
	}
	vt_fill(b.p, 65536, 4242);
	memset(b.p + 65536, 0, 65536);
	r = (struct fdma_ioc_req){ .handle = b.handle, .len = 65536, .card_addr = x.info.card_size / 4,
				   .user_data = 1 };
	if (vi_submit(&x, x.h2c, &r, 1) || vi_collect(&x, x.h2c, e, 1, 5000000) || e[0].res) {
		vt_fail(T, "H2C after the fuzzing: %s / res %d", strerror(errno), e[0].res);
	} else {
		r.offset = 65536;
		if (vi_submit(&x, x.c2h, &r, 1) || vi_collect(&x, x.c2h, e + 1, 1, 5000000) ||
		    e[1].res)
			vt_fail(T, "C2H after the fuzzing: %s / res %d", strerror(errno), e[1].res);
		else if (vt_check(b.p + 65536, 65536, 4242) >= 0)
			vt_fail(T, "C2H after the fuzzing: byte %ld differs",
				vt_check(b.p + 65536, 65536, 4242));
		else
			ok = 1;
	}
	vi_free(&x, &b);
	vi_close(&x);
	return ok;
}

static void noop(int sig)
{
	(void)sig;
}

static void setup_sources(void)
{
	int mfd = memfd_create("fdma-fuzz", MFD_ALLOW_SEALING);
	int u = open("/dev/udmabuf", O_RDWR);

	/* udmabuf: a dma-buf over a sealed memfd. */
	if (mfd >= 0 && u >= 0 && !ftruncate(mfd, DMABUF_BYTES) &&
	    !fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		struct udmabuf_create cr = { .memfd = (uint32_t)mfd, .size = DMABUF_BYTES };

		udma_fd = ioctl(u, UDMABUF_CREATE, &cr);
	}
	if (u >= 0)
		close(u);
	if (mfd >= 0)
		close(mfd);
	/* fdma_testexp.ko's, which can move (run-guest.sh loads it for the fuzzer). */
	texp_dev = open("/dev/fdma_testexp", O_RDWR);
	if (texp_dev >= 0) {
		struct { uint64_t size; uint32_t flags; int32_t fd; } cr = { .size = DMABUF_BYTES };

		if (!ioctl(texp_dev, _IOWR('X', 1, typeof(cr)), &cr))
			texp_fd = cr.fd;
	}
	/* The NVIDIA P2P stand-in's GPU memory. */
	gpu_dev = open("/dev/fdma_gpu", O_RDWR);
	if (gpu_dev >= 0) {
		struct { uint64_t size, va, mmap_offset; } g = { .size = gpu_size };

		if (!ioctl(gpu_dev, _IOWR('G', 1, typeof(g)), &g))
			gpu_va = g.va;
	}
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

static void close_sources(void)
{
	if (gpu_dev >= 0) {
		if (gpu_va)
			ioctl(gpu_dev, _IOW('G', 2, uint64_t), &gpu_va);
		close(gpu_dev);
	}
	if (texp_fd >= 0)
		close(texp_fd);
	if (texp_dev >= 0)
		close(texp_dev);
	if (udma_fd >= 0)
		close(udma_fd);
	if (efd >= 0)
		close(efd);
}

/* ---- what the kernel said ------------------------------------------------------------ */

static int kmsg_fd = -1;
static long n_reports;

/* Call i of a program, a line as read_prog() reads it. */
static int fmt_call(char *buf, size_t size, int i, const struct call *c)
{
	return snprintf(buf, size, "    %2d: thread %u file %u %-12s chan %u slot %u/%u hkind %u spoil %u count 0x%x flags 0x%08x a 0x%016llx b 0x%016llx c 0x%016llx seed 0x%llx\n",
			i, c->thread, c->file, op_names[c->op % NOPS], c->chan, c->slot, c->slot2,
			c->hkind, c->spoil, c->count, c->flags, (unsigned long long)c->a,
			(unsigned long long)c->b, (unsigned long long)c->c,
			(unsigned long long)c->seed);
}

static void print_prog(const struct prog *p)
{
	char line[400];

	for (int i = 0; i < p->n; i++) {
		fmt_call(line, sizeof(line), i, &p->c[i]);
		fputs(line, stdout);
	}
}

static const struct prog *running;	/* the program being run, for fatal() */
static long running_no;

/*
 * SIGSEGV, SIGBUS or SIGFPE in the fuzzer: the call and the program it was
 * in (for --replay), written without stdio (whose state may be what went
 * wrong), then the signal's default action, so the exit status is the
 * signal's. A fault here may be the fuzzer's bug or a driver's mapping
 * that is wrong.
 */
static void fatal(int sig, siginfo_t *si, void *unused)
{
	const struct prog *p = running;
	const struct call *c = running_call;
	char line[400];
	int n;

	(void)unused;
	n = snprintf(line, sizeof(line),
		     "fuzz: signal %d (SIG%s) at address %p (code %d), in call %ld of program %ld:\n",
		     sig, sigabbrev_np(sig), si->si_addr, si->si_code,
		     p && c >= p->c && c < p->c + p->n ? (long)(c - p->c) : -1L, running_no);
	if (write(STDOUT_FILENO, line, (size_t)n) > 0)
		for (int i = 0; p && i < p->n && i < MAXCALLS; i++) {
			n = fmt_call(line, sizeof(line), i, &p->c[i]);
			if (write(STDOUT_FILENO, line, (size_t)n) < 0)
				break;
		}
	raise(sig);	/* SA_RESETHAND: the default action */
}

/*
 * After each program: did the kernel log a report (KASAN, lockdep, the DMA
 * API's debug, UBSAN, a warning) or an error? The first few programs that
 * made one are printed, with the first such line, to be run again by hand.
 */
static void kmsg_check(const struct prog *p, long prog_no)
{
	char rec[1024], first[200] = "";
	int bad = 0;

	if (kmsg_fd < 0)
		return;
	for (;;) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);

		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		/* A report, or a message at error level or worse (the record's "PRIO," < 4). */
		if (strstr(rec, "WARNING:") || strstr(rec, "BUG:") || strstr(rec, "DMA-API:") ||
		    strstr(rec, "UBSAN:") || strstr(rec, "Oops") || (atoi(rec) & 7) <= 3) {
			char *m = strchr(rec, ';'), *nl;

			if (!bad++)
				snprintf(first, sizeof(first), "%.150s", m ? m + 1 : rec);
			nl = strchr(first, '\n');
			if (nl)
				*nl = 0;
		}
	}
	if (!bad)
		return;
	if (n_reports++ < 3) {
		printf("fuzz: the kernel logged a problem after program %ld (\"%s\"):\n", prog_no,
		       first);
		print_prog(p);
		fflush(stdout);
	}
}

/* Print what the kernel logged since the last look (--replay). */
static void kmsg_print(void)
{
	char rec[1024];

	if (kmsg_fd < 0)
		return;
	for (;;) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);
		char *m;

		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		m = strchr(rec, ';');
		printf("    kernel: %s", m ? m + 1 : rec);
		if (strstr(rec, "WARNING:") || strstr(rec, "BUG:") || strstr(rec, "DMA-API:") ||
		    strstr(rec, "UBSAN:") || strstr(rec, "Oops") || (atoi(rec) & 7) <= 3)
			n_reports = 1;
	}
}

/* A program printed by print_prog(), from a file; 0, or -1 if it has no call. */
static int read_prog(const char *path, struct prog *p)
{
	FILE *f = fopen(path, "r");
	char line[512], name[32];

	memset(p, 0, sizeof(*p));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && p->n < MAXCALLS) {
		struct call *c = &p->c[p->n];
		unsigned int th, fi, ch, sl, sl2, hk, sp, cnt, fl;
		unsigned long long a, b, cc, sd;
		const char *at = strstr(line, "thread ");
		int i;

		if (!at || sscanf(at, "thread %u file %u %31s chan %u slot %u/%u hkind %u spoil %u count 0x%x flags 0x%x a 0x%llx b 0x%llx c 0x%llx seed 0x%llx",
				  &th, &fi, name, &ch, &sl, &sl2, &hk, &sp, &cnt, &fl, &a, &b,
				  &cc, &sd) != 14)
			continue;
		for (i = 0; i < NOPS && strcmp(op_names[i], name); i++)
			;
		if (i == NOPS)
			continue;
		*c = (struct call){ .op = (uint8_t)i, .file = (uint8_t)fi, .thread = (uint8_t)th,
				    .slot = (uint8_t)sl, .slot2 = (uint8_t)sl2, .hkind = (uint8_t)hk,
				    .chan = (uint8_t)ch, .spoil = (uint8_t)sp, .count = cnt,
				    .flags = fl, .a = a, .b = b, .c = cc, .seed = sd };
		p->n++;
	}
	fclose(f);
	return p->n ? 0 : -1;
}

static struct prog corpus[CORPUS];

int main(int argc, char **argv)
{
	const char *replay = argc > 2 && !strcmp(argv[1], "--replay") ? argv[2] : NULL;
	double secs = replay ? 1 : argc > 1 ? atof(argv[1]) : 60, t0, tnext, now;
	uint64_t seed = !replay && argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	long long pinned0, bufs0, p0, best, p;
	long progs = 0, kept = 0, newp = 0;
	int ncorpus = 0, nseeds;
	struct itimerval it = { { 0, 200000 }, { 0, 200000 } };
	struct sigaction sa = { .sa_handler = noop };
	struct sigaction fa = { .sa_sigaction = fatal, .sa_flags = SA_SIGINFO | SA_RESETHAND };
	struct prog cur;

	if (secs <= 0) {
		fprintf(stderr, "usage: fdma_fuzz SECONDS [SEED]\n       fdma_fuzz --replay FILE\n");
		return 2;
	}
	if (replay) {
		T = "ioc_fuzz_replay";
		if (read_prog(replay, &cur)) {
			vt_fail(T, "no program in %s", replay);
			return 1;
		}
	}
	grs = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
	if (vt_find_dev("fdma", dev, sizeof(dev))) {
		vt_fail(T, "no fdma device in " FDMA_CLASS);
		return 1;
	}
	pinned0 = vi_pinned_total();
	bufs0 = vi_nbufs(dev);
	no_overlap = !access("/sys/kernel/debug/dma-api/error_count", F_OK);
	if (vi_open(&d, dev)) {
		vt_fail(T, "open /dev/%s: %s", dev, strerror(errno));
		return 1;
	}
	vi_close(&d);
	for (unsigned int ch = 0; ch < d.info.nchan; ch++) {
		uint32_t k = d.info.chan_caps[ch];

		if (k & FDMA_IOC_CAP_MEM2MEM)
			chan_mem[nmem++] = (int)ch;
		else if (k & FDMA_IOC_CAP_STREAM)
			(k & FDMA_IOC_CAP_C2H) ? (chan_c2hs[nc2hs++] = (int)ch) : (chan_h2cs[nh2cs++] = (int)ch);
		else
			(k & FDMA_IOC_CAP_C2H) ? (chan_c2h[nc2h++] = (int)ch) : (chan_h2c[nh2c++] = (int)ch);
	}
	make_interesting();
	pool = guarded(POOL_BYTES);
	tls_of[0].io = guarded(IO_BYTES);
	tls_of[1].io = guarded(IO_BYTES);
	ro_page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!pool || !tls_of[0].io || !tls_of[1].io || ro_page == MAP_FAILED) {
		vt_fail(T, "mmap: %s", strerror(errno));
		return 1;
	}
	memset(pool, 0x5a, POOL_BYTES);
	setup_sources();
	for (int i = 0; i < NFILES; i++)
		if (open_file(i)) {
			vt_fail(T, "open /dev/%s: %s", dev, strerror(errno));
			return 1;
		}
	cov_fd = open(COV_POINTS, O_RDONLY);
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	p0 = best = points();
	printf("fuzz: seed %llu, %.0f s, /dev/%s: %u channels (%d H2C, %d C2H, %d H2C stream, %d C2H stream, %d memory), ring %u, queue %u; %s%s%s%s\n",
	       (unsigned long long)seed, secs, dev, d.info.nchan, nh2c, nc2h, nh2cs, nc2hs, nmem,
	       d.info.ring_size, d.info.cq_entries,
	       cov_fd >= 0 ? "coverage-guided" : "blind (no " COV_POINTS ")",
	       udma_fd >= 0 ? ", udmabuf" : "", texp_fd >= 0 ? ", fdma_testexp" : "",
	       gpu_va ? ", GPU stand-in" : "");
	fflush(stdout);

	/* Blocking calls must end: SIGALRM interrupts them; SIGIO from fasync is ignored. */
	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGIO, &sa, NULL);
	sigaction(SIGSEGV, &fa, NULL);
	sigaction(SIGBUS, &fa, NULL);
	sigaction(SIGFPE, &fa, NULL);
	running = &cur;
	setitimer(ITIMER_REAL, &it, NULL);
	pthread_create(&th2, NULL, th_main, NULL);

	t0 = vt_now();
	if (replay) {
		/* One thread, the calls in order, each one's result and the kernel's words. */
		running_no = 1;
		for (int i = 0; i < cur.n; i++) {
			run_call(&cur.c[i], 0);
			printf("  %2d %-12s %s%s\n", i, op_names[cur.c[i].op],
			       last_ret ? "failed: " : "ok", last_ret ? strerror(last_err) : "");
			kmsg_print();
		}
		cleanup();
		kmsg_print();
		progs = 1;
		secs = 0;
	}
	seed_progs(corpus, &ncorpus);
	nseeds = ncorpus;
	tnext = t0 + 10;
	for (int i = 0; (now = vt_now()) < t0 + secs; i++) {
		if (i < nseeds) {
			cur = corpus[i];
		} else if (cov_fd < 0 || ncorpus == 0 || rn(10) == 0) {
			gen_prog(&cur);
			newp++;
		} else {
			cur = corpus[rn((uint64_t)ncorpus)];
			for (int m = 1 + (int)rn(3); m > 0; m--)
				mutate(&cur, &corpus[rn((uint64_t)ncorpus)]);
		}
		running_no = progs + 1;
		run_prog(&cur);
		progs++;
		kmsg_check(&cur, progs);
		p = points();
		if (p > best) {
			best = p;
			kept++;
			/* (the seeds are in the corpus from the start) */
			if (i >= nseeds && ncorpus < CORPUS)
				corpus[ncorpus++] = cur;
			else if (i >= nseeds)
				corpus[rn(CORPUS)] = cur;
		}
		if (now >= tnext) {
			printf("fuzz: %.0f s: %ld calls, %ld programs, %ld kept, %lld points\n",
			       now - t0, n_calls, progs, kept, best);
			fflush(stdout);
			tnext += 10;
		}
	}
	pthread_mutex_lock(&th_lock);
	th_stop = 1;
	pthread_cond_broadcast(&th_cond);
	pthread_mutex_unlock(&th_lock);
	pthread_join(th2, NULL);
	it.it_value.tv_sec = it.it_value.tv_usec = 0;
	it.it_interval = it.it_value;
	setitimer(ITIMER_REAL, &it, NULL);

	/* A known state: no generator, drop or coalescing; everything freed by closing. */
	touched_ctl = 1;
	cleanup();
	for (unsigned int ch = 0; ch < d.info.nchan; ch++) {
		uint32_t c = ch;

		ioctl(files[0].fd, FDMA_IOC_CHAN_RESET, &c);
	}
	pthread_mutex_lock(&st_lock);
	for (int i = 0; i < NFILES; i++)
		close_file(i);
	pthread_mutex_unlock(&st_lock);
	close_sources();
	if (cov_fd >= 0)
		close(cov_fd);
	if (kmsg_fd >= 0)
		close(kmsg_fd);

	printf("fuzz: seed %llu: %ld calls in %.1f s, %ld programs (%ld new, the rest mutated), %ld kept; coverage points %lld at the start, %lld at the end\n",
	       (unsigned long long)seed, n_calls, vt_now() - t0, progs, newp, kept, p0, best);
	for (int op = 0; op < NOPS; op++) {
		char line[600];
		int len = snprintf(line, sizeof(line), "  %-12s %7ld calls, %6.1f s, %7ld succeeded",
				   op_names[op], n_op[op], t_op[op], n_ok[op]);

		for (int e = 0; e < 160 && len < (int)sizeof(line) - 40; e++)
			if (n_errno[op][e])
				len += snprintf(line + len, sizeof(line) - (size_t)len, ", %s %ld",
						e ? strerrorname_np(e) : "?", n_errno[op][e]);
		printf("%s\n", line);
	}
	printf("  %.1f s in the cleanups after the programs; %ld programs after which the kernel logged a report or an error\n",
	       t_cleanup, n_reports);
	printf("VMTEST INFO %s seed=%llu seconds=%.0f calls=%ld programs=%ld kept=%ld points_start=%lld points=%lld kernel_reports=%ld\n",
	       T, (unsigned long long)seed, secs, n_calls, progs, kept, p0, best, n_reports);
	fflush(stdout);

	if (n_unexpected)
		vt_fail(T, "%ld calls ended as the interface does not allow (an ioctl's errno it does not name, a read or write longer than its buffer), first %s",
			n_unexpected, unexpected_what);
	if (vi_pinned_total() != pinned0 || vi_nbufs(dev) != bufs0)
		vt_fail(T, "after close: %lld pinned pages, %lld buffers (before: %lld, %lld)",
			vi_pinned_total(), vi_nbufs(dev), pinned0, bufs0);
	if (roundtrip_ok() && !vt_failed)
		vt_pass(T);
	return vt_failed;
}
