/* SPDX-License-Identifier: MIT */
/* How a campaign ended, in the words every summary opens with. */
#include <stdio.h>
#include <string.h>

#include "runend.h"

bool runend_note(const struct runend *end, char *buf, size_t len)
{
	if (end == NULL || end->state[0] == '\0') {
		buf[0] = '\0';
		return false;
	}
	if (strcmp(end->state, RUNEND_RUNNING) == 0) {
		snprintf(buf, len,
		         "RUNNING: written after a step while the campaign ran; how it ended is "
		         "not recorded here (its run was killed, or this file could not be "
		         "replaced at the end: see the end line of intervals.jsonl, or the "
		         "daemon's status).");
		return true;
	}
	snprintf(buf, len,
	         "%s: %s. The figures are from the steps measured before it ended: a knee "
	         "search (refine, confirmation) cut short leaves its bracket as it was.",
	         strcmp(end->state, "cancelled") == 0 ? "CANCELLED" : "FAILED", end->reason);
	return true;
}
