// SPDX-License-Identifier: MIT
/*
 * fdma plot: an SVG figure of JSON rows, one object a line, as fdma's
 * commands print them with --json and the studies keep them (their .jsonl
 * files): x and y are keys of each row, series are the rows' groups.
 * Lines that are not JSON objects are skipped and counted (a '#' line
 * names the section that follows, @section); a row without a number for
 * a key is not drawn for it, and the figure says how many. docs/plots.md;
 * the writer is plot.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdma_cmds.h"
#include "plot.h"
#include "util.h"

#define MAX_KEYS	8	/* per list: --y, --y2, --group, --where, --rename */
#define MAX_FILES	32
#define MAX_DEPTH	64	/* nesting in a skipped value */
#define SHOW_BAD	3	/* bad lines named, per file */
#define ROWS(n)		((n) == 1 ? "row" : "rows")

enum jtype { J_NUM, J_STR, J_BOOL, J_NULL, J_OTHER };

struct jfield {
	char *key;
	enum jtype t;
	double num;		/* J_NUM; J_BOOL: 1 or 0 */
	char *str;		/* J_STR */
};

struct row {
	struct jfield *f;
	int n;
	int file;
	const char *section;	/* the last '#' line before it, or "" */
};

struct keylist {
	char *buf;
	const char *k[MAX_KEYS];
	int n;
};

struct plot_opts {
	const char *files[MAX_FILES];
	int nfiles;
	const char *out, *x, *title, *xlabel, *ylabel[2];
	struct keylist y[2], group, dashed;
	struct { const char *key; struct keylist vals; } where[MAX_KEYS];
	int nwhere;
	struct { const char *from, *to; } rename[MAX_KEYS];
	int nrename;
	const char *notes[MAX_KEYS];
	int nnotes;
	int logx, logy[2], points;
	enum plot_unit xunit;
	int xunit_set;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fdma plot FILE.jsonl [FILE.jsonl ...] -o FILE.svg --x KEY --y KEY[,KEY...] [options]\n"
		"  Draws JSON rows (one object a line, as fdma's commands print them with\n"
		"  --json) as an SVG figure: KEY's number in each row against --x's, one\n"
		"  series per --y key and per group.\n"
		"options:\n"
		"  -o, --output FILE     the figure ('-': standard output)\n"
		"  --x KEY               the x value of a row; @run: its place in its series (1, 2, ...)\n"
		"  --y KEY[,KEY...]      y values in the top panel\n"
		"  --y2 KEY[,KEY...]     a second panel below, over the same x axis\n"
		"  --group KEY[,KEY...]  one series per distinct value (a string, number or\n"
		"                        true/false); @file: the file's name; @section: the\n"
		"                        last '#' line before the row\n"
		"  --where KEY=V[|V...]  only rows whose KEY is one of the values (repeatable)\n"
		"  --dashed KEY[,KEY...] these y keys dashed: a ceiling, a reference\n"
		"  --points              markers alone, no lines (repeated runs)\n"
		"  --logx                a log2 x axis (sizes)\n"
		"  --logy, --logy2       a log10 y axis in the top or second panel\n"
		"  --xunit bytes|seconds|plain   x tick labels (default bytes for --x size, else plain)\n"
		"  --title TEXT, --xlabel TEXT, --ylabel TEXT, --y2label TEXT\n"
		"  --rename FROM=TO      replace FROM by TO in series names (repeatable; the last\n"
		"                        '=' ends FROM)\n"
		"  --note TEXT           a line under the figure (repeatable); the source files,\n"
		"                        and the rows and points not drawn, are always noted\n"
		"  --help                this text\n"
		"A row without a number for a key (missing, null, a string) is not drawn\n"
		"for it; lines that are not JSON objects are skipped and counted, on stderr\n"
		"and under the figure. Exit status: 0 written, 1 nothing to draw or a file\n"
		"error, 2 usage.\n");
}

/* ---- JSON rows ------------------------------------------------------------------ */

struct jp {
	const char *s, *end;
	int depth;
};

