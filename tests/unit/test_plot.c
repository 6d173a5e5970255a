// SPDX-License-Identifier: MIT
/*
 * Unit tests of the figures' SVG writer (tools/plot.c) at its edges:
 * values that cannot be drawn (NaN, infinities, zero on a log axis, beyond
 * any range), empty figures and series, one point, text that is markup or
 * not UTF-8, a locale that writes decimal commas, a write that fails,
 * figures appended into one file. Each figure is written to memory and
 * read as text; tests/cli/test_plot.sh checks whole figures against the
 * values a command printed.
 */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_exit.h"

#include "plot.h"

/*
 * The figure as a string (freed by the caller). The stream's buffer and
 * size live on the heap: gcc 12 for arm64 takes locals whose address a
 * memstream keeps for dangling once the call that took them returns.
 */
static char *svg_of(struct plot *p)
{
	struct { char *buf; size_t len; } *m = calloc(1, sizeof(*m));
	FILE *f;
	char *svg;

	assert_non_null(m);
	f = open_memstream(&m->buf, &m->len);
	assert_non_null(f);
	assert_int_equal(plot_write(p, f), 0);
	assert_int_equal(fclose(f), 0);
	svg = m->buf;
	free(m);
	return svg;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *q = s; (q = strstr(q, what)); q += strlen(what))
		n++;
	return n;
}

/*
 * Every number in an attribute the writer computes (x, y, points, width,
 * viewBox ...) is digits, '-', '.', ',' or ' ' only: no "nan", no "inf",
 * no decimal comma inside a number.
 */
static void assert_numbers_sane(const char *svg)
{
	static const char *const attrs[] = { " x=\"", " y=\"", " x1=\"", " y1=\"", " x2=\"",
					     " y2=\"", " width=\"", " height=\"", " points=\"",
					     " viewBox=\"" };

	for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++)
		for (const char *q = svg; (q = strstr(q, attrs[a])); ) {
			q += strlen(attrs[a]);
			for (; *q != '"'; q++)
				if (!strchr("0123456789-. ,%", *q))
					fail_msg("attribute%s...\" holds '%c': %.40s", attrs[a], *q, q);
		}
	if (strstr(svg, "nan") || strstr(svg, "inf\"") || strstr(svg, "NaN"))
		fail_msg("a NaN or an infinity in the figure");
}

static struct plot *fig(enum plot_scale xs, enum plot_scale ys)
{
	struct plot *p = plot_new();

	assert_non_null(p);
	plot_title(p, "test");
	plot_xaxis(p, "size", PLOT_BYTES, xs);
	plot_yaxis(p, 0, "MB/s", PLOT_PLAIN, ys);
	return p;
}

/* Not finite: not drawn, counted, said under the figure; the finite point is drawn. */
static void test_not_finite(void **state)
{
	struct plot *p = fig(PLOT_LINEAR, PLOT_LINEAR);
	int s = plot_series(p, 0, "a", 0);
	char *svg;

	(void)state;
	plot_point(p, s, 1, NAN);
	plot_point(p, s, 2, INFINITY);
	plot_point(p, s, NAN, 1);
	plot_point(p, s, 3, -INFINITY);
	plot_point(p, s, 4, 1e308);		/* beyond any range the writer computes */
	plot_point(p, s, 5, 42);
	svg = svg_of(p);
	assert_int_equal(plot_skipped(p), 5);
	assert_int_equal(count(svg, "class=\"pt\""), 1);
	assert_non_null(strstr(svg, "5 points not drawn: not a finite number."));
	assert_numbers_sane(svg);
	free(svg);
	plot_free(p);
}

/* Zero and negatives on log axes (x log2, y log10): not drawn, and said so. */
static void test_log_nonpositive(void **state)
{
	struct plot *p = fig(PLOT_LOG2, PLOT_LOG10);
	int s = plot_series(p, 0, "a", 0);
	char *svg;

	(void)state;
	plot_point(p, s, 0, 10);
	plot_point(p, s, -64, 10);
	plot_point(p, s, 64, 0);
	plot_point(p, s, 4096, 1000);
	plot_point(p, s, 65536, 100000);
	svg = svg_of(p);
	assert_int_equal(plot_skipped(p), 3);
	assert_int_equal(count(svg, "class=\"pt\""), 2);
	assert_non_null(strstr(svg, "3 points not drawn: zero or negative on a log axis."));
	assert_non_null(strstr(svg, ">4 KiB<"));
	assert_non_null(strstr(svg, ">64 KiB<"));
	assert_numbers_sane(svg);
	free(svg);
	plot_free(p);
}

