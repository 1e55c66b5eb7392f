/* SPDX-License-Identifier: MIT */
/* The runner's end: the derived files, the end line and text, meta.json, I/O errors. */
#include <stdio.h>
#include <stdlib.h>

#include "curve.h"
#include "derive.h"
#include "safefile.h"
#include "events.h"
#include "log.h"
#include "runmeta.h"
#include "runner_core.h"
#include "text.h"
#include "timeseries.h"
#include "xalloc.h"

/*
 * A campaign whose steps had failed operations does not end complete unless its
 * plan allows errors (stop: {errors: allow}): its error says how many and the first.
 */
int runner_check_errors(struct runner *r)
{
	const struct step_point *first = NULL, *f;
	uint64_t errors = 0;
	char words[RECORD_CAUSE_MAX + RECORD_PATH_MAX];

	for (size_t w = 0; w < r->c->nworkloads; w++) {
		errors += r->judged[w].errors;
		f = r->judged[w].first_error;
		first = first ? first : f;
	}
	if (errors == 0 || r->c->stop.allow_errors)
		return 0;
	curve_error_words(first, errors, words, sizeof(words));
	if (first != NULL)
		snprintf(
		    r->error, sizeof(r->error),
		    "I/O errors: %llu failed operations, the first %s (agent %s, offset %llu); "
		    "stop: {errors: allow} lets a campaign with errors end complete",
		    (unsigned long long)errors, words, first->err_agent,
		    (unsigned long long)first->err_offset);
	else
		snprintf(r->error, sizeof(r->error),
		         "I/O errors: %s; stop: {errors: allow} lets a campaign with errors end "
		         "complete",
		         words);
	return 1;
}

/*
 * The end, reported once from the loop after the runner entered an end state
 * (runner_enter): the end line, the derived files, the done event, the callback.
 * "complete" reaches the files (summary.json last) only once every interval is
 * fsync'd; results that cannot be written fail the campaign, said in every file
 * that still can be.
 */
void runner_end_cb(evutil_socket_t fd, short what, void *arg)
{
	struct runner *r = arg;
	int status = r->state != RUNNER_DONE ? 1 : r->end.nlosses > 0 ? RUNNER_DEGRADED : 0;
	char degraded[2048], msg[sizeof(r->error) + sizeof(degraded) + 64];
	char *summary = NULL;
	size_t len = 0;
	struct runend *end = &r->end;
	struct error err;
	FILE *f;

	end->meta = r->meta;
	if (status != 1 &&
	    (results_sync(r->res, &err) < 0 ||
	     /* the time series from intervals.jsonl as it stands (report writes the same) */
	     timeseries_write(results_dir(r->res), r->c, &err) < 0 ||
	     derive_all(results_dir(r->res), r->c, (const struct step_point *const *)r->points,
	                r->npoints, r->judged, end, &err) < 0)) {
		/* Not all on disk: not complete, whatever the steps measured. */
		r->state = RUNNER_FAILED;
		snprintf(r->error, sizeof(r->error), "%s", err.msg);
		status = 1;
	}
	/* A loss is told: when, which and why, in the end line and every summary. */
	runend_degraded(end, degraded, sizeof(degraded));
	if (status == RUNNER_DEGRADED)
		snprintf(r->error, sizeof(r->error), "%.1000s", degraded);
	snprintf(msg, sizeof(msg), "%s%s%s",
	         status == 1 ? r->error
	         : status    ? "campaign complete, "
	                     : "campaign complete",
	         status == 1 && degraded[0] ? "; " : "", degraded);
	/* Not complete: said in intervals.jsonl, so `iocurve report` says it too. */
	if (status == 1) {
		snprintf(end->state, sizeof(end->state), "%s", runner_state_name(r->state));
		/* Cut on a character's edge: summary.json holds UTF-8 only. */
		text_clean(msg, end->reason, sizeof(end->reason), false);
		if (results_end(r->res, end->state, end->reason, &err) < 0 ||
		    results_sync(r->res, &err) < 0)
			log_error("%s", err.msg);
		if (derive_end(results_dir(r->res), r->c,
		               (const struct step_point *const *)r->points, r->npoints, r->judged,
		               end, &err) < 0)
			log_error("%s", err.msg);
		/* after the status files: they have the room a full disk leaves */
		if (timeseries_write(results_dir(r->res), r->c, &err) < 0)
			log_warn("%s", err.msg);
	}
	/* The end report travels in the event: a daemon's clients print what `run` prints. */
	f = open_memstream(&summary, &len);
	if (f != NULL) {
		derive_end_text(f, results_dir(r->res), r->c, r->npoints, r->judged, end);
		fclose(f);
	}
	events_emit_done(r->ev, status, msg, results_dir(r->res), summary);
	free(summary);
	r->done(r->done_arg, status);
}

static void runner_meta_write(FILE *f, const void *arg)
{
	fputs(arg, f);
	fputc('\n', f);
}

/* Every agent joined: describe the run in meta.json (runmeta.c). */
void runner_write_meta(struct runner *r)
{
	uint32_t n = runner_agents_count(r->agents);
	struct session **s = xcalloc(n ? n : 1, sizeof(*s));
	struct error err;

	for (uint32_t i = 0; i < n; i++)
		s[i] = runner_agents_session(r->agents, i);
	free(r->meta);
	/* A resumed run keeps the first run's description: its date and hosts are the record. */
	/*
	 * One that cannot be taken (a link, a FIFO) is not replaced either:
	 * safefile_write below refuses it by name and the campaign fails.
	 */
	r->meta = runend_meta_read(results_dir(r->res), &err);
	between_free(r->between);
	if (r->meta == NULL) {
		char *meta = runmeta_json(r->c, s, n, r->command);

		/* once, at the start: the earlier runs, recorded so a report later says the same */
		r->between = between_find(results_dir(r->res), r->c, meta);
		r->meta = between_record(meta, r->between);
		free(meta);
		if (r->meta != NULL && safefile_write(results_dir(r->res), "meta.json",
		                                      runner_meta_write, r->meta, &err) < 0)
			log_warn("%s", err.msg);
	} else {
		r->between = between_find(results_dir(r->res), r->c, r->meta);
	}
	free(s);
	r->end.between = r->between;
}
