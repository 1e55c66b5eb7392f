/* SPDX-License-Identifier: MIT */
/* The agent host's CPU use, so a result can say when the client, not the storage, was the limit. */
#ifndef IOCURVE_HOSTCPU_H
#define IOCURVE_HOSTCPU_H

#include <stdint.h>

struct hostcpu {
	uint64_t busy; /* jiffies, all CPUs, at the last sample */
	uint64_t total;
	uint64_t steal;   /* jiffies stolen by the hypervisor, all CPUs */
	double steal_pct; /* steal share of all CPUs between the last two samples, 0..100 */
};

/*
 * Busy share of all CPUs since the last sample, 0..100 (from /proc/stat); 0 the first time.
 * h->steal_pct is then the share the hypervisor stole over the same time.
 */
double hostcpu_sample(struct hostcpu *h);

#endif
