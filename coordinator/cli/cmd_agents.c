/* SPDX-License-Identifier: MIT */
/* iocurve agents: the agents the daemon knows, connected or lost. */
#include <stdio.h>

#include "client.h"
#include "cmd.h"
#include "frame.h"

static int agents_exec(const struct args *args)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *reply;
	Iocurve__AgentsRequest req = IOCURVE__AGENTS_REQUEST__INIT;
	char buf[256];
	const char *sock = client_socket(args_get(args, "coordinator"), buf, sizeof(buf));

	env.body_case = IOCURVE__ENVELOPE__BODY_AGENTS_REQUEST;
	env.agents_request = &req;
	if (client_call("agents", sock, &env, IOCURVE__ENVELOPE__BODY_AGENTS_REPLY, &reply) != 0)
		return 1;
	printf("%-16s %-20s %-6s %-8s %9s %10s %9s %10s %7s %10s  %s\n", "NAME", "HOST", "STATE",
	       "VERSION", "RTT(ms)", "OFFSET(ms)", "+-(ms)", "DRIFT(ppm)", "REFUSED", "SEEN(s)",
	       "LABELS");
	for (size_t i = 0; i < reply->agents_reply->n_agents; i++) {
		const Iocurve__AgentStatus *a = reply->agents_reply->agents[i];

		printf("%-16s %-20s %-6s %-8s %9.3f %10.3f %9.3f %10.2f %7u %10.1f  ", a->name,
		       a->host, a->state, a->version, a->rtt_ms, a->offset_ms, a->uncertainty_ms,
		       a->drift_ppm, a->clock_refused, a->last_seen_s);
		for (size_t k = 0; k < a->n_labels; k++)
			printf("%s%s=%s", k ? "," : "", a->labels[k]->key, a->labels[k]->value);
		printf("%s\n", a->n_labels ? "" : "-");
	}
	if (reply->agents_reply->n_agents == 0)
		printf("(no agent has joined yet)\n");
	frame_free(reply);
	return 0;
}

static const struct args_option agents_options[] = {
    CLIENT_OPTION_COORDINATOR,
    {NULL},
};

const struct cmd_entry cmd_agents_entry = {
    .args =
        {.name = "agents",
         .help =
             "list the daemon's agents: name, host, state (idle/busy/lost), version, RTT, clock "
             "offset with its uncertainty and drift, refused clock samples, labels",
         .options = agents_options},
    .exec = agents_exec,
};
