/* SPDX-License-Identifier: MIT */
/* The client's health at a step: its delays, its host, and whether they moved the verdict. */
#include <math.h>

#include "figs.h"
#include "hist.h"
#include "step.h"

/*
 * Operations the client delayed in interval m (issue lateness plus reap delay) by
 * more than a stall: the largest of 10us, 100us, 1ms, 10ms within the SLO's
 * latency (0 below 10us). Its *over_ns: that decade.
 */
static uint64_t figs_stalled_ops(const struct agg_record *m, uint64_t slo_ns, double *over_ns)
{
	const uint64_t decade[4] = {10000, 100000, 1000000, 10000000};
	const uint64_t late[4] = {m->rec.late_10us, m->rec.late_100us, m->rec.late_1ms,
	                          m->rec.late_10ms};

	for (int k = 3; k >= 0; k--)
		if (decade[k] <= slo_ns) {
			*over_ns = (double)decade[k];
			return late[k];
		}
	*over_ns = 0;
	return 0;
}

/* The client's health over the window: its delays, switches, steal and tail. */
static void figs_health(const struct agg_record *all, size_t nm, uint64_t measured_ns,
                        const struct campaign *c, struct step_point *pt)
{
	double ops = (double)all->rec.ops, workers = nm ? (double)all->workers / (double)nm : 0;
	const double late_ns[4] = {1e4, 1e5, 1e6, 1e7};
	const uint64_t late[4] = {all->rec.late_10us, all->rec.late_100us, all->rec.late_1ms,
	                          all->rec.late_10ms};

	pt->client.known = all->rec.health_n > 0;
	if (!pt->client.known || ops == 0)
		return;
	pt->client.issue_late_ns = (double)all->rec.issue_late_ns / ops;
	pt->client.slot_wait_ns = (double)all->rec.slot_wait_ns / ops;
	pt->client.reap_delay_ns = (double)all->rec.reap_delay_ns / ops;
	if (measured_ns > 0 && workers > 0)
		pt->client.nivcsw_s =
		    (double)all->rec.nivcsw / workers / ((double)measured_ns / 1e9);
	pt->client.steal_pct = (double)all->rec.steal_ppm / 1e4;
	/* the tail: ops the client delayed over the largest decade within THRESH_CLIENT_TAIL */
	for (int k = 3; k >= 0; k--)
		if (late_ns[k] <= THRESH_CLIENT_TAIL * (double)c->slo_latency_ns) {
			pt->client.late_over_ns = late_ns[k];
			pt->client.late_pct = 100.0 * (double)late[k] / ops;
			break;
		}
}

/*
 * The client's part of the judged metric: in the storage's latency, the reap delay (a
 * completion seen late; none on a simulated device, agg_point_workload); in the
 * response latency (from: due), issue lateness plus reap delay. For a percentile from
 * the due time, the client's own delay at that percentile, bounded from above by the
 * decade counters (the decade over which fewer than the tail's operations lie), plus
 * the reap delay. What a late client issues together also queues in the storage; on a
 * host with CPU to spare that is small beside these (the deterministic and M/M/4 sims
 * keep their knees), and on a busy host it has no bound (figs_client_moved).
 */
static double figs_client_part(const struct agg_record *all, const struct campaign *c,
                               const struct step_point *pt)
{
	static const double q[] = {0, 0.50, 0.90, 0.99, 0.999};
	const double decade[4] = {1e4, 1e5, 1e6, 1e7};
	const uint64_t late[4] = {all->rec.late_10us, all->rec.late_100us, all->rec.late_1ms,
	                          all->rec.late_10ms};
	double tail = (1 - q[c->slo_metric]) * (double)all->rec.ops;

	if (!c->slo_from_due)
		return pt->client.reap_delay_ns;
	if (c->slo_metric == SLO_MEAN)
		return pt->client.issue_late_ns + pt->client.reap_delay_ns;
	for (int k = 0; k < 4; k++)
		if ((double)late[k] <= tail)
			return decade[k] + pt->client.reap_delay_ns;
	return fmax(1e8, (double)all->rec.lag_max_ns + pt->client.reap_delay_ns);
}

