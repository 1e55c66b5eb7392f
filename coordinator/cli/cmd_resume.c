/* SPDX-License-Identifier: MIT */
/* iocurve resume ID: carry on a campaign a killed daemon was running, in the same results. */
#include "client.h"
#include "cmd.h"

static int resume_exec(const struct args *a)
{
	Iocurve__Resume req = IOCURVE__RESUME__INIT;

	return cmd_id_verb(&cmd_resume_entry, a, &req.base, NULL);
}

static const struct args_option resume_options[] = {
    CLIENT_OPTION_COORDINATOR,
    {NULL},
};

const struct cmd_entry cmd_resume_entry = {
    .args =
        {
            .name = "resume",
            .operands = "ID",
            .help = "carry on an interrupted campaign (its daemon was killed) from its first "
                    "unfinished step, appending to its results",
            .options = resume_options,
            .min_operands = 1,
            .max_operands = 1,
        },
    .exec = resume_exec,
};
