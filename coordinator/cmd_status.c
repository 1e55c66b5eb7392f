/* SPDX-License-Identifier: MIT */
/* iocurve status: the daemon's campaigns: running, queued and finished. */
#include <getopt.h>
#include <stdio.h>

#include "client.h"
#include "cmd.h"
#include "frame.h"

static int status_exec(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"coordinator", required_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *reply;
	Iocurve__StatusRequest req = IOCURVE__STATUS_REQUEST__INIT;
	const char *given = NULL;
	char buf[256];
	struct error err;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		if (c == 'C') {
			given = optarg;
		} else {
			fprintf(c == 'h' ? stdout : stderr, "usage: iocurve status %s\n",
			        cmd_status_entry.usage);
			return c == 'h' ? 0 : 2;
		}
	}
	env.body_case = IOCURVE__ENVELOPE__BODY_STATUS_REQUEST;
	env.status_request = &req;
	if (client_request(client_socket(given, buf, sizeof(buf)), &env, &reply, &err) < 0) {
		fprintf(stderr, "iocurve status: %s\n", err.msg);
		return 1;
	}
	if (reply->body_case != IOCURVE__ENVELOPE__BODY_STATUS_REPLY) {
		fprintf(stderr, "iocurve status: unexpected reply\n");
		frame_free(reply);
		return 1;
	}
	printf("%-4s %-24s %-10s %-32s %-21s %s\n", "ID", "CAMPAIGN", "STATE", "PROGRESS",
	       "STARTED", "RESULTS");
	for (size_t i = 0; i < reply->status_reply->n_campaigns; i++) {
		const Iocurve__CampaignStatus *s = reply->status_reply->campaigns[i];

		printf("%-4u %-24s %-10s %-32s %-21s %s\n", s->id, s->name, s->state, s->progress,
		       s->started[0] ? s->started : "-", s->results[0] ? s->results : "-");
	}
	if (reply->status_reply->n_campaigns == 0)
		printf("(no campaigns yet)\n");
	frame_free(reply);
	return 0;
}

const struct cmd_entry cmd_status_entry = {
    .name = "status",
    .usage = "[--coordinator SOCKET]",
    .help = "list the daemon's campaigns: id, name, state, progress, started, results",
    .exec = status_exec,
};
