// SPDX-License-Identifier: MIT
/*
 * fdma_uirq: the FPGA's own interrupts through fdma.ko (XDMA model behind
 * QEMU's proxy: its test block in the user BAR, BAR0, strobes user
 * interrupt k at offset 4). The device says it forwards 16; an eventfd for
 * interrupt 3 stays quiet while 2 is raised and turns readable when 3 is,
 * with a count; 16 is refused; a second open file hears it too.
 */
#include <poll.h>

#include "vmtest.h"
#include "fdma.h"
#include "fdma_plat.h"
#include "xdma_regs.h"

static const char *T = "user_irq";

/* Wait up to ms for fd; the count read, or 0 if it stayed quiet. */
static uint64_t wait_count(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t n = 0;

	if (poll(&p, 1, ms) == 1 && read(fd, &n, sizeof(n)) != sizeof(n))
		n = 0;
	return n;
}

int main(void)
{
	struct fdma_dev *a = NULL, *b = NULL;
	struct fdma_info in;
	char dev[64], uri[96], err[256];
	int fa, fb;
	uint64_t n;

	if (vt_find_dev("fdma", dev, sizeof(dev))) {
		vt_fail(T, "no fdma device");
		return 1;
	}
	snprintf(uri, sizeof(uri), "kdev:/dev/%s", dev);
	if (fdma_open(&a, uri, err, sizeof(err)) || fdma_open(&b, uri, err, sizeof(err))) {
		vt_fail(T, "fdma_open(%s): %s", uri, err);
		return 1;
	}
	fdma_get_info(a, &in);
	if (in.user_irqs != 16)
		vt_fail(T, "the device forwards %u user interrupts, expected 16", in.user_irqs);
	fa = fdma_user_irq_fd(a, 3);
	fb = fdma_user_irq_fd(b, 3);
	if (fa < 0 || fb < 0) {
		vt_fail(T, "fdma_user_irq_fd(3): %s", fdma_errmsg(fa < 0 ? a : b));
		return 1;
	}
	if (fdma_reg_write(a, 0, XDMA_TG_USER_IRQ, 1u << 2, 0))
		vt_fail(T, "raising user interrupt 2: %s", fdma_errmsg(a));
	if ((n = wait_count(fa, 300)))
		vt_fail(T, "interrupt 3's fd read %llu after interrupt 2", (unsigned long long)n);
	if (fdma_reg_write(a, 0, XDMA_TG_USER_IRQ, 1u << 3, 0))
		vt_fail(T, "raising user interrupt 3: %s", fdma_errmsg(a));
	if ((n = wait_count(fa, 3000)) < 1)
		vt_fail(T, "interrupt 3 did not reach the first file's fd");
	if ((n = wait_count(fb, 3000)) < 1)
		vt_fail(T, "interrupt 3 did not reach the second file's fd");
	if (fdma_user_irq_fd(a, 16) != -EINVAL)
		vt_fail(T, "fdma_user_irq_fd(16) was not refused with EINVAL");
	fdma_close(a);
	fdma_close(b);
	if (!vt_failed)
		vt_pass(T);
	return vt_failed;
}
