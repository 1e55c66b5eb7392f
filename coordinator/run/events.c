/* SPDX-License-Identifier: MIT */
/* A campaign's live event stream: typed events fanned out to subscribers; their field table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "events.h"
#include "judged.h"
#include "pointfields.h"
#include "xalloc.h"

static const char *const events_kinds[EVENT_KIND_N] = {
    "campaign", "agent",         "workload", "layout", "step",     "interval",
    "point",    "workload_done", "done",     "mark",   "observed",
};
static const char *const events_agent_states[] = {"ready", "lost"};
static const char *const events_units[] = {"ops/s", "MiB/s"};
static const char *const events_knee_kinds[] = {"none", "measured", "interpolated", "above_peak",
                                                "at_peak"};

/* The table reads and writes enum members as int. */
_Static_assert(sizeof(enum event_unit) == sizeof(int) &&
                   sizeof(enum event_knee_kind) == sizeof(int) &&
                   sizeof(enum event_agent_state) == sizeof(int),
               "enum members are ints");

#define EVENTS_NAMES(a) a, sizeof(a) / sizeof(a[0])
/* A member of struct event: kind.member under key. */
#define EF(key, type, member)                                                                      \
	{                                                                                          \
		key, type, offsetof(struct event, member), NULL, 0                                 \
	}
#define EF_ENUM(key, member, names)                                                                \
	{                                                                                          \
		key, EVENT_T_ENUM, offsetof(struct event, member), EVENTS_NAMES(names)             \
	}
#define EF_KNEE(of)                                                                                \
	EF_ENUM("knee_kind", of.knee.kind, events_knee_kinds),                                     \
	    EF("knee_tp", EVENT_T_DOUBLE, of.knee.tp), EF("knee_lo", EVENT_T_DOUBLE, of.knee.lo),  \
	    EF("knee_hi", EVENT_T_DOUBLE, of.knee.hi)

static const struct event_field events_campaign[] = {
    EF("name", EVENT_T_STR, campaign.name),
    EF("id", EVENT_T_U32, campaign.id),
    EF("workloads", EVENT_T_U32, campaign.workloads),
    EF("results", EVENT_T_STR, campaign.results),
    EF("slo_us", EVENT_T_DOUBLE, campaign.slo_us),
    EF("metric", EVENT_T_STR, campaign.metric),
    EF("agents_wanted", EVENT_T_U32, campaign.agents_wanted),
};

static const struct event_field events_agent[] = {
    EF("name", EVENT_T_STR, agent.name),     EF_ENUM("state", agent.state, events_agent_states),
    EF("n", EVENT_T_U32, agent.n),           EF("of", EVENT_T_U32, agent.of),
    EF("reason", EVENT_T_STR, agent.reason),
};

static const struct event_field events_workload[] = {
    EF("workload", EVENT_T_U32, workload.workload),
    EF("of", EVENT_T_U32, workload.of),
    EF("name", EVENT_T_STR, workload.name),
    EF("rw", EVENT_T_STR, workload.rw),
    EF("block_size", EVENT_T_U32, workload.block_size),
    EF("workers", EVENT_T_U32, workload.workers),
    EF("qd", EVENT_T_U32, workload.qd),
    EF("agents", EVENT_T_U32, workload.agents),
    EF_ENUM("unit", workload.unit, events_units),
    EF("max_steps", EVENT_T_U32, workload.max_steps),
};

static const struct event_field events_layout[] = {
    EF("workload", EVENT_T_U32, layout.workload),
    EF("agent", EVENT_T_STR, layout.agent),
    EF("done", EVENT_T_U64, layout.done),
    EF("total", EVENT_T_U64, layout.total),
};

static const struct event_field events_step[] = {
    EF("workload", EVENT_T_U32, step.workload),
    EF("step", EVENT_T_U32, step.step),
    EF("offered_ops", EVENT_T_DOUBLE, step.offered_ops),
    EF("per_worker", EVENT_T_DOUBLE, step.per_worker),
    EF("qd", EVENT_T_U32, step.qd),
    EF("seconds", EVENT_T_DOUBLE, step.seconds),
};

static const struct event_field events_interval[] = {
    EF("workload", EVENT_T_U32, interval.workload), EF("step", EVENT_T_U32, interval.step),
    EF("interval", EVENT_T_U32, interval.interval), EF("warmup", EVENT_T_BOOL, interval.warmup),
    EF("agent", EVENT_T_STR, interval.agent),       EF("ops_s", EVENT_T_DOUBLE, interval.ops_s),
    EF("mib_s", EVENT_T_DOUBLE, interval.mib_s),    EF("mean_us", EVENT_T_DOUBLE, interval.mean_us),
    EF("p99_us", EVENT_T_DOUBLE, interval.p99_us),  EF("cpu_pct", EVENT_T_DOUBLE, interval.cpu_pct),
    EF("errors", EVENT_T_U64, interval.errors),
};

