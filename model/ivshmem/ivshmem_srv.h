/* SPDX-License-Identifier: MIT */
/*
 * The server side of QEMU's ivshmem protocol (ivshmem-doorbell with a
 * chardev), for exactly one client, written from the protocol description:
 * every message is one little-endian int64, optionally carrying one file
 * descriptor (SCM_RIGHTS).
 */
#ifndef FDMA_IVSHMEM_SRV_H
#define FDMA_IVSHMEM_SRV_H

#include <stddef.h>
#include <stdint.h>

#define IVS_PROTOCOL_VERSION	0
#define IVS_GUEST_ID		0	/* the QEMU client */
#define IVS_MODEL_ID		1	/* the device model, a peer without a VM */

/* Bind and listen on a UNIX socket; a stale socket at path is replaced. */
int ivs_listen(const char *path, char *err, size_t errlen);
/* One message: value, and fd when fd >= 0. 0 or -errno. */
int ivs_send(int sock, int64_t value, int fd);
/*
 * The setup sequence for a newly connected client:
 * version, its id (IVS_GUEST_ID), -1 with shm_fd, then IVS_MODEL_ID with
 * model_efd[0..n-1], then IVS_GUEST_ID with guest_efd[0..n-1].
 * 0 or -errno (err says which message failed).
 */
int ivs_handshake(int sock, int shm_fd, const int *model_efd, const int *guest_efd,
		  unsigned int n, char *err, size_t errlen);

#endif
