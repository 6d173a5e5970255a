// SPDX-License-Identifier: MIT
/*
 * plot.c - the SVG writer behind every fdma figure (plot.h says why one
 * of our own). libc and libm only: the unit test links this file alone.
 *
 * Layout, top to bottom: the title, the panels (the first taller, each
 * with its y axis on the left, vertical grid lines shared), the x axis's
 * tick labels and label under the last panel, the legend, the notes.
 * Figures appended (plot_append()) follow, each laid out as if alone.
 * Sizes of text are estimated (0.6 em a character, a little over what
 * DejaVu Sans and Helvetica need), so that labels are spaced, cut or
 * wrapped before they could overlap.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"

#define FIG_W		760.0
#define FS		12.0		/* font size of labels */
#define FS_TITLE	15.0
#define FS_NOTE		11.0
#define CHAR_EM		0.6		/* estimated width of a character, in ems */
#define VMAX		1e300		/* larger values are not drawn: ranges stay finite */
#define NCOLORS		8
#define NSHAPES		4
#define MAX_LEGEND	32		/* series named in the legend */
/* Series i's marker: the shapes cycle against the colours, so that 16 series differ. */
#define MARKER(i)	(((i) + (i) / NCOLORS) % NSHAPES)

/* Okabe and Ito's palette (told apart with colour blindness too), and black. */
static const char *const colors[NCOLORS] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#882255",
};

struct pt {
	double x, y;
};

struct series {
	char *name;
	int panel;
	unsigned int flags;
	struct pt *pt;
	size_t n, cap;
	/*
	 * Its colour and marker: series of one name and flags share them and
	 * one legend entry (the same group in two panels); own: the first.
	 */
	size_t style;
	int own;
};

struct axis {
	char *label;
	enum plot_unit unit;
	enum plot_scale scale;
	/* Computed by plot_write(), in the axis's space (log2/log10 of the value on a log axis). */
	double lo, hi, step;
	int used;
};

struct plot {
	char *title;
	char **notes;
	size_t nnotes;
	struct axis x, y[PLOT_MAX_PANELS];
	struct series *s;
	size_t ns;
	int oom;
	size_t skip_nan, skip_log;
	struct plot *next;		/* the figure drawn under this one */
	int appended;			/* under another: its head writes and frees it */
};

/* ---- small helpers ------------------------------------------------------------------- */

static char *dup_str(struct plot *p, const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		p->oom = 1;
	return d;
}

/* A number as snprintf writes it, with '.' whatever LC_NUMERIC says (no grouping is asked). */
static void fmt_c(char *buf, size_t len, const char *fmt, int prec, double v)
{
	const char *dp = localeconv()->decimal_point;

	snprintf(buf, len, fmt, prec, v);
	if (dp && strcmp(dp, ".")) {
		char *q = strstr(buf, dp);

		if (q) {
			size_t dl = strlen(dp);

			*q = '.';
			memmove(q + 1, q + dl, strlen(q + dl) + 1);
		}
	}
}

/* v with the fewest decimals (up to maxd) that show it exactly, trailing zeros dropped. */
static void fmt_exact(char *buf, size_t len, double v, int maxd)
{
	int d = 0;

	for (; d < maxd; d++) {
		double s = v * pow(10, d);

		if (fabs(s - nearbyint(s)) <= 1e-7 * fmax(1, fabs(s)))
			break;
	}
	fmt_c(buf, len, "%.*f", d, v);
	if (!strcmp(buf, "-0"))
		strcpy(buf, "0");
}

static double ax_fwd(const struct axis *a, double v)
{
	return a->scale == PLOT_LOG2 ? log2(v) : a->scale == PLOT_LOG10 ? log10(v) : v;
}

static double ax_inv(const struct axis *a, double t)
{
	return a->scale == PLOT_LOG2 ? exp2(t) : a->scale == PLOT_LOG10 ? pow(10, t) : t;
}

/* 0: drawn; 1: not a finite number (or beyond VMAX); 2: not positive on a log axis. */
static int why_not(const struct axis *a, double v)
{
	if (!isfinite(v) || fabs(v) > VMAX)
		return 1;
	if (a->scale != PLOT_LINEAR && !(v > 0))
		return 2;
	return 0;
}

/* Characters (not bytes) of UTF-8 text. */
static size_t nchars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static double text_w(const char *s, double fs)
{
	return (double)nchars(s) * fs * CHAR_EM;
}

/* Length of the valid UTF-8 character at s (not U+FFFE/U+FFFF: not XML), or 0. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
		    (c == 0xef && s[1] == 0xbf && s[2] >= 0xbe))
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
			return 0;
		return 4;
	}
	return 0;
}

/*
 * Text as XML character data or an attribute value: markup characters
 * escaped, control characters as spaces, bytes that are not UTF-8 as
 * U+FFFD, so that any input gives a well-formed file.
 */
static void put_text(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		size_t l = utf8_len(u);

		switch (*u) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if (!l) {
				fputs("\xef\xbf\xbd", f);
				l = 1;
			} else if (*u < 0x20) {
				fputc(' ', f);
			} else {
				fwrite(u, 1, l, f);
			}
			u += l;
			continue;
		}
		u++;
	}
}

