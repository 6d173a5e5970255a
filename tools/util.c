// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

double tool_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double tool_thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double tool_proc_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double tool_machine_busy(void)
{
	unsigned long long v[8] = { 0 };
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return -1;
	/* cpu  user nice system idle iowait irq softirq steal ... */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4 || hz <= 0)
		return -1;
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)hz;
}

int tool_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mult = 1;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': mult = 1ull << 10; end++; break;
	case 'm': case 'M': mult = 1ull << 20; end++; break;
	case 'g': case 'G': mult = 1ull << 30; end++; break;
	default: break;
	}
	if (*end == 'i')
		end++;
	if (*end == 'B')
		end++;
	if (*end || (v && mult > UINT64_MAX / v))
		return -1;
	*out = v * mult;
	return 0;
}

int tool_parse_sizes(const char *s, uint64_t *out, int max)
{
	const char *dots = strstr(s, "..");
	char buf[64];
	int n = 0;

	if (dots) {
		uint64_t lo, hi;
		size_t l = (size_t)(dots - s);

		if (l >= sizeof(buf))
			return -1;
		memcpy(buf, s, l);
		buf[l] = 0;
		if (tool_parse_size(buf, &lo) || tool_parse_size(dots + 2, &hi) || !lo || lo > hi)
			return -1;
		for (uint64_t v = lo; v <= hi && n < max; v *= 2)
			out[n++] = v;
		return n;
	}
	while (*s && n < max) {
		const char *comma = strchr(s, ',');
		size_t l = comma ? (size_t)(comma - s) : strlen(s);

		if (l == 0 || l >= sizeof(buf))
			return -1;
		memcpy(buf, s, l);
		buf[l] = 0;
		if (tool_parse_size(buf, &out[n]) || !out[n])
			return -1;
		n++;
		s += l + (comma ? 1 : 0);
	}
	return n;
}

void tool_fmt_size(uint64_t v, char *buf, size_t len)
{
	if (v >= (1ull << 30) && !(v & ((1ull << 30) - 1)))
		snprintf(buf, len, "%" PRIu64 "G", v >> 30);
	else if (v >= (1ull << 20) && !(v & ((1ull << 20) - 1)))
		snprintf(buf, len, "%" PRIu64 "M", v >> 20);
	else if (v >= 1024 && !(v & 1023))
		snprintf(buf, len, "%" PRIu64 "K", v >> 10);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

int tool_open(const char *uri, struct fdma_dev **dev)
{
	char err[256];
	int ret = fdma_open(dev, uri, err, sizeof(err));

	if (ret)
		fprintf(stderr, "fdma: cannot open '%s': %s\n", uri, err);
	return ret;
}

int tool_is_uri(const char *s)
{
	static const char *const schemes[] = { "sim", "rtl", "kdev" };

	if (!strncmp(s, "/dev/", 5))
		return 1;
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		size_t n = strlen(schemes[i]);

		if (!strncmp(s, schemes[i], n) && (s[n] == 0 || s[n] == ':'))
			return 1;
	}
	return 0;
}

const char *tool_uri(const char *cmd, const char *arg)
{
	static char buf[PATH_MAX + 8];
	const char *s = arg;

	if (!s) {
		s = getenv("FDMA_DEVICE");
		if (!s || !*s) {
			fprintf(stderr, "fdma %s: no device: give a URI (sim:, kdev:/dev/fdma0, ...) "
				"or set FDMA_DEVICE\n", cmd);
			return NULL;
		}
	}
	/* A node, as fdma doctor takes it: /dev/fdma0, or fdma0 alone. */
	if (s[0] == '/')
		snprintf(buf, sizeof(buf), "kdev:%s", s);
	else if (!strncmp(s, "fdma", 4) && isdigit((unsigned char)s[4]) && !strchr(s, ':') &&
		 !strchr(s, '/'))
		snprintf(buf, sizeof(buf), "kdev:/dev/%s", s);
	else
		snprintf(buf, sizeof(buf), "%s", s);
	return buf;
}

int tool_usage_hint(const char *cmd)
{
	fprintf(stderr, "try 'fdma %s --help'\n", cmd);
	return EXIT_USAGE;
}

int tool_realtime(const struct fdma_info *info)
{
	return info->link.paced && strcmp(info->backend, "rtl");
}

