/* SPDX-License-Identifier: MIT */
/* meta.json: what a published result must say of its run (date, version, hosts, command). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "runmeta.h"
#include "xalloc.h"
#include "server.h"

static int runmeta_cmp(const void *a, const void *b)
{
	const struct session *x = *(struct session *const *)a, *y = *(struct session *const *)b;

	if (x == NULL || y == NULL)
		return (x == NULL) - (y == NULL);
	return strcmp(session_name(x), session_name(y));
}

char *runmeta_json(const struct campaign *c, struct session *const *agents, size_t nagents,
                   const char *command)
{
	json_t *o = json_object(), *ag = json_array(), *co;
	char started[32], host[256] = "", kernel[160] = "";
	time_t now = time(NULL);
	struct utsname u;
	struct tm tm;
	char *text;

	gmtime_r(&now, &tm);
	strftime(started, sizeof(started), "%Y-%m-%d %H:%M:%SZ", &tm);
	if (gethostname(host, sizeof(host) - 1) < 0)
		host[0] = '\0';
	if (uname(&u) == 0)
		snprintf(kernel, sizeof(kernel), "%s %s", u.sysname, u.release);
	co = json_pack("{s:s,s:s}", "host", host, "kernel", kernel);
	/* By name, as the per-agent tables list them, whatever order they joined in. */
	struct session **sorted = xcalloc(nagents ? nagents : 1, sizeof(*sorted));

	memcpy(sorted, agents, nagents * sizeof(*sorted));
	qsort(sorted, nagents, sizeof(*sorted), runmeta_cmp);
	for (size_t i = 0; i < nagents; i++) {
		const struct session *s = sorted[i];

		const struct campaign_target *t0 = &c->targets[0];
		json_t *a;

		if (s == NULL)
			continue;
		a = json_pack("{s:s,s:s,s:s,s:s,s:s}", "name", session_name(s), "host",
		              session_host(s), "kernel", session_kernel(s), "version",
		              session_version(s), "target",
		              t0->sim.enabled ? "" : session_mount_of(s, t0->path));
		/* targets: each named target's mount on this agent ("" for a sim) */
		if (c->multi_target) {
			json_t *tmounts = json_object();

			for (size_t k = 0; k < c->ntargets; k++)
				json_object_set_new(
				    tmounts, c->targets[k].name,
				    json_string(c->targets[k].sim.enabled
				                    ? ""
				                    : session_mount_of(s, c->targets[k].path)));
			json_object_set_new(a, "targets", tmounts);
		}
		json_array_append_new(ag, a);
	}
	free(sorted);
	json_object_set_new(o, "format", json_integer(RUNMETA_FORMAT));
	json_object_set_new(o, "started", json_string(started));
	json_object_set_new(o, "iocurve", json_string(IOCURVE_VERSION));
	json_object_set_new(o, "command", json_string(command ? command : ""));
	json_object_set_new(o, "coordinator", co);
	json_object_set_new(o, "agents", ag);
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	return text;
}
