/* SPDX-License-Identifier: MIT */
/* `iocurve certs`: create the campaign CA, the coordinator's and agents' certificates. */
#include <stdio.h>
#include <string.h>

#include "certs.h"
#include "cmd.h"
#include "error.h"

static int cmd_certs_init(const char *dir)
{
	struct error err;

	if (certs_init(dir, &err) < 0) {
		fprintf(stderr, "iocurve certs: %s\n", err.msg);
		return 1;
	}
	printf("wrote %s/ca.crt, %s/ca.key, %s/%s.crt, %s/%s.key\n", dir, dir, dir,
	       CERTS_COORDINATOR_NAME, dir, CERTS_COORDINATOR_NAME);
	printf("next: iocurve certs agent %s NAME for each agent\n", dir);
	return 0;
}

static int cmd_certs_agent(const char *dir, int n, char **names)
{
	struct error err;
	int i, j;

	/* Check every name before issuing any, so a typo does not leave half a batch. */
	for (i = 0; i < n; i++) {
		if (!certs_name_valid(names[i])) {
			/* certs_issue_agent words the rule; ask it rather than repeat it. */
			certs_issue_agent(dir, names[i], &err);
			fprintf(stderr, "iocurve certs: %s\n", err.msg);
			return 1;
		}
		for (j = 0; j < i; j++) {
			if (strcmp(names[i], names[j]) == 0) {
				fprintf(stderr, "iocurve certs: agent name \"%s\" given twice\n",
				        names[i]);
				return 1;
			}
		}
	}
	for (i = 0; i < n; i++) {
		if (certs_issue_agent(dir, names[i], &err) < 0) {
			fprintf(stderr, "iocurve certs: %s\n", err.msg);
			return 1;
		}
		printf("wrote %s/%s.crt, %s/%s.key\n", dir, names[i], dir, names[i]);
	}
	return 0;
}

static int cmd_certs_exec(const struct args *a)
{
	const char *sub = a->operands[0];

	if (strcmp(sub, "init") == 0 && a->noperands == 2)
		return cmd_certs_init(a->operands[1]);
	if (strcmp(sub, "agent") == 0 && a->noperands >= 3)
		return cmd_certs_agent(a->operands[1], a->noperands - 2, a->operands + 2);
	if (strcmp(sub, "init") == 0 || strcmp(sub, "agent") == 0)
		return cmd_usage_error(&cmd_certs_entry,
		                       strcmp(sub, "init") == 0
		                           ? "init takes one DIR"
		                           : "agent needs DIR and at least one NAME");
	return cmd_usage_error(&cmd_certs_entry, "expected init or agent");
}

const struct cmd_entry cmd_certs_entry = {
    .args =
        {
            .name = "certs",
            .operands = "init DIR | agent DIR NAME [NAME...]",
            .help = "create the campaign CA and the coordinator's and agents' certificates",
            .more = "init   creates DIR/ca.{crt,key} and DIR/coordinator.{crt,key}\n"
                    "agent  issues DIR/NAME.{crt,key} for each agent, signed by DIR/ca.key\n"
                    "An agent's machine needs ca.crt, NAME.crt and NAME.key; never copy "
                    "ca.key.\n",
            .min_operands = 2,
            .max_operands = -1,
        },
    .exec = cmd_certs_exec,
};
