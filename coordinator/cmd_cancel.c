/* SPDX-License-Identifier: MIT */
/* iocurve cancel ID: stop a campaign's I/O on every agent; finished steps stay in its results. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "client.h"
#include "cmd.h"
#include "frame.h"

static int cancel_exec(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"coordinator", required_argument, NULL, 'C'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *reply;
	Iocurve__Cancel req = IOCURVE__CANCEL__INIT;
	const char *given = NULL;
	char buf[256], *end;
	struct error err;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "C:h", opts, NULL)) != -1) {
		if (c == 'C') {
			given = optarg;
		} else {
			fprintf(c == 'h' ? stdout : stderr, "usage: iocurve cancel %s\n",
			        cmd_cancel_entry.usage);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind + 1 != argc || (req.id = (uint32_t)strtoul(argv[optind], &end, 10)) == 0 ||
	    *end != '\0') {
		fprintf(stderr, "usage: iocurve cancel %s\n", cmd_cancel_entry.usage);
		return 2;
	}
	env.body_case = IOCURVE__ENVELOPE__BODY_CANCEL;
	env.cancel = &req;
	if (client_request(client_socket(given, buf, sizeof(buf)), &env, &reply, &err) < 0) {
		fprintf(stderr, "iocurve cancel: %s\n", err.msg);
		return 1;
	}
	rc = reply->body_case == IOCURVE__ENVELOPE__BODY_CONTROL_REPLY && reply->control_reply->ok
	         ? 0
	         : 1;
	if (reply->body_case == IOCURVE__ENVELOPE__BODY_CONTROL_REPLY)
		fprintf(rc ? stderr : stdout, "%s%s\n", rc ? "iocurve cancel: " : "",
		        reply->control_reply->message);
	frame_free(reply);
	return rc;
}

const struct cmd_entry cmd_cancel_entry = {
    .name = "cancel",
    .usage = "ID [--coordinator SOCKET]",
    .help = "cancel a campaign: I/O stops on every agent; finished steps stay in its results",
    .exec = cancel_exec,
};
