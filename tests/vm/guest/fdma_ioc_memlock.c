// SPDX-License-Identifier: MIT
/*
 * RLIMIT_MEMLOCK and the buffers of the ioctl interface: allocated
 * (FDMA_IOC_BUF_ALLOC) and registered (FDMA_IOC_BUF_REGISTER) memory is
 * charged to the locked_vm (VmLck) of the process that made it, for as long
 * as the memory lives.
 *
 * memlock_cap: with CAP_IPC_LOCK the limit does not apply (an allocation
 *   four times the limit succeeds), the memory is still counted in VmLck,
 *   and given back.
 * memlock_limit: without CAP_IPC_LOCK (a child that dropped it), with
 *   RLIMIT_MEMLOCK at 256 KiB: allocations up to the limit succeed, VmLck
 *   follows them; one more page, allocated or registered, is refused with
 *   ENOMEM, and so is a large allocation.
 * memlock_free_unmap: FDMA_IOC_BUF_FREE of a mapped buffer keeps the charge
 *   (the memory lives on in the mapping); munmap() then gives it back: an
 *   allocation right after it succeeds (the driver returns the charge from
 *   munmap() asynchronously, but a charge of the same process waits for
 *   it), and VmLck drops.
 * memlock_unmap_free: munmap() first keeps the charge (the handle holds the
 *   memory); FDMA_IOC_BUF_FREE gives it back at once.
 * memlock_cycles: 300 rounds of allocate to the limit, map, touch, free and
 *   unmap in both orders, and of registering: VmLck returns to where it
 *   started and the whole limit can be allocated again.
 * memlock_close: a file closed with buffers still mapped (one of them freed
 *   before) keeps their charge until the last munmap(), then returns it all;
 *   a file closed with unmapped buffers returns it at close.
 * memlock_fork: a child inherits a mapping; the parent frees and unmaps
 *   the buffer: the charge (the parent's) stays until the child exits, then
 *   comes back to the parent.
 *
 * Without the charge (the driver before it), memlock_cap and memlock_limit
 * fail: VmLck does not move and allocations beyond the limit succeed.
 */
#include <linux/capability.h>
#include <sys/resource.h>

#include "vmioc.h"

#define KIB	1024L
#define LIMIT	(256 * KIB)
#define HALF	(LIMIT / 2)

static char dev[64];

static int set_memlock(long bytes)
{
	struct rlimit r = { .rlim_cur = (rlim_t)bytes, .rlim_max = (rlim_t)bytes };

	return setrlimit(RLIMIT_MEMLOCK, &r) ? -errno : 0;
}

static int drop_cap_ipc_lock(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct c[2];
	unsigned int i = CAP_IPC_LOCK / 32, bit = 1u << (CAP_IPC_LOCK % 32);

	if (syscall(SYS_capget, &h, c))
		return -errno;
	c[i].effective &= ~bit;
	c[i].permitted &= ~bit;
	c[i].inheritable &= ~bit;
	if (syscall(SYS_capset, &h, c))
		return -errno;
	return 0;
}

/* Check VmLck == want now; 0, or -1 after vt_fail. */
static int lck_is(const char *T, const char *when, long want)
{
	long v = vi_vmlck();

	if (v == want)
		return 0;
	vt_fail(T, "%s: VmLck %ld KiB, expected %ld KiB", when, v / KIB, want / KIB);
	return -1;
}

/* Check that one more page cannot be allocated or registered. */
static int full(const char *T, struct vi_dev *d, const char *when)
{
	struct vi_buf r;
	long h = vi_alloc_raw(d, 4096);
	int ret;

	if (h != -ENOMEM) {
		vt_fail(T, "%s: allocating one more page: %s, expected ENOMEM", when,
			h < 0 ? strerror((int)-h) : "success");
		if (h > 0)
			vi_free_raw(d, (uint32_t)h);
		return -1;
	}
	ret = vi_register(d, 4096, 0, &r);
	if (ret != -ENOMEM) {
		vt_fail(T, "%s: registering one more page: %s, expected ENOMEM", when,
			ret ? strerror(-ret) : "success");
		if (!ret)
			vi_free(d, &r);
		return -1;
	}
	return 0;
}

static void test_cap(struct vi_dev *d, long base)
{
	const char *T = "memlock_cap";
	struct rlimit old;
	struct vi_buf b;
	int ret;

	if (getrlimit(RLIMIT_MEMLOCK, &old) || set_memlock(64 * KIB)) {
		vt_fail(T, "setrlimit: %s", strerror(errno));
		return;
	}
	ret = vi_alloc(d, LIMIT, &b);
	if (ret) {
		vt_fail(T, "with CAP_IPC_LOCK, allocating 256 KiB over a 64 KiB limit: %s",
			strerror(-ret));
		return;
	}
	memset(b.p, 0x5a, b.size);
	ret = lck_is(T, "with CAP_IPC_LOCK, 256 KiB allocated", base + LIMIT);
	vi_free(d, &b);
	setrlimit(RLIMIT_MEMLOCK, &old);
	if (!ret && vi_vmlck_wait(base) != base)
		ret = lck_is(T, "freed and unmapped (3 s)", base);
	if (!ret)
		vt_pass(T);
}