int tool_read_line(const char *path, char *buf, size_t len)
{
	FILE *f;

	if (!len)
		return -EINVAL;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int tool_kdev_attr(const char *uri, const char *attr, char *buf, size_t len)
{
	const char *base;
	char path[256];

	if (strncmp(uri, "kdev:", 5))
		return -EINVAL;
	base = strrchr(uri, '/');
	base = base ? base + 1 : uri + 5;
	snprintf(path, sizeof(path), "/sys/class/fdma/%s/%s", base, attr);
	return tool_read_line(path, buf, len);
}

int tool_parse_wait(const char *s, enum fdma_wait_mode *w)
{
	if (!strcmp(s, "spin"))
		*w = FDMA_WAIT_SPIN;
	else if (!strcmp(s, "sleep"))
		*w = FDMA_WAIT_SLEEP;
	else if (!strcmp(s, "adaptive"))
		*w = FDMA_WAIT_ADAPTIVE;
	else
		return -1;
	return 0;
}

int tool_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int tool_stream_chan(const char *cmd, struct fdma_dev *dev, const struct fdma_info *info,
		     const char *uri, int chan, enum fdma_dir dir)
{
	const char *d = dir == FDMA_C2H ? "C2H" : "H2C";

	if (chan < 0) {
		chan = fdma_find_chan(dev, dir, FDMA_KIND_STREAM);
		if (chan < 0)
			fprintf(stderr, "fdma %s: %s has no %s stream channel\n", cmd, uri, d);
		return chan < 0 ? -1 : chan;
	}
	if ((uint32_t)chan >= info->nchan || info->chan[chan].dir != dir ||
	    info->chan[chan].kind != FDMA_KIND_STREAM) {
		fprintf(stderr, "fdma %s: channel %d of %s is not a%s %s stream channel "
			"(fdma info %s lists them)\n", cmd, chan, uri, dir == FDMA_H2C ? "n" : "",
			d, uri);
		return -1;
	}
	return chan;
}

double tool_rate(double amount, double first, uint64_t n, double t_first, double t_last)
{
	if (n >= 2 && t_last > t_first)
		return (amount - first) / (t_last - t_first);
	return -1;
}

const char *tool_fmt_rate(char *buf, size_t len, const char *fmt, double v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, fmt, v);
	return buf;
}

void tool_json_rate(FILE *f, const char *key, const char *fmt, double v)
{
	fprintf(f, ",\"%s\":", key);
	if (v < 0)
		fputs("null", f);
	else
		fprintf(f, fmt, v);
}

/* One byte as JSON string content into e[8]; its length. */
static int json_esc(unsigned char ch, char e[8])
{
	if (ch == '"' || ch == '\\') {
		e[0] = '\\';
		e[1] = (char)ch;
		e[2] = 0;
		return 2;
	}
	if (ch < 0x20 || ch == 0x7f)
		return snprintf(e, 8, "\\u%04x", ch);
	e[0] = (char)ch;
	e[1] = 0;
	return 1;
}

void tool_json_str(FILE *f, const char *s)
{
	char e[8];

	putc('"', f);
	for (; *s; s++) {
		json_esc((unsigned char)*s, e);
		fputs(e, f);
	}
	putc('"', f);
}

char *tool_json_quote(char *buf, size_t len, const char *s)
{
	size_t o = 0;
	char e[8];

	if (len < 3) {
		if (len)
			buf[0] = 0;
		return buf;
	}
	buf[o++] = '"';
	for (; *s; s++) {
		size_t n = (size_t)json_esc((unsigned char)*s, e);

		if (o + n + 2 > len)
			break;
		memcpy(buf + o, e, n);
		o += n;
	}
	/* Cut inside a UTF-8 character (next byte 10xxxxxx): drop its first part too. */
	if (((unsigned char)*s & 0xc0) == 0x80) {
		while (o > 1 && ((unsigned char)buf[o - 1] & 0xc0) == 0x80)
			o--;
		if (o > 1 && (unsigned char)buf[o - 1] >= 0xc0)
			o--;
	}
	buf[o++] = '"';
	buf[o] = 0;
	return buf;
}

void tool_lat_add(struct tool_lat *l, double us)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 4096;
		double *v;

		if (cap > (16u << 20))
			return;		/* plenty for percentiles; keep memory bounded */
		v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = us;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double tool_lat_pct(struct tool_lat *l, double pct)
{
	size_t i;

	if (!l->n)
		return 0;
	qsort(l->v, l->n, sizeof(*l->v), cmp_double);
	i = (size_t)(pct / 100.0 * (double)(l->n - 1) + 0.5);
	return l->v[i < l->n ? i : l->n - 1];
}

