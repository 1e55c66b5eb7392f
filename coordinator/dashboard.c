/* SPDX-License-Identifier: MIT */
/* The live terminal dashboard (placeholder until written). */
#include <stddef.h>

#include "dashboard.h"

struct dashboard *dashboard_new(struct event_base *base, const struct dashboard_cbs *cbs, void *arg)
{
	(void)base;
	(void)cbs;
	(void)arg;
	return NULL;
}

void dashboard_event(struct dashboard *d, const char *line)
{
	(void)d;
	(void)line;
}

void dashboard_free(struct dashboard *d)
{
	(void)d;
}
