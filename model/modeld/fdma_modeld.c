// SPDX-License-Identifier: MIT
/*
 * fdma-modeld: the FDMA device model as "the FPGA" of a QEMU guest.
 *
 * QEMU's ivshmem-doorbell device connects to our UNIX socket; we serve the
 * ivshmem protocol for that one client (ivshmem_srv.c), so that
 *   - BAR2 of the guest's ivshmem device is our 1 MiB memfd, whose first
 *     4 KiB are the model's register file;
 *   - the guest's writes of (1 << 16) | v to its doorbell register (BAR0
 *     offset 12) make our eventfd v readable: we kick model channel v;
 *   - the model's interrupt on vector v is a write to the guest's eventfd v,
 *     which QEMU turns into MSI-X vector v;
 *   - the model's DMA goes straight into guest RAM, QEMU's
 *     memory-backend-file mapped here (guest_mem.c).
 * See docs/vm-harness.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fdma_mdev_opts.h"
#include "fdma_plat.h"
#include "fdma_regs.h"
#include "guest_mem.h"
#include "ivshmem_srv.h"

#define PROG		"fdma-modeld"
#define BAR2_BYTES	(1u << 20)
#define MAX_VECTORS	64u
#define DEFAULT_VECTORS	8u
#define DMA_LOG_MAX	8u

/* epoll tags beyond the vector numbers */
enum { TAG_LISTEN = 1000, TAG_SIGNAL, TAG_CLIENT };

struct modeld {
	/* arguments */
	const char *sock_path;
	const char *mem_path;
	uint64_t mem_size, lowmem;
	uint64_t ram_base;		/* GUEST_MEM_Q35 unless --ram-base */
	unsigned int nvec;
	const char *opts;
	bool foreground;
	/* state */
	struct fdma_mdev_opts so;
	struct guest_mem gm;
	int shm_fd;
	volatile uint32_t *bar2;
	int model_efd[MAX_VECTORS];	/* guest -> model kicks (peer 1's vectors) */
	int guest_efd[MAX_VECTORS];	/* model -> guest interrupts (peer 0's vectors) */
	struct fdma_mdev *mdev;		/* the device, its register file in bar2 */
	int listen_fd, client_fd, sig_fd, ep;
	bool listening, connected;
	/* statistics */
	uint64_t kicks[MAX_VECTORS];
	atomic_uint_fast64_t irqs[MAX_VECTORS];
	atomic_uint_fast64_t irq_dropped;	/* vector >= nvec */
	atomic_uint_fast64_t dma_refused;
};

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs(PROG ": ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --socket PATH --guest-mem FILE [--guest-mem-size BYTES]\n"
		"                   [--lowmem BYTES | --ram-base ADDR] [--vectors N] [--opts OPTIONS]\n"
		"                   [--foreground] [--help]\n"
		"\n"
		"The FDMA device model as an ivshmem peer: \"the FPGA\" behind a QEMU guest's\n"
		"-device ivshmem-doorbell,chardev=...,vectors=N (see docs/vm-harness.md).\n"
		"\n"
		"  --socket PATH          UNIX socket to serve the ivshmem protocol on (one client)\n"
		"  --guest-mem FILE       QEMU's guest RAM (memory-backend-file,share=on,mem-path=FILE);\n"
		"                         created if missing\n"
		"  --guest-mem-size BYTES guest RAM size, K/M/G suffixes (default: the file's size,\n"
		"                         or 256M for a new file); must equal QEMU's -m\n"
		"  --lowmem BYTES         q35: RAM below the 32-bit PCI hole (default: q35's rule)\n"
		"  --ram-base ADDR        RAM is one range from guest physical ADDR instead of\n"
		"                         q35's layout (arm64 virt: 0x40000000)\n"
		"  --vectors N            eventfds per peer, 1..%u (default %u); must not exceed\n"
		"                         QEMU's vectors=, and must cover every channel\n"
		"  --opts OPTIONS         device options, as for the sim: URI, e.g.\n"
		"                         \"gen=2,lanes=1,channels=1,fault=desc@5\" (default paced=0)\n"
		"  --foreground           stay in the foreground (default: detach once listening)\n"
		"  --help                 this text\n"
		"\n"
		"Exit status: 0 after QEMU disconnects or on SIGTERM/SIGINT, 1 on a failure,\n"
		"2 on a usage error.\n",
		MAX_VECTORS, DEFAULT_VECTORS);
}

