/* SPDX-License-Identifier: MIT */
/* Reading load: (steps, curve, ramp, max, refine, confirm, repeat) with file:line:column errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadspec.h"
#include "units.h"
#include "workspec.h"
#include "xalloc.h"

/* A factor of 100 per step skips two orders of magnitude: no curve left to see. */
#define LOADSPEC_MAX_FACTOR 100.0
#define LOADSPEC_FACTOR     "a number above 1 and at most 100, such as 1.5 or 2"

static const char *const loadspec_keys[] = {"steps",   "curve",  "ramp", "max",  "refine",
                                            "confirm", "repeat", "work", "rate", "think",
                                            "start",   "speeds", NULL};
static const char *const loadspec_ramp_keys[] = {"start", "factor", "increment", "max_steps", NULL};

static bool loadspec_ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

#define LOADSPEC_SHARE "a share of the peak such as 50% (above 0%, at most 100%)"
#define LOADSPEC_RATE  "a rate such as 20k or a bandwidth such as 800MiB/s"
#define LOADSPEC_STEP                                                                              \
	"a rate such as 20k, a bandwidth such as 800MiB/s, a share of the peak such as 50%, or "   \
	"max"

/* The scalar's text, or -1 with "LABEL: expected EXPECTED, got ..." for a list or nothing. */
static int loadspec_text(struct yamlnode_doc *y, const yaml_node_t *n, const char *label,
                         const char *expected, const char **s)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.length == 0) {
		yamlnode_expected(y, n, label, expected);
		return -1;
	}
	return yamlnode_string(y, n, label, s);
}

/*
 * A rate in ops/s: "20k" as is, "800MiB/s" through the workload's block size
 * (a bandwidth only means operations once the size of one is known).
 * expected is everything the key takes, for the message on a typo.
 */
/* Set while the top level's load: is read for one workload (loadspec_parse_inherited). */
static const char *loadspec_inherited_by;

static int loadspec_ops(struct yamlnode_doc *y, const yaml_node_t *n, const char *label,
                        const struct workload *w, const char *expected, double *ops)
{
	struct error uerr;
	const char *s;
	double bps;
	char bs[32], bw[32];

	if (loadspec_text(y, n, label, expected, &s) < 0)
		return -1;
	if (loadspec_ends_with(s, "/s")) {
		if (units_parse_bandwidth(s, &bps, &uerr) < 0) {
			yamlnode_error(y, n, "%s: %s", label, uerr.msg);
			return -1;
		}
		*ops = bps / w->io.block_size;
		return 0;
	}
	if (units_parse_rate(s, ops, &uerr) < 0) {
		/* a word where a number belongs: say everything this key takes */
		if (strstr(uerr.msg, "is not a rate (") != NULL)
			yamlnode_expected(y, n, label, expected);
		else
			yamlnode_error(y, n, "%s: %s", label, uerr.msg);
		return -1;
	}
	if (loadspec_inherited_by != NULL && !rw_is_random(w->io.rw)) {
		units_format_size(w->io.block_size, bs, sizeof(bs));
		units_format_size((uint64_t)(*ops * w->io.block_size), bw, sizeof(bw));
		yamlnode_error(y, n,
		               "%s: %s is a rate in ops/s, but %s is sequential and judged in "
		               "MiB/s, where it would mean %s/s (%s ops of %s); give that workload "
		               "its own load, or write the rate as a bandwidth",
		               label, s, loadspec_inherited_by, bw, s, bs);
		return -1;
	}
	return 0;
}

/* "50%": a share of the peak, above 0 and at most all of it. */
static int loadspec_share(struct yamlnode_doc *y, const yaml_node_t *n, const char *label,
                          double *pct)
{
	struct error uerr;
	const char *s;

	if (loadspec_text(y, n, label, LOADSPEC_SHARE, &s) < 0)
		return -1;
	if (!loadspec_ends_with(s, "%")) {
		yamlnode_expected(y, n, label, LOADSPEC_SHARE);
		return -1;
	}
	if (units_parse_percent(s, pct, &uerr) < 0) {
		yamlnode_error(y, n, "%s: %s", label, uerr.msg);
		return -1;
	}
	if (!(*pct > 0 && *pct <= 100)) {
		yamlnode_expected(y, n, label, LOADSPEC_SHARE);
		return -1;
	}
	return 0;
}