static void jws(struct jp *p)
{
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\r' || *p->s == '\n'))
		p->s++;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Four hex digits at s (within end): the value, or -1. */
static long hex4(const char *s, const char *end)
{
	long v = 0;

	if (end - s < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		int h = hexval(s[i]);

		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	return v;
}

static size_t put_utf8(char *d, unsigned long cp)
{
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xc0 | cp >> 6);
		d[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		d[0] = (char)(0xe0 | cp >> 12);
		d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		d[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	d[0] = (char)(0xf0 | cp >> 18);
	d[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	d[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	d[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * The string at p->s (its opening quote), decoded: malloc'd, or NULL for a
 * bad one (or no memory). \u0000 and lone surrogates become U+FFFD, so the
 * result is a C string.
 */
static char *jstring(struct jp *p)
{
	const char *s = p->s + 1;
	size_t n = 0, cap = (size_t)(p->end - s) + 1;
	char *d = malloc(cap);	/* decoding never lengthens: \uXXXX (6) is at most 4 bytes */

	if (!d)
		return NULL;
	for (;;) {
		unsigned char c;
		long cp;

		if (s >= p->end)
			goto bad;
		c = (unsigned char)*s++;
		if (c == '"')
			break;
		if (c < 0x20)
			goto bad;
		if (c != '\\') {
			d[n++] = (char)c;
			continue;
		}
		if (s >= p->end)
			goto bad;
		c = (unsigned char)*s++;
		switch (c) {
		case '"': case '\\': case '/': d[n++] = (char)c; continue;
		case 'b': d[n++] = '\b'; continue;
		case 'f': d[n++] = '\f'; continue;
		case 'n': d[n++] = '\n'; continue;
		case 'r': d[n++] = '\r'; continue;
		case 't': d[n++] = '\t'; continue;
		case 'u': break;
		default: goto bad;
		}
		cp = hex4(s, p->end);
		if (cp < 0)
			goto bad;
		s += 4;
		/* A surrogate pair is one character; half of one is not. */
		if (cp >= 0xd800 && cp <= 0xdbff && p->end - s >= 6 && s[0] == '\\' &&
		    s[1] == 'u') {
			long lo = hex4(s + 2, p->end);

			if (lo >= 0xdc00 && lo <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				s += 6;
			}
		}
		if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff))
			cp = 0xfffd;
		n += put_utf8(d + n, (unsigned long)cp);
	}
	d[n] = 0;
	p->s = s;
	return d;
bad:
	free(d);
	return NULL;
}

static int is_digit(const struct jp *p, const char *s)
{
	return s < p->end && *s >= '0' && *s <= '9';
}

/* A number by JSON's grammar (no NaN, no hex, no leading '+'). */
static int jnumber(struct jp *p, double *v)
{
	const char *s = p->s;
	char *tmp;

	if (s < p->end && *s == '-')
		s++;
	if (!is_digit(p, s))
		return -1;
	if (*s == '0')
		s++;
	else
		while (is_digit(p, s))
			s++;
	if (s < p->end && *s == '.') {
		if (!is_digit(p, ++s))
			return -1;
		while (is_digit(p, s))
			s++;
	}
	if (s < p->end && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < p->end && (*s == '+' || *s == '-'))
			s++;
		if (!is_digit(p, s))
			return -1;
		while (is_digit(p, s))
			s++;
	}
	tmp = strndup(p->s, (size_t)(s - p->s));
	if (!tmp)
		return -1;
	/* LC_NUMERIC is "C": fdma never calls setlocale(). 1e999 is inf, which is not drawn. */
	*v = strtod(tmp, NULL);
	free(tmp);
	p->s = s;
	return 0;
}

static int jword(struct jp *p, const char *w)
{
	size_t l = strlen(w);

	if ((size_t)(p->end - p->s) < l || memcmp(p->s, w, l))
		return -1;
	p->s += l;
	return 0;
}

static int jvalue(struct jp *p, struct jfield *f);

/* An object or array, checked and skipped: its values are not drawn. */
static int jskip(struct jp *p)
{
	char close = *p->s == '{' ? '}' : ']';

	if (++p->depth > MAX_DEPTH)
		return -1;
	p->s++;
	jws(p);
	if (p->s < p->end && *p->s == close) {
		p->s++;
		p->depth--;
		return 0;
	}
	for (;;) {
		if (close == '}') {
			char *k;

			jws(p);
			if (p->s >= p->end || *p->s != '"' || !(k = jstring(p)))
				return -1;
			free(k);
			jws(p);
			if (p->s >= p->end || *p->s != ':')
				return -1;
			p->s++;
		}
		if (jvalue(p, NULL))
			return -1;
		jws(p);
		if (p->s >= p->end)
			return -1;
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s != close)
			return -1;
		p->s++;
		p->depth--;
		return 0;
	}
}

/* A value into f (NULL: checked and dropped). */
static int jvalue(struct jp *p, struct jfield *f)
{
	struct jfield tmp;

	/* f->key is the caller's. */
	if (!f)
		f = &tmp;
	f->num = 0;
	f->str = NULL;
	jws(p);
	if (p->s >= p->end)
		return -1;
	switch (*p->s) {
	case '"':
		f->str = jstring(p);
		if (!f->str)
			return -1;
		f->t = J_STR;
		break;
	case '{':
	case '[':
		if (jskip(p))
			return -1;
		f->t = J_OTHER;
		break;
	case 't':
		f->t = J_BOOL;
		f->num = 1;
		return jword(p, "true");
	case 'f':
		f->t = J_BOOL;
		return jword(p, "false");
	case 'n':
		f->t = J_NULL;
		return jword(p, "null");
	default:
		f->t = J_NUM;
		return jnumber(p, &f->num);
	}
	if (f == &tmp)
		free(tmp.str);
	return 0;
}

static void row_free(struct row *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->f[i].key);
		free(r->f[i].str);
	}
	free(r->f);
	r->f = NULL;
	r->n = 0;
}

/* One line as an object of fields: 0, or -1 (not a JSON object, or no memory). */
static int parse_row(const char *line, size_t len, struct row *r)
{
	struct jp p = { .s = line, .end = line + len };
	int cap = 0;

	memset(r, 0, sizeof(*r));
	jws(&p);
	if (p.s >= p.end || *p.s != '{')
		return -1;
	p.s++;
	jws(&p);
	if (p.s < p.end && *p.s == '}') {
		p.s++;
		goto end;
	}
	for (;;) {
		struct jfield *f;

		if (r->n == cap) {
			struct jfield *n;

			cap = cap ? 2 * cap : 16;
			n = realloc(r->f, (size_t)cap * sizeof(*n));
			if (!n)
				goto bad;
			r->f = n;
		}
		f = &r->f[r->n];
		memset(f, 0, sizeof(*f));
		jws(&p);
		if (p.s >= p.end || *p.s != '"' || !(f->key = jstring(&p)))
			goto bad;
		r->n++;
		jws(&p);
		if (p.s >= p.end || *p.s != ':')
			goto bad;
		p.s++;
		if (jvalue(&p, f)) {
			free(f->str);
			f->str = NULL;
			goto bad;
		}
		jws(&p);
		if (p.s < p.end && *p.s == ',') {
			p.s++;
			continue;
		}
		if (p.s < p.end && *p.s == '}') {
			p.s++;
			break;
		}
		goto bad;
	}
end:
	jws(&p);
	if (p.s == p.end)
		return 0;
bad:
	row_free(r);
	return -1;
}

static const struct jfield *row_get(const struct row *r, const char *key)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].key, key))
			return &r->f[i];
	return NULL;
}

