/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: `iocurve compare A B` on two results directories made from the input,
 * parts split at "@@" lines: A's intervals.jsonl, B's, then A's and B's plan.yaml (the
 * seed run's when left out) and meta.json: replay of both, the change table, the
 * setups' differences, the overlaid curves.
 */
#include <stdio.h>

#include "args.h"
#include "cmd.h"
#include "fuzz.h"
#include "fuzz_dir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct fuzz_file first[] = {{"intervals.jsonl", ""}};
	static const struct fuzz_file second[] = {{"intervals.jsonl", ""}};
	static const struct fuzz_file plans[] = {{"plan.yaml", fuzz_dir_default_plan},
	                                         {"meta.json", NULL}};
	static char a_dir[128], b_dir[128];
	const char *out;
	char *argv[] = {"compare", a_dir, b_dir, "--out", NULL, NULL};
	struct args a;
	struct error err;

	fuzz_quiet();
	/* Each run's intervals, then its plan and meta: A's parts 0, 2, 3; B's 1, 4, 5. */
	snprintf(a_dir, sizeof(a_dir), "%s", fuzz_dir_make(0, data, size, 0, first, 1));
	snprintf(b_dir, sizeof(b_dir), "%s", fuzz_dir_make(1, data, size, 1, second, 1));
	fuzz_dir_add(a_dir, data, size, 2, plans, 2);
	fuzz_dir_add(b_dir, data, size, 4, plans, 2);
	out = fuzz_dir_make(2, data, 0, 0, NULL, 0);
	argv[4] = (char *)out;
	if (args_parse(&cmd_compare_entry.args, 5, argv, &a, &err) == 0)
		cmd_compare_entry.exec(&a);
	args_free(&a);
	return 0;
}
