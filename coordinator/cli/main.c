/* SPDX-License-Identifier: MIT */
/* iocurve: the coordinator and its CLI verbs, dispatched from one table. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const struct cmd_entry *const main_cmds[] = {
    &cmd_run_entry,    &cmd_serve_entry,  &cmd_report_entry, &cmd_compare_entry,
    &cmd_status_entry, &cmd_agents_entry, &cmd_watch_entry,  &cmd_cancel_entry,
    &cmd_resume_entry, &cmd_certs_entry,  &cmd_check_entry,  &cmd_mark_entry,
};
#define MAIN_NCMDS (sizeof(main_cmds) / sizeof(main_cmds[0]))

static void main_usage(FILE *f)
{
	fprintf(f, "usage: iocurve COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < MAIN_NCMDS; i++) {
		fprintf(f, "  ");
		args_synopsis(f, &main_cmds[i]->args);
		fprintf(f, "\n          %s\n", main_cmds[i]->args.help);
	}
	fprintf(f, "\n`iocurve COMMAND --help` lists a command's options.\n");
}

/* Parse the verb's arguments against its table, then run it. */
static int main_exec(const struct cmd_entry *e, int argc, char **argv)
{
	struct error err;
	struct args a;
	int rc;

	if (args_parse(&e->args, argc, argv, &a, &err) < 0) {
		rc = cmd_usage_error(e, err.msg);
	} else if (a.help) {
		args_usage(stdout, &e->args);
		rc = 0;
	} else {
		rc = e->exec(&a);
	}
	args_free(&a);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		main_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("iocurve %s\n", IOCURVE_VERSION);
		return 0;
	}
	for (size_t i = 0; i < MAIN_NCMDS; i++)
		if (strcmp(argv[1], main_cmds[i]->args.name) == 0)
			return main_exec(main_cmds[i], argc - 1, argv + 1);
	fprintf(stderr, "iocurve: unknown command '%s'\n\n", argv[1]);
	main_usage(stderr);
	return 2;
}
