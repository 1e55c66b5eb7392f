/* SPDX-License-Identifier: MIT */
/* Marks on the timeline: their text checked, their fields set, a list of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "marks.h"
#include "text.h"
#include "xalloc.h"

bool mark_text_check(const char *text, char *why, size_t len)
{
	size_t n = text != NULL ? strlen(text) : 0;
	char clean[4 * MARK_TEXT_MAX + 8];
	size_t i;

	if (n == 0) {
		snprintf(why, len, "the text is empty");
		return false;
	}
	if (n > MARK_TEXT_MAX) {
		snprintf(why, len, "the text is %zu bytes long, over the %d a mark holds", n,
		         MARK_TEXT_MAX);
		return false;
	}
	/* text_clean escapes exactly what a mark may not hold: where it first differs. */
	text_clean(text, clean, sizeof(clean), false);
	for (i = 0; text[i] != '\0' && text[i] == clean[i]; i++)
		;
	if (text[i] == '\0' && clean[i] == '\0')
		return true;
	{
		unsigned char c = (unsigned char)text[i];

		if (c < 0x20 || c == 0x7f ||
		    (c == 0xc2 && (unsigned char)text[i + 1] >= 0x80 &&
		     (unsigned char)text[i + 1] <= 0x9f))
			snprintf(why, len,
			         "the text holds a control character (0x%02x) at byte %zu",
			         c == 0xc2 ? (unsigned char)text[i + 1] : c, i + 1);
		else
			snprintf(why, len, "the text is not valid UTF-8 at byte %zu (0x%02x)",
			         i + 1, c);
	}
	return false;
}

void mark_set(struct run_mark *m, const char *workload, uint32_t step, uint64_t at_ns,
              uint32_t interval, const char *source, const char *agent, const char *text)
{
	struct timespec ts;

	memset(m, 0, sizeof(*m));
	snprintf(m->workload, sizeof(m->workload), "%s", workload);
	m->step = step;
	m->at_ns = at_ns;
	m->interval = interval;
	if (clock_gettime(CLOCK_REALTIME, &ts) == 0)
		m->unix_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	snprintf(m->source, sizeof(m->source), "%s", source);
	snprintf(m->agent, sizeof(m->agent), "%s", agent != NULL ? agent : "");
	snprintf(m->text, sizeof(m->text), "%s", text);
}

void mark_list_add(struct mark_list *l, const struct run_mark *m)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n++] = *m;
}

void mark_list_free(struct mark_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
