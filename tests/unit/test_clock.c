// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The next tick of a period (clock.h): on the grid, after now, computed at once however
 * many ticks were missed, and past now even for a period a double cannot add to now
 * (1e-9 s on a host up ~194 days, 1e-300): counting up tick by tick spun for ever there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "base/clock.h"

static void test_on_the_grid(void **state)
{
	(void)state;
	/* Due in the future: unchanged. */
	assert_true(clock__next(10.5, 10.0, 0.5) == 10.5);
	/* Due now or missed: the first tick of the grid after now. */
	assert_true(clock__next(10.0, 10.0, 0.5) == 10.5);
	assert_true(clock__next(10.0, 11.2, 0.5) == 11.5);
	/* A week asleep at 10 ms: 60 million ticks folded into one, at once. */
	assert_true(clock__next(100.0, 100.0 + 7 * 86400.0 + 0.004, 0.01) > 100.0 + 7 * 86400.0);
}

static void test_never_spins(void **state)
{
	double up = 194 * 86400.0; /* a double's step there is ~2e-9 s */

	(void)state;
	assert_true(up + 1e-9 == up || up + 1e-9 - up < 2e-9);
	assert_true(clock__next(up, up, 1e-9) > up);
	assert_true(clock__next(up - 1, up, 1e-300) > up);
	assert_true(clock__next(0, 1e9, 1e-300) > 1e9);
}

/* A costly check waits CLOCK_PACE times the CPU it took; a cheap one its period. */
static void test_paced(void **state)
{
	double c0 = clock__cpu();
	volatile double x = 0;
	int i;

	(void)state;
	assert_true(clock__paced(0.001, 10, 1) == 11); /* 1 ms of CPU: the period */
	assert_true(fabs(clock__paced(0.5, 10, 1) - (10 + 0.5 * CLOCK_PACE)) < 1e-9);
	assert_true(clock__paced(0.1, 10, 1) - 10 >= 0.1 * CLOCK_PACE - 1e-9); /* 2% of a CPU */
	for (i = 0; i < 10000000; i++) /* CPU time moves with work done */
		x += i * 0.5;
	assert_true(x > 0 && clock__cpu() > c0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_on_the_grid),
		cmocka_unit_test(test_never_spins),
		cmocka_unit_test(test_paced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
