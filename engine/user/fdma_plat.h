/* SPDX-License-Identifier: MIT */
/*
 * User-space platform shim for the engine core (see engine/fdma_engine.h).
 * Registers are 32-bit words in memory: the device model's register file
 * in-process, or a mapped BAR. "Kick" is how a register write reaches a
 * device that cannot see writes by itself.
 */
#ifndef FDMA_PLAT_H
#define FDMA_PLAT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;

/*
 * Registers in memory (regs), or trapped: with rd/wr set, every access is
 * a call (a device whose registers have side effects, like XDMA's model).
 */
struct fdma_plat {
	volatile u32 *regs;
	u32 (*rd)(void *ctx, u32 off);
	void (*wr)(void *ctx, u32 off, u32 val);
	void *trap_ctx;
	void (*kick)(void *ctx, unsigned int ch);
	void *kick_ctx;
};

static inline u32 fdma_plat_rd32(struct fdma_plat *p, u32 off)
{
	if (p->rd)
		return p->rd(p->trap_ctx, off);
	return __atomic_load_n(&p->regs[off / 4], __ATOMIC_ACQUIRE);
}

static inline void fdma_plat_wr32(struct fdma_plat *p, u32 off, u32 val)
{
	if (p->wr)
		p->wr(p->trap_ctx, off, val);
	else
		__atomic_store_n(&p->regs[off / 4], val, __ATOMIC_RELEASE);
}

static inline void fdma_plat_kick(struct fdma_plat *p, unsigned int ch)
{
	if (p->kick)
		p->kick(p->kick_ctx, ch);
}

static inline u64 fdma_plat_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000u + (u64)ts.tv_nsec / 1000u;
}

/* Slow path: sleep 10 us between looks; real time bounds the wait. */
static inline int fdma_plat_poll32(struct fdma_plat *p, u32 off, u32 mask, u32 want,
				   u32 timeout_us)
{
	u64 end = fdma_plat_now_us() + timeout_us;

	for (;;) {
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 10000 };

		if ((fdma_plat_rd32(p, off) & mask) == want)
			return 0;
		if (fdma_plat_now_us() >= end)
			return -ETIMEDOUT;
		nanosleep(&ts, NULL);
	}
}

#define fdma_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define fdma_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define fdma_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)

/* Spin-wait hint: lets the sibling hyper-thread run and saves power. */
static inline void fdma_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
	__asm__ __volatile__("yield");
#endif
}

static inline u32 fdma_load_acquire32(const u32 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

#endif /* FDMA_PLAT_H */
