/* SPDX-License-Identifier: MIT */
/* The CLI verbs of `iocurve`: one file each, collected in one table (main.c). */
#ifndef IOCURVE_CMD_H
#define IOCURVE_CMD_H

struct cmd_entry {
	const char *name;  /* "run" */
	const char *usage; /* "FILE.yaml [--out DIR] ..." */
	const char *help;  /* one line */
	/* argv[0] is the verb; returns the process exit status. */
	int (*exec)(int argc, char **argv);
};

extern const struct cmd_entry cmd_certs_entry;
extern const struct cmd_entry cmd_check_entry;
extern const struct cmd_entry cmd_run_entry;
extern const struct cmd_entry cmd_serve_entry;
extern const struct cmd_entry cmd_report_entry;
extern const struct cmd_entry cmd_compare_entry;
extern const struct cmd_entry cmd_status_entry;
extern const struct cmd_entry cmd_agents_entry;
extern const struct cmd_entry cmd_cancel_entry;
extern const struct cmd_entry cmd_watch_entry;

#endif
