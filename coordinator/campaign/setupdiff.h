/* SPDX-License-Identifier: MIT */
/* What differs between the setups of two campaigns: the words `iocurve compare` warns with. */
#ifndef IOCURVE_SETUPDIFF_H
#define IOCURVE_SETUPDIFF_H

#include <stddef.h>

#include "campaign.h"

/*
 * The settings that change what a figure means, compared between campaign a and
 * campaign b (agents, target and its sim parameters, direct, SLO, stop rules,
 * cooldown, percentiles, and per workload of the same name: rw, block size,
 * workers, queue depth, read share, access pattern, data, arrivals, timing, step
 * lengths, the trace a replay replays (its SHA-256, size, operations and x1 rate), load
 * plan (a replay's in speeds), refine, confirm, repeat, steady, retry; the observe: sources and
 * their series), written to buf as
 * "agents 2 vs 3; rr: queue_depth 32 vs 16".
 * Returns how many differ (0: buf is "").
 */
size_t setupdiff(const struct campaign *a, const struct campaign *b, char *buf, size_t len);

#endif
