/* SPDX-License-Identifier: MIT */
/* Unit tests for the name to index map: every name found, absent ones not, across growth. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "strindex.h"
#include "xalloc.h"

#define NAMES 10000

struct owner {
	char (*names)[32]; /* moves as it grows: the index reaches it through the owner */
	size_t n;
};

static const char *owner_name(const void *arg, size_t i)
{
	return ((const struct owner *)arg)->names[i];
}

static void test_strindex_grows_and_finds(void **state)
{
	struct owner o = {0};
	struct strindex x;

	(void)state;
	strindex_init(&x, owner_name, &o);
	assert_int_equal(strindex_find(&x, "agent-00000"), -1);
	for (size_t i = 0; i < NAMES; i++) {
		o.names = xreallocarray(o.names, i + 1, sizeof(*o.names));
		snprintf(o.names[i], sizeof(o.names[i]), "agent-%05zu", i);
		strindex_add(&x, o.n++);
		/* The newest and the first are found at every size. */
		assert_int_equal(strindex_find(&x, o.names[i]), (long)i);
		assert_int_equal(strindex_find(&x, "agent-00000"), 0);
	}
	for (size_t i = 0; i < NAMES; i++)
		assert_int_equal(strindex_find(&x, o.names[i]), (long)i);
	assert_int_equal(strindex_find(&x, "agent-10000"), -1);
	assert_int_equal(strindex_find(&x, "agent-0000"), -1);
	assert_int_equal(strindex_find(&x, ""), -1);
	assert_true(x.cap > 2 * NAMES);
	strindex_free(&x);
	free(o.names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_strindex_grows_and_finds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
