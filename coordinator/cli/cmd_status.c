/* SPDX-License-Identifier: MIT */
/* iocurve status: the daemon's campaigns: running, queued and finished. */
#include <stdio.h>

#include "client.h"
#include "cmd.h"
#include "frame.h"

static int status_exec(const struct args *a)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *reply;
	Iocurve__StatusRequest req = IOCURVE__STATUS_REQUEST__INIT;
	char buf[256];
	const char *sock = client_socket(args_get(a, "coordinator"), buf, sizeof(buf));

	env.body_case = IOCURVE__ENVELOPE__BODY_STATUS_REQUEST;
	env.status_request = &req;
	if (client_call("status", sock, &env, IOCURVE__ENVELOPE__BODY_STATUS_REPLY, &reply) != 0)
		return 1;
	printf("%-4s %-24s %-10s %-32s %-21s %-21s %s\n", "ID", "CAMPAIGN", "STATE", "PROGRESS",
	       "STARTED", "ENDED", "RESULTS");
	for (size_t i = 0; i < reply->status_reply->n_campaigns; i++) {
		const Iocurve__CampaignStatus *s = reply->status_reply->campaigns[i];

		printf("%-4u %-24s %-10s %-32s %-21s %-21s %s\n", s->id, s->name, s->state,
		       s->progress, s->started[0] ? s->started : "-", s->ended[0] ? s->ended : "-",
		       s->results[0] ? s->results : "-");
		/* Under each campaign: its knees so far, and why it ended when it failed. */
		for (size_t k = 0; k < s->n_knees; k++)
			printf("     knee %s\n", s->knees[k]);
		if (s->reason[0] != '\0')
			printf("     %s: %s\n", s->state, s->reason);
	}
	if (reply->status_reply->n_campaigns == 0)
		printf("(no campaigns yet)\n");
	frame_free(reply);
	return 0;
}

static const struct args_option status_options[] = {
    CLIENT_OPTION_COORDINATOR,
    {NULL},
};

const struct cmd_entry cmd_status_entry = {
    .args = {.name = "status",
             .help = "list the daemon's campaigns: id, name, state, progress, start and end, "
                     "results, each finished workload's knee and why a campaign failed",
             .options = status_options},
    .exec = status_exec,
};
