/* SPDX-License-Identifier: MIT */
/* The runner's end: the derived files, the end line and text, meta.json, I/O errors. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>

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
 * What the end's files came to, as the child that wrote them tells the loop: the
 * status, the runner's state and error, the end's state and reason, the end line.
 */
struct runner_end_result {
	int status;
	int state;
	char error[sizeof(((struct runner *)0)->error)];
	char end_state[sizeof(((struct runend *)0)->state)];
	char end_reason[sizeof(((struct runend *)0)->reason)];
	char msg[sizeof(((struct runner *)0)->error) + 2048 + 64];
};

/*
 * The end's files: intervals.jsonl fsync'd and read back into the time series, the
 * derived files, summary.json last. "complete" reaches the files only once every
 * interval is fsync'd; results that cannot be written fail the campaign, said in
 * every file that still can be. Fills res (status, states, the end line).
 */
static void runner_end_files(struct runner *r, int status, struct runner_end_result *res)
{
	char degraded[2048];
	struct runend *end = &r->end;
	const char *delay = getenv("IOCURVE_TEST_END_DELAY_MS");
	struct error err;

	/* Tests only: the files take this long more, as a fleet's thousands of lines do. */
	if (delay != NULL && atoi(delay) > 0)
		usleep((useconds_t)atoi(delay) * 1000);
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
	snprintf(res->msg, sizeof(res->msg), "%s%s%s",
	         status == 1 ? r->error
	         : status    ? "campaign complete, "
	                     : "campaign complete",
	         status == 1 && degraded[0] ? "; " : "", degraded);
	/* Not complete: said in intervals.jsonl, so `iocurve report` says it too. */
	if (status == 1) {
		snprintf(end->state, sizeof(end->state), "%s", runner_state_name(r->state));
		/* Cut on a character's edge: summary.json holds UTF-8 only. */
		text_clean(res->msg, end->reason, sizeof(end->reason), false);
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
	res->status = status;
	res->state = (int)r->state;
	snprintf(res->error, sizeof(res->error), "%s", r->error);
	snprintf(res->end_state, sizeof(res->end_state), "%s", end->state);
	snprintf(res->end_reason, sizeof(res->end_reason), "%s", end->reason);
}

/* The child's result down its pipe, whole. */
static int runner_end_send(int fd, const struct runner_end_result *res)
{
	const char *at = (const char *)res;
	size_t left = sizeof(*res);

	while (left > 0) {
		ssize_t n = write(fd, at, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		at += n;
		left -= (size_t)n;
	}
	return 0;
}

/* The end told: the end report in the done event (what `run` prints), the callback. */
static void runner_end_told(struct runner *r, const struct runner_end_result *res)
{
	char *summary = NULL;
	size_t len = 0;
	FILE *f;

	r->state = (enum runner_state)res->state;
	snprintf(r->error, sizeof(r->error), "%s", res->error);
	snprintf(r->end.state, sizeof(r->end.state), "%s", res->end_state);
	snprintf(r->end.reason, sizeof(r->end.reason), "%s", res->end_reason);
	f = open_memstream(&summary, &len);
	if (f != NULL) {
		derive_end_text(f, results_dir(r->res), r->c, r->npoints, r->judged, &r->end);
		fclose(f);
	}
	events_emit_done(r->ev, res->status, res->msg, results_dir(r->res), summary);
	free(summary);
	r->done(r->done_arg, res->status);
}

/* The child's pipe: its result, then EOF when it is done (or died). */
static void runner_end_child_cb(evutil_socket_t fd, short what, void *arg)
{
	struct runner *r = arg;
	struct runner_end_result res;
	struct error err;
	int n = evbuffer_read(r->end_got, fd, -1), wst = 0;

	(void)what;
	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
		return;
	event_free(r->end_child_ev);
	r->end_child_ev = NULL;
	close(fd);
	while (waitpid(r->end_pid, &wst, 0) < 0 && errno == EINTR)
		;
	r->end_pid = 0;
	if (evbuffer_get_length(r->end_got) == sizeof(res)) {
		evbuffer_remove(r->end_got, &res, sizeof(res));
	} else {
		/* It died: what it wrote stands, the run is not complete. */
		memset(&res, 0, sizeof(res));
		res.status = 1;
		res.state = RUNNER_FAILED;
		snprintf(res.error, sizeof(res.error),
		         "the results' end files were not all written: the process writing them "
		         "%s %d",
		         WIFSIGNALED(wst) ? "was killed by signal" : "exited with status",
		         WIFSIGNALED(wst) ? WTERMSIG(wst) : WEXITSTATUS(wst));
		snprintf(res.msg, sizeof(res.msg), "%s", res.error);
		snprintf(res.end_state, sizeof(res.end_state), "%s",
		         runner_state_name(RUNNER_FAILED));
		snprintf(res.end_reason, sizeof(res.end_reason), "%.500s", res.error);
		log_error("%s", res.error);
		/* said in intervals.jsonl too, so `iocurve report` says it (nothing is held) */
		if (results_end(r->res, res.end_state, res.end_reason, &err) < 0 ||
		    results_sync(r->res, &err) < 0)
			log_error("%s", err.msg);
	}
	evbuffer_free(r->end_got);
	r->end_got = NULL;
	runner_end_told(r, &res);
}

/*
 * The end, reported once from the loop after the runner entered an end state
 * (runner_enter). The files are written by a child process: reading back and fsyncing
 * a fleet's intervals.jsonl (5,000 agents: 240 MB after two steps) took the loop
 * longer than the agents' idle timeout, and every agent left. The loop goes on with
 * the heartbeats meanwhile and tells the end once the child is done; without a child
 * (fork failed) the files are written here.
 */
void runner_end_cb(evutil_socket_t fd, short what, void *arg)
{
	struct runner *r = arg;
	int status = r->state != RUNNER_DONE ? 1 : r->end.nlosses > 0 ? RUNNER_DEGRADED : 0;
	struct runner_end_result res;
	struct error err;
	int p[2];
	pid_t pid;

	(void)fd;
	(void)what;
	r->end.meta = r->meta;
	memset(&res, 0, sizeof(res));
	/*
	 * What is held goes out first: the child would write its copy, and this process
	 * its own again when it closes the file. Not written: not complete.
	 */
	if (results_flush(r->res, &err) < 0) {
		log_error("%s", err.msg);
		if (status != 1) {
			r->state = RUNNER_FAILED;
			snprintf(r->error, sizeof(r->error), "%s", err.msg);
			status = 1;
		}
	}
	p[0] = p[1] = -1;
	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		log_warn("the end's files written in the loop: %s", strerror(errno));
		if (p[0] >= 0) {
			close(p[0]);
			close(p[1]);
		}
		runner_end_files(r, status, &res);
		runner_end_told(r, &res);
		return;
	}
	if (pid == 0) {
		/* the loop's signals are the parent's: a signal here ends this child alone */
		const int sigs[] = {SIGTERM, SIGINT, SIGHUP, SIGCHLD};

		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		close(p[0]);
		runner_end_files(r, status, &res);
		_exit(runner_end_send(p[1], &res) == 0 ? 0 : 1);
	}
	close(p[1]);
	evutil_make_socket_nonblocking(p[0]);
	r->end_pid = pid;
	r->end_got = evbuffer_new();
	r->end_child_ev = event_new(r->base, p[0], EV_READ | EV_PERSIST, runner_end_child_cb, r);
	event_add(r->end_child_ev, NULL);
}

/* A runner freed with its end's child at work: the files are finished first. */
void runner_end_wait(struct runner *r)
{
	if (r->end_pid <= 0)
		return;
	while (waitpid(r->end_pid, NULL, 0) < 0 && errno == EINTR)
		;
	r->end_pid = 0;
	close(event_get_fd(r->end_child_ev));
	event_free(r->end_child_ev);
	r->end_child_ev = NULL;
	evbuffer_free(r->end_got);
	r->end_got = NULL;
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
