/* SPDX-License-Identifier: MIT */
/* The results directory: plan.yaml, intervals.jsonl, curve.csv, summary.md. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "intervals.h"
#include "log.h"
#include "pointfields.h"
#include "replayspec.h"
#include "results.h"
#include "safefile.h"
#include "saferead.h"
#include "trace.h"
#include "xalloc.h"

struct results {
	char *dir;
	int dirfd;     /* the directory, made by us (or, resuming, ours and no symlink) */
	int intervals; /* intervals.jsonl, appended by whole lines */
	int curve;     /* curve.csv, likewise */
	/* PF_SHOW_*: a mixed workload, curve.csv has the read and write apart columns; a
	   syncing one, the sync columns; a background, the background's */
	unsigned kinds;
	/*
	 * Agents' interval lines wait here and go out in one write with the next other
	 * line (their merged line, as a rule): a fleet's thousands of lines a second cost
	 * one write an interval, not one each. A merged line is never on disk before its
	 * agents' lines.
	 */
	char *pending;
	size_t npending, cap;
	bool agent_bins; /* agents' lines carry their histograms' bins (agents.detail) */
};

/*
 * Room kept for the end: a file of this size, made at the start and removed
 * when the campaign ends, so a disk the run filled still takes the end line
 * and the failed summaries.
 */
#define RESULTS_RESERVE_BYTES (64u << 10)

/* Held agent lines above this are written at once. */
#define RESULTS_PENDING_MAX (4u << 20)

/* curve.csv's first columns: the workload a row is of. Its point's columns follow (pfield). */
#define RESULTS_WORKLOAD_COLUMNS "workload,rw,block_size,direct,"

/* A line built in memory: out of memory, die as xmalloc does. */
static FILE *results_line_open(char **line, size_t *len)
{
	FILE *m = open_memstream(line, len);

	if (m == NULL) {
		fputs("iocurve: out of memory\n", stderr);
		abort();
	}
	return m;
}

static void results_line_close(FILE *m)
{
	fputc('\n', m);
	if (fclose(m) != 0) {
		fputs("iocurve: out of memory\n", stderr);
		abort();
	}
}

static int results_create(struct results *r, const char *name, int flags, struct error *err)
{
	return safefile_append(r->dirfd, r->dir, name, flags, err);
}

/* One whole line to one of the two files; the error names the file and errno. */
static int results_put(struct results *r, int fd, const char *name, const char *line,
                       struct error *err)
{
	if (intervals_write(fd, line) == 0)
		return 0;
	error_set(err, "%s/%s: cannot write: %s", r->dir, name, strerror(errno));
	return -1;
}

/* Keep an agent's line for the next write. */
static void results_hold(struct results *r, const char *line)
{
	size_t n = strlen(line);

	if (r->npending + n + 1 > r->cap) {
		r->cap = (r->npending + n + 1) * 2;
		r->pending = xreallocarray(r->pending, r->cap, 1);
	}
	memcpy(r->pending + r->npending, line, n + 1);
	r->npending += n;
}

/*
 * curve.csv's header line, malloc'd: with the read and write apart columns at the
 * end when the campaign has a mixed workload (a pure workload's cells empty).
 */
static char *results_curve_header(const struct results *r)
{
	char *line = NULL;
	size_t len = 0;
	FILE *m = results_line_open(&line, &len);

	fputs(RESULTS_WORKLOAD_COLUMNS, m);
	pfield_csv_header(m, PF_CURVE, r->kinds);
	results_line_close(m);
	return line;
}

/* curve.csv anew: its header line. */
static int results_put_header(struct results *r, struct error *err)
{
	char *header = results_curve_header(r);
	int rc = results_put(r, r->curve, "curve.csv", header, err);

	free(header);
	return rc;
}

