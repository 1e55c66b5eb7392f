/* SPDX-License-Identifier: MIT */
/* Descriptor budget: who goes to make room, caps against the limit, the reserve. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "fdbudget.h"

static const char *src_of(size_t i, void *arg)
{
	return ((const char **)arg)[i];
}

/* The oldest of the address holding the most goes, not the oldest of all. */
static void test_victim_is_oldest_of_largest_source(void **state)
{
	const char *c[] = {"10.0.0.9", "10.0.0.2", "10.0.0.2", "10.0.0.3", "10.0.0.2"};

	assert_int_equal(fdbudget_victim(5, src_of, c, "10.0.0.7"), 1);
	assert_int_equal(fdbudget_victim(0, src_of, c, "10.0.0.7"), -1);
}

/* The newcomer counts with its own: an address with many loses its own oldest first. */
static void test_newcomer_counts_with_its_source(void **state)
{
	const char *c[] = {"10.0.0.1", "10.0.0.2", "10.0.0.2", "10.0.0.3", "10.0.0.3"};

	/* 10.0.0.3 with the newcomer holds 3, more than 10.0.0.2's 2. */
	assert_int_equal(fdbudget_victim(5, src_of, c, "10.0.0.3"), 3);
	/* A tie (2, 2 and 2 with the newcomer) goes to the newcomer's own. */
	assert_int_equal(fdbudget_victim(5, src_of, c, "10.0.0.1"), 0);
	/* Without a newcomer's address, the oldest of the largest. */
	assert_int_equal(fdbudget_victim(5, src_of, c, NULL), 1);
	/* A lone agent is never the victim while a flood's address holds more. */
	{
		const char *d[] = {"127.0.0.1", "127.0.0.2", "127.0.0.2", "127.0.0.3"};

		assert_int_equal(fdbudget_victim(4, src_of, d, "127.0.0.3"), 3);
		assert_int_equal(fdbudget_victim(4, src_of, d, "127.0.0.4"), 1);
	}
}

/* Caps shrink with the limit, the reserve is its top quarter. */
static void test_caps_and_reserve(void **state)
{
	struct rlimit rl;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 256)
		skip();
	rl.rlim_cur = 256;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(fdbudget_nofile(), 256);
	assert_int_equal(fdbudget_cap(128, 4), 64);
	assert_int_equal(fdbudget_cap(64, 8), 32);
	assert_int_equal(fdbudget_cap(16, 8), 16);
	assert_int_equal(fdbudget_cap(64, 1000), 4);
	assert_false(fdbudget_in_reserve(191));
	assert_true(fdbudget_in_reserve(192));
	assert_false(fdbudget_in_reserve(-1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_victim_is_oldest_of_largest_source),
	    cmocka_unit_test(test_newcomer_counts_with_its_source),
	    cmocka_unit_test(test_caps_and_reserve),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
