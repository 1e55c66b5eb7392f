/* SPDX-License-Identifier: MIT */
/* The kernel's view of a step's devices: block layer or NFS. */
#include <string.h>

#include "figs.h"
#include "hist.h"

/*
 * The kernel's view over the window's measured intervals: per device read, so that the
 * same disk read by several agents of one host counts once (their sums over kernel_n
 * give each device's mean); intervals without a device read are left out of it.
 */
void figs_kernel(const struct figs_in *in, struct step_point *pt)
{
	uint64_t ios = 0, io_ms = 0, busy_ms = 0, queue_ms = 0, own = 0, nfs = 0, rtt = 0, ex = 0;
	double span_ns = 0, per_dev_ios = 0;

	for (uint32_t i = in->win_from; i < in->win_to; i++) {
		const struct agg_record *m = in->merged[i];
		const struct record *r;

		if (!agg_counted(in->merged[i]))
			continue;
		r = &m->rec;
		record_merge_dev(pt->kernel.dev, r->kernel_dev);
		nfs += r->nfs_ops;
		rtt += r->nfs_rtt_ms;
		ex += r->nfs_exec_ms;
		if (r->kernel_n == 0)
			continue;
		ios += r->kernel_reads + r->kernel_writes;
		io_ms += r->kernel_io_ms;
		busy_ms += r->kernel_busy_ms;
		queue_ms += r->kernel_queue_ms;
		span_ns += (double)r->kernel_n * (double)m->duration_ns;
		per_dev_ios += (double)(r->kernel_reads + r->kernel_writes) / (double)r->kernel_n;
		own += r->ops;
	}
	pt->kernel.known = span_ns > 0;
	if (pt->kernel.known) {
		pt->kernel.dev_service_ns = ios ? (double)io_ms * 1e6 / (double)ios : 0;
		pt->kernel.dev_util_pct = 100.0 * (double)busy_ms * 1e6 / span_ns;
		pt->kernel.dev_util_pct =
		    pt->kernel.dev_util_pct > 100 ? 100 : pt->kernel.dev_util_pct;
		pt->kernel.dev_queue = (double)queue_ms * 1e6 / span_ns;
		pt->kernel.dev_ops_ratio = own ? per_dev_ios / (double)own : 0;
	}
	pt->kernel.nfs_known = nfs > 0;
	if (pt->kernel.nfs_known) {
		pt->kernel.nfs_rtt_ns = (double)rtt * 1e6 / (double)nfs;
		pt->kernel.nfs_exec_ns = (double)ex * 1e6 / (double)nfs;
	}
}
