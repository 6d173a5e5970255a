/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Coverage of the modules in the VM harness (FDMA_COV=y; fdma_cov.c): the
 * maps of tests/vm/kmod/fdma_covstore.ko, which defines the same structure.
 */
#ifndef FDMA_COV_H
#define FDMA_COV_H

/* One module's coverage: a bit per byte of its core text and of its init text. */
struct fdma_cov_map {
	unsigned long *bits[2];		/* the core text's, the init text's */
	unsigned long len[2];		/* bytes of text each map covers */
	unsigned long points;		/* bits set */
	unsigned long outside;		/* points beyond the maps */
};

/* Index 0: fdma.ko; 1: fdma_dmac.ko. */
extern struct fdma_cov_map fdma_covstore_maps[];

/* The compiler's call at each coverage point (-fsanitize-coverage=trace-pc). */
void __sanitizer_cov_trace_pc(void);

#endif /* FDMA_COV_H */
