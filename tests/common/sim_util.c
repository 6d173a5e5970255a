// SPDX-License-Identifier: MIT
/* Helpers shared by the simulated-device tests; see sim_util.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "sim_util.h"

unsigned int t_skipped;
#include "fdma_plat.h"
#include "fdma_regs.h"

int64_t sim_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void sim_sleep_us(int64_t us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A size with an optional K, M or G suffix (powers of 1024). */
static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'K':
		return v << 10;
	case 'M':
		return v << 20;
	case 'G':
		return v << 30;
	default:
		return v;
	}
}

/*
 * FDMA_TEST_DEVICE=URI runs the suite against another device (e.g.
 * kdev:/dev/fdma0 in the QEMU guest): a test's "sim:..." URI is replaced by
 * it when the test needs nothing the other device cannot be told. paced=
 * says only how fast the model runs and is dropped; coal= and coal_us= are
 * applied as settings; mem=N needs at least N bytes of card memory (the
 * tests take the card's end from sim_card_size()); memcpy=N needs at least
 * N memory-to-memory channels; any other option shapes
 * the simulated device (ring, faults, link, ...) and the test is skipped,
 * saying which.
 */
static struct fdma_dev *open_other(const char *target, const char *uri, const char *file, int line)
{
	unsigned int coal = 0, coal_us = 0, min_memcpy = 0, nmem = 0;
	uint64_t min_mem = 0;
	const char *opts = strchr(uri, ':');
	struct fdma_dev *dev = NULL;
	struct fdma_info in;
	char err[256] = "", buf[256];
	int ret;

	snprintf(buf, sizeof(buf), "%s", opts ? opts + 1 : "");
	for (char *save = NULL, *o = strtok_r(buf, ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (!strncmp(o, "paced=", 6))
			continue;
		if (!strncmp(o, "mem=", 4)) {
			/* Tests size their card ranges by sim_card_size(): enough is enough. */
			min_mem = parse_size(o + 4);
			continue;
		}
		if (!strncmp(o, "memcpy=", 7)) {
			min_memcpy = (unsigned int)strtoul(o + 7, NULL, 0);
			continue;
		}
		if (!strncmp(o, "coal=", 5))
			coal = (unsigned int)strtoul(o + 5, NULL, 0);
		else if (!strncmp(o, "coal_us=", 8))
			coal_us = (unsigned int)strtoul(o + 8, NULL, 0);
		else {
			print_message("needs a simulated device with %s: skipped on %s\n", o, target);
			t_skip();
		}
	}
	ret = fdma_open(&dev, target, err, sizeof(err));
	if (ret < 0 || !dev) {
		print_error("fdma_open(\"%s\") = %d (%s): %s\n", target, ret, strerror(-ret), err);
		_fail(file, line);
	}
	fdma_get_info(dev, &in);
	if (in.card_size < min_mem) {
		fdma_close(dev);
		print_message("needs %llu bytes of card memory, %s has %llu: skipped\n",
			      (unsigned long long)min_mem, target, (unsigned long long)in.card_size);
		t_skip();
	}
	for (unsigned int i = 0; i < in.nchan; i++)
		nmem += in.chan[i].kind == FDMA_KIND_MEM;
	if (nmem < min_memcpy) {
		fdma_close(dev);
		print_message("needs %u memory-to-memory channels, %s has %u: skipped\n",
			      min_memcpy, target, nmem);
		t_skip();
	}
	/*
	 * A device outlives this handle: put what earlier tests set back to
	 * defaults. A channel reset also restarts the stream generator's and
	 * checker's counts and sequence, as on a fresh simulated device.
	 */
	for (int ch = 0; ch < (int)in.nchan; ch++) {
		/* Generator off and drops off before the reset, so that nothing runs on after it. */
		if (in.chan[ch].testgen)
			sim_assert_ok(dev, fdma_chan_set_testgen(dev, ch, 0, 0, 0),
				      "fdma_chan_set_testgen", file, line);
		if (in.chan[ch].kind == FDMA_KIND_STREAM && in.chan[ch].dir == FDMA_C2H)
			sim_assert_ok(dev, fdma_chan_set_drop(dev, ch, 0), "fdma_chan_set_drop", file, line);
		sim_assert_ok(dev, fdma_chan_set_coalesce(dev, ch, coal, coal_us),
			      "fdma_chan_set_coalesce", file, line);
		sim_assert_ok(dev, fdma_chan_reset(dev, ch), "fdma_chan_reset", file, line);
	}
	return dev;
}

void sim_require_model(const char *why)
{
	if (sim_target()) {
		print_message("checks %s, a property of the simulated device: skipped on %s\n", why,
			      sim_target());
		t_skip();
	}
	if (sim_extra()) {
		print_message("checks %s, a property of the default simulated FDMA: skipped with %s\n",
			      why, sim_extra());
		t_skip();
	}
}

void sim_require_fdma_engine(const char *why)
{
	const char *x = sim_extra();

	if (sim_target() || (x && strstr(x, "engine=xdma"))) {
		print_message("checks %s, a property of the FDMA engine: skipped on %s\n", why,
			      sim_target() ? sim_target() : x);
		t_skip();
	}
}

bool sim_on_rtl(void)
{
	const char *x = sim_extra(), *t = getenv("FDMA_TEST_DEVICE_RTL");

	return (x && strstr(x, "rtl=1")) || (sim_target() && t && !strcmp(t, "1"));
}

int64_t sim_timeout_us(void)
{
	return sim_on_rtl() ? 60 * 1000 * 1000 : 5 * 1000 * 1000;
}

void sim_require_realtime(struct fdma_dev *dev, const char *why)
{
	struct fdma_info in;

	if (sim_on_rtl() || (fdma_get_info(dev, &in) == 0 && !strcmp(in.backend, "rtl"))) {
		fdma_close(dev);
		print_message("checks %s in real time; the Verilated RTL runs slower: skipped\n", why);
		t_skip();
	}
}

uint64_t sim_card_size(struct fdma_dev *dev)
{
	struct fdma_info in;

	if (fdma_get_info(dev, &in))
		return 0;
	return in.card_size;
}

const char *sim_target(void)
{
	const char *t = getenv("FDMA_TEST_DEVICE");

	return t && *t ? t : NULL;
}

const char *sim_extra(void)
{
	const char *t = getenv("FDMA_TEST_SIM");

	return t && *t ? t : NULL;
}

struct fdma_dev *sim_open_at(const char *uri, const char *file, int line)
{
	struct fdma_dev *dev = NULL;
	bool is_sim = !strncmp(uri, "sim", 3) && (!uri[3] || uri[3] == ':');
	char err[256] = "", buf[512];
	int ret;

