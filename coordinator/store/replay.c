/* SPDX-License-Identifier: MIT */
/* Rebuild step points from intervals.jsonl, read line by line with the intervals reader. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "intervals.h"
#include "replay.h"
#include "step.h"
#include "text.h"
#include "strindex.h"
#include "xalloc.h"

/*
 * One step being rebuilt. Its lines go into the step's merge as they are read and
 * are not kept: a fleet's step is thousands of agents' lines, each record tens of KiB
 * in memory.
 */
struct replay_step {
	size_t w;
	uint32_t index; /* the step's, in run order */
	bool has_window;
	uint32_t win_from, win_to;
	/* the last cooldown line: it belongs to step cool_step of workload cool_w */
	size_t cool_w;
	uint32_t cool_step, cool_ms;
	char cool_outcome[16];
	long cool_at;      /* where that line starts: a step that never completed leaves it out */
	uint32_t retries;  /* earlier attempts, void (retried lines) */
	struct step *step; /* NULL before the step's first line */
	char (*names)[INTERVALS_NAME_MAX];
	uint32_t nagents;
	struct strindex by_name; /* names[] */
	/* the background line of the step in progress (its figures for the point) */
	bool has_bg;
	struct intervals_bg bg;
	/* fixed work: the finish lines read so far, for the step they name */
	struct replay_fin *fins;
	size_t nfins;
};

/* A finish line kept until its step's point is made. */
struct replay_fin {
	size_t w;
	uint32_t step;
	char agent[INTERVALS_NAME_MAX];
	struct intervals_finish f;
};

static const char *replay_name(const void *st, size_t i)
{
	return ((const struct replay_step *)st)->names[i];
}

/* The step's index for an agent, added on first sight. */
static uint32_t replay_agent(struct replay_step *st, const char *name)
{
	long i = strindex_find(&st->by_name, name);

	if (i >= 0)
		return (uint32_t)i;
	st->names = xreallocarray(st->names, st->nagents + 1, sizeof(*st->names));
	snprintf(st->names[st->nagents], sizeof(st->names[0]), "%s", name);
	strindex_add(&st->by_name, st->nagents);
	step_add_agent(st->step, name);
	return st->nagents++;
}

static void replay_begin(struct replay *out, struct replay_step *st, size_t w,
                         const struct intervals_line *l)
{
	st->w = w;
	st->index = l->step;
	st->step = step_new(out->campaign, w, l->step, l->offered_ops, 0, NULL);
	st->nagents = 0;
	strindex_free(&st->by_name);
	strindex_init(&st->by_name, replay_name, st);
}

/*
 * The step's lines are all in: its point, when every interval is, made as the run made
 * it, with the window the run decided (its window line) and what the lines beside the
 * intervals say (cooldown, retries, fixed work's finishes).
 */
/* The background's figures as the run gave them to the point (runner_bg.c, bgfig_fill). */
static void replay_background(struct step_point *p, const struct intervals_bg *b)
{
	p->bg.on = true;
	p->bg.asked_ops = b->asked_ops;
	p->bg.ops = b->ops;
	p->bg.mib_s = b->mib_s;
	p->bg.mean_ns = b->mean_ns;
	p->bg.p99_ns = b->p99_ns;
	p->bg.missed = b->missed;
	p->bg.intervals = b->intervals;
}

static bool replay_finish(struct replay *out, struct replay_step *st)
{
	bool complete;

	step_drop_short(st->step);
	/*
	 * Every interval after the warm-up counts: a window line's start (older releases
	 * moved it past intervals they judged a transient) is not followed, its end is.
	 */
	if (st->has_window)
		step_cut(st->step, st->win_to);
	step_close(st->step);
	complete = st->nagents > 0 && step_complete(st->step);
	if (complete) {
		size_t k = out->npts[st->w]++;

		if (st->cool_w == st->w && st->cool_step == st->index)
			step_set_cooldown(st->step, st->cool_ms, st->cool_outcome);
		step_set_retries(st->step, st->retries);
		for (size_t i = 0; i < st->nfins; i++)
			if (st->fins[i].w == st->w && st->fins[i].step == st->index)
				step_add_parts(
				    st->step, st->fins[i].agent,
				    &(struct storm_worker){.worker = st->fins[i].f.worker,
				                           .start_s = st->fins[i].f.start_s,
				                           .done_s = st->fins[i].f.done_s,
				                           .ops = st->fins[i].f.ops},
				    1);
		out->pts[st->w] = xreallocarray(out->pts[st->w], k + 1, sizeof(**out->pts));
		step_point(st->step, &out->pts[st->w][k]);
		if (st->has_bg)
			replay_background(&out->pts[st->w][k], &st->bg);
	}
	st->has_bg = false;
	st->retries = 0;
	step_free(st->step);
	st->step = NULL;
	st->has_window = false;
	return complete;
}

