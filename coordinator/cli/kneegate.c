/* SPDX-License-Identifier: MIT */
/* run --require-knee: the knees the workload_done events carry, held against the rate asked. */
#include <stdio.h>
#include <string.h>

#include "kneegate.h"
#include "runner.h"

static void kneegate_add(struct kneegate *g, const char *fmt_name, const char *what)
{
	size_t off = strlen(g->missed);

	snprintf(g->missed + off, sizeof(g->missed) - off, "%s%s (%s)", g->nmissed ? ", " : "",
	         fmt_name, what);
	g->nmissed++;
}

void kneegate_event(struct kneegate *g, const struct event *e)
{
	const struct event_workload_done *d = &e->workload_done;
	char what[512];

	if (g->rate <= 0 || e->kind != EVENT_WORKLOAD_DONE)
		return;
	g->nseen++;
	if (d->knee.kind == EVENT_KNEE_NONE) {
		/* with what limited it: a client-bound run is not the device missing the SLO */
		snprintf(what, sizeof(what), "no knee%s%s",
		         d->limit != NULL && d->limit[0] != '\0' ? "; " : "",
		         d->limit != NULL ? d->limit : "");
		kneegate_add(g, d->name, what);
		return;
	}
	/* above the peak: the knee is at least tp, so tp >= rate meets it */
	if (d->knee.tp >= g->rate)
		return;
	snprintf(what, sizeof(what), "knee %s%.1f %s",
	         d->knee.kind == EVENT_KNEE_ABOVE_PEAK ? "> " : "", d->knee.tp,
	         event_unit_name(d->unit));
	kneegate_add(g, d->name, what);
}

int kneegate_status(const struct kneegate *g, int status)
{
	if (g->rate <= 0 || (status != 0 && status != RUNNER_DEGRADED))
		return status;
	if (g->nmissed == 0 && g->nseen > 0) {
		fprintf(stderr,
		        "iocurve: --require-knee %.15g: every workload's knee is at or above it\n",
		        g->rate);
		return status;
	}
	if (g->nmissed == 0)
		fprintf(stderr,
		        "iocurve: --require-knee %.15g: no workload finished (exit status %d)\n",
		        g->rate, KNEEGATE_EXIT);
	else
		fprintf(stderr, "iocurve: --require-knee %.15g not met: %s (exit status %d)\n",
		        g->rate, g->missed, KNEEGATE_EXIT);
	return KNEEGATE_EXIT;
}
