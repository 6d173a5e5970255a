// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Coverage of fdma.ko (and fdma_dmac.ko) in the VM harness: built only
 * with FDMA_COV=y (kernel/Kbuild), against a kernel with CONFIG_KCOV.
 *
 * The module's objects are then compiled with the compiler's coverage
 * points (-fsanitize-coverage=trace-pc, KCOV_INSTRUMENT): a call of
 * __sanitizer_cov_trace_pc() at the start of every basic block. The
 * kernel's own definition (kernel/kcov.c) records only into the buffer of
 * a task that enabled KCOV, and never from interrupts, work items, NAPI or
 * timers; this one is the module's own (the module's reference binds to
 * it when the module is linked, not to the kernel's) and records every
 * point any context reaches, as a bit per byte of the module's text in the
 * maps of fdma_covstore.ko (tests/vm/kmod/fdma_covstore.c), which stays
 * loaded while fdma.ko comes and goes: a bit is the point's return address
 * less the start of the module's text (core or init), so that the loads of
 * one .ko add up. tests/vm/cov-report.sh maps the bits back to the .ko's
 * sections, its source files and lines.
 *
 * The hook runs before anything of the module has run, in any context,
 * with any lock held: it calls nothing and is not instrumented itself
 * (no coverage, KASAN, UBSAN or tracing; the atomics are the compiler's, which
 * KASAN does not see in an uninstrumented function). fdma_dmac.ko gets
 * its own copy (dmac/dmac_cov.c includes this file), with FDMA_COV_ID 1.
 */

#include <linux/compiler.h>
#include <linux/module.h>

#include "fdma_cov.h"

#ifndef FDMA_COV_ID
#define FDMA_COV_ID	0
#endif

static __always_inline void fdma_cov_text(const struct module *mod, int init,
					  unsigned long *base, unsigned long *size)
{
#ifdef for_each_mod_mem_type
	const struct module_memory *m = &mod->mem[init ? MOD_INIT_TEXT : MOD_TEXT];

	*base = (unsigned long)m->base;
	*size = m->size;
#else
	const struct module_layout *l = init ? &mod->init_layout : &mod->core_layout;

	*base = (unsigned long)l->base;
	*size = l->text_size;
#endif
}

notrace __no_sanitize_address __no_sanitize_undefined __no_sanitize_coverage
void __sanitizer_cov_trace_pc(void)
{
	struct fdma_cov_map *map = &fdma_covstore_maps[FDMA_COV_ID];
	unsigned long ip = _RET_IP_, base, size, off, bit, *word;
	int init;

	for (init = 0; init < 2; init++) {
		fdma_cov_text(THIS_MODULE, init, &base, &size);
		off = ip - base;
		if (off < size)
			break;
	}
	if (init == 2 || off >= READ_ONCE(map->len[init])) {
		__atomic_fetch_add(&map->outside, 1, __ATOMIC_RELAXED);
		return;
	}
	word = &map->bits[init][off / BITS_PER_LONG];
	bit = 1UL << (off % BITS_PER_LONG);
	if (READ_ONCE(*word) & bit)
		return;
	if (!(__atomic_fetch_or(word, bit, __ATOMIC_RELAXED) & bit))
		__atomic_fetch_add(&map->points, 1, __ATOMIC_RELAXED);
}
