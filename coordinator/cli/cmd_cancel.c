/* SPDX-License-Identifier: MIT */
/* iocurve cancel ID: stop a campaign's I/O on every agent; finished steps stay in its results. */
#include <stdio.h>

#include "client.h"
#include "cmd.h"

static int cancel_exec(const struct args *a)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Cancel req = IOCURVE__CANCEL__INIT;
	char buf[256];
	const char *sock = client_socket(args_get(a, "coordinator"), buf, sizeof(buf));
	struct error err;
	uint64_t id;

	if (args_operand_uint(a, 0, "ID", 1, UINT32_MAX, &id, &err) < 0)
		return cmd_usage_error(&cmd_cancel_entry, err.msg);
	req.id = (uint32_t)id;
	env.body_case = IOCURVE__ENVELOPE__BODY_CANCEL;
	env.cancel = &req;
	return client_control("cancel", sock, &env);
}

static const struct args_option cancel_options[] = {
    CLIENT_OPTION_COORDINATOR,
    {NULL},
};

const struct cmd_entry cmd_cancel_entry = {
    .args =
        {
            .name = "cancel",
            .operands = "ID",
            .help = "cancel a campaign: I/O stops on every agent; finished steps stay in its "
                    "results",
            .options = cancel_options,
            .min_operands = 1,
            .max_operands = 1,
        },
    .exec = cancel_exec,
};