/* s cut to at most max characters, the last of them an ellipsis; malloc'd (NULL: no memory). */
static char *cut_text(const char *s, size_t max)
{
	size_t n = 0, i = 0;
	char *d;

	if (nchars(s) <= max || max < 2)
		return strdup(s);
	for (; s[i] && n < max - 1; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	while (s[i] && ((unsigned char)s[i] & 0xc0) == 0x80)
		i++;
	d = malloc(i + 4);
	if (d) {
		memcpy(d, s, i);
		memcpy(d + i, "\xe2\x80\xa6", 4);
	}
	return d;
}

/* A coordinate: two decimals at most, never NaN (the ranges keep them finite; clamped if not). */
static void put_num(FILE *f, double v)
{
	char b[48];

	if (!isfinite(v))
		v = 0;
	if (v > 1e6)
		v = 1e6;
	if (v < -1e6)
		v = -1e6;
	fmt_exact(b, sizeof(b), v, 2);
	fputs(b, f);
}

/* ---- building a figure ------------------------------------------------------------------ */

struct plot *plot_new(void)
{
	struct plot *p = calloc(1, sizeof(*p));

	return p;
}

static void free_one(struct plot *p)
{
	free(p->title);
	for (size_t i = 0; i < p->nnotes; i++)
		free(p->notes[i]);
	free(p->notes);
	free(p->x.label);
	for (int i = 0; i < PLOT_MAX_PANELS; i++)
		free(p->y[i].label);
	for (size_t i = 0; i < p->ns; i++) {
		free(p->s[i].name);
		free(p->s[i].pt);
	}
	free(p->s);
	free(p);
}

void plot_free(struct plot *p)
{
	while (p) {
		struct plot *next = p->next;

		free_one(p);
		p = next;
	}
}

int plot_append(struct plot *p, struct plot *below)
{
	if (!p || !below || below->appended)
		return -1;
	/* below heads its chain: p in it would make a loop (p == below too). */
	for (const struct plot *q = below; q; q = q->next)
		if (q == p)
			return -1;
	while (p->next)
		p = p->next;
	p->next = below;
	below->appended = 1;
	return 0;
}

void plot_title(struct plot *p, const char *title)
{
	free(p->title);
	p->title = dup_str(p, title);
}

void plot_note(struct plot *p, const char *fmt, ...)
{
	char **n = realloc(p->notes, (p->nnotes + 1) * sizeof(*n));
	va_list ap;
	int len;

	if (!n) {
		p->oom = 1;
		return;
	}
	p->notes = n;
	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	n[p->nnotes] = len >= 0 ? malloc((size_t)len + 1) : NULL;
	if (!n[p->nnotes]) {
		p->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(n[p->nnotes], (size_t)len + 1, fmt, ap);
	va_end(ap);
	p->nnotes++;
}

void plot_xaxis(struct plot *p, const char *label, enum plot_unit unit, enum plot_scale scale)
{
	free(p->x.label);
	p->x.label = dup_str(p, label);
	p->x.unit = unit;
	/* Log10 is for y: an x axis of sizes doubles. */
	p->x.scale = scale == PLOT_LOG10 ? PLOT_LOG2 : scale;
}

void plot_yaxis(struct plot *p, int panel, const char *label, enum plot_unit unit,
		enum plot_scale scale)
{
	struct axis *a;

	if (panel < 0 || panel >= PLOT_MAX_PANELS)
		return;
	a = &p->y[panel];
	free(a->label);
	a->label = dup_str(p, label);
	a->unit = unit;
	a->scale = scale == PLOT_LOG2 ? PLOT_LOG10 : scale;
}

int plot_series(struct plot *p, int panel, const char *name, unsigned int flags)
{
	struct series *s;

	if (panel < 0 || panel >= PLOT_MAX_PANELS)
		return -1;
	s = realloc(p->s, (p->ns + 1) * sizeof(*s));
	if (!s) {
		p->oom = 1;
		return -1;
	}
	p->s = s;
	s = &p->s[p->ns];
	memset(s, 0, sizeof(*s));
	s->name = dup_str(p, name);
	s->panel = panel;
	s->flags = flags;
	return (int)p->ns++;
}

int plot_point(struct plot *p, int series, double x, double y)
{
	struct series *s;

	if (series < 0 || (size_t)series >= p->ns)
		return -1;
	s = &p->s[series];
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct pt *n = realloc(s->pt, cap * sizeof(*n));

		if (!n) {
			p->oom = 1;
			return -1;
		}
		s->pt = n;
		s->cap = cap;
	}
	s->pt[s->n++] = (struct pt){ x, y };
	return 0;
}

size_t plot_skipped(const struct plot *p)
{
	size_t n = 0;

	for (; p; p = p->next)
		n += p->skip_nan + p->skip_log;
	return n;
}

/* ---- value formatting ------------------------------------------------------------------- */

static void fmt_bytes(char *buf, size_t len, double v)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double a = fabs(v);
	int u = 5;

	/* The largest unit the value is a whole number of, to two decimals: 1500 B, 1.5 KiB. */
	for (; u > 0; u--) {
		double s = a / exp2(10.0 * u) * 100;

		if (a >= exp2(10.0 * u) && fabs(s - nearbyint(s)) <= 1e-9 * s)
			break;
	}
	fmt_exact(buf, len - 5, v / exp2(10.0 * u), 2);
	strcat(buf, " ");
	strcat(buf, units[u]);
}

