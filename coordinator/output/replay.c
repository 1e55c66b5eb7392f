/* SPDX-License-Identifier: MIT */
/* Rebuild step points from intervals.jsonl, read line by line with the intervals reader. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intervals.h"
#include "replay.h"
#include "xalloc.h"

/* One step being rebuilt: its lines, kept until the step is known complete. */
struct replay_step {
	size_t w;
	uint32_t step;
	double offered;
	bool has_window;
	uint32_t win_from, win_to;
	struct intervals_line *lines;
	size_t n, cap;
};

/* An agent whose lines stop before the others' was lost mid-step (on_agent_loss: continue). */
static void replay_lost(struct agg_step *agg, const struct replay_step *st, const char **names,
                        uint32_t nagents)
{
	uint32_t *count = xcalloc(nagents, sizeof(*count)), most = 0;

	for (size_t i = 0; i < st->n; i++)
		for (uint32_t a = 0; a < nagents; a++)
			if (strcmp(names[a], st->lines[i].agent) == 0 && ++count[a] > most)
				most = count[a];
	for (uint32_t a = 0; a < nagents; a++)
		if (count[a] < most)
			agg_drop_agent(agg, a);
	free(count);
}

static bool replay_finish(struct replay *out, struct replay_step *st)
{
	const struct workload *w = &out->campaign->workloads[st->w];
	uint32_t nint =
	    (uint32_t)((w->warmup_ns + w->measure_ns) / w->interval_ns) + w->steady_extend;
	const char **names = NULL;
	uint32_t nagents = 0;
	struct agg_step *agg;
	struct error err;
	bool complete;

	for (size_t i = 0; i < st->n; i++) {
		uint32_t a;

		for (a = 0; a < nagents && strcmp(names[a], st->lines[i].agent) != 0; a++)
			;
		if (a == nagents) {
			names = xreallocarray(names, nagents + 1, sizeof(*names));
			names[nagents++] = st->lines[i].agent;
		}
	}
	agg = agg_step_new(nagents, names, nint);
	for (size_t i = 0; i < st->n; i++) {
		const struct agg_record *merged;
		uint32_t a;

		for (a = 0; strcmp(names[a], st->lines[i].agent) != 0; a++)
			;
		st->lines[i].rec.agents = 1;
		agg_add_record(agg, a, st->lines[i].interval, &st->lines[i].rec, &merged, &err);
	}
	replay_lost(agg, st, names, nagents);
	if (st->has_window)
		agg_set_window(agg, st->win_from, st->win_to);
	complete = nagents > 0 && agg_complete(agg);
	if (complete) {
		size_t k = out->npts[st->w]++;

		out->pts[st->w] = xreallocarray(out->pts[st->w], k + 1, sizeof(**out->pts));
		agg_point(agg, st->step, st->offered, out->campaign, &out->pts[st->w][k]);
	}
	agg_step_free(agg);
	free(names);
	st->n = 0;
	st->has_window = false;
	return complete;
}

int replay_load(const char *dir, struct replay *out, struct error *err)
{
	char *plan = xasprintf("%s/plan.yaml", dir), *path = xasprintf("%s/intervals.jsonl", dir);
	struct replay_step st = {.w = SIZE_MAX};
	struct intervals_reader *in = NULL;
	int rc = -1, got;

	memset(out, 0, sizeof(*out));
	if (campaign_load(plan, &out->campaign, err) < 0)
		goto done;
	out->pts = xcalloc(out->campaign->nworkloads, sizeof(*out->pts));
	out->npts = xcalloc(out->campaign->nworkloads, sizeof(*out->npts));
	in = intervals_open(path, err);
	if (in == NULL)
		goto done;
	for (;;) {
		long before = intervals_offset(in); /* where the line about to be read starts */
		struct intervals_line *l;
		size_t w;

		if (st.n == st.cap) {
			st.cap = st.cap ? 2 * st.cap : 64;
			st.lines = xreallocarray(st.lines, st.cap, sizeof(*st.lines));
		}
		l = &st.lines[st.n];
		got = intervals_next(in, l, err);
		if (got < 0)
			goto done;
		if (got == 0)
			break;
		if (l->end) {
			snprintf(out->end.state, sizeof(out->end.state), "%s", l->end_state);
			snprintf(out->end.reason, sizeof(out->end.reason), "%s", l->end_reason);
			continue;
		}
		out->end.state[0] = '\0'; /* a record after an end line: the campaign went on */
		out->end.reason[0] = '\0';
		for (w = 0; w < out->campaign->nworkloads; w++)
			if (strcmp(out->campaign->workloads[w].name, l->workload) == 0)
				break;
		if (w == out->campaign->nworkloads) {
			error_set(err, "%s:%zu: workload '%s' is not in plan.yaml", path,
			          intervals_lineno(in), l->workload);
			goto done;
		}
		if (l->clock)
			continue; /* clock lines say when agents started; the figures do not use
			             them */
		if (l->window) {
			/* Written when the runner cut the step: it belongs to the step in progress.
			 */
			if (st.w == w && st.step == l->step) {
				st.has_window = true;
				st.win_from = l->window_from;
				st.win_to = l->window_to;
			}
			continue;
		}
		if (strcmp(l->agent, INTERVALS_MERGED) == 0)
			continue; /* merged lines are rebuilt, not read */
		if (st.w != SIZE_MAX && (st.w != w || st.step != l->step)) {
			struct intervals_line keep = *l; /* the first line of the next step */

			if (replay_finish(out, &st))
				out->keep = before;
			st.lines[0] = keep;
		}
		st.w = w;
		st.step = l->step;
		st.offered = l->offered_ops;
		st.n++;
	}
	if (st.n > 0 && replay_finish(out, &st))
		out->keep = intervals_offset(in);
	out->meta = derive_meta_read(dir);
	out->end.meta = out->meta;
	snprintf(out->warning, sizeof(out->warning), "%s", intervals_warning(in));
	rc = 0;
done:
	intervals_close(in);
	free(st.lines);
	free(plan);
	free(path);
	return rc;
}

void replay_free(struct replay *r)
{
	if (r->campaign != NULL)
		for (size_t i = 0; i < r->campaign->nworkloads; i++)
			free(r->pts[i]);
	free(r->pts);
	free(r->npts);
	free(r->meta);
	campaign_free(r->campaign);
	memset(r, 0, sizeof(*r));
}