/* ---- reading the files ---------------------------------------------------------- */

struct rows {
	struct row *r;
	size_t n, cap;
	char **sections;
	size_t nsec;
	size_t total[MAX_FILES], bad[MAX_FILES];
};

static void rows_free(struct rows *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		row_free(&rs->r[i]);
	free(rs->r);
	for (size_t i = 0; i < rs->nsec; i++)
		free(rs->sections[i]);
	free(rs->sections);
}

/* A '#' line: the section's name, space-trimmed, kept for the rows after it. */
static int add_section(struct rows *rs, const char *s, const char **cur)
{
	char **n = realloc(rs->sections, (rs->nsec + 1) * sizeof(*n));
	size_t l;

	if (!n)
		return -1;
	rs->sections = n;
	while (*s == '#' || *s == ' ' || *s == '\t')
		s++;
	l = strcspn(s, "\r\n");
	while (l && (s[l - 1] == ' ' || s[l - 1] == '\t'))
		l--;
	n[rs->nsec] = strndup(s, l);
	if (!n[rs->nsec])
		return -1;
	*cur = n[rs->nsec++];
	return 0;
}

static int read_file(struct rows *rs, const char *path, int fi)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	const char *section = "";
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int ret = 0;

	if (!f) {
		fprintf(stderr, "fdma plot: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		const char *s = line;
		struct row r;

		lineno++;
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '#') {
			if (add_section(rs, s, &section))
				goto oom;
			continue;
		}
		if (strspn(line, " \t\r\n") == (size_t)len)
			continue;
		rs->total[fi]++;
		if (parse_row(line, (size_t)len, &r)) {
			if (++rs->bad[fi] <= SHOW_BAD)
				fprintf(stderr, "fdma plot: %s:%zu: not a JSON object: skipped\n", path, lineno);
			continue;
		}
		if (rs->n == rs->cap) {
			size_t c = rs->cap ? 2 * rs->cap : 256;
			struct row *n = realloc(rs->r, c * sizeof(*n));

			if (!n) {
				row_free(&r);
				goto oom;
			}
			rs->r = n;
			rs->cap = c;
		}
		r.file = fi;
		r.section = section;
		rs->r[rs->n++] = r;
	}
	if (ferror(f)) {
		fprintf(stderr, "fdma plot: cannot read %s: %s\n", path, strerror(errno));
		ret = -1;
	} else if (rs->bad[fi] > SHOW_BAD) {
		fprintf(stderr, "fdma plot: %s: %zu lines in all were not JSON objects: skipped\n", path,
			rs->bad[fi]);
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return ret;
oom:
	fprintf(stderr, "fdma plot: out of memory reading %s\n", path);
	free(line);
	if (f != stdin)
		fclose(f);
	return -1;
}

