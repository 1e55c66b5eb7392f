/* SPDX-License-Identifier: MIT */
/* iocurve watch [ID]: follow a campaign live (dashboard on a terminal, lines otherwise). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "client.h"
#include "cmd.h"

static int watch_exec(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"coordinator", required_argument, NULL, 'C'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *given = NULL;
	char buf[256], *end;
	struct error err;
	uint32_t id = 0;
	int c, json = 0, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "C:jh", opts, NULL)) != -1) {
		if (c == 'C') {
			given = optarg;
		} else if (c == 'j') {
			json = 1;
		} else {
			fprintf(c == 'h' ? stdout : stderr, "usage: iocurve watch %s\n",
			        cmd_watch_entry.usage);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind < argc) {
		id = (uint32_t)strtoul(argv[optind], &end, 10);
		if (*end != '\0' || optind + 1 != argc) {
			fprintf(stderr, "usage: iocurve watch %s\n", cmd_watch_entry.usage);
			return 2;
		}
	}
	rc = client_watch(client_socket(given, buf, sizeof(buf)), id, json, &err);
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
