/* SPDX-License-Identifier: MIT */
/* iocurve report DIR: rebuild every derived file of a results directory from its intervals. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "derive.h"
#include "replay.h"
#include "table.h"

static int report_exec(int argc, char **argv)
{
	struct replay rp;
	struct error err;
	size_t steps = 0;

	if (argc != 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		fprintf(argc == 2 ? stdout : stderr, "usage: iocurve report %s\n%s\n",
		        cmd_report_entry.usage, cmd_report_entry.help);
		return argc == 2 ? 0 : 2;
	}
	if (replay_load(argv[1], &rp, &err) < 0) {
		fprintf(stderr, "iocurve report: %s\n", err.msg);
		replay_free(&rp);
		return 1;
	}
	if (derive_all(argv[1], rp.campaign, (const struct step_point *const *)rp.pts, rp.npts,
	               &err) < 0) {
		fprintf(stderr, "iocurve report: %s\n", err.msg);
		replay_free(&rp);
		return 1;
	}
	for (size_t i = 0; i < rp.campaign->nworkloads; i++)
		steps += rp.npts[i];
	table_print_summary(stdout, rp.campaign, (const struct step_point *const *)rp.pts, rp.npts);
	printf("\nrebuilt %s from %zu steps of intervals.jsonl\n", argv[1], steps);
	replay_free(&rp);
	return 0;
}

const struct cmd_entry cmd_report_entry = {
    .name = "report",
    .usage = "DIR",
    .help = "rebuild curves, summaries, plots and report.html of a results dir from its intervals",
    .exec = report_exec,
};