/* ---- the model's view of the host ------------------------------------------ */

static void *md_dma(void *ctx, uint64_t bus, uint64_t len)
{
	struct modeld *d = ctx;
	void *p = guest_mem_ptr(&d->gm, bus, len);

	if (!p && atomic_fetch_add(&d->dma_refused, 1) < DMA_LOG_MAX)
		msg("DMA to bus 0x%llx..0x%llx refused: not guest RAM (RAM: 0x%llx..0x%llx%s)",
		    (unsigned long long)bus, (unsigned long long)(bus + len),
		    (unsigned long long)d->gm.ram_base,
		    (unsigned long long)(d->gm.ram_base + d->gm.lowmem),
		    d->gm.size > d->gm.lowmem ? " and from 4 GiB" : "");
	return p;
}

static void md_irq(void *ctx, unsigned int vector)
{
	struct modeld *d = ctx;
	uint64_t one = 1;

	if (vector >= d->nvec) {
		if (atomic_fetch_add(&d->irq_dropped, 1) < DMA_LOG_MAX)
			msg("interrupt on vector %u dropped: only %u vectors", vector, d->nvec);
		return;
	}
	atomic_fetch_add(&d->irqs[vector], 1);
	/* Fails only if the counter would overflow: the guest is interrupted anyway. */
	if (write(d->guest_efd[vector], &one, sizeof(one)) < 0) {
	}
}

/* ---- arguments ----------------------------------------------------------------- */

static int parse_args(struct modeld *d, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "guest-mem", required_argument, NULL, 'm' },
		{ "guest-mem-size", required_argument, NULL, 'S' },
		{ "lowmem", required_argument, NULL, 'L' },
		{ "ram-base", required_argument, NULL, 'B' },
		{ "vectors", required_argument, NULL, 'v' },
		{ "opts", required_argument, NULL, 'o' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char why[256], *opts;
	bool given;
	u64 v;
	int c;

	d->nvec = DEFAULT_VECTORS;
	d->ram_base = GUEST_MEM_Q35;
	d->opts = "";
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			d->sock_path = optarg;
			break;
		case 'm':
			d->mem_path = optarg;
			break;
		case 'S':
			if (fdma_parse_size(optarg, &v) || v < (16u << 20) || (v & 4095)) {
				msg("bad --guest-mem-size '%s': expected a multiple of 4K, at least 16M",
				    optarg);
				return 2;
			}
			d->mem_size = v;
			break;
		case 'L':
			if (fdma_parse_size(optarg, &v) || !v || v > GUEST_MEM_4G || (v & 4095)) {
				msg("bad --lowmem '%s': expected a multiple of 4K up to 4G", optarg);
				return 2;
			}
			d->lowmem = v;
			break;
		case 'B':
			if (fdma_parse_size(optarg, &v) || v == GUEST_MEM_Q35 || (v & 4095)) {
				msg("bad --ram-base '%s': expected a 4K-aligned guest physical address, "
				    "e.g. 0x40000000", optarg);
				return 2;
			}
			d->ram_base = v;
			break;
		case 'v':
			if (fdma_parse_size(optarg, &v) || v < 1 || v > MAX_VECTORS) {
				msg("bad --vectors '%s': expected 1..%u", optarg, MAX_VECTORS);
				return 2;
			}
			d->nvec = (unsigned int)v;
			break;
		case 'o':
			d->opts = optarg;
			break;
		case 'f':
			d->foreground = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			msg("option '%s' needs a value", argv[optind - 1]);
			return 2;
		default:
			msg("unknown option '%s' (try --help)", argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		msg("unexpected argument '%s' (try --help)", argv[optind]);
		return 2;
	}
	if (!d->sock_path || !d->mem_path) {
		msg("--socket and --guest-mem are required (try --help)");
		return 2;
	}
	/* TCG speed means nothing: unpaced unless the options say otherwise (paced=1). */
	given = !strncmp(d->opts, "paced=", 6) || strstr(d->opts, ",paced=");
	if (asprintf(&opts, "%s%s%s", given ? "" : "paced=0", !given && *d->opts ? "," : "",
		     d->opts) < 0) {
		msg("out of memory");
		return 1;
	}
	if (fdma_mdev_parse_opts(opts, &d->so, NULL, why, sizeof(why))) {
		msg("bad --opts: %s", why);
		free(opts);
		return 2;
	}
	free(opts);
	{
		unsigned int nchan = d->so.model.mm_pairs * 2 + d->so.model.streams * 2;

		if (nchan > d->nvec) {
			msg("the options give %u channels but only %u vectors: vector v kicks and "
			    "interrupts channel v, so use --vectors %u (and QEMU's vectors=%u)",
			    nchan, d->nvec, nchan, nchan);
			return 2;
		}
	}
	if (d->lowmem && d->ram_base != GUEST_MEM_Q35) {
		msg("--lowmem and --ram-base do not go together: --ram-base makes RAM one range");
		return 2;
	}
	if (d->ram_base != GUEST_MEM_Q35 && d->mem_size > UINT64_MAX - d->ram_base) {
		msg("--ram-base plus --guest-mem-size is past the 64-bit bus");
		return 2;
	}
	if (d->mem_size && d->lowmem > d->mem_size) {
		msg("--lowmem is larger than --guest-mem-size");
		return 2;
	}
	return 0;
}