static const struct event_field events_point[] = {
    EF("workload", EVENT_T_U32, point.workload),
    EF("step", EVENT_T_U32, point.step),
    EF("offered_ops", EVENT_T_DOUBLE, point.offered_ops),
    EF("achieved_ops", EVENT_T_DOUBLE, point.achieved_ops),
    EF("mib_s", EVENT_T_DOUBLE, point.mib_s),
    EF("mean_us", EVENT_T_DOUBLE, point.mean_us),
    EF("p50_us", EVENT_T_DOUBLE, point.p50_us),
    EF("p99_us", EVENT_T_DOUBLE, point.p99_us),
    EF("metric_us", EVENT_T_DOUBLE, point.metric_us),
    EF("steady", EVENT_T_BOOL, point.steady),
    EF("errors", EVENT_T_U64, point.errors),
    EF("client_cpu_pct", EVENT_T_DOUBLE, point.client_cpu_pct),
    EF("saturated", EVENT_T_STR, point.saturated),
    EF_KNEE(point),
    EF("agents_lost", EVENT_T_U32, point.agents_lost),
    EF("verdict", EVENT_T_STR, point.verdict),
    EF("bg_ops", EVENT_T_DOUBLE, point.bg_ops),
    EF("bg_kept_up", EVENT_T_BOOL, point.bg_kept_up),
};

static const struct event_field events_workload_done[] = {
    EF("workload", EVENT_T_U32, workload_done.workload),
    EF("name", EVENT_T_STR, workload_done.name),
    EF("knee", EVENT_T_STR, workload_done.knee_text),
    EF_KNEE(workload_done),
    EF("peak_tp", EVENT_T_DOUBLE, workload_done.peak_tp),
    EF_ENUM("unit", workload_done.unit, events_units),
    EF("why", EVENT_T_STR, workload_done.why),
    EF("limit", EVENT_T_STR, workload_done.limit),
    EF("knee_speed", EVENT_T_DOUBLE, workload_done.knee_speed),
};

static const struct event_field events_done[] = {
    EF("status", EVENT_T_I32, done.status),
    EF("message", EVENT_T_STR, done.message),
    EF("results", EVENT_T_STR, done.results),
    EF("summary", EVENT_T_STR, done.summary),
};

static const struct event_field events_mark[] = {
    EF("workload", EVENT_T_U32, mark.workload), EF("step", EVENT_T_U32, mark.step),
    EF("interval", EVENT_T_U32, mark.interval), EF("between", EVENT_T_BOOL, mark.between),
    EF("at_s", EVENT_T_DOUBLE, mark.at_s),      EF("text", EVENT_T_STR, mark.text),
    EF("source", EVENT_T_STR, mark.source),     EF("agent", EVENT_T_STR, mark.agent),
};

static const struct event_field events_observed[] = {
    EF("workload", EVENT_T_U32, observed.workload), EF("step", EVENT_T_U32, observed.step),
    EF("interval", EVENT_T_U32, observed.interval), EF("source", EVENT_T_STR, observed.source),
    EF("series", EVENT_T_STR, observed.series),     EF("has", EVENT_T_BOOL, observed.has),
    EF("value", EVENT_T_DOUBLE, observed.value),    EF("late", EVENT_T_STR, observed.late),
};

static const struct {
	const struct event_field *f;
	size_t n;
} events_table[EVENT_KIND_N] = {
    {EVENTS_NAMES(events_campaign)}, {EVENTS_NAMES(events_agent)},
    {EVENTS_NAMES(events_workload)}, {EVENTS_NAMES(events_layout)},
    {EVENTS_NAMES(events_step)},     {EVENTS_NAMES(events_interval)},
    {EVENTS_NAMES(events_point)},    {EVENTS_NAMES(events_workload_done)},
    {EVENTS_NAMES(events_done)},     {EVENTS_NAMES(events_mark)},
    {EVENTS_NAMES(events_observed)},
};

const char *event_kind_name(enum event_kind k)
{
	return (unsigned)k < EVENT_KIND_N ? events_kinds[k] : NULL;
}

int event_kind_of(const char *name)
{
	for (int k = 0; name != NULL && k < EVENT_KIND_N; k++)
		if (strcmp(events_kinds[k], name) == 0)
			return k;
	return -1;
}

const struct event_field *event_fields(enum event_kind k, size_t *n)
{
	*n = (unsigned)k < EVENT_KIND_N ? events_table[k].n : 0;
	return *n ? events_table[k].f : NULL;
}

const char *event_unit_name(enum event_unit u)
{
	return events_units[u == EVENT_UNIT_MIB];
}

const char *event_knee_kind_name(enum event_knee_kind k)
{
	return (unsigned)k < sizeof(events_knee_kinds) / sizeof(events_knee_kinds[0])
	           ? events_knee_kinds[k]
	           : "none";
}

enum event_unit event_unit_of(const struct workload *w)
{
	return curve_uses_mib(w) ? EVENT_UNIT_MIB : EVENT_UNIT_OPS;
}