/* No series, an empty series, a series of nothing drawable: a valid figure that says so. */
static void test_empty(void **state)
{
	struct plot *p = fig(PLOT_LOG2, PLOT_LINEAR);
	char *svg;
	int s;

	(void)state;
	svg = svg_of(p);
	assert_non_null(strstr(svg, ">no data<"));
	assert_non_null(strstr(svg, "</svg>"));
	assert_numbers_sane(svg);
	free(svg);
	plot_series(p, 0, "empty", 0);
	s = plot_series(p, 0, "none finite", PLOT_DASHED);
	plot_point(p, s, NAN, NAN);
	svg = svg_of(p);
	assert_non_null(strstr(svg, ">no data<"));
	assert_non_null(strstr(svg, "empty (nothing drawn)"));
	assert_non_null(strstr(svg, "none finite (nothing drawn)"));
	assert_int_equal(count(svg, "class=\"pt\""), 0);
	assert_numbers_sane(svg);
	free(svg);
	plot_free(p);
}

/* One point: an axis of some width around it on every scale, the point inside the frame. */
static void test_one_point(void **state)
{
	static const enum plot_scale xs[] = { PLOT_LINEAR, PLOT_LOG2 };
	static const enum plot_scale ys[] = { PLOT_LINEAR, PLOT_LOG10 };
	static const double vals[] = { 0, 1, 1e-9, 7e12 };

	(void)state;
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++)
			for (size_t v = 0; v < sizeof(vals) / sizeof(vals[0]); v++) {
				struct plot *p = fig(xs[i], ys[j]);
				int s = plot_series(p, 0, "one", 0);
				double x = vals[v] ? vals[v] : (i ? 64 : 0);
				double y = vals[v] ? vals[v] : (j ? 1 : 0);
				char *svg;

				plot_point(p, s, x, y);
				svg = svg_of(p);
				assert_int_equal(plot_skipped(p), 0);
				assert_int_equal(count(svg, "class=\"pt\""), 1);
				assert_numbers_sane(svg);
				free(svg);
				plot_free(p);
			}
}

/* Markup, control characters and bytes that are not UTF-8, in every text the caller gives. */
static void test_escaping(void **state)
{
	struct plot *p = plot_new();
	const char *evil = "a<b>&c\"d'e\x01\xff\xc3(]]>";
	char *svg;
	int s;

	(void)state;
	plot_title(p, evil);
	plot_xaxis(p, evil, PLOT_PLAIN, PLOT_LINEAR);
	plot_yaxis(p, 0, evil, PLOT_PLAIN, PLOT_LINEAR);
	s = plot_series(p, 0, evil, 0);
	plot_point(p, s, 1, 2);
	plot_note(p, "%s", evil);
	svg = svg_of(p);
	assert_null(strstr(svg, "a<b"));
	assert_null(strstr(svg, "\xff"));
	assert_null(strstr(svg, "\x01"));
	assert_null(strstr(svg, "]]>"));
	assert_non_null(strstr(svg, "a&lt;b&gt;&amp;c&quot;d&apos;e \xef\xbf\xbd\xef\xbf\xbd(]]&gt;"));
	free(svg);
	plot_free(p);
}

/* Values and ticks: exact binary units, SI steps, seconds; '.' whatever the locale. */
static void test_format(void **state)
{
	static const struct { double v; enum plot_unit u; const char *want; } c[] = {
		{ 64, PLOT_BYTES, "64 B" }, { 1500, PLOT_BYTES, "1500 B" },
		{ 1536, PLOT_BYTES, "1.5 KiB" }, { 3110400, PLOT_BYTES, "3037.5 KiB" },
		{ 67108864, PLOT_BYTES, "64 MiB" }, { 1.5, PLOT_PLAIN, "1.5" },
		{ 1234567, PLOT_PLAIN, "1234567" }, { 1.25e-7, PLOT_PLAIN, "1.25e-07" }, { NAN, PLOT_PLAIN, "NaN" },
		{ -INFINITY, PLOT_BYTES, "-inf" },
	};
	char b[64];

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		plot_fmt(b, sizeof(b), c[i].v, c[i].u);
		assert_string_equal(b, c[i].want);
	}
}

