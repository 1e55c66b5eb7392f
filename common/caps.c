/* SPDX-License-Identifier: MIT */
/* Capabilities: the table of those known, and the intersection two peers use. */
#include <stdbool.h>

#include "caps.h"
#include "log.h"

const struct caps_info caps_known[] = {
    {IOCURVE__CAPABILITY__CAPABILITY_WAKES, "wakes",
     "the workers' wake counts are left out of intervals.jsonl (\"wakes\": 0)"},
    {IOCURVE__CAPABILITY__CAPABILITY_HEALTH, "health",
     "the client's health is not measured (\"health_n\": 0): its steps are not checked for a "
     "disturbed client, and their health is unknown, not proven"},
    {IOCURVE__CAPABILITY__CAPABILITY_KINDS, "kinds",
     "reads and writes are not measured apart (read and write latency and MiB/s: not "
     "measured)"},
    {IOCURVE__CAPABILITY__CAPABILITY_FIXED_WORK, "fixed-work",
     "fixed-work campaigns (load: {work: ...}) are refused on it"},
    {IOCURVE__CAPABILITY__CAPABILITY_RATE_LIMIT, "rate_limit",
     "target.sim.rate_limit is not simulated: a campaign with it is refused rather than run "
     "uncapped"},
    {IOCURVE__CAPABILITY__CAPABILITY_CLONE, "clone",
     "a campaign with data: {clone: NAME} is refused (each file would get data of its own, "
     "not the clone's)"},
    {IOCURVE__CAPABILITY__CAPABILITY_REPLAY, "replay",
     "a campaign with a replay: workload is refused (it would run the workload's pattern, "
     "not the trace)"},
    {IOCURVE__CAPABILITY__CAPABILITY_SYNC, "sync",
     "a campaign with fsync, fdatasync or sync: dsync is refused (it would write without "
     "syncing), and its reports carry no syncs"},
    {IOCURVE__CAPABILITY__CAPABILITY_KERNEL, "kernel",
     "the kernel's view of the target's device is not read (device time, busy share and "
     "queue: not measured)"},
    {IOCURVE__CAPABILITY__CAPABILITY_BACKGROUND, "background",
     "a campaign with a background workload (background: true) is refused (the agent would "
     "stop its workers at the next workload's Prepare)"},
    {IOCURVE__CAPABILITY__CAPABILITY_VERIFY, "verify",
     "a campaign with verify is refused (its blocks would be neither stamped nor checked)"},
    {IOCURVE__CAPABILITY__CAPABILITY_MIX, "mix",
     "a campaign with a mix (mix:) or a size distribution (block_size: {4KiB: 60, ...}) is "
     "refused (it would run the plain rw and block_size)"},
    {IOCURVE__CAPABILITY__CAPABILITY_VERIFY_XXH, "verify-xxh64",
     "a campaign with verify: xxh64 is refused (it can neither stamp nor check an XXH64 "
     "header)"},
    {IOCURVE__CAPABILITY__CAPABILITY_FILES, "files",
     "a campaign with a file set (fileset:) or file operations (op:) is refused (it would run "
     "reads and writes on one file)"},
    {IOCURVE__CAPABILITY__CAPABILITY_NFS, "nfs",
     "a campaign with an NFS target (target: {nfs: ...}) is refused (it would take the URL for "
     "a local path)"},
};
const size_t caps_nknown = sizeof(caps_known) / sizeof(caps_known[0]);

uint64_t caps_agree(uint64_t ours, uint64_t theirs, const char *peer)
{
	for (size_t i = 0; i < caps_nknown; i++)
		if ((ours & caps_known[i].bit) && !(theirs & caps_known[i].bit))
			log_info("%s lacks capability '%s': %s", peer, caps_known[i].name,
			         caps_known[i].without);
	return ours & theirs;
}

const Iocurve__IntervalReport *caps_report(const Iocurve__IntervalReport *r, uint64_t caps,
                                           Iocurve__IntervalReport *scratch)
{
	/*
	 * Read bytes alone are not cut: without a read measured apart they are a bad
	 * report (record_check), whatever the session agreed.
	 */
	bool kinds = (caps & IOCURVE__CAPABILITY__CAPABILITY_KINDS) ||
	             (r->read_latency == NULL && r->write_latency == NULL);
	bool syncs = (caps & IOCURVE__CAPABILITY__CAPABILITY_SYNC) ||
	             (r->syncs == 0 && r->sync_latency == NULL);
	bool kernel = (caps & IOCURVE__CAPABILITY__CAPABILITY_KERNEL) ||
	              !(r->kernel_n || r->nfs_ops || (r->kernel_dev != NULL && *r->kernel_dev));
	bool parts = (caps & IOCURVE__CAPABILITY__CAPABILITY_MIX) || r->n_parts == 0;

	if (kinds && syncs && kernel && parts)
		return r;
	*scratch = *r;
	if (!kinds) {
		scratch->read_bytes = 0;
		scratch->read_latency = scratch->write_latency = NULL;
	}
	if (!syncs) {
		/* both go: a count without its latencies would be a bad report */
		scratch->syncs = 0;
		scratch->sync_latency = NULL;
	}
	if (!kernel) {
		/* the whole view or none: counters without their device are refused */
		scratch->kernel_n = scratch->kernel_reads = scratch->kernel_writes = 0;
		scratch->kernel_io_ms = scratch->kernel_busy_ms = scratch->kernel_queue_ms = 0;
		scratch->nfs_ops = scratch->nfs_rtt_ms = scratch->nfs_exec_ms = 0;
		scratch->kernel_dev = (char *)"";
	}
	if (!parts) {
		scratch->n_parts = 0;
		scratch->parts = NULL;
	}
	return scratch;
}
