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
	snprintf(buf, len,
	         "%s: %s. The figures are from the steps measured before it ended: a knee "
	         "search (refine, confirmation) cut short leaves its bracket as it was.",
	         strcmp(end->state, "cancelled") == 0 ? "CANCELLED" : "FAILED", end->reason);
	return true;
}