/* ---- setup ------------------------------------------------------------------------- */

static int setup(struct modeld *d)
{
	struct fdma_model_host host = { .dma = md_dma, .irq = md_irq, .ctx = d };
	struct epoll_event ev = { .events = EPOLLIN };
	const struct fdma_mdev_ops *mops;
	char err[256], why[256] = "";
	sigset_t ss;
	int ret;

	/* First, so a bad socket path costs nothing else; QEMU waits in the backlog. */
	d->listen_fd = ivs_listen(d->sock_path, err, sizeof(err));
	if (d->listen_fd < 0) {
		msg("%s", err);
		return 1;
	}
	d->listening = true;
	if (guest_mem_open(&d->gm, d->mem_path, d->mem_size, d->ram_base, d->lowmem,
			   err, sizeof(err))) {
		msg("%s", err);
		return 1;
	}
	d->shm_fd = memfd_create("fdma-bar2", MFD_CLOEXEC);
	if (d->shm_fd < 0 || ftruncate(d->shm_fd, BAR2_BYTES) < 0) {
		msg("cannot create the shared memory (memfd): %s", strerror(errno));
		return 1;
	}
	d->bar2 = mmap(NULL, BAR2_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, d->shm_fd, 0);
	if (d->bar2 == MAP_FAILED) {
		d->bar2 = NULL;
		msg("cannot map the shared memory: %s", strerror(errno));
		return 1;
	}
	for (unsigned int v = 0; v < d->nvec; v++) {
		d->model_efd[v] = eventfd(0, EFD_CLOEXEC);
		d->guest_efd[v] = eventfd(0, EFD_CLOEXEC);
		if (d->model_efd[v] < 0 || d->guest_efd[v] < 0) {
			msg("eventfd: %s", strerror(errno));
			return 1;
		}
	}
	/*
	 * The register file is live (ID, CAPS) before QEMU can map it. Only a
	 * device whose register file is memory can be served so: the FDMA
	 * model (the XDMA model and the RTL trap theirs: fdma-proxyd).
	 */
	mops = d->so.dev;
	if (!mops->regs) {
		msg("the %s has no register file in memory to share through ivshmem: use fdma-proxyd",
		    mops->name);
		return 1;
	}
	ret = fdma_mdev_create(mops, &d->so.model, &host, d->bar2, &d->mdev, why, sizeof(why));
	if (ret) {
		d->mdev = NULL;
		msg("%s", why);
		return 1;
	}

	/* main() blocked these in every thread: they arrive here only. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	d->sig_fd = signalfd(-1, &ss, SFD_CLOEXEC);
	if (d->sig_fd < 0) {
		msg("signalfd: %s", strerror(errno));
		return 1;
	}
	d->ep = epoll_create1(EPOLL_CLOEXEC);
	if (d->ep < 0) {
		msg("epoll: %s", strerror(errno));
		return 1;
	}
	ev.data.u32 = TAG_LISTEN;
	epoll_ctl(d->ep, EPOLL_CTL_ADD, d->listen_fd, &ev);
	ev.data.u32 = TAG_SIGNAL;
	epoll_ctl(d->ep, EPOLL_CTL_ADD, d->sig_fd, &ev);
	return 0;
}

/* A client connected: hand it the memory and the eventfds, then watch it. */
static int serve_client(struct modeld *d, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP };
	char err[256];

	if (ivs_handshake(fd, d->shm_fd, d->model_efd, d->guest_efd, d->nvec, err, sizeof(err))) {
		msg("ivshmem setup with the client failed: %s", err);
		return 1;
	}
	d->client_fd = fd;
	d->connected = true;
	ev.data.u32 = TAG_CLIENT;
	epoll_ctl(d->ep, EPOLL_CTL_ADD, fd, &ev);
	for (unsigned int v = 0; v < d->nvec; v++) {
		ev.events = EPOLLIN;
		ev.data.u32 = v;
		epoll_ctl(d->ep, EPOLL_CTL_ADD, d->model_efd[v], &ev);
	}
	msg("client connected: guest is peer %d, model is peer %d, %u vectors",
	    IVS_GUEST_ID, IVS_MODEL_ID, d->nvec);
	return 0;
}

