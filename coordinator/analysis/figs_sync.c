/* SPDX-License-Identifier: MIT */
/* Sync writes: a step's fsync or fdatasync figures. */
#include <string.h>

#include "figs.h"
#include "hist.h"

/* Sync writes from the window's merged record: their count, rate and latency. */
void figs_sync(const struct figs_in *in, struct step_point *pt)
{
	const struct record *all = &in->all->rec;
	uint64_t measured_ns = in->measured_ns;
	const struct hist *h = &all->sync_latency;

	pt->sync.count = all->syncs;
	if (measured_ns == 0 || h->count == 0)
		return;
	pt->sync.ops_s = (double)all->syncs / ((double)measured_ns / 1e9);
	pt->sync.mean_ns = hist_mean(h);
	pt->sync.p50_ns = hist_quantile(h, 50);
	pt->sync.p99_ns = hist_quantile(h, 99);
	pt->sync.max_ns = h->max;
}