/* ---- rows to series ------------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* A field as text: a group's name, a --where match. */
static void field_text(char *buf, size_t len, const struct jfield *f)
{
	if (!f)
		snprintf(buf, len, "-");
	else if (f->t == J_STR)
		snprintf(buf, len, "%s", f->str);
	else if (f->t == J_NUM)
		plot_fmt(buf, len, f->num, PLOT_PLAIN);
	else if (f->t == J_BOOL)
		snprintf(buf, len, "%s", f->num ? "true" : "false");
	else
		snprintf(buf, len, "%s", f->t == J_NULL ? "null" : "(a list or an object)");
}

static void key_text(char *buf, size_t len, const struct plot_opts *o, const struct row *r,
		     const char *key)
{
	if (!strcmp(key, "@file"))
		snprintf(buf, len, "%s", base_name(o->files[r->file]));
	else if (!strcmp(key, "@section"))
		snprintf(buf, len, "%s", r->section);
	else
		field_text(buf, len, row_get(r, key));
}

static int row_kept(const struct plot_opts *o, const struct row *r)
{
	for (int w = 0; w < o->nwhere; w++) {
		const struct jfield *f = row_get(r, o->where[w].key);
		char b[512];
		int hit = 0;

		key_text(b, sizeof(b), o, r, o->where[w].key);
		for (int i = 0; i < o->where[w].vals.n && !hit; i++) {
			const char *v = o->where[w].vals.k[i];
			char *end;
			double d = strtod(v, &end);

			/* 64 matches 64.0: numbers are compared as numbers. */
			hit = !strcmp(b, v) || (f && f->t == J_NUM && *v && !*end && d == f->num);
		}
		if (!hit)
			return 0;
	}
	return 1;
}

