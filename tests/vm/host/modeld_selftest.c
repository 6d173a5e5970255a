// SPDX-License-Identifier: MIT
/*
 * fdma-modeld without QEMU: this program plays QEMU's part (an ivshmem
 * client) and the guest's (the engine core over the shared register file),
 * so the model daemon's own plumbing is checked on any host:
 *   - the ivshmem setup messages, in order, with the right fds;
 *   - BAR2 (the shared memory) holds the register file;
 *   - a kick (write to the model's eventfd v) reaches channel v;
 *   - DMA lands in the guest RAM file at the bus address = file offset
 *     (q35's layout), or at bus address - base with --ram-base (arm64
 *     virt's RAM at 0x40000000);
 *   - an interrupt is a write to the guest's eventfd v (CH_IRQ_VEC = v);
 *   - a bus address outside guest RAM completes with ADDR_ERR;
 *   - fdma-modeld exits 0 when the client disconnects, 2 on bad arguments.
 * Usage: modeld_selftest PATH-TO-fdma-modeld. Exit 0 if all passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fdma_engine.h"

#define NVEC		4u
#define RAM_BYTES	(32u << 20)
#define XFER		(64u << 10)
#define RING		8u
#define VIRT_RAM_BASE	0x40000000ull	/* arm64 virt */

static int fails;
static int model_efd[NVEC], guest_efd[NVEC];

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			printf("modeld_selftest: FAIL: " __VA_ARGS__);     \
			printf("\n");                                      \
			fails++;                                           \
			goto out;                                          \
		}                                                          \
	} while (0)

static void kick(void *ctx, unsigned int ch)
{
	uint64_t one = 1;

	(void)ctx;
	if (ch < NVEC && write(model_efd[ch], &one, sizeof(one)) < 0)
		perror("kick");
}

/* One protocol message: its value, and its fd (or -1). 0, or -1 at EOF. */
static int recv_msg(int s, int64_t *val, int *fd)
{
	uint64_t le;
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c;

	*fd = -1;
	if (recvmsg(s, &m, MSG_WAITALL) != sizeof(le))
		return -1;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	*val = (int64_t)le;	/* x86 and arm64 hosts are little-endian */
	return 0;
}

static pid_t spawn(const char *modeld, char *const extra[], int nextra)
{
	char *argv[24];
	int n = 0;
	pid_t pid;

	argv[n++] = (char *)modeld;
	for (int i = 0; i < nextra; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		execv(modeld, argv);
		_exit(127);
	}
	return pid;
}

