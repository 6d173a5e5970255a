// SPDX-License-Identifier: MIT
/*
 * A timeout means "no progress", not "not done yet".
 *
 * deep_queue_no_timeout: the device model is paced at its link's speed
 *   (gen2 x1 by default, about 400 MB/s H2C) and a full ring of 4 MiB H2C
 *   requests is queued (1024 with a ring of 1024 and one descriptor per
 *   request): several seconds of work, more than the driver's timeout_ms
 *   (2000 in this run). A pwrite() on the same channel waits behind the
 *   whole queue, longer than the timeout, and succeeds; every queued request
 *   completes; the channel is never reset and nothing times out. The
 *   driver before this test started the pwrite()'s timeout at its doorbell
 *   and reset the channel, canceling the queue.
 * rw_kill_abandon: a process killed (SIGKILL) while its pwrite() waits
 *   behind that queue dies at once (the wait is killable) without a reset:
 *   its request is left in flight, and the queue and the next writer are
 *   unharmed.
 */
#include "vmioc.h"

#define REQ	(4u << 20)

static const char *T = "deep_queue_no_timeout";

int main(void)
{
	struct fdma_ioc_stats s0, s1, sa, sb;
	struct fdma_cq_entry *e;
	struct fdma_ioc_req *r;
	struct vi_buf b;
	struct vi_dev d;
	uint8_t small[65536], back[65536];
	long long tmo = vt_read_ll("/sys/module/fdma/parameters/timeout_ms");
	double t0, t1, t2, tk, td, tq;
	uint32_t depth, per;
	int ret, status;
	pid_t pid;

	ret = vi_open(&d, NULL);
	if (ret || d.h2c < 0 || vi_cq_map(&d, d.h2c) || vi_alloc(&d, REQ, &b)) {
		vt_fail(T, "open, map, allocate 4 MiB: %s", strerror(ret ? -ret : errno));
		return 1;
	}
	vt_fill(b.p, REQ, 3);
	ret = vi_model(d.name, "pace on");
	if (ret) {
		vt_fail(T, "pacing the model: %s", strerror(-ret));
		return 1;
	}
	/* How many descriptors one 4 MiB request takes here (chunks of the buffer). */
	r = calloc(1024, sizeof(*r));
	e = calloc(1024, sizeof(*e));
	vi_stats(&d, d.h2c, &sa);
	r[0] = (struct fdma_ioc_req){ .handle = b.handle, .len = REQ, .user_data = 0 };
	ret = vi_submit(&d, d.h2c, r, 1);
	if (!ret)
		ret = vi_collect(&d, d.h2c, e, 1, 10000000);
	vi_stats(&d, d.h2c, &sb);
	per = (uint32_t)(sb.descriptors - sa.descriptors);
	if (ret || e[0].res || !per) {
		vt_fail(T, "one 4 MiB request: %s, res %d", strerror(-ret), e[0].res);
		return 1;
	}
	depth = d.info.ring_size / per;
	if (depth > 1024)
		depth = 1024;
	vt_info("ring %u, %u descriptor(s) per 4 MiB request: %u requests queued (%u MiB), timeout_ms %lld",
		d.info.ring_size, per, depth, depth * 4, tmo);

	vi_stats(&d, d.h2c, &s0);
	for (uint32_t i = 0; i < depth; i++)
		r[i] = (struct fdma_ioc_req){ .handle = b.handle, .len = REQ,
					      .card_addr = (uint64_t)(i % 64) * REQ,
					      .user_data = i };
	t0 = vi_ms();
	ret = vi_submit(&d, d.h2c, r, depth);
	if (ret) {
		vt_fail(T, "submitting %u requests: %s", depth, strerror(-ret));
		return 1;
	}

	/* A writer killed while it waits behind the queue. */
	pid = fork();
	if (pid == 0) {
		char path[96];
		int fd;

		snprintf(path, sizeof(path), "/dev/%s", d.name);
		fd = open(path, O_RDWR);
		memset(small, 0x44, sizeof(small));
		_exit(pwrite(fd, small, sizeof(small), 1000ll << 20) == sizeof(small) ? 0 : 1);
	}
	usleep(300000);
	tk = vi_ms();
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	td = vi_ms();

	/* A writer behind the queue: it waits longer than the timeout, and succeeds. */
	vt_fill(small, sizeof(small), 9);
	t1 = vi_ms();
	ret = pwrite(d.fd, small, sizeof(small), 900ll << 20) == sizeof(small) ? 0 : -errno;
	t2 = vi_ms();
	if (ret)
		vt_fail(T, "pwrite behind the queue: %s after %.0f ms", strerror(-ret), t2 - t1);

	ret = vi_collect(&d, d.h2c, e, (int)depth, 60000000);
	tq = vi_ms();
	if (ret)
		vt_fail(T, "collecting the queue: %s", strerror(-ret));
	for (uint32_t i = 0; !ret && i < depth; i++) {
		if (e[i].res) {
			vt_fail(T, "queued request %llu: %s (status 0x%x)",
				(unsigned long long)e[i].user_data, strerror(-e[i].res), e[i].status);
			break;
		}
	}
	vi_stats(&d, d.h2c, &s1);
	vi_model(d.name, "pace cfg");
	vt_info("queue of %u MiB done after %.0f ms; the pwrite behind it took %.0f ms; the killed writer died %.0f ms after SIGKILL",
		depth * 4, tq - t0, t2 - t1, td - tk);
	if (s1.resets != s0.resets || s1.timeouts != s0.timeouts)
		vt_fail(T, "%llu resets, %llu timeouts on a channel that never stopped moving",
			(unsigned long long)(s1.resets - s0.resets),
			(unsigned long long)(s1.timeouts - s0.timeouts));
	if (tmo > 0 && t2 - t1 <= tmo)
		vt_info("the pwrite waited less than timeout_ms (%lld): the queue was too fast to show the point",
			tmo);
	if (pread(d.fd, back, sizeof(back), 900ll << 20) != sizeof(back) ||
	    memcmp(back, small, sizeof(back)))
		vt_fail(T, "the pwrite behind the queue did not land");
	if (!vt_failed)
		vt_pass(T);

	T = "rw_kill_abandon";
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		vt_fail(T, "the writer was not killed by SIGKILL (status 0x%x)", status);
	else if (td - tk > 2000)
		vt_fail(T, "the killed writer took %.0f ms to die", td - tk);
	else if (s1.resets != s0.resets)
		vt_fail(T, "killing a waiting writer reset the channel");
	else
		vt_pass(T);
	vi_free(&d, &b);
	vi_close(&d);
	free(r);
	free(e);
	return vt_failed;
}
