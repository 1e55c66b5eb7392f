/* SPDX-License-Identifier: MIT */
/* The CLI verbs of `iocurve`: one file each, collected in one table (main.c). */
#ifndef IOCURVE_CMD_H
#define IOCURVE_CMD_H

#include "args.h"
#include "iocurve.pb-c.h"

struct cmd_entry {
	/* Name, operands, options and help: main.c parses argv against it. */
	struct args_spec args;
	/* Runs with the parsed arguments; returns the process exit status. */
	int (*exec)(const struct args *a);
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
extern const struct cmd_entry cmd_resume_entry;
extern const struct cmd_entry cmd_watch_entry;
extern const struct cmd_entry cmd_mark_entry;

/* A verb's usage error: "iocurve VERB: MSG" and a pointer to --help on stderr; returns 2. */
int cmd_usage_error(const struct cmd_entry *e, const char *msg);
/*
 * An ID verb (cancel, resume, mark): req, the verb's request message, sent with its
 * campaign id from the ID operand, the first (a verb whose operands are [ID] REST
 * sends 0, the running campaign, without it); check, when not NULL, vets the other
 * operands after the ID and returns the exit status of a refusal (0: go on). The
 * daemon's ControlReply is printed (client_control). Returns the exit status: 0,
 * 1 (refused or no daemon), 2 (usage).
 */
int cmd_id_verb(const struct cmd_entry *e, const struct args *a, ProtobufCMessage *req,
                int (*check)(const struct args *a));

#endif
