/* SPDX-License-Identifier: MIT */
/* Helpers the cmocka test programs share: campaign parsing that must pass or fail just so. */
#ifndef IOCURVE_TESTLIB_H
#define IOCURVE_TESTLIB_H

#include "campaign.h"

/* The three lines every small campaign in the tests starts with. */
#define TEST_HEAD                                                                                  \
	"campaign: t\n"                                                                            \
	"agents: {local: 1}\n"                                                                     \
	"target: {path: /tmp/x, size: 1MiB}\n"

/* Parse text as "test.yaml"; the test fails with the message when it is refused. */
struct campaign *testlib_campaign_ok(const char *text);
/* Parse text as "test.yaml"; it must be refused with a message starting with want. */
void testlib_campaign_fails(const char *text, const char *want);

#endif
