/* SPDX-License-Identifier: MIT */
/* iocurve watch [ID]: follow a campaign live (dashboard on a terminal, lines otherwise). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "client.h"
#include "watch.h"
#include "cmd.h"

static int watch_exec(int argc, char **argv)
{
	const char *sock;
	char buf[256], *end;
	struct error err;
	uint32_t id = 0;
	int json = 0, rc;

	if ((rc = client_parse(argc, argv, &cmd_watch_entry, &sock, buf, sizeof(buf), &json)) >= 0)
		return rc;
	if (optind < argc) {
		id = (uint32_t)strtoul(argv[optind], &end, 10);
		if (*end != '\0' || optind + 1 != argc) {
			fprintf(stderr, "usage: iocurve watch %s\n", cmd_watch_entry.usage);
			return 2;
		}
	}
	rc = watch_campaign(sock, id, json, &err);
	if (rc < 0) {
		fprintf(stderr, "iocurve watch: %s\n", err.msg);
		return 1;
	}
	return rc;
}

const struct cmd_entry cmd_watch_entry = {
    .name = "watch",
    .usage = "[ID] [--coordinator SOCKET] [--json]",
    .help = "follow a campaign live: the dashboard (q detaches, c cancels), or event lines",
    .exec = watch_exec,
};
