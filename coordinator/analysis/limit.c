/* SPDX-License-Identifier: MIT */
/* What limited a workload: the rules in order, the first that holds (limit.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "curve.h"
#include "limit.h"
#include "thresholds.h"
#include "units.h"
#include "verdict.h"

/* What the rules read of the curve, worked out once. */
struct limit_ctx {
	const struct campaign *c;
	const struct workload *w;
	const struct step_point *pts, *peak, *first_err;
	const struct ratecap *rc;
	size_t n;
	uint64_t errors;
	double cpu;      /* the busiest agent host over the curve, % */
	double qd;       /* the peak's queues full, % of its time */
	double slots;    /* the peak's slots: workers x queue depth */
	double inflight; /* in flight at the peak (Little's law) */
	double svc_min;  /* the least service time of a valid step: the storage unqueued */
	char why[192];   /* a rule's detail (the saturation's words) */
};

struct limit_rule {
	const char *word; /* the headline's */
	bool (*holds)(struct limit_ctx *x);
	void (*words)(const struct limit_ctx *x, char *buf, size_t len);
};

/* Failed operations first: they leave the client idle and the rate short. */
static bool limit_errors(struct limit_ctx *x)
{
	return x->errors > 0;
}

/*
 * Errors, not capacity: the share of the operations that failed, then the first as the
 * run met it (the lowest step), not as the curve orders them.
 */
static void limit_errors_words(const struct limit_ctx *x, char *buf, size_t len)
{
	const struct step_point *first = x->first_err;
	uint64_t all = 0;
	char a[32], b[32], why[192];

	for (size_t i = 0; i < x->n; i++) {
		all += x->pts[i].ops + x->pts[i].errors;
		if (x->pts[i].err_errno != 0 && first != NULL && x->pts[i].step < first->step)
			first = &x->pts[i];
	}
	units_format_count(x->errors, a, sizeof(a));
	units_format_count(all, b, sizeof(b));
	curve_error_words(first, x->errors, why, sizeof(why));
	snprintf(buf, len, "I/O errors: %s of %s operations failed (%.3g%%)%s%s", a, b,
	         100.0 * (double)x->errors / (double)(all ? all : 1), first ? ", the first " : "",
	         first ? why : "");
}

static bool limit_not_run(struct limit_ctx *x)
{
	return x->peak == NULL;
}

static void limit_not_run_words(const struct limit_ctx *x, char *buf, size_t len)
{
	(void)x;
	snprintf(buf, len, "not run");
}

/* A service time not grown past THRESH_SVC_GROWTH x the least seen: the storage unqueued. */
static bool limit_unqueued(const struct limit_ctx *x, double svc)
{
	return x->svc_min == 0 || svc <= THRESH_SVC_GROWTH * x->svc_min;
}

/*
 * The client first: its queues full most of the time and, by Little's law, the peak
 * equal to its slots over the service time, and that service time not grown (else the
 * storage queued the operations itself: full queues then only mirror its saturation).
 * A sized queue (no queue_depth) follows the load and never limits it.
 */
static bool limit_client_queue(struct limit_ctx *x)
{
	return x->qd >= THRESH_QUEUE_LIMIT_PCT && x->slots > 0 && !x->w->qd_sized &&
	       fabs(x->inflight - x->slots) <= THRESH_LITTLE_TOL * x->slots &&
	       limit_unqueued(x, x->peak->svc_mean_ns);
}

static void limit_client_queue_words(const struct limit_ctx *x, char *buf, size_t len)
{
	snprintf(buf, len,
	         "client queue depth (%.0f slots, %.1f in flight at the peak, full %.0f%% of the "
	         "time)",
	         x->slots, x->inflight, x->qd);
}

/* A cap before the client's CPU: its service time grew at the top, the storage held it. */
static bool limit_cap(struct limit_ctx *x)
{
	return x->rc != NULL && x->rc->capped;
}

static void limit_cap_words(const struct limit_ctx *x, char *buf, size_t len)
{
	ratecap_words(x->rc, buf, len);
}

/*
 * Its CPU, where the storage did not queue: a client short of CPU issues late and the
 * storage, given less, answers as fast as ever. A peak whose service time (less the
 * client's own reap delay) grew held the operations in the storage: the host was busy
 * driving it, the storage set the rate.
 */
static bool limit_client_cpu(struct limit_ctx *x)
{
	return x->cpu >= THRESH_HOST_BUSY_PCT &&
	       limit_unqueued(x, x->peak->svc_mean_ns - x->peak->client.reap_delay_ns);
}

static void limit_client_cpu_words(const struct limit_ctx *x, char *buf, size_t len)
{
	snprintf(buf, len, "client CPU (an agent host %.0f%% busy)", x->cpu);
}

static bool limit_saturated(struct limit_ctx *x)
{
	return verdict_saturated(x->c, &x->pts[x->n - 1], x->why, sizeof(x->why));
}

static void limit_saturated_words(const struct limit_ctx *x, char *buf, size_t len)
{
	snprintf(buf, len, "storage saturated: %s", x->why);
}

