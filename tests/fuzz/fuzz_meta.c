/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: meta.json as `report` reads it into report.html (who ran what, where),
 * beside the seed run's plan and no steps; a second part after "@@" is intervals.jsonl.
 */
#include "args.h"
#include "cmd.h"
#include "fuzz.h"
#include "fuzz_dir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_file files[] = {
	    {"meta.json", ""},
	    {"intervals.jsonl", ""},
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
