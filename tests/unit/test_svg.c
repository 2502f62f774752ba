// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The chart module: scales map data to the pixels a hand computation gives, ticks are
 * the nice values a person would pick (and never more than asked for), buckets land
 * on their exact pixels, and every string is escaped.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "base/fmt.h"
#include "output/svg.h"

#define EPS 1e-9

static void expect_ticks(const struct scale *s, size_t max, const double *want, size_t n)
{
	double got[64];
	size_t i, k = scale__ticks(s, got, max);

	if (k != n) {
		for (i = 0; i < k; i++)
			print_message("tick %zu: %g\n", i, got[i]);
	}
	assert_int_equal(k, n);
	for (i = 0; i < n; i++)
		assert_true(fabs(got[i] - want[i]) <= 1e-9 * fmax(1, fabs(want[i])));
}

static void test_linear_map(void **state)
{
	struct scale s;

	(void)state;
	scale__linear(&s, 0, 100, 50, 550);
	assert_true(fabs(scale__map(&s, 0) - 50) < EPS);
	assert_true(fabs(scale__map(&s, 50) - 300) < EPS);
	assert_true(fabs(scale__map(&s, 100) - 550) < EPS);
	/* A y axis: the range runs upwards. */
	scale__linear(&s, 0, 10, 200, 0);
	assert_true(fabs(scale__map(&s, 2.5) - 150) < EPS);
	/* A single value still maps, at the start of the range. */
	scale__linear(&s, 7, 7, 0, 100);
	assert_true(fabs(scale__map(&s, 7) - 0) < EPS);
	assert_true(scale__map(&s, 8) > scale__map(&s, 7));
}

static void test_log_map(void **state)
{
	struct scale s;

	(void)state;
	/* 1 KiB .. 1 MiB over 1000 px: 32 KiB is the middle, 4 KiB at 2/10. */
	scale__log(&s, 1024, 1048576, 0, 1000, 2);
	assert_true(fabs(scale__map(&s, 32768) - 500) < 1e-6);
	assert_true(fabs(scale__map(&s, 4096) - 200) < 1e-6);
	assert_true(fabs(scale__map(&s, 1048576) - 1000) < 1e-6);
	/* Nothing at or below zero on a log axis: the start. */
	assert_true(scale__map(&s, 0) == 0);
	assert_true(scale__map(&s, -5) == 0);
	/* A degenerate domain is widened by one power of the base. */
	scale__log(&s, 100, 100, 0, 10, 10);
	assert_true(fabs(s.d1 - 1000) < EPS);
	/* A non-positive start is clamped. */
	scale__log(&s, 0, 1000, 0, 30, 10);
	assert_true(fabs(scale__map(&s, 10) - 10) < 1e-6);
}

static void test_linear_ticks(void **state)
{
	static const double a[] = { 0, 20, 40, 60, 80 };
	static const double b[] = { 0, 0.2, 0.4, 0.6, 0.8, 1 };
	static const double c[] = { 3.2, 3.4, 3.6, 3.8 };
	static const double d[] = { -10, -5, 0, 5, 10 };
	static const double e[] = { 0, 500, 1000, 1500, 2000, 2500 };
	struct scale s;

	(void)state;
	scale__linear(&s, 0, 97, 0, 100);
	expect_ticks(&s, 6, a, 5);
	scale__linear(&s, 0, 1, 0, 100);
	expect_ticks(&s, 6, b, 6);
	scale__linear(&s, 3.15, 3.85, 0, 100);
	expect_ticks(&s, 5, c, 4);
	scale__linear(&s, -12, 11, 0, 100);
	expect_ticks(&s, 6, d, 5);
	scale__linear(&s, 0, 2600, 0, 100);
	expect_ticks(&s, 6, e, 6);
	/* Never more than asked for, whatever the range. */
	for (double hi = 1; hi < 1e7; hi *= 1.37) {
		double t[64];
		size_t k;

		scale__linear(&s, 0, hi, 0, 100);
		k = scale__ticks(&s, t, 7);
		assert_true(k >= 2 && k <= 7);
		assert_true(t[0] >= 0 && t[k - 1] <= hi * (1 + 1e-9));
	}
	/* Sizes on a linear axis: steps of a power of two. */
	{
		static const double kib[] = { 0, 32768, 65536, 98304, 131072 };

		scale__linear(&s, 0, 140000, 0, 100);
		s.base = 2;
		expect_ticks(&s, 6, kib, 5);
	}
	/* Zero is zero, not -1e-17. */
	scale__linear(&s, -0.3, 0.3, 0, 100);
	{
		double t[16];
		size_t k = scale__ticks(&s, t, 7), i;
		bool zero = false;

		for (i = 0; i < k; i++)
			zero |= t[i] == 0 && !signbit(t[i]);
		assert_true(zero);
	}
}

