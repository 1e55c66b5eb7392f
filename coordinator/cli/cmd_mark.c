/* SPDX-License-Identifier: MIT */
/*
 * iocurve mark [ID] TEXT: a labelled mark on a running campaign's timeline, at the
 * step and interval in progress (intervals.jsonl, the event stream, the time plots).
 */
#include <stdio.h>

#include "client.h"
#include "cmd.h"
#include "marks.h"

static int mark_exec(const struct args *a)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Mark req = IOCURVE__MARK__INIT;
	char buf[256], why[160];
	const char *sock = client_socket(args_get(a, "coordinator"), buf, sizeof(buf));
	const char *text = a->operands[a->noperands - 1];
	struct error err;
	uint64_t id = 0;

	/* With two operands the first is the campaign; alone, the text marks the running one. */
	if (a->noperands == 2 && args_operand_uint(a, 0, "ID", 1, UINT32_MAX, &id, &err) < 0)
		return cmd_usage_error(&cmd_mark_entry, err.msg);
	if (!mark_text_check(text, why, sizeof(why))) {
		fprintf(stderr, "iocurve mark: %s\n", why);
		return 2;
	}
	req.id = (uint32_t)id;
	req.text = (char *)text;
	env.body_case = IOCURVE__ENVELOPE__BODY_MARK;
	env.mark = &req;
	return client_control("mark", sock, &env);
}

static const struct args_option mark_options[] = {
    CLIENT_OPTION_COORDINATOR,
    {NULL},
};

const struct cmd_entry cmd_mark_entry = {
    .args =
        {
            .name = "mark",
            .operands = "[ID] TEXT",
            .help = "stamp TEXT on a running campaign's timeline (ID: the running one when "
                    "left out): in intervals.jsonl, the event stream and the time plots",
            .options = mark_options,
            .min_operands = 1,
            .max_operands = 2,
        },
    .exec = mark_exec,
};
