/* SPDX-License-Identifier: MIT */
/* What the verbs share: the usage error, and the one shape of the ID verbs' requests. */
#include <stdio.h>
#include <stdlib.h>

#include "client.h"
#include "cmd.h"
#include "control.h"

int cmd_usage_error(const struct cmd_entry *e, const char *msg)
{
	fprintf(stderr, "iocurve %s: %s\nusage: iocurve ", e->args.name, msg);
	args_synopsis(stderr, &e->args);
	fprintf(stderr, "\n(iocurve %s --help lists the options)\n", e->args.name);
	return 2;
}

int cmd_id_verb(const struct cmd_entry *e, const struct args *a, ProtobufCMessage *req,
                int (*check)(const struct args *a))
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	char buf[256];
	const char *sock = client_socket(args_get(a, "coordinator"), buf, sizeof(buf));
	struct error err;
	uint32_t *idp;
	uint64_t id = 0;
	int rc;

	if (control_request_set(&env, req) < 0 || (idp = control_request_id(&env)) == NULL)
		abort(); /* the verb's message is no request naming a campaign */
	/* The ID leads the operands; a verb that may leave it out ([ID] TEXT) sends 0. */
	if (a->noperands == e->args.max_operands &&
	    args_operand_uint(a, 0, "ID", 1, UINT32_MAX, &id, &err) < 0)
		return cmd_usage_error(e, err.msg);
	if (check != NULL && (rc = check(a)) != 0)
		return rc;
	*idp = (uint32_t)id;
	return client_control(e->args.name, sock, &env);
}
