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
#include "results.h"
#include "table.h"
#include "xalloc.h"

struct results {
	char *dir;
	FILE *intervals;
	FILE *curve;
};

static FILE *results_create(struct results *r, const char *name, struct error *err)
{
	char *path = xasprintf("%s/%s", r->dir, name);
	FILE *f = fopen(path, "wx");

	if (f == NULL)
		error_set(err, "%s: cannot create: %s", path, strerror(errno));
	free(path);
	return f;
}

static int results_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	int rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

struct results *results_open(const char *dir, const struct campaign *c, struct error *err)
{
	struct results *r = xcalloc(1, sizeof(*r));
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	FILE *plan;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	r->dir = dir ? xstrdup(dir) : xasprintf("iocurve-results/%s-%s", c->name, stamp);
	if (fs_mkdir_p(r->dir, 0755, err) < 0) {
		error_prefix(err, "results directory %s: ", r->dir);
		goto err;
	}
	plan = results_create(r, "plan.yaml", err);
	if (plan == NULL)
		goto err;
	if (fwrite(c->text, 1, c->text_len, plan) != c->text_len || fflush(plan) != 0 ||
	    fsync(fileno(plan)) != 0) {
		error_set(err, "%s/plan.yaml: cannot write: %s", r->dir, strerror(errno));
		fclose(plan);
		goto err;
	}
	fclose(plan);
	r->intervals = results_create(r, "intervals.jsonl", err);
	r->curve = r->intervals ? results_create(r, "curve.csv", err) : NULL;
	if (r->curve == NULL)
		goto err;
	fprintf(
	    r->curve,
	    "workload,rw,block_size,direct,step,load,offered_ops,achieved_ops,mib_s,"
	    "mean_us,p50_us,p90_us,p99_us,p999_us,max_us,service_mean_us,ops,reads,errors,"
	    "measured_s,cpu_pct,host_cpu_pct,lag_mean_us,lag_max_us,missed,lag_share,client_bound,"
	    "missed_charged\n");
	if (results_sync(r, err) < 0)
		goto err;
	return r;
err:
	results_close(r);
	return NULL;
}

const char *results_dir(const struct results *r)
{
	return r->dir;
}

void results_interval(struct results *r, const struct workload *w, uint32_t step, double offered,
                      uint32_t interval, const char *agent, const struct agg_record *rec)
{
	intervals_write_record(r->intervals, w->name, step, offered, interval, agent, rec);
}

void results_window(struct results *r, const struct workload *w, uint32_t step, uint32_t from,
                    uint32_t to)
{
	intervals_write_window(r->intervals, w->name, step, from, to);
}

void results_point(struct results *r, const struct workload *w, const struct step_point *p)
{
	fprintf(
	    r->curve,
	    "%s,%s,%u,%s,%u,%s,%.1f,%.1f,%.3f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%llu,%llu,%llu,"
	    "%.3f,%.1f,%.1f,%.1f,%.1f,%llu,%.3f,%s,%llu\n",
	    w->name, rw_mode_name(w->rw), w->block_size, w->access.direct ? "true" : "false",
	    p->step + 1, p->offered_ops > 0 ? "rate" : "max", p->offered_ops, p->achieved_ops,
	    p->mib_s, p->mean_ns / 1e3, (double)p->p50_ns / 1e3, (double)p->p90_ns / 1e3,
	    (double)p->p99_ns / 1e3, (double)p->p999_ns / 1e3, (double)p->max_ns / 1e3,
	    p->svc_mean_ns / 1e3, (unsigned long long)p->ops, (unsigned long long)p->reads,
	    (unsigned long long)p->errors, p->measured_s, p->cpu_pct, p->host_cpu_pct,
	    p->lag_mean_ns / 1e3, (double)p->lag_max_ns / 1e3, (unsigned long long)p->missed,
	    p->lag_share, p->client_bound ? "true" : "false",
	    (unsigned long long)p->missed_charged);
}

static int results_sync_file(FILE *f, const char *dir, const char *name, struct error *err)
{
	/* A failed write earlier (disk full) stays on f: ferror reports it here. */
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) {
		error_set(err, "%s/%s: cannot write: %s", dir, name, strerror(errno));
		return -1;
	}
	return 0;
}

int results_sync(struct results *r, struct error *err)
{
	if (results_sync_file(r->intervals, r->dir, "intervals.jsonl", err) < 0 ||
	    results_sync_file(r->curve, r->dir, "curve.csv", err) < 0)
		return -1;
	results_fsync_dir(r->dir);
	return 0;
}

void results_close(struct results *r)
{
	if (r == NULL)
		return;
	if (r->intervals)
		fclose(r->intervals);
	if (r->curve)
		fclose(r->curve);
	free(r->dir);
	free(r);
}
