// SPDX-License-Identifier: MIT
/*
 * rw_signals: a reader that takes SIGALRM every millisecond harms nobody.
 *
 * One process streams from card memory through the ioctl interface on the
 * memory-mapped C2H channel (batches of 16 x 64 KiB, every byte checked).
 * Another reads the same channel with pread() of 4 MiB (four chunks
 * through the driver's bounce buffer) while an interval timer sends it
 * SIGALRM every millisecond, without SA_RESTART. The driver waits for its
 * own bounce buffer killably only: a signal ends a read() between chunks
 * (a short count, its bytes right), never inside one. So the streamer
 * loses nothing (no -ECANCELED, no wrong byte), the channel is never
 * reset, and every byte the reader got is right. The driver before this
 * test reset the channel for every file on any signal during a read(),
 * canceling the streamer's requests.
 */
#include <sys/time.h>

#include "vmioc.h"

#define CARD_LEN	(4u << 20)
#define PIECE		(64u << 10)
#define NPIECE		16
#define SEED		77
#define SECONDS		3

static const char *T = "rw_signals";
static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* p[0, n) holds the card pattern from card offset off. */
static long check_at(const uint8_t *p, size_t n, uint64_t off)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != vt_byte(SEED, off + i))
			return (long)i;
	return -1;
}

/* The streamer: exit 0 if every request completed with the right bytes. */
static int stream(const char *dev)
{
	struct fdma_cq_entry e[NPIECE];
	struct fdma_ioc_req r[NPIECE];
	struct vi_buf b;
	struct vi_dev v;
	double end = vi_ms() + SECONDS * 1000.0;
	long batches = 0;

	if (vi_open(&v, dev) || vi_cq_map(&v, v.c2h) || vi_alloc(&v, NPIECE * PIECE, &b)) {
		printf("  streamer: open/allocate: %s\n", strerror(errno));
		return 2;
	}
	while (vi_ms() < end) {
		uint64_t card = (uint64_t)(batches % 4) * NPIECE * PIECE;
		int ret;

		memset(b.p, 0, b.size);
		for (int i = 0; i < NPIECE; i++)
			r[i] = (struct fdma_ioc_req){ .handle = b.handle, .offset = i * PIECE,
						      .card_addr = card + i * PIECE,
						      .len = PIECE, .user_data = (uint64_t)i };
		ret = vi_submit(&v, v.c2h, r, NPIECE);
		if (!ret)
			ret = vi_collect(&v, v.c2h, e, NPIECE, 20000000);
		if (ret) {
			printf("  streamer: batch %ld: %s\n", batches, strerror(-ret));
			return 1;
		}
		for (int i = 0; i < NPIECE; i++) {
			uint64_t k = e[i].user_data;
			long bad;

			if (e[i].res) {
				printf("  streamer: batch %ld request %llu: %s (status 0x%x)\n",
				       batches, (unsigned long long)k, strerror(-e[i].res),
				       e[i].status);
				return 1;
			}
			bad = check_at(b.p + k * PIECE, PIECE, card + k * PIECE);
			if (bad >= 0) {
				printf("  streamer: batch %ld request %llu: wrong byte at %ld\n",
				       batches, (unsigned long long)k, bad);
				return 1;
			}
		}
		batches++;
	}
	printf("  streamer: %ld batches of %d x %u bytes, all right\n", batches, NPIECE, PIECE);
	vi_free(&v, &b);
	vi_close(&v);
	return batches ? 0 : 1;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_interval = { 0, 1000 }, .it_value = { 0, 1000 } };
	struct fdma_ioc_stats s0, s1;
	long reads = 0, shorts = 0, eintr = 0, bad = 0;
	uint8_t *buf = malloc(CARD_LEN);
	struct vi_dev d;
	int status = 0;
	pid_t pid, w;

	if (!buf || vi_open(&d, NULL) || d.c2h < 0) {
		vt_fail(T, "open: %s", strerror(errno));
		return 1;
	}
	for (uint32_t i = 0; i < CARD_LEN; i++)
		buf[i] = vt_byte(SEED, i);
	if (pwrite(d.fd, buf, CARD_LEN, 0) != CARD_LEN) {
		vt_fail(T, "pwrite of the card pattern: %s", strerror(errno));
		return 1;
	}
	vi_stats(&d, d.c2h, &s0);

	pid = fork();
	if (pid == 0)
		_exit(stream(d.name));
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	while ((w = waitpid(pid, &status, WNOHANG)) == 0) {
		ssize_t n = pread(d.fd, buf, CARD_LEN, 0);

		if (n < 0) {
			if (errno == EINTR) {
				eintr++;
				continue;
			}
			vt_fail(T, "pread: %s", strerror(errno));
			break;
		}
		reads++;
		if (n < CARD_LEN)
			shorts++;
		if (check_at(buf, (size_t)n, 0) >= 0)
			bad++;
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	while (w == 0 && (w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		w = 0;
	vi_stats(&d, d.c2h, &s1);
	vt_info("reader: %ld reads (%ld short), %ld EINTR, %d SIGALRM; %llu channel resets",
		reads, shorts, eintr, (int)alarms, (unsigned long long)(s1.resets - s0.resets));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		vt_fail(T, "the streaming process lost requests or bytes (status 0x%x)", status);
	if (s1.resets != s0.resets)
		vt_fail(T, "%llu channel resets while a reader took signals",
			(unsigned long long)(s1.resets - s0.resets));
	if (bad)
		vt_fail(T, "%ld reads returned wrong bytes", bad);
	if (alarms < 100 || !reads)
		vt_fail(T, "the test did not run: %d signals, %ld reads", (int)alarms, reads);
	if (!vt_failed)
		vt_pass(T);
	vi_close(&d);
	free(buf);
	return vt_failed;
}