/* The child without CAP_IPC_LOCK; returns nonzero on a failure. */
static int limited(long base)
{
	const char *T = "memlock_limit";
	struct vi_buf a, b, c;
	struct vi_dev d, d2;
	long h;
	int ret;

	if (drop_cap_ipc_lock() || set_memlock(LIMIT)) {
		vt_fail(T, "drop CAP_IPC_LOCK / setrlimit: %s", strerror(errno));
		return 1;
	}
	if (vi_open(&d, dev)) {
		vt_fail(T, "open: %s", strerror(errno));
		return 1;
	}

	/* ---- the limit ---- */
	ret = vi_alloc(&d, HALF, &a);
	if (!ret && lck_is(T, "128 KiB allocated", base + HALF))
		return 1;
	if (!ret)
		ret = vi_alloc(&d, HALF, &b);
	if (ret) {
		vt_fail(T, "allocating 2 x 128 KiB under a 256 KiB limit: %s", strerror(-ret));
		return 1;
	}
	memset(a.p, 1, HALF);
	memset(b.p, 2, HALF);
	if (lck_is(T, "256 KiB allocated", base + LIMIT) || full(T, &d, "at the limit"))
		return 1;
	h = vi_alloc_raw(&d, 4 << 20);
	if (h != -ENOMEM) {
		vt_fail(T, "allocating 4 MiB over the limit: %s, expected ENOMEM",
			h < 0 ? strerror((int)-h) : "success");
		return 1;
	}
	if (lck_is(T, "after the refusals", base + LIMIT))
		return 1;
	vt_pass(T);

	/* ---- free, then munmap ---- */
	T = "memlock_free_unmap";
	if (vi_free_raw(&d, a.handle)) {
		vt_fail(T, "free: %s", strerror(errno));
		return 1;
	}
	if (lck_is(T, "freed, still mapped", base + LIMIT) ||
	    full(T, &d, "freed, still mapped"))
		return 1;
	if (a.p[HALF - 1] != 1) {
		vt_fail(T, "the mapping of a freed buffer lost its contents");
		return 1;
	}
	munmap(a.p, a.size);
	/* At once: the charge of this process waits for the uncharge on its way. */
	ret = vi_alloc(&d, HALF, &c);
	if (ret) {
		vt_fail(T, "allocating 128 KiB right after free + munmap: %s", strerror(-ret));
		return 1;
	}
	if (lck_is(T, "freed, unmapped, allocated again", base + LIMIT) ||
	    full(T, &d, "allocated again"))
		return 1;
	vi_free(&d, &c);
	if (vi_vmlck_wait(base + HALF) != base + HALF) {
		lck_is(T, "another free + munmap, after 3 s", base + HALF);
		return 1;
	}
	vt_pass(T);

	/* ---- munmap, then free ---- */
	T = "memlock_unmap_free";
	munmap(b.p, b.size);
	if (lck_is(T, "unmapped, not freed", base + HALF))
		return 1;
	if (vi_free_raw(&d, b.handle)) {
		vt_fail(T, "free: %s", strerror(errno));
		return 1;
	}
	if (lck_is(T, "unmapped and freed", base))
		return 1;
	vt_pass(T);

	/* ---- many cycles ---- */
	T = "memlock_cycles";
	for (int k = 0; k < 300; k++) {
		struct vi_buf x[2];

		if (k % 5 == 4) {
			/* Registered memory draws from the same limit. */
			ret = vi_register(&d, LIMIT - 4096, 0, &x[0]);
			if (!ret && vi_vmlck() < base + LIMIT - 4096) {
				vt_fail(T, "round %d: registered 252 KiB, VmLck %ld KiB", k,
					vi_vmlck() / KIB);
				return 1;
			}
			if (!ret)
				ret = vi_free(&d, &x[0]);
			if (ret) {
				vt_fail(T, "round %d: register/free: %s", k, strerror(-ret));
				return 1;
			}
			continue;
		}
		for (int i = 0; i < 2; i++) {
			ret = vi_alloc(&d, HALF, &x[i]);
			if (ret) {
				vt_fail(T, "round %d: allocating buffer %d: %s (VmLck %ld KiB)", k,
					i, strerror(-ret), vi_vmlck() / KIB);
				return 1;
			}
			x[i].p[k % HALF] = (uint8_t)k;
		}
		if (k % 50 == 0 && full(T, &d, "a cycle at the limit"))
			return 1;
		for (int i = 0; i < 2; i++) {
			if ((k + i) % 2) {
				munmap(x[i].p, x[i].size);
				ret = vi_free_raw(&d, x[i].handle);
			} else {
				ret = vi_free_raw(&d, x[i].handle);
				munmap(x[i].p, x[i].size);
			}
			if (ret) {
				vt_fail(T, "round %d: free: %s", k, strerror(-ret));
				return 1;
			}
		}
	}
	if (vi_vmlck_wait(base) != base) {
		lck_is(T, "after 300 rounds (3 s)", base);
		return 1;
	}
	ret = vi_alloc(&d, LIMIT, &a);
	if (ret) {
		vt_fail(T, "allocating the whole limit after 300 rounds: %s", strerror(-ret));
		return 1;
	}
	vi_free(&d, &a);
	if (vi_vmlck_wait(base) != base) {
		lck_is(T, "at the end", base);
		return 1;
	}
	vt_pass(T);

	/* ---- closing a file with buffers mapped ---- */
	T = "memlock_close";
	if (vi_open(&d2, dev)) {
		vt_fail(T, "open: %s", strerror(errno));
		return 1;
	}
	if (vi_alloc(&d2, HALF, &a) || vi_alloc(&d2, HALF, &b)) {
		vt_fail(T, "allocate: %s", strerror(errno));
		return 1;
	}
	vi_free_raw(&d2, b.handle);
	vi_close(&d2);
	if (lck_is(T, "closed with both mapped", base + LIMIT) ||
	    full(T, &d, "closed with both mapped"))
		return 1;
	munmap(a.p, a.size);
	if (lck_is(T, "closed, one still mapped", base + LIMIT))
		return 1;
	munmap(b.p, b.size);
	/* The file's release (at the last munmap) freed a; b comes back via munmap. */
	if (vi_vmlck_wait(base) != base) {
		lck_is(T, "closed and both unmapped (3 s)", base);
		return 1;
	}
	if (vi_open(&d2, dev) || vi_alloc(&d2, HALF, &a)) {
		vt_fail(T, "open/allocate: %s", strerror(errno));
		return 1;
	}
	munmap(a.p, a.size);
	h = vi_alloc_raw(&d2, HALF);
	if (h < 0) {
		vt_fail(T, "allocate: %s", strerror((int)-h));
		return 1;
	}
	if (lck_is(T, "two buffers, unmapped", base + LIMIT))
		return 1;
	vi_close(&d2);
	if (lck_is(T, "closed with unmapped buffers", base))
		return 1;
	vt_pass(T);

	/* ---- a child holds the mapping ---- */
	T = "memlock_fork";
	{
		int p[2], status;
		char ch;
		pid_t pid;

		if (pipe(p) || vi_alloc(&d, HALF, &a)) {
			vt_fail(T, "pipe/allocate: %s", strerror(errno));
			return 1;
		}
		pid = fork();
		if (pid == 0) {
			/* Keep the inherited mapping until the parent says. */
			close(p[1]);
			if (read(p[0], &ch, 1) < 0)
				_exit(2);
			_exit(a.p[7] == 7 ? 0 : 3);
		}
		close(p[0]);
		a.p[7] = 7;
		vi_free_raw(&d, a.handle);
		munmap(a.p, a.size);
		usleep(100000);
		if (lck_is(T, "freed and unmapped, the child still maps it", base + HALF)) {
			close(p[1]);
			waitpid(pid, &status, 0);
			return 1;
		}
		close(p[1]);
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			vt_fail(T, "child: status 0x%x", status);
			return 1;
		}
		if (vi_vmlck_wait(base) != base) {
			lck_is(T, "the child exited (3 s)", base);
			return 1;
		}
		ret = vi_alloc(&d, LIMIT, &a);
		if (ret) {
			vt_fail(T, "allocating the whole limit after: %s", strerror(-ret));
			return 1;
		}
		vi_free(&d, &a);
	}
	vi_close(&d);
	if (vi_vmlck_wait(base) != base) {
		lck_is(T, "at the end", base);
		return 1;
	}
	vt_pass(T);
	return 0;
}

