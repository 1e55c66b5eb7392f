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
	fprintf(r->curve,
	        "workload,rw,block_size,direct,step,load,offered_ops,achieved_ops,mib_s,"
	        "mean_us,p50_us,p90_us,p99_us,p999_us,max_us,service_mean_us,ops,reads,errors,"
	        "measured_s,cpu_pct,host_cpu_pct,lag_mean_us,lag_max_us,missed\n");
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

/* Non-empty bins as [index, count, index, count, ...]: enough to rebuild the histogram. */
static void results_hist(FILE *f, const char *key, const struct hist *h)
{
	bool first = true;

	fprintf(f,
	        ",\"%s\":{\"count\":%llu,\"sum_ns\":%llu,\"min_ns\":%llu,\"max_ns\":%llu,"
	        "\"sub_bits\":%u,\"bins\":[",
	        key, (unsigned long long)h->count, (unsigned long long)h->sum,
	        (unsigned long long)(h->count ? h->min : 0), (unsigned long long)h->max,
	        HIST_SUB_BITS);
	for (unsigned i = 0; i < HIST_BINS; i++) {
		if (h->bins[i] == 0)
			continue;
		fprintf(f, "%s%u,%llu", first ? "" : ",", i, (unsigned long long)h->bins[i]);
		first = false;
	}
	fputs("]}", f);
}

void results_interval(struct results *r, const struct workload *w, uint32_t step, double offered,
                      uint32_t interval, const char *agent, const struct agg_record *rec)
{
	FILE *f = r->intervals;

	/* Workload and agent names are restricted to [A-Za-z0-9._-]: no JSON escaping needed. */
	fprintf(f,
	        "{\"workload\":\"%s\",\"step\":%u,\"offered_ops\":%.17g,\"interval\":%u,"
	        "\"agent\":\"%s\",",
	        w->name, step, offered, interval, agent ? agent : "*");
	fprintf(f,
	        "\"warmup\":%s,\"agents\":%u,\"workers\":%u,\"duration_ns\":%llu,"
	        "\"ops\":%llu,\"reads\":%llu,\"bytes\":%llu,\"errors\":%llu,\"cpu_user_ns\":%llu,"
	        "\"cpu_sys_ns\":%llu,\"lag_sum_ns\":%llu,\"lag_max_ns\":%llu,\"qd_full_ns\":%llu,"
	        "\"missed\":%llu,"
	        "\"host_cpu_pct\":%.17g,"
	        "\"mean_ns\":%.0f,\"p99_ns\":%llu",
	        rec->warmup ? "true" : "false", rec->agents, rec->workers,
	        (unsigned long long)rec->duration_ns, (unsigned long long)rec->rec.ops,
	        (unsigned long long)rec->rec.reads, (unsigned long long)rec->rec.bytes,
	        (unsigned long long)rec->rec.errors, (unsigned long long)rec->rec.cpu_user_ns,
	        (unsigned long long)rec->rec.cpu_sys_ns, (unsigned long long)rec->rec.lag_sum_ns,
	        (unsigned long long)rec->rec.lag_max_ns, (unsigned long long)rec->rec.qd_full_ns,
	        (unsigned long long)rec->rec.missed, rec->host_cpu_pct,
	        hist_mean(&rec->rec.latency),
	        (unsigned long long)hist_quantile(&rec->rec.latency, 99));
	results_hist(f, "latency", &rec->rec.latency);
	results_hist(f, "service", &rec->rec.service);
	fputs("}\n", f);
}

void results_window(struct results *r, const struct workload *w, uint32_t step, uint32_t from,
                    uint32_t to)
{
	fprintf(r->intervals,
	        "{\"workload\":\"%s\",\"step\":%u,\"window_from\":%u,"
	        "\"window_to\":%u}\n",
	        w->name, step, from, to);
}

void results_point(struct results *r, const struct workload *w, const struct step_point *p)
{
	fprintf(
	    r->curve,
	    "%s,%s,%u,%s,%u,%s,%.1f,%.1f,%.3f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%llu,%llu,%llu,"
	    "%.3f,%.1f,%.1f,%.1f,%.1f,%llu\n",
	    w->name, rw_mode_name(w->rw), w->block_size, w->access.direct ? "true" : "false",
	    p->step + 1, p->offered_ops > 0 ? "rate" : "max", p->offered_ops, p->achieved_ops,
	    p->mib_s, p->mean_ns / 1e3, (double)p->p50_ns / 1e3, (double)p->p90_ns / 1e3,
	    (double)p->p99_ns / 1e3, (double)p->p999_ns / 1e3, (double)p->max_ns / 1e3,
	    p->svc_mean_ns / 1e3, (unsigned long long)p->ops, (unsigned long long)p->reads,
	    (unsigned long long)p->errors, p->measured_s, p->cpu_pct, p->host_cpu_pct,
	    p->lag_mean_ns / 1e3, (double)p->lag_max_ns / 1e3, (unsigned long long)p->missed);
}

static int results_sync_file(FILE *f, const char *dir, const char *name, struct error *err)
{
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
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