/* Tick labels and values: 20k, 1.5M; 4 KiB; 90 s, 5 min, 2 h (unit by the step on the axis). */
static void fmt_val(char *buf, size_t len, double v, enum plot_unit unit, double step)
{
	double a = fabs(v);

	if (unit == PLOT_BYTES) {
		fmt_bytes(buf, len, v);
	} else if (unit == PLOT_SECONDS) {
		double div = step >= 3600 ? 3600 : step >= 60 ? 60 : 1;

		fmt_exact(buf, len - 5, v / div, 3);
		strcat(buf, div == 3600 ? " h" : div == 60 ? " min" : " s");
	} else if (a >= 1e4 && a < 1e15) {
		double div = a >= 1e12 ? 1e12 : a >= 1e9 ? 1e9 : a >= 1e6 ? 1e6 : 1e3;

		fmt_exact(buf, len - 2, v / div, 3);
		strcat(buf, div == 1e12 ? "T" : div == 1e9 ? "G" : div == 1e6 ? "M" : "k");
	} else if (a >= 1e15 || (a > 0 && a < 1e-4)) {
		fmt_c(buf, len, "%.*g", 4, v);
	} else {
		fmt_exact(buf, len, v, 4);
	}
}

void plot_fmt(char *buf, size_t len, double v, enum plot_unit unit)
{
	if (!isfinite(v))
		snprintf(buf, len, "%s", isnan(v) ? "NaN" : v > 0 ? "inf" : "-inf");
	else if (unit == PLOT_PLAIN && v == nearbyint(v) && fabs(v) < 1e15)
		fmt_c(buf, len, "%.*f", 0, v);		/* 1048576, not 1.04858e+06 */
	else if (unit == PLOT_PLAIN)
		fmt_c(buf, len, "%.*g", 6, v);
	else
		fmt_val(buf, len, v, unit, 1);
}

/* ---- axes ---------------------------------------------------------------------------------- */

/* 1, 2 or 5 times a power of ten, at least raw. */
static double nice_step(double raw)
{
	double e = pow(10, floor(log10(raw))), f = raw / e;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * e;
}

static double step_for(const struct axis *a, double raw, int whole)
{
	static const double secs[] = { 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600,
				       7200, 10800, 21600, 43200, 86400 };
	double s;

	if (!(raw > 0))
		raw = 1;
	if (a->unit == PLOT_BYTES && raw >= 1)
		return exp2(ceil(log2(raw)));
	if (a->unit == PLOT_SECONDS && raw >= 1) {
		for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
			if (secs[i] >= raw)
				return secs[i];
		return 86400 * nice_step(raw / 86400);
	}
	s = nice_step(raw);
	/* Counts (runs, threads) have no ticks between whole numbers. */
	return whole && s < 1 ? 1 : s;
}

/*
 * An axis's range from its data (in the axis's space), ticks that fit
 * nticks: a linear y starts at 0 (a rate's zero is what shows its size);
 * a linear x spans its data; a log axis is widened to whole steps (1-2-5
 * for log10).
 */
static void axis_range(struct axis *a, double lo, double hi, int is_y, int whole, int nticks)
{
	if (lo > hi) {			/* nothing drawn: 0 to 1, or 1 to 2 on a log axis */
		lo = 0;
		hi = a->scale == PLOT_LOG10 ? 0.3 : 1;
	}
	if (a->scale == PLOT_LOG2) {
		a->lo = floor(lo);
		a->hi = ceil(hi);
		if (a->hi - a->lo < 1) {
			a->lo -= 1;
			a->hi += 1;
		}
		a->step = 1;
		return;
	}
	if (a->scale == PLOT_LOG10) {
		static const double m[] = { 1, 2, 5, 10 };
		double e = floor(lo), et = floor(hi);
		int i;

		for (i = 2; i > 0 && log10(m[i]) + e > lo + 1e-12; i--)
			;
		a->lo = e + log10(m[i]);
		for (i = 0; i < 3 && log10(m[i]) + et < hi - 1e-12; i++)
			;
		a->hi = et + log10(m[i]);
		if (a->hi - a->lo < 0.3) {
			a->lo -= 0.5;
			a->hi += 0.5;
		}
		/* Decades between ticks: 1, or more where there are too many to label. */
		a->step = fmax(1, ceil((a->hi - a->lo) / (nticks > 0 ? nticks * 1.5 : 1)));
		return;
	}
	if (is_y) {
		lo = fmin(lo, 0);
		hi = fmax(hi, 0);
	}
	if (hi - lo <= 0) {
		double w = lo ? fabs(lo) / 2 : 1;

		lo -= w;
		hi += w;
	}
	/* Runs, threads: a tick each while there are few, half a step of room beside. */
	if (whole && hi - lo <= 12) {
		a->step = 1;
		a->lo = lo - 0.5;
		a->hi = hi + 0.5;
		return;
	}
	a->step = step_for(a, (hi - lo) / nticks, whole);
	a->lo = floor(lo / a->step + 1e-9) * a->step;
	a->hi = ceil(hi / a->step - 1e-9) * a->step;
}

/* The ticks of an axis, values in the axis's space; returns the count (at most max). */
static int axis_ticks(const struct axis *a, double *t, int max, int *major)
{
	int n = 0;

	if (a->scale == PLOT_LOG10) {
		static const double m[] = { 1, 2, 5 };
		/* 2 and 5 between the powers of ten while there are few decades. */
		int sub = a->hi - a->lo <= 6 && a->step == 1 ? 3 : 1;

		for (double e = floor(a->lo / a->step) * a->step; e <= a->hi + 1e-9 && n < max;
		     e += a->step)
			for (int i = 0; i < sub && n < max; i++) {
				double v = e + log10(m[i]);

				if (v >= a->lo - 1e-9 && v <= a->hi + 1e-9) {
					major[n] = i == 0;
					t[n++] = v;
				}
			}
		return n;
	}
	for (double v = ceil(a->lo / a->step - 1e-9) * a->step; v <= a->hi + a->step * 1e-6 && n < max;
	     v += a->step) {
		/* Whole multiples of the step: 0.1 steps do not drift to 0.30000000000000004. */
		major[n] = 1;
		t[n++] = a->scale == PLOT_LINEAR ? nearbyint(v / a->step) * a->step : v;
	}
	return n;
}

