/* SPDX-License-Identifier: MIT */
/* iocurve report DIR: rebuild every derived file of a results directory from its intervals. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "between.h"
#include "cmd.h"
#include "derive.h"
#include "replay.h"
#include "timeseries.h"

static int report_exec(const struct args *a)
{
	const char *dir = a->operands[0];
	struct replay rp;
	struct error err;
	size_t steps = 0;
	struct stat st;
	struct between *between;

	/* Files are rewritten in DIR: another user's directory could hold anything. */
	if (stat(dir, &st) < 0) {
		fprintf(stderr, "iocurve report: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (st.st_uid != geteuid()) {
		fprintf(stderr,
		        "iocurve report: %s belongs to uid %u; report rewrites files in it: run it "
		        "as that user\n",
		        dir, (unsigned)st.st_uid);
		return 1;
	}
	if (replay_load(dir, &rp, &err) < 0) {
		fprintf(stderr, "iocurve report: %s\n", err.msg);
		replay_free(&rp);
		return 1;
	}
	if (rp.warning[0] != '\0')
		fprintf(stderr, "iocurve report: warning: %s\n", rp.warning);
	/* the earlier runs beside it, as the run saw them (those that began before it) */
	between = between_find(dir, rp.campaign, rp.end.meta);
	rp.end.between = between;
	if (derive_all(dir, rp.campaign, (const struct step_point *const *)rp.pts, rp.npts,
	               rp.judged, &rp.end, &err) < 0) {
		fprintf(stderr, "iocurve report: %s\n", err.msg);
		between_free(between);
		replay_free(&rp);
		return 1;
	}
	/* the time series from the same lines: what the run wrote at its end */
	if (timeseries_write(dir, rp.campaign, &err) < 0) {
		fprintf(stderr, "iocurve report: %s\n", err.msg);
		between_free(between);
		replay_free(&rp);
		return 1;
	}
	for (size_t i = 0; i < rp.campaign->nworkloads; i++)
		steps += rp.npts[i];
	/* what summary.txt holds: how it ended, who it lost, the tables and the runs before */
	derive_summary_print(stdout, rp.campaign, rp.judged, &rp.end);
	printf("\nrebuilt %s from %zu steps of intervals.jsonl\n", dir, steps);
	between_free(between);
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
