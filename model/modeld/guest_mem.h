/* SPDX-License-Identifier: MIT */
/*
 * Guest RAM as the device model sees it: QEMU's memory-backend-file
 * (share=on) mapped MAP_SHARED, so a bus address the guest's DMA API handed
 * out (guest physical: no IOMMU in the guest) is a pointer into the file.
 *
 * Two layouts:
 *  - q35 (the default): the first "lowmem" bytes of RAM at guest physical
 *    0 and the rest at 4 GiB; lowmem is all of RAM below 0xb0000000 bytes,
 *    else 2 GiB. So [0, lowmem) is file offset X, [4G, 4G + size - lowmem)
 *    is file offset lowmem + (X - 4G), and everything else (the PCI hole)
 *    is not RAM.
 *  - one range from ram_base (arm64 virt: RAM at 0x40000000): [ram_base,
 *    ram_base + size) is file offset X - ram_base; nothing else is RAM.
 */
#ifndef FDMA_GUEST_MEM_H
#define FDMA_GUEST_MEM_H

#include <stddef.h>
#include <stdint.h>

struct guest_mem {
	int fd;
	uint8_t *base;
	uint64_t size;		/* bytes mapped: all of guest RAM */
	uint64_t ram_base;	/* guest physical address of file offset 0 */
	uint64_t lowmem;	/* bytes from ram_base on; the rest is at 4 GiB */
};

#define GUEST_MEM_DEFAULT_SIZE	(256ull << 20)
#define GUEST_MEM_4G		(1ull << 32)
/* guest_mem_open()'s ram_base for q35's layout */
#define GUEST_MEM_Q35		UINT64_MAX

/* q35's split of RAM around the 32-bit PCI hole. */
uint64_t guest_mem_q35_lowmem(uint64_t size);
/*
 * Open (creating it if needed) and map the RAM file. size 0: the file's
 * size, or GUEST_MEM_DEFAULT_SIZE for an empty or new file; a smaller file
 * is extended (sparse). ram_base GUEST_MEM_Q35: q35's layout, with lowmem
 * 0 for q35's rule; any other ram_base (4 KiB aligned): all of RAM in one
 * range from there, and lowmem must be 0. 0 or -errno with err set.
 */
int guest_mem_open(struct guest_mem *g, const char *path, uint64_t size, uint64_t ram_base,
		   uint64_t lowmem, char *err, size_t errlen);
/* Pointer to [bus, bus + len) if all of it is guest RAM, else NULL. */
void *guest_mem_ptr(const struct guest_mem *g, uint64_t bus, uint64_t len);
void guest_mem_close(struct guest_mem *g);

#endif