/* ---- writing ------------------------------------------------------------------------------- */

struct layout {
	char id[24];						/* ids' prefix: "" first, "f1-" ... */
	double ml, mr, top, plot_w;
	double py[PLOT_MAX_PANELS], ph[PLOT_MAX_PANELS];	/* panel tops and heights */
	int panels[PLOT_MAX_PANELS], npanels;			/* the panels drawn, in order */
	double bottom;						/* the last panel's bottom edge */
	double xt[256];						/* x ticks (the axis's space) */
	int xmaj[256], nx, stride;				/* ... labelled every stride-th */
};

static double map_x(const struct plot *p, const struct layout *l, double v)
{
	/* 10 px inside the frame, so that the outermost points are not on it. */
	double t = (ax_fwd(&p->x, v) - p->x.lo) / (p->x.hi - p->x.lo);

	return l->ml + 10 + t * (l->plot_w - 20);
}

static double map_y(const struct axis *a, const struct layout *l, int k, double v)
{
	double t = (ax_fwd(a, v) - a->lo) / (a->hi - a->lo);

	return l->py[k] + l->ph[k] - t * (l->ph[k] - 6);
}

/* Labels along x, every stride-th tick, so that none overlaps its neighbour. */
static int x_stride(const struct plot *p, const struct layout *l, const double *t, int n)
{
	for (int stride = 1; stride < n; stride++) {
		double last = -1e9, lastw = 0;
		int ok = 1;

		for (int i = 0; i < n && ok; i++) {
			char b[64];
			double x, w;

			if (p->x.scale == PLOT_LOG2 ? ((long)t[i] % stride) : (i % stride))
				continue;
			fmt_val(b, sizeof(b), ax_inv(&p->x, t[i]), p->x.unit, p->x.step);
			x = map_x(p, l, ax_inv(&p->x, t[i]));
			w = text_w(b, FS);
			if (x - w / 2 < last + lastw / 2 + 8)
				ok = 0;
			last = x;
			lastw = w;
		}
		if (ok)
			return stride;
	}
	return n > 0 ? n : 1;
}

static void put_text_el(FILE *f, double x, double y, const char *anchor, double fs,
			const char *cls, const char *text)
{
	fputs("<text", f);
	if (cls)
		fprintf(f, " class=\"%s\"", cls);
	fputs(" x=\"", f);
	put_num(f, x);
	fputs("\" y=\"", f);
	put_num(f, y);
	fprintf(f, "\" text-anchor=\"%s\"", anchor);
	if (fs != FS) {
		fputs(" font-size=\"", f);
		put_num(f, fs);
		fputs("\"", f);
	}
	fputs(">", f);
	put_text(f, text);
	fputs("</text>\n", f);
}

static void put_line(FILE *f, const char *cls, double x1, double y1, double x2, double y2,
		     const char *stroke)
{
	fprintf(f, "<line class=\"%s\" x1=\"", cls);
	put_num(f, x1);
	fputs("\" y1=\"", f);
	put_num(f, y1);
	fputs("\" x2=\"", f);
	put_num(f, x2);
	fputs("\" y2=\"", f);
	put_num(f, y2);
	fprintf(f, "\" stroke=\"%s\"/>\n", stroke);
}

static int cmp_x(const void *a, const void *b)
{
	double x = ((const struct pt *)a)->x, y = ((const struct pt *)b)->x;

	return x < y ? -1 : x > y;
}

/* A series: its line (in x order, broken where a point is not drawn), then its markers. */
static int put_series(FILE *f, const struct plot *p, const struct layout *l, int k, size_t si)
{
	const struct series *s = &p->s[si];
	const struct axis *ya = &p->y[s->panel];
	struct pt *v = malloc((s->n ? s->n : 1) * sizeof(*v));
	size_t m = 0;
	int open = 0;

	if (!v)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		if (!why_not(&p->x, s->pt[i].x))
			v[m++] = s->pt[i];
	qsort(v, m, sizeof(*v), cmp_x);
	fprintf(f, "<g class=\"series\" id=\"%ss%zu\" fill=\"%s\" stroke=\"%s\"><title>", l->id, si,
		colors[s->style % NCOLORS], colors[s->style % NCOLORS]);
	put_text(f, s->name);
	fputs("</title>\n", f);
	for (size_t i = 0; i < m && !(s->flags & PLOT_NOLINE); i++) {
		if (why_not(ya, v[i].y)) {
			if (open)
				fputs("\"/>\n", f);
			open = 0;
			continue;
		}
		if (!open)
			fprintf(f, "<polyline fill=\"none\" stroke-width=\"1.6\"%s points=\"",
				s->flags & PLOT_DASHED ? " stroke-dasharray=\"6,4\"" : "");
		else
			fputc(' ', f);
		put_num(f, map_x(p, l, v[i].x));
		fputc(',', f);
		put_num(f, map_y(ya, l, k, v[i].y));
		open = 1;
	}
	if (open)
		fputs("\"/>\n", f);
	for (size_t i = 0; i < m; i++) {
		char bx[64], by[64];

		if (why_not(ya, v[i].y))
			continue;
		fprintf(f, "<use class=\"pt\" xlink:href=\"#mk%zu\"%s x=\"", MARKER(s->style),
			s->flags & PLOT_DASHED ? " fill=\"#ffffff\"" : "");
		put_num(f, map_x(p, l, v[i].x));
		fputs("\" y=\"", f);
		put_num(f, map_y(ya, l, k, v[i].y));
		plot_fmt(bx, sizeof(bx), v[i].x, p->x.unit);
		plot_fmt(by, sizeof(by), v[i].y, ya->unit);
		fputs("\"><title>", f);
		put_text(f, bx);
		fputs(": ", f);
		put_text(f, by);
		fputs("</title></use>\n", f);
	}
	fputs("</g>\n", f);
	free(v);
	return 0;
}

