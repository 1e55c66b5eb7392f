/* SPDX-License-Identifier: MIT */
/*
 * The method's rule tables and docs/methodology.md's: a step's reasons not to be judged
 * (analysis/verdict.c) and the limiting factor (analysis/limit.c), the same names in the
 * same order, so the documented method is the one run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "limit.h"
#include "verdict.h"

/* The first cell of each row of the table whose head starts with `head`, in order. */
static size_t test_doc_words(const char *path, const char *head, char words[][32], size_t max)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t n = 0;
	int in = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line + strspn(line, " ");

		if (strncmp(p, head, strlen(head)) == 0) {
			in = 1;
			continue;
		}
		if (in == 1 && strncmp(p, "|---", 4) == 0) {
			in = 2;
			continue;
		}
		if (in == 2 && p[0] != '|')
			break;
		if (in == 2 && n < max) {
			size_t len = strcspn(p + 2, "|");

			while (len > 0 && p[2 + len - 1] == ' ')
				len--;
			snprintf(words[n++], sizeof(words[0]), "%.*s", (int)len, p + 2);
		}
	}
	fclose(f);
	return n;
}

/* The table of docs/methodology.md headed `head` against a rule table's names. */
static void test_doc_table(const char *head, const char *(*name)(size_t), size_t least)
{
	const char *src = getenv("IOCURVE_SOURCE");
	char path[4096], words[32][32];
	size_t n, i;

	if (src == NULL) {
		print_message("IOCURVE_SOURCE unset: skipped\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/docs/methodology.md", src);
	n = test_doc_words(path, head, words, 32);
	for (i = 0; name(i) != NULL; i++) {
		assert_true(i < n);
		assert_string_equal(words[i], name(i));
	}
	assert_int_equal(i, n);
	assert_true(n >= least);
}

static void test_step_rules(void **state)
{
	(void)state;
	test_doc_table("| Rule | Holds when |", verdict_rule_name, 9);
}

static void test_limit_rules(void **state)
{
	(void)state;
	test_doc_table("| Word | Holds when |", limit_row_word, 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_step_rules),
	    cmocka_unit_test(test_limit_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
