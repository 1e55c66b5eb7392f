/* SPDX-License-Identifier: MIT */
/*
 * What an observed source (campaign/observe.h) said at one interval's end: one line
 * of intervals.jsonl each (intervals_obs_line), kept by the runner and by replay so
 * the derived files (curve-*.json `observed`, report.html's plot) are the same from
 * either.
 *
 * The line (intervals.jsonl format 5 and later):
 *   {"format":5,"workload":"seq","step":2,"observe":"storage","interval":3,
 *    "values":{"busy":0.53,"reads":null},"late":"no answer within 500 ms"}
 * - observe: the source's name; interval: the step's interval whose end it answers;
 * - values: each series' value (a counter's as a rate per second since the poll
 *   before), null when the source gave none (late, not in its answer, refused);
 * - late: absent when the source answered in time, else why it gave nothing
 *   ("no answer within 500 ms", "answer over 4194304 bytes: refused", ...);
 * - note: absent, or what was skipped or refused in the answer (a malformed line, a
 *   NaN value), named.
 */
#ifndef IOCURVE_OBSLINE_H
#define IOCURVE_OBSLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OBS_NAME_MAX   128 /* a workload's or source's name */
#define OBS_SERIES_MAX 201 /* a series' name, NUL included */
#define OBS_VALUES_MAX 32  /* series of a source (OBSERVE_MAX_SERIES) */
#define OBS_WHY_MAX    512

struct obs_value {
	char series[OBS_SERIES_MAX];
	bool has;
	double v;
};

struct obs_line {
	char workload[OBS_NAME_MAX];
	uint32_t step;
	uint32_t interval;
	char source[OBS_NAME_MAX];
	char late[OBS_WHY_MAX]; /* "": answered */
	char note[OBS_WHY_MAX]; /* "": nothing skipped */
	size_t n;
	struct obs_value values[OBS_VALUES_MAX];
};

struct obs_list {
	struct obs_line *v;
	size_t n, cap;
};
void obs_list_add(struct obs_list *l, const struct obs_line *o);
/* A step that runs again (retried): its lines so far are void. */
void obs_list_void(struct obs_list *l, const char *workload, uint32_t step);
void obs_list_free(struct obs_list *l);

/* The value of series `series` in o, or NULL. */
const struct obs_value *obs_line_value(const struct obs_line *o, const char *series);

#endif
