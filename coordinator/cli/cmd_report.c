/* SPDX-License-Identifier: MIT */
/* iocurve report DIR: rebuild every derived file of a results directory from its intervals. */
#include <stdio.h>

#include "cmd.h"
#include "derive.h"
#include "replay.h"
#include "table.h"

static int report_exec(const struct args *a)
{
	const char *dir = a->operands[0];
	struct replay rp;
	struct error err;
	size_t steps = 0;

	if (replay_load(dir, &rp, &err) < 0) {
		fprintf(stderr, "iocurve report: %s\n", err.msg);
		replay_free(&rp);
		return 1;
	}
	if (rp.warning[0] != '\0')
		fprintf(stderr, "iocurve report: warning: %s\n", rp.warning);
	if (derive_all(dir, rp.campaign, (const struct step_point *const *)rp.pts, rp.npts, &err) <
	    0) {
		fprintf(stderr, "iocurve report: %s\n", err.msg);
		replay_free(&rp);
		return 1;
	}
	for (size_t i = 0; i < rp.campaign->nworkloads; i++)
		steps += rp.npts[i];
	table_print_summary(stdout, rp.campaign, (const struct step_point *const *)rp.pts, rp.npts);
	printf("\nrebuilt %s from %zu steps of intervals.jsonl\n", dir, steps);
	replay_free(&rp);
	return 0;
}

const struct cmd_entry cmd_report_entry = {
    .args =
        {
            .name = "report",
            .operands = "DIR",
            .help = "rebuild curves, summaries, plots and report.html of a results dir from "
                    "its intervals",
            .min_operands = 1,
            .max_operands = 1,
        },
    .exec = report_exec,
};
