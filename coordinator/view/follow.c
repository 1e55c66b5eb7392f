/* SPDX-License-Identifier: MIT */
/* Showing one campaign's events: the dashboard, JSON lines or plain lines. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "follow.h"
#include "view_plain.h"
#include "xalloc.h"

struct follow {
	struct dashboard *dash;
	bool json;
	char *summary; /* the done event's end report, printed once the dashboard is gone */
};

struct follow *follow_new(struct event_base *base, bool json, const struct dashboard_cbs *cbs,
                          void *arg)
{
	struct follow *f = xcalloc(1, sizeof(*f));

	f->json = json;
	if (!json && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO))
		f->dash = dashboard_new(base, cbs, arg);
	return f;
}

void follow_notice(struct follow *f, const char *msg)
{
	if (f != NULL && f->dash != NULL)
		dashboard_notice(f->dash, msg);
	else
		fprintf(stderr, "iocurve: %s\n", msg);
}

void follow_event(void *arg, const struct event *e)
{
	struct follow *f = arg;

	if (f->dash == NULL) {
		(f->json ? view_json : view_plain)(stdout, e);
		return;
	}
	dashboard_event(f->dash, e);
	if (e->kind == EVENT_DONE && e->done.summary != NULL) {
		free(f->summary);
		f->summary = xstrdup(e->done.summary);
	}
}

bool follow_dashboard(const struct follow *f)
{
	return f != NULL && f->dash != NULL;
}

void follow_free(struct follow *f)
{
	if (f == NULL)
		return;
	if (f->dash != NULL) {
		dashboard_free(f->dash);
		if (f->summary != NULL)
			fputs(f->summary, stdout);
	}
	free(f->summary);
	free(f);
}
