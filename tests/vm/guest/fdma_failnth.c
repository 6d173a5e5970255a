// SPDX-License-Identifier: MIT
/*
 * Allocation failures, one at a time (docs/vm-harness.md, "Allocation
 * failures"): for each operation of the driver, fail the Nth allocation
 * made under its code, N = 1, 2, ... until the operation runs with nothing
 * left to fail.
 *
 *   fdma_failnth OP[,OP...] [--depth D] [--kmemleak end|op|none]
 *                [--count] [--max N]
 *
 * OP: init (fdma.ko's module init, no device bound: driver_override),
 * probe (the FDMA function bound through sysfs), probe_edu (QEMU's edu
 * device), open, alloc, register, import (a udmabuf's dma-buf), nvp2p (GPU
 * memory of the stand-in of NVIDIA's API), submit (from a file whose
 * completion queue the submission makes), ifup (the network interface set
 * up), dmatest (dmatest requests a memory-to-memory channel), dmac
 * (fdma_dmac.ko loaded over fdma.ko's provider).
 *
 * How: this program performs the operation itself, in the task whose
 * /proc/thread-self/fail-nth it sets to N (finit_module() for a load, a
 * write to a driver's bind file, open(), the ioctl, SIOCSIFFLAGS, a write
 * to dmatest's channel parameter). The kernel counts a fail-nth call only
 * when the stack passes the fault's filter, which failslab and
 * fail_page_alloc get here: require-start/require-end is fdma.ko's text
 * (from /proc/kallsyms), or do_one_initcall() for a module's load (the
 * module is not there yet to name), and stacktrace-depth D (default 8:
 * the driver's frame at most 6 frames from the allocator's, which takes in
 * its own allocations and those of the kernel calls it makes, not the
 * kernel's deep inside them). Sleeping allocations count (ignore-gfp-wait
 * N), and single pages (min-order 0). Left out: see kernel_ranges().
 * Reading fail-nth back after the operation says whether the fault was
 * injected (0: it fired); a return probe on should_fail_ex() records each
 * injection's stack (the fault's own dump skips __GFP_NOWARN ones), which
 * names the allocation and the driver's frame that made it.
 *
 * After each step: the kernel log of the step has no report (WARNING, BUG,
 * KASAN, lockdep, DMA-API, UBSAN, ...); the device is brought back to the
 * state every step starts from (fdma.ko loaded with ivshmem=1 edu=1
 * dmaengine=1 net=1 and rings of 64, both devices bound, the operation's
 * own leftovers undone) and works: no user page pinned (debugfs
 * pinned_pages), a checked transfer through /dev/fdmaN (and the edu device
 * for its operations), and the operation itself without a fault (the
 * interface goes up, dmatest copies, fdma_dmac's node copies, the request
 * completes and reads back, ...). kmemleak: nothing new unreferenced, once
 * after every operation ran (end, the default), after each (op: a suspect
 * must be 5 s old and two scans take 15 to 25 s here), or not at all.
 *
 * Prints a line per step, "VMTEST PASS faults_OP" or "VMTEST FAIL
 * faults_OP: why" per operation, and "VMTEST SKIP" where the kernel has no
 * fault injection (not the debug kernel). --count: only count the
 * allocations each operation makes (one run with fail-nth far out of
 * reach). --max N: at most N steps per operation (default 3000).
 */
#include <ctype.h>
#include <sched.h>
#include <net/if.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <linux/udmabuf.h>

#include "vmioc.h"

#define DBG		"/sys/kernel/debug"
#define KML		DBG "/kmemleak"
#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define DMAC_KO		"/fdma_dmac.ko"
#define DMATEST_KO	"/dmatest.ko"
#define DMATEST_PARAMS	"iterations=1 threads_per_chan=1 max_channels=1 test_buf_size=4096 timeout=5000"
#define DMATEST_P	"/sys/module/dmatest/parameters/"
#define XFER_LEN	(64 * 1024)
#define XFER_CARD	(1 << 20)
#define BUF_LEN		(64 * 1024)
#define GPU_LEN		(64 * 1024)	/* a discrete GPU's page */
#define KMSG_MAX	(4 << 20)

/* The stand-in of NVIDIA's API (tests/vm/kmod/nvp2p): its /dev/fdma_gpu. */
struct gpu_alloc_req {
	uint64_t size;
	uint64_t va;
	uint64_t mmap_offset;
};

#define GPU_ALLOC	_IOWR('G', 1, struct gpu_alloc_req)
#define GPU_FREE	_IOW('G', 2, uint64_t)

static char T[64];			/* faults_OP */
static char params[160];		/* fdma.ko's, every step's state */
static char bdf_fdma[64], bdf_edu[64];
static int problems;
static unsigned int depth = 8;
static int use_edu = 1;		/* edu binds here (not without ZONE_DMA: 28 bits) */

/* ---- small helpers ---------------------------------------------------------- */

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void problem(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (problems++ < 8)
		vt_fail(T, "%s", msg);
	else
		vt_info("also: %s", msg);
}

static int wr(const char *path, const char *val)
{
	return vt_write_str(path, val);
}

static int wr_fmt(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int wr_fmt(const char *path, const char *fmt, ...)
{
	char v[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	return wr(path, v);
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

static int mod_loaded(const char *name)
{
	char p[128];

	snprintf(p, sizeof(p), "/sys/module/%s/initstate", name);
	return exists(p);
}

static int mod_load(const char *ko, const char *args)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, args, 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* rmmod, waiting a little for a module still in use (its users going). */
static int mod_unload(const char *name)
{
	for (int i = 0; i < 100; i++) {
		if (!syscall(SYS_delete_module, name, O_NONBLOCK) || errno == ENOENT)
			return 0;
		if (errno != EBUSY && errno != EAGAIN && errno != EWOULDBLOCK)
			break;
		usleep(50000);
	}
	return -errno;
}

static int pci_bdf(unsigned int vendor, unsigned int device, char *bdf, size_t len)
{
	char path[300];

	if (vt_pci_find(vendor, device, path, sizeof(path)))
		return -ENOENT;
	snprintf(bdf, len, "%s", strrchr(path, '/') + 1);
	return 0;
}

/* The driver bdf is bound to ("" if none). */
static void pci_driver_of(const char *bdf, char *drv, size_t len)
{
	char dir[300];

	drv[0] = 0;
	if (!vt_drv_dir(bdf, dir, sizeof(dir)))
		snprintf(drv, len, "%s", strrchr(dir, '/') + 1);
}

static int pci_bind(const char *drv, const char *bdf)
{
	char dir[128];
	int ret;

	snprintf(dir, sizeof(dir), "/sys/bus/pci/drivers/%s", drv);
	ret = vt_write_path(dir, "bind", bdf);
	/*
	 * The device model answers the engine's reset within the driver's
	 * 200 ms, of real time: on a loaded host it may miss them. Once
	 * more, said.
	 */
	if (ret == -ETIMEDOUT) {
		vt_info("bind %s: the engine did not acknowledge its reset in time: once more", bdf);
		usleep(200000);
		ret = vt_write_path(dir, "bind", bdf);
	}
	return ret;
}

static int pci_unbind(const char *drv, const char *bdf)
{
	char dir[128];

	snprintf(dir, sizeof(dir), "/sys/bus/pci/drivers/%s", drv);
	return vt_write_path(dir, "unbind", bdf);
}

static int pci_override(const char *bdf, const char *drv)
{
	char p[160];

	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/driver_override", bdf);
	return wr(p, drv);
}

/* The first /sys/class/fdma node whose backend is backend. */
static int node_of(const char *backend, char *name, size_t len)
{
	char b[32];

	for (int i = 0; i < 64; i++) {
		char n[32];

		snprintf(n, sizeof(n), "fdma%d", i);
		if (!vt_attr_str(n, "backend", b, sizeof(b)) && !strcmp(b, backend)) {
			snprintf(name, len, "%s", n);
			return 0;
		}
	}
	return -ENOENT;
}

/* The first network interface of fdma.ko (fdmaNnK). */
static int iface_of(char *name, size_t len)
{
	DIR *d = opendir("/sys/class/net");
	struct dirent *e;
	int ret = -ENOENT;

	if (!d)
		return ret;
	while ((e = readdir(d))) {
		if (!strncmp(e->d_name, "fdma", 4) && strchr(e->d_name, 'n') &&
		    strlen(e->d_name) < len) {
			snprintf(name, len, "%s", e->d_name);
			ret = 0;
			break;
		}
	}
	closedir(d);
	return ret;
}

static int iface_set(int sock, const char *ifname, int up)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(sock, SIOCGIFFLAGS, &ifr))
		return -errno;
	if (up)
		ifr.ifr_flags |= IFF_UP;
	else
		ifr.ifr_flags &= ~IFF_UP;
	return ioctl(sock, SIOCSIFFLAGS, &ifr) ? -errno : 0;
}

static double now(void)
{
	return vt_now();
}

/* ---- fail-nth ------------------------------------------------------------------ */

static int nth_set(unsigned int n)
{
	return wr_fmt(FAIL_NTH, "%u", n);
}

static long nth_get(void)
{
	return (long)vt_read_ll(FAIL_NTH);
}

/* ---- the kernel log of a step ------------------------------------------------------ */

static int kmsg_fd = -1;
static char *klog;
static size_t klen;

/* Append what the kernel logged since the last call (the text of each record). */
static void kmsg_take(void)
{
	char rec[8192];

	for (;;) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);
		char *m, *nl;
		size_t l;

		if (n < 0) {
			if (errno == EPIPE)	/* overwritten: go on */
				continue;
			break;
		}
		rec[n] = 0;
		m = strchr(rec, ';');
		if (!m)
			continue;
		m++;
		nl = strchr(m, '\n');
		if (nl)
			*nl = 0;
		l = strlen(m);
		if (klen + l + 2 >= KMSG_MAX)
			continue;
		memcpy(klog + klen, m, l);
		klen += l;
		klog[klen++] = '\n';
		klog[klen] = 0;
	}
}