/* 64 B .. 64 MiB on a log2 axis: ticks in binary units, labels far enough apart to read. */
static void test_size_axis(void **state)
{
	struct plot *p = fig(PLOT_LOG2, PLOT_LINEAR);
	int s = plot_series(p, 0, "a", 0), c = plot_series(p, 0, "ceiling", PLOT_DASHED);
	char *svg;

	(void)state;
	for (double x = 64; x <= 64.0 * 1024 * 1024; x *= 2) {
		plot_point(p, s, x, x / 1e5);
		plot_point(p, c, x, 800);
	}
	svg = svg_of(p);
	assert_non_null(strstr(svg, ">64 B<"));
	assert_non_null(strstr(svg, ">1 KiB<"));
	assert_non_null(strstr(svg, ">1 MiB<"));
	assert_non_null(strstr(svg, ">64 MiB<"));
	assert_int_equal(count(svg, "class=\"pt\""), 42);
	assert_non_null(strstr(svg, "stroke-dasharray"));
	assert_numbers_sane(svg);
	free(svg);
	plot_free(p);
}

/* Panels: one drawn per panel a series uses, whatever its number. */
static void test_panels(void **state)
{
	struct plot *p = fig(PLOT_LINEAR, PLOT_LINEAR);
	char *svg;
	int s;

	(void)state;
	plot_yaxis(p, 2, "third", PLOT_PLAIN, PLOT_LINEAR);
	s = plot_series(p, 2, "only in the third", 0);
	plot_point(p, s, 1, 1);
	assert_int_equal(plot_series(p, PLOT_MAX_PANELS, "no such panel", 0), -1);
	svg = svg_of(p);
	assert_int_equal(count(svg, "class=\"panel\""), 1);
	assert_non_null(strstr(svg, ">third<"));
	free(svg);
	s = plot_series(p, 0, "first", 0);
	plot_point(p, s, 1, 1);
	svg = svg_of(p);
	assert_int_equal(count(svg, "class=\"panel\""), 2);
	free(svg);
	plot_free(p);
}

/* A locale with decimal commas: numbers in the figure still have points. */
static void test_locale(void **state)
{
	static const char *const names[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
					     "fr_FR.utf8", "ru_RU.UTF-8" };
	struct plot *p;
	char *svg, b[64];
	int s, set = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !set; i++)
		set = setlocale(LC_NUMERIC, names[i]) != NULL;
	if (!set || !strcmp(localeconv()->decimal_point, ".")) {
		setlocale(LC_NUMERIC, "C");
		t_skip();
	}
	p = fig(PLOT_LINEAR, PLOT_LINEAR);
	s = plot_series(p, 0, "a", 0);
	plot_point(p, s, 0.25, 1.5);
	plot_point(p, s, 0.75, 2.5);
	svg = svg_of(p);
	plot_fmt(b, sizeof(b), 2.5, PLOT_PLAIN);
	setlocale(LC_NUMERIC, "C");
	assert_string_equal(b, "2.5");
	assert_numbers_sane(svg);
	assert_non_null(strstr(svg, ">0.5<"));
	free(svg);
	plot_free(p);
}

/* A full disk: plot_close() fails and says so (the CLI test checks the message). */
static void test_write_error(void **state)
{
	struct plot *p = fig(PLOT_LINEAR, PLOT_LINEAR);
	FILE *f = fopen("/dev/full", "w");

	(void)state;
	if (!f) {
		plot_free(p);
		t_skip();
	}
	plot_point(p, plot_series(p, 0, "a", 0), 1, 1);
	assert_int_equal(plot_close(p, f, "test", "/dev/full"), -1);
	plot_free(p);
}

/* A number after the first `what` at or after s (an attribute's value, a transform's offset). */
static double num_after(const char *s, const char *what)
{
	const char *q = strstr(s, what);

	assert_non_null(q);
	return strtod(q + strlen(what), NULL);
}

