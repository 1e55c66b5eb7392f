/* SPDX-License-Identifier: MIT */
/* A step point's fields, described once: the table every writer of a point walks. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "background.h"
#include "bgfig.h"
#include "pointfields.h"
#include "judged.h"
#include "verdict.h"

/* The step in run order, from 1 as every file numbers it. */
static void pfield_step(const struct step_point *p, const struct judged_point *jp,
                        struct pfield_val *v)
{
	v->u = (uint64_t)p->step + 1;
}

/* Where the first lost agent left the step (from 1); none when no agent was lost. */
static void pfield_lost_at(const struct step_point *p, const struct judged_point *jp,
                           struct pfield_val *v)
{
	v->none = p->agents_lost == 0;
	v->u = (uint64_t)p->lost_at + 1;
}

static void pfield_first_error(const struct step_point *p, const struct judged_point *jp,
                               struct pfield_val *v)
{
	/* A failure without an errno (a short read, a lost target) shows as 0. */
	v->none = p->err_errno == 0 && p->err_cause[0] == '\0';
	v->u = (uint64_t)(uint32_t)p->err_errno;
}

/* The client's delay per operation: issue lateness plus reap delay; none without health. */
static void pfield_client_delay(const struct step_point *p, const struct judged_point *jp,
                                struct pfield_val *v)
{
	v->none = !p->client.known;
	v->raw = p->client.issue_late_ns + p->client.reap_delay_ns;
}

/* The judged latency named by whose it is and which figure: "storage mean", "response p99". */
static void pfield_slo_metric(const struct step_point *p, const struct judged_point *jp, char *buf,
                              size_t len)
{
	bool part = p->slo_part >= 0 && (uint32_t)p->slo_part < p->nparts;

	snprintf(buf, len, "%s %s", part || p->slo_due ? "response" : "storage",
	         campaign_slo_metric_name(p->slo_metric));
}

static void pfield_slo_metric_ns(const struct step_point *p, const struct judged_point *jp,
                                 struct pfield_val *v)
{
	v->raw = step_metric(p, p->slo_metric);
}

/* The step's verdict on the SLO: met, undecided, violated or not judged. */
static void pfield_slo_verdict(const struct step_point *p, const struct judged_point *jp, char *buf,
                               size_t len)
{
	snprintf(buf, len, "%s", verdict_slo_word(jp->slo));
}

static void pfield_valid(const struct step_point *p, const struct judged_point *jp,
                         struct pfield_val *v)
{
	v->b = jp->valid;
}

/* Load under load: whether the background kept up with its asked rate in the step. */
static void pfield_bg_kept_up(const struct step_point *p, const struct judged_point *jp,
                              struct pfield_val *v)
{
	v->b = bgfig_kept_up(p);
}

static void pfield_bg_words(const struct step_point *p, const struct judged_point *jp, char *buf,
                            size_t len)
{
	bgfig_words(p, buf, len);
}

/* An open-loop step ("rate") or a closed-loop one ("max"). */
static void pfield_load(const struct step_point *p, const struct judged_point *jp, char *buf,
                        size_t len)
{
	snprintf(buf, len, "%s", p->offered_ops > 0 ? "rate" : "max");
}

static void pfield_verdict(const struct step_point *p, const struct judged_point *jp, char *buf,
                           size_t len)
{
	snprintf(buf, len, "%s", jp->words);
}

/* Intervals [from, to) with their reason, "; "-separated after what buf already holds. */
static void pfield_span(char *buf, size_t len, uint32_t from, uint32_t to, const char *why)
{
	size_t at = strlen(buf);

	if (from >= to || at >= len)
		return;
	if (to - from == 1)
		snprintf(buf + at, len - at, "%s%u %s", at ? "; " : "", from, why);
	else
		snprintf(buf + at, len - at, "%s%u-%u %s", at ? "; " : "", from, to - 1, why);
}

/*
 * The step's intervals left out of its point, numbered as intervals.jsonl numbers
 * them, with the reason: "0-1 warm-up; 14-15 after the window". Every
 * other interval is in the point; "" when none was left out.
 */
static void pfield_left_out(const struct step_point *p, const struct judged_point *jp, char *buf,
                            size_t len)
{
	uint32_t warm = p->warmup_n > p->win_from ? p->warmup_n : p->win_from;

	buf[0] = '\0';
	pfield_span(buf, len, 0, warm, "warm-up");
	pfield_span(buf, len, p->win_to > p->win_from ? p->win_to : p->win_from, p->nall,
	            "after the window");
}

static void pfield_cooldown(const struct step_point *p, const struct judged_point *jp, char *buf,
                            size_t len)
{
	snprintf(buf, len, "%s", p->cooldown);
}

