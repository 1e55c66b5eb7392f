/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: `iocurve report` on a results directory made from the input
 * (intervals.jsonl, then meta.json and plan.yaml after "@@" lines; fuzz_dir.h):
 * the replay of every line, the aggregation, judging and every derived file.
 */
#include "args.h"
#include "cmd.h"
#include "fuzz.h"
#include "fuzz_dir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_file files[] = {
	    {"intervals.jsonl", ""},
	    {"meta.json", NULL},
	    {"plan.yaml", fuzz_dir_default_plan},
	};
	const char *dir = fuzz_dir_make(0, data, size, 0, files, 3);
	char *argv[] = {"report", (char *)dir, NULL};
	struct args a;
	struct error err;

	fuzz_quiet();
	if (args_parse(&cmd_report_entry.args, 2, argv, &a, &err) == 0)
		cmd_report_entry.exec(&a);
	args_free(&a);
	return 0;
}
