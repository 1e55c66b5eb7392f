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

/*
 * A line as a list keeps it: its names and words interned once per list, its values
 * as many as it has. A line as read (struct obs_line) is ~8 KB of fixed slots; 100,000
 * of them once took 809 MB to `report` an 8 MB file.
 */
struct obs_kept_value {
	const char *series;
	bool has;
	double v;
};

struct obs_kept {
	const char *workload;
	uint32_t step;
	uint32_t interval;
	const char *source;
	const char *late; /* "": answered */
	const char *note; /* "": nothing skipped */
	size_t n;
	struct obs_kept_value *values;
};

struct obs_list {
	struct obs_kept *v;
	size_t n, cap;
	char **str; /* the interned strings: an open-addressed set, nstr of cstr slots */
	size_t nstr, cstr;
};
void obs_list_add(struct obs_list *l, const struct obs_line *o);
void obs_list_add_kept(struct obs_list *l, const struct obs_kept *o);
/*
 * A step that runs again (retried): its lines so far are void. They are the last of
 * the list (lines come in time order), so the cost is theirs, never the whole list's.
 */
void obs_list_void(struct obs_list *l, const char *workload, uint32_t step);
/* The last n - keep lines go. */
void obs_list_cut(struct obs_list *l, size_t keep);
void obs_list_free(struct obs_list *l);

/* The value of series `series` in o, or NULL. */
const struct obs_kept_value *obs_kept_value(const struct obs_kept *o, const char *series);

#endif
