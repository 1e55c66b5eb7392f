/* SPDX-License-Identifier: MIT */
/* Read and write apart: a step's figures per operation kind. */
#include <string.h>

#include "figs.h"
#include "hist.h"

/*
 * Read and write apart from the window's merged record: ops/s from reads and ops
 * (always counted); MiB/s and latencies from read_bytes and the kinds'
 * histograms, when every agent measured them (record_kinds_known).
 */
void figs_kinds(const struct figs_in *in, struct step_point *pt)
{
	const struct record *all = &in->all->rec;
	uint64_t measured_ns = in->measured_ns;
	const struct hist *r = &all->read_latency, *w = &all->write_latency;
	double s = (double)measured_ns / 1e9;

	if (measured_ns == 0)
		return;
	pt->kinds.read_ops_s = (double)all->reads / s;
	pt->kinds.write_ops_s = (double)(all->ops - all->reads) / s;
	pt->kinds.known = all->ops > 0 && record_kinds_known(all);
	if (!pt->kinds.known)
		return;
	pt->kinds.read_mib_s = (double)all->read_bytes / s / (1024.0 * 1024.0);
	pt->kinds.write_mib_s = (double)(all->bytes - all->read_bytes) / s / (1024.0 * 1024.0);
	pt->kinds.read_mean_ns = hist_mean(r);
	pt->kinds.write_mean_ns = hist_mean(w);
	pt->kinds.read_p50_ns = hist_quantile(r, 50);
	pt->kinds.write_p50_ns = hist_quantile(w, 50);
	pt->kinds.read_p99_ns = hist_quantile(r, 99);
	pt->kinds.write_p99_ns = hist_quantile(w, 99);
	pt->kinds.read_max_ns = r->count ? r->max : 0;
	pt->kinds.write_max_ns = w->count ? w->max : 0;
	for (uint32_t k = 0; k < step_npct(pt) && k < CAMPAIGN_MAX_PERCENTILES; k++) {
		pt->kinds.read_pct_ns[k] = hist_quantile(r, step_pct(pt, k));
		pt->kinds.write_pct_ns[k] = hist_quantile(w, step_pct(pt, k));
	}
}
