/* SPDX-License-Identifier: MIT */
/*
 * The remote side of QEMU 7.2's x-pci-proxy-dev ("multi-process QEMU"), as
 * the VM harness's facts record it (docs/vm-harness.md, "Trapped MMIO"):
 * a 16-byte header {i32 cmd; 4 bytes pad; u64 size}, then size bytes,
 * file descriptors as SCM_RIGHTS on the same message; the proxy waits for
 * a RET after config and BAR accesses and a reset.
 */
#ifndef FDMA_PROXY_SRV_H
#define FDMA_PROXY_SRV_H

#include <stdint.h>

enum {
	MPQ_SYNC_SYSMEM = 0,	/* u64 gpa[8], u64 size[8], i64 offset[8]; one fd per region */
	MPQ_RET = 1,		/* u64 */
	MPQ_CFG_WRITE = 2,	/* struct mpq_cfg */
	MPQ_CFG_READ = 3,
	MPQ_BAR_WRITE = 4,	/* struct mpq_bar */
	MPQ_BAR_READ = 5,
	MPQ_SET_IRQFD = 6,	/* no payload; fds: irqfd, resamplefd */
	MPQ_DEVICE_RESET = 7,
};

#define MPQ_MAX_FDS	8

struct mpq_hdr {
	int32_t cmd;
	uint32_t pad;
	uint64_t size;
};

struct mpq_cfg {
	uint32_t addr;
	uint32_t val;
	int32_t len;
};

struct mpq_bar {
	uint64_t addr;		/* absolute: the BAR's base plus the offset */
	uint64_t val;
	uint32_t size;
	uint8_t memory;
	uint8_t pad[3];
};

struct mpq_sysmem {
	uint64_t gpa[MPQ_MAX_FDS];
	uint64_t size[MPQ_MAX_FDS];
	int64_t offset[MPQ_MAX_FDS];
};

/* A received message: the header, up to 256 bytes of payload, its fds. */
struct mpq_msg {
	struct mpq_hdr h;
	union {
		uint64_t u64;
		struct mpq_cfg cfg;
		struct mpq_bar bar;
		struct mpq_sysmem sysmem;
		uint8_t raw[256];
	} d;
	int fds[MPQ_MAX_FDS];
	int nfds;
};

/* Read one message (blocking). 0, -EPIPE when the proxy is gone, -EPROTO, -errno. */
int mpq_recv(int sock, struct mpq_msg *m);
/* Reply RET with val. */
int mpq_ret(int sock, uint64_t val);

#endif
