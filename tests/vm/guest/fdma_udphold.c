// SPDX-License-Identifier: MIT
/*
 * fdma_udphold PORT SECONDS: bind a UDP socket to PORT with a receive
 * buffer of 64 MiB and never read it, for SECONDS (or until killed). Every
 * frame it gets keeps its page: net.sh's net_rx_nopage uses it to take a
 * network interface's receive pages away from it.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <errno.h>

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd, size = 64 << 20;

	if (argc != 3) {
		fprintf(stderr, "usage: fdma_udphold PORT SECONDS\n");
		return 2;
	}
	a.sin_port = htons((unsigned short)atoi(argv[1]));
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	/* FORCE: beyond net.core.rmem_max (root). */
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		fprintf(stderr, "fdma_udphold: %s\n", strerror(errno));
		return 1;
	}
	printf("fdma_udphold: holding port %s\n", argv[1]);
	fflush(stdout);
	sleep((unsigned int)atoi(argv[2]));
	close(fd);
	return 0;
}