	if (sim_target() && is_sim)
		return open_other(sim_target(), uri, file, line);
	if (sim_extra() && is_sim) {
		/* The extra options first: a test's own options must not be given twice. */
		snprintf(buf, sizeof(buf), "sim:%s%s%s", sim_extra(), uri[3] ? "," : "",
			 uri[3] ? uri + 4 : "");
		ret = fdma_open(&dev, buf, err, sizeof(err));
		if (ret == -EINVAL) {
			print_message("%s: %s: skipped\n", buf, err);
			t_skip();
		}
		uri = buf;
	} else {
		ret = fdma_open(&dev, uri, err, sizeof(err));
	}
	if (ret < 0 || !dev) {
		print_error("fdma_open(\"%s\") = %d (%s): %s\n", uri, ret, strerror(-ret), err);
		_fail(file, line);
	}
	return dev;
}

/* splitmix64 of the stream's word index: every 8 bytes of the pattern. */
static uint64_t pattern_word(uint64_t seed, uint64_t k)
{
	uint64_t z = seed * 0x9e3779b97f4a7c15ull + k + 0x632be59bd9b4e019ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint8_t pattern_byte(uint64_t seed, uint64_t pos)
{
	return (uint8_t)(pattern_word(seed, pos / 8) >> (8 * (pos % 8)));
}

/* The pattern word k as its 8 bytes in memory order (little-endian). */
static inline void word_bytes(uint64_t w, uint8_t out[8])
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(out, &w, 8);
#else
	for (int j = 0; j < 8; j++)
		out[j] = (uint8_t)(w >> (8 * j));
#endif
}

void pattern_fill_at(void *p, size_t len, uint64_t seed, uint64_t pos)
{
	uint8_t *b = p;
	size_t i = 0;

	for (; i < len && (pos + i) % 8; i++)
		b[i] = pattern_byte(seed, pos + i);
	for (; i + 8 <= len; i += 8)
		word_bytes(pattern_word(seed, (pos + i) / 8), b + i);
	for (; i < len; i++)
		b[i] = pattern_byte(seed, pos + i);
}

void pattern_fill(void *p, size_t len, uint64_t seed)
{
	pattern_fill_at(p, len, seed, 0);
}

long long pattern_find_bad(const void *p, size_t len, uint64_t seed, uint64_t pos)
{
	const uint8_t *b = p;
	size_t i = 0;

	for (; i < len && (pos + i) % 8; i++)
		if (b[i] != pattern_byte(seed, pos + i))
			return (long long)i;
	for (; i + 8 <= len; i += 8) {
		uint8_t want[8];

		word_bytes(pattern_word(seed, (pos + i) / 8), want);
		if (memcmp(b + i, want, 8))
			for (int j = 0; j < 8; j++)
				if (b[i + j] != want[j])
					return (long long)(i + (size_t)j);
	}
	for (; i < len; i++)
		if (b[i] != pattern_byte(seed, pos + i))
			return (long long)i;
	return -1;
}

void sim_assert_pattern(const void *p, size_t len, uint64_t seed, uint64_t pos,
			const char *file, int line)
{
	long long bad = pattern_find_bad(p, len, seed, pos);

	if (bad >= 0) {
		print_error("data mismatch at byte %lld of %zu: got 0x%02x, expected 0x%02x (seed %" PRIu64 ")\n",
			    bad, len, ((const uint8_t *)p)[bad],
			    pattern_byte(seed, pos + (uint64_t)bad), seed);
		_fail(file, line);
	}
}

void sim_assert_bytes(const void *p, size_t len, uint8_t val, const char *file, int line)
{
	const uint8_t *b = p;
	uint8_t block[4096];
	size_t i = 0;

	memset(block, val, sizeof(block));
	/* Whole blocks by memcmp; byte by byte only to name the first bad one. */
	while (i < len) {
		size_t n = len - i < sizeof(block) ? len - i : sizeof(block);

		if (memcmp(b + i, block, n))
			break;
		i += n;
	}
	for (; i < len; i++) {
		if (b[i] != val) {
			print_error("byte %zu of %zu is 0x%02x, expected 0x%02x (written where it should not be?)\n",
				    i, len, b[i], val);
			_fail(file, line);
		}
	}
}

void sim_assert_err(struct fdma_dev *dev, long long ret, int want, const char *word,
		    const char *expr, const char *file, int line)
{
	const char *msg = dev ? fdma_errmsg(dev) : "";

	if (ret != want) {
		print_error("%s = %lld (%s), expected %d (%s); errmsg: \"%s\"\n", expr, ret,
			    ret < 0 ? strerror((int)-ret) : "success", want,
			    want < 0 ? strerror(-want) : "success", msg);
		_fail(file, line);
	}
	if (word && (!msg || !*msg || !strstr(msg, word))) {
		print_error("%s = %lld as expected, but the message \"%s\" does not mention \"%s\"\n",
			    expr, ret, msg ? msg : "(null)", word);
		_fail(file, line);
	}
}

long long sim_assert_ok(struct fdma_dev *dev, long long ret, const char *expr,
			const char *file, int line)
{
	if (ret < 0) {
		print_error("%s = %lld (%s): %s\n", expr, ret, strerror((int)-ret),
			    dev ? fdma_errmsg(dev) : "");
		_fail(file, line);
	}
	return ret;
}

int sim_buf_at(struct fdma_dev *dev, size_t size, unsigned int flags, const char *file, int line)
{
	int h = fdma_buf_alloc(dev, size, flags);

	if (h < 0) {
		print_error("fdma_buf_alloc(%zu, 0x%x) = %d: %s\n", size, flags, h, fdma_errmsg(dev));
		_fail(file, line);
	}
	if (!fdma_buf_addr(dev, h) || fdma_buf_size(dev, h) != size) {
		print_error("buffer %d: address %p, size %zu (expected %zu)\n", h,
			    fdma_buf_addr(dev, h), fdma_buf_size(dev, h), size);
		_fail(file, line);
	}
	return h;
}

void sim_reap_n_at(struct fdma_dev *dev, int ch, struct fdma_cpl *cpls, unsigned int n,
		   const char *file, int line)
{
	unsigned int got = 0;
	int64_t end = sim_now_us() + SIM_TIMEOUT_US;

	while (got < n) {
		int64_t left = end - sim_now_us();
		int r;

		if (left <= 0) {
			print_error("channel %d: %u of %u completions after %lld us\n", ch, got, n,
				    (long long)SIM_TIMEOUT_US);
			_fail(file, line);
		}
		r = fdma_reap(dev, ch, cpls + got, n - got, n - got, left);
		if (r < 0) {
			print_error("fdma_reap(ch %d) after %u of %u completions = %d (%s): %s\n",
				    ch, got, n, r, strerror(-r), fdma_errmsg(dev));
			_fail(file, line);
		}
		got += (unsigned int)r;
	}
}

void sim_stats_at(struct fdma_dev *dev, int ch, struct fdma_chan_stats *st,
		  const char *file, int line)
{
	int r = fdma_chan_stats(dev, ch, st);

	if (r) {
		print_error("fdma_chan_stats(%d) = %d: %s\n", ch, r, fdma_errmsg(dev));
		_fail(file, line);
	}
}

void sim_roundtrip_at(struct fdma_dev *dev, uint64_t card_addr, size_t len, uint64_t seed,
		      const char *file, int line)
{
	int src = sim_buf_at(dev, len, 0, file, line);
	int dst = sim_buf_at(dev, len, 0, file, line);
	int r;

	pattern_fill(fdma_buf_addr(dev, src), len, seed);
	memset(fdma_buf_addr(dev, dst), 0x5a, len);
	r = fdma_write_card(dev, src, 0, card_addr, len);
	sim_assert_err(dev, r, 0, NULL, "fdma_write_card() in round trip", file, line);
	r = fdma_read_card(dev, dst, 0, card_addr, len);
	sim_assert_err(dev, r, 0, NULL, "fdma_read_card() in round trip", file, line);
	sim_assert_pattern(fdma_buf_addr(dev, dst), len, seed, 0, file, line);
	/* The source must not have been touched either. */
	sim_assert_pattern(fdma_buf_addr(dev, src), len, seed, 0, file, line);
	sim_assert_err(dev, fdma_buf_free(dev, src), 0, NULL, "fdma_buf_free(src)", file, line);
	sim_assert_err(dev, fdma_buf_free(dev, dst), 0, NULL, "fdma_buf_free(dst)", file, line);
}

uint64_t sim_wait_interrupts(struct fdma_dev *dev, int ch, uint64_t want, int64_t timeout_us)
{
	struct fdma_chan_stats st = { 0 };
	int64_t end = sim_now_us() + timeout_us;

	for (;;) {
		if (fdma_chan_stats(dev, ch, &st))
			return UINT64_MAX;
		if (st.interrupts >= want || sim_now_us() >= end)
			break;
		sim_sleep_us(200);
	}
	/* Settle: an interrupt that should not come would come now. */
	sim_sleep_us(5000);
	if (fdma_chan_stats(dev, ch, &st))
		return UINT64_MAX;
	return st.interrupts;
}

/* Check a generator frame completely; returns its sequence number. */
uint32_t sim_check_frame_at(const struct fdma_frame *f, uint32_t len, const char *file, int line)
{
	struct fdma_frame_hdr h;
	const uint8_t *p = f->data;
	size_t nwords = (len - sizeof(h)) / 8;

	if (f->len != len || !(f->flags & FDMA_CPL_SOF) || !(f->flags & FDMA_CPL_EOF)) {
		print_error("frame in buffer %u: len %llu (expected %u), flags 0x%x\n", f->index,
			    (unsigned long long)f->len, len, f->flags);
		_fail(file, line);
	}
	memcpy(&h, p, sizeof(h));
	if (h.magic != FDMA_FRAME_MAGIC || h.len != len || h.rsvd != 0) {
		print_error("frame header: magic 0x%x len %u rsvd %llu\n", h.magic, h.len,
			    (unsigned long long)h.rsvd);
		_fail(file, line);
	}
	if (h.crc != (uint32_t)crc32(0, p + sizeof(h), len - (uInt)sizeof(h))) {
		print_error("frame %u: crc 0x%08x does not match the payload\n", h.seq, h.crc);
		_fail(file, line);
	}
	for (size_t i = 0; i < nwords; i++) {
		uint64_t w;

		memcpy(&w, p + sizeof(h) + 8 * i, 8);
		if (w != ((uint64_t)h.seq << 32 | i)) {
			print_error("frame %u: payload word %zu is 0x%016llx\n", h.seq, i,
				    (unsigned long long)w);
			_fail(file, line);
		}
	}
	for (size_t i = sizeof(h) + 8 * nwords; i < len; i++) {
		if (p[i]) {
			print_error("frame %u: tail byte %zu is 0x%02x, expected 0\n", h.seq, i, p[i]);
			_fail(file, line);
		}
	}
	return h.seq;
}