/* A step: "max" (closed loop at the queue depth, to find the peak), a share of it, or a rate. */
static int loadspec_step(struct yamlnode_doc *y, const yaml_node_t *n, const struct workload *w,
                         struct step_rate *step)
{
	const char *s;

	step->ops = step->peak_pct = 0;
	if (loadspec_text(y, n, "load.steps", LOADSPEC_STEP, &s) < 0)
		return -1;
	if (strcmp(s, "max") == 0)
		return 0;
	if (loadspec_ends_with(s, "%"))
		return loadspec_share(y, n, "load.steps", &step->peak_pct);
	if (loadspec_ops(y, n, "load.steps", w, LOADSPEC_STEP, &step->ops) < 0)
		return -1;
	if (!(step->ops > 0)) {
		yamlnode_expected(y, n, "load.steps", "a rate above 0 ops/s, or max");
		return -1;
	}
	return 0;
}

/* The entries of steps: or curve:, in order; a curve takes shares of the peak only. */
static int loadspec_list(struct yamlnode_doc *y, const yaml_node_t *list, bool curve,
                         bool extra_max, struct workload *w)
{
	const char *label = curve ? "load.curve" : "load.steps";
	size_t n;

	if (list->type != YAML_SEQUENCE_NODE ||
	    list->data.sequence.items.top == list->data.sequence.items.start) {
		yamlnode_expected(y, list, label,
		                  curve ? "a list of shares of the peak like [10%, 50%, 90%, 100%]"
		                        : "a list of rates like [1000, 2k, 800MiB/s, 50%, max]");
		return -1;
	}
	n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
	if (n > LOADSPEC_MAX_STEPS) {
		yamlnode_error(y, list, "%s: %zu entries; at most %d (use a ramp for long runs)",
		               label, n, LOADSPEC_MAX_STEPS);
		return -1;
	}
	w->steps = xcalloc(n + extra_max, sizeof(*w->steps));
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *e = yamlnode_get(y, list->data.sequence.items.start[i]);
		int rc = curve ? loadspec_share(y, e, label, &w->steps[i].peak_pct)
		               : loadspec_step(y, e, w, &w->steps[i]);

		if (rc < 0)
			return -1;
		w->nsteps++;
	}
	/* max: true with steps: the closed-loop peak after the rated steps */
	if (extra_max)
		w->steps[w->nsteps++] = (struct step_rate){0, 0};
	return 0;
}