struct event_knee event_knee_of(const struct judged_curve *j, double *peak)
{
	const struct knee *k = &j->knee;
	struct event_knee ek = {
	    .kind = EVENT_KNEE_NONE, .tp = k->throughput, .lo = k->band_lo, .hi = k->band_hi};

	switch (k->kind) {
	case KNEE_INTERPOLATED:
		ek.kind = EVENT_KNEE_INTERPOLATED;
		break;
	case KNEE_AT_STEP:
		ek.kind = EVENT_KNEE_MEASURED;
		break;
	case KNEE_AT_PEAK: /* summary.json's word: the stream and the summary agree */
		ek.kind = EVENT_KNEE_AT_PEAK;
		break;
	case KNEE_ALL_UNDER:
		ek.kind = EVENT_KNEE_ABOVE_PEAK;
		break;
	default:
		ek.tp = ek.lo = ek.hi = 0;
		break;
	}
	*peak = j->peak_tp;
	return ek;
}

void event_point_fill(struct event *e, const struct step_point *p)
{
	const struct pfield *rows[PFIELD_MAX];
	/* every row the event has a member for: the background's too, none without one */
	size_t n = pfield_list_kinds(PF_EVENT, PF_SHOW_BACKGROUND, rows);

	memset(e, 0, sizeof(*e));
	e->kind = EVENT_POINT;
	for (size_t i = 0; i < n; i++) {
		struct pfield_val v = pfield_value(rows[i], p, NULL);
		const char *key = pfield_event_key(rows[i]);

		for (size_t k = 0; k < sizeof(events_point) / sizeof(events_point[0]); k++) {
			char *to = (char *)e + events_point[k].off;

			if (strcmp(events_point[k].key, key) != 0)
				continue;
			switch (events_point[k].type) {
			case EVENT_T_U32:
				*(uint32_t *)to = (uint32_t)v.u;
				break;
			case EVENT_T_U64:
				*(uint64_t *)to = v.u;
				break;
			case EVENT_T_DOUBLE:
				/* a figure the point has none of (no background): null in JSON */
				*(double *)to = v.none ? NAN : v.d;
				break;
			case EVENT_T_BOOL:
				*(bool *)to = v.b;
				break;
			default: /* no point field is words or an enum in the event */
				break;
			}
		}
	}
}

void event_copy(struct event *dst, const struct event *src)
{
	size_t n;
	const struct event_field *f = event_fields(src->kind, &n);

	*dst = *src;
	for (size_t i = 0; i < n; i++)
		if (f[i].type == EVENT_T_STR) {
			const char **s = (const char **)((char *)dst + f[i].off);

			*s = xstrdup(*s != NULL ? *s : "");
		}
}

void event_clear(struct event *e)
{
	size_t n;
	const struct event_field *f = event_fields(e->kind, &n);

	for (size_t i = 0; i < n; i++)
		if (f[i].type == EVENT_T_STR) {
			const char **s = (const char **)((char *)e + f[i].off);

			free((char *)*s);
			*s = NULL;
		}
}

struct events_sub {
	events_fn fn;
	void *arg;
};

struct events {
	struct events_sub *subs;
	size_t n;
	int emitting; /* subscribers may unsubscribe from inside a call */
};

struct events *events_new(void)
{
	return xcalloc(1, sizeof(struct events));
}

void events_free(struct events *ev)
{
	if (ev == NULL)
		return;
	free(ev->subs);
	free(ev);
}

void events_subscribe(struct events *ev, events_fn fn, void *arg)
{
	ev->subs = xreallocarray(ev->subs, ev->n + 1, sizeof(*ev->subs));
	ev->subs[ev->n++] = (struct events_sub){fn, arg};
}

void events_emit(struct events *ev, const struct event *e)
{
	if (ev == NULL || ev->n == 0)
		return;
	ev->emitting++;
	for (size_t i = 0; i < ev->n; i++)
		if (ev->subs[i].fn != NULL)
			ev->subs[i].fn(ev->subs[i].arg, e);
	ev->emitting--;
	if (ev->emitting == 0) {
		size_t k = 0;

		for (size_t i = 0; i < ev->n; i++)
			if (ev->subs[i].fn != NULL)
				ev->subs[k++] = ev->subs[i];
		ev->n = k;
	}
}

void events_emit_done(struct events *ev, int status, const char *message, const char *results,
                      const char *summary)
{
	struct event e = {.kind = EVENT_DONE};

	e.done.status = status;
	e.done.message = message;
	e.done.results = results;
	e.done.summary = summary;
	events_emit(ev, &e);
}

void events_emit_campaign(struct events *ev, const struct campaign *c, uint32_t id,
                          const char *results)
{
	struct event e = {.kind = EVENT_CAMPAIGN};

	e.campaign.name = c->name;
	e.campaign.id = id;
	e.campaign.workloads = (uint32_t)c->nworkloads;
	e.campaign.results = results;
	e.campaign.slo_us = (double)c->slo_latency_ns / 1e3;
	e.campaign.metric = campaign_slo_metric_name(c->slo_metric);
	e.campaign.agents_wanted = c->agents_count;
	events_emit(ev, &e);
}