/* The device the kernel's figures are of, and whether other traffic shared it. */
static void pfield_device(const struct step_point *p, const struct judged_point *jp, char *buf,
                          size_t len)
{
	if (p->kernel.known && p->kernel.dev_ops_ratio > THRESH_DEV_SHARED)
		snprintf(buf, len, "%s (shared: %.1fx the workers' ops)", p->kernel.dev,
		         p->kernel.dev_ops_ratio);
	else
		snprintf(buf, len, "%s",
		         p->kernel.known || p->kernel.nfs_known ? p->kernel.dev : "");
}

/* The device's time per completed op; none when no block device was read or none completed. */
static void pfield_dev_service(const struct step_point *p, const struct judged_point *jp,
                               struct pfield_val *v)
{
	v->none = !p->kernel.known || p->kernel.dev_service_ns <= 0;
	v->raw = p->kernel.dev_service_ns;
}

/* Our service time over the device's: what the client's side added (may be < 0 by rounding). */
static void pfield_dev_gap(const struct step_point *p, const struct judged_point *jp,
                           struct pfield_val *v)
{
	v->none = !p->kernel.known || p->kernel.dev_service_ns <= 0 || p->svc_mean_ns <= 0;
	v->raw = p->svc_mean_ns - p->kernel.dev_service_ns;
}

static void pfield_dev_util(const struct step_point *p, const struct judged_point *jp,
                            struct pfield_val *v)
{
	v->none = !p->kernel.known;
	v->raw = p->kernel.dev_util_pct;
}

static void pfield_dev_queue(const struct step_point *p, const struct judged_point *jp,
                             struct pfield_val *v)
{
	v->none = !p->kernel.known;
	v->raw = p->kernel.dev_queue;
}

static void pfield_dev_ratio(const struct step_point *p, const struct judged_point *jp,
                             struct pfield_val *v)
{
	v->none = !p->kernel.known || p->ops == 0;
	v->raw = p->kernel.dev_ops_ratio;
}

static void pfield_dev_shared(const struct step_point *p, const struct judged_point *jp,
                              struct pfield_val *v)
{
	v->none = !p->kernel.known || p->ops == 0;
	v->b = p->kernel.dev_ops_ratio > THRESH_DEV_SHARED;
}

static void pfield_nfs_rtt(const struct step_point *p, const struct judged_point *jp,
                           struct pfield_val *v)
{
	v->none = !p->kernel.nfs_known;
	v->raw = p->kernel.nfs_rtt_ns;
}

static void pfield_nfs_exec(const struct step_point *p, const struct judged_point *jp,
                            struct pfield_val *v)
{
	v->none = !p->kernel.nfs_known;
	v->raw = p->kernel.nfs_exec_ns;
}

/*
 * A replay's speed: the step's offered rate over its trace's x1 rate (a refine step's
 * falls between the speeds it bisects); none for a closed-loop step or a workload of rates.
 */
static void pfield_speed(const struct step_point *p, const struct judged_point *jp,
                         struct pfield_val *v)
{
	v->none = !(p->replay_x1 > 0) || !(p->offered_ops > 0);
	v->raw = v->none ? 0 : p->offered_ops / p->replay_x1;
}

/* A member of struct step_point. */
#define PF_AT(m, type) .member = type, .off = offsetof(struct step_point, m)
/* An integer member. */
#define PF_INT(m, type) PF_AT(m, type), .kind = PF_UINT, .unit = ""
/* A real member, written with d decimals, in unit u. */
#define PF_FIXED(m, d, u) PF_AT(m, PF_M_DOUBLE), .kind = PF_REAL, .decimals = d, .unit = u
/* A latency kept in ns, written in us with one decimal. */
#define PF_US(m, type) PF_AT(m, type), .kind = PF_REAL, .decimals = 1, .div = 1e3, .unit = "us"
/* A column of both step tables: its heading, how it prints, where it stands. */
#define PF_COLUMN(t, h, c) .title = t, .human = h, .col = c
#define PF_STEPS           (PF_STEPS_MD | PF_STEPS_HTML)
/* The outputs most figures are in: both CSV files and curve-*.json. */
#define PF_FILES (PF_CURVE | PF_CSV | PF_JSON)
/*
 * The background's figures: curve-*.json since format 4, both CSV files since format 5
 * (their columns only in a campaign with a background: PF_SHOW_BACKGROUND).
 */
#define PF_BG_FILES PF_FILES

/*
 * In curve.csv's order (its columns after the workload's). A new field goes at the
 * end, with the results format that first writes it as its `since`: every output
 * that carries it then gains it as its last column or key.
 */
