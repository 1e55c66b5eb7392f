/* SPDX-License-Identifier: MIT */
/* Clock sync with an agent, NTP style: offset and round trip from four timestamps. */
#ifndef IOCURVE_CLOCKSYNC_H
#define IOCURVE_CLOCKSYNC_H

#include <stdbool.h>
#include <stdint.h>

/*
 * t1: coordinator sends Ping; t2: agent receives it; t3: agent sends Pong;
 * t4: coordinator receives it. t1, t4 on the coordinator's clock, t2, t3 on the
 * agent's. The offset (agent minus coordinator) is exact when the two legs take
 * equal time; its error is at most half the round trip, so the sample with the
 * smallest round trip is the one to keep.
 */
struct clocksync {
	unsigned samples;
	uint64_t rtt_ns;   /* smallest round trip seen */
	int64_t offset_ns; /* agent clock minus coordinator clock, from that sample */
};

/* Add one sample; true when it became the best. */
bool clocksync_add(struct clocksync *cs, uint64_t t1, uint64_t t2, uint64_t t3, uint64_t t4);

#endif
