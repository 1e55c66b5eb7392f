/* SPDX-License-Identifier: MIT */
/* The agent host's CPU use from /proc/stat, between two samples. */
#include <inttypes.h>
#include <stdio.h>

#include "hostcpu.h"

double hostcpu_sample(struct hostcpu *h)
{
	uint64_t v[8] = {0}, busy, total = 0;
	double pct = 0;
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (f == NULL)
		return 0;
	/* cpu  user nice system idle iowait irq softirq steal */
	n = fscanf(f,
	           "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
	           " %" SCNu64 " %" SCNu64,
	           &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		return 0;
	for (int i = 0; i < 8; i++)
		total += v[i];
	/* Waiting for I/O is idle time: the CPU could have run something else. */
	busy = total - v[3] - v[4];
	h->steal_pct = 0;
	/*
	 * iowait may go backwards (/proc/stat), shrinking the total, so busy time over it
	 * may pass 100%: a share of 0..100 either way (the coordinator refuses one outside).
	 */
	if (h->total != 0 && total > h->total) {
		pct = busy > h->busy ? 100.0 * (double)(busy - h->busy) / (double)(total - h->total)
		                     : 0;
		pct = pct > 100 ? 100 : pct;
		if (v[7] >= h->steal)
			h->steal_pct =
			    100.0 * (double)(v[7] - h->steal) / (double)(total - h->total);
	}
	h->steal = v[7];
	h->busy = busy;
	h->total = total;
	return pct;
}
