/* SPDX-License-Identifier: MIT */
/*
 * Marks on the timeline: a labelled moment of a run ("cache enabled", a worker's
 * finish), one line of intervals.jsonl each (intervals_mark_line), drawn as a
 * labelled vertical line on the time plots (timeplot.h) and listed in report.html.
 *
 * The line (keys in this order; intervals.jsonl format 4 and later):
 *   {"format":4,"workload":"seq","step":2,"mark":"cache enabled","source":"user",
 *    "at_ns":4500000000,"interval":4,"unix_ns":1796000000000000000,"agent":"a1"}
 * - workload, step: the step in progress when stamped (between steps: the step
 *   that ran last, or the workload's first step before any ran);
 * - mark: the text, 1 to MARK_TEXT_MAX bytes of UTF-8 without control characters
 *   (mark_text_check), as typed;
 * - source: who stamped it: "user" (`iocurve mark`, the dashboard's m key) or
 *   "finish" (a fixed-work worker or agent done);
 * - at_ns: nanoseconds since the step's start (its first interval's start, on
 *   the coordinator's clock); past the step's end for a mark stamped after it;
 *   0 for one stamped before it started;
 * - interval: the interval in progress (absent: none, before or after the step);
 * - unix_ns: the wall clock when stamped (absent: not known);
 * - agent: the agent it concerns (absent: the fleet).
 * `iocurve report` reads them back (replay.h) and draws the same plots.
 */
#ifndef IOCURVE_MARKS_H
#define IOCURVE_MARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MARK_TEXT_MAX      200 /* bytes of a mark's text */
#define MARK_NAME_MAX      128 /* a workload's or agent's name, as intervals.jsonl holds it */
#define MARK_NO_INTERVAL   UINT32_MAX
#define MARK_SOURCE_USER   "user"
#define MARK_SOURCE_FINISH "finish"

struct run_mark {
	char workload[MARK_NAME_MAX];
	uint32_t step;             /* in run order, from 0 */
	uint64_t at_ns;            /* since the step's start */
	uint32_t interval;         /* the interval in progress, MARK_NO_INTERVAL: none */
	uint64_t unix_ns;          /* wall clock when stamped, 0: not known */
	char source[16];           /* MARK_SOURCE_USER or MARK_SOURCE_FINISH */
	char agent[MARK_NAME_MAX]; /* "" : the fleet */
	char text[MARK_TEXT_MAX + 1];
};

/*
 * Whether text may be a mark: 1 to MARK_TEXT_MAX bytes, valid UTF-8, no control
 * character (C0, DEL, C1). false with why ("the text is empty", "the text holds
 * a control character (0x07) at byte 3", ...).
 */
bool mark_text_check(const char *text, char *why, size_t len);
/*
 * A mark stamped now: its fields set from the arguments, unix_ns from the wall
 * clock, the text copied (checked before: mark_text_check).
 */
void mark_set(struct run_mark *m, const char *workload, uint32_t step, uint64_t at_ns,
              uint32_t interval, const char *source, const char *agent, const char *text);

/* A growing list of marks (the runner's, replay's). */
struct mark_list {
	struct run_mark *v;
	size_t n, cap;
};
void mark_list_add(struct mark_list *l, const struct run_mark *m);
void mark_list_free(struct mark_list *l);

#endif