/* The number a row has for key (@run: its place in its group), or -1 for none. */
static int row_num(const struct row *r, const char *key, double run, double *v)
{
	const struct jfield *f;

	if (!strcmp(key, "@run")) {
		*v = run;
		return 0;
	}
	f = row_get(r, key);
	if (!f || f->t != J_NUM)
		return -1;
	*v = f->num;
	return 0;
}

/* name with every --rename applied; malloc'd. */
static char *renamed(const struct plot_opts *o, const char *name)
{
	char *s = strdup(name);

	for (int i = 0; i < o->nrename && s; i++) {
		size_t fl = strlen(o->rename[i].from), tl = strlen(o->rename[i].to);
		char *at, *n;
		size_t off = 0;

		if (!fl)
			continue;
		while ((at = strstr(s + off, o->rename[i].from))) {
			size_t pre = (size_t)(at - s);

			n = malloc(strlen(s) - fl + tl + 1);
			if (!n) {
				free(s);
				return NULL;
			}
			memcpy(n, s, pre);
			memcpy(n + pre, o->rename[i].to, tl);
			strcpy(n + pre + tl, at + fl);
			free(s);
			s = n;
			off = pre + tl;
		}
	}
	return s;
}

struct sermap {
	char *group;
	int panel, key, series;
};

struct groups {
	struct sermap *m;
	size_t n;
	char **gname;		/* groups seen, for @run */
	double *runs;
	size_t ng;
};

static void groups_free(struct groups *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->m[i].group);
	free(g->m);
	for (size_t i = 0; i < g->ng; i++)
		free(g->gname[i]);
	free(g->gname);
	free(g->runs);
}

/* The row's run number in its group (1, 2, ...): -1 when out of memory. */
static double group_run(struct groups *g, const char *name)
{
	char **n;
	double *r;

	for (size_t i = 0; i < g->ng; i++)
		if (!strcmp(g->gname[i], name))
			return ++g->runs[i];
	n = realloc(g->gname, (g->ng + 1) * sizeof(*n));
	if (n)
		g->gname = n;
	r = realloc(g->runs, (g->ng + 1) * sizeof(*r));
	if (r)
		g->runs = r;
	if (!n || !r || !(g->gname[g->ng] = strdup(name)))
		return -1;
	g->runs[g->ng++] = 1;
	return 1;
}

static int series_for(struct groups *g, struct plot *p, const struct plot_opts *o,
		      const char *group, int panel, int key)
{
	const char *k = o->y[panel].k[key];
	struct sermap *m;
	char *name = NULL, *rn;
	unsigned int flags = o->points ? PLOT_NOLINE : 0;
	int s;

	for (size_t i = 0; i < g->n; i++)
		if (g->m[i].panel == panel && g->m[i].key == key && !strcmp(g->m[i].group, group))
			return g->m[i].series;
	/* Named by the group, and by the key where the panel has more than one. */
	if (!*group || o->y[panel].n > 1)
		s = asprintf(&name, "%s%s%s", group, *group ? ": " : "", k);
	else
		s = asprintf(&name, "%s", group);
	if (s < 0)
		return -1;
	rn = renamed(o, name);
	free(name);
	if (!rn)
		return -1;
	for (int i = 0; i < o->dashed.n; i++)
		if (!strcmp(o->dashed.k[i], k))
			flags = PLOT_DASHED;
	s = plot_series(p, panel, rn, flags);
	free(rn);
	m = realloc(g->m, (g->n + 1) * sizeof(*m));
	if (s < 0 || !m)
		return -1;
	g->m = m;
	g->m[g->n] = (struct sermap){ .group = strdup(group), .panel = panel, .key = key,
				      .series = s };
	if (!g->m[g->n].group)
		return -1;
	g->n++;
	return s;
}

/* The keys of the first row, for a message about a key no row has. */
static void say_keys(const struct rows *rs)
{
	if (!rs->n)
		return;
	fprintf(stderr, "fdma plot: the first row's keys:");
	for (int i = 0; i < rs->r[0].n && i < 40; i++)
		fprintf(stderr, " %s", rs->r[0].f[i].key);
	fprintf(stderr, "\n");
}

/*
 * The rows into p's series. Counts per y key the rows kept that have no
 * number for it; returns the points added, or -1 (no memory).
 */
