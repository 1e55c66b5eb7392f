/* SPDX-License-Identifier: MIT */
/* How a campaign ended, in the words every summary opens with. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runend.h"
#include "saferead.h"
#include "text.h"
#include "xalloc.h"

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

void runend_add_loss(struct runend *end, const char *agent, const char *workload, uint32_t step,
                     uint32_t interval, const char *reason)
{
	struct runend_loss *l;

	if (end->nlosses++ >= RUNEND_MAX_LOSSES)
		return;
	l = &end->losses[end->nlosses - 1];
	/* Cut on a character's edge, controls escaped: summary.json holds only UTF-8. */
	text_clean(agent, l->agent, sizeof(l->agent), false);
	text_clean(workload, l->workload, sizeof(l->workload), false);
	l->step = step;
	l->interval = interval;
	text_clean(reason, l->reason, sizeof(l->reason), false);
}

void runend_loss_words(const struct runend_loss *l, char *buf, size_t len)
{
	if (l->interval == UINT32_MAX)
		snprintf(buf, len, "agent %s lost before %s step %u (%s)", l->agent, l->workload,
		         l->step + 1, l->reason);
	else
		snprintf(buf, len, "agent %s lost at %s step %u, interval %u (%s)", l->agent,
		         l->workload, l->step + 1, l->interval + 1, l->reason);
}

bool runend_degraded(const struct runend *end, char *buf, size_t len)
{
	size_t used;
	uint32_t shown;

	if (len == 0)
		return end != NULL && end->nlosses > 0;
	buf[0] = '\0';
	if (end == NULL || end->nlosses == 0)
		return false;
	used = (size_t)snprintf(buf, len, "degraded: ");
	shown = end->nlosses < RUNEND_MAX_LOSSES ? end->nlosses : RUNEND_MAX_LOSSES;
	for (uint32_t i = 0; i < shown && used < len; i++) {
		char one[640];

		runend_loss_words(&end->losses[i], one, sizeof(one));
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "; " : "", one);
	}
	if (end->nlosses > shown && used < len)
		snprintf(buf + used, len - used, "; and %u more", end->nlosses - shown);
	return true;
}

char *runend_meta_read(const char *dir, struct error *err)
{
	size_t len = 0;
	char *text;

	err->msg[0] = '\0';
	text = saferead_all(AT_FDCWD, dir, "meta.json", RUNEND_META_MAX, 0, &len, err);
	if (text == NULL && errno == ENOENT)
		err->msg[0] = '\0'; /* none: not an error */
	if (text == NULL || len == 0) {
		free(text);
		return NULL;
	}
	if (text[len - 1] == '\n')
		text[--len] = '\0';
	return text;
}