/* The busiest agent host of each measured interval, averaged over the window: its CPU, %. */
static double figs_host_busy(const struct figs_in *in)
{
	double sum = 0;
	uint32_t n = 0;

	for (uint32_t i = in->win_from; i < in->win_to; i++)
		if (agg_counted(in->merged[i])) {
			sum += in->merged[i]->host_cpu_pct;
			n++;
		}
	return n ? sum / n : 0;
}

/*
 * Whether the client can have moved the verdict: taking its part away from the metric's
 * 95% interval would turn a violation into an undecided or met step, or an undecided
 * step into a met one; or its host had no CPU to spare (THRESH_HOST_BUSY_PCT), when its
 * part has no bound. A met step stays met: the client only adds latency.
 */
bool figs_client_moved(const struct campaign *c, const struct step_point *pt)
{
	double slo = (double)c->slo_latency_ns, m = step_metric(pt, c->slo_metric);
	double lo = pt->metric_hi_ns > 0 ? fmin(m, pt->metric_lo_ns) : m;
	double hi = pt->metric_hi_ns > 0 ? fmax(m, pt->metric_hi_ns) : m;
	double d = pt->client.slo_ns;

	if (!pt->client.known || hi <= slo)
		return false;
	if (pt->client.host_busy_pct >= THRESH_HOST_BUSY_PCT)
		return true;
	if (!(d > 0))
		return false;
	return lo > slo ? lo - d <= slo : hi - d <= slo;
}

/* The client's health: what it added to the latency it measured, and whether that can
 * have moved the step's verdict. After the metric's interval (agg_metric_ci). */
void figs_client(const struct figs_in *in, struct step_point *pt)
{
	const struct agg_record *all = in->all;
	const struct campaign *c = in->c;
	uint32_t nm = in->nmeasured;
	double stall_ns;

	pt->client.lag_mean_ns =
	    all->rec.ops ? (double)all->rec.lag_sum_ns / (double)all->rec.ops : 0;
	pt->client.lag_max_ns = all->rec.lag_max_ns;
	/* A completed op's latency is its lag plus its service time: the share is in [0, 1]. */
	pt->client.lag_share =
	    pt->client.lag_mean_ns + pt->svc_mean_ns > 0
	        ? pt->client.lag_mean_ns / (pt->client.lag_mean_ns + pt->svc_mean_ns)
	        : 0;
	figs_health(all, nm, in->measured_ns, c, pt);
	for (uint32_t i = in->win_from; pt->client.known && i < in->win_to; i++)
		if (agg_counted(in->merged[i]))
			pt->client.stalls +=
			    figs_stalled_ops(in->merged[i], c->slo_latency_ns, &stall_ns) > 0;
	pt->client.host_busy_pct = figs_host_busy(in);
	if (pt->client.known && pt->ops > 0) {
		pt->client.slo_ns = figs_client_part(all, c, pt);
		pt->client.bound = figs_client_moved(c, pt);
	}
	pt->client.host_cpu_pct = all->host_cpu_pct;
	if (in->measured_ns > 0 && all->workers > 0)
		/* workers were summed per interval: divide by the intervals to get a head count */
		pt->client.qd_full_pct =
		    100.0 * (double)all->rec.qd_full_ns /
		    ((double)in->measured_ns * (double)all->workers / (double)nm);
}

/*
 * A simulated device stamps each completion itself: its storage latency holds no reap
 * delay, so the client has no part in it (but on a busy host, its bursts).
 */
void figs_client_workload(struct step_point *pt, const struct campaign *c, const struct workload *w)
{
	if (campaign_target_of(c, w)->sim.enabled && !c->slo_from_due && pt->client.known &&
	    pt->ops > 0) {
		pt->client.slo_ns = 0;
		pt->client.bound = figs_client_moved(c, pt);
	}
}
