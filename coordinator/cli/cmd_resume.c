/* SPDX-License-Identifier: MIT */
/* iocurve resume ID: carry on a campaign a killed daemon was running, in the same results. */
#include "client.h"
#include "cmd.h"

static int resume_exec(const struct args *a)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Resume req = IOCURVE__RESUME__INIT;
	char buf[256];
	const char *sock = client_socket(args_get(a, "coordinator"), buf, sizeof(buf));
	struct error err;
	uint64_t id;

	if (args_operand_uint(a, 0, "ID", 1, UINT32_MAX, &id, &err) < 0)
		return cmd_usage_error(&cmd_resume_entry, err.msg);
	req.id = (uint32_t)id;
	env.body_case = IOCURVE__ENVELOPE__BODY_RESUME;
	env.resume = &req;
	return client_control("resume", sock, &env);
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
