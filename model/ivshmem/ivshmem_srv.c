// SPDX-License-Identifier: MIT
/* The server side of QEMU's ivshmem protocol: see ivshmem_srv.h. */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ivshmem_srv.h"

int ivs_listen(const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int s, e;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		/* %.200s: a bounded message (an unbounded %s of a string known
		 * to be long fails -Wformat-truncation on 32-bit targets). */
		snprintf(err, errlen, "socket path '%.200s' is too long (at most %zu bytes)",
			 path, sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			snprintf(err, errlen, "'%s' exists and is not a socket", path);
			return -EEXIST;
		}
		unlink(path);	/* left by an earlier run */
	}
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		e = -errno;
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return e;
	}
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 2) < 0) {
		e = -errno;
		snprintf(err, errlen, "cannot listen on '%s': %s", path, strerror(errno));
		close(s);
		return e;
	}
	return s;
}

int ivs_send(int sock, int64_t value, int fd)
{
	uint64_t le = htole64((uint64_t)value);
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t r;

	memset(&ctl, 0, sizeof(ctl));
	if (fd >= 0) {
		struct cmsghdr *c;

		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		r = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	/* 8 bytes on a stream socket: a short write only happens on a closed peer. */
	return r == (ssize_t)sizeof(le) ? 0 : -EPIPE;
}

int ivs_handshake(int sock, int shm_fd, const int *model_efd, const int *guest_efd,
		  unsigned int n, char *err, size_t errlen)
{
	int ret;

	if ((ret = ivs_send(sock, IVS_PROTOCOL_VERSION, -1))) {
		snprintf(err, errlen, "sending the protocol version: %s", strerror(-ret));
		return ret;
	}
	if ((ret = ivs_send(sock, IVS_GUEST_ID, -1))) {
		snprintf(err, errlen, "sending the client's id: %s", strerror(-ret));
		return ret;
	}
	if ((ret = ivs_send(sock, -1, shm_fd))) {
		snprintf(err, errlen, "sending the shared memory: %s", strerror(-ret));
		return ret;
	}
	for (unsigned int v = 0; v < n; v++) {
		if ((ret = ivs_send(sock, IVS_MODEL_ID, model_efd[v]))) {
			snprintf(err, errlen, "sending the model's vector %u: %s", v, strerror(-ret));
			return ret;
		}
	}
	for (unsigned int v = 0; v < n; v++) {
		if ((ret = ivs_send(sock, IVS_GUEST_ID, guest_efd[v]))) {
			snprintf(err, errlen, "sending the guest's vector %u: %s", v, strerror(-ret));
			return ret;
		}
	}
	return 0;
}