/* The event loop; returns the exit status. */
static int run(struct modeld *d)
{
	for (;;) {
		struct epoll_event evs[16];
		int n = epoll_wait(d->ep, evs, 16, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			msg("epoll_wait: %s", strerror(errno));
			return 1;
		}
		for (int i = 0; i < n; i++) {
			uint32_t tag = evs[i].data.u32;

			if (tag < d->nvec) {
				uint64_t cnt;

				if (read(d->model_efd[tag], &cnt, sizeof(cnt)) == sizeof(cnt)) {
					d->kicks[tag] += cnt;
					fdma_mdev_kick(d->mdev, tag);
				}
			} else if (tag == TAG_SIGNAL) {
				struct signalfd_siginfo si;

				if (read(d->sig_fd, &si, sizeof(si)) == sizeof(si)) {
					msg("%s: shutting down", strsignal((int)si.ssi_signo));
					return 0;
				}
			} else if (tag == TAG_LISTEN) {
				int fd = accept4(d->listen_fd, NULL, NULL, SOCK_CLOEXEC);

				if (fd < 0)
					continue;
				if (d->connected) {
					msg("refusing a second client: one QEMU per model");
					close(fd);
					continue;
				}
				if (serve_client(d, fd)) {
					close(fd);
					return 1;
				}
			} else if (tag == TAG_CLIENT) {
				char buf[64];
				ssize_t r = recv(d->client_fd, buf, sizeof(buf), MSG_DONTWAIT);

				/* Clients send nothing; EOF or an error means QEMU is gone. */
				if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR) ||
				    (evs[i].events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR))) {
					msg("client disconnected: shutting down");
					return 0;
				}
			}
		}
	}
}

