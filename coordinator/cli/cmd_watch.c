/* SPDX-License-Identifier: MIT */
/* iocurve watch [ID]: follow a campaign live (dashboard on a terminal, lines otherwise). */
#include <stdio.h>

#include "client.h"
#include "runner.h"
#include "watch.h"
#include "cmd.h"

static int watch_exec(const struct args *a)
{
	char buf[256];
	const char *sock = client_socket(args_get(a, "coordinator"), buf, sizeof(buf));
	struct error err;
	uint64_t id = 0;
	int rc;

	if (a->noperands > 0 && args_operand_uint(a, 0, "ID", 0, UINT32_MAX, &id, &err) < 0)
		return cmd_usage_error(&cmd_watch_entry, err.msg);
	rc = watch_campaign(sock, (uint32_t)id, args_has(a, "json"), &err);
	if (rc < 0) {
		fprintf(stderr, "iocurve watch: %s\n", err.msg);
		return 1;
	}
	return rc == RUNNER_DEGRADED && args_has(a, "accept-degraded") ? 0 : rc;
}

static const struct args_option watch_options[] = {
    CLIENT_OPTION_COORDINATOR,
    {"json", 'j', NULL, "print the raw event stream, one JSON object a line", false},
    {"accept-degraded", 'A', NULL,
     "exit 0, not 3, when the campaign completed without some of its agents (lost on the way)",
     false},
    {NULL},
};

const struct cmd_entry cmd_watch_entry = {
    .args =
        {
            .name = "watch",
            .operands = "[ID]",
            .help = "follow a campaign live: the dashboard (q detaches, c cancels), or event "
                    "lines",
            .options = watch_options,
            .max_operands = 1,
        },
    .exec = watch_exec,
};