static const struct pfield pfield_rows[] = {
    {.name = "step",
     .kind = PF_UINT,
     .get = pfield_step,
     .unit = "",
     .since = 1,
     .out = PF_FILES | PF_STEPS,
     .json_first = true,
     PF_COLUMN("Step", PF_H_COUNT, 1)},
    {.name = "load", .kind = PF_TEXT, .text = pfield_load, .unit = "", .since = 1, .out = PF_CURVE},
    {.name = "offered_ops",
     PF_FIXED(offered_ops, 1, "ops/s"),
     .since = 1,
     .out = PF_FILES | PF_EVENT | PF_STEPS,
     .json_first = true,
     PF_COLUMN("Offered ops/s", PF_H_OFFERED, 2)},
    {.name = "achieved_ops",
     PF_FIXED(achieved_ops, 1, "ops/s"),
     .since = 1,
     .out = PF_FILES | PF_EVENT | PF_STEPS,
     .json_first = true,
     PF_COLUMN("Achieved ops/s", PF_H_RATE, 3)},
    {.name = "mib_s",
     .key = "achieved_mibps",
     PF_FIXED(mib_s, 3, "MiB/s"),
     .since = 1,
     .out = PF_FILES | PF_EVENT | PF_STEPS,
     .json_first = true,
     PF_COLUMN("MiB/s", PF_H_FIXED1, 4)},
    {.name = "mean_us",
     PF_US(mean_ns, PF_M_DOUBLE),
     .since = 1,
     .out = PF_FILES | PF_EVENT | PF_STEPS,
     .json_first = true,
     PF_COLUMN("Response mean", PF_H_DURATION, 5)},
    {.name = "p50_us",
     PF_US(p50_ns, PF_M_U64),
     .since = 1,
     .out = PF_FILES | PF_EVENT,
     .json_first = true},
    {.name = "p90_us", PF_US(p90_ns, PF_M_U64), .since = 1, .out = PF_FILES, .json_first = true},
    {.name = "p99_us",
     PF_US(p99_ns, PF_M_U64),
     .since = 1,
     .out = PF_FILES | PF_EVENT,
     .json_first = true},
    {.name = "p999_us", PF_US(p999_ns, PF_M_U64), .since = 1, .out = PF_FILES, .json_first = true},
    {.name = "max_us",
     PF_US(max_ns, PF_M_U64),
     .since = 1,
     .out = PF_FILES | PF_STEPS,
     .json_first = true,
     PF_COLUMN("Max", PF_H_DURATION, 8)},
    /* service time (fio's clat): submission to completion, the storage's latency */
    {.name = "service_mean_us",
     PF_US(svc_mean_ns, PF_M_DOUBLE),
     .since = 1,
     .out = PF_CURVE | PF_JSON | PF_STEPS,
     PF_COLUMN("Storage mean", PF_H_DURATION, 6)},
    {.name = "ops", PF_INT(ops, PF_M_U64), .since = 1, .out = PF_CURVE},
    {.name = "reads", PF_INT(reads, PF_M_U64), .since = 1, .out = PF_CURVE},
    {.name = "steady",
     PF_AT(steady, PF_M_BOOL),
     .kind = PF_BOOL,
     .unit = "",
     .since = 1,
     .out = PF_CSV | PF_JSON | PF_EVENT,
     .json_first = true},
    {.name = "errors",
     PF_INT(errors, PF_M_U64),
     .since = 1,
     .out = PF_FILES | PF_EVENT | PF_STEPS,
     .json_first = true,
     PF_COLUMN("Errors", PF_H_COUNT, 10)},
    {.name = "agents",
     PF_INT(nagents, PF_M_U32),
     .since = 1,
     .out = PF_CSV | PF_JSON,
     .json_first = true},
    {.name = "agents_lost", PF_INT(agents_lost, PF_M_U32), .since = 1, .out = PF_CSV},
    {.name = "lost_at_interval",
     .kind = PF_UINT,
     .get = pfield_lost_at,
     .unit = "",
     .since = 1,
     .out = PF_CSV},
    {.name = "measured_s", PF_FIXED(measured_s, 3, "s"), .since = 1, .out = PF_CURVE},
    /* the workers' CPU time, % of one core */
    {.name = "cpu_pct", PF_FIXED(client.cpu_pct, 1, "%"), .since = 1, .out = PF_CURVE},
    /* the busiest agent host, % of all its CPUs */
    {.name = "host_cpu_pct",
     .key = "client_cpu_pct",
     .event = "client_cpu_pct",
     PF_FIXED(client.host_cpu_pct, 1, "%"),
     .since = 1,
     .out = PF_CURVE | PF_JSON | PF_EVENT | PF_STEPS,
     .json_first = true,
     PF_COLUMN("Client CPU", PF_H_PERCENT, 11)},
    {.name = "qd_full_pct",
     PF_FIXED(client.qd_full_pct, 1, "%"),
     .since = 1,
     .out = PF_JSON,
     .json_first = true},
    {.name = "lag_mean_us",
     PF_US(client.lag_mean_ns, PF_M_DOUBLE),
     .since = 1,
     .out = PF_CURVE | PF_JSON},
    {.name = "lag_max_us", PF_US(client.lag_max_ns, PF_M_U64), .since = 1, .out = PF_CURVE},
    {.name = "missed",
     PF_INT(missed, PF_M_U64),
     .since = 1,
     .out = PF_CURVE | PF_JSON,
     .json_first = true},
    /* the campaign's percentiles, keyed (and headed) as "p99.99" */
    {.name = "percentiles_us",
     .kind = PF_PCTS,
     .unit = "us",
     .since = 1,
     .out = PF_JSON | PF_STEPS,
     .json_first = true,
     PF_COLUMN(NULL, PF_H_DURATION, 7)},
    {.name = "first_error",
     .kind = PF_ERROR,
     .get = pfield_first_error,
     .unit = "",
     .since = 1,
     .out = PF_JSON,
     .json_first = true},
    {.name = "valid",
     .kind = PF_BOOL,
     .judged = true,
     .get = pfield_valid,
     .unit = "",
     .since = 1,
     .out = PF_JSON,
     .json_first = true},
    {.name = "verdict",
     .kind = PF_TEXT,
     .judged = true,
     .text = pfield_verdict,
     .unit = "",
     .since = 1,
     .out = PF_JSON | PF_STEPS,
     .json_first = true,
     PF_COLUMN("Verdict", PF_H_TEXT, 9)},
    /* lag over lag plus service time: the client's and queue depth's part of the latency */
    {.name = "lag_share", PF_FIXED(client.lag_share, 3, ""), .since = 1, .out = PF_CURVE | PF_JSON},
    {.name = "client_bound",
     PF_AT(client.bound, PF_M_BOOL),
     .kind = PF_BOOL,
     .unit = "",
     .since = 1,
     .out = PF_CURVE | PF_JSON},
    {.name = "missed_charged",
     PF_INT(missed_charged, PF_M_U64),
     .since = 1,
     .out = PF_CURVE | PF_JSON},
    /* the intervals not in the point, with why (pfield_left_out) */
    {.name = "left_out",
     .kind = PF_TEXT,
     .text = pfield_left_out,
     .unit = "",
     .since = 2,
     .out = PF_JSON},
    /* the backlog at the window's start: due before it, so not due in it (verdict_due) */
    {.name = "missed_before", PF_INT(missed_before, PF_M_U64), .since = 2, .out = PF_JSON},
    /* the cooldown before the step: its length and how it ended ("" when none ran) */
    {.name = "cooldown_ms", PF_INT(cooldown_ms, PF_M_U32), .since = 2, .out = PF_JSON},
    {.name = "cooldown",
     .kind = PF_TEXT,
     .text = pfield_cooldown,
     .unit = "",
     .since = 2,
     .out = PF_JSON},
    /* the client's health (figs_client); health_known false: an agent of 0.1.0, unknown */
    {.name = "health_known",
     PF_AT(client.known, PF_M_BOOL),
     .kind = PF_BOOL,
     .unit = "",
     .since = 2,
     .out = PF_CURVE | PF_JSON},
    {.name = "issue_late_us",
     PF_US(client.issue_late_ns, PF_M_DOUBLE),
     .since = 2,
     .out = PF_CURVE | PF_JSON},
    {.name = "slot_wait_us",
     PF_US(client.slot_wait_ns, PF_M_DOUBLE),
     .since = 2,
     .out = PF_CURVE | PF_JSON},
    {.name = "reap_delay_us",
     PF_US(client.reap_delay_ns, PF_M_DOUBLE),
     .since = 2,
     .out = PF_CURVE | PF_JSON},
    {.name = "nivcsw_s", PF_FIXED(client.nivcsw_s, 1, "/s"), .since = 2, .out = PF_CURVE | PF_JSON},
    {.name = "steal_pct",
     PF_FIXED(client.steal_pct, 1, "%"),
     .since = 2,
     .out = PF_CURVE | PF_JSON},
    {.name = "late_over_us",
     PF_US(client.late_over_ns, PF_M_DOUBLE),
     .since = 2,
     .out = PF_CURVE | PF_JSON},
    {.name = "late_pct", PF_FIXED(client.late_pct, 3, "%"), .since = 2, .out = PF_CURVE | PF_JSON},
    /* earlier attempts re-run for a disturbed client (retry: N) */
    {.name = "retries", PF_INT(client.retries, PF_M_U32), .since = 2, .out = PF_CURVE | PF_JSON},
    /* measured intervals in which the client stalled an op past the SLO's decade */
    {.name = "client_stalls",
     PF_INT(client.stalls, PF_M_U32),
     .since = 2,
     .out = PF_CURVE | PF_JSON},
    /* the SLO metric's 95% interval (agg_metric_ci); 0 when unknown */
    {.name = "metric_lo_us",
     PF_US(metric_lo_ns, PF_M_DOUBLE),
     .since = 2,
     .out = PF_CURVE | PF_JSON},
    {.name = "metric_hi_us",
     PF_US(metric_hi_ns, PF_M_DOUBLE),
     .since = 2,
     .out = PF_CURVE | PF_JSON},
    /*
     * Read and write apart, a mixed workload's only (pfield_list_kinds): ops/s from
     * reads; the rest null ("not measured") unless every agent measured them. In
     * curve.csv only when the campaign has a mixed workload (empty cells elsewhere).
     */
    {.name = "read_ops",
     PF_FIXED(kinds.read_ops_s, 1, "ops/s"),
     .since = 3,
     .out = PF_CURVE | PF_CSV | PF_JSON | PF_STEPS,
     .apart = PF_APART_MIXED,
     PF_COLUMN("Read ops/s", PF_H_RATE, 12)},
    {.name = "write_ops",
     PF_FIXED(kinds.write_ops_s, 1, "ops/s"),
     .since = 3,
     .out = PF_CURVE | PF_CSV | PF_JSON | PF_STEPS,
     .apart = PF_APART_MIXED,
     PF_COLUMN("Write ops/s", PF_H_RATE, 13)},
    {.name = "read_mibps",
     PF_FIXED(kinds.read_mib_s, 3, "MiB/s"),
     .since = 3,
     .out = PF_CURVE | PF_CSV | PF_JSON,
     .apart = PF_APART_MEASURED},
    {.name = "write_mibps",
     PF_FIXED(kinds.write_mib_s, 3, "MiB/s"),
     .since = 3,
     .out = PF_CURVE | PF_CSV | PF_JSON,
     .apart = PF_APART_MEASURED},
    {.name = "read_mean_us",
     PF_US(kinds.read_mean_ns, PF_M_DOUBLE),
     .since = 3,
     .out = PF_CURVE | PF_CSV | PF_JSON | PF_STEPS,
     .apart = PF_APART_MEASURED,
     PF_COLUMN("Read mean", PF_H_DURATION, 14)},
    {.name = "write_mean_us",
     PF_US(kinds.write_mean_ns, PF_M_DOUBLE),
     .since = 3,
     .out = PF_CURVE | PF_CSV | PF_JSON | PF_STEPS,
     .apart = PF_APART_MEASURED,
     PF_COLUMN("Write mean", PF_H_DURATION, 15)},
    {.name = "read_p50_us",
     PF_US(kinds.read_p50_ns, PF_M_U64),
     .since = 3,
     .out = PF_CURVE | PF_CSV | PF_JSON,
     .apart = PF_APART_MEASURED},
    {.name = "write_p50_us",
     PF_US(kinds.write_p50_ns, PF_M_U64),
     .since = 3,
     .out = PF_CURVE | PF_CSV | PF_JSON,
     .apart = PF_APART_MEASURED},
    {.name = "read_p99_us",
     PF_US(kinds.read_p99_ns, PF_M_U64),
     .since = 3,
     .out = PF_CURVE | PF_CSV | PF_JSON | PF_STEPS,
     .apart = PF_APART_MEASURED,
     PF_COLUMN("Read p99", PF_H_DURATION, 16)},
    {.name = "write_p99_us",
     PF_US(kinds.write_p99_ns, PF_M_U64),
     .since = 3,
     .out = PF_CURVE | PF_CSV | PF_JSON | PF_STEPS,
     .apart = PF_APART_MEASURED,
     PF_COLUMN("Write p99", PF_H_DURATION, 17)},
    {.name = "read_max_us",
     PF_US(kinds.read_max_ns, PF_M_U64),
     .since = 3,
     .out = PF_CURVE | PF_CSV | PF_JSON,
     .apart = PF_APART_MEASURED},
    {.name = "write_max_us",
     PF_US(kinds.write_max_ns, PF_M_U64),
     .since = 3,
     .out = PF_CURVE | PF_CSV | PF_JSON,
     .apart = PF_APART_MEASURED},
    /* the storage's latency (submission to completion) by percentile, and its max */
    {.name = "service_p50_us", PF_US(svc_p50_ns, PF_M_U64), .since = 3, .out = PF_CURVE | PF_JSON},
    {.name = "service_p99_us",
     PF_US(svc_p99_ns, PF_M_U64),
     .since = 3,
     .out = PF_CURVE | PF_JSON,
     .human = PF_H_DURATION},
    {.name = "service_max_us", PF_US(svc_max_ns, PF_M_U64), .since = 3, .out = PF_CURVE | PF_JSON},
    /* the client's delay per operation (issue lateness + reap delay) and its part in the metric */
    {.name = "client_delay_us",
     .kind = PF_REAL,
     .get = pfield_client_delay,
     .decimals = 1,
     .div = 1e3,
     .unit = "us",
     .since = 3,
     .out = PF_CURVE | PF_JSON | PF_STEPS,
     PF_COLUMN("Client delay", PF_H_DURATION, 6)},
    {.name = "client_slo_us",
     PF_US(client.slo_ns, PF_M_DOUBLE),
     .since = 3,
     .out = PF_CURVE | PF_JSON},
    /* the one verdict on the SLO, from the step's own 95% interval */
    {.name = "slo_verdict",
     .kind = PF_TEXT,
     .judged = true,
     .text = pfield_slo_verdict,
     .unit = "",
     .since = 3,
     .out = PF_JSON},
    /*
     * Sync writes, a syncing workload's only (fsync, fdatasync: pfield_show_of): their
     * count in the window, their own rate (not in ops/s) and latency (submission to
     * completion), shown beside the data's and never judged.
     */
    {.name = "syncs",
     PF_INT(sync.count, PF_M_U64),
     .since = 5,
     .out = PF_CURVE | PF_CSV | PF_JSON,
     .apart = PF_APART_SYNC},
    {.name = "sync_ops",
     PF_FIXED(sync.ops_s, 1, "ops/s"),
     .since = 5,
     .out = PF_CURVE | PF_CSV | PF_JSON | PF_STEPS,
     .apart = PF_APART_SYNC,
     PF_COLUMN("Syncs/s", PF_H_RATE, 18)},
    {.name = "sync_mean_us",
     PF_US(sync.mean_ns, PF_M_DOUBLE),
     .since = 5,
     .out = PF_CURVE | PF_CSV | PF_JSON | PF_STEPS,
     .apart = PF_APART_SYNC,
     PF_COLUMN("Sync mean", PF_H_DURATION, 19)},
    {.name = "sync_p50_us",
     PF_US(sync.p50_ns, PF_M_U64),
     .since = 5,
     .out = PF_CURVE | PF_CSV | PF_JSON,
     .apart = PF_APART_SYNC},
    {.name = "sync_p99_us",
     PF_US(sync.p99_ns, PF_M_U64),
     .since = 5,
     .out = PF_CURVE | PF_CSV | PF_JSON | PF_STEPS,
     .apart = PF_APART_SYNC,
     PF_COLUMN("Sync p99", PF_H_DURATION, 20)},
    {.name = "sync_max_us",
     PF_US(sync.max_ns, PF_M_U64),
     .since = 5,
     .out = PF_CURVE | PF_CSV | PF_JSON,
     .apart = PF_APART_SYNC},
    /* the kernel's view of the device (format 5): its name, its time per op beside ours */
    {.name = "device",
     .kind = PF_TEXT,
     .text = pfield_device,
     .unit = "",
     .since = 5,
     .out = PF_CURVE | PF_CSV | PF_STEPS,
     .apart = PF_APART_KERNEL,
     PF_COLUMN("Device", PF_H_TEXT, 21)},
    {.name = "device_service_us",
     .kind = PF_REAL,
     .get = pfield_dev_service,
     .decimals = 1,
     .div = 1e3,
     .unit = "us",
     .since = 5,
     .out = PF_CURVE | PF_CSV | PF_STEPS,
     .apart = PF_APART_KERNEL,
     PF_COLUMN("Device time", PF_H_DURATION, 22)},
    {.name = "device_gap_us",
     .kind = PF_REAL,
     .get = pfield_dev_gap,
     .decimals = 1,
     .div = 1e3,
     .unit = "us",
     .since = 5,
     .out = PF_CURVE | PF_CSV | PF_STEPS,
     .apart = PF_APART_KERNEL,
     PF_COLUMN("Gap us", PF_H_DECIMAL, 23)},
    {.name = "device_util_pct",
     .kind = PF_REAL,
     .get = pfield_dev_util,
     .decimals = 1,
     .unit = "%",
     .since = 5,
     .out = PF_CURVE | PF_CSV | PF_STEPS,
     .apart = PF_APART_KERNEL,
     PF_COLUMN("Device busy", PF_H_PERCENT, 24)},
    {.name = "device_queue",
     .kind = PF_REAL,
     .get = pfield_dev_queue,
     .decimals = 2,
     .unit = "",
     .since = 5,
     .out = PF_CURVE | PF_CSV | PF_STEPS,
     .apart = PF_APART_KERNEL,
     PF_COLUMN("Device queue", PF_H_DECIMAL, 25)},
    {.name = "device_ops_ratio",
     .kind = PF_REAL,
     .get = pfield_dev_ratio,
     .decimals = 2,
     .unit = "",
     .since = 5,
     .out = PF_CURVE | PF_CSV,
     .apart = PF_APART_KERNEL},
    {.name = "device_shared",
     .kind = PF_BOOL,
     .get = pfield_dev_shared,
     .unit = "",
     .since = 5,
     .out = PF_CURVE | PF_CSV,
     .apart = PF_APART_KERNEL},
    {.name = "nfs_rtt_us",
     .kind = PF_REAL,
     .get = pfield_nfs_rtt,
     .decimals = 1,
     .div = 1e3,
     .unit = "us",
     .since = 5,
     .out = PF_CURVE | PF_CSV | PF_STEPS,
     .apart = PF_APART_KERNEL,
     PF_COLUMN("NFS RTT", PF_H_DURATION, 26)},
    {.name = "nfs_exec_us",
     .kind = PF_REAL,
     .get = pfield_nfs_exec,
     .decimals = 1,
     .div = 1e3,
     .unit = "us",
     .since = 5,
     .out = PF_CURVE | PF_CSV,
     .apart = PF_APART_KERNEL},
    /*
     * Load under load: the background's figures over the step's window, only when the
     * campaign has a background (pfield_list_kinds' PF_SHOW_BACKGROUND). In curve.csv
     * they stand before a replay's speed, the row after them: a campaign with both
     * gains them in the middle of its columns, every other keeps its columns as they
     * were. The point event has bg_ops (null without a background) and bg_kept_up.
     */
    {.name = "bg_asked_ops_s",
     PF_FIXED(bg.asked_ops, 1, "ops/s"),
     .since = 4,
     .out = PF_BG_FILES,
     .apart = PF_APART_BACKGROUND},
    {.name = "bg_ops_s",
     .event = "bg_ops",
     PF_FIXED(bg.ops, 1, "ops/s"),
     .since = 4,
     .out = PF_BG_FILES | PF_EVENT | PF_STEPS,
     .apart = PF_APART_BACKGROUND,
     PF_COLUMN("Background ops/s", PF_H_RATE, 27)},
    {.name = "bg_mibps",
     PF_FIXED(bg.mib_s, 3, "MiB/s"),
     .since = 4,
     .out = PF_BG_FILES,
     .apart = PF_APART_BACKGROUND},
    {.name = "bg_mean_us",
     PF_US(bg.mean_ns, PF_M_DOUBLE),
     .since = 4,
     .out = PF_BG_FILES,
     .apart = PF_APART_BACKGROUND},
    {.name = "bg_p99_us",
     PF_US(bg.p99_ns, PF_M_U64),
     .since = 4,
     .out = PF_BG_FILES | PF_STEPS,
     .apart = PF_APART_BACKGROUND,
     PF_COLUMN("Background p99", PF_H_DURATION, 28)},
    {.name = "bg_missed",
     PF_AT(bg.missed, PF_M_U64),
     .kind = PF_UINT,
     .unit = "",
     .since = 4,
     .out = PF_BG_FILES,
     .apart = PF_APART_BACKGROUND},
    {.name = "bg_kept_up",
     .kind = PF_BOOL,
     .get = pfield_bg_kept_up,
     .unit = "",
     .since = 4,
     .out = PF_BG_FILES | PF_EVENT,
     .apart = PF_APART_BACKGROUND},
    {.name = "bg_verdict",
     .kind = PF_TEXT,
     .text = pfield_bg_words,
     .unit = "",
     .since = 4,
     .out = PF_BG_FILES | PF_STEPS,
     .apart = PF_APART_BACKGROUND,
     PF_COLUMN("Background", PF_H_TEXT, 29)},
    /* verify: blocks read that failed their header (format 5; 0 without verify) */
    {.name = "mismatches", PF_INT(mismatches, PF_M_U64), .since = 5, .out = PF_JSON},
    /*
     * A replay's speed (x1 as recorded): in curve.csv when the campaign replays a trace
     * (empty cells for its other workloads), in a replay's curve-*.json and step tables.
     */
    {.name = "speed",
     .kind = PF_REAL,
     .get = pfield_speed,
     .decimals = 3,
     .unit = "x",
     .since = 5,
     .out = PF_CURVE | PF_CSV | PF_JSON | PF_STEPS,
     .apart = PF_APART_REPLAY,
     PF_COLUMN("Speed", PF_H_SPEED, 2)},
    /*
     * The latency the SLO judged, named (curve-*.csv and .json beside the response's
     * mean_us and p99_us): whose and which figure, its value and its 95% interval.
     */
    {.name = "slo_metric",
     .kind = PF_TEXT,
     .text = pfield_slo_metric,
     .unit = "",
     .since = 5,
     .out = PF_CSV | PF_JSON},
    {.name = "slo_metric_us",
     .kind = PF_REAL,
     .get = pfield_slo_metric_ns,
     .decimals = 1,
     .div = 1e3,
     .unit = "us",
     .since = 5,
     .out = PF_CSV | PF_JSON},
    {.name = "slo_metric_lo_us", PF_US(metric_lo_ns, PF_M_DOUBLE), .since = 5, .out = PF_CSV},
    {.name = "slo_metric_hi_us", PF_US(metric_hi_ns, PF_M_DOUBLE), .since = 5, .out = PF_CSV},

};

