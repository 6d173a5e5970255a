/* SPDX-License-Identifier: MIT */
/*
 * The device model's test block (model/fdma_model.c): registers after the
 * engine's, in the same 4 KiB, that only the model has. They are not part
 * of the engine (docs/engine.md); the VM harness reaches them through
 * fdma.ko's debugfs (kernel/fdma_debugfs.c), only on the ivshmem stand-in.
 * Plain constants: included by the model, libfdma's tests and the driver.
 *
 * A test arms a fault on one channel at run time: it writes KIND (enum
 * fdma_fault of fdma_model.h), CHAN and AT, then REQ = n; the model takes
 * the fault at its next look (a descriptor fetch or a kick) and writes
 * ACK = n. The fault fires at the AT-th descriptor that channel fetches
 * from then on (1 = the next one). PACE overrides the configured pacing.
 * The counters are the model's own, for tests to compare with what the
 * host saw.
 */
#ifndef FDMA_MDBG_H
#define FDMA_MDBG_H

#define FDMA_MDBG_MAGIC		0xf00	/* model: FDMA_MDBG_MAGIC_VAL */
#define FDMA_MDBG_FAULT_REQ	0xf04	/* test: n arms the fault below */
#define FDMA_MDBG_FAULT_ACK	0xf08	/* model: n once armed */
#define FDMA_MDBG_FAULT_KIND	0xf0c	/* test: enum fdma_fault */
#define FDMA_MDBG_FAULT_CHAN	0xf10	/* test: channel */
#define FDMA_MDBG_FAULT_AT	0xf14	/* test: the AT-th descriptor from now */
#define FDMA_MDBG_FAULTS	0xf18	/* model: faults fired */
#define FDMA_MDBG_REFUSED	0xf1c	/* model: DMA refused while CTRL.ENABLE = 0 */
#define FDMA_MDBG_ROGUE_WRITES	0xf20	/* model: writes made by NOACK channels */
#define FDMA_MDBG_PACE		0xf24	/* test: FDMA_MDBG_PACE_* */
#define FDMA_MDBG_MAGIC_VAL	0x4d444247u	/* "MDBG" */

#define FDMA_MDBG_PACE_CFG	0	/* as configured (paced= option) */
#define FDMA_MDBG_PACE_ON	1	/* hold transfers for the link's time */
#define FDMA_MDBG_PACE_OFF	2	/* as fast as memory allows */

/* Fault kinds (enum fdma_fault of fdma_model.h), for the driver's side. */
#define FDMA_MDBG_FAULT_NONE	0
#define FDMA_MDBG_FAULT_DESC	1
#define FDMA_MDBG_FAULT_DATA	2
#define FDMA_MDBG_FAULT_STUCK	3
#define FDMA_MDBG_FAULT_IRQ	4
#define FDMA_MDBG_FAULT_NOACK	5
#define FDMA_MDBG_FAULT_MAGIC	6

#endif