/* A panel's y axis: grid lines, labelled ticks (class ytick, for tests to read), its label. */
static int put_yaxis(FILE *f, const struct layout *l, int k, const struct axis *ya)
{
	double yt[64], x0 = l->ml, x1 = l->ml + l->plot_w, y0 = l->py[k], y1 = y0 + l->ph[k];
	int ymaj[64], ny = axis_ticks(ya, yt, 64, ymaj);
	/*
	 * A log axis labels its 2s and 5s too where they are 16 px apart or
	 * more (1 to 2 and 5 to 10, 0.3 of a decade, are the closest), else
	 * its powers of ten alone.
	 */
	int all = ya->scale != PLOT_LOG10 || 0.301 * (l->ph[k] - 6) / (ya->hi - ya->lo) >= 16;

	for (int i = 0; i < ny; i++) {
		double v = ax_inv(ya, yt[i]), y = map_y(ya, l, k, v);
		char b[64];

		put_line(f, "grid", x0, y, x1, y, "#e4e4e4");
		if (!all && !ymaj[i])
			continue;
		fmt_val(b, sizeof(b), v, ya->unit, ya->scale == PLOT_LINEAR ? ya->step : 1);
		fputs("<g class=\"ytick\">", f);
		put_line(f, "tick", x0 - 4, y, x0, y, "#444444");
		put_text_el(f, x0 - 7, y + 4, "end", FS, NULL, b);
		fputs("</g>\n", f);
	}
	if (ya->label) {
		/* Along the panel's height: smaller type before a cut, down to 10 px. */
		double cy = (y0 + y1) / 2, maxw = l->ph[k] + 10;
		double fs = fmax(10, fmin(FS, maxw / ((double)nchars(ya->label) * CHAR_EM)));
		char *t = cut_text(ya->label, (size_t)(maxw / (fs * CHAR_EM)));

		if (!t)
			return -1;
		fputs("<text class=\"ylabel\" x=\"14\" y=\"", f);
		put_num(f, cy);
		fputs("\" text-anchor=\"middle\" font-size=\"", f);
		put_num(f, fs);
		fputs("\" transform=\"rotate(-90 14 ", f);
		put_num(f, cy);
		fputs(")\">", f);
		put_text(f, t);
		fputs("</text>\n", f);
		free(t);
	}
	return 0;
}

/* The x axis's ticks under the last panel, every stride-th labelled (class xtick). */
static void put_xticks(FILE *f, const struct plot *p, const struct layout *l, double y1)
{
	for (int i = 0; i < l->nx; i++) {
		double v = ax_inv(&p->x, l->xt[i]), x = map_x(p, l, v);
		char b[64];

		if (p->x.scale == PLOT_LOG2 ? ((long)l->xt[i] % l->stride) : (i % l->stride)) {
			put_line(f, "tick", x, y1, x, y1 + 3, "#444444");
			continue;
		}
		fmt_val(b, sizeof(b), v, p->x.unit, p->x.step);
		fputs("<g class=\"xtick\">", f);
		put_line(f, "tick", x, y1, x, y1 + 5, "#444444");
		put_text_el(f, x, y1 + 18, "middle", FS, NULL, b);
		fputs("</g>\n", f);
	}
}

/* Panel k (the k-th drawn): frame, grid, y axis, its series; the x ticks under the last. */
static int put_panel(FILE *f, const struct plot *p, const struct layout *l, int k, int last)
{
	int pi = l->panels[k];
	double y0 = l->py[k], y1 = y0 + l->ph[k];

	fprintf(f, "<g class=\"panel\" id=\"%spanel%d\">\n", l->id, k);
	fputs("<rect class=\"frame\" x=\"", f);
	put_num(f, l->ml);
	fputs("\" y=\"", f);
	put_num(f, y0);
	fputs("\" width=\"", f);
	put_num(f, l->plot_w);
	fputs("\" height=\"", f);
	put_num(f, l->ph[k]);
	fputs("\" fill=\"none\" stroke=\"#888888\"/>\n", f);
	for (int i = 0; i < l->nx; i++) {
		double x = map_x(p, l, ax_inv(&p->x, l->xt[i]));

		put_line(f, "grid", x, y0, x, y1, l->xmaj[i] ? "#e4e4e4" : "#f0f0f0");
	}
	if (put_yaxis(f, l, k, &p->y[pi]))
		return -1;
	for (size_t si = 0; si < p->ns; si++)
		if (p->s[si].panel == pi && put_series(f, p, l, k, si))
			return -1;
	if (last)
		put_xticks(f, p, l, y1);
	fputs("</g>\n", f);
	return 0;
}

/* A note, wrapped at spaces to the figure's width; returns the lines it takes (written if f). */
static int put_note(FILE *f, const char *s, double x, double y, double width)
{
	size_t max = (size_t)(width / (FS_NOTE * CHAR_EM)), len = strlen(s);
	int lines = 0;

	while (len) {
		size_t take = len, n = 0, i = 0, sp = 0;
		char *part;

		for (; i < len && n < max; i++) {
			n += ((unsigned char)s[i] & 0xc0) != 0x80;
			if (s[i] == ' ')
				sp = i;
		}
		if (i < len) {
			take = sp ? sp : i ? i : 1;
			while (take < len && ((unsigned char)s[take] & 0xc0) == 0x80)
				take++;
		}
		if (f) {
			part = strndup(s, take);
			if (!part)
				return -1;
			put_text_el(f, x, y + lines * 15, "start", FS_NOTE, "note", part);
			free(part);
		}
		lines++;
		s += take;
		len -= take;
		while (len && *s == ' ') {
			s++;
			len--;
		}
	}
	return lines;
}

