/* SPDX-License-Identifier: MIT */
/* iocurve status: the daemon's campaigns: running, queued and finished. */
#include <stdio.h>

#include "client.h"
#include "cmd.h"
#include "frame.h"
#include "text.h"

/* A field from the daemon, for the terminal: no escape sequence passes (text_clean). */
static const char *status_text(const char *s, char *buf, size_t len)
{
	return text_clean(s != NULL && s[0] != '\0' ? s : "-", buf, len, false);
}

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
		char name[256], state[64], progress[512], started[96], ended[96], results[4096];
		char text[2048];

		printf("%-4u %-24s %-10s %-32s %-21s %-21s %s\n", s->id,
		       status_text(s->name, name, sizeof(name)),
		       status_text(s->state, state, sizeof(state)),
		       status_text(s->progress, progress, sizeof(progress)),
		       status_text(s->started, started, sizeof(started)),
		       status_text(s->ended, ended, sizeof(ended)),
		       status_text(s->results, results, sizeof(results)));
		/* Under each campaign: its knees so far, and why it ended when it failed. */
		for (size_t k = 0; k < s->n_knees; k++)
			printf("     knee %s\n", status_text(s->knees[k], text, sizeof(text)));
		if (s->reason[0] != '\0')
			printf("     %s: %s\n", state, status_text(s->reason, text, sizeof(text)));
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