/* Where `what` first is in svg, at or after from (an offset; fails if it is not there). */
static size_t at(const char *svg, size_t from, const char *what)
{
	const char *q = strstr(svg + from, what);

	if (!q)
		fail_msg("no %s after offset %zu", what, from);
	return (size_t)(q - svg);
}

/* Every id="..." once: markers, panels and series of all figures. */
static void assert_ids_unique(const char *svg)
{
	for (const char *q = svg; (q = strstr(q, " id=\"")); ) {
		char id[64], pat[80];
		size_t n;

		q += 5;
		n = strcspn(q, "\"");
		assert_true(n < sizeof(id));
		memcpy(id, q, n);
		id[n] = 0;
		snprintf(pat, sizeof(pat), " id=\"%s\"", id);
		if (count(svg, pat) != 1)
			fail_msg("id %s %zu times", id, count(svg, pat));
	}
}

/*
 * The file parses as XML (xmllint) and renders (rsvg-convert), each
 * where it is installed: CI has librsvg2-bin, not libxml2-utils.
 */
static void tools_accept(const char *svg)
{
	static const char *const cmds[][2] = {
		{ "xmllint", "xmllint --noout %s" },
		{ "rsvg-convert", "rsvg-convert -o %s.png %s" },
	};
	char path[] = "/tmp/test_plot_XXXXXX", cmd[160];
	FILE *f;
	int fd;

	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(svg, f);
	assert_int_equal(fclose(f), 0);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", cmds[i][0]);
		if (system(cmd))
			continue;
		snprintf(cmd, sizeof(cmd), cmds[i][1], path, path);
		if (system(cmd))
			fail_msg("%s refused the figure, kept in %s", cmds[i][0], path);
	}
	snprintf(cmd, sizeof(cmd), "%s.png", path);
	unlink(cmd);
	unlink(path);
}

/* fdma soak's: bandwidth and latency against time (a), against card address (b). */
static struct plot *soak_fig(bool by_addr, size_t *skip)
{
	struct plot *p = plot_new();
	int bw, lat;

	assert_non_null(p);
	plot_title(p, by_addr ? "against card address" : "against time");
	plot_xaxis(p, by_addr ? "card address" : "time", by_addr ? PLOT_BYTES : PLOT_SECONDS,
		   PLOT_LINEAR);
	plot_yaxis(p, 0, "MB/s", PLOT_PLAIN, PLOT_LINEAR);
	plot_yaxis(p, 1, "latency, s", PLOT_SECONDS, PLOT_LINEAR);
	bw = plot_series(p, 0, by_addr ? "MB/s by address" : "MB/s over time", 0);
	lat = plot_series(p, 1, by_addr ? "latency by address" : "latency over time", 0);
	for (int i = 0; i < 16; i++) {
		double x = by_addr ? i * 65536.0 : i * 60.0;

		plot_point(p, bw, x, 800 + i);
		plot_point(p, lat, x, 0.001 * (i + 1));
	}
	/* Points not drawn, a different count in each figure. */
	plot_point(p, bw, NAN, 1);
	if (by_addr)
		plot_point(p, lat, 1, INFINITY);
	*skip = by_addr ? 2 : 1;
	return p;
}

/*
 * Two figures over different x axes in one file: one prolog, one root
 * whose height is theirs summed, each figure in a translated <g> in
 * order with its own series and ticks, ids not repeated, the points
 * left out of both counted.
 */