static void put_head(FILE *f, double w, double h, const char *title)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
	      "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\""
	      " version=\"1.1\" width=\"", f);
	put_num(f, w);
	fputs("\" height=\"", f);
	put_num(f, h);
	fputs("\" viewBox=\"0 0 ", f);
	put_num(f, w);
	fputc(' ', f);
	put_num(f, h);
	fputs("\" font-family=\"DejaVu Sans, Verdana, Helvetica, Arial, sans-serif\""
	      " font-size=\"12\" fill=\"#222222\">\n<title>", f);
	put_text(f, title ? title : "fdma figure");
	fputs("</title>\n<defs>\n"
	      "<circle id=\"mk0\" r=\"3.5\"/>\n"
	      "<rect id=\"mk1\" x=\"-3.2\" y=\"-3.2\" width=\"6.4\" height=\"6.4\"/>\n"
	      "<path id=\"mk2\" d=\"M0,-4.4 L4,2.6 L-4,2.6 Z\"/>\n"
	      "<path id=\"mk3\" d=\"M0,-4.6 L4.6,0 L0,4.6 L-4.6,0 Z\"/>\n"
	      "</defs>\n<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n", f);
}

/* A legend entry's text: its series' name, and whether any series of its style drew a point. */
static char *legend_name(const struct plot *p, const struct series *s)
{
	size_t drawn = 0;
	char *name;

	for (size_t i = 0; i < p->ns; i++) {
		const struct series *o = &p->s[i];

		for (size_t j = 0; o->style == s->style && j < o->n && !drawn; j++)
			drawn = !why_not(&p->x, o->pt[j].x) && !why_not(&p->y[o->panel], o->pt[j].y);
	}
	if (asprintf(&name, "%s%s", s->name, drawn ? "" : " (nothing drawn)") < 0)
		return NULL;
	return name;
}

/* The series' styles: a new one for each name and flags not seen before. */
static void fig_styles(struct plot *p)
{
	size_t next = 0;

	for (size_t i = 0; i < p->ns; i++) {
		struct series *s = &p->s[i];

		s->own = 1;
		for (size_t j = 0; j < i && s->own; j++)
			if (p->s[j].flags == s->flags && !strcmp(p->s[j].name, s->name)) {
				s->style = p->s[j].style;
				s->own = 0;
			}
		if (s->own)
			s->style = next++;
	}
}

/*
 * The legend, one entry per style, in up to 4 columns; its rows in
 * *rows_out (f NULL: only counted). Past MAX_LEGEND entries a line says
 * how many more there are: a figure of hundreds of series stays a figure.
 */
static int put_legend(FILE *f, const struct plot *p, const struct layout *l, double y,
		      int *rows_out)
{
	size_t ent[MAX_LEGEND], shown = 0, more = 0;
	double maxw = 0, colw;
	int ncol, rows;

	for (size_t i = 0; i < p->ns; i++) {
		if (!p->s[i].own)
			continue;
		if (shown == MAX_LEGEND) {
			more++;
			continue;
		}
		ent[shown++] = i;
	}
	for (size_t e = 0; e < shown; e++) {
		char *name = legend_name(p, &p->s[ent[e]]);

		if (!name)
			return -1;
		maxw = fmax(maxw, 34 + text_w(name, FS) + 18);
		free(name);
	}
	ncol = (int)(l->plot_w / (maxw > 0 ? maxw : 1));
	ncol = ncol < 1 ? 1 : ncol > 4 ? 4 : ncol;
	colw = l->plot_w / ncol;
	rows = (int)((shown + (size_t)ncol - 1) / (size_t)ncol);
	*rows_out = rows + (more > 0);
	if (!f)
		return 0;
	fputs("<g class=\"legend\">\n", f);
	if (more) {
		char b[64];

		snprintf(b, sizeof(b), "and %zu more series, not in the legend", more);
		put_text_el(f, l->ml + 34, y + rows * 18, "start", FS, NULL, b);
	}
	for (size_t e = 0; e < shown; e++) {
		const struct series *s = &p->s[ent[e]];
		/* Down the columns, so that the order reads top to bottom. */
		double x = l->ml + (double)(e / (size_t)rows) * colw;
		double yy = y + (double)(e % (size_t)rows) * 18;
		char *t, *name = legend_name(p, s);

		if (!name)
			return -1;
		t = cut_text(name, (size_t)((colw - 34) / (FS * CHAR_EM)));
		free(name);
		if (!t)
			return -1;
		/* Whole pixels: printf's %.0f has no decimal point to localise. */
		fprintf(f, "<g fill=\"%s\" stroke=\"%s\">", colors[s->style % NCOLORS],
			colors[s->style % NCOLORS]);
		if (!(s->flags & PLOT_NOLINE))
			fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" "
				"stroke-width=\"1.6\"%s/>", x, yy - 4, x + 26, yy - 4,
				s->flags & PLOT_DASHED ? " stroke-dasharray=\"6,4\"" : "");
		fprintf(f, "<use xlink:href=\"#mk%zu\"%s x=\"%.0f\" y=\"%.0f\"/></g>\n",
			MARKER(s->style), s->flags & PLOT_DASHED ? " fill=\"#ffffff\"" : "", x + 13,
			yy - 4);
		put_text_el(f, x + 34, yy, "start", FS, NULL, t);
		free(t);
	}
	fputs("</g>\n", f);
	return 0;
}