/* Whether workload w has a point of step `step` (in run order). */
static bool replay_has_step(const struct replay *out, size_t w, uint32_t step)
{
	for (size_t k = 0; k < out->npts[w]; k++)
		if (out->pts[w][k].step == step)
			return true;
	return false;
}

static int replay_read(const char *dir, bool resume, struct replay *out, struct error *err);

/*
 * DIR to resume: ours and no symlink (fs_open_own_dir), writable by no one else (or
 * what is checked here could change before it is read), and every entry in it ours:
 * a file of another user's could be anything they like by the time it is written.
 */
static int replay_check_own(const char *dir, struct error *err)
{
	int fd = fs_open_own_dir(dir, err);
	struct dirent *de;
	struct stat st;
	DIR *d;
	int rc = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		error_set(err, "%s: writable by others (mode %03o); refusing to resume in it", dir,
		          (unsigned)(st.st_mode & 0777));
		close(fd);
		return -1;
	}
	d = fdopendir(fd);
	if (d == NULL) {
		error_set(err, "%s: cannot read: %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			error_set(err, "%s/%s: cannot stat: %s", dir, de->d_name, strerror(errno));
			goto out;
		}
		if (st.st_uid != geteuid()) {
			error_set(err, "%s/%s: belongs to uid %u, not to us (uid %u)", dir,
			          de->d_name, (unsigned)st.st_uid, (unsigned)geteuid());
			goto out;
		}
	}
	rc = 0;
out:
	closedir(d);
	return rc;
}

int replay_load(const char *dir, struct replay *out, struct error *err)
{
	return replay_read(dir, false, out, err);
}

int replay_load_resume(const char *dir, struct replay *out, struct error *err)
{
	memset(out, 0, sizeof(*out));
	if (replay_check_own(dir, err) < 0) {
		error_prefix(err, "cannot resume: ");
		return -1;
	}
	return replay_read(dir, true, out, err);
}

