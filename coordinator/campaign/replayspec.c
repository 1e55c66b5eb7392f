/* SPDX-License-Identifier: MIT */
/* replay: {file, format, rate}: the trace a workload replays, and its speeds as rates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loadspec.h"
#include "replayspec.h"
#include "trace.h"
#include "units.h"
#include "xalloc.h"

static const char *const replayspec_keys[] = {"file", "format", "rate", NULL};

/*
 * The trace's path: as given when absolute, else beside the campaign file; from a
 * results directory, the copy the run kept beside its plan.yaml.
 */
static char *replayspec_path(const char *file, const struct campaign *c, const char *workload)
{
	const char *slash = c->path ? strrchr(c->path, '/') : NULL;
	char *name, *path;

	if (c->from_results) {
		name = xasprintf(REPLAYSPEC_COPY, workload);
		path = slash ? xasprintf("%.*s/%s", (int)(slash - c->path), c->path, name)
		             : xstrdup(name);
		free(name);
		return path;
	}
	if (file[0] == '/' || slash == NULL)
		return xstrdup(file);
	return xasprintf("%.*s/%s", (int)(slash - c->path), c->path, file);
}

/* replay.rate: a version 2 iolog's ops/s at x1 (it has no times of its own). */
static int replayspec_rate(struct yamlnode_doc *y, const yaml_node_t *n, double *rate)
{
	struct error uerr;
	const char *s;

	*rate = 0;
	if (n == NULL)
		return 0;
	if (yamlnode_string(y, n, "replay.rate", &s) < 0)
		return -1;
	if (units_parse_rate(s, rate, &uerr) < 0 || !(*rate > 0) || *rate > TRACE_MAX_RATE) {
		yamlnode_expected(y, n, "replay.rate",
		                  "ops/s at x1 above 0 and at most 10M, such as 500 or 2k");
		return -1;
	}
	return 0;
}

int replayspec_parse(struct yamlnode_doc *y, const yaml_node_t *map, const yaml_node_t *load,
                     const struct campaign *c, struct workload *w)
{
	yaml_node_t *r = yamlnode_lookup(y, map, "replay"), *file, *format;
	const char *fs, *fmt;
	struct error terr;
	char *path;
	double rate, x1;

	w->replay = NULL;
	if (r == NULL) {
		if (w->speeds)
			yamlnode_error(y, load,
			               "load.speeds: speeds replay a trace; give the workload "
			               "replay: {file: PATH, format: fio-iolog}, or give steps");
		return w->speeds ? -1 : 0;
	}
	if (yamlnode_check_mapping(y, r, "replay", "replay", replayspec_keys) < 0 ||
	    yamlnode_require(y, r, "file", "replay", &file) < 0 ||
	    yamlnode_string(y, file, "replay.file", &fs) < 0 ||
	    yamlnode_require(y, r, "format", "replay", &format) < 0 ||
	    yamlnode_string(y, format, "replay.format", &fmt) < 0 ||
	    replayspec_rate(y, yamlnode_lookup(y, r, "rate"), &rate) < 0)
		return -1;
	if (strcmp(fmt, "fio-iolog") != 0) {
		yamlnode_expected(
		    y, format, "replay.format",
		    "fio-iolog (fio's iolog, version 2 or 3, as --write_iolog writes it)");
		return -1;
	}
	if (!w->speeds || w->work.on) {
		yamlnode_error(y, r,
		               "replay: a replay's load is its speeds, load: {speeds: [1, 2, 4]} "
		               "(x1 as recorded)");
		return -1;
	}
	path = replayspec_path(fs, c, w->name);
	w->replay = trace_load(path, rate, &terr);
	free(path);
	if (w->replay == NULL) {
		yamlnode_error(y, file, "replay.file: %s", terr.msg);
		return -1;
	}
	x1 = trace_rate(w->replay);
	for (size_t i = 0; i < w->nsteps; i++)
		w->steps[i].ops *= x1;
	/* a ramp of speeds is the rate ramp of the rates they give: one planner for both */
	if (w->mode == LOAD_RAMP) {
		w->ramp_start *= x1;
		w->ramp_increment *= x1;
	}
	w->io.block_size = w->replay->max_len;
	w->io.align = 512;
	w->io.rw = w->replay->writes ? RW_RANDRW : RW_RANDREAD;
	w->io.read_pct =
	    (uint32_t)(100.0 * (w->replay->n - w->replay->writes) / w->replay->n + 0.5);
	return 0;
}