/* The data's extent: what is drawn, the ranges it spans, the points left out (counted in p). */
struct extent {
	double xlo, xhi, ylo[PLOT_MAX_PANELS], yhi[PLOT_MAX_PANELS];
	int xwhole, any;
};

static void fig_extent(struct plot *p, struct extent *e, struct layout *l)
{
	*e = (struct extent){ .xlo = INFINITY, .xhi = -INFINITY, .xwhole = 1 };
	p->skip_nan = p->skip_log = 0;
	for (int k = 0; k < PLOT_MAX_PANELS; k++) {
		e->ylo[k] = INFINITY;
		e->yhi[k] = -INFINITY;
		p->y[k].used = 0;
	}
	for (size_t i = 0; i < p->ns; i++) {
		const struct series *s = &p->s[i];
		struct axis *ya = &p->y[s->panel];

		ya->used = 1;
		for (size_t j = 0; j < s->n; j++) {
			double x = s->pt[j].x, y = s->pt[j].y;
			int wx = why_not(&p->x, x), wy = why_not(ya, y);

			if (wx || wy) {
				/* Not a number outranks a log axis's zero, for the note. */
				if (wx == 1 || wy == 1)
					p->skip_nan++;
				else
					p->skip_log++;
				continue;
			}
			e->any = 1;
			e->xlo = fmin(e->xlo, ax_fwd(&p->x, x));
			e->xhi = fmax(e->xhi, ax_fwd(&p->x, x));
			e->xwhole &= x == nearbyint(x);
			e->ylo[s->panel] = fmin(e->ylo[s->panel], ax_fwd(ya, y));
			e->yhi[s->panel] = fmax(e->yhi[s->panel], ax_fwd(ya, y));
		}
	}
	/* A figure of nothing still has its (empty) first panel. */
	if (!p->ns)
		p->y[0].used = 1;
	l->npanels = 0;
	for (int k = 0; k < PLOT_MAX_PANELS; k++)
		if (p->y[k].used)
			l->panels[l->npanels++] = k;
}

/* The axes' ranges and ticks, the margins (the widest y label), the panels' places. */
static void fig_layout(struct plot *p, const struct extent *e, struct layout *l)
{
	static const double heights[PLOT_MAX_PANELS][PLOT_MAX_PANELS] = {
		{ 320 }, { 280, 150 }, { 250, 130, 130 },
	};
	double ywmax = 0, y;

	for (int k = 0; k < l->npanels; k++) {
		int pi = l->panels[k], maj[64], n;
		struct axis *ya = &p->y[pi];
		double t[64];

		l->ph[k] = heights[l->npanels - 1][k];
		axis_range(ya, e->ylo[pi], e->yhi[pi], 1, 0, (int)(l->ph[k] / 45));
		n = axis_ticks(ya, t, 64, maj);
		for (int i = 0; i < n; i++) {
			char b[64];

			fmt_val(b, sizeof(b), ax_inv(ya, t[i]), ya->unit,
				ya->scale == PLOT_LINEAR ? ya->step : 1);
			ywmax = fmax(ywmax, text_w(b, FS));
		}
	}
	l->mr = 20;
	l->ml = 30 + ywmax + 10;
	l->plot_w = FIG_W - l->ml - l->mr;
	axis_range(&p->x, e->xlo, e->xhi, 0, e->xwhole, (int)(l->plot_w / 90));
	l->top = p->title ? 48 : 16;
	y = l->top;
	for (int k = 0; k < l->npanels; k++) {
		l->py[k] = y;
		y += l->ph[k] + 16;
	}
	l->bottom = l->py[l->npanels - 1] + l->ph[l->npanels - 1];
	l->nx = axis_ticks(&p->x, l->xt, 256, l->xmaj);
	l->stride = x_stride(p, l, l->xt, l->nx);
}

static void free_notes(char **notes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(notes[i]);
	free(notes);
}

/* The notes under the figure: the caller's, then what was not drawn; NULL when out of memory. */
static char **fig_notes(const struct plot *p, size_t *n)
{
	char **notes = calloc(p->nnotes + 2, sizeof(*notes));

	*n = 0;
	if (!notes)
		return NULL;
	for (size_t i = 0; i < p->nnotes; i++)
		if (!(notes[(*n)++] = strdup(p->notes[i])))
			goto oom;
	if (p->skip_nan && asprintf(&notes[(*n)++], "%zu point%s not drawn: not a finite number.",
				    p->skip_nan, p->skip_nan == 1 ? "" : "s") < 0)
		goto oom;
	if (p->skip_log && asprintf(&notes[(*n)++],
				    "%zu point%s not drawn: zero or negative on a log axis.",
				    p->skip_log, p->skip_log == 1 ? "" : "s") < 0)
		goto oom;
	return notes;
oom:
	/* asprintf() leaves its pointer undefined on failure. */
	notes[*n - 1] = NULL;
	free_notes(notes, *n);
	return NULL;
}

