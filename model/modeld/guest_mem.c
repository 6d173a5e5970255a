// SPDX-License-Identifier: MIT
/* Guest RAM through QEMU's memory-backend-file: see guest_mem.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guest_mem.h"

uint64_t guest_mem_q35_lowmem(uint64_t size)
{
	return size >= 0xb0000000ull ? 0x80000000ull : size;
}

int guest_mem_open(struct guest_mem *g, const char *path, uint64_t size, uint64_t ram_base,
		   uint64_t lowmem, char *err, size_t errlen)
{
	struct stat st;
	int fd, e;

	memset(g, 0, sizeof(*g));
	g->fd = -1;
	if (ram_base != GUEST_MEM_Q35 && (lowmem || (ram_base & 4095))) {
		snprintf(err, errlen, "RAM base 0x%llx: must be 4 KiB aligned, without a lowmem split",
			 (unsigned long long)ram_base);
		return -EINVAL;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		e = -errno;
		snprintf(err, errlen, "cannot open guest RAM file '%s': %s", path, strerror(errno));
		return e;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "guest RAM file '%s' is not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	if (!size)
		size = st.st_size ? (uint64_t)st.st_size : GUEST_MEM_DEFAULT_SIZE;
	if ((uint64_t)st.st_size < size && ftruncate(fd, (off_t)size) < 0) {
		e = -errno;
		snprintf(err, errlen, "cannot size guest RAM file '%s' to %llu bytes: %s", path,
			 (unsigned long long)size, strerror(errno));
		close(fd);
		return e;
	}
	if (ram_base != GUEST_MEM_Q35 && size > UINT64_MAX - ram_base) {
		snprintf(err, errlen, "RAM base 0x%llx plus %llu bytes is past the 64-bit bus",
			 (unsigned long long)ram_base, (unsigned long long)size);
		close(fd);
		return -EINVAL;
	}
	if (ram_base != GUEST_MEM_Q35)
		lowmem = size;		/* one range */
	else if (!lowmem)
		lowmem = guest_mem_q35_lowmem(size);
	if (lowmem > size)
		lowmem = size;
	g->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (g->base == MAP_FAILED) {
		e = -errno;
		snprintf(err, errlen, "cannot map guest RAM file '%s': %s", path, strerror(errno));
		close(fd);
		g->base = NULL;
		return e;
	}
	g->fd = fd;
	g->size = size;
	g->ram_base = ram_base == GUEST_MEM_Q35 ? 0 : ram_base;
	g->lowmem = lowmem;
	return 0;
}

void *guest_mem_ptr(const struct guest_mem *g, uint64_t bus, uint64_t len)
{
	uint64_t high = g->size - g->lowmem;

	if (bus >= g->ram_base && bus - g->ram_base < g->lowmem)
		return len <= g->lowmem - (bus - g->ram_base) ? g->base + (bus - g->ram_base) : NULL;
	if (bus >= GUEST_MEM_4G && bus - GUEST_MEM_4G < high &&
	    len <= high - (bus - GUEST_MEM_4G))
		return g->base + g->lowmem + (bus - GUEST_MEM_4G);
	return NULL;
}

void guest_mem_close(struct guest_mem *g)
{
	if (g->base)
		munmap(g->base, g->size);
	if (g->fd >= 0)
		close(g->fd);
	memset(g, 0, sizeof(*g));
	g->fd = -1;
}
