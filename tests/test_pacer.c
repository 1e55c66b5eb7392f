/* SPDX-License-Identifier: MIT */
/* The pacer's rules: the margin before a due time, and the spin budget's cap on it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "clock.h"
#include "engine.h"
#include "pacer.h"

#define T0 (1000 * NSEC_PER_SEC)

/* Before calibration: sleep to the start margin before the due time, spin inside it. */
static void test_margin(void **state)
{
	struct pacer p;

	(void)state;
	pacer_init(&p, PACER_PRECISE, 0);
	assert_int_equal(pacer_margin(&p), PACER_MARGIN_START_NS);
	assert_int_equal(pacer_wait(&p, T0, T0 + 300000, true), 300000 - PACER_MARGIN_START_NS);
	assert_int_equal(pacer_wait(&p, T0, T0 + 110000, true), ENGINE_NO_WAIT);
	/* not an operation's due time (an interval's end): no margin */
	assert_int_equal(pacer_wait(&p, T0, T0 + 110000, false), 110000);
	/* efficient: to the due time itself */
	pacer_init(&p, PACER_EFFICIENT, 0);
	assert_int_equal(pacer_wait(&p, T0, T0 + 300000, true), 300000);
}

/*
 * Spinning through a window while preempted: the cap shrinks by a quarter, to zero
 * after enough windows (then the worker sleeps to the due time); a window without
 * preemption, or without much spinning, lets it grow back by an eighth.
 */
static void test_spin_budget(void **state)
{
	const uint64_t w = PACER_WINDOW_NS;
	struct pacer p;
	int n = 0;

	(void)state;
	pacer_init(&p, PACER_PRECISE, 0);
	pacer_window(&p, w, w / 2, 50);
	assert_int_equal(pacer_margin(&p), PACER_MARGIN_MAX_NS * 3 / 4);
	assert_int_equal(pacer_wait(&p, T0, T0 + 300000, true),
	                 300000 - PACER_MARGIN_MAX_NS * 3 / 4);
	while (pacer_margin(&p) > 0 && n++ < 100)
		pacer_window(&p, w, w / 2, 50);
	assert_true(n < 30);
	assert_int_equal(pacer_wait(&p, T0, T0 + 300000, true), 300000);
	assert_int_equal(pacer_wait(&p, T0, T0 + 25000, true), 25000); /* over the shortest sleep */
	/* preempted, but hardly spinning: not the spin's fault */
	pacer_window(&p, w, w / 100, 50);
	assert_int_equal(pacer_margin(&p), PACER_MARGIN_MAX_NS / 8);
	/* spinning alone on the core: back to the full margin */
	for (int i = 0; i < 8; i++)
		pacer_window(&p, w, w, PACER_PREEMPTIONS - 1);
	assert_int_equal(pacer_margin(&p), PACER_MARGIN_START_NS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_margin),
	    cmocka_unit_test(test_spin_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
