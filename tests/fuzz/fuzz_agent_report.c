/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: what the coordinator does with an agent's messages after Welcome,
 * past the frame layer: each IntervalReport decoded and checked (agg_add), merged
 * into a step of two agents, written as serve writes it (the agent's and the merged
 * line of intervals.jsonl), the step's point computed; then every line written is
 * read back as `report` reads it. A report serve accepts but `report` then refuses
 * is a crash here: serve must never write a results file it cannot read again.
 */
#include <event2/buffer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aggregate.h"
#include "campaign.h"
#include "frame.h"
#include "fuzz.h"
#include "fuzz_dir.h"
#include "intervals.h"
#include "xalloc.h"

#define FUZZ_INTERVALS 8

static const struct campaign *fuzz_campaign(void)
{
	static struct campaign *c;
	struct error err;

	if (c == NULL && campaign_parse(fuzz_dir_default_plan, strlen(fuzz_dir_default_plan),
	                                "plan.yaml", &c, &err) < 0) {
		fprintf(stderr, "fuzz-agent_report: %s\n", err.msg);
		abort();
	}
	return c;
}

static void fuzz_put(FILE *f, char *line)
{
	fputs(line, f);
	free(line);
}

/* Every line written reads back. */
static void fuzz_read_back(const char *path)
{
	struct intervals_line *l = xmalloc(sizeof(*l));
	struct intervals_reader *r;
	struct error err;
	int rc;

	r = intervals_open(path, &err);
	if (r == NULL)
		abort();
	while ((rc = intervals_next(r, l, &err)) > 0)
		;
	if (rc < 0) {
		fprintf(stderr, "serve wrote a line report refuses: %s\n", err.msg);
		abort();
	}
	intervals_close(r);
	free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"a0", "a1"};
	static const struct fuzz_file none[] = {{"intervals.jsonl", ""}};
	const struct campaign *c = fuzz_campaign();
	const char *dir = fuzz_dir_make(0, data, 0, 0, none, 1);
	struct agg_step *st = agg_step_new(2, names, FUZZ_INTERVALS);
	/* zeroed once and used for every report, as serve's runner does */
	struct agg_record *rec = xcalloc(1, sizeof(*rec));
	struct step_point *pt = xmalloc(sizeof(*pt));
	struct evbuffer *in = evbuffer_new();
	const struct agg_record *m;
	Iocurve__Envelope *env;
	char path[256];
	struct error err;
	FILE *f;

	snprintf(path, sizeof(path), "%s/intervals.jsonl", dir);
	f = fopen(path, "w");
	if (f == NULL)
		abort();
	evbuffer_add(in, data, size);
	while (frame_read(in, 1u << 20, &env, &err) > 0) {
		const Iocurve__IntervalReport *r =
		    env->body_case == IOCURVE__ENVELOPE__BODY_INTERVAL_REPORT ? env->interval_report
		                                                              : NULL;
		/* The workload index picks the agent: two sessions' reports in one input. */
		uint32_t agent = r != NULL ? r->workload_index % 2 : 0;

		if (r != NULL && agg_add(st, agent, r, rec, &m, &err) >= 0) {
			fuzz_put(f, intervals_record_line("rr", 0, 1000, r->interval, names[agent],
			                                  rec, r->step % 2 == 0));
			if (m != NULL)
				fuzz_put(f, intervals_record_line("rr", 0, 1000, r->interval, NULL,
				                                  m, true));
		}
		frame_free(env);
	}
	fclose(f);
	agg_set_window(st, 1, FUZZ_INTERVALS);
	agg_point(st, 0, 1000, c, pt);
	fuzz_read_back(path);
	evbuffer_free(in);
	agg_step_free(st);
	free(pt);
	agg_record_free(rec);
	return 0;
}