static void test_log_ticks(void **state)
{
	static const double sizes[] = { 4096,	8192,	16384,	32768,	65536,
					131072, 262144, 524288, 1048576 };
	static const double every2[] = { 4096, 16384, 65536, 262144, 1048576 };
	static const double ns[] = { 1e3, 1e4, 1e5, 1e6, 1e7 };
	static const double one_decade[] = { 200, 500, 1000, 2000 };
	struct scale s;

	(void)state;
	scale__log(&s, 4096, 1048576, 0, 600, 2);
	expect_ticks(&s, 12, sizes, 9);
	/* Too many powers: every second one, aligned (4K 16K 64K ... not 8K 32K ...). */
	expect_ticks(&s, 5, every2, 5);
	scale__log(&s, 500, 2e7, 0, 600, 10);
	expect_ticks(&s, 8, ns, 5);
	/* Less than two decades of base 10: 1-2-5 steps. */
	scale__log(&s, 150, 2500, 0, 600, 10);
	expect_ticks(&s, 8, one_decade, 4);
}

/* The pixels a bucket's bar covers: its exact bounds, on linear and log axes. */
static void test_bucket_pixels(void **state)
{
	struct scale lin, lg;

	(void)state;
	/* 0 .. 1 MiB over 1024 px: one KiB per pixel; [44 KiB, 48 KiB) is 44..48. */
	scale__linear(&lin, 0, 1048576, 0, 1024);
	assert_true(fabs(scale__map(&lin, 44 * 1024) - 44) < EPS);
	assert_true(fabs(scale__map(&lin, 48 * 1024) - 48) < EPS);
	/* [124 KiB, 128 KiB) and [128 KiB, 132 KiB) are neighbours, not one bar. */
	assert_true(scale__map(&lin, 128 * 1024) - scale__map(&lin, 124 * 1024) > 3.99);
	/* On a log axis 4 KiB .. 1 MiB over 800 px (100 px per doubling): 128 KiB at 500. */
	scale__log(&lg, 4096, 1048576, 0, 800, 2);
	assert_true(fabs(scale__map(&lg, 131072) - 500) < 1e-6);
	assert_true(fabs(scale__map(&lg, 45056) - 100 * log2(11)) < 1e-6);
}

/* What draw writes, as a string to free. (Static: gcc 12 takes a local that
 * open_memstream fills for a pointer to itself, -Wdangling-pointer.) */
