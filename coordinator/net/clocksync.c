/* SPDX-License-Identifier: MIT */
/* Clock sync with an agent, NTP style: keep the sample with the smallest round trip. */
#include "clocksync.h"

bool clocksync_add(struct clocksync *cs, uint64_t t1, uint64_t t2, uint64_t t3, uint64_t t4)
{
	/* Differences of unsigned times, taken as signed: the clocks may be far apart. */
	int64_t there = (int64_t)(t2 - t1), back = (int64_t)(t3 - t4);
	int64_t rtt = (int64_t)(t4 - t1) - (int64_t)(t3 - t2);
	int64_t offset = there / 2 + back / 2 + (there % 2 + back % 2) / 2;

	if (rtt < 0)
		rtt = 0;
	cs->samples++;
	if (cs->samples > 1 && (uint64_t)rtt >= cs->rtt_ns)
		return false;
	cs->rtt_ns = (uint64_t)rtt;
	cs->offset_ns = offset;
	return true;
}
