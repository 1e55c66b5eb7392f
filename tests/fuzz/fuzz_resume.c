/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: `run --resume DIR`'s reading of a results directory made from the input
 * (intervals.jsonl, then meta.json and plan.yaml after "@@" lines, as the report
 * target's; fuzz_dir.h): replay_load_resume's checks of the directory and the plan,
 * the replay of every line, then results_resume cutting intervals.jsonl after its last
 * complete step and writing curve.csv again. A directory resumed so is read again
 * and must give the same steps: a resume keeps every step it counted.
 */
#include <stdlib.h>

#include "fuzz.h"
#include "fuzz_dir.h"
#include "replay.h"
#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_file files[] = {
	    {"intervals.jsonl", ""},
	    {"meta.json", NULL},
	    {"plan.yaml", fuzz_dir_default_plan},
	};
	const char *dir = fuzz_dir_make(0, data, size, 0, files, 3);
	struct replay rp, again;
	struct results *r;
	struct error err;

	if (replay_load_resume(dir, &rp, &err) < 0)
		goto done;
	r = results_resume(dir, rp.campaign, (const struct step_point *const *)rp.pts, rp.npts,
	                   rp.keep, &err);
	if (r == NULL)
		goto done;
	results_release(r);
	results_close(r);
	if (replay_load_resume(dir, &again, &err) < 0)
		abort(); /* what a resume kept must read again */
	if (again.campaign->nworkloads != rp.campaign->nworkloads)
		abort();
	for (size_t w = 0; w < rp.campaign->nworkloads; w++)
		if (again.npts[w] != rp.npts[w])
			abort(); /* a step counted before the resume is counted after it */
	replay_free(&again);
done:
	replay_free(&rp);
	return 0;
}