static long fill(struct plot *p, const struct plot_opts *o, const struct rows *rs,
		 size_t *kept, size_t nonum[2][MAX_KEYS], size_t *nox)
{
	struct groups g = { 0 };
	long points = 0;

	for (size_t i = 0; i < rs->n; i++) {
		const struct row *r = &rs->r[i];
		char group[1024] = "";
		double x, run;

		if (!row_kept(o, r))
			continue;
		(*kept)++;
		for (int k = 0; k < o->group.n; k++) {
			char b[512];
			size_t l = strlen(group);

			key_text(b, sizeof(b), o, r, o->group.k[k]);
			if (*b)		/* an empty @section adds nothing */
				snprintf(group + l, sizeof(group) - l, "%s%s", l ? ", " : "", b);
		}
		run = group_run(&g, group);
		if (run < 0)
			goto oom;
		if (row_num(r, o->x, run, &x)) {
			(*nox)++;
			continue;
		}
		for (int panel = 0; panel < 2; panel++)
			for (int k = 0; k < o->y[panel].n; k++) {
				double y;
				int s;

				if (row_num(r, o->y[panel].k[k], run, &y)) {
					nonum[panel][k]++;
					continue;
				}
				s = series_for(&g, p, o, group, panel, k);
				if (s < 0 || plot_point(p, s, x, y))
					goto oom;
				points++;
			}
	}
	groups_free(&g);
	return points;
oom:
	groups_free(&g);
	return -1;
}

/* ---- options -------------------------------------------------------------------- */

/* A list of keys (sep ","), or of --where's values (sep "|": a URI's options have commas). */
static int split_keys(struct keylist *l, const char *s, const char *opt, const char *sep)
{
	char *save = NULL, *t;

	free(l->buf);
	memset(l, 0, sizeof(*l));
	l->buf = strdup(s);
	if (!l->buf)
		return -1;
	for (t = strtok_r(l->buf, sep, &save); t; t = strtok_r(NULL, sep, &save)) {
		if (l->n == MAX_KEYS) {
			fprintf(stderr, "fdma plot: %s takes at most %d keys\n", opt, MAX_KEYS);
			return -1;
		}
		l->k[l->n++] = t;
	}
	if (!l->n) {
		fprintf(stderr, "fdma plot: %s needs a key\n", opt);
		return -1;
	}
	return 0;
}

static void opts_free(struct plot_opts *o)
{
	free(o->y[0].buf);
	free(o->y[1].buf);
	free(o->group.buf);
	free(o->dashed.buf);
	for (int i = 0; i < o->nwhere; i++)
		free(o->where[i].vals.buf);
}

/*
 * KEY=VALUE: VALUE, with the '=' made the key's end; NULL when there is
 * none. --where splits at the first '=' (a URI value has more), --rename at
 * the last (what it renames is often a URI).
 */
static char *split_eq(char *s, int last)
{
	char *eq = last ? strrchr(s, '=') : strchr(s, '=');

	if (!eq || eq == s)
		return NULL;
	*eq = 0;
	return eq + 1;
}

