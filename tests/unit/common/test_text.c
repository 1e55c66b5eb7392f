/* SPDX-License-Identifier: MIT */
/* Unit tests for text_clean: control characters escaped, text and UTF-8 kept, cut safely. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "text.h"

static void test_text_escapes(void **state)
{
	char out[256];

	(void)state;
	/* A window title, a clear screen, a bell: what an agent's Error tried. */
	assert_string_equal(text_clean("a\x1b]0;pwned\a\x1b[2Jb", out, sizeof(out), false),
	                    "a\\x1b]0;pwned\\x07\\x1b[2Jb");
	assert_string_equal(text_clean("x\ny\tz\r", out, sizeof(out), false), "x\\x0ay\\x09z\\x0d");
	assert_string_equal(text_clean("x\ny\tz\r", out, sizeof(out), true), "x\ny\tz\\x0d");
	/* DEL, C1 CSI as UTF-8 and as a raw byte; other UTF-8 stays. */
	assert_string_equal(text_clean("\x7f\xc2\x9b\x9b\xc3\xa9", out, sizeof(out), false),
	                    "\\x7f\\xc2\\x9b\\x9b\xc3\xa9");
	assert_string_equal(text_clean(NULL, out, sizeof(out), false), "");
}

static void test_text_cut(void **state)
{
	char out[8];

	(void)state;
	assert_string_equal(text_clean("abcdefghij", out, sizeof(out), false), "abcdefg");
	/* An escape is never cut in half. */
	assert_string_equal(text_clean("abcd\x1b", out, sizeof(out), false), "abcd");
	assert_string_equal(text_clean("ab\x1b", out, sizeof(out), false), "ab\\x1b");
	/* Nor is a character: "abcde" and half of a 3-byte euro sign would not be UTF-8. */
	assert_string_equal(text_clean("abcde\xe2\x82\xac", out, sizeof(out), false), "abcde");
	assert_string_equal(text_clean("abcd\xe2\x82\xac", out, sizeof(out), false),
	                    "abcd\xe2\x82\xac");
}

/* Bytes that are not UTF-8 are escaped: JSON (jansson) refuses them, terminals misread them. */
static void test_text_not_utf8(void **state)
{
	char out[64];

	(void)state;
	assert_string_equal(text_clean("a\xff\xfe"
	                               "b",
	                               out, sizeof(out), false),
	                    "a\\xff\\xfeb");
	/* a lead byte without its continuation, an overlong '/', a surrogate */
	assert_string_equal(text_clean("\xe2\x82x", out, sizeof(out), false), "\\xe2\\x82x");
	assert_string_equal(text_clean("\xc0\xaf", out, sizeof(out), false), "\\xc0\\xaf");
	assert_string_equal(text_clean("\xed\xa0\x80", out, sizeof(out), false), "\\xed\\xa0\\x80");
	/* four bytes stay whole */
	assert_string_equal(text_clean("\xf0\x9f\x98\x80", out, sizeof(out), false),
	                    "\xf0\x9f\x98\x80");
}

/* text_wrap's lines, joined by '|' in place of newlines. */
static char *wrapped(const char *text, size_t width, const char *indent)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	text_wrap(f, text, width, indent);
	fclose(f);
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = '|';
	return buf;
}

/* Lines break at spaces within the width, indented after the first; a line stays a line. */
static void test_text_wrap(void **state)
{
	char *w;

	(void)state;
	w = wrapped("the knee lies at or above the highest step", 20, "  ");
	assert_string_equal(w, "the knee lies at or|  above the highest|  step|");
	free(w);
	/* a newline in the text starts a new (indented) line */
	w = wrapped("one\n- two three", 40, "  ");
	assert_string_equal(w, "one|  - two three|");
	free(w);
	/* a word longer than a line is cut where the line ends */
	w = wrapped("at /a/very/long/path/name/here", 16, "  ");
	assert_string_equal(w, "at|  /a/very/long/p|  ath/name/here|");
	free(w);
	w = wrapped("", 10, "  ");
	assert_string_equal(w, "|");
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text_escapes),
	    cmocka_unit_test(test_text_wrap),
	    cmocka_unit_test(test_text_cut),
	    cmocka_unit_test(test_text_not_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
