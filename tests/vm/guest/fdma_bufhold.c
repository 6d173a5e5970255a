// SPDX-License-Identifier: MIT
/*
 * fdma_bufhold DEV KIB: register KIB KiB of user memory on /dev/DEV and
 * hold it until killed. Booted with swiotlb=force, a registration holds
 * bounce slabs for as long as it lives: net.sh's net_drop uses it to leave
 * the network interfaces a bounce pool that runs out.
 */
#include <signal.h>

#include "vmioc.h"

int main(int argc, char **argv)
{
	struct vi_dev d;
	struct vi_buf b;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: fdma_bufhold DEV KIB\n");
		return 2;
	}
	ret = vi_open(&d, argv[1]);
	if (!ret)
		ret = vi_register(&d, (size_t)atoi(argv[2]) << 10, 0, &b);
	if (ret) {
		fprintf(stderr, "fdma_bufhold: %s\n", strerror(-ret));
		return 1;
	}
	printf("fdma_bufhold: %s KiB registered on /dev/%s\n", argv[2], argv[1]);
	fflush(stdout);
	pause();
	return 0;
}
