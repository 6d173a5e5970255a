# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# libfdma's end-to-end tests and fdma bench/stream/reg/doctor through kdev:
# on XDMA. Buffers the driver cannot allocate in one piece are registered
# 4 KiB pages, one descriptor each: a ring of 2048 lets the tests' 4 MiB
# requests through, as on the FDMA rows.
. /tests/vmlib.sh
rmmod fdma
if ! insmod /fdma.ko $(cat /tmp/koargs) ring_size=2048 2>/tmp/ins.err; then
	fail e2e "insmod: $(cat /tmp/ins.err)"
	return 0
fi
fdma_wait_node engine >/dev/null
sh /tests/e2e.sh /e2e
