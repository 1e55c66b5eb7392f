/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: the intervals.jsonl reader, line by line to the end or the first
 * error; then what `report` does with the lines read: each record merged into a step
 * of its agents and the step's point computed, and each written again as serve
 * writes it and read back. A line read but not readable once rewritten is a crash:
 * a results file must survive `report` and `resume` rewriting it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aggregate.h"
#include "campaign.h"
#include "fuzz.h"
#include "intervals.h"
#include "xalloc.h"

#define FUZZ_AGENTS    4
#define FUZZ_INTERVALS 16

static const struct campaign *fuzz_campaign(void)
{
	static const char plan[] =
	    "campaign: f\nagents: {local: 2}\ntarget: {sim: {servers: 2, service_time: 100us}}\n"
	    "slo: {latency: 1ms}\npercentiles: [50, 99.9]\n"
	    "workloads: [{name: rr, rw: randread, load: {steps: [1000]}}]\n";
	static struct campaign *c;
	struct error err;

	if (c == NULL && campaign_parse(plan, strlen(plan), "plan.yaml", &c, &err) < 0) {
		fprintf(stderr, "fuzz-intervals: %s\n", err.msg);
		abort();
	}
	return c;
}

/* The line l, written again, reads back. */
static void fuzz_rewrite(const char *path, const struct intervals_line *l)
{
	struct intervals_line *back = xmalloc(sizeof(*back));
	struct intervals_reader *r;
	struct error err;
	char *text = intervals_record_line(
	    l->workload, l->step, l->offered_ops, l->interval,
	    strcmp(l->agent, INTERVALS_MERGED) == 0 ? NULL : l->agent, &l->rec, !l->rec.no_bins);
	FILE *f = fopen(path, "w");

	if (f == NULL)
		abort();
	fputs(text, f);
	fclose(f);
	free(text);
	r = intervals_open(path, &err);
	if (r == NULL || intervals_next(r, back, &err) != 1) {
		fprintf(stderr, "a line read, written again, is refused: %s\n", err.msg);
		abort();
	}
	intervals_close(r);
	free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64], again[80];
	static const char *const names[FUZZ_AGENTS] = {"a0", "a1", "a2", "a3"};
	struct intervals_line *line = xmalloc(sizeof(*line));
	struct step_point *pt = xmalloc(sizeof(*pt));
	struct agg_step *st = agg_step_new(FUZZ_AGENTS, names, FUZZ_INTERVALS);
	const struct agg_record *m;
	struct intervals_reader *r;
	struct error err;
	FILE *f;

	/* The reader reads a file by name: one per process, rewritten per input. */
	if (path[0] == '\0') {
		snprintf(path, sizeof(path), "/tmp/iocurve-fuzz-intervals.%d", (int)getpid());
		snprintf(again, sizeof(again), "%s.again", path);
	}
	f = fopen(path, "w");
	if (f == NULL)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	r = intervals_open(path, &err);
	if (r != NULL) {
		while (intervals_next(r, line, &err) > 0) {
			bool record = !line->window && !line->cooldown && !line->clock &&
			              !line->lost && !line->end && line->retried == 0;

			if (!record)
				continue;
			fuzz_rewrite(again, line);
			if (strcmp(line->agent, INTERVALS_MERGED) != 0)
				agg_add_record(
				    st, (uint32_t)(line->agent[0] + line->agent[1]) % FUZZ_AGENTS,
				    line->interval, &line->rec, &m, &err);
		}
		intervals_close(r);
	}
	agg_set_window(st, 1, FUZZ_INTERVALS);
	agg_point(st, 0, 1000, fuzz_campaign(), pt);
	agg_step_free(st);
	unlink(path);
	unlink(again);
	free(line);
	free(pt);
	return 0;
}
