// SPDX-License-Identifier: MIT
/*
 * Bad inputs to /dev/fdmaN's read and write: offsets beyond card memory,
 * huge lengths, NULL and unmapped buffers, negative offsets, bad seeks.
 * Each is refused with a clear errno (or shortened at the end of card
 * memory, as documented in kernel/README.md), nothing is written to card
 * memory by a refused write, no channel needs a reset, and the device
 * works afterwards. Then O_NONBLOCK against a busy channel: EAGAIN or
 * success, nothing else.
 */
#include "vmtest.h"

static const char *T = "bad_inputs";
static char dev[64];

/* expect ret == want, or ret == -1 with errno in {e1, e2} */
static void expect(const char *what, ssize_t ret, ssize_t want, int e1, int e2)
{
	int e = errno;

	if (want >= 0) {
		if (ret != want)
			vt_fail(T, "%s: returned %zd (%s), expected %zd", what, ret,
				ret < 0 ? strerror(e) : "no error", want);
		return;
	}
	if (ret != -1 || (e != e1 && e != e2))
		vt_fail(T, "%s: returned %zd (%s), expected -1 with %s%s%s", what, ret,
			ret < 0 ? strerror(e) : "no error", strerror(e1),
			e2 ? " or " : "", e2 ? strerror(e2) : "");
	else
		vt_info("%s: %s", what, strerror(e));
}

/* Write a known pattern at [off, off + len) and read it back. */
static int works(int fd, uint64_t off, size_t len, uint64_t seed)
{
	uint8_t *a = malloc(len), *b = malloc(len);
	int ok;

	vt_fill(a, len, seed);
	ok = a && b && pwrite(fd, a, len, off) == (ssize_t)len &&
	     pread(fd, b, len, off) == (ssize_t)len && !memcmp(a, b, len);
	free(a);
	free(b);
	return ok;
}

static void nonblock_test(int fd, uint64_t card)
{
	const char *N = "nonblock";
	size_t big = 16 << 20;
	int nb, eagain = 0, ok = 0, other = 0, status, bad = 0;
	uint8_t small[64];
	pid_t pid;

	nb = vt_open_dev(dev, O_RDWR | O_NONBLOCK, 0);
	if (nb < 0) {
		vt_fail(N, "open O_NONBLOCK: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid == 0) {
		uint8_t *p = malloc(big);
		double end = vt_now() + 1.5;

		if (!p)
			_exit(2);
		memset(p, 0x11, big);
		while (vt_now() < end)
			if (pwrite(fd, p, big, card / 2) != (ssize_t)big)
				_exit(1);
		_exit(0);
	}
	memset(small, 0x22, sizeof(small));
	for (int i = 0; i < 400; i++) {
		ssize_t n = pwrite(nb, small, sizeof(small), 4 << 20);

		if (n == (ssize_t)sizeof(small))
			ok++;
		else if (n < 0 && errno == EAGAIN)
			eagain++;
		else
			other++;
		usleep(2000);
	}
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		vt_fail(N, "the blocking writer failed (status 0x%x)", status);
		bad = 1;
	}
	if (other) {
		vt_fail(N, "%d O_NONBLOCK writes failed with something other than EAGAIN", other);
		bad = 1;
	}
	if (pwrite(nb, small, sizeof(small), 4 << 20) != (ssize_t)sizeof(small)) {
		vt_fail(N, "O_NONBLOCK write on an idle channel: %s", strerror(errno));
		bad = 1;
	}
	close(nb);
	if (!bad) {
		vt_info("O_NONBLOCK writes beside a busy writer: %d done, %d EAGAIN", ok, eagain);
		vt_pass(N);
	}
}