/* A plain decimal such as 1.5 or 2 (no exponents, no hex: strtod takes both). */
static bool loadspec_decimal(const char *s, double *out)
{
	size_t i = 0, digits = 0;

	while (s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (s[i] == '.')
		for (i++; s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (digits == 0 || s[i] != '\0' || i > 32)
		return false;
	*out = strtod(s, NULL);
	return true;
}

#define LOADSPEC_SPEED "a replay speed above 0 and at most 1000, such as 1, 0.5 or x2"

/* A replay speed: "2" or "x2" (x1 as recorded), above 0 and at most 1000. */
static int loadspec_speed(struct yamlnode_doc *y, const yaml_node_t *n, const char *label,
                          const char *expected, double *v)
{
	const char *s;

	if (loadspec_text(y, n, label, expected, &s) < 0)
		return -1;
	if ((!loadspec_decimal(s, v) && !(s[0] == 'x' && loadspec_decimal(s + 1, v))) ||
	    !(*v > 0) || *v > 1000) {
		yamlnode_expected(y, n, label, expected);
		return -1;
	}
	return 0;
}

/*
 * A ramp's start or increment: a rate in ops/s (load.ramp), or with speed a replay
 * speed (load.speeds.ramp), which replayspec.c turns into the rate it gives.
 */
static int loadspec_ramp_value(struct yamlnode_doc *y, const yaml_node_t *n, const char *label,
                               bool speed, const struct workload *w, double *v)
{
	if (speed)
		return loadspec_speed(y, n, label, LOADSPEC_SPEED, v);
	if (loadspec_ops(y, n, label, w, LOADSPEC_RATE, v) < 0)
		return -1;
	if (!(*v > 0)) {
		yamlnode_expected(y, n, label, "a rate above 0 ops/s");
		return -1;
	}
	return 0;
}

/*
 * ramp: {start: R, factor: F | increment: R, max_steps: N}; with speed, a replay's
 * speeds: {ramp: {...}} (labels load.speeds.ramp.*), start and increment in speeds.
 */
static int loadspec_ramp(struct yamlnode_doc *y, const yaml_node_t *map, bool speed,
                         struct workload *w)
{
	const char *key = speed ? "load.speeds.ramp" : "load.ramp";
	yaml_node_t *start, *factor, *inc, *n;
	const char *s;
	char label[64];

	if (yamlnode_check_mapping(y, map, key, key, loadspec_ramp_keys) < 0)
		return -1;
	snprintf(label, sizeof(label), "%s.start", key);
	if (yamlnode_require(y, map, "start", key, &start) < 0 ||
	    loadspec_ramp_value(y, start, label, speed, w, &w->ramp_start) < 0)
		return -1;
	factor = yamlnode_lookup(y, map, "factor");
	inc = yamlnode_lookup(y, map, "increment");
	if (factor != NULL && inc != NULL) {
		yamlnode_error(y, map,
		               "%s: give either 'factor' (multiply each step) or "
		               "'increment' (add to each step), not both",
		               key);
		return -1;
	}
	if (factor == NULL && inc == NULL) {
		yamlnode_error(y, map,
		               "%s is missing 'factor' or 'increment' (e.g. factor: 2 to "
		               "double the %s each step, or increment: %s)",
		               key, speed ? "speed" : "rate", speed ? "0.5" : "10k");
		return -1;
	}
	w->ramp_factor = w->ramp_increment = 0;
	if (factor != NULL) {
		snprintf(label, sizeof(label), "%s.factor", key);
		if (loadspec_text(y, factor, label, LOADSPEC_FACTOR, &s) < 0)
			return -1;
		if (!loadspec_decimal(s, &w->ramp_factor) || !(w->ramp_factor > 1) ||
		    w->ramp_factor > LOADSPEC_MAX_FACTOR) {
			yamlnode_expected(y, factor, label, LOADSPEC_FACTOR);
			return -1;
		}
	} else {
		snprintf(label, sizeof(label), "%s.increment", key);
		if (loadspec_ramp_value(y, inc, label, speed, w, &w->ramp_increment) < 0)
			return -1;
	}
	snprintf(label, sizeof(label), "%s.max_steps", key);
	if ((n = yamlnode_lookup(y, map, "max_steps")) != NULL &&
	    yamlnode_uint(y, n, label, 1, LOADSPEC_MAX_RAMP_STEPS, &w->ramp_max_steps) < 0)
		return -1;
	w->mode = LOAD_RAMP;
	return 0;
}

/*
 * speeds: [1, 2, 4]: a replay's steps, each its trace at that speed (x1 as recorded).
 * They are kept in steps[].ops until the trace is read (workloads.c), whose rate at x1
 * turns each into ops/s; refine then bisects between rates as for any load.
 */
static int loadspec_speeds(struct yamlnode_doc *y, const yaml_node_t *list, struct workload *w)
{
	static const char *const ramp_only[] = {"ramp", NULL};
	const char *expected = "a list of replay speeds like [1, 2, 4, 8] (above 0, at most "
	                       "1000), or a ramp of them: {ramp: {start: 1, factor: 2}}";
	size_t n;

	/* speeds: {ramp: {...}}: the rate ramp's plan, each speed the rate it gives */
	if (list->type == YAML_MAPPING_NODE) {
		const yaml_node_t *ramp;

		if (yamlnode_check_mapping(y, list, "load.speeds", "load.speeds", ramp_only) < 0 ||
		    yamlnode_require(y, list, "ramp", "load.speeds", (yaml_node_t **)&ramp) < 0 ||
		    loadspec_ramp(y, ramp, true, w) < 0)
			return -1;
		w->speeds = true;
		return 0;
	}
	if (list->type != YAML_SEQUENCE_NODE ||
	    list->data.sequence.items.top == list->data.sequence.items.start) {
		yamlnode_expected(y, list, "load.speeds", expected);
		return -1;
	}
	n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
	if (n > LOADSPEC_MAX_STEPS) {
		yamlnode_error(y, list, "load.speeds: %zu entries; at most %d", n,
		               LOADSPEC_MAX_STEPS);
		return -1;
	}
	w->steps = xcalloc(n, sizeof(*w->steps));
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *e = yamlnode_get(y, list->data.sequence.items.start[i]);
		double v;

		/* 2 or x2 */
		if (loadspec_speed(y, e, "load.speeds", expected, &v) < 0)
			return -1;
		w->steps[w->nsteps++].ops = v;
	}
	w->speeds = true;
	return 0;
}

int loadspec_parse(struct yamlnode_doc *y, const yaml_node_t *load, const char *what,
                   struct workload *w)
{
	static const char *const modes[] = {"steps", "curve", "ramp"};
	const yaml_node_t *given[3], *first = NULL, *max, *n;
	const char *first_name = NULL;
	bool want_max = false;

	if (yamlnode_check_mapping(y, load, "load", what, loadspec_keys) < 0)
		return -1;
	w->mode = LOAD_STEPS;
	w->steps = NULL;
	w->nsteps = 0;
	w->work.on = false;
	w->speeds = false;
	/* fixed work: one step, its own keys (workspec.c) */
	if (workspec_given(y, load))
		return workspec_parse(y, load, w);
	/* one way to plan the load: two would leave the order of steps to guesswork */
	for (size_t i = 0; i < 3; i++) {
		given[i] = yamlnode_lookup(y, load, modes[i]);
		if (given[i] == NULL)
			continue;
		if (first != NULL) {
			yamlnode_error(y, given[i],
			               "load.%s: give one of steps, curve or ramp, not both '%s' "
			               "and '%s'",
			               modes[i], first_name, modes[i]);
			return -1;
		}
		first = given[i];
		first_name = modes[i];
	}
	max = yamlnode_lookup(y, load, "max");
	if (max != NULL && yamlnode_bool(y, max, "load.max", &want_max) < 0)
		return -1;
	if (want_max && (given[1] != NULL || given[2] != NULL)) {
		yamlnode_error(y, max,
		               "load.max: max: true goes with steps only (a curve starts with a "
		               "max step anyway; a ramp stops at saturation)");
		return -1;
	}
	if ((n = yamlnode_lookup(y, load, "refine")) != NULL &&
	    yamlnode_uint(y, n, "load.refine", 0, LOADSPEC_MAX_REFINE, &w->refine) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, load, "confirm")) != NULL) {
		bool confirm;

		if (yamlnode_bool(y, n, "load.confirm", &confirm) < 0)
			return -1;
		w->skip_confirm = !confirm;
	}
	w->repeat = 1;
	if ((n = yamlnode_lookup(y, load, "repeat")) != NULL &&
	    yamlnode_uint(y, n, "load.repeat", 1, LOADSPEC_MAX_REPEAT, &w->repeat) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, load, "speeds")) != NULL) {
		if (first != NULL || want_max) {
			yamlnode_error(y, n,
			               "load.speeds: a replay's speeds are its steps; give them "
			               "without '%s'",
			               first != NULL ? first_name : "max");
			return -1;
		}
		return loadspec_speeds(y, n, w);
	}
	if (given[2] != NULL)
		return loadspec_ramp(y, given[2], false, w);
	if (given[1] != NULL) {
		w->mode = LOAD_CURVE;
		return loadspec_list(y, given[1], true, false, w);
	}
	if (given[0] != NULL)
		return loadspec_list(y, given[0], false, want_max, w);
	if (!want_max) {
		yamlnode_error(y, load, "%s is missing 'steps', 'curve' or 'ramp' (or max: true)",
		               what);
		return -1;
	}
	/* load: {max: true}: one closed-loop step at the queue depth */
	w->nsteps = 1;
	w->steps = xcalloc(1, sizeof(*w->steps));
	return 0;
}

int loadspec_parse_inherited(struct yamlnode_doc *y, const yaml_node_t *load, const char *what,
                             const char *workload, struct workload *w)
{
	int rc;

	loadspec_inherited_by = workload;
	rc = loadspec_parse(y, load, what, w);
	loadspec_inherited_by = NULL;
	return rc;
}

bool loadspec_needs_peak(const struct workload *w)
{
	if (w->mode == LOAD_CURVE)
		return true;
	if (w->mode == LOAD_RAMP)
		return false;
	for (size_t i = 0; i < w->nsteps; i++)
		if (w->steps[i].peak_pct > 0)
			return true;
	return false;
}

size_t loadspec_max_steps(const struct workload *w)
{
	size_t pass =
	    w->mode == LOAD_RAMP ? w->ramp_max_steps : w->nsteps + (loadspec_needs_peak(w) ? 1 : 0);

	/* the confirmation step comes with refinement, repeat times */
	return pass + w->refine +
	       (w->refine > 0 && !w->skip_confirm ? (w->repeat ? w->repeat : 1) : 0);
}