static void test_append(void **state)
{
	size_t skip_a, skip_b, ga, gb;
	double ha, hb, h;
	struct plot *a = soak_fig(false, &skip_a), *b = soak_fig(true, &skip_b);
	char *svg;

	(void)state;
	/* Each alone first: the heights the file must add up. */
	svg = svg_of(a);
	ha = num_after(strstr(svg, "<svg "), " height=\"");
	free(svg);
	svg = svg_of(b);
	hb = num_after(strstr(svg, "<svg "), " height=\"");
	free(svg);
	assert_true(ha > 0 && hb > 0);

	assert_int_equal(plot_append(a, b), 0);
	svg = svg_of(a);
	assert_int_equal(plot_skipped(a), skip_a + skip_b);
	assert_int_equal(count(svg, "<?xml"), 1);
	assert_int_equal(count(svg, "<svg"), 1);
	assert_int_equal(count(svg, "</svg>"), 1);
	assert_int_equal(count(svg, "<defs>"), 1);
	h = num_after(strstr(svg, "<svg "), " height=\"");
	assert_float_equal(h, ha + hb, 1e-9);
	assert_float_equal(num_after(svg, " viewBox=\"0 0 760 "), ha + hb, 1e-9);
	/* The first figure's title is the file's. */
	assert_true(at(svg, 0, "<title>against time</title>") < at(svg, 0, "<defs>"));

	/* Two figures, the second moved down by the first's height. */
	assert_int_equal(count(svg, "<g class=\"figure\""), 2);
	ga = at(svg, 0, "<g class=\"figure\" transform=\"translate(0,");
	gb = at(svg, ga + 1, "<g class=\"figure\" transform=\"translate(0,");
	assert_float_equal(num_after(svg + ga, "translate(0,"), 0, 0);
	assert_float_equal(num_after(svg + gb, "translate(0,"), ha, 1e-9);
	/* The first figure's ids as alone, the second's prefixed. */
	assert_true(at(svg, ga, " id=\"panel1\"") < gb);
	at(svg, gb, " id=\"f1-panel1\"");
	at(svg, gb, " id=\"f1-s1\"");

	/* Each figure's series, ticks and x label inside its own group, in order. */
	assert_true(at(svg, ga, "<title>MB/s over time</title>") < gb);
	assert_true(at(svg, ga, "<title>latency over time</title>") < gb);
	assert_true(at(svg, ga, "class=\"xtick\"") < gb);
	assert_true(at(svg, ga, "class=\"ytick\"") < gb);
	assert_true(at(svg, ga, ">5 min<") < gb);
	assert_true(at(svg, ga, ">time<") < gb);
	at(svg, gb, "<title>MB/s by address</title>");
	at(svg, gb, "<title>latency by address</title>");
	at(svg, gb, "class=\"xtick\"");
	at(svg, gb, "class=\"ytick\"");
	at(svg, gb, " KiB<");
	at(svg, gb, ">card address<");
	assert_null(strstr(svg + gb, "over time"));
	assert_int_equal(count(svg, "class=\"series\""), 4);
	assert_int_equal(count(svg, "class=\"pt\""), 4 * 16);
	/* Each figure says what it left out. */
	assert_true(at(svg, ga, "1 point not drawn: not a finite number.") < gb);
	at(svg, gb, "2 points not drawn: not a finite number.");
	assert_ids_unique(svg);
	assert_numbers_sane(svg);
	tools_accept(svg);
	free(svg);
	plot_free(a);			/* b with it: valgrind or ASan says if not */
}

/* What cannot be appended, and a chain of four in the order appended. */
static void test_append_errors(void **state)
{
	size_t skip;
	struct plot *a = soak_fig(false, &skip), *b = soak_fig(true, &skip);
	struct plot *c = soak_fig(true, &skip), *d = soak_fig(false, &skip);
	char *svg;
	size_t g;

	(void)state;
	assert_int_equal(plot_append(NULL, b), -1);
	assert_int_equal(plot_append(a, NULL), -1);
	assert_int_equal(plot_append(a, a), -1);
	assert_int_equal(plot_append(a, b), 0);
	assert_int_equal(plot_append(c, b), -1);	/* already under a */
	assert_int_equal(plot_append(b, a), -1);	/* a loop */
	assert_int_equal(plot_append(b, b), -1);
	/* Appended to the first or the last, each goes under the last. */
	plot_title(c, "third");
	plot_title(d, "fourth");
	assert_int_equal(plot_append(a, c), 0);
	assert_int_equal(plot_append(c, d), 0);
	assert_int_equal(plot_append(d, a), -1);	/* a loop through the chain */
	svg = svg_of(a);
	assert_int_equal(count(svg, "<g class=\"figure\""), 4);
	g = at(svg, 0, "<title>against time</title>");
	g = at(svg, g, ">against card address<");
	g = at(svg, g, ">third<");
	at(svg, g, ">fourth<");
	assert_ids_unique(svg);
	free(svg);
	plot_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_finite),
		cmocka_unit_test(test_log_nonpositive),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_one_point),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_size_axis),
		cmocka_unit_test(test_panels),
		cmocka_unit_test(test_locale),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_append_errors),
	};

	return T_RUN(tests);
}
