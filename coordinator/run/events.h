/* SPDX-License-Identifier: MIT */
/* A campaign's live event stream: typed events, fanned out to every subscriber. */
#ifndef IOCURVE_EVENTS_H
#define IOCURVE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The runner says what happens once, as a struct event; the plain printer,
 * the dashboard, the daemon (its watchers and /metrics) all read the same
 * structs. Text exists only where an event leaves the process: JSON
 * (event_json.h, for --json and event files) and protobuf on the control
 * socket (event_pb.h). Both are driven by the field table in events.c, whose
 * keys are the JSON keys and the protobuf field names alike.
 *
 * Strings an emitter sets are borrowed for the events_emit call; a subscriber
 * that keeps an event keeps a copy (event_copy). Decoded events own theirs:
 * event_clear frees them. Latencies are microseconds, rates per second.
 */
enum event_kind {
	EVENT_CAMPAIGN,
	EVENT_AGENT,
	EVENT_WORKLOAD,
	EVENT_LAYOUT,
	EVENT_STEP,
	EVENT_INTERVAL,
	EVENT_POINT,
	EVENT_WORKLOAD_DONE,
	EVENT_DONE,
	EVENT_MARK,
	EVENT_OBSERVED,
	EVENT_KIND_N
};

/* The interval event's agent for the whole fleet's merged interval. */
#define EVENT_FLEET "*"

enum event_agent_state { EVENT_AGENT_READY, EVENT_AGENT_LOST };
/* The unit a workload's throughput is judged in: random I/O in ops/s, sequential in MiB/s. */
enum event_unit { EVENT_UNIT_OPS, EVENT_UNIT_MIB };
/* As summary.json words it (curve_knee_kind). */
enum event_knee_kind {
	EVENT_KNEE_NONE,
	EVENT_KNEE_MEASURED,
	EVENT_KNEE_INTERPOLATED,
	EVENT_KNEE_ABOVE_PEAK,
	EVENT_KNEE_AT_PEAK,
};

/* A knee as the analysis found it (curve_knee): the workload's unit. */
struct event_knee {
	enum event_knee_kind kind;
	double tp; /* 0 for none */
	/* its 95% band (knee.h band_lo, band_hi): hi 0 above the peak, both 0 for none */
	double lo, hi;
};

struct event_campaign {
	const char *name, *results, *metric;
	uint32_t id; /* the daemon's campaign id; 0 in-process */
	uint32_t workloads, agents_wanted;
	double slo_us;
};

struct event_agent {
	const char *name, *reason; /* reason: why it was lost */
	enum event_agent_state state;
	uint32_t n, of; /* ready: n of the wanted ones */
};

struct event_workload {
	uint32_t workload, of; /* index, count */
	const char *name, *rw;
	uint32_t block_size, workers, qd, agents;
	enum event_unit unit;
	uint32_t max_steps; /* the planner's upper bound */
};

struct event_layout {
	uint32_t workload;
	const char *agent;
	uint64_t done, total; /* bytes */
};

struct event_step {
	uint32_t workload, step; /* step: index in run order */
	double offered_ops;      /* 0: max (closed loop) */
	double per_worker;       /* the rate each worker is given */
	uint32_t qd;
	double seconds; /* planned */
};

struct event_interval {
	uint32_t workload, step, interval;
	bool warmup;
	const char *agent; /* a name, or EVENT_FLEET */
	double ops_s, mib_s, mean_us, p99_us, cpu_pct;
	uint64_t errors;
};

struct event_point {
	uint32_t workload, step;
	double offered_ops, achieved_ops, mib_s, mean_us, p50_us, p99_us;
	double metric_us; /* the SLO metric */
	bool steady;
	uint64_t errors;
	double client_cpu_pct;
	const char *saturated;  /* why the stop rules call it saturated, or "" */
	struct event_knee knee; /* the workload's knee so far, this point included */
	uint32_t agents_lost;   /* lost in the step: the verdict says who and where */
	const char *verdict;    /* the step's verdict in words (verdict_words) */
	/*
	 * Load under load: the background's ops/s over the step (NaN, null in JSON, in a
	 * campaign without one) and whether it kept up (bgfig_kept_up; false without one).
	 */
	double bg_ops;
	bool bg_kept_up;
};

