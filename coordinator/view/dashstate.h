/* SPDX-License-Identifier: MIT */
/* What the dashboard knows about a running campaign, from its events alone. */
#ifndef IOCURVE_DASHSTATE_H
#define IOCURVE_DASHSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "events.h"

#define DASHSTATE_FLEET_LINES  5
#define DASHSTATE_OBSERVED_MAX 6

/*
 * The dashboard's model, kept apart from its curses view: the events
 * (events.h) update it, the view only reads it. Times are CLOCK_MONOTONIC at
 * the event's arrival. The knee is the runner's (curve_knee), as the events
 * carry it: the dashboard never finds one of its own.
 */
struct dashstate_agent {
	char name[64];
	bool lost, have; /* have: an interval arrived */
	char reason[96];
	double ops_s, mib_s, mean_us, p99_us, cpu_pct, errors; /* its latest interval */
	int layout_wl; /* the workload its layout events are about; -1: none */
	double layout_done, layout_total;
};

struct dashstate_point {
	double offered; /* ops/s; 0: max */
	double x;       /* achieved throughput in the workload's unit */
	double y;       /* the SLO metric, us */
	int step;
};

struct dashstate_workload {
	bool seen, done; /* seen: its workload event arrived */
	char name[64], rw[24], unit[16];
	double block_size, workers, qd, max_steps;
	struct dashstate_point *pts;
	size_t npts;
	/* The knee so far (each point's), then the final one (workload_done). */
	struct event_knee knee;
	/* From workload_done: the sentence the report prints, the peak, why the pass ended. */
	char knee_text[256], why[160];
	double peak_tp;
	double knee_speed; /* a replay's knee as a speed of its trace; 0: none */
};

struct dashstate_interval {
	int step, interval;
	bool warmup;
	double ops_s, mib_s, mean_us, p99_us;
	char mark[96]; /* not "": a mark stamped here (its text), not an interval */
};

/* The latest value of one observed series (observe:), or its source's silence. */
struct dashstate_observed {
	char key[96]; /* SOURCE/SERIES */
	bool has;     /* value was read at (step, interval) */
	double value;
	int step, interval;
	char late[96]; /* "": the source answered at its last interval; else why not */
};

enum dashstate_sort {
	DASHSTATE_SORT_NAME,
	DASHSTATE_SORT_OPS,
	DASHSTATE_SORT_MEAN,
	DASHSTATE_SORT_P99,
	DASHSTATE_SORT_N
};

struct dashstate {
	bool started, finished; /* the campaign and done events */
	char campaign[128], results[512], metric[16], message[256];
	double slo_us, agents_wanted, nwl_total;
	int status;
	struct timespec t0, t_end, t_step;
	struct dashstate_workload *wl; /* by index; grown as indexes appear */
	size_t nwl;
	int cur_wl, cur_step; /* -1: none yet */
	double offered, step_seconds;
	struct dashstate_agent *agents;
	size_t nagents;
	/* The fleet's last intervals of the current workload and its marks: a ring. */
	struct dashstate_interval fleet[DASHSTATE_FLEET_LINES];
	size_t nfleet;
	/* The last mark (its text, "" for none, and step): it outlives the ring's rows. */
	char last_mark[96];
	int last_mark_step;
	/* observe: sources' latest values, in the order they first came (the first ones kept) */
	struct dashstate_observed observed[DASHSTATE_OBSERVED_MAX];
	size_t nobserved;
};

void dashstate_init(struct dashstate *s);
void dashstate_free(struct dashstate *s);
/* Take one event in. False when nothing changed. */
bool dashstate_event(struct dashstate *s, const struct event *e);

/* Seconds since the campaign event; stops at the done event. */
double dashstate_elapsed(const struct dashstate *s);
/* An upper bound of the seconds left, or -1 while no step has started. */
double dashstate_remaining(const struct dashstate *s);
/* The current workload's layout progress, 0..100, or -1 when none is running. */
double dashstate_layout_pct(const struct dashstate *s);
/* The fleet interval i (0 = oldest of the ones held), i < dashstate_nfleet. */
size_t dashstate_nfleet(const struct dashstate *s);
const struct dashstate_interval *dashstate_fleet(const struct dashstate *s, size_t i);
/* Reorder s->agents: name ascending, or the figure descending (no figure last). */
void dashstate_sort_agents(struct dashstate *s, enum dashstate_sort by);

#endif
