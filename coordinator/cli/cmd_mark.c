/* SPDX-License-Identifier: MIT */
/*
 * iocurve mark [ID] TEXT: a labelled mark on a running campaign's timeline, at the
 * step and interval in progress (intervals.jsonl, the event stream, the time plots).
 */
#include <stdio.h>

#include "client.h"
#include "cmd.h"
#include "marks.h"

/* The text is vetted here too: one the daemon would refuse is a usage error (2). */
static int mark_check(const struct args *a)
{
	char why[160];

	if (mark_text_check(a->operands[a->noperands - 1], why, sizeof(why)))
		return 0;
	fprintf(stderr, "iocurve mark: %s\n", why);
	return 2;
}

static int mark_exec(const struct args *a)
{
	Iocurve__Mark req = IOCURVE__MARK__INIT;

	/* With two operands the first is the campaign; alone, the text marks the running one. */
	req.text = a->operands[a->noperands - 1];
	return cmd_id_verb(&cmd_mark_entry, a, &req.base, mark_check);
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
