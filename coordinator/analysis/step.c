/* SPDX-License-Identifier: MIT */
/* One step from its interval reports to its point, for the live run and `report` alike. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "figs.h"
#include "step.h"
#include "xalloc.h"

/* A fixed-work agent's name as its parts came (storm_compute's names). */
#define STEP_NAME_MAX 64

struct step {
	const struct campaign *c;
	const struct workload *w; /* NULL: a cooldown's probe */
	uint32_t step;
	double offered;
	struct agg_step *agg;
	uint32_t nagents;    /* agg's */
	uint32_t warm;       /* the window starts here: after the warm-up */
	uint32_t planned;    /* warm-up plus measured intervals, before extension */
	uint32_t nintervals; /* planned, with any steady extension */
	uint32_t cut;        /* the window ends here (0: not decided) */
	/* beside the intervals: the cooldown before it, earlier attempts */
	uint32_t cooldown_ms;
	char cooldown[16];
	uint32_t retries;
	/* fixed work: every worker's part, agents numbered as they came */
	struct storm_worker *parts;
	size_t nparts;
	char (*names)[STEP_NAME_MAX];
	uint32_t nnames;
};

struct step *step_new(const struct campaign *c, size_t w, uint32_t step, double offered,
                      uint32_t nagents, const char *const *names)
{
	struct step *s = xcalloc(1, sizeof(*s));
	const struct workload *wl = &c->workloads[w];

	s->c = c;
	s->w = wl;
	s->step = step;
	s->offered = offered;
	s->warm = (uint32_t)(wl->warmup_ns / wl->interval_ns);
	s->planned = (uint32_t)((wl->warmup_ns + wl->measure_ns) / wl->interval_ns);
	s->nintervals = s->planned + wl->steady_extend;
	s->agg = agg_step_new(nagents, names, s->nintervals);
	s->nagents = nagents;
	if (c->slo_part[0] != '\0')
		agg_step_slo_part(s->agg, mix_part_find(&wl->io.mix, c->slo_part));
	return s;
}

struct step *step_new_probe(uint32_t nagents, const char *const *names)
{
	struct step *s = xcalloc(1, sizeof(*s));

	s->planned = s->nintervals = 1;
	s->agg = agg_step_new(nagents, names, 1);
	s->nagents = nagents;
	return s;
}

void step_free(struct step *s)
{
	if (s == NULL)
		return;
	agg_step_free(s->agg);
	free(s->parts);
	free(s->names);
	free(s);
}

uint32_t step_add_agent(struct step *s, const char *name)
{
	s->nagents++;
	return agg_step_add_agent(s->agg, name);
}

/* The window ends at `to`: every interval since the warm-up up to it. */
void step_cut(struct step *s, uint32_t to)
{
	s->cut = to;
	agg_set_window(s->agg, s->warm, to);
}

/* Whether the window [warm, to)'s SLO metric has a 95% interval that holds the SLO. */
static bool step_straddles(const struct step *s, uint32_t to)
{
	double lo, hi, slo = (double)s->c->slo_latency_ns;

	agg_window_ci(s->agg, s->warm, to, s->c, &lo, &hi);
	return hi > 0 && lo <= slo && hi > slo;
}

/* Complete interval `interval` (merged m) judged: step_judge's rules. */
static enum step_answer step_judge_merged(struct step *s, uint32_t interval,
                                          const struct agg_record *m)
{
	uint32_t to = interval + 1;

	if (s->w == NULL || s->cut != 0)
		return STEP_GO_ON;
	if (s->w->work.on) {
		/* of the workers merged (an agent lost on the way no longer counts) */
		if (m->workers == 0 || m->finished < m->workers)
			return STEP_GO_ON;
	} else if (s->w->steady_extend == 0 || to < s->planned ||
	           (to < s->nintervals && step_straddles(s, to))) {
		return STEP_GO_ON;
	}
	step_cut(s, to);
	return to < s->nintervals ? STEP_END : STEP_CUT;
}

enum step_answer step_judge(struct step *s, uint32_t interval, const struct agg_record **merged)
{
	*merged = agg_merged(s->agg, interval);
	return *merged != NULL ? step_judge_merged(s, interval, *merged) : STEP_WAIT;
}

int step_feed(struct step *s, uint32_t agent, const Iocurve__IntervalReport *ir,
              struct agg_record *rec, const struct agg_record **merged, struct error *err)
{
	int rc = agg_add(s->agg, agent, ir, rec, merged, err);

	if (rc < 0)
		return -1;
	return rc == 0 ? STEP_WAIT : (int)step_judge_merged(s, ir->interval, *merged);
}