/* The room for the end (RESULTS_RESERVE_BYTES); a disk already too full for it goes without. */
static void results_reserve(struct results *r)
{
	static const char zeros[4096];
	struct error err;
	int fd;

	unlinkat(r->dirfd, RESULTS_RESERVE_FILE, 0);
	fd = safefile_append(r->dirfd, r->dir, RESULTS_RESERVE_FILE, O_EXCL, &err);
	if (fd < 0)
		return;
	if (fallocate(fd, 0, 0, RESULTS_RESERVE_BYTES) < 0) {
		/* A file system without fallocate: blocks written are blocks held. */
		for (size_t off = 0; off < RESULTS_RESERVE_BYTES; off += sizeof(zeros))
			if (write(fd, zeros, sizeof(zeros)) != (ssize_t)sizeof(zeros))
				break;
	}
	if (fsync(fd) < 0 || lseek(fd, 0, SEEK_END) < (off_t)RESULTS_RESERVE_BYTES) {
		log_warn("%s: no room kept for the end of the campaign", r->dir);
		unlinkat(r->dirfd, RESULTS_RESERVE_FILE, 0);
	}
	close(fd);
}

void results_release(struct results *r)
{
	if (r != NULL && r->dirfd >= 0)
		unlinkat(r->dirfd, RESULTS_RESERVE_FILE, 0);
}

static struct results *results_new(const char *dir, const struct campaign *c)
{
	struct results *r = xcalloc(1, sizeof(*r));
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	r->dir = dir ? xstrdup(dir) : xasprintf("iocurve-results/%s-%s", c->name, stamp);
	r->dirfd = r->intervals = r->curve = -1;
	r->agent_bins = campaign_agent_histograms(c);
	r->kinds = pfield_show_campaign(c);
	for (size_t i = 0; i < c->nworkloads; i++)
		r->kinds |= pfield_show_of(&c->workloads[i]);
	return r;
}

/*
 * A copy of each replayed trace beside plan.yaml (REPLAYSPEC_COPY): the results then
 * hold everything `report` and `resume` read, as they do for a campaign of rates.
 */
static int results_keep_traces(struct results *r, const struct campaign *c, struct error *err)
{
	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct workload *w = &c->workloads[i];
		char *name, *text;
		size_t len;
		int fd;
		bool ok;

		if (w->replay == NULL)
			continue;
		text = saferead_all(AT_FDCWD, NULL, w->replay->path, TRACE_MAX_FILE, 0, &len, err);
		if (text == NULL)
			return -1;
		name = xasprintf(REPLAYSPEC_COPY, w->name);
		fd = results_create(r, name, O_EXCL, err);
		ok = fd >= 0 && write(fd, text, len) == (ssize_t)len && fsync(fd) == 0;
		if (fd >= 0 && !ok)
			error_set(err, "%s/%s: cannot write: %s", r->dir, name,
			          errno ? strerror(errno) : "short write");
		if (fd >= 0)
			close(fd);
		free(name);
		free(text);
		if (!ok)
			return -1;
	}
	return 0;
}

struct results *results_open(const char *dir, const struct campaign *c, struct error *err)
{
	struct results *r = results_new(dir, c);
	int plan;

	/* Made here, never an existing one: what is already there could lead anywhere. */
	r->dirfd = fs_mkdir_new(r->dir, 0755, err);
	if (r->dirfd < 0) {
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		if (strstr(msg, "already exists") != NULL)
			error_set(err, "results directory %s (name a new one, or --resume it)",
			          msg);
		else
			error_set(err, "results directory: %s", msg);
		goto err;
	}
	plan = results_create(r, "plan.yaml", O_EXCL, err);
	if (plan < 0)
		goto err;
	if (write(plan, c->text, c->text_len) != (ssize_t)c->text_len || fsync(plan) != 0) {
		error_set(err, "%s/plan.yaml: cannot write: %s", r->dir,
		          errno ? strerror(errno) : "short write");
		close(plan);
		goto err;
	}
	close(plan);
	if (results_keep_traces(r, c, err) < 0)
		goto err;
	r->intervals = results_create(r, "intervals.jsonl", O_EXCL, err);
	r->curve = r->intervals >= 0 ? results_create(r, "curve.csv", O_EXCL, err) : -1;
	if (r->curve < 0 || results_put_header(r, err) < 0 || results_sync(r, err) < 0)
		goto err;
	results_reserve(r);
	return r;
err:
	results_close(r);
	return NULL;
}