struct event_workload_done {
	uint32_t workload;
	const char *name;
	const char *knee_text; /* the sentence the report prints */
	struct event_knee knee;
	double peak_tp;
	enum event_unit unit;
	const char *why;   /* why the pass ended */
	const char *limit; /* what limited it (summary's limiting factor); "" from old releases */
	double knee_speed; /* a replay's knee as a speed of its trace (summary.json's); 0: none */
};

struct event_done {
	int32_t status; /* 0 complete */
	const char *message, *results;
	const char *summary; /* the end report (derive_end_text): every client prints it */
};

/* A mark on the timeline (marks.h). */
struct event_mark {
	uint32_t workload, step, interval;
	bool between; /* stamped outside the step's intervals: interval means nothing */
	double at_s;  /* since the step's start */
	const char *text, *source, *agent; /* agent "": the fleet */
};

/*
 * One observed value of an observe: source at an interval's end (observer.h), or the
 * source's silence (series "", late says why): the dashboard shows the latest.
 */
struct event_observed {
	uint32_t workload, step, interval;
	const char *source, *series;
	bool has;         /* a value was read: value holds it */
	double value;     /* a gauge as read, a counter as its rate per second */
	const char *late; /* "": answered; else why not (no value then) */
};

struct event {
	enum event_kind kind;
	union {
		struct event_campaign campaign;
		struct event_agent agent;
		struct event_workload workload;
		struct event_layout layout;
		struct event_step step;
		struct event_interval interval;
		struct event_point point;
		struct event_workload_done workload_done;
		struct event_done done;
		struct event_mark mark;
		struct event_observed observed;
	};
};

/* One member of a kind: its key (JSON and protobuf), type and place in struct event. */
enum event_type {
	EVENT_T_U32,
	EVENT_T_I32,
	EVENT_T_U64,
	EVENT_T_DOUBLE,
	EVENT_T_BOOL,
	EVENT_T_STR,
	EVENT_T_ENUM
};

struct event_field {
	const char *key;
	enum event_type type;
	size_t off;
	const char *const *names; /* EVENT_T_ENUM: the JSON words, by value */
	size_t nnames;
};

/* The kind's name ("step"), NULL for none. */
const char *event_kind_name(enum event_kind k);
/* The kind named name, or -1. */
int event_kind_of(const char *name);
/* The members of kind k, *n of them. */
const struct event_field *event_fields(enum event_kind k, size_t *n);
/* "ops/s" or "MiB/s". */
const char *event_unit_name(enum event_unit u);
/* "none", "measured", "interpolated", "above_peak" or "at_peak". */
const char *event_knee_kind_name(enum event_knee_kind k);

struct campaign;
struct workload;
struct judged_curve;
struct step_point;
/* The unit workload w is judged in (curve_uses_mib). */
enum event_unit event_unit_of(const struct workload *w);
/*
 * The knee of a workload's judged curve (judged.h), the one the report prints,
 * and *peak, the highest throughput. Events carry it: no view finds its own.
 */
struct event_knee event_knee_of(const struct judged_curve *j, double *peak);

/*
 * e as a point event with p's figures: the members the point's field table
 * (pointfields.h) gives the event, each from its row. The caller sets the rest:
 * workload, step (run order, from 0), metric_us, saturated and knee.
 */
void event_point_fill(struct event *e, const struct step_point *p);

/* A deep copy of src into dst (which then owns its strings; NULL strings become ""). */
void event_copy(struct event *dst, const struct event *src);
/* Free the strings of an event that owns them (a copy or a decoded one). */
void event_clear(struct event *e);

typedef void (*events_fn)(void *arg, const struct event *e);

struct events;

struct events *events_new(void);
void events_free(struct events *ev);
void events_subscribe(struct events *ev, events_fn fn, void *arg);
/* Hand e to every subscriber. */
void events_emit(struct events *ev, const struct event *e);
/* The campaign event, first of a campaign's stream: id 0 in-process, else the daemon's. */
void events_emit_campaign(struct events *ev, const struct campaign *c, uint32_t id,
                          const char *results);
/* The done event: status 0 complete. */
void events_emit_done(struct events *ev, int status, const char *message, const char *results,
                      const char *summary);

#endif
