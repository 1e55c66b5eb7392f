/* SPDX-License-Identifier: MIT */
/* Helpers the cmocka test programs share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

struct campaign *testlib_campaign_ok(const char *text)
{
	struct error err = {{0}};
	struct campaign *c = NULL;

	if (campaign_parse(text, strlen(text), "test.yaml", &c, &err) != 0)
		fail_msg("campaign refused: %s\n--- text ---\n%s", err.msg, text);
	assert_non_null(c);
	return c;
}

/* The message must start with want: the position is the point of these tests. */
void testlib_campaign_fails(const char *text, const char *want)
{
	struct error err = {{0}};
	struct campaign *c = (struct campaign *)&err; /* must be reset to NULL */

	if (campaign_parse(text, strlen(text), "test.yaml", &c, &err) == 0)
		fail_msg("campaign accepted, expected \"%s\"\n--- text ---\n%s", want, text);
	assert_null(c);
	if (strncmp(err.msg, want, strlen(want)) != 0)
		fail_msg("message \"%s\" does not start with \"%s\"", err.msg, want);
}