int main(void)
{
	uint8_t buf[8192], *guarded;
	long long resets0, resets1;
	uint64_t card;
	int fd;

	fd = vt_open_fdma(T, dev, sizeof(dev));
	if (fd < 0)
		return 1;
	card = (uint64_t)vt_attr_ll(dev, "card_size");
	resets0 = vt_attr_ll(dev, "ch0/resets") + vt_attr_ll(dev, "ch1/resets");
	guarded = vt_guarded(4096);
	if (!guarded) {
		vt_fail(T, "no guarded buffer");
		return 1;
	}

	/* A known pattern at 0: refused writes must leave it. */
	if (!works(fd, 0, 8192, 42))
		vt_fail(T, "the device does not work before the test");

	expect("pread beyond the end", vt_pread(fd, buf, 16, card + 4096), -1, EINVAL, 0);
	expect("pwrite beyond the end", vt_pwrite(fd, buf, 16, card + 4096), -1, EINVAL, 0);
	expect("pread one past the end", vt_pread(fd, buf, 16, card + 1), -1, EINVAL, 0);
	expect("pread at the end (EOF)", vt_pread(fd, buf, 16, card), 0, 0, 0);
	expect("pwrite at the end", vt_pwrite(fd, buf, 16, card), -1, ENOSPC, 0);
	expect("pread across the end (shortened)", vt_pread(fd, buf, 100, card - 10), 10, 0, 0);
	expect("pwrite across the end (shortened)", vt_pwrite(fd, buf, 100, card - 10), 10, 0, 0);
	expect("pread at offset 2^62", vt_pread(fd, buf, 16, 1ll << 62), -1, EINVAL, 0);
	expect("pread at a negative offset", vt_pread(fd, buf, 16, -4096), -1, EINVAL, 0);
	expect("pwrite at a negative offset", vt_pwrite(fd, buf, 16, -1), -1, EINVAL, 0);
	expect("pread of 0 bytes", vt_pread(fd, buf, 0, 0), 0, 0, 0);
	expect("pwrite of 0 bytes", vt_pwrite(fd, buf, 0, 0), 0, 0, 0);

	expect("pread into NULL", vt_pread(fd, NULL, 4096, 0), -1, EFAULT, 0);
	expect("pwrite from NULL", vt_pwrite(fd, NULL, 4096, 0), -1, EFAULT, 0);
	expect("pwrite from NULL, unaligned", vt_pwrite(fd, NULL, 100, 3), -1, EFAULT, 0);
	expect("pread of 2^40 bytes into 4 KiB", vt_pread(fd, guarded, 1ull << 40, 0), -1, EFAULT, 0);
	expect("pwrite of 2^40 bytes from 4 KiB", vt_pwrite(fd, guarded, 1ull << 40, 0), -1, EFAULT, 0);
	expect("pread of 1 MiB into 4 KiB", vt_pread(fd, guarded, 1 << 20, 4096), -1, EFAULT, 0);
	expect("pwrite of SIZE_MAX bytes", vt_pwrite(fd, buf, SIZE_MAX, 0), -1, EFAULT, EINVAL);
	expect("pread of SIZE_MAX bytes", vt_pread(fd, buf, SIZE_MAX, 0), -1, EFAULT, EINVAL);
	expect("pread of SSIZE_MAX bytes", vt_pread(fd, buf, SSIZE_MAX, 0), -1, EFAULT, EINVAL);

	expect("lseek beyond the end", lseek(fd, card + 1, SEEK_SET), -1, EINVAL, 0);
	expect("lseek to -1", lseek(fd, -1, SEEK_SET), -1, EINVAL, 0);
	expect("lseek(1, SEEK_END)", lseek(fd, 1, SEEK_END), -1, EINVAL, 0);
	expect("read at the end after lseek(0, SEEK_END)",
	       lseek(fd, 0, SEEK_END) == (off_t)card ? read(fd, buf, 16) : -2, 0, 0, 0);

	/* The refused writes above touched nothing. */
	if (pread(fd, buf, 8192, 0) != 8192 || vt_check(buf, 8192, 42) >= 0)
		vt_fail(T, "a refused write changed card memory at 0");

	resets1 = vt_attr_ll(dev, "ch0/resets") + vt_attr_ll(dev, "ch1/resets");
	if (resets1 != resets0)
		vt_fail(T, "bad inputs needed %lld channel resets", resets1 - resets0);
	if (!works(fd, 1 << 20, 1 << 20, 43) || !works(fd, 77, 5000, 44))
		vt_fail(T, "the device does not work after the bad inputs");
	else if (!vt_failed)
		vt_pass(T);

	nonblock_test(fd, card);
	close(fd);
	return vt_failed;
}
