// SPDX-License-Identifier: MIT
/*
 * Unit tests of the figures' SVG writer (tools/plot.c) at its edges:
 * values that cannot be drawn (NaN, infinities, zero on a log axis, beyond
 * any range), empty figures and series, one point, text that is markup or
 * not UTF-8, a locale that writes decimal commas, a write that fails. Each
 * figure is written to memory and read as text; tests/cli/test_plot.sh
 * checks whole figures against the values a command printed.
 */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	};

	return T_RUN(tests);
}