static char *results_point_line(const struct results *r, const struct workload *w,
                                const struct step_point *p)
{
	char *line = NULL;
	size_t len = 0;
	FILE *m = results_line_open(&line, &len);

	fprintf(m, "%s,%s,%u,%s,", w->name, rw_mode_name(w->io.rw), w->io.block_size,
	        w->io.direct ? "true" : "false");
	pfield_csv_row(m, PF_CURVE, r->kinds, p, NULL);
	results_line_close(m);
	return line;
}

struct results *results_resume(const char *dir, const struct campaign *c,
                               const struct step_point *const *pts, const size_t *npts, long keep,
                               struct error *err)
{
	struct results *r = results_new(dir, c);
	r->dirfd = fs_open_own_dir(r->dir, err);
	if (r->dirfd < 0) {
		error_prefix(err, "cannot resume: ");
		goto err;
	}
	r->intervals = results_create(r, "intervals.jsonl", 0, err);
	if (r->intervals < 0)
		goto err;
	/* What follows the last complete step (a step cut short, a torn line) goes. */
	if (ftruncate(r->intervals, keep) < 0) {
		error_set(err, "%s/intervals.jsonl: cannot truncate: %s", r->dir, strerror(errno));
		goto err;
	}
	/* curve.csv again from the steps kept, then appended to as before. */
	if (unlinkat(r->dirfd, "curve.csv", 0) < 0 && errno != ENOENT) {
		error_set(err, "%s/curve.csv: cannot remove: %s", r->dir, strerror(errno));
		goto err;
	}
	r->curve = results_create(r, "curve.csv", O_EXCL, err);
	if (r->curve < 0 || results_put_header(r, err) < 0)
		goto err;
	for (size_t i = 0; i < c->nworkloads; i++)
		for (size_t k = 0; k < npts[i]; k++)
			if (results_point(r, &c->workloads[i], &pts[i][k], err) < 0)
				goto err;
	if (results_sync(r, err) < 0)
		goto err;
	results_reserve(r);
	return r;
err:
	results_close(r);
	return NULL;
}

const char *results_dir(const struct results *r)
{
	return r->dir;
}

/* Write the held agent lines, then line (NULL: none), to intervals.jsonl in one write. */
static int results_put_intervals(struct results *r, const char *line, struct error *err)
{
	int rc;

	if (r->npending == 0)
		return line != NULL ? results_put(r, r->intervals, "intervals.jsonl", line, err)
		                    : 0;
	if (line != NULL)
		results_hold(r, line);
	rc = results_put(r, r->intervals, "intervals.jsonl", r->pending, err);
	r->npending = 0;
	r->pending[0] = '\0';
	return rc;
}

int results_interval(struct results *r, const struct workload *w, uint32_t step, double offered,
                     uint32_t interval, const char *agent, const struct agg_record *rec,
                     struct error *err)
{
	char *line =
	    intervals_record_line(w->name, step, offered, interval, agent, rec, r->agent_bins);
	int rc = 0;

	if (agent != NULL) {
		results_hold(r, line);
		if (r->npending > RESULTS_PENDING_MAX)
			rc = results_put_intervals(r, NULL, err);
	} else {
		rc = results_put_intervals(r, line, err);
	}
	free(line);
	return rc;
}

