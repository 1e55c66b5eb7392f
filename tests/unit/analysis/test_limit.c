/* SPDX-License-Identifier: MIT */
/*
 * The limiting factor's rules (analysis/limit.c) and docs/methodology.md's table of
 * them: the same words in the same order, so the documented method is the one run.
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

/* The first cell of each row of the table headed "| Word | Holds when |", in order. */
static size_t test_doc_words(const char *path, char words[][32], size_t max)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t n = 0;
	int in = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		char *p = line + strspn(line, " ");

		if (strncmp(p, "| Word | Holds when |", 21) == 0) {
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

static void test_doc_rows(void **state)
{
	const char *src = getenv("IOCURVE_SOURCE");
	char path[4096], words[32][32];
	size_t n, i;

	(void)state;
	if (src == NULL) {
		print_message("IOCURVE_SOURCE unset: skipped\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/docs/methodology.md", src);
	n = test_doc_words(path, words, 32);
	for (i = 0; limit_row_word(i) != NULL; i++) {
		assert_true(i < n);
		assert_string_equal(words[i], limit_row_word(i));
	}
	assert_int_equal(i, n);
	assert_true(n >= 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_doc_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
