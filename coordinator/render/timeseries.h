/* SPDX-License-Identifier: MIT */
/* Per-interval time series as CSV: timeseries.csv (the fleet) and timeseries-agents.csv. */
#ifndef IOCURVE_TIMESERIES_H
#define IOCURVE_TIMESERIES_H

#include "campaign.h"
#include "error.h"

/*
 * Write DIR/timeseries.csv (one row per fleet interval) and DIR/timeseries-agents.csv
 * (one row per agent and interval) from DIR/intervals.jsonl, each replaced whole
 * (safefile_write). Rows in run order: workload, step, interval (agents in the order
 * their lines came); the lines of a retried step's void attempts are left out, as
 * `report` leaves them out; a step cut short keeps the intervals it has. time_s is
 * the interval's start on the time plot's axis (seconds since the workload's first
 * interval, its steps end to end). An agent's histogram written without its bins
 * (agents.detail: counts) has no percentiles: those cells are empty. The header rows
 * are TIMESERIES_FLEET_HEADER and TIMESERIES_AGENT_HEADER (docs/campaign.md).
 * Written at a campaign's end and by `iocurve report`. -1 with err naming the file.
 */
#define TIMESERIES_FLEET_HEADER                                                                    \
	"workload,step,offered_ops,interval,time_s,warmup,agents,workers,duration_s,ops,ops_s,"    \
	"mib_s,mean_us,p50_us,p99_us,max_us,errors,client_cpu_pct,host_cpu_pct,lag_mean_us"
#define TIMESERIES_AGENT_HEADER                                                                    \
	"workload,step,offered_ops,interval,time_s,agent,warmup,workers,duration_s,ops,ops_s,"     \
	"mib_s,mean_us,p50_us,p99_us,max_us,errors,client_cpu_pct,host_cpu_pct,lag_mean_us"
int timeseries_write(const char *dir, const struct campaign *c, struct error *err);

#endif
