/* SPDX-License-Identifier: MIT */
/* Campaign events as plain lines, for pipes and CI logs. */
#include <stdlib.h>
#include <string.h>

#include "event_json.h"
#include "text.h"
#include "units.h"
#include "view_plain.h"

/* The widest line a person reads (the step lines, a knee's words wrapped). */
#define VIEW_PLAIN_WIDTH 100

static const char *view_us(double us, char *buf, size_t len)
{
	units_format_duration((uint64_t)(us * 1e3), buf, len);
	return buf;
}

void view_json(void *arg, const struct event *e)
{
	FILE *f = arg;
	char *text = event_json_encode(e);

	if (text != NULL) {
		fputs(text, f);
		fputc('\n', f);
		fflush(f);
	}
	free(text);
}

static void view_plain_layout(FILE *f, const struct event_layout *l)
{
	char a[32], b[32];

	units_format_size(l->done, a, sizeof(a));
	units_format_size(l->total, b, sizeof(b));
	fprintf(f, "  agent %s: laying out targets, %s of %s (%.0f%%)\n", l->agent, a, b,
	        l->total > 0 ? 100.0 * (double)l->done / (double)l->total : 0);
}

/*
 * "  step 3: achieved 12000 ops/s (93.8 MiB/s), judged 200us, response mean 236us, p99
 * 302us: met": the judged figure is the SLO's metric; a verdict's reasons that do not
 * fit go on the line below.
 */
static void view_plain_point(FILE *f, const struct event_point *p)
{
	char a[32], b[32], m[32], line[256], why[1024];
	int n;

	n = snprintf(line, sizeof(line),
	             "  step %u: achieved %.0f ops/s (%.1f MiB/s), judged %s, response mean %s, "
	             "p99 %s",
	             p->step + 1, p->achieved_ops, p->mib_s, view_us(p->metric_us, m, sizeof(m)),
	             view_us(p->mean_us, a, sizeof(a)), view_us(p->p99_us, b, sizeof(b)));
	if (n > 0 && p->errors > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n, ", errors %llu",
		         (unsigned long long)p->errors);
	snprintf(why, sizeof(why), "%s%s%s", p->verdict ? p->verdict : "",
	         /* failed operations are no capacity: their words stand alone */
	         p->saturated && *p->saturated
	             ? strncmp(p->saturated, "I/O errors", 10) == 0 ? "; " : "; saturated: "
	             : "",
	         p->saturated ? p->saturated : "");
	if (strlen(line) + 2 + strlen(why) <= VIEW_PLAIN_WIDTH) {
		fprintf(f, "%s: %s\n", line, why);
	} else {
		/* the reasons whole on their own line: a log is searched for them */
		fprintf(f, "%s:\n      %s\n", line, why);
	}
}

/* "workload NAME: its knee's words", wrapped, and why its steps ended. */
static void view_plain_done(FILE *f, const struct event_workload_done *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (m == NULL)
		return;
	fprintf(m, "workload %s: %s", d->name, d->knee_text);
	fclose(m);
	text_wrap(f, text, VIEW_PLAIN_WIDTH, "  ");
	free(text);
	fprintf(f, "  (%s)\n", d->why);
}

void view_plain(void *arg, const struct event *e)
{
	FILE *f = arg;
	char a[32], b[32];

	switch (e->kind) {
	case EVENT_AGENT:
		if (e->agent.state == EVENT_AGENT_READY)
			fprintf(f, "agent %s ready (%u/%u)\n", e->agent.name, e->agent.n,
			        e->agent.of);
		else
			fprintf(f, "agent %s lost%s%s\n", e->agent.name,
			        e->agent.reason && *e->agent.reason ? ": " : "",
			        e->agent.reason ? e->agent.reason : "");
		break;
	case EVENT_WORKLOAD: {
		char bs[32];

		units_format_size(e->workload.block_size, bs, sizeof(bs));
		fprintf(f, "workload %u/%u %s: %s %s, %u agent(s) x %u worker(s) x qd %u\n",
		        e->workload.workload + 1, e->workload.of, e->workload.name, e->workload.rw,
		        bs, e->workload.agents, e->workload.workers, e->workload.qd);
		break;
	}
	case EVENT_LAYOUT:
		view_plain_layout(f, &e->layout);
		break;
	case EVENT_STEP:
		if (e->step.offered_ops > 0)
			fprintf(f, "  step %u: %.0f ops/s offered (%.1f per worker)\n",
			        e->step.step + 1, e->step.offered_ops, e->step.per_worker);
		else
			fprintf(f, "  step %u: max, closed loop at queue depth %u per worker\n",
			        e->step.step + 1, e->step.qd);
		break;
	case EVENT_INTERVAL:
		if (strcmp(e->interval.agent, EVENT_FLEET) != 0)
			return;
		fprintf(f, "    interval %u%s: %.0f ops/s, %.1f MiB/s, response mean %s, p99 %s\n",
		        e->interval.interval + 1, e->interval.warmup ? " (warm-up)" : "",
		        e->interval.ops_s, e->interval.mib_s,
		        view_us(e->interval.mean_us, a, sizeof(a)),
		        view_us(e->interval.p99_us, b, sizeof(b)));
		break;
	case EVENT_POINT:
		view_plain_point(f, &e->point);
		break;
	case EVENT_WORKLOAD_DONE:
		view_plain_done(f, &e->workload_done);
		break;
	case EVENT_MARK:
		if (e->mark.between)
			fprintf(f, "  mark (%s) at step %u, %.1f s from its start: %s\n",
			        e->mark.source, e->mark.step + 1, e->mark.at_s, e->mark.text);
		else
			fprintf(f, "  mark (%s) at step %u, interval %u (%.1f s): %s\n",
			        e->mark.source, e->mark.step + 1, e->mark.interval + 1,
			        e->mark.at_s, e->mark.text);
		break;
	case EVENT_DONE:
		/* The end report: in-process and from a daemon alike. */
		if (e->done.summary != NULL)
			fputs(e->done.summary, f);
		break;
	default:
		return;
	}
	fflush(f);
}
