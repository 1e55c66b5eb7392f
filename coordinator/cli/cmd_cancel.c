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
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *reply;
	Iocurve__Cancel req = IOCURVE__CANCEL__INIT;
	const char *sock;
	char buf[256], *end;
	int rc;

	if ((rc = client_parse(argc, argv, &cmd_cancel_entry, &sock, buf, sizeof(buf), NULL)) >= 0)
		return rc;
	if (optind + 1 != argc || (req.id = (uint32_t)strtoul(argv[optind], &end, 10)) == 0 ||
	    *end != '\0') {
		fprintf(stderr, "usage: iocurve cancel %s\n", cmd_cancel_entry.usage);
		return 2;
	}
	env.body_case = IOCURVE__ENVELOPE__BODY_CANCEL;
	env.cancel = &req;
	if (client_call("cancel", sock, &env, IOCURVE__ENVELOPE__BODY_CONTROL_REPLY, &reply) != 0)
		return 1;
	rc = reply->control_reply->ok ? 0 : 1;
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