/* The title, bold: smaller type before a cut, down to 12 px. */
static int put_title(FILE *f, const char *title)
{
	double w = FIG_W - 20, fs = fmax(FS, fmin(FS_TITLE, w / ((double)nchars(title) * 0.62)));
	char *t = cut_text(title, (size_t)(w / (fs * 0.62)));

	if (!t)
		return -1;
	fputs("<text class=\"title\" x=\"", f);
	put_num(f, FIG_W / 2);
	fputs("\" y=\"26\" text-anchor=\"middle\" font-size=\"", f);
	put_num(f, fs);
	fputs("\" font-weight=\"bold\">", f);
	put_text(f, t);
	fputs("</text>\n", f);
	free(t);
	return 0;
}

/* A figure made ready to write: its layout, its notes, where its legend goes, its height. */
struct fig {
	struct layout l;
	struct extent e;
	char **notes;
	size_t nnotes;
	int rows;
	double legend_y, h;
};

/* The i-th figure of a file laid out and measured; -1: out of memory (g->notes freed then). */
static int fig_prepare(struct plot *p, struct fig *g, size_t i)
{
	int nlines = 0;

	/* Ids unique in the file: the first figure's as a figure alone has them. */
	if (i)
		snprintf(g->l.id, sizeof(g->l.id), "f%zu-", i);
	fig_extent(p, &g->e, &g->l);
	fig_styles(p);
	fig_layout(p, &g->e, &g->l);
	g->notes = fig_notes(p, &g->nnotes);
	if (!g->notes)
		return -1;
	/* Measured first, for the height: the legend's rows, the notes' lines. */
	for (size_t k = 0; k < g->nnotes; k++)
		nlines += put_note(NULL, g->notes[k], 0, 0, FIG_W - 24);
	if (nlines < 0 || put_legend(NULL, p, &g->l, 0, &g->rows)) {
		free_notes(g->notes, g->nnotes);
		g->notes = NULL;
		return -1;
	}
	g->legend_y = g->l.bottom + 24 + (p->x.label ? 20 : 0) + 14;
	g->h = g->legend_y + g->rows * 18 + (nlines ? 6 + nlines * 15 : 0) + 4;
	return 0;
}

/* A figure's content, its top at y = 0: title, panels, x label, legend, notes. */
static int fig_body(FILE *f, const struct plot *p, const struct fig *g)
{
	const struct layout *l = &g->l;
	double y = g->legend_y;
	int rows;

	if (p->title && put_title(f, p->title))
		return -1;
	for (int k = 0; k < l->npanels; k++)
		if (put_panel(f, p, l, k, k == l->npanels - 1))
			return -1;
	if (!g->e.any)
		put_text_el(f, l->ml + l->plot_w / 2, l->py[0] + l->ph[0] / 2, "middle", FS, "nodata",
			    "no data");
	if (p->x.label)
		put_text_el(f, l->ml + l->plot_w / 2, l->bottom + 38, "middle", FS, "xlabel",
			    p->x.label);
	if (put_legend(f, p, l, y, &rows))
		return -1;
	y += rows * 18 + 6;
	for (size_t i = 0; i < g->nnotes; i++) {
		int n = put_note(f, g->notes[i], 12, y, FIG_W - 24);

		if (n < 0)
			return -1;
		y += n * 15;
	}
	return 0;
}

/*
 * Every figure is laid out and measured before the head, whose height is
 * their sum. Several figures each go in a <g class="figure"> moved down
 * by those above (ids prefixed after the first, the markers' <defs>
 * shared); one alone is written bare, byte for byte as it always was.
 */
int plot_write(struct plot *p, FILE *f)
{
	struct fig *g;
	size_t n = 0, i = 0;
	double h = 0;
	int ret = -1, oom = 0;

	for (const struct plot *q = p; q; q = q->next, n++)
		if (q->oom) {
			errno = ENOMEM;
			return -1;
		}
	g = calloc(n, sizeof(*g));
	if (!g) {
		errno = ENOMEM;
		return -1;
	}
	for (struct plot *q = p; q; q = q->next, i++) {
		if (fig_prepare(q, &g[i], i))
			goto oom;
		h += g[i].h;
	}
	put_head(f, FIG_W, h, p->title);
	h = 0;
	i = 0;
	for (const struct plot *q = p; q; q = q->next, i++) {
		if (n > 1) {
			fputs("<g class=\"figure\" transform=\"translate(0,", f);
			put_num(f, h);
			fputs(")\">\n", f);
		}
		if (fig_body(f, q, &g[i]))
			goto oom;
		if (n > 1)
			fputs("</g>\n", f);
		h += g[i].h;
	}
	fputs("</svg>\n", f);
	ret = 0;
	if (ferror(f)) {
		errno = errno ? errno : EIO;
		ret = -1;
	}
	goto out;
oom:
	oom = 1;
out:
	for (i = 0; i < n; i++)
		if (g[i].notes)
			free_notes(g[i].notes, g[i].nnotes);
	free(g);
	if (oom)
		errno = ENOMEM;
	return ret;
}

/* ---- a figure's file ------------------------------------------------------------------------- */

FILE *plot_open(const char *cmd, const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f)
		fprintf(stderr, "fdma %s: cannot write the plot %s: %s\n", cmd, path, strerror(errno));
	return f;
}

int plot_close(struct plot *p, FILE *f, const char *cmd, const char *path)
{
	int err = 0;

	errno = 0;
	if (plot_write(p, f))
		err = errno ? errno : EIO;
	/* A full disk shows at the flush: the figure is not written until it is out. */
	if (fflush(f) && !err)
		err = errno ? errno : EIO;
	if (ferror(f) && !err)
		err = EIO;
	if (f != stdout && fclose(f) && !err)
		err = errno ? errno : EIO;
	if (err) {
		fprintf(stderr, "fdma %s: cannot write the plot %s: %s\n", cmd, path, strerror(err));
		return -1;
	}
	return 0;
}