int step_feed_record(struct step *s, uint32_t agent, uint32_t interval,
                     const struct agg_record *rec, const struct agg_record **merged,
                     struct error *err)
{
	return agg_add_record(s->agg, agent, interval, rec, merged, err);
}

int step_set_hists(struct step *s, uint32_t interval, const struct record *merged)
{
	return agg_set_hists(s->agg, interval, merged);
}

uint32_t step_drop_agent(struct step *s, uint32_t agent)
{
	return agg_drop_agent(s->agg, agent);
}

uint32_t step_agents(const struct step *s)
{
	return s->nagents;
}

void step_drop_short(struct step *s)
{
	uint32_t most = 0, n = s->nagents;

	for (uint32_t a = 0; a < n; a++)
		if (agg_agent_reported(s->agg, a) > most)
			most = agg_agent_reported(s->agg, a);
	for (uint32_t a = 0; a < n; a++)
		if (agg_agent_reported(s->agg, a) < most)
			agg_drop_agent(s->agg, a);
}

bool step_close(struct step *s)
{
	if (s->cut != 0)
		return false;
	step_cut(s, s->nintervals);
	return s->w != NULL && (s->w->steady_extend > 0 || s->w->work.on);
}

void step_window(const struct step *s, uint32_t *from, uint32_t *to)
{
	*from = s->warm;
	*to = s->cut;
}

void step_limit_extend(struct step *s, uint32_t extend)
{
	if (s->cut == 0 && s->planned + extend < s->nintervals)
		s->nintervals = s->planned + extend;
}

uint32_t step_intervals(const struct step *s)
{
	return s->nintervals;
}

uint32_t step_planned(const struct step *s)
{
	return s->planned;
}

uint32_t step_agent_missing(const struct step *s, uint32_t agent, uint32_t *of)
{
	/* an agent that is done ran to the cut, or to the end when nothing cut the step */
	*of = s->cut != 0 ? s->cut : s->nintervals;
	return agg_agent_missing(s->agg, agent, *of);
}

bool step_complete(const struct step *s)
{
	return agg_complete(s->agg);
}

void step_set_cooldown(struct step *s, uint32_t ms, const char *outcome)
{
	s->cooldown_ms = ms;
	snprintf(s->cooldown, sizeof(s->cooldown), "%s", outcome ? outcome : "");
}

void step_set_retries(struct step *s, uint32_t retries)
{
	s->retries = retries;
}

void step_add_parts(struct step *s, const char *agent, const struct storm_worker *ws, size_t n)
{
	uint32_t a = 0;

	while (a < s->nnames && strcmp(s->names[a], agent) != 0)
		a++;
	if (a == s->nnames) {
		s->names = xreallocarray(s->names, s->nnames + 1, sizeof(*s->names));
		snprintf(s->names[s->nnames++], STEP_NAME_MAX, "%s", agent);
	}
	s->parts = xreallocarray(s->parts, s->nparts + n + 1, sizeof(*s->parts));
	for (size_t i = 0; i < n; i++) {
		s->parts[s->nparts] = ws[i];
		s->parts[s->nparts++].agent = a;
	}
}

void step_point(const struct step *s, struct step_point *pt)
{
	agg_point(s->agg, s->step, s->offered, s->c, pt);
	if (s->w->work.on) {
		const char **names = xcalloc(s->nnames + 1, sizeof(*names));

		for (uint32_t a = 0; a < s->nnames; a++)
			names[a] = s->names[a];
		storm_compute(&pt->storm, s->parts, s->nparts, s->nnames, names, s->w->work.ops);
		free(names);
	}
	agg_point_workload(pt, s->c, s->w);
	figs_client_workload(pt, s->c, s->w);
	pt->cooldown_ms = s->cooldown_ms;
	memcpy(pt->cooldown, s->cooldown, sizeof(pt->cooldown));
	pt->client.retries = s->retries;
}

bool step_disturbed(const struct step *s, struct step_point *pt)
{
	step_point(s, pt);
	/*
	 * A step that lost an agent is not re-run: the loss is the step's, and a retry on
	 * the agents left would hide where it happened (its point carries the mark).
	 */
	return pt->client.bound && pt->agents_lost == 0;
}

bool step_probe_failed(const struct step *s)
{
	const struct agg_record *m = agg_merged(s->agg, 0);

	return m != NULL && m->rec.ops == 0 && m->rec.errors > 0;
}

double step_probe_service(const struct step *s)
{
	const struct agg_record *m = agg_merged(s->agg, 0);

	return m != NULL && m->rec.ops > 0 ? hist_mean(&m->rec.service) : 0;
}
