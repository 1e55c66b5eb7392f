/* SPDX-License-Identifier: MIT */
/* The one clock iocurve measures with: CLOCK_MONOTONIC in nanoseconds. */
#ifndef IOCURVE_CLOCK_H
#define IOCURVE_CLOCK_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC  1000000000ull
#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_USEC 1000ull

static inline uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static inline struct timespec clock_ns_to_timespec(uint64_t ns)
{
	struct timespec ts = {(time_t)(ns / NSEC_PER_SEC), (long)(ns % NSEC_PER_SEC)};

	return ts;
}

#endif
