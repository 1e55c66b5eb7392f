/* SPDX-License-Identifier: MIT */
/* A mix's parts: each part's figures at a step. */
#include <string.h>

#include "figs.h"
#include "hist.h"

/* A mix's parts from the window's merged record: each its ops/s, MiB/s, latencies, errors. */
void figs_parts(const struct figs_in *in, struct step_point *pt)
{
	const struct record *all = &in->all->rec;
	uint64_t measured_ns = in->measured_ns;
	double s = (double)measured_ns / 1e9;

	pt->slo_part = in->slo_part;
	if (measured_ns == 0)
		return;
	pt->nparts = all->nparts;
	for (uint32_t i = 0; i < all->nparts; i++) {
		const struct record_part *rp = &all->parts[i];
		struct point_part *pp = &pt->parts[i];

		pp->ops_s = (double)rp->ops / s;
		pp->read_ops_s = (double)rp->reads / s;
		pp->mib_s = (double)rp->bytes / s / (1024.0 * 1024.0);
		pp->mean_ns = hist_mean(&rp->latency);
		pp->p50_ns = hist_quantile(&rp->latency, 50);
		pp->p90_ns = hist_quantile(&rp->latency, 90);
		pp->p99_ns = hist_quantile(&rp->latency, 99);
		pp->p999_ns = hist_quantile(&rp->latency, 99.9);
		pp->max_ns = rp->latency.count ? rp->latency.max : 0;
		pp->svc_mean_ns = hist_mean(&rp->service);
		pp->svc_p99_ns = hist_quantile(&rp->service, 99);
		pp->errors = rp->errors;
	}
}
