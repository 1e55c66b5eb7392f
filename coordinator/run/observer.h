/* SPDX-License-Identifier: MIT */
/*
 * The coordinator's polls of a campaign's observe: sources (campaign/observe.h). A
 * step's boundaries are its start (a baseline: counters need a value to take a rate
 * from) and each interval's end; at each, every source due is asked once, with its
 * own deadline, and what it said (or why it said nothing) becomes one line
 * (obsline.h) handed to the runner, which writes it to intervals.jsonl. A source that
 * is slow, dead or hostile never holds a step: its line says it was late and the
 * step goes on. Answers are bounded (OBSERVER_BODY_MAX), redirects refused, https
 * verified against the source's CA file, a bearer token sent from its file and
 * never written anywhere.
 */
#ifndef IOCURVE_OBSERVER_H
#define IOCURVE_OBSERVER_H

#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>

#include "campaign.h"
#include "error.h"
#include "obsline.h"

#define OBSERVER_BODY_MAX    (4u << 20)
#define OBSERVER_TIMEOUT_MAX (5 * 1000000000ull)
#define OBSERVER_TOKEN_MAX   4096
/* A CA file (ca_file) is at most this long: a bundle of a few hundred certificates. */
#define OBSERVER_CA_MAX (1u << 20)

struct observer;
typedef void (*observer_line_fn)(void *arg, const struct obs_line *l);

/* NULL with err when a token or CA file cannot be taken (named). */
struct observer *observer_new(struct event_base *base, const struct campaign *c,
                              observer_line_fn fn, void *arg, struct error *err);
/* A step starts at start_ns (clock_now_ns's clock): polls at its start and n interval ends. */
void observer_step(struct observer *o, const char *workload, uint32_t step, uint64_t start_ns,
                   uint64_t interval_ns, uint32_t n);
/*
 * The step ended after `ran` intervals: no polls past the end of the last; those out
 * finish (or time out) and write their lines.
 */
void observer_step_stop(struct observer *o, uint32_t ran);
/* Polls out dropped without lines (a void attempt, a failed campaign). */
void observer_cancel(struct observer *o);
/* fn(arg) once no poll is out (now, when none is). */
void observer_when_idle(struct observer *o, void (*fn)(void *), void *arg);
void observer_free(struct observer *o);

/*
 * The sum of a Prometheus /api/v1/query answer's samples (a vector's or a scalar):
 * false with why (not JSON, status not success, no sample, a value refused).
 */
bool observer_query_value(const char *body, size_t len, double *out, char *why, size_t whylen);

#endif
