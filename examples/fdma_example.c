// SPDX-License-Identifier: MIT
/*
 * fdma_example: write 32 MiB to card memory and read it back, 32 requests
 * of 1 MiB each way, each batch with one doorbell.
 *
 *   cc -o fdma_example fdma_example.c $(pkg-config --cflags --libs fdma)
 *   cc -static -o fdma_example fdma_example.c $(pkg-config --static --cflags --libs fdma)
 *   ./fdma_example                       # the simulated device, sim:gen=2,lanes=1
 *   ./fdma_example kdev:/dev/fdma0       # an engine behind fdma.ko
 *
 * Prints the device and "32 MiB written and read back, identical" and exits
 * 0; on any failure prints why and exits 1.
 */
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <fdma.h>

#define N 32			/* requests per batch */
#define CHUNK (1 << 20)		/* bytes per request */

/* Submit the N requests of r on ch, then wait for all of them. */
static void move(struct fdma_dev *dev, int ch, const struct fdma_req *r, const char *what)
{
	int ret = fdma_submit(dev, ch, r, N);			/* one doorbell for 32 */
	if (ret != N)
		errx(1, "%s: fdma_submit: %s", what, fdma_errmsg(dev));
	for (int done = 0; done < N;) {
		struct fdma_cpl c[N];
		int n = fdma_reap(dev, ch, c, N, N - done, 10000000);	/* sleeps until done */
		if (n < 0)
			errx(1, "%s: fdma_reap: %s", what, fdma_errmsg(dev));
		for (int i = 0; i < n; i++)
			if (c[i].res < 0 || c[i].len != CHUNK)
				errx(1, "%s: request %llu: %s (%llu bytes)", what,
				     (unsigned long long)c[i].user_data, strerror(-c[i].res),
				     (unsigned long long)c[i].len);
		done += n;
	}
}

int main(int argc, char **argv)
{
	const char *uri = argc > 1 ? argv[1] : "sim:gen=2,lanes=1";
	struct fdma_dev *dev;
	char err[256];

	if (fdma_open(&dev, uri, err, sizeof(err)) < 0)
		errx(1, "%s", err);
	struct fdma_info info;
	if (fdma_get_info(dev, &info) < 0)
		errx(1, "fdma_get_info: %s", fdma_errmsg(dev));
	printf("libfdma %s, %s device %s, %u channels\n", FDMA_VERSION_STRING,
	       info.backend, info.name, info.nchan);

	int h2c = fdma_find_chan(dev, FDMA_H2C, FDMA_KIND_MM);
	int c2h = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_MM);
	if (h2c < 0 || c2h < 0)
		errx(1, "%s has no memory-mapped channel pair", uri);
	int out = fdma_buf_alloc(dev, N * CHUNK, 0);		/* once, reused forever */
	int in = fdma_buf_alloc(dev, N * CHUNK, 0);
	if (out < 0 || in < 0)
		errx(1, "fdma_buf_alloc: %s", fdma_errmsg(dev));

	uint32_t *p = fdma_buf_addr(dev, out);
	for (size_t i = 0; i < (size_t)N * CHUNK / 4; i++)
		p[i] = (uint32_t)(i * 2654435761u);
	memset(fdma_buf_addr(dev, in), 0, (size_t)N * CHUNK);

	struct fdma_req r[N];
	for (int i = 0; i < N; i++)
		r[i] = (struct fdma_req){ .buf = out, .offset = (uint64_t)i * CHUNK,
					  .card_addr = (uint64_t)i * CHUNK, .len = CHUNK, .user_data = i };
	fdma_chan_set_wait(dev, h2c, FDMA_WAIT_SLEEP, 0);
	move(dev, h2c, r, "host to card");

	for (int i = 0; i < N; i++)
		r[i].buf = in;
	fdma_chan_set_wait(dev, c2h, FDMA_WAIT_SLEEP, 0);
	fdma_chan_set_coalesce(dev, c2h, 8, 0);			/* an interrupt per 8 */
	move(dev, c2h, r, "card to host");

	if (memcmp(fdma_buf_addr(dev, in), fdma_buf_addr(dev, out), (size_t)N * CHUNK) != 0)
		errx(1, "the data read back differs from the data written");
	printf("%d MiB written and read back, identical\n", N * CHUNK >> 20);
	fdma_buf_free(dev, in);
	fdma_buf_free(dev, out);
	fdma_close(dev);
	return 0;
}