_Static_assert(sizeof(pfield_rows) / sizeof(pfield_rows[0]) <= PFIELD_MAX, "PFIELD_MAX rows");

const struct pfield *pfield_table(size_t *n)
{
	*n = sizeof(pfield_rows) / sizeof(pfield_rows[0]);
	return pfield_rows;
}

const struct pfield *pfield_find(const char *name)
{
	for (size_t i = 0; i < sizeof(pfield_rows) / sizeof(pfield_rows[0]); i++)
		if (strcmp(pfield_rows[i].name, name) == 0)
			return &pfield_rows[i];
	return NULL;
}

const char *pfield_key(const struct pfield *f)
{
	return f->key != NULL ? f->key : f->name;
}

const char *pfield_event_key(const struct pfield *f)
{
	return f->event != NULL ? f->event : f->name;
}

size_t pfield_list(unsigned out, const struct pfield **list)
{
	return pfield_list_kinds(out, false, list);
}

unsigned pfield_show_kernel(const struct step_point *pts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pts[i].kernel.known || pts[i].kernel.nfs_known)
			return PF_SHOW_KERNEL;
	return 0;
}

/* Whether row f is listed for output out given what show (PF_SHOW_*) asks. */
static bool pfield_shown(const struct pfield *f, unsigned out, unsigned show)
{
	switch (f->apart) {
	case PF_APART_NONE:
		return true;
	case PF_APART_KERNEL:
		return !(out & (PF_STEPS_MD | PF_STEPS_HTML)) || (show & PF_SHOW_KERNEL);
	case PF_APART_BACKGROUND:
		return (show & PF_SHOW_BACKGROUND) != 0;
	case PF_APART_SYNC:
		return (show & PF_SHOW_SYNC) != 0;
	case PF_APART_REPLAY:
		return (show & PF_SHOW_REPLAY) != 0;
	default:
		return (show & PF_SHOW_KINDS) != 0;
	}
}

