// SPDX-License-Identifier: MIT
/* The remote side of QEMU's x-pci-proxy-dev protocol: see proxy_srv.h. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy_srv.h"

_Static_assert(sizeof(struct mpq_hdr) == 16, "the proxy's message header");
_Static_assert(sizeof(struct mpq_cfg) == 12, "PciConfDataMsg");
_Static_assert(sizeof(struct mpq_bar) == 24, "BarAccessMsg");
_Static_assert(sizeof(struct mpq_sysmem) == 192, "SyncSysmemMsg");

static int read_all(int sock, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t r = read(sock, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EPIPE;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

int mpq_recv(int sock, struct mpq_msg *m)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * MPQ_MAX_FDS)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = &m->h, .iov_len = sizeof(m->h) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c;
	ssize_t r;
	int ret;

	m->nfds = 0;
	do
		r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -EPIPE;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		m->nfds = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		if (m->nfds > MPQ_MAX_FDS)
			m->nfds = MPQ_MAX_FDS;
		memcpy(m->fds, CMSG_DATA(c), sizeof(int) * (size_t)m->nfds);
	}
	/* The rest of the header, if the first read was short. */
	if ((size_t)r < sizeof(m->h)) {
		ret = read_all(sock, (char *)&m->h + r, sizeof(m->h) - (size_t)r);
		if (ret)
			return ret;
	}
	if (m->h.size > sizeof(m->d))
		return -EPROTO;
	memset(&m->d, 0, sizeof(m->d));
	return read_all(sock, &m->d, m->h.size);
}

int mpq_ret(int sock, uint64_t val)
{
	struct {
		struct mpq_hdr h;
		uint64_t v;
	} out = { .h = { .cmd = MPQ_RET, .size = sizeof(uint64_t) }, .v = val };
	const char *p = (const char *)&out;
	size_t left = sizeof(out);

	while (left) {
		ssize_t w = send(sock, p, left, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		left -= (size_t)w;
	}
	return 0;
}