static char *render(void (*draw)(FILE *f, void *arg), void *arg)
{
	static char *buf;
	static size_t len;
	FILE *f;

	buf = NULL;
	f = open_memstream(&buf, &len);

	assert_non_null(f);
	draw(f, arg);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void draw_escape(FILE *f, void *arg)
{
	svg__escape(f, arg);
}

static void test_escape(void **state)
{
	char *s;

	(void)state;
	s = render(draw_escape, "<script>alert('x') & \"y\"</script>");
	assert_string_equal(s,
			    "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
	free(s);
	/* Valid UTF-8 stays; a stray byte and a control character become U+FFFD. */
	s = render(draw_escape, "caf\xc3\xa9 \xff\x01 ok\ttab");
	assert_string_equal(s, "caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd ok\ttab");
	free(s);
	/* A sequence cut short at the end of the string. */
	s = render(draw_escape, "x\xe2\x82");
	assert_string_equal(s, "x\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, off = 0;
	const char *p;

	while ((p = strstr(hay + off, needle))) {
		n++;
		off = (size_t)(p - hay) + 1;
	}
	return n;
}

static const char *fmt_num(char *buf, size_t len, double v)
{
	return fmt__num(buf, len, v);
}

static void draw_chart(FILE *f, void *arg)
{
	struct svg g;
	struct plot p;
	double r0, r1;

	(void)arg;
	svg__begin(&g, f, 400, 200, "hist", "runs[0].block.segments.buckets", "a <title>");
	plot__init(&p, &g, 50, 10, 300, 150);
	plot__x_range(&p, &r0, &r1);
	scale__linear(&p.x, 0, 10, r0, r1);
	plot__y_range(&p, &r0, &r1);
	scale__linear(&p.y, 0, 1000, r0, r1);
	plot__x_axis(&p, NULL, NULL, 0, 6, fmt_num, "segments");
	plot__y_axis(&p, 5, fmt_num, "requests");
	plot__bar(&p, 1, 2, 1000, 1, "a", "1 segment: 1000");
	plot__bar(&p, 2, 3, 1, 1, "a", "2 & more"); /* tiny: still one pixel high */
	plot__bar(&p, 3, 4, 0, 1, "a", NULL);
	plot__vmark(&p, 5, "p50 5", "p50", 0);
	plot__vmark(&p, 50, "off the axis", "p99", 1);
	plot__legend(&p, 200, 0, "a", "A <1>");
	svg__end(&g);
}

static void test_chart(void **state)
{
	char *s = render(draw_chart, NULL);

	(void)state;
	assert_true(!strncmp(s, "<svg class=\"chart\"", 18));
	assert_non_null(strstr(s, "data-hist=\"runs[0].block.segments.buckets\""));
	assert_non_null(strstr(s, "<title>a &lt;title&gt;</title>"));
	assert_int_equal(count(s, "<rect class=\"bar "), 3);
	assert_int_equal(count(s, "<rect class=\"swatch"), 1); /* a legend is no bar */
	/* The full bar: x 1..2 of 0..10 over 50..350 is 80..110; y 1000 is the top (10). */
	assert_non_null(strstr(s, "x=\"80.00\" y=\"10.00\" width=\"30.00\" height=\"150.00\""));
	/* A count of 1 in 1000 is below a pixel: drawn one pixel high. */
	assert_non_null(strstr(s, "x=\"110.00\" y=\"159.00\" width=\"30.00\" height=\"1.00\""));
	assert_non_null(strstr(s, "height=\"0.00\""));
	assert_non_null(strstr(s, "<title>2 &amp; more</title>"));
	assert_int_equal(count(s, "class=\"mark "), 1); /* the one off the axis is left out */
	assert_non_null(strstr(s, ">A &lt;1&gt;</text>"));
	assert_int_equal(count(s, "<svg"), 1);
	assert_int_equal(count(s, "</svg>"), 1);
	assert_int_equal(count(s, "<g"), count(s, "</g>"));
	assert_null(strstr(s, "http"));
	free(s);
}

static void draw_line(FILE *f, void *arg)
{
	static const double xs[] = { 0, 1, 2, 3 }, ys[] = { 0, 1, NAN, 3 };
	struct svg g;
	struct plot p;

	(void)arg;
	svg__begin(&g, f, 100, 100, NULL, NULL, "line");
	plot__init(&p, &g, 0, 0, 100, 100);
	scale__linear(&p.x, 0, 3, 0, 90);
	scale__linear(&p.y, 0, 3, 90, 0);
	plot__line(&p, xs, ys, 4, "a", true);
	plot__errbar(&p, 1, 0.5, 1.5, "a");
	svg__end(&g);
}

static void test_line_breaks_on_nan(void **state)
{
	char *s = render(draw_line, NULL);

	(void)state;
	/* Two pieces: 0..1, then 3 alone. */
	assert_non_null(strstr(s, "d=\"M0.00 90.00 L30.00 60.00 M90.00 0.00 \""));
	assert_int_equal(count(s, "<circle"), 3);
	assert_null(strstr(s, "data-"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linear_map),    cmocka_unit_test(test_log_map),
		cmocka_unit_test(test_linear_ticks),  cmocka_unit_test(test_log_ticks),
		cmocka_unit_test(test_bucket_pixels), cmocka_unit_test(test_escape),
		cmocka_unit_test(test_chart),	      cmocka_unit_test(test_line_breaks_on_nan),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