int results_clock(struct results *r, const struct workload *w, uint32_t step, const char *agent,
                  const struct intervals_clock *k, struct error *err)
{
	char *line = intervals_clock_line(w->name, step, agent, k);
	int rc = results_put_intervals(r, line, err);

	free(line);
	return rc;
}

int results_finish(struct results *r, const struct workload *w, uint32_t step, const char *agent,
                   const struct intervals_finish *f, struct error *err)
{
	char *line = intervals_finish_line(w->name, step, agent, f);
	int rc = results_put_intervals(r, line, err);

	free(line);
	return rc;
}

int results_window(struct results *r, const struct workload *w, uint32_t step, uint32_t from,
                   uint32_t to, struct error *err)
{
	char *line = intervals_window_line(w->name, step, from, to);
	int rc = results_put_intervals(r, line, err);

	free(line);
	return rc;
}

int results_background(struct results *r, const struct workload *w, uint32_t step,
                       const struct intervals_bg *b, struct error *err)
{
	char *line = intervals_background_line(w->name, step, b);
	int rc = results_put_intervals(r, line, err);

	free(line);
	return rc;
}

int results_cooldown(struct results *r, const struct workload *w, uint32_t step, uint32_t ms,
                     const char *outcome, struct error *err)
{
	char *line = intervals_cooldown_line(w->name, step, ms, outcome);
	int rc = results_put_intervals(r, line, err);

	free(line);
	return rc;
}

int results_retried(struct results *r, const struct workload *w, uint32_t step, uint32_t attempt,
                    struct error *err)
{
	char *line = intervals_retried_line(w->name, step, attempt);
	int rc = results_put_intervals(r, line, err);

	free(line);
	return rc;
}

int results_end(struct results *r, const char *state, const char *reason, struct error *err)
{
	char *line = intervals_end_line(state, reason);
	int rc = results_put_intervals(r, line, err);

	free(line);
	return rc;
}

int results_lost(struct results *r, const struct workload *w, uint32_t step, const char *agent,
                 uint32_t interval, const char *reason, struct error *err)
{
	char *line = intervals_lost_line(w->name, step, agent, interval, reason);
	int rc = results_put_intervals(r, line, err);

	free(line);
	return rc;
}

int results_mark(struct results *r, const struct run_mark *m, struct error *err)
{
	char *line = intervals_mark_line(m);
	int rc = results_put_intervals(r, line, err);

	free(line);
	return rc;
}

int results_obs(struct results *r, const struct obs_line *o, struct error *err)
{
	char *line = intervals_obs_line(o);
	int rc = results_put_intervals(r, line, err);

	free(line);
	return rc;
}

int results_point(struct results *r, const struct workload *w, const struct step_point *p,
                  struct error *err)
{
	char *line = results_point_line(r, w, p);
	int rc = results_put(r, r->curve, "curve.csv", line, err);

	free(line);
	return rc;
}

static int results_sync_file(int fd, const char *dir, const char *name, struct error *err)
{
	if (fsync(fd) != 0) {
		error_set(err, "%s/%s: cannot write: %s", dir, name, strerror(errno));
		return -1;
	}
	return 0;
}

int results_sync(struct results *r, struct error *err)
{
	if (results_put_intervals(r, NULL, err) < 0 ||
	    results_sync_file(r->intervals, r->dir, "intervals.jsonl", err) < 0 ||
	    results_sync_file(r->curve, r->dir, "curve.csv", err) < 0)
		return -1;
	fsync(r->dirfd);
	return 0;
}

int results_flush(struct results *r, struct error *err)
{
	return results_put_intervals(r, NULL, err);
}

void results_close(struct results *r)
{
	if (r == NULL)
		return;
	if (r->intervals >= 0) {
		struct error err;

		if (results_put_intervals(r, NULL, &err) < 0)
			log_warn("%s", err.msg);
		close(r->intervals);
	}
	free(r->pending);
	results_release(r);
	if (r->curve >= 0)
		close(r->curve);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->dir);
	free(r);
}
