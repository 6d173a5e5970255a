/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the simulated-device tests (tests/sim/): opening a
 * device, deterministic byte patterns, checked transfers and error checks.
 * Every helper that can fail fails the calling cmocka test with a message
 * naming the caller's file and line; call them from the test's own thread
 * only (cmocka's failure path is not thread-safe). The pattern functions
 * are plain and may be used from any thread.
 */
#ifndef SIM_UTIL_H
#define SIM_UTIL_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fdma.h"
#include "test_exit.h"

/* Generous bounds: a bug fails the test instead of hanging it. */
/* How long a test waits for a completion: 5 s, 60 s on the RTL (rtl=1),
 * which Verilator runs at a few MB/s. */
#define SIM_TIMEOUT_US	sim_timeout_us()
int64_t sim_timeout_us(void);

/*
 * Open uri or fail the test with fdma_open's message. With
 * FDMA_TEST_DEVICE set (e.g. kdev:/dev/fdma0), a "sim" URI opens that
 * device instead, or skips the test if it needs a simulated device's
 * options (see sim_util.c).
 */
#define sim_open(uri) sim_open_at((uri), __FILE__, __LINE__)
struct fdma_dev *sim_open_at(const char *uri, const char *file, int line);
/*
 * FDMA_TEST_SIM: options put before every "sim" URI's own (e.g.
 * engine=xdma: the whole suite on the XDMA model); a URI the extra
 * options make invalid (memcpy channels on XDMA) skips its test.
 */
const char *sim_extra(void);
/*
 * The device is the RTL engine, simulated at about 1/50 of real time:
 * FDMA_TEST_SIM has rtl=1, or FDMA_TEST_DEVICE is the RTL behind a driver
 * (FDMA_TEST_DEVICE_RTL=1: fdma.ko on fdma-proxyd rtl=1 in a guest).
 */
bool sim_on_rtl(void);
/* FDMA_TEST_DEVICE, or NULL when the tests run on the simulated device. */
const char *sim_target(void);
/*
 * Skip the calling test on another device: it checks what only the model
 * guarantees (e.g. exactly how many interrupts the engine raises, which a
 * host sees merged where they arrive while the vector is masked).
 */
void sim_require_model(const char *why);
/*
 * Skip the calling test unless the device is an FDMA engine in this
 * process: the model or the RTL (rtl=1), not the XDMA model and not another
 * device. For what the engine's specification fixes exactly, e.g. the
 * coalescing rules' interrupt counts.
 */
void sim_require_fdma_engine(const char *why);
/*
 * Skips a test that holds the device against wall-clock time (a frame
 * period of real milliseconds) on a device that runs slower than real time:
 * the RTL engine under Verilator (rtl:, or sim_on_rtl()) simulates about
 * 1/50 of real time.
 */
void sim_require_realtime(struct fdma_dev *dev, const char *why);
/* Bytes of card memory of dev (0 if it cannot tell). */
uint64_t sim_card_size(struct fdma_dev *dev);

/*
 * Deterministic pattern: byte at logical position pos (counted from the
 * start of the pattern stream, not of p) of the stream named by seed.
 * Different seeds and different positions give different bytes, so stale,
 * shifted or misplaced data is caught.
 */
uint8_t pattern_byte(uint64_t seed, uint64_t pos);
void pattern_fill_at(void *p, size_t len, uint64_t seed, uint64_t pos);
void pattern_fill(void *p, size_t len, uint64_t seed);
/* Index of the first byte that differs from the pattern, or -1 if none. */
long long pattern_find_bad(const void *p, size_t len, uint64_t seed, uint64_t pos);

/* Fail the test unless p holds the pattern (names the first bad byte). */
#define assert_pattern_at(p, len, seed, pos) \
	sim_assert_pattern((p), (len), (seed), (pos), __FILE__, __LINE__)
#define assert_pattern(p, len, seed) assert_pattern_at((p), (len), (seed), 0)
void sim_assert_pattern(const void *p, size_t len, uint64_t seed, uint64_t pos,
			const char *file, int line);

/* Fail the test unless every byte of p is val. */
#define assert_bytes(p, len, val) sim_assert_bytes((p), (len), (val), __FILE__, __LINE__)
void sim_assert_bytes(const void *p, size_t len, uint8_t val, const char *file, int line);

/*
 * Fail the test unless ret == want and (want < 0) fdma_errmsg(dev) contains
 * word (case-sensitive). dev may be NULL for calls without a device.
 */
#define assert_fdma_err(dev, ret, want, word) \
	sim_assert_err((dev), (long long)(ret), (want), (word), #ret, __FILE__, __LINE__)
void sim_assert_err(struct fdma_dev *dev, long long ret, int want, const char *word,
		    const char *expr, const char *file, int line);

/* Fail the test if ret < 0, printing fdma_errmsg(dev). */
#define assert_fdma_ok(dev, ret) \
	sim_assert_ok((dev), (long long)(ret), #ret, __FILE__, __LINE__)
long long sim_assert_ok(struct fdma_dev *dev, long long ret, const char *expr,
			const char *file, int line);

/* Allocate a buffer of size bytes (flags as fdma_buf_alloc) or fail. */
#define sim_buf(dev, size, flags) sim_buf_at((dev), (size), (flags), __FILE__, __LINE__)
int sim_buf_at(struct fdma_dev *dev, size_t size, unsigned int flags, const char *file, int line);

/*
 * Reap exactly n completions from ch into cpls (fdma_reap with a finite
 * timeout, repeated). Fails the test on an error or a timeout.
 */
#define sim_reap_n(dev, ch, cpls, n) sim_reap_n_at((dev), (ch), (cpls), (n), __FILE__, __LINE__)
void sim_reap_n_at(struct fdma_dev *dev, int ch, struct fdma_cpl *cpls, unsigned int n,
		   const char *file, int line);

/*
 * A checked round trip through card memory on the first memory-mapped
 * channels: len bytes of a fresh pattern written at card_addr, read back
 * into a second buffer (pre-filled with junk), every byte compared.
 */
#define sim_roundtrip(dev, card_addr, len, seed) \
	sim_roundtrip_at((dev), (card_addr), (len), (seed), __FILE__, __LINE__)
void sim_roundtrip_at(struct fdma_dev *dev, uint64_t card_addr, size_t len, uint64_t seed,
		      const char *file, int line);

/* Channel statistics or fail. */
#define sim_stats(dev, ch, st) sim_stats_at((dev), (ch), (st), __FILE__, __LINE__)
void sim_stats_at(struct fdma_dev *dev, int ch, struct fdma_chan_stats *st,
		  const char *file, int line);

/*
 * Wait (bounded by timeout_us) until ch's interrupt count reaches at least
 * want, then a little longer so that an extra interrupt would show too;
 * returns the final count. Interrupts are counted by the device right
 * after the completion that triggers them, so a reaper can see the
 * completion a moment before the count.
 */
uint64_t sim_wait_interrupts(struct fdma_dev *dev, int ch, uint64_t want, int64_t timeout_us);

int64_t sim_now_us(void);
void sim_sleep_us(int64_t us);

/*
 * Check a test generator frame completely (length, SOF and EOF, header,
 * CRC-32, every payload word, zero tail); returns its sequence number.
 */
#define sim_check_frame(f, len) sim_check_frame_at((f), (len), __FILE__, __LINE__)
uint32_t sim_check_frame_at(const struct fdma_frame *f, uint32_t len, const char *file, int line);

#endif