static void kmsg_reset(void)
{
	kmsg_take();
	klen = 0;
	klog[0] = 0;
}

/* What the kernel's checkers print: the same words tests/vm/run.sh looks for. */
static const char *const bad_words[] = {
	"WARNING", "BUG", "Oops", "scheduling while atomic", "general protection",
	"Kernel panic", "memory corruption", "UBSAN:", "DMA-API:",
	"unreferenced object", "suspected memory leak", "blocked for more than",
	"soft lockup", "detected stall",
};

/* The first line of the step's log with a report, or NULL. */
static const char *kmsg_bad(char *line, size_t len)
{
	const char *p = klog;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		for (size_t i = 0; i < sizeof(bad_words) / sizeof(bad_words[0]); i++) {
			if (memmem(p, l, bad_words[i], strlen(bad_words[i]))) {
				snprintf(line, len, "%.*s", (int)l, p);
				return line;
			}
		}
		p = e ? e + 1 : p + l;
	}
	return NULL;
}

/* The step's log, indented, for a failure (up to max lines). */
static void kmsg_show(int max)
{
	const char *p = klog;

	for (int i = 0; *p && i < max; i++) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		printf("    | %.*s\n", (int)l, p);
		p = e ? e + 1 : p + l;
	}
	fflush(stdout);
}

/* ---- where a fault was injected -------------------------------------------------------------- */

#define MAX_FRAMES	64

struct stack {
	int n;
	char f[MAX_FRAMES][160];
};

/* A frame ("fn+0x1/0x2 [mod]") from a line of a stack, or 0 (also "? " ones). */
static int frame(const char *line, size_t l, char *out, size_t len)
{
	while (l && (*line == ' ' || *line == '=' || *line == '>')) {
		line++;
		l--;
	}
	if (!l || !memmem(line, l, "+0x", 3) || line[0] == '?' || line[0] == '<')
		return 0;
	snprintf(out, len, "%.*s", (int)l, line);
	return 1;
}

/* The frames of the first stack in text after the line that contains start. */
static int stack_parse(const char *text, const char *start, struct stack *st)
{
	const char *p = strstr(text, start);

	st->n = 0;
	if (!p)
		return 0;
	p = strchr(p, '\n');
	while (p && *++p && st->n < MAX_FRAMES) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		if (frame(p, l, st->f[st->n], sizeof(st->f[0])))
			st->n++;
		else if (st->n && !memmem(p, l, "<TASK>", 6) && !memmem(p, l, " ? ", 3))
			break;	/* the stack's end */
		p = e;
	}
	return st->n;
}

/* Allocator frames between the fault and whoever asked for the memory. */
static int allocator_frame(const char *f)
{
	static const char *const pfx[] = {
		"prepare_alloc_pages", "__alloc_pages", "alloc_pages", "__alloc_frozen",
		"kmem_cache_alloc", "__kmem_cache", "slab_alloc", "__kmalloc", "kmalloc",
		"__do_kmalloc", "___kmalloc", "__folio_alloc", "folio_alloc",
	};

	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (!strncmp(f, pfx[i], strlen(pfx[i])))
			return 1;
	return 0;
}

/*
 * Where the injected failure was: the fault, the allocation's caller (the
 * first frame after the allocator's own), what the driver called, and the
 * driver's innermost frame (fdma.ko's, or fdma_dmac.ko's and the
 * stand-in's: "[fdma").
 */
static void site_of(const struct stack *st, char *site, size_t len)
{
	const char *fault = "?", *drv = NULL, *via = NULL, *who = NULL;
	int after = 0, first = -1, k = -1;
	size_t l;

	for (int i = 0; i < st->n; i++) {
		const char *f = st->f[i];

		if (!strncmp(f, "should_failslab", 15))
			fault = "failslab";
		else if (!strncmp(f, "should_fail_alloc_page", 22))
			fault = "fail_page_alloc";
		if (!strncmp(f, "should_fail", 11)) {
			if (first < 0)
				first = i;
			after = 1;
			continue;
		}
		if (after && !who && !allocator_frame(f))
			who = f;
		if (!drv && (strstr(f, "[fdma]") || strstr(f, "[fdma_dmac]"))) {
			drv = f;
			via = i ? st->f[i - 1] : "";
			k = first >= 0 ? i - first : -1;
		}
	}
	/*
	 * should_fail_alloc_page() ends in a tail call: no frame of its own,
	 * the page allocator's first (should_failslab() has one).
	 */
	if (first < 0 && st->n) {
		int alloc = -1;

		fault = "fail_page_alloc";
		for (int i = 0; i < st->n; i++) {
			if (alloc < 0 && allocator_frame(st->f[i]))
				alloc = i;
			else if (alloc >= 0 && !who && !allocator_frame(st->f[i]))
				who = st->f[i];
			if (st->f[i] == drv)
				k = alloc >= 0 ? i - alloc + 1 : -1;
		}
	}
	if (!st->n)
		snprintf(site, len, "(no stack)");
	else if (!drv)	/* a module's init: its frames are gone when the trace is read */
		snprintf(site, len, "%s: %s (in the module's init)", fault, who ? who : "?");
	else if (!who || who == drv)
		snprintf(site, len, "%s: %s (%s)", fault, drv, via);
	else if (who == via)
		snprintf(site, len, "%s: %s from %s", fault, who, drv);
	else
		snprintf(site, len, "%s: %s in %s from %s", fault, who, via, drv);
	/* How far the driver's frame is from the fault's (stacktrace-depth). */
	l = strlen(site);
	if (k >= 0 && l + 16 < len)
		snprintf(site + l, len - l, " [frame %d]", k);
	/* A frame's "/0x..." (the function's size) is noise here. */
	for (char *s = site; *s; s++)
		if (*s == '/' && s[1] == '0' && s[2] == 'x') {
			char *end = s + 1;

			while (isxdigit((unsigned char)*end) || *end == 'x')
				end++;
			memmove(s, end, strlen(end) + 1);
		}
}

/*
 * The stack of every injection, __GFP_NOWARN ones too (the fault's own
 * dump skips those): a return probe on should_fail_ex() that records the
 * stack when it returns true, which only the injection does here
 * (probability 0). Enabled around the operation only.
 */
static char tr[64];

