/* SPDX-License-Identifier: MIT */
/* The agent host's CPU use, so a result can say when the client, not the storage, was the limit. */
#ifndef IOCURVE_HOSTCPU_H
#define IOCURVE_HOSTCPU_H

#include <stdint.h>

struct hostcpu {
	uint64_t busy; /* jiffies, all CPUs, at the last sample */
	uint64_t total;
};

/* Busy share of all CPUs since the last sample, 0..100 (from /proc/stat); 0 the first time. */
double hostcpu_sample(struct hostcpu *h);

#endif