static int replay_read(const char *dir, bool resume, struct replay *out, struct error *err)
{
	char *plan = xasprintf("%s/plan.yaml", dir), *path = xasprintf("%s/intervals.jsonl", dir);
	struct replay_step st = {.w = SIZE_MAX, .cool_w = SIZE_MAX};
	struct intervals_reader *in = NULL;
	struct intervals_line *l = xmalloc(sizeof(*l));
	long lost_at[RUNEND_MAX_LOSSES]; /* where each loss's line starts */
	long *mark_at = NULL;            /* where each mark's line starts */
	long *obs_at = NULL;             /* where each observe line starts */
	int rc = -1, got;

	memset(out, 0, sizeof(*out));
	if (campaign_load_plan(plan, resume, &out->campaign, err) < 0)
		goto done;
	out->pts = xcalloc(out->campaign->nworkloads, sizeof(*out->pts));
	out->npts = xcalloc(out->campaign->nworkloads, sizeof(*out->npts));
	in = intervals_open(path, err);
	if (in == NULL)
		goto done;
	for (;;) {
		long before = intervals_offset(in); /* where the line about to be read starts */
		const struct agg_record *merged;
		struct error ignored;
		size_t w;

		got = intervals_next(in, l, err);
		if (got < 0)
			goto done;
		if (got == 0)
			break;
		if (l->end) {
			snprintf(out->end.state, sizeof(out->end.state), "%s", l->end_state);
			text_clean(l->end_reason, out->end.reason, sizeof(out->end.reason), false);
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
		if (l->lost) {
			/* The campaign went on without the agent: every summary says so. */
			if (out->end.nlosses < RUNEND_MAX_LOSSES)
				lost_at[out->end.nlosses] = before;
			runend_add_loss(&out->end, l->agent, l->workload, l->step, l->interval,
			                l->lost_reason);
			continue;
		}
		if (l->finish) {
			st.fins = xreallocarray(st.fins, st.nfins + 1, sizeof(*st.fins));
			st.fins[st.nfins].w = w;
			st.fins[st.nfins].step = l->step;
			snprintf(st.fins[st.nfins].agent, INTERVALS_NAME_MAX, "%s", l->agent);
			st.fins[st.nfins++].f = l->fin;
			continue;
		}
		if (l->mark) {
			/* drawn on the time plots again, kept by a resume with the lines before it
			 */
			mark_list_add(&out->marks, &l->mk);
			mark_at = xreallocarray(mark_at, out->marks.n, sizeof(*mark_at));
			mark_at[out->marks.n - 1] = before;
			continue;
		}
		if (l->obs) {
			obs_list_add(&out->obs, &l->ob);
			obs_at = xreallocarray(obs_at, out->obs.n, sizeof(*obs_at));
			obs_at[out->obs.n - 1] = before;
			continue;
		}
		if (l->clock)
			continue; /* clock lines say when agents started; the figures do not use
			             them */
		if (l->cooldown) {
			/*
			 * Written before the step's first interval, so after the last line of
			 * the step before it: that one ends here, with its own cooldown (two
			 * steps in a row that cooled down each keep theirs).
			 */
			if (st.step != NULL && (st.w != w || st.index != l->step) &&
			    replay_finish(out, &st))
				out->keep = before;
			/* kept for the point of the step it precedes */
			st.cool_w = w;
			st.cool_step = l->step;
			st.cool_ms = l->cooldown_ms;
			st.cool_at = before;
			snprintf(st.cool_outcome, sizeof(st.cool_outcome), "%s",
			         l->cooldown_outcome);
			continue;
		}
		if (l->retried) {
			/* The attempt so far is void: the step runs again from its next line. */
			/*
			 * its observe lines too (obs_list_void): the last of the list, so
			 * where each starts (obs_at) keeps its order; a retried line costs the
			 * lines it voids, never a walk of all of them
			 */
			obs_list_void(&out->obs, l->workload, l->step);
			if (st.step != NULL && st.w == w && st.index == l->step) {
				step_free(st.step);
				st.step = NULL;
				st.has_window = false;
				st.retries = l->retried;
			}
			continue;
		}
		if (l->background) {
			/* written after the step's lines, before its point: the step in progress */
			if (st.step != NULL && st.w == w && st.index == l->step) {
				st.has_bg = true;
				st.bg = l->bg;
			}
			continue;
		}
		if (l->window) {
			/* Written when the runner cut the step: it belongs to the step in progress.
			 */
			if (st.w == w && st.index == l->step) {
				st.has_window = true;
				st.win_from = l->window_from;
				st.win_to = l->window_to;
			}
			continue;
		}
		if (strcmp(l->agent, INTERVALS_MERGED) == 0) {
			/*
			 * Merged lines are rebuilt from the agents' lines, not read; when those
			 * came without bins (agents.detail: counts), the bins come from here.
			 */
			if (st.step != NULL && st.w == w && st.index == l->step &&
			    step_set_hists(st.step, l->interval, &l->rec.rec) < 0) {
				error_set(
				    err,
				    "%s:%zu: the merged line of interval %u does not add up to "
				    "its agents' lines",
				    path, intervals_lineno(in), l->interval);
				goto done;
			}
			continue;
		}
		if (st.step != NULL && (st.w != w || st.index != l->step) &&
		    replay_finish(out, &st))
			/* l is the first line of the next step, or its cooldown line is */
			out->keep = st.cool_w == w && st.cool_step == l->step ? st.cool_at : before;
		if (st.step == NULL)
			replay_begin(out, &st, w, l);
		l->rec.agents = 1;
		/* A line out of the step or twice is left out, as the run left it out. */
		step_feed_record(st.step, replay_agent(&st, l->agent), l->interval, &l->rec,
		                 &merged, &ignored);
	}
	if (st.step != NULL && replay_finish(out, &st))
		out->keep = intervals_offset(in);
	/* a cooldown line after the last complete step: its step never ran (a resume cools anew) */
	if (st.cool_w != SIZE_MAX && st.cool_at < out->keep &&
	    !replay_has_step(out, st.cool_w, st.cool_step))
		out->keep = st.cool_at;
	/* a loss in a step that never completed goes with that step's lines (a resume cuts them) */
	while (out->end.nlosses > 0 && out->end.nlosses <= RUNEND_MAX_LOSSES &&
	       lost_at[out->end.nlosses - 1] >= out->keep)
		out->end.nlosses--;
	out->meta = runend_meta_read(dir, err);
	if (out->meta == NULL && err->msg[0] != '\0')
		goto done; /* a meta.json planted as a link, a FIFO or a flood is refused */
	/* a mark after the last complete step goes with its lines when a resume cuts them */
	while (out->marks_kept < out->marks.n && mark_at[out->marks_kept] < out->keep)
		out->marks_kept++;
	out->end.marks = out->marks.v;
	out->end.nmarks = out->marks.n;
	while (out->obs_nkept < out->obs.n && obs_at[out->obs_nkept] < out->keep)
		out->obs_nkept++;
	out->end.obs = out->obs.v;
	out->end.nobs = out->obs.n;
	out->end.meta = out->meta;
	snprintf(out->warning, sizeof(out->warning), "%s", intervals_warning(in));
	/* judged as the run judged them after its last step: derive_all gives the same bytes */
	out->judged =
	    judged_all(out->campaign, (const struct step_point *const *)out->pts, out->npts);
	rc = 0;
done:
	intervals_close(in);
	step_free(st.step);
	strindex_free(&st.by_name);
	free(st.names);
	free(st.fins);
	free(l);
	free(mark_at);
	free(obs_at);
	free(plan);
	free(path);
	return rc;
}

void replay_free(struct replay *r)
{
	if (r->campaign != NULL) {
		for (size_t i = 0; i < r->campaign->nworkloads; i++)
			free(r->pts[i]);
		judged_free_all(r->judged, r->campaign->nworkloads);
	}
	free(r->pts);
	free(r->npts);
	free(r->meta);
	mark_list_free(&r->marks);
	obs_list_free(&r->obs);
	campaign_free(r->campaign);
	memset(r, 0, sizeof(*r));
}
