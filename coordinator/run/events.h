/* SPDX-License-Identifier: MIT */
/* A campaign's live event stream: one flat JSON object per event, to every subscriber. */
#ifndef IOCURVE_EVENTS_H
#define IOCURVE_EVENTS_H

/*
 * The runner says what happens once, as JSON lines; the plain printer, the
 * --json printer, the dashboard, the daemon's watchers and /metrics all read
 * the same lines, in-process or over the control socket. Objects are flat
 * (no nesting), keys and kinds below; numbers are plain JSON numbers.
 *
 *  campaign       name, id, workloads, results, slo_us, metric, agents_wanted
 *  agent          name, state (ready|lost), n, of, reason
 *  workload       workload (index), of, name, rw, block_size, workers, qd, unit (ops/s|MiB/s),
 *                 max_steps (the planner's upper bound)
 *  layout         workload, agent, done, total (bytes)
 *  step           workload, step (index, run order), offered_ops (0: max), seconds (planned)
 *  interval       workload, step, interval, warmup, agent (name, or "*" for the fleet), ops_s,
 *                 mib_s, mean_us, p99_us, cpu_pct (agent host), errors
 *  point          workload, step, offered_ops, achieved_ops, mib_s, mean_us, p50_us, p99_us,
 *                 metric_us (the SLO metric), steady, errors, client_cpu_pct, saturated (why or "")
 *  workload_done  workload, name, knee (text), knee_kind (measured|interpolated|above_peak|none),
 *                 knee_tp, peak_tp, unit, why (why the pass ended)
 *  done           status (0 complete), message, results
 */
typedef void (*events_fn)(void *arg, const char *line);

struct events;

struct events *events_new(void);
void events_free(struct events *ev);
void events_subscribe(struct events *ev, events_fn fn, void *arg);
void events_unsubscribe(struct events *ev, events_fn fn, void *arg);
/*
 * Emit one event: fmt gives the members after "event":"KIND" (start with a
 * comma), e.g. events_emit(ev, "step", ",\"workload\":%zu", w). Strings passed
 * in must already be JSON-safe (events_json_str escapes one into a buffer).
 */
void events_emit(struct events *ev, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "text" escaped for JSON (quotes included) into buf. */
const char *events_json_str(const char *text, char *buf, unsigned long len);

#endif