void tool_lat_free(struct tool_lat *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/*
 * A block's first word: every bit of the tag mixed in (splitmix64's
 * finalizer, a bijection), so two tags that differ anywhere, a card
 * address's high bits included, never fill alike.
 */
static uint64_t pat_base(uint64_t tag)
{
	uint64_t z = tag + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Words through memcpy: p may be at any byte (a frame in a slot of any size). */
void tool_pat_fill(void *p, size_t len, uint64_t tag)
{
	uint64_t base = pat_base(tag);
	size_t n = len / 8;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = base + i;

		memcpy((char *)p + 8 * i, &v, 8);
	}
	memset((char *)p + n * 8, (int)(base & 0xff), len - n * 8);
}

/* Checking runs at memory speed only with wide vectors: build an AVX2 copy too. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
size_t tool_pat_check(const void *p, size_t len, uint64_t tag)
{
	const char *q = p;
	uint64_t base = pat_base(tag), acc = 0, w;
	size_t n = len / 8, bad = 0;

	/* Fast pass (vectorises); count only when something is off. */
	for (size_t i = 0; i < n; i++) {
		memcpy(&w, q + 8 * i, 8);
		acc |= w ^ (base + i);
	}
	for (size_t i = n * 8; i < len; i++)
		acc |= ((const unsigned char *)p)[i] ^ (base & 0xff);
	if (!acc)
		return 0;
	for (size_t i = 0; i < n; i++) {
		memcpy(&w, q + 8 * i, 8);
		for (int b = 0; b < 8; b++)
			bad += ((w ^ (base + i)) >> (8 * b) & 0xff) != 0;
	}
	for (size_t i = n * 8; i < len; i++)
		bad += ((const unsigned char *)p)[i] != (base & 0xff);
	return bad;
}

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	if (stop_flag) {
		/* Second time: the user means it. */
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	stop_flag = 1;
}

void tool_catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocking read or write returns EINTR and the run ends. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A closed pipe is an error code (EPIPE), not a silent death without a summary. */
	signal(SIGPIPE, SIG_IGN);
}

int tool_stop_requested(void)
{
	return stop_flag;
}

void tool_progress_init(struct tool_progress *p, int enable)
{
	p->on = enable && isatty(STDERR_FILENO);
	p->next = tool_now() + 0.5;
	p->shown = 0;
}

int tool_progress_due(struct tool_progress *p)
{
	double now;

	if (!p->on)
		return 0;
	now = tool_now();
	if (now < p->next)
		return 0;
	p->next = now + 0.5;
	return 1;
}

void tool_progress_show(struct tool_progress *p, const char *fmt, ...)
{
	char line[160];
	va_list ap;

	if (!p->on)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* Carriage return, the line, erase what a longer previous line left. */
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	p->shown = 1;
}

void tool_progress_end(struct tool_progress *p)
{
	if (p->on && p->shown) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
	p->shown = 0;
}

int tool_write_some(int fd, const void *buf, size_t len, size_t *done)
{
	const char *q = buf;

	*done = 0;
	while (len) {
		ssize_t n = write(fd, q, len);

		if (n < 0) {
			/* Once begun, a frame is finished: Ctrl-C is looked at between frames. */
			if (errno == EINTR && (!stop_flag || q != buf))
				continue;
			return -errno;
		}
		q += n;
		len -= (size_t)n;
		*done += (size_t)n;
	}
	return 0;
}

int tool_write_all(int fd, const void *buf, size_t len)
{
	size_t done;

	return tool_write_some(fd, buf, len, &done);
}

long long tool_read_full(int fd, void *buf, size_t len)
{
	char *q = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, q + got, len - got);

		if (n < 0) {
			if (errno == EINTR && (!stop_flag || got))
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (long long)got;
}

int tool_open_out(const char *cmd, const char *path)
{
	int fd;

	if (!strcmp(path, "-"))
		return STDOUT_FILENO;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fprintf(stderr, "fdma %s: cannot write '%s': %s\n", cmd, path, strerror(errno));
	return fd;
}

int tool_open_in(const char *cmd, const char *path)
{
	int fd;

	if (!strcmp(path, "-"))
		return STDIN_FILENO;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "fdma %s: cannot read '%s': %s\n", cmd, path, strerror(errno));
	return fd;
}

int tool_parse_secs(const char *s, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > max)
		return -1;
	*out = v;
	return 0;
}