static int tr_wr(const char *file, const char *val, int flags)
{
	char p[192];
	int fd, ret = 0;

	snprintf(p, sizeof(p), "%s/%s", tr, file);
	fd = open(p, O_WRONLY | O_CLOEXEC | flags);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static void trace_setup(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", DBG "/tracing" };
	char p[128];

	for (size_t i = 0; i < 2 && !tr[0]; i++) {

		snprintf(p, sizeof(p), "%s/kprobe_events", dirs[i]);
		if (!exists(p) && i == 0)
			mount("nodev", dirs[0], "tracefs", 0, NULL);
		if (exists(p))
			snprintf(tr, sizeof(tr), "%s", dirs[i]);
	}
	if (!tr[0])
		return;
	/* An earlier operation's probe is there already: used as it is. */
	tr_wr("events/kprobes/fdma_fi/enable", "0", 0);
	snprintf(p, sizeof(p), "%s/events/kprobes/fdma_fi/trigger", tr);
	if (!exists(p) &&
	    (tr_wr("kprobe_events", "r:fdma_fi should_fail_ex ret=$retval:u8\n", O_APPEND) ||
	     tr_wr("events/kprobes/fdma_fi/filter", "ret != 0", 0) ||
	     tr_wr("events/kprobes/fdma_fi/trigger", "stacktrace if ret != 0", 0)))
		tr[0] = 0;
	if (!tr[0] || tr_wr("options/sym-offset", "1", 0) || tr_wr("tracing_on", "1", 0) ||
	    tr_wr("trace", "", O_TRUNC)) {
		vt_info("%s: no return probe on should_fail_ex: the stacks come from the kernel log",
			T);
		tr[0] = 0;
	}
}

static void trace_enable(int on)
{
	if (tr[0])
		tr_wr("events/kprobes/fdma_fi/enable", on ? "1" : "0", 0);
}

/* The recorded stack of the injection, then the trace emptied. */
static int trace_stack(struct stack *st)
{
	static char buf[65536];
	char p[128];
	ssize_t n;
	int fd;

	st->n = 0;
	if (!tr[0])
		return 0;
	snprintf(p, sizeof(p), "%s/trace", tr);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	tr_wr("trace", "", O_TRUNC);
	return stack_parse(buf, "<stack trace>", st);
}

/* ---- /proc/kallsyms: the filters' ranges ------------------------------------------------ */

struct range {
	unsigned long lo, hi;
};

static int cmp_ul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static unsigned long next_after(const unsigned long *a, size_t n, unsigned long x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (a[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n ? a[lo] : 0;
}

/*
 * The text of module mod ([first t/T symbol, the symbol after its last))
 * and, for each name, [its address, the next symbol's). 0 or -errno.
 */
static int ksyms(const char *mod, struct range *text, const char *const *names,
		 struct range *r, int nnames)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long *a = NULL, mlo = ~0ul, mhi = 0;
	size_t n = 0, cap = 0;
	char line[512];

	if (!f)
		return -errno;
	for (int i = 0; i < nnames; i++)
		r[i].lo = r[i].hi = 0;
	while (fgets(line, sizeof(line), f)) {
		char type, name[256], m[64] = "";
		unsigned long addr;

		if (sscanf(line, "%lx %c %255s [%63[^]]]", &addr, &type, name, m) < 3 || !addr)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			a = realloc(a, cap * sizeof(*a));
			if (!a) {
				fclose(f);
				return -ENOMEM;
			}
		}
		a[n++] = addr;
		if (mod && !strcmp(m, mod) && (type == 't' || type == 'T')) {
			if (addr < mlo)
				mlo = addr;
			if (addr > mhi)
				mhi = addr;
		}
		for (int i = 0; i < nnames; i++)
			if (!m[0] && !r[i].lo && !strcmp(name, names[i]))
				r[i].lo = addr;
	}
	fclose(f);
	if (!n) {
		free(a);
		return -EPERM;		/* addresses hidden (kptr_restrict) */
	}
	qsort(a, n, sizeof(*a), cmp_ul);
	if (mod) {
		if (!mhi) {
			free(a);
			return -ENOENT;
		}
		text->lo = mlo;
		text->hi = next_after(a, n, mhi);
		if (!text->hi)
			text->hi = mhi + 65536;
	}
	for (int i = 0; i < nnames; i++)
		if (r[i].lo)
			r[i].hi = next_after(a, n, r[i].lo);
	free(a);
	return 0;
}

/* ---- the faults ------------------------------------------------------------------------ */

static int fi(const char *fault, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fi(const char *fault, const char *file, const char *fmt, ...)
{
	char p[160], v[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	snprintf(p, sizeof(p), DBG "/%s/%s", fault, file);
	return wr(p, v);
}

static struct range cur_range;
static unsigned int cur_depth;
static struct range r_initcall, r_dmadebug, r_dmachan;
static int cache_filter;	/* kmemleak's own caches left out (slab_debug=A;-,...) */

/*
 * The kernel's ranges, once: do_one_initcall() and the DMA API debug's
 * allocations of its own (dma_entry_alloc() to add_dma_entry(): its entry
 * pages and its cacheline radix tree, whose failure switches the whole
 * checker off).
 */
static int kernel_ranges(char *why, size_t wl)
{
	static const char *const names[] = { "do_one_initcall", "dma_entry_alloc", "add_dma_entry",
					     "__dma_async_device_channel_register" };
	struct range r[4], none;
	int ret = ksyms(NULL, &none, names, r, 4);

	if (!ret && (!r[0].lo || !r[1].lo || !r[2].lo || !r[3].lo))
		ret = -ENOENT;
	if (ret) {
		snprintf(why, wl, "/proc/kallsyms: do_one_initcall, dma_entry_alloc, add_dma_entry, __dma_async_device_channel_register: %s",
			 strerror(-ret));
		return ret;
	}
	r_initcall = r[0];
	r_dmadebug.lo = r[1].lo < r[2].lo ? r[1].lo : r[2].lo;
	r_dmadebug.hi = r[1].lo < r[2].lo ? r[2].hi : r[1].hi;
	r_dmachan = r[3];
	/*
	 * What must not fail, being the checkers' own, or the kernel's where
	 * it takes a failure badly whoever calls it:
	 * - kmemleak records each object it tracks with an allocation of its
	 *   own, from the allocation's stack (failed, it takes one from its
	 *   reserve: a step where nothing shows);
	 * - the DMA API debug's cacheline tracker takes radix tree nodes and
	 *   switches the whole checker off when one fails ("cacheline
	 *   tracking ENOMEM"), and refills its entries with pages;
	 * - dmaengine's channel registration frees a channel's device without
	 *   put_device() when device_register() fails: its name leaks
	 *   (__dma_async_device_channel_register(), 6.12);
	 * - register_irq_proc() ignores a /proc/irq/N file it could not make,
	 *   and the irq's release then warns about each one (remove_proc_entry
	 *   "name '...'"): 7 and 8 frames from the driver's, outside the
	 *   default depth.
	 * Booted with slab_debug=A;-,kmemleak_object,kmemleak_scan_area,
	 * radix_tree_node(,debug_objects_cache), every cache but those may
	 * fail (failslab's cache-filter: the xarray's nodes are left out with
	 * the tracker's), and failslab's reject range is the channel
	 * registration; without it, the reject range is the DMA API debug's
	 * and kmemleak's records count.
	 */
	cache_filter = vt_read_ll("/sys/kernel/slab/kmemleak_object/failslab") == 0 &&
		       vt_read_ll("/sys/kernel/slab/radix_tree_node/failslab") == 0 &&
		       vt_read_ll("/sys/kernel/slab/kmalloc-64/failslab") == 1;
	return 0;
}

/* Both faults: counted only under range, sleeping allocations and single pages too. */
static int fi_setup(struct range text, unsigned int d, char *why, size_t wl)
{
	const char *faults[] = { "failslab", "fail_page_alloc" };
	int ret = 0;

	for (int i = 0; i < 2; i++) {
		struct range rj = i == 0 && cache_filter ? r_dmachan : r_dmadebug;

		ret |= fi(faults[i], "probability", "0");
		ret |= fi(faults[i], "interval", "1");
		ret |= fi(faults[i], "times", "-1");
		ret |= fi(faults[i], "space", "0");
		ret |= fi(faults[i], "verbose", "2");
		ret |= fi(faults[i], "task-filter", "N");
		ret |= fi(faults[i], "ignore-gfp-wait", "N");
		ret |= fi(faults[i], "stacktrace-depth", "%u", d);
		ret |= fi(faults[i], "require-start", "0x%lx", text.lo);
		ret |= fi(faults[i], "require-end", "0x%lx", text.hi);
		ret |= fi(faults[i], "reject-start", "0x%lx", rj.lo);
		ret |= fi(faults[i], "reject-end", "0x%lx", rj.hi);
	}
	ret |= fi("fail_page_alloc", "min-order", "0");
	ret |= fi("fail_page_alloc", "ignore-gfp-highmem", "N");
	ret |= fi("failslab", "cache-filter", cache_filter ? "Y" : "N");
	if (ret)
		snprintf(why, wl, "cannot configure failslab and fail_page_alloc in " DBG);
	cur_range = text;
	cur_depth = d;
	return ret ? -EIO : 0;
}

/* fdma.ko's text, looked up again when a module came or went. */
static int range_fdma(struct range *r)
{
	static char key[4096];
	static struct range cached;
	char mods[8192] = "", now_key[4096] = "";
	int fd = open("/proc/modules", O_RDONLY | O_CLOEXEC), ret;
	size_t kl = 0;
	ssize_t n;

	if (fd >= 0) {
		n = read(fd, mods, sizeof(mods) - 1);
		mods[n > 0 ? n : 0] = 0;
		close(fd);
	}
	/* Each module's name and address (not its use count). */
	for (char *l = strtok(mods, "\n"); l; l = strtok(NULL, "\n")) {
		char name[64];
		unsigned long addr = 0;

		if (sscanf(l, "%63s %*s %*s %*s %*s %lx", name, &addr) >= 1 &&
		    kl + 96 < sizeof(now_key))
			kl += snprintf(now_key + kl, sizeof(now_key) - kl, "%s@%lx ", name, addr);
	}
	if (cached.lo && !strcmp(key, now_key)) {
		*r = cached;
		return 0;
	}
	ret = ksyms("fdma", r, NULL, NULL, 0);
	if (ret)
		return ret;
	cached = *r;
	snprintf(key, sizeof(key), "%s", now_key);
	return 0;
}

/* ---- the state every step starts from, and the checks ------------------------------------ */

static int iface_down_all(void)
{
	char ifname[IFNAMSIZ];
	int s, ret = 0;

	if (iface_of(ifname, sizeof(ifname)))
		return 0;
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	ret = iface_set(s, ifname, 0);
	close(s);
	return ret;
}

/* fdma.ko loaded with params, both devices bound, nothing else of ours loaded. */
static int to_base(char *why, size_t wl)
{
	char drv[64], node[32];
	int ret;

	if ((ret = mod_unload("dmatest")) || (ret = mod_unload("fdma_dmac"))) {
		snprintf(why, wl, "rmmod dmatest/fdma_dmac: %s", strerror(-ret));
		return ret;
	}
	pci_override(bdf_fdma, "\n");
	pci_override(bdf_edu, "\n");
	if (!mod_loaded("fdma")) {
		ret = mod_load(FDMA_KO, params);
		if (ret) {
			snprintf(why, wl, "insmod %s %s: %s", FDMA_KO, params, strerror(-ret));
			return ret;
		}
	}
	pci_driver_of(bdf_fdma, drv, sizeof(drv));
	if (!drv[0] && (ret = pci_bind("fdma", bdf_fdma))) {
		snprintf(why, wl, "bind %s to fdma: %s", bdf_fdma, strerror(-ret));
		return ret;
	}
	pci_driver_of(bdf_edu, drv, sizeof(drv));
	if (use_edu && !drv[0] && (ret = pci_bind("fdma-edu", bdf_edu))) {
		snprintf(why, wl, "bind %s to fdma-edu: %s", bdf_edu, strerror(-ret));
		return ret;
	}
	ret = iface_down_all();
	if (ret) {
		snprintf(why, wl, "network interface down: %s", strerror(-ret));
		return ret;
	}
	if (node_of("engine", node, sizeof(node))) {
		snprintf(why, wl, "no fdma node with backend engine");
		return -ENODEV;
	}
	return 0;
}

/* A pattern to card memory and back through /dev/fdmaN (read/write path). */
static int check_xfer(unsigned int seed, char *why, size_t wl)
{
	static uint8_t w[XFER_LEN], r[XFER_LEN];
	char node[32];
	long at;
	int fd;

	if (node_of("engine", node, sizeof(node))) {
		snprintf(why, wl, "no fdma node");
		return -ENODEV;
	}
	fd = vt_open_dev(node, O_RDWR, 2000);
	if (fd < 0) {
		snprintf(why, wl, "open /dev/%s: %s", node, strerror(errno));
		return -errno;
	}
	vt_fill(w, sizeof(w), seed);
	memset(r, 0, sizeof(r));
	if (pwrite(fd, w, sizeof(w), XFER_CARD) != (ssize_t)sizeof(w) ||
	    pread(fd, r, sizeof(r), XFER_CARD) != (ssize_t)sizeof(r)) {
		snprintf(why, wl, "transfer through /dev/%s: %s", node, strerror(errno));
		close(fd);
		return -EIO;
	}
	close(fd);
	at = vt_check(r, sizeof(r), seed);
	if (at >= 0) {
		snprintf(why, wl, "transfer through /dev/%s: byte %ld differs", node, at);
		return -EIO;
	}
	return 0;
}

/* The same through QEMU's edu device (/dev/fdma-edu0). */
static int check_edu(unsigned int seed, char *why, size_t wl)
{
	uint8_t w[256], r[256];
	int fd = vt_open_dev("fdma-edu0", O_RDWR, 2000);

	if (fd < 0) {
		snprintf(why, wl, "open /dev/fdma-edu0: %s", strerror(errno));
		return -errno;
	}
	vt_fill(w, sizeof(w), seed);
	if (pwrite(fd, w, sizeof(w), 0) != (ssize_t)sizeof(w) ||
	    pread(fd, r, sizeof(r), 0) != (ssize_t)sizeof(r) || memcmp(w, r, sizeof(w))) {
		snprintf(why, wl, "transfer through /dev/fdma-edu0: %s", strerror(errno));
		close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

static int check_pinned(char *why, size_t wl)
{
	long long p = vi_pinned_total();

	if (p != 0) {
		snprintf(why, wl, "debugfs pinned_pages reads %lld", p);
		return -EIO;
	}
	return 0;
}

/* A copy on node's first memory-to-memory channel, checked. */
static int check_copy(const char *node, unsigned int seed, char *why, size_t wl)
{
	struct vi_dev d;
	struct vi_buf s = { 0 }, t = { 0 };
	struct fdma_cq_entry e = { 0 };
	struct fdma_ioc_copy c;
	int ret;

	ret = vi_open(&d, node);
	if (ret) {
		snprintf(why, wl, "open /dev/%s: %s", node, strerror(-ret));
		return ret;
	}
	if (d.mem < 0) {
		snprintf(why, wl, "/dev/%s has no memory-to-memory channel", node);
		vi_close(&d);
		return -ENODEV;
	}
	ret = vi_alloc(&d, BUF_LEN, &s);
	if (!ret)
		ret = vi_alloc(&d, BUF_LEN, &t);
	if (!ret)
		ret = vi_cq_map(&d, d.mem);
	if (!ret) {
		vt_fill(s.p, BUF_LEN, seed);
		memset(t.p, 0, BUF_LEN);
		c = (struct fdma_ioc_copy){ .src_handle = s.handle, .dst_handle = t.handle,
					    .len = BUF_LEN, .user_data = 7 };
		ret = vi_copy(&d, d.mem, &c, 1);
	}
	if (!ret)
		ret = vi_collect(&d, d.mem, &e, 1, 10000000);
	if (!ret)
		ret = e.res;
	if (!ret && vt_check(t.p, BUF_LEN, seed) >= 0)
		ret = -EIO;
	if (ret)
		snprintf(why, wl, "a checked copy on /dev/%s: %s", node, strerror(-ret));
	if (s.p)
		vi_free(&d, &s);
	if (t.p)
		vi_free(&d, &t);
	vi_close(&d);
	return ret;
}

/*
 * dmatest's run, until its thread printed its summary. dmatest's wait
 * parameter is not enough: reading it blocks while a thread runs, but a
 * thread counts as running only once it has been scheduled (the thread
 * clears its own pending flag, and is_threaded_test_run() passes over
 * pending threads: dmatest.c of 6.1 and 6.12), so a read soon after
 * run=1 can return before the thread started, with no summary in the log
 * yet. Here that is the case every time: the write of run and the first
 * read of wait are made at SCHED_FIFO, so on this one-CPU guest the
 * thread, woken by the write, cannot run in between. Then wait is read
 * again until the summary is there (dmatest's timeout bounds a copy).
 * Counted: the checks, and those whose first read of wait came back
 * before the summary (what a single read would have failed).
 */
#define DMATEST_WAIT_S	30

static unsigned int dmatest_checks, dmatest_early;

static int dmatest_run(char *why, size_t wl)
{
	struct sched_param rt = { .sched_priority = 1 }, other = { 0 };
	int fifo = !sched_setscheduler(0, SCHED_FIFO, &rt), ret;
	double end;
	size_t from;

	kmsg_take();
	from = klen;
	ret = wr(DMATEST_P "run", "1");
	if (!ret) {
		vt_read_ll(DMATEST_P "wait");
		kmsg_take();
	}
	if (fifo)
		sched_setscheduler(0, SCHED_OTHER, &other);
	if (ret) {
		snprintf(why, wl, "dmatest: run: %s", strerror(-ret));
		return ret;
	}
	dmatest_checks++;
	if (!strstr(klog + from, ": summary "))
		dmatest_early++;
	for (end = now() + DMATEST_WAIT_S; !strstr(klog + from, ": summary ") && now() < end; ) {
		usleep(20000);
		vt_read_ll(DMATEST_P "wait");	/* until the thread ends, once it runs */
		kmsg_take();
	}
	if (!strstr(klog + from, "summary 1 tests, 0 failures")) {
		const char *l = strstr(klog + from, ": summary ");

		if (l)
			snprintf(why, wl, "dmatest did not report 1 test and 0 failures:%.*s",
				 (int)strcspn(l + 1, "\n"), l + 1);
		else
			snprintf(why, wl, "dmatest did not report 1 test and 0 failures: no summary in %d s",
				 DMATEST_WAIT_S);
		return -EIO;
	}
	return 0;
}

/* dmatest takes a memory-to-memory channel and copies once, checked. */
static int check_dmatest(char *why, size_t wl)
{
	int ret = mod_load(DMATEST_KO, DMATEST_PARAMS);

	if (ret) {
		snprintf(why, wl, "insmod %s: %s", DMATEST_KO, strerror(-ret));
		return ret;
	}
	ret = wr(DMATEST_P "channel", "\n");
	if (ret)
		snprintf(why, wl, "dmatest: no channel (%s)", strerror(-ret));
	else
		ret = dmatest_run(why, wl);
	mod_unload("dmatest");
	return ret;
}

/* ---- the operations ------------------------------------------------------------------------ */

struct ctx {
	int fd;			/* what the operation works on */
	int fd2;
	struct vi_dev d;
	struct vi_buf b;
	uint32_t handle;	/* a buffer the operation made */
	uint8_t *mem;		/* register: anonymous memory */
	uint64_t gva;		/* nvp2p: the stand-in's GPU address */
	uint8_t *gcpu;
	char name[32];
	char bind[64];
};

struct op {
	const char *name;
	int initcall;		/* the filter: do_one_initcall(), else fdma.ko's text */
	int (*prep)(struct ctx *c, char *why, size_t wl);
	int (*act)(struct ctx *c);
	/* After the step: undo what act made; the operation works without a fault. */
	int (*undo)(struct ctx *c, int ret, char *why, size_t wl);
	int edu;		/* also check the edu device */
};

static int open_node(struct ctx *c, char *why, size_t wl)
{
	char node[32];

	if (node_of("engine", node, sizeof(node))) {
		snprintf(why, wl, "no fdma node");
		return -ENODEV;
	}
	c->fd = vt_open_dev(node, O_RDWR, 2000);
	if (c->fd < 0) {
		snprintf(why, wl, "open /dev/%s: %s", node, strerror(errno));
		return -errno;
	}
	snprintf(c->name, sizeof(c->name), "%s", node);
	return 0;
}

static int free_handle(struct ctx *c, char *why, size_t wl)
{
	if (c->handle && ioctl(c->fd, FDMA_IOC_BUF_FREE, &c->handle)) {
		snprintf(why, wl, "BUF_FREE: %s", strerror(errno));
		return -errno;
	}
	c->handle = 0;
	return 0;
}

/*
 * A buffer operation's undo: free what the step made, make it again
 * without a fault (the operation still works), and free that too.
 */
static int redo_buffer(struct ctx *c, int (*act)(struct ctx *c), const char *what, char *why,
		       size_t wl)
{
	int ret = free_handle(c, why, wl);

	if (!ret && (ret = act(c)))
		snprintf(why, wl, "%s again without a fault: %s", what, strerror(-ret));
	if (!ret)
		ret = free_handle(c, why, wl);
	return ret;
}

/* init: fdma.ko's module init with no device to bind (driver_override). */
static int init_prep(struct ctx *c, char *why, size_t wl)
{
	int ret = mod_unload("fdma");

	if (ret) {
		snprintf(why, wl, "rmmod fdma: %s", strerror(-ret));
		return ret;
	}
	if (pci_override(bdf_fdma, "none") || pci_override(bdf_edu, "none")) {
		snprintf(why, wl, "cannot set driver_override");
		return -EIO;
	}
	c->fd = open(FDMA_KO, O_RDONLY | O_CLOEXEC);
	return c->fd < 0 ? -errno : 0;
}

static int init_act(struct ctx *c)
{
	return syscall(SYS_finit_module, c->fd, params, 0) ? -errno : 0;
}

static int init_undo(struct ctx *c, int ret, char *why, size_t wl)
{
	close(c->fd);
	pci_override(bdf_fdma, "\n");
	pci_override(bdf_edu, "\n");
	if (!ret && (ret = mod_unload("fdma"))) {
		snprintf(why, wl, "rmmod fdma after its load: %s", strerror(-ret));
		return ret;
	}
	/* to_base() loads it again and binds both devices. */
	return 0;
}

/* probe, probe_edu: a device bound to the driver through sysfs. */
static int bind_prep(struct ctx *c, const char *drv, const char *bdf, char *why, size_t wl)
{
	char p[160];
	int ret = pci_unbind(drv, bdf);

	if (ret) {
		snprintf(why, wl, "unbind %s from %s: %s", bdf, drv, strerror(-ret));
		return ret;
	}
	snprintf(c->bind, sizeof(c->bind), "%s", bdf);
	snprintf(p, sizeof(p), "/sys/bus/pci/drivers/%s/bind", drv);
	c->fd = open(p, O_WRONLY | O_CLOEXEC);
	return c->fd < 0 ? -errno : 0;
}

static int bind_act(struct ctx *c)
{
	return write(c->fd, c->bind, strlen(c->bind)) < 0 ? -errno : 0;
}

static int bind_undo(struct ctx *c, const char *drv, int ret, char *why, size_t wl)
{
	char now[64];

	close(c->fd);
	pci_driver_of(c->bind, now, sizeof(now));
	if (!ret && strcmp(now, drv)) {
		snprintf(why, wl, "the bind succeeded, but %s is bound to '%s'", c->bind, now);
		return -EIO;
	}
	if (ret && now[0]) {
		snprintf(why, wl, "the bind failed (%s), but %s is bound to %s",
			 strerror(-ret), c->bind, now);
		return -EIO;
	}
	if (ret && (ret = pci_bind(drv, c->bind))) {
		snprintf(why, wl, "bind %s again without a fault: %s", c->bind, strerror(-ret));
		return ret;
	}
	return 0;
}

static int probe_prep(struct ctx *c, char *why, size_t wl)
{
	return bind_prep(c, "fdma", bdf_fdma, why, wl);
}

static int probe_undo(struct ctx *c, int ret, char *why, size_t wl)
{
	return bind_undo(c, "fdma", ret, why, wl);
}

static int edu_prep(struct ctx *c, char *why, size_t wl)
{
	return bind_prep(c, "fdma-edu", bdf_edu, why, wl);
}

static int edu_undo(struct ctx *c, int ret, char *why, size_t wl)
{
	return bind_undo(c, "fdma-edu", ret, why, wl);
}

/* open */
static int open_prep(struct ctx *c, char *why, size_t wl)
{
	if (node_of("engine", c->name, sizeof(c->name))) {
		snprintf(why, wl, "no fdma node");
		return -ENODEV;
	}
	snprintf(c->bind, sizeof(c->bind), "/dev/%s", c->name);
	return 0;
}

static int open_act(struct ctx *c)
{
	c->fd = open(c->bind, O_RDWR | O_CLOEXEC);
	return c->fd < 0 ? -errno : 0;
}

static int open_undo(struct ctx *c, int ret, char *why, size_t wl)
{
	if (!ret)
		close(c->fd);
	c->fd = open(c->bind, O_RDWR | O_CLOEXEC);
	if (c->fd < 0) {
		snprintf(why, wl, "open %s again without a fault: %s", c->bind, strerror(errno));
		return -errno;
	}
	close(c->fd);
	return 0;
}

/* alloc */
static int alloc_act(struct ctx *c)
{
	struct fdma_ioc_buf_alloc a = { .size = BUF_LEN };

	if (ioctl(c->fd, FDMA_IOC_BUF_ALLOC, &a))
		return -errno;
	c->handle = a.handle;
	return 0;
}

static int alloc_undo(struct ctx *c, int ret, char *why, size_t wl)
{
	ret = redo_buffer(c, alloc_act, "BUF_ALLOC", why, wl);
	close(c->fd);
	return ret;
}

/* register */
static int reg_prep(struct ctx *c, char *why, size_t wl)
{
	int ret = open_node(c, why, wl);

	if (ret)
		return ret;
	c->mem = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->mem == MAP_FAILED) {
		c->mem = NULL;
		return -errno;
	}
	memset(c->mem, 0x5a, BUF_LEN);
	return 0;
}

static int reg_act(struct ctx *c)
{
	struct fdma_ioc_buf_reg r = { .addr = (uintptr_t)c->mem, .size = BUF_LEN };

	if (ioctl(c->fd, FDMA_IOC_BUF_REGISTER, &r))
		return -errno;
	c->handle = r.handle;
	return 0;
}

static int reg_undo(struct ctx *c, int ret, char *why, size_t wl)
{
	ret = redo_buffer(c, reg_act, "BUF_REGISTER", why, wl);
	close(c->fd);
	munmap(c->mem, BUF_LEN);
	return ret;
}

/* import: a udmabuf's dma-buf */
static int import_prep(struct ctx *c, char *why, size_t wl)
{
	struct udmabuf_create u = { .flags = UDMABUF_FLAGS_CLOEXEC, .size = BUF_LEN };
	int dev, m, ret = open_node(c, why, wl);

	if (ret)
		return ret;
	dev = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		snprintf(why, wl, "/dev/udmabuf: %s", strerror(errno));
		return -errno;
	}
	m = memfd_create("fdma-failnth", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (m < 0 || ftruncate(m, BUF_LEN) || fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK)) {
		snprintf(why, wl, "memfd: %s", strerror(errno));
		close(dev);
		return -EIO;
	}
	u.memfd = (uint32_t)m;
	c->fd2 = ioctl(dev, UDMABUF_CREATE, &u);
	ret = c->fd2 < 0 ? -errno : 0;
	if (ret)
		snprintf(why, wl, "UDMABUF_CREATE: %s", strerror(errno));
	close(m);
	close(dev);
	return ret;
}

static int import_act(struct ctx *c)
{
	struct fdma_ioc_buf_import r = { .fd = c->fd2, .size = BUF_LEN };

	if (ioctl(c->fd, FDMA_IOC_BUF_IMPORT, &r))
		return -errno;
	c->handle = r.handle;
	return 0;
}

static int import_undo(struct ctx *c, int ret, char *why, size_t wl)
{
	ret = redo_buffer(c, import_act, "BUF_IMPORT", why, wl);
	close(c->fd2);
	close(c->fd);
	return ret;
}

/* nvp2p: GPU memory of the stand-in of NVIDIA's API */
static int nvp2p_prep(struct ctx *c, char *why, size_t wl)
{
	struct gpu_alloc_req g = { .size = GPU_LEN };
	int ret = open_node(c, why, wl);

	if (ret)
		return ret;
	c->fd2 = open("/dev/fdma_gpu", O_RDWR | O_CLOEXEC);
	if (c->fd2 < 0) {
		snprintf(why, wl, "/dev/fdma_gpu: %s", strerror(errno));
		return -errno;
	}
	if (ioctl(c->fd2, GPU_ALLOC, &g)) {
		snprintf(why, wl, "GPU_ALLOC: %s", strerror(errno));
		return -errno;
	}
	c->gva = g.va;
	return 0;
}

static int nvp2p_act(struct ctx *c)
{
	struct fdma_ioc_buf_nvp2p r = { .va = c->gva, .size = GPU_LEN };

	if (ioctl(c->fd, FDMA_IOC_BUF_NVP2P, &r))
		return -errno;
	c->handle = r.handle;
	return 0;
}

static int nvp2p_undo(struct ctx *c, int ret, char *why, size_t wl)
{
	ret = redo_buffer(c, nvp2p_act, "BUF_NVP2P", why, wl);
	if (ioctl(c->fd2, GPU_FREE, &c->gva) && !ret) {
		snprintf(why, wl, "GPU_FREE: %s", strerror(errno));
		ret = -EIO;
	}
	close(c->fd2);
	close(c->fd);
	return ret;
}

/*
 * submit: one H2C request from a fresh file whose completion queue is not
 * mapped yet (the submission makes it), checked by reading it back.
 */
static int submit_prep(struct ctx *c, char *why, size_t wl)
{
	char node[32];
	int ret;

	if (node_of("engine", node, sizeof(node))) {
		snprintf(why, wl, "no fdma node");
		return -ENODEV;
	}
	ret = vi_open(&c->d, node);
	if (!ret)
		ret = vi_alloc(&c->d, 2 * BUF_LEN, &c->b);
	if (ret) {
		snprintf(why, wl, "open /dev/%s and allocate: %s", node, strerror(-ret));
		return ret;
	}
	vt_fill(c->b.p, BUF_LEN, 77);
	memset(c->b.p + BUF_LEN, 0, BUF_LEN);
	return 0;
}

static int submit_one(struct ctx *c, int ch, uint64_t off)
{
	struct fdma_ioc_req r = { .handle = c->b.handle, .offset = off,
				  .card_addr = XFER_CARD + 4 * BUF_LEN, .len = BUF_LEN,
				  .user_data = off };

	return vi_submit(&c->d, ch, &r, 1);
}

static int submit_act(struct ctx *c)
{
	return submit_one(c, c->d.h2c, 0);
}

static int submit_undo(struct ctx *c, int ret, char *why, size_t wl)
{
	struct fdma_cq_entry e = { 0 };

	if (ret && (ret = submit_act(c))) {
		snprintf(why, wl, "SUBMIT again without a fault: %s", strerror(-ret));
		goto out;
	}
	ret = vi_cq_map(&c->d, c->d.h2c);
	if (!ret)
		ret = vi_collect(&c->d, c->d.h2c, &e, 1, 10000000);
	if (!ret)
		ret = e.res;
	if (!ret)
		ret = submit_one(c, c->d.c2h, BUF_LEN);
	if (!ret)
		ret = vi_cq_map(&c->d, c->d.c2h);
	if (!ret)
		ret = vi_collect(&c->d, c->d.c2h, &e, 1, 10000000);
	if (!ret)
		ret = e.res;
	if (!ret && vt_check(c->b.p + BUF_LEN, BUF_LEN, 77) >= 0)
		ret = -EIO;
	if (ret)
		snprintf(why, wl, "the submitted request, or the one read back: %s",
			 strerror(-ret));
out:
	vi_free(&c->d, &c->b);
	vi_close(&c->d);
	return ret;
}

/* ifup: the network interface set up (ndo_open) */
static int ifup_prep(struct ctx *c, char *why, size_t wl)
{
	if (iface_of(c->name, sizeof(c->name))) {
		snprintf(why, wl, "no fdma network interface (net=1)");
		return -ENODEV;
	}
	c->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	return c->fd < 0 ? -errno : 0;
}

static int ifup_act(struct ctx *c)
{
	return iface_set(c->fd, c->name, 1);
}

static int ifup_undo(struct ctx *c, int ret, char *why, size_t wl)
{
	if (!ret && (ret = iface_set(c->fd, c->name, 0))) {
		snprintf(why, wl, "%s down: %s", c->name, strerror(-ret));
		goto out;
	}
	ret = iface_set(c->fd, c->name, 1);
	if (ret) {
		snprintf(why, wl, "%s up again without a fault: %s", c->name, strerror(-ret));
		goto out;
	}
	ret = iface_set(c->fd, c->name, 0);
	if (ret)
		snprintf(why, wl, "%s down: %s", c->name, strerror(-ret));
out:
	close(c->fd);
	return ret;
}

/* dmatest: its channel request (dma_request_channel(): the provider's alloc_chan_resources) */
static int dmatest_prep(struct ctx *c, char *why, size_t wl)
{
	int ret = mod_load(DMATEST_KO, DMATEST_PARAMS);

	if (ret) {
		snprintf(why, wl, "insmod %s: %s", DMATEST_KO, strerror(-ret));
		return ret;
	}
	c->fd = open(DMATEST_P "channel", O_WRONLY | O_CLOEXEC);
	return c->fd < 0 ? -errno : 0;
}

static int dmatest_act(struct ctx *c)
{
	return write(c->fd, "\n", 1) < 0 ? -errno : 0;
}

static int dmatest_undo(struct ctx *c, int ret, char *why, size_t wl)
{
	close(c->fd);
	ret = mod_unload("dmatest");
	if (ret) {
		snprintf(why, wl, "rmmod dmatest: %s", strerror(-ret));
		return ret;
	}
	return check_dmatest(why, wl);
}

/* dmac: fdma_dmac.ko's load, its default group (every free memcpy channel) */
static int dmac_prep(struct ctx *c, char *why, size_t wl)
{
	c->fd = open(DMAC_KO, O_RDONLY | O_CLOEXEC);
	if (c->fd < 0) {
		snprintf(why, wl, "%s: %s", DMAC_KO, strerror(errno));
		return -errno;
	}
	return 0;
}

static int dmac_act(struct ctx *c)
{
	return syscall(SYS_finit_module, c->fd, "", 0) ? -errno : 0;
}

static int dmac_undo(struct ctx *c, int ret, char *why, size_t wl)
{
	char node[32];

	if (ret && (ret = dmac_act(c)))
		snprintf(why, wl, "insmod %s again without a fault: %s", DMAC_KO, strerror(-ret));
	close(c->fd);
	if (ret)
		return ret;
	if (node_of("dmaengine", node, sizeof(node))) {
		snprintf(why, wl, "fdma_dmac loaded, but no node with backend dmaengine");
		ret = -ENODEV;
	} else {
		ret = check_copy(node, 99, why, wl);
	}
	if (mod_unload("fdma_dmac") && !ret) {
		snprintf(why, wl, "rmmod fdma_dmac: %s", strerror(errno));
		ret = -EIO;
	}
	return ret;
}

static int alloc_prep(struct ctx *c, char *why, size_t wl)
{
	return open_node(c, why, wl);
}

static const struct op ops[] = {
	{ "init", 1, init_prep, init_act, init_undo, 1 },
	{ "probe", 0, probe_prep, bind_act, probe_undo, 0 },
	{ "probe_edu", 0, edu_prep, bind_act, edu_undo, 1 },
	{ "open", 0, open_prep, open_act, open_undo, 0 },
	{ "alloc", 0, alloc_prep, alloc_act, alloc_undo, 0 },
	{ "register", 0, reg_prep, reg_act, reg_undo, 0 },
	{ "import", 0, import_prep, import_act, import_undo, 0 },
	{ "nvp2p", 0, nvp2p_prep, nvp2p_act, nvp2p_undo, 0 },
	{ "submit", 0, submit_prep, submit_act, submit_undo, 0 },
	{ "ifup", 0, ifup_prep, ifup_act, ifup_undo, 0 },
	{ "dmatest", 0, dmatest_prep, dmatest_act, dmatest_undo, 0 },
	{ "dmac", 1, dmac_prep, dmac_act, dmac_undo, 0 },
};

/* ---- kmemleak ---------------------------------------------------------------------------- */

/*
 * Nothing unreferenced since the last clear. A suspect is reported once it
 * is 5 s old: wait until the last step is that old, then scan (twice, as
 * init.sh does: a pointer in flight misses one scan).
 */
static double kml_secs;

static int kml_check(double last)
{
	static char rep[65536];
	double wait = last + 5.5 - now();
	int fd;
	ssize_t n;

	if (wait > 0)
		usleep((useconds_t)(wait * 1e6));
	kml_secs = now();
	wr(KML, "scan");
	wr(KML, "scan");
	kml_secs = now() - kml_secs;
	fd = open(KML, O_RDONLY);
	if (fd < 0) {
		problem("kmemleak: %s", strerror(errno));
		return -1;
	}
	n = read(fd, rep, sizeof(rep) - 1);
	close(fd);
	rep[n > 0 ? n : 0] = 0;
	wr(KML, "clear");
	if (n <= 0)
		return 0;
	{
		int objs = 0;

		for (const char *p = rep; (p = strstr(p, "unreferenced object")); p++)
			objs++;
		problem("kmemleak: %d unreferenced object%s (below)", objs, objs == 1 ? "" : "s");
	}
	for (const char *p = rep; *p; ) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		printf("    | %.*s\n", (int)l, p);
		p = e ? e + 1 : p + l;
	}
	return -1;
}

/* ---- the campaign ------------------------------------------------------------------------- */

static int set_range(const struct op *o, char *why, size_t wl)
{
	struct range r;
	unsigned int d;
	int ret = 0;

	if (o->initcall)
		r = r_initcall;
	else
		ret = range_fdma(&r);

	if (ret) {
		snprintf(why, wl, "the filter's range (%s): %s",
			 o->initcall ? "do_one_initcall" : "fdma.ko's text", strerror(-ret));
		return ret;
	}
	/*
	 * A module's load: do_one_initcall() stands for the module's code,
	 * which sits below it: its init function, and what that calls before
	 * it reaches fdma.ko or the provider (fdma_dmac.ko: the group, the
	 * channel request, the provider's alloc_chan_resources() at the
	 * tenth frame from the allocator's).
	 */
	d = o->initcall ? depth + 3 : depth;
	if (r.lo == cur_range.lo && r.hi == cur_range.hi && d == cur_depth)
		return 0;
	return fi_setup(r, d, why, wl);
}

static const char *errname(int ret)
{
	static char b[64];

	snprintf(b, sizeof(b), "%s", ret ? strerror(-ret) : "succeeded");
	return b;
}

static unsigned int max_steps = 3000;
static int count_only;
static enum { KML_END, KML_OP, KML_NONE } kml_mode;	/* default: end */

static double last_step;

/* The campaign of one operation: VMTEST lines; 0 if it passed. */
static int run_op(const struct op *o)
{
	int failed_op = 0, absorbed = 0, points = 0, finished = 0;
	double t0 = now(), last = t0;
	char why[1024], bad[512];
	unsigned int n;

	snprintf(T, sizeof(T), "faults_%s", o->name);
	problems = 0;
	kml_secs = 0;
	dmatest_checks = dmatest_early = 0;
	if (!strcmp(o->name, "nvp2p") && !exists("/dev/fdma_gpu")) {
		printf("VMTEST SKIP %s: no /dev/fdma_gpu (the stand-in of NVIDIA's API is not loaded)\n", T);
		return 0;
	}
	if (o->edu && !o->initcall && !use_edu) {
		printf("VMTEST SKIP %s: the edu device does not bind here (no 28-bit DMA?)\n", T);
		return 0;
	}
	if (to_base(why, sizeof(why))) {
		vt_fail(T, "before the first step: %s", why);
		return 1;
	}
	kmsg_reset();

	for (n = 1; n <= max_steps; n++) {
		struct ctx c;
		char site[400] = "";
		long left;
		int ret, bad_step = 0;

		memset(&c, 0, sizeof(c));
		c.fd = c.fd2 = -1;
		why[0] = 0;
		if (o->prep(&c, why, sizeof(why)) || set_range(o, why, sizeof(why))) {
			problem("step %u: before the operation: %s", n, why);
			break;
		}
		if (nth_set(count_only ? 1000000 : n)) {
			problem("cannot write " FAIL_NTH);
			break;
		}
		trace_enable(1);
		ret = o->act(&c);
		left = nth_get();
		nth_set(0);
		trace_enable(0);
		kmsg_take();
		if (count_only) {
			printf("  %s: %ld allocations counted under the filter [0x%lx, 0x%lx); the operation %s\n",
			       T, 1000000 - left, cur_range.lo, cur_range.hi, errname(ret));
			o->undo(&c, ret, why, sizeof(why));
			to_base(why, sizeof(why));
			vt_pass(T);
			return 0;
		}
		if (left == 0) {
			struct stack st;

			/* The probe's stack, else the fault's own dump in the log. */
			if (!trace_stack(&st))
				stack_parse(klog, "FAULT_INJECTION: forcing a failure", &st);
			site_of(&st, site, sizeof(site));
		} else {
			trace_stack(&(struct stack){ 0 });
		}
		why[0] = 0;
		if (o->undo(&c, ret, why, sizeof(why))) {
			problem("step %u: after the fault: %s", n, why);
			bad_step = 1;
		}
		if (to_base(why, sizeof(why))) {
			problem("step %u: cannot bring the device back: %s", n, why);
			kmsg_take();
			kmsg_show(200);
			break;
		}
		if (check_pinned(why, sizeof(why)) || check_xfer(n, why, sizeof(why)) ||
		    (o->edu && use_edu && check_edu(n, why, sizeof(why)))) {
			problem("step %u: the device after the fault: %s", n, why);
			bad_step = 1;
		}
		kmsg_take();
		if (kmsg_bad(bad, sizeof(bad))) {
			problem("step %u: the kernel log reports: %s", n, bad);
			bad_step = 1;
		}
		last = now();
		if (left != 0) {
			printf("  %s %u: nothing left to fail (fail-nth reads %ld): the operation %s\n",
			       T, n, left, errname(ret));
			if (ret)
				problem("the operation fails with no fault injected: %s", strerror(-ret));
			finished = 1;
			if (bad_step)
				kmsg_show(200);
			break;
		}
		points++;
		if (ret)
			failed_op++;
		else
			absorbed++;
		printf("  %s %u: %s; the operation %s%s\n", T, n, site, errname(ret),
		       bad_step ? " [PROBLEM]" : "");
		if (bad_step)
			kmsg_show(200);
		/* The next step's log starts here: its preparation is in it. */
		kmsg_reset();
	}
	if (!finished && problems == 0)
		problem("still failing points after %u steps (--max)", max_steps);
	if (kml_mode == KML_OP)
		kml_check(last);
	last_step = last;
	printf("VMTEST INFO %s: %d failure points, each hit (fail-nth read back 0); the operation failed at %d, went on without what failed at %d; %.0f s",
	       T, points, failed_op, absorbed, now() - t0);
	if (kml_mode == KML_OP)
		printf(" (the kmemleak scans %.1f s)", kml_secs);
	if (dmatest_checks)
		printf("; dmatest's wait came back before its thread had run at %u of %u checks (the summary waited for)",
		       dmatest_early, dmatest_checks);
	printf("\n");
	if (!problems)
		vt_pass(T);
	return problems ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: fdma_failnth OP[,OP...] [--max N] [--count] [--depth D] [--kmemleak op|end|none]; OP:");
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		fprintf(stderr, " %s", ops[k].name);
	fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
	const struct op *todo[32];
	int ntodo = 0, failed = 0, ret;
	char why[1024];
	double t0 = now();

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--max") && i + 1 < argc) {
			max_steps = (unsigned int)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--count")) {
			count_only = 1;
		} else if (!strcmp(argv[i], "--depth") && i + 1 < argc) {
			depth = (unsigned int)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--kmemleak") && i + 1 < argc) {
			i++;
			kml_mode = !strcmp(argv[i], "op") ? KML_OP :
				   !strcmp(argv[i], "none") ? KML_NONE : KML_END;
		} else {
			for (char *w = strtok(argv[i], ","); w; w = strtok(NULL, ",")) {
				size_t k;

				for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
					if (!strcmp(w, ops[k].name))
						break;
				if (k == sizeof(ops) / sizeof(ops[0]) || ntodo == 32) {
					usage();
					return 2;
				}
				todo[ntodo++] = &ops[k];
			}
		}
	}
	if (!ntodo) {
		usage();
		return 2;
	}
	snprintf(T, sizeof(T), "faults");
	if (!exists(FAIL_NTH) || !exists(DBG "/failslab/require-start") ||
	    !exists(DBG "/fail_page_alloc/min-order") || !exists(KML)) {
		printf("VMTEST SKIP faults: no fail-nth, failslab, fail_page_alloc with stack filters or kmemleak (the debug kernel has them)\n");
		return 0;
	}
	if (pci_bdf(0x1af4, 0x1110, bdf_fdma, sizeof(bdf_fdma)) ||
	    pci_bdf(0x1234, 0x11e8, bdf_edu, sizeof(bdf_edu))) {
		vt_fail(T, "no ivshmem or edu device");
		return 1;
	}
	/*
	 * Rings and completion queues of 64 entries: the loops over their
	 * slots (receive pages, queue pages) are that long, and each of
	 * their allocations is a step.
	 */
	snprintf(params, sizeof(params),
		 "ivshmem=1 edu=1 edu_dma_bits=%s dmaengine=1 net=1 ring_size=64 cq_entries=64",
		 getenv("fdmavm_edu_dma_bits") ? getenv("fdmavm_edu_dma_bits") : "28");
	klog = malloc(KMSG_MAX);
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (!klog || kmsg_fd < 0) {
		vt_fail(T, "/dev/kmsg: %s", strerror(errno));
		return 1;
	}
	lseek(kmsg_fd, 0, SEEK_END);
	klog[0] = 0;
	if (kernel_ranges(why, sizeof(why))) {
		vt_fail(T, "%s", why);
		return 1;
	}
	trace_setup();
	/* Loaded with other parameters (not by this program): again. */
	if (mod_loaded("fdma") && (vt_read_ll("/sys/module/fdma/parameters/ring_size") != 64 ||
				   vt_read_ll("/sys/module/fdma/parameters/cq_entries") != 64 ||
				   vt_read_str("/sys/module/fdma/parameters/net", why, sizeof(why)) ||
				   strcmp(why, "Y")) &&
	    (ret = mod_unload("fdma"))) {
		vt_fail(T, "rmmod fdma: %s", strerror(-ret));
		return 1;
	}
	if (!mod_loaded("fdma") && (ret = mod_load(FDMA_KO, params))) {
		vt_fail(T, "insmod %s %s: %s", FDMA_KO, params, strerror(-ret));
		return 1;
	}
	/* edu needs 28-bit DMA (ZONE_DMA): without it, the rest goes on. */
	pci_driver_of(bdf_edu, why, sizeof(why));
	if (!why[0])
		pci_bind("fdma-edu", bdf_edu);
	pci_driver_of(bdf_edu, why, sizeof(why));
	if (strcmp(why, "fdma-edu")) {
		use_edu = 0;
		vt_info("faults: the edu device does not bind here: left out");
	}
	vt_info("faults: fdma.ko %s; allocations counted with its frame among the innermost %u of the stack%s%s; setup %.1f s",
		params, depth,
		cache_filter ? "; kmemleak's and the xarray's caches left out, and dmaengine's channel registration"
			     : "; kmemleak's records counted too (no slab_debug=A;-,...)",
		tr[0] ? "" : "; stacks from the kernel log only", now() - t0);
	/* What kmemleak suspects from before is not the campaign's. */
	if (!count_only && kml_mode != KML_NONE) {
		wr(KML, "scan");
		wr(KML, "clear");
	}
	for (int i = 0; i < ntodo; i++) {
		double t1 = now();

		failed |= run_op(todo[i]);
		printf("VMTEST INFO faults_%s: %.0f s\n", todo[i]->name, now() - t1);
	}
	/* One check for every operation: a leak's stack names its path. */
	if (!count_only && kml_mode == KML_END) {
		snprintf(T, sizeof(T), "faults_kmemleak");
		problems = 0;
		kml_check(last_step);
		printf("VMTEST INFO faults_kmemleak: the scans %.1f s\n", kml_secs);
		if (!problems)
			vt_pass(T);
		failed |= problems;
	}
	printf("VMTEST INFO faults: %.0f s in all\n", now() - t0);
	return failed;
}