static int parse_opts(int argc, char **argv, struct plot_opts *o)
{
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "x", required_argument, NULL, 'x' },
		{ "y", required_argument, NULL, 'y' },
		{ "y2", required_argument, NULL, 'Y' },
		{ "group", required_argument, NULL, 'g' },
		{ "where", required_argument, NULL, 'w' },
		{ "dashed", required_argument, NULL, 'd' },
		{ "points", no_argument, NULL, 'p' },
		{ "logx", no_argument, NULL, 'L' },
		{ "logy", no_argument, NULL, 'l' },
		{ "logy2", no_argument, NULL, 'M' },
		{ "xunit", required_argument, NULL, 'u' },
		{ "title", required_argument, NULL, 't' },
		{ "xlabel", required_argument, NULL, 'X' },
		{ "ylabel", required_argument, NULL, 'a' },
		{ "y2label", required_argument, NULL, 'b' },
		{ "rename", required_argument, NULL, 'r' },
		{ "note", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;
	char *v;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "ho:", lopts, NULL)) != -1) {
		switch (opt) {
		case 'o': o->out = optarg; break;
		case 'x': o->x = optarg; break;
		case 'y':
		case 'Y':
			if (split_keys(&o->y[opt == 'Y'], optarg, opt == 'Y' ? "--y2" : "--y", ","))
				return EXIT_USAGE;
			break;
		case 'g':
			if (split_keys(&o->group, optarg, "--group", ","))
				return EXIT_USAGE;
			break;
		case 'd':
			if (split_keys(&o->dashed, optarg, "--dashed", ","))
				return EXIT_USAGE;
			break;
		case 'w':
			if (o->nwhere == MAX_KEYS || !(v = split_eq(optarg, 0)) ||
			    split_keys(&o->where[o->nwhere].vals, v, "--where", "|")) {
				fprintf(stderr, "fdma plot: --where takes KEY=VALUE[|VALUE...] (at most %d), not '%s'\n",
					MAX_KEYS, optarg);
				return EXIT_USAGE;
			}
			o->where[o->nwhere++].key = optarg;
			break;
		case 'r':
			if (o->nrename == MAX_KEYS || !(v = split_eq(optarg, 1))) {
				fprintf(stderr, "fdma plot: --rename takes FROM=TO (at most %d), not '%s'\n",
					MAX_KEYS, optarg);
				return EXIT_USAGE;
			}
			o->rename[o->nrename].from = optarg;
			o->rename[o->nrename++].to = v;
			break;
		case 'n':
			if (o->nnotes == MAX_KEYS) {
				fprintf(stderr, "fdma plot: at most %d --note lines\n", MAX_KEYS);
				return EXIT_USAGE;
			}
			o->notes[o->nnotes++] = optarg;
			break;
		case 'p': o->points = 1; break;
		case 'L': o->logx = 1; break;
		case 'l': o->logy[0] = 1; break;
		case 'M': o->logy[1] = 1; break;
		case 'u':
			o->xunit_set = 1;
			if (!strcmp(optarg, "bytes")) {
				o->xunit = PLOT_BYTES;
			} else if (!strcmp(optarg, "seconds")) {
				o->xunit = PLOT_SECONDS;
			} else if (!strcmp(optarg, "plain")) {
				o->xunit = PLOT_PLAIN;
			} else {
				fprintf(stderr, "fdma plot: --xunit must be bytes, seconds or plain, not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 't': o->title = optarg; break;
		case 'X': o->xlabel = optarg; break;
		case 'a': o->ylabel[0] = optarg; break;
		case 'b': o->ylabel[1] = optarg; break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	for (; optind < argc; optind++) {
		if (o->nfiles == MAX_FILES) {
			fprintf(stderr, "fdma plot: at most %d files\n", MAX_FILES);
			return EXIT_USAGE;
		}
		o->files[o->nfiles++] = argv[optind];
	}
	if (!o->nfiles || !o->out || !o->x || !o->y[0].n) {
		fprintf(stderr, "fdma plot: %s, see --help\n",
			!o->nfiles ? "expected a file of JSON rows" : !o->out ? "expected -o FILE.svg" :
			!o->x ? "expected --x KEY" : "expected --y KEY");
		return EXIT_USAGE;
	}
	if (!o->xunit_set)
		o->xunit = !strcmp(o->x, "size") ? PLOT_BYTES : PLOT_PLAIN;
	return -1;
}

/* What the figure leaves out, under it: rows without numbers, lines that were no rows. */
static void notes(struct plot *p, const struct plot_opts *o, const struct rows *rs, size_t kept,
		  size_t nonum[2][MAX_KEYS], size_t nox)
{
	for (int i = 0; i < o->nnotes; i++)
		plot_note(p, "%s", o->notes[i]);
	for (int i = 0; i < o->nfiles; i++) {
		size_t n = 0;

		for (size_t j = 0; j < rs->n; j++)
			n += rs->r[j].file == i;
		plot_note(p, "Rows: %s, %zu.", base_name(o->files[i]), n);
		if (rs->bad[i])
			plot_note(p, "%zu %s of %s %s not JSON objects: skipped.", rs->bad[i],
				  rs->bad[i] == 1 ? "line" : "lines", base_name(o->files[i]),
				  rs->bad[i] == 1 ? "was" : "were");
	}
	if (o->nwhere)
		plot_note(p, "%zu of %zu rows match --where.", kept, rs->n);
	if (nox)
		plot_note(p, "%zu %s without a number for %s: not drawn.", nox, ROWS(nox), o->x);
	for (int panel = 0; panel < 2; panel++)
		for (int k = 0; k < o->y[panel].n; k++)
			if (nonum[panel][k])
				plot_note(p, "%zu %s without a number for %s (missing, null or text): "
					  "not drawn for it.", nonum[panel][k], ROWS(nonum[panel][k]),
					  o->y[panel].k[k]);
}

int fdma_cmd_plot(int argc, char **argv)
{
	struct plot_opts o = { 0 };
	struct rows rs = { 0 };
	size_t kept = 0, nox = 0, nonum[2][MAX_KEYS] = { { 0 } };
	struct plot *p = NULL;
	char ylab[2][512];
	long points;
	int ret = EXIT_FAIL;
	FILE *f;

	ret = parse_opts(argc, argv, &o);
	if (ret >= 0)
		goto out;
	ret = EXIT_FAIL;
	for (int i = 0; i < o.nfiles; i++)
		if (read_file(&rs, o.files[i], i))
			goto out;
	if (!rs.n) {
		fprintf(stderr, "fdma plot: no JSON rows in %s%s\n", o.files[0],
			o.nfiles > 1 ? " and the others" : "");
		goto out;
	}
	p = plot_new();
	if (!p)
		goto oom;
	for (int panel = 0; panel < 2; panel++) {
		char *b = ylab[panel];

		b[0] = 0;
		for (int k = 0; k < o.y[panel].n; k++) {
			if (k)
				strncat(b, ", ", sizeof(ylab[0]) - strlen(b) - 1);
			strncat(b, o.y[panel].k[k], sizeof(ylab[0]) - strlen(b) - 1);
		}
		plot_yaxis(p, panel, o.ylabel[panel] ? o.ylabel[panel] : ylab[panel], PLOT_PLAIN,
			   o.logy[panel] ? PLOT_LOG10 : PLOT_LINEAR);
	}
	plot_title(p, o.title ? o.title : base_name(o.files[0]));
	plot_xaxis(p, o.xlabel ? o.xlabel : !strcmp(o.x, "@run") ? "run" : o.x, o.xunit,
		   o.logx ? PLOT_LOG2 : PLOT_LINEAR);
	points = fill(p, &o, &rs, &kept, nonum, &nox);
	if (points < 0)
		goto oom;
	if (!points) {
		if (!kept)
			fprintf(stderr, "fdma plot: no row matches --where\n");
		else
			fprintf(stderr, "fdma plot: no row has numbers for --x %s and --y %s\n", o.x,
				o.y[0].k[0]);
		say_keys(&rs);
		goto out;
	}
	for (int panel = 0; panel < 2; panel++)
		for (int k = 0; k < o.y[panel].n; k++)
			if (nonum[panel][k] + nox == kept)
				fprintf(stderr, "fdma plot: no row has numbers for both %s and %s: "
					"nothing drawn for %s\n", o.x, o.y[panel].k[k], o.y[panel].k[k]);
	notes(p, &o, &rs, kept, nonum, nox);
	/* Opened only now: a failed read leaves an earlier figure as it was. */
	f = plot_open("plot", o.out);
	if (!f || plot_close(p, f, "plot", o.out))
		goto out;
	if (plot_skipped(p))
		fprintf(stderr, "fdma plot: %zu points not drawn (not finite, or <= 0 on a log axis): "
			"the figure says so\n", plot_skipped(p));
	ret = EXIT_OK;
	goto out;
oom:
	fprintf(stderr, "fdma plot: out of memory\n");
out:
	plot_free(p);
	rows_free(&rs);
	opts_free(&o);
	return ret;
}
