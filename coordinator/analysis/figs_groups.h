/* SPDX-License-Identifier: MIT */
#ifndef IOCURVE_FIGS_GROUPS_H
#define IOCURVE_FIGS_GROUPS_H

/*
 * A step's figures by concern, each filled by one extractor from the step's merged
 * intervals: a feature that measures something new adds its group here, its extractor
 * in a file of its own (figs.h) and its rows in pointfields.c, not lines in agg_point.
 */
#include <stdbool.h>
#include <stdint.h>

#include "campaign.h"
#include "record.h"

/* Read and write apart, a mixed workload's (agg_point_kinds): known when every agent
 * measured them. */
struct step_kinds {
	bool known;
	double read_ops_s, write_ops_s;
	double read_mib_s, write_mib_s;
	double read_mean_ns, write_mean_ns;
	uint64_t read_p50_ns, write_p50_ns;
	uint64_t read_p99_ns, write_p99_ns;
	uint64_t read_max_ns, write_max_ns;
	/* each kind's latency at the step's table percentiles (step_pct) */
	uint64_t read_pct_ns[CAMPAIGN_MAX_PERCENTILES], write_pct_ns[CAMPAIGN_MAX_PERCENTILES];
};

/*
 * Sync writes (agg_point_syncs): on, the workload issues fsync or fdatasync, so its
 * outputs carry them. The syncs are the window's, not in ops: their own rate and their
 * latency (submission to completion) beside the data's, never judged.
 */
struct step_sync {
	bool on; /* the workload syncs */
	uint64_t count;
	double ops_s;
	double mean_ns;
	uint64_t p50_ns, p99_ns, max_ns;
};

/*
 * The kernel's view of the targets' devices over the window (agg_point_kernel): known
 * when a block device was read in a measured interval, nfs_known when an NFS mount's
 * RPCs were counted. Per device read, so agents on one host that read the same disk
 * count it once: dev_util_pct and dev_queue are means over the devices read,
 * dev_ops_ratio the operations a device completed over the workers'.
 */
struct step_kernel {
	bool known;
	bool nfs_known;
	char dev[RECORD_DEV_MAX];
	double dev_service_ns; /* the device's time per completed op (its reads and writes) */
	double dev_util_pct;   /* its busy time (io_ticks) over the window, % */
	double dev_queue;      /* ops in flight on it, mean (time_in_queue over the window) */
	double dev_ops_ratio;  /* ops it completed over the workers' ops: > THRESH_DEV_SHARED */
	double nfs_rtt_ns;     /* an NFS READ or WRITE's round trip, mean */
	double nfs_exec_ns;    /* and its execution time (queued to answered), mean */
};

/*
 * Load under load (bgfig.h): the background workload's figures over this step's
 * measured window, from its reports inside it (on: the campaign has one).
 */
struct step_bg {
	bool on;
	double asked_ops; /* 0: max */
	double ops, mib_s, mean_ns;
	uint64_t p99_ns;
	uint64_t missed;    /* due, not issued, at its intervals' ends (summed) */
	uint32_t intervals; /* its reports merged (agents x intervals) */
};

#endif