static bool limit_queue(struct limit_ctx *x)
{
	return x->qd >= THRESH_QUEUE_LIMIT_PCT && !x->w->qd_sized;
}

static void limit_queue_words(const struct limit_ctx *x, char *buf, size_t len)
{
	snprintf(buf, len, "queue depth (%u per worker, full %.0f%% of the time at peak)",
	         x->w->io.queue_depth, x->qd);
}

static bool limit_slo(struct limit_ctx *x)
{
	return step_metric(x->peak, x->c->slo_metric) > (double)x->c->slo_latency_ns;
}

static void limit_slo_words(const struct limit_ctx *x, char *buf, size_t len)
{
	(void)x;
	snprintf(buf, len, "SLO latency");
}

static bool limit_none(struct limit_ctx *x)
{
	(void)x;
	return true;
}

static void limit_none_words(const struct limit_ctx *x, char *buf, size_t len)
{
	(void)x;
	snprintf(buf, len, "none reached: raise the load");
}

/* In order: the first row that holds names the limit. */
static const struct limit_rule limit_rules[] = {
    {"errors", limit_errors, limit_errors_words},
    {"not run", limit_not_run, limit_not_run_words},
    {"client queue", limit_client_queue, limit_client_queue_words},
    {"storage cap", limit_cap, limit_cap_words},
    {"client CPU", limit_client_cpu, limit_client_cpu_words},
    {"storage", limit_saturated, limit_saturated_words},
    {"queue depth", limit_queue, limit_queue_words},
    {"SLO latency", limit_slo, limit_slo_words},
    {"not reached", limit_none, limit_none_words},
};

const char *limit_row_word(size_t i)
{
	return i < sizeof(limit_rules) / sizeof(limit_rules[0]) ? limit_rules[i].word : NULL;
}

/*
 * The client's own disk at its limit at the first violation (in curve order): its
 * name, its busy share there and the throughput from which it stayed that busy
 * ("client disk vda busy 99% from 80,000 ops/s"); "" when it was not, was not read, or was
 * busy from under half the violating load.
 */
static void limit_disk_words(const struct campaign *c, const struct workload *w,
                             const struct step_point *pts, size_t n, char *buf, size_t len)
{
	const struct step_point *from = NULL;
	char tp[32];

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const struct step_point *p = &pts[i];

		if (p->kernel.known && p->kernel.dev_util_pct >= THRESH_DISK_BUSY_PCT) {
			if (from == NULL)
				from = p;
		} else {
			from = NULL;
		}
		if (!verdict_violates(c, p))
			continue;
		/*
		 * A device that serves in parallel (virtio, NVMe, a cloud volume) is "busy"
		 * whenever one request is in flight: busy from under half the load that
		 * violated, it went on serving more, and its busy share is not its limit (the
		 * demo's vda: busy 90% from 4,787 ops/s, serving 114,000).
		 */
		if (from == NULL || 2 * curve_throughput(w, from) < curve_throughput(w, p))
			return;
		units_format_count((uint64_t)floor(curve_throughput(w, from) + 1e-9), tp,
		                   sizeof(tp));
		snprintf(buf, len, "client disk %s busy %.0f%% from %s %s", p->kernel.dev,
		         floor(p->kernel.dev_util_pct), tp, curve_unit(w));
		return;
	}
}

const char *limit_judge(const struct campaign *c, const struct workload *w,
                        const struct step_point *pts, size_t n, const struct ratecap *rc, char *buf,
                        size_t len)
{
	struct limit_ctx x = {.c = c, .w = w, .pts = pts, .n = n, .rc = rc};
	const char *word = NULL;
	char disk[RECORD_DEV_MAX + 96];
	size_t used;

	x.peak = curve_peak(w, pts, n);
	x.errors = curve_errors(pts, n, &x.first_err);
	for (size_t i = 0; i < n; i++) {
		if (pts[i].client.host_cpu_pct > x.cpu)
			x.cpu = pts[i].client.host_cpu_pct;
		if (verdict_valid(&pts[i]) && pts[i].svc_mean_ns > 0 &&
		    (x.svc_min == 0 || pts[i].svc_mean_ns < x.svc_min))
			x.svc_min = pts[i].svc_mean_ns;
	}
	if (x.peak != NULL) {
		x.qd = x.peak->client.qd_full_pct;
		x.slots = (double)x.peak->workers * w->io.queue_depth;
		x.inflight = curve_in_flight(x.peak);
	}
	for (size_t i = 0; i < sizeof(limit_rules) / sizeof(limit_rules[0]); i++)
		if (limit_rules[i].holds(&x)) {
			limit_rules[i].words(&x, buf, len);
			word = limit_rules[i].word;
			break;
		}
	limit_disk_words(c, w, pts, n, disk, sizeof(disk));
	used = strlen(buf);
	/* beside the client-side reason, not instead of it */
	if (disk[0] != '\0' && used + 2 < len)
		snprintf(buf + used, len - used, "; %s", disk);
	return word;
}