int main(void)
{
	long long bufs0, coh0;
	struct vi_dev d;
	long base;
	int status;
	pid_t pid;

	if (vi_open(&d, NULL)) {
		vt_fail("memlock_cap", "open: %s", strerror(errno));
		return 1;
	}
	snprintf(dev, sizeof(dev), "%s", d.name);
	bufs0 = vi_nbufs(dev);
	coh0 = vt_attr_ll(dev, "allocated_bytes");
	base = vi_vmlck();
	if (base < 0) {
		vt_fail("memlock_cap", "no VmLck in /proc/self/status");
		return 1;
	}
	test_cap(&d, base);
	vi_close(&d);

	pid = fork();
	if (pid == 0)
		_exit(limited(vi_vmlck()));
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		if (!WIFEXITED(status))
			vt_fail("memlock_limit", "the test process ended with status 0x%x",
				status);
		vt_failed = 1;
	}
	if (vi_nbufs(dev) != bufs0 || vt_attr_ll(dev, "allocated_bytes") != coh0) {
		vt_fail("memlock_cycles", "left %lld buffers and %lld allocated bytes, expected %lld and %lld",
			vi_nbufs(dev), vt_attr_ll(dev, "allocated_bytes"), bufs0, coh0);
	}
	return vt_failed;
}