static int wait_exit(pid_t pid, int secs)
{
	int st;

	for (int i = 0; i < secs * 100; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

/* Wait for an interrupt on the guest's vector v. */
static int wait_irq(unsigned int v)
{
	struct pollfd p = { .fd = guest_efd[v], .events = POLLIN };
	uint64_t n;

	if (poll(&p, 1, 2000) != 1 || read(guest_efd[v], &n, sizeof(n)) != sizeof(n))
		return -1;
	return 0;
}

static int xfer(struct fdma_ering *r, uint64_t host, uint64_t card, uint32_t len,
		struct fdma_ecpl *c)
{
	struct fdma_ereq q = { .host = host, .card = card, .len = len, .cookie = 77 + r->ch };

	if (fdma_ering_post(r, &q))
		return -1;
	fdma_ering_doorbell(r);
	if (wait_irq(r->ch))
		return -2;
	return fdma_ering_reap(r, c, 1) == 1 && c->cookie == q.cookie ? 0 : -3;
}

/* Usage error: fdma-modeld with these arguments must exit 2. */
static void expect_usage_error(const char *modeld, char *const args[], int nargs, const char *what)
{
	pid_t pid = spawn(modeld, args, nargs);
	int rc = wait_exit(pid, 5);

	CHECK(rc == 2, "%s: exit status %d, expected 2", what, rc);
out:
	return;
}

/*
 * One daemon, this program as its client: the protocol, a transfer each way
 * and the refused addresses. ram_base UINT64_MAX: q35's layout (no
 * --ram-base), else --ram-base ram_base.
 */
static void session(const char *modeld, const char *sock, const char *ram, uint64_t ram_base)
{
	struct fdma_plat plat = { .kick = kick };
	struct fdma_eng_caps caps = { 0 };
	struct fdma_ering h2c, c2h;
	struct fdma_eslot slots[2][RING];
	struct fdma_ecpl cpl;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const bool q35 = ram_base == UINT64_MAX;
	const uint64_t b = q35 ? 0 : ram_base;	/* bus address of file offset 0 */
	const char *layout = q35 ? "q35 layout" : "--ram-base";
	uint8_t *gram = MAP_FAILED;
	void *bar2 = MAP_FAILED;
	int s = -1, shm = -1, rc, ramfd = -1;
	pid_t pid = -1;
	int64_t val;
	int fd;
	char base[32];

	for (unsigned int v = 0; v < NVEC; v++)
		model_efd[v] = guest_efd[v] = -1;
	snprintf(base, sizeof(base), "0x%llx", (unsigned long long)b);
	{
		char *args[] = { "--socket", (char *)sock, "--guest-mem", (char *)ram,
				 "--guest-mem-size", "32M", "--vectors", "4",
				 "--opts", "channels=1,streams=0", "--foreground",
				 "--ram-base", base };

		pid = spawn(modeld, args, q35 ? 11 : 13);
	}
	memcpy(sa.sun_path, sock, strlen(sock) + 1);
	for (int i = 0; i < 500; i++) {
		s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (!connect(s, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		close(s);
		s = -1;
		usleep(10000);
	}
	CHECK(s >= 0, "cannot connect to %s", sock);

	/* The setup messages, in the order QEMU 7.2 was seen to accept. */
	CHECK(!recv_msg(s, &val, &fd) && val == 0 && fd < 0, "message 1: not version 0");
	CHECK(!recv_msg(s, &val, &fd) && val == 0 && fd < 0, "message 2: not our id 0");
	CHECK(!recv_msg(s, &val, &shm) && val == -1 && shm >= 0, "message 3: not -1 with the shm fd");
	for (unsigned int v = 0; v < NVEC; v++)
		CHECK(!recv_msg(s, &val, &model_efd[v]) && val == 1 && model_efd[v] >= 0,
		      "model vector %u: not peer 1 with an eventfd", v);
	for (unsigned int v = 0; v < NVEC; v++)
		CHECK(!recv_msg(s, &val, &guest_efd[v]) && val == 0 && guest_efd[v] >= 0,
		      "guest vector %u: not peer 0 with an eventfd", v);
	printf("modeld_selftest: protocol: version 0, id 0, shm, %u x peer 1, %u x peer 0\n",
	       NVEC, NVEC);

	bar2 = mmap(NULL, 1u << 20, PROT_READ | PROT_WRITE, MAP_SHARED, shm, 0);
	CHECK(bar2 != MAP_FAILED, "cannot map the shm: %s", strerror(errno));
	ramfd = open(ram, O_RDWR);
	CHECK(ramfd >= 0, "no guest RAM file %s", ram);
	gram = mmap(NULL, RAM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, ramfd, 0);
	CHECK(gram != MAP_FAILED, "cannot map the guest RAM file: %s", strerror(errno));

	plat.regs = bar2;
	CHECK(!(rc = fdma_eng_probe(&fdma_eng_fdma, &plat, &caps)), "probe: %d", rc);
	CHECK(caps.nchan == 2, "%u channels, expected 2 (channels=1,streams=0)", caps.nchan);
	CHECK(!(rc = fdma_eng_reset(&plat, &caps, 2000000)), "engine reset (kick on vector 0): %d", rc);
	fdma_eng_enable(&plat, &caps, true);

	/* Guest "physical" layout: rings at 1M and 1M+64K, data at 2M and 3M. */
	CHECK(!fdma_ering_init(&h2c, &plat, &caps, 0, RING,
			       (void *)(gram + 0x100000), b + 0x100000,
			       (void *)(gram + 0x101000), b + 0x101000,
			       (void *)(gram + 0x102000), b + 0x102000, slots[0]) &&
	      !fdma_ering_init(&c2h, &plat, &caps, 1, RING,
			       (void *)(gram + 0x110000), b + 0x110000,
			       (void *)(gram + 0x111000), b + 0x111000,
			       (void *)(gram + 0x112000), b + 0x112000, slots[1]),
	      "ring init");
	fdma_ering_start(&h2c, FDMA_CH_CTRL_IRQ_EN, 0);
	fdma_ering_start(&c2h, FDMA_CH_CTRL_IRQ_EN, 1);
	for (uint32_t i = 0; i < XFER / 4; i++)
		((uint32_t *)(gram + 0x200000))[i] = i * 2654435761u;
	memset(gram + 0x300000, 0, XFER);

	CHECK(!(rc = xfer(&h2c, b + 0x200000, 0, XFER, &cpl)) && cpl.status == FDMA_CPL_OK &&
	      cpl.len == XFER, "%s: H2C 64K with an interrupt on vector 0: %d, status %u",
	      layout, rc, cpl.status);
	CHECK(!(rc = xfer(&c2h, b + 0x300000, 0, XFER, &cpl)) && cpl.status == FDMA_CPL_OK &&
	      cpl.len == XFER, "%s: C2H 64K with an interrupt on vector 1: %d, status %u",
	      layout, rc, cpl.status);
	CHECK(!memcmp(gram + 0x200000, gram + 0x300000, XFER),
	      "%s: C2H data differ from H2C data (or landed elsewhere in the RAM file)", layout);
	printf("modeld_selftest: %s: 64 KiB H2C and C2H at bus 0x%llx and 0x%llx through the "
	       "guest RAM file, interrupts on vectors 0 and 1\n", layout,
	       (unsigned long long)(b + 0x200000), (unsigned long long)(b + 0x300000));
	CHECK(!(rc = xfer(&c2h, b + RAM_BYTES, 0, 4096, &cpl)) && cpl.status == FDMA_CPL_ADDR_ERR,
	      "%s: C2H past guest RAM: %d, status %u, expected ADDR_ERR", layout, rc, cpl.status);
	if (!q35) {
		/*
		 * Below the base (file offset 0x200000 in q35's layout), on the
		 * H2C channel: the C2H one stopped at its error.
		 */
		CHECK(!(rc = xfer(&h2c, 0x200000, 0, 4096, &cpl)) &&
		      cpl.status == FDMA_CPL_ADDR_ERR,
		      "%s: H2C from below the RAM base: %d, status %u, expected ADDR_ERR",
		      layout, rc, cpl.status);
	}
	printf("modeld_selftest: %s: bus addresses outside guest RAM: ADDR_ERR\n", layout);

	/* QEMU going away ends the model, with status 0. */
	close(s);
	s = -1;
	rc = wait_exit(pid, 5);
	pid = -1;
	CHECK(rc == 0, "fdma-modeld exit status %d after the client disconnected, expected 0", rc);
	CHECK(access(sock, F_OK) != 0, "fdma-modeld left its socket behind");
out:
	if (s >= 0)
		close(s);
	if (pid > 0) {
		kill(pid, SIGTERM);
		wait_exit(pid, 5);
	}
	if (gram != MAP_FAILED)
		munmap(gram, RAM_BYTES);
	if (bar2 != MAP_FAILED)
		munmap(bar2, 1u << 20);
	if (ramfd >= 0)
		close(ramfd);
	if (shm >= 0)
		close(shm);
	for (unsigned int v = 0; v < NVEC; v++) {
		if (model_efd[v] >= 0)
			close(model_efd[v]);
		if (guest_efd[v] >= 0)
			close(guest_efd[v]);
	}
	unlink(ram);
	unlink(sock);
}

int main(int argc, char **argv)
{
	char dir[] = "/dev/shm/fdma-selftest.XXXXXX", sock[128], ram[128];

	if (argc != 2) {
		fprintf(stderr, "usage: modeld_selftest PATH-TO-fdma-modeld\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(sock, sizeof(sock), "%s/sock", dir);
	snprintf(ram, sizeof(ram), "%s/ram", dir);

	/* Usage errors exit 2. */
	{
		char *bad_opts[] = { "--socket", sock, "--guest-mem", ram, "--opts", "gen=9" };
		char *bad_base[] = { "--socket", sock, "--guest-mem", ram, "--ram-base", "0x40000123" };
		char *both[] = { "--socket", sock, "--guest-mem", ram, "--ram-base", "0x40000000",
				 "--lowmem", "16M" };

		expect_usage_error(argv[1], bad_opts, 6, "bad --opts");
		expect_usage_error(argv[1], bad_base, 6, "unaligned --ram-base");
		expect_usage_error(argv[1], both, 8, "--ram-base with --lowmem");
	}
	session(argv[1], sock, ram, UINT64_MAX);
	session(argv[1], sock, ram, VIRT_RAM_BASE);
	rmdir(dir);
	printf("modeld_selftest: %s\n", fails ? "FAILED" : "passed");
	return fails ? 1 : 0;
}
