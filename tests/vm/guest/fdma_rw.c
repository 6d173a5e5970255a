// SPDX-License-Identifier: MIT
/*
 * H2C then C2H through /dev/fdmaN: patterns written with pwrite() and read
 * back with pread() at several sizes and card offsets (aligned, unaligned,
 * across the driver's 1 MiB chunks, at the very end of card memory), every
 * byte checked, including the bytes around each range (an unaligned write
 * must leave its neighbours alone). Then the same with lseek + write/read,
 * and the channels' sysfs counters.
 */
#include "vmtest.h"

static const char *T = "h2c_c2h_patterns";
static char dev[64];
static uint8_t *wbuf, *rbuf;
static int cases, bad;

#define GUARD 256

/* Write background, then the pattern at off, read both back and compare. */
static void one(int fd, uint64_t card, uint64_t off, size_t len, uint64_t seed)
{
	uint64_t lo = off >= GUARD ? off - GUARD : 0;
	uint64_t hi = off + len + GUARD <= card ? off + len + GUARD : card;
	size_t span = hi - lo;
	uint64_t bg = seed ^ 0x5a5a5a5aull;
	ssize_t n;
	long at;

	cases++;
	vt_fill(wbuf, span, bg);
	n = pwrite(fd, wbuf, span, lo);
	if (n != (ssize_t)span) {
		vt_fail(T, "pwrite of the background (%zu bytes at %llu) returned %zd (%s)",
			span, (unsigned long long)lo, n, strerror(errno));
		bad++;
		return;
	}
	vt_fill(wbuf, len, seed);
	n = pwrite(fd, wbuf, len, off);
	if (n != (ssize_t)len) {
		vt_fail(T, "pwrite of %zu bytes at card offset %llu returned %zd (%s)",
			len, (unsigned long long)off, n, strerror(errno));
		bad++;
		return;
	}
	memset(rbuf, 0xee, span);
	n = pread(fd, rbuf, span, lo);
	if (n != (ssize_t)span) {
		vt_fail(T, "pread of %zu bytes at card offset %llu returned %zd (%s)",
			span, (unsigned long long)lo, n, strerror(errno));
		bad++;
		return;
	}
	at = vt_check(rbuf + (off - lo), len, seed);
	if (at >= 0) {
		vt_fail(T, "%zu bytes at card offset %llu: byte %ld reads 0x%02x, wrote 0x%02x",
			len, (unsigned long long)off, at, rbuf[off - lo + at],
			vt_byte(seed, at));
		bad++;
		return;
	}
	for (uint64_t i = 0; i < span; i++) {
		if (lo + i >= off && lo + i < off + len)
			continue;
		if (rbuf[i] != vt_byte(bg, i)) {
			vt_fail(T, "%zu bytes at card offset %llu clobbered card byte %llu (0x%02x, was 0x%02x)",
				len, (unsigned long long)off,
				(unsigned long long)(lo + i), rbuf[i], vt_byte(bg, i));
			bad++;
			return;
		}
	}
}

int main(void)
{
	static const size_t small[] = {
		1, 2, 63, 64, 65, 100, 127, 4095, 4096, 4097, 65536, 1000000,
	};
	static const size_t large[] = {
		(1 << 20) - 64, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 17, 8 << 20,
	};
	long long h2c_done0, c2h_done0, h2c_bytes0, ch;
	uint64_t card, seed = 1;
	char attr[64];
	int fd;

	fd = vt_open_fdma(T, dev, sizeof(dev));
	if (fd < 0)
		return 1;
	card = (uint64_t)vt_attr_ll(dev, "card_size");
	if ((long long)card <= (16 << 20)) {
		vt_fail(T, "card_size %lld: expected more than 16 MiB", (long long)card);
		return 1;
	}
	wbuf = malloc((8 << 20) + 4 * GUARD);
	rbuf = malloc((8 << 20) + 4 * GUARD);
	if (!wbuf || !rbuf) {
		vt_fail(T, "out of memory");
		return 1;
	}
	h2c_done0 = vt_attr_ll(dev, "ch0/completions");
	c2h_done0 = vt_attr_ll(dev, "ch1/completions");
	h2c_bytes0 = vt_attr_ll(dev, "ch0/bytes");

	for (size_t s = 0; s < sizeof(small) / sizeof(small[0]); s++) {
		size_t len = small[s];
		uint64_t offs[] = {
			0, 1, 63, 64, 4096 + 7, (1 << 20) - 5, (1 << 20) - len / 2,
			card - len, card - len - 3, card / 2 + 33,
		};

		for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++)
			if (offs[o] + len <= card)
				one(fd, card, offs[o], len, seed++);
	}
	for (size_t s = 0; s < sizeof(large) / sizeof(large[0]); s++) {
		size_t len = large[s];
		uint64_t offs[] = { 0, 4096 + 7, card - len };

		for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++)
			one(fd, card, offs[o], len, seed++);
	}

	/* The file position: lseek, then write() and read() advance it. */
	vt_fill(wbuf, 3 * 4096 + 5, 777);
	if (lseek(fd, 12345, SEEK_SET) != 12345 ||
	    write(fd, wbuf, 3 * 4096 + 5) != 3 * 4096 + 5 ||
	    lseek(fd, 0, SEEK_CUR) != 12345 + 3 * 4096 + 5) {
		vt_fail(T, "lseek + write: %s", strerror(errno));
		bad++;
	} else if (lseek(fd, 12345, SEEK_SET) != 12345 ||
		   read(fd, rbuf, 4096) != 4096 ||
		   read(fd, rbuf + 4096, 2 * 4096 + 5) != 2 * 4096 + 5 ||
		   vt_check(rbuf, 3 * 4096 + 5, 777) >= 0) {
		vt_fail(T, "lseek + read: wrong data or %s", strerror(errno));
		bad++;
	}
	if (lseek(fd, 0, SEEK_END) != (off_t)card) {
		vt_fail(T, "lseek(0, SEEK_END) is not card_size %llu", (unsigned long long)card);
		bad++;
	}
	cases++;

	/* Which channels are the memory-mapped ones: ch0 H2C and ch1 C2H on the model. */
	vt_attr_str(dev, "ch0/dir", attr, sizeof(attr));
	ch = vt_attr_ll(dev, "ch0/completions") - h2c_done0;
	if (strcmp(attr, "h2c") || ch < cases)
		vt_fail(T, "ch0 (%s): %lld completions for %d cases", attr, ch, cases);
	ch = vt_attr_ll(dev, "ch1/completions") - c2h_done0;
	if (ch < cases)
		vt_fail(T, "ch1: %lld completions for %d cases", ch, cases);
	if (vt_attr_ll(dev, "ch0/bytes") - h2c_bytes0 < (8 << 20))
		vt_fail(T, "ch0/bytes did not grow by the bytes written");
	if (vt_attr_ll(dev, "ch0/errors") || vt_attr_ll(dev, "ch1/errors"))
		vt_fail(T, "errors counted: ch0 %lld, ch1 %lld",
			vt_attr_ll(dev, "ch0/errors"), vt_attr_ll(dev, "ch1/errors"));
	close(fd);
	if (!bad && !vt_failed) {
		vt_info("%d cases, card memory %llu bytes, every byte checked", cases,
			(unsigned long long)card);
		vt_pass(T);
	}
	return vt_failed;
}
