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

/* Read and write apart, a mixed workload's (figs_kinds): known when every agent
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
 * Sync writes (figs_sync): on, the workload issues fsync or fdatasync, so its
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
 * The kernel's view of the targets' devices over the window (figs_kernel): known
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

/* The client's health over the window (figs_client): what it added to what it measured. */
struct step_client {
	bool known;         /* the agents measured it (0.1.0 ones do not) */
	bool bound;         /* its delay can have moved the verdict (figs_client_moved) */
	double lag_mean_ns; /* intended start to submission: the client's lateness */
	uint64_t lag_max_ns;
	double lag_share;     /* lag over lag plus service time, 0..1: its part of the latency */
	double issue_late_ns; /* mean per op: due (or a slot freed) to submission */
	double slot_wait_ns;  /* mean per op: due to a slot freed, the queue depth's */
	double reap_delay_ns; /* mean per op: completion to the worker seeing it */
	double nivcsw_s;      /* involuntary context switches per second per worker */
	double steal_pct;     /* the agent hosts' CPU steal, worst interval, % */
	double late_over_ns;  /* the client delay the tail rule counts (AGG_CLIENT_LATE)... */
	double late_pct;      /* ...and the share of ops the client delayed more, % */
	uint32_t retries;     /* earlier attempts of the step, re-run for a disturbed client */
	uint32_t stalls;      /* measured intervals in which it delayed an op past the largest
	                         decade within the SLO (reported, not judged) */
	double slo_ns;        /* its part of the judged metric (figs_client_part) */
	double host_busy_pct; /* busiest agent host, mean over the window's intervals, % */
	double cpu_pct;       /* workers' CPU time over measured time, in % of one core */
	double host_cpu_pct;  /* busiest agent host in any measured interval, % of its CPUs */
	double qd_full_pct;   /* share of the time the workers' queues were full */
	/*
	 * Of two agents or more that measured their health, the one whose client delayed
	 * its operations most (mean over its window's operations) and that mean: the
	 * disturbed client named ("" with one agent, or no health).
	 */
	char worst_agent[64];
	double worst_ns;
};

#endif
