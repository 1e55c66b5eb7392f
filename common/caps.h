/* SPDX-License-Identifier: MIT */
/* Protocol versions and capabilities: what two peers of different releases agree to use. */
#ifndef IOCURVE_CAPS_H
#define IOCURVE_CAPS_H

#include <stddef.h>
#include <stdint.h>

#include "iocurve.pb-c.h"

/*
 * The protocol versions this build speaks: from CAPS_PROTOCOL_MIN to
 * PROTOCOL_VERSION_CURRENT. Hello and Welcome carry PROTOCOL_VERSION_CURRENT
 * (iocurve 0.1.0 accepts nothing else); a coordinator accepts an agent of any
 * version in the range. Raise CAPS_PROTOCOL_MIN only when the oldest version's
 * peers can no longer be served.
 */
#define CAPS_PROTOCOL_MIN 2

/* Every capability (proto Capability) this build has, and sends in Hello or Welcome. */
#define CAPS_OURS                                                                                  \
	((uint64_t)IOCURVE__CAPABILITY__CAPABILITY_WAKES |                                         \
	 IOCURVE__CAPABILITY__CAPABILITY_HEALTH | IOCURVE__CAPABILITY__CAPABILITY_KINDS |          \
	 IOCURVE__CAPABILITY__CAPABILITY_FIXED_WORK | IOCURVE__CAPABILITY__CAPABILITY_RATE_LIMIT | \
	 IOCURVE__CAPABILITY__CAPABILITY_CLONE | IOCURVE__CAPABILITY__CAPABILITY_REPLAY |          \
	 IOCURVE__CAPABILITY__CAPABILITY_SYNC | IOCURVE__CAPABILITY__CAPABILITY_KERNEL |           \
	 IOCURVE__CAPABILITY__CAPABILITY_BACKGROUND | IOCURVE__CAPABILITY__CAPABILITY_VERIFY |     \
	 IOCURVE__CAPABILITY__CAPABILITY_MIX | IOCURVE__CAPABILITY__CAPABILITY_VERIFY_XXH | \
	 IOCURVE__CAPABILITY__CAPABILITY_FILES | IOCURVE__CAPABILITY__CAPABILITY_NFS)

/* A capability: its bit, its name in logs, and what goes without it. */
struct caps_info {
	uint64_t bit;
	const char *name;
	const char *without;
};

/* The capabilities this build knows, in bit order. */
extern const struct caps_info caps_known[];
extern const size_t caps_nknown;

/*
 * Log one line for each capability in ours that theirs lacks: "PEER lacks
 * capability 'NAME': WITHOUT". peer names the other side with its version
 * ("agent a1 (0.1.0)"). Returns ours & theirs, what the session uses.
 */
uint64_t caps_agree(uint64_t ours, uint64_t theirs, const char *peer);

/*
 * An interval report as the capabilities a session agreed (caps_agree's) let it
 * pass: without CAPABILITY_KINDS, one with latency per kind goes without it and
 * without its reads' bytes; without CAPABILITY_SYNC, syncs and sync_latency go; without
 * CAPABILITY_KERNEL, the kernel's view (kernel_n..kernel_dev); without CAPABILITY_MIX,
 * a mix's parts. Both ends
 * cut by it: the agent what it sends, the coordinator what it takes in. Returns r
 * when nothing goes, else scratch filled as a copy of r without it (r keeps its
 * parts: the caller frees r as before).
 */
const Iocurve__IntervalReport *caps_report(const Iocurve__IntervalReport *r, uint64_t caps,
                                           Iocurve__IntervalReport *scratch);

#endif