unsigned pfield_show_of(const struct workload *w)
{
	return (agg_mixed(w) ? PF_SHOW_KINDS : 0) |
	       (w->io.fsync != 0 || w->io.fdatasync != 0 ? PF_SHOW_SYNC : 0) |
	       (w->replay != NULL ? PF_SHOW_REPLAY : 0) |
	       (w->io.mix.nparts > 0 ? PF_SHOW_PARTS : 0);
}

unsigned pfield_show_campaign(const struct campaign *c)
{
	return background_of(c) >= 0 ? PF_SHOW_BACKGROUND : 0;
}

unsigned pfield_show_point(const struct step_point *p)
{
	return (p->mixed ? PF_SHOW_KINDS : 0) | (p->sync.on ? PF_SHOW_SYNC : 0) |
	       (p->bg.on ? PF_SHOW_BACKGROUND : 0) | (p->replay_x1 > 0 ? PF_SHOW_REPLAY : 0) |
	       (p->nparts > 0 ? PF_SHOW_PARTS : 0);
}

size_t pfield_list_kinds(unsigned out, unsigned show, const struct pfield **list)
{
	size_t n = 0, rows = sizeof(pfield_rows) / sizeof(pfield_rows[0]);

	if (out & (PF_STEPS_MD | PF_STEPS_HTML)) {
		/* by column (a table has few); rows of one column number print in row order */
		for (unsigned col = 1; col <= UINT8_MAX && n < rows; col++)
			for (size_t i = 0; i < rows; i++)
				if ((pfield_rows[i].out & out) && pfield_rows[i].col == col &&
				    pfield_shown(&pfield_rows[i], out, show))
					list[n++] = &pfield_rows[i];
		return n;
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < rows; i++) {
			const struct pfield *f = &pfield_rows[i];

			/* curve-*.json: its first rows, then the rest; every other output: one pass
			 */
			if ((f->out & out) && pfield_shown(f, out, show) &&
			    (out == PF_JSON ? f->json_first == (pass == 0) : pass == 0))
				list[n++] = f;
		}
	return n;
}