static void print_stats(struct modeld *d)
{
	char line[1024];
	size_t off = 0;

	off += (size_t)snprintf(line + off, sizeof(line) - off, "kicks");
	for (unsigned int v = 0; v < d->nvec && off < sizeof(line); v++)
		off += (size_t)snprintf(line + off, sizeof(line) - off, " %llu",
					(unsigned long long)d->kicks[v]);
	if (off < sizeof(line))
		off += (size_t)snprintf(line + off, sizeof(line) - off, ", irqs");
	for (unsigned int v = 0; v < d->nvec && off < sizeof(line); v++)
		off += (size_t)snprintf(line + off, sizeof(line) - off, " %llu",
					(unsigned long long)atomic_load(&d->irqs[v]));
	if (off < sizeof(line))
		snprintf(line + off, sizeof(line) - off, " (per vector), DMA refused %llu",
			 (unsigned long long)atomic_load(&d->dma_refused));
	msg("%s", line);
}

static void teardown(struct modeld *d)
{
	if (d->mdev)
		fdma_mdev_destroy(d->mdev);	/* no more DMA or interrupts */
	if (d->connected)
		close(d->client_fd);
	if (d->listening) {
		close(d->listen_fd);
		unlink(d->sock_path);
	}
	for (unsigned int v = 0; v < d->nvec; v++) {
		if (d->model_efd[v] >= 0)
			close(d->model_efd[v]);
		if (d->guest_efd[v] >= 0)
			close(d->guest_efd[v]);
	}
	if (d->bar2)
		munmap((void *)d->bar2, BAR2_BYTES);
	if (d->shm_fd >= 0)
		close(d->shm_fd);
	if (d->sig_fd >= 0)
		close(d->sig_fd);
	if (d->ep >= 0)
		close(d->ep);
	guest_mem_close(&d->gm);
}

/*
 * Detach: the parent returns once the child listens (or failed), so a
 * script can start QEMU as soon as we return. Must happen before any thread
 * exists: the model's threads would not survive fork().
 */
static int detach(int *ready_fd)
{
	int p[2];
	pid_t pid;
	char st = 1;

	if (pipe2(p, O_CLOEXEC) < 0) {
		msg("pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		msg("fork: %s", strerror(errno));
		return -1;
	}
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &st, 1) != 1)
			st = 1;
		if (!st)
			printf("%d\n", (int)pid);
		exit(st);
	}
	close(p[0]);
	setsid();
	*ready_fd = p[1];
	return 0;
}

int main(int argc, char **argv)
{
	struct modeld d;
	int ready_fd = -1, ret;
	sigset_t ss;

	memset(&d, 0, sizeof(d));
	d.shm_fd = d.sig_fd = d.ep = d.client_fd = d.listen_fd = -1;
	d.gm.fd = -1;
	for (unsigned int v = 0; v < MAX_VECTORS; v++)
		d.model_efd[v] = d.guest_efd[v] = -1;
	ret = parse_args(&d, argc, argv);
	if (ret)
		return ret;
	if (!d.foreground && detach(&ready_fd))
		return 1;
	/*
	 * Block the shutdown signals before the model starts its threads, so
	 * every thread inherits the mask and they reach only our signalfd.
	 */
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);

	ret = setup(&d);
	if (!ret) {
		unsigned int nchan = FDMA_CAPS_NCHAN(d.bar2[FDMA_REG_CAPS / 4]);

		msg("listening on %s: %u channels, %u vectors, guest RAM %s (%llu MiB at 0x%llx%s), %s",
		    d.sock_path, nchan, d.nvec, d.mem_path,
		    (unsigned long long)(d.gm.size >> 20), (unsigned long long)d.gm.ram_base,
		    d.gm.size > d.gm.lowmem ? " and 4 GiB" : "",
		    d.so.model.paced ? "paced" : "unpaced");
		if (ready_fd >= 0) {
			char st = 0;
			int nul = open("/dev/null", O_RDWR);

			if (nul >= 0) {
				dup2(nul, STDIN_FILENO);
				dup2(nul, STDOUT_FILENO);
				close(nul);
			}
			if (write(ready_fd, &st, 1) < 0) {
			}
			close(ready_fd);
			ready_fd = -1;
		}
		ret = run(&d);
		print_stats(&d);
	}
	teardown(&d);
	if (ready_fd >= 0)
		close(ready_fd);	/* the parent reads EOF: failure */
	return ret;
}
