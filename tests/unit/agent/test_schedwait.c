/* SPDX-License-Identifier: MIT */
/* The reap delay a worker's wait for a CPU implies (agent/schedwait.c), on paper and for real. */
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "clock.h"
#include "schedwait.h"

/* Shares of a span: asleep waits a whole mean wait, waiting half of one, running none. */
static void test_estimate(void **state)
{
	(void)state;
	/* 1 s: ran 0.1 s, waited 0.2 s over 100 runs (2 ms each), asleep 0.7 s */
	assert_float_equal(schedwait_estimate(NSEC_PER_SEC, 100000000, 200000000, 100),
	                   (0.7 + 0.1) * 2e6, 1);
	/* always on a CPU: nothing lands unseen */
	assert_float_equal(schedwait_estimate(NSEC_PER_SEC, NSEC_PER_SEC, 0, 10), 0, 1e-9);
	/* never run in the span, or no span: unknown, 0 */
	assert_float_equal(schedwait_estimate(NSEC_PER_SEC, 0, 5000, 0), 0, 1e-9);
	assert_float_equal(schedwait_estimate(0, 0, 5000, 3), 0, 1e-9);
	/* counters read a little apart from the clock: shares kept within the span */
	assert_float_equal(schedwait_estimate(1000, 1200, 100, 1), 0, 1e-9);
	assert_float_equal(schedwait_estimate(1000, 500, 800, 4), (0 + 0.5 / 2) * 200, 1e-9);
}

static void sw_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * A thread that sleeps 1 ms at a time beside two busy loops on its one CPU waits for
 * that CPU at every wake-up: the scheduler's account shows it and the estimate is not
 * 0. Without the kernel's account (CONFIG_SCHED_INFO off) it says so by a 0.
 */
static void test_contended(void **state)
{
	struct schedwait s;
	pid_t hog[2];
	uint64_t est, t0;

	(void)state;
	schedwait_open(&s);
	if (s.fd < 0) {
		print_message("no /proc/thread-self/schedstat: skipped\n");
		skip();
	}
	sw_pin(0);
	for (int i = 0; i < 2; i++) {
		hog[i] = fork();
		if (hog[i] == 0)
			for (;;)
				;
	}
	t0 = clock_now_ns();
	schedwait_mark(&s, t0);
	while (clock_now_ns() - t0 < 300 * NSEC_PER_MSEC)
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	est = schedwait_reap(&s, clock_now_ns());
	for (int i = 0; i < 2; i++) {
		kill(hog[i], SIGKILL);
		waitpid(hog[i], NULL, 0);
	}
	schedwait_close(&s);
	print_message("estimated reap delay beside two busy loops on one CPU: %.1f us\n",
	              (double)est / 1e3);
	assert_true(est > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_estimate),
	    cmocka_unit_test(test_contended),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
