/* SPDX-License-Identifier: MIT */
/* iocurve cancel ID: stop a campaign's I/O on every agent; finished steps stay in its results. */
#include "client.h"
#include "cmd.h"

static int cancel_exec(const struct args *a)
{
	Iocurve__Cancel req = IOCURVE__CANCEL__INIT;

	return cmd_id_verb(&cmd_cancel_entry, a, &req.base, NULL);
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
