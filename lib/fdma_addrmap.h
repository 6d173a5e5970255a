/* SPDX-License-Identifier: MIT */
/*
 * Bus address map of the simulated device: which host memory a bus address
 * reaches. Each registered region gets its own window of the bus address
 * space, window w covering [(w + 1) << 36, (w + 2) << 36), so translation
 * is one shift and one table look-up, with no lock on the data path.
 * Every address starts above 4 GiB, like host memory on a modern machine,
 * which makes the link model's 4DW-header default the honest one.
 *
 * A map made with fdma_addrmap_init_low() gives addresses below 4 GiB
 * instead (a device with a 32-bit DMA mask, or an IOMMU handing out its
 * low addresses first): window w covers [(w + 1) << 26, (w + 2) << 26),
 * 63 windows of 64 MiB, so a device's requests need only 3DW headers.
 */
#ifndef FDMA_ADDRMAP_H
#define FDMA_ADDRMAP_H

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdatomic.h>

#define FDMA_ADDRMAP_SHIFT	36
#define FDMA_ADDRMAP_SLOTS	4096
#define FDMA_ADDRMAP_LOW_SHIFT	26
#define FDMA_ADDRMAP_LOW_SLOTS	63	/* [64 MiB, 4 GiB) */

struct fdma_addrmap_slot {
	void *_Atomic host;		/* NULL: window unused */
	_Atomic uint64_t len;
};

struct fdma_addrmap {
	pthread_mutex_t lock;		/* serialises add/remove only */
	unsigned int shift;		/* window size: 1 << shift */
	unsigned int nslots;
	struct fdma_addrmap_slot slot[FDMA_ADDRMAP_SLOTS];
};

void fdma_addrmap_init(struct fdma_addrmap *m);
/* The same below 4 GiB: regions of up to 64 MiB, at most 63 at once. */
void fdma_addrmap_init_low(struct fdma_addrmap *m);
void fdma_addrmap_destroy(struct fdma_addrmap *m);
/* Map len bytes at host; returns 0 and the bus address, or -ENOSPC (no
 * window free) / -EINVAL (no host, len 0 or larger than a window). */
int fdma_addrmap_add(struct fdma_addrmap *m, void *host, uint64_t len, uint64_t *bus);
int fdma_addrmap_remove(struct fdma_addrmap *m, uint64_t bus);
/* Host pointer for [bus, bus + len), or NULL if any of it is unmapped. */
void *fdma_addrmap_lookup(struct fdma_addrmap *m, uint64_t bus, uint64_t len);

#endif
