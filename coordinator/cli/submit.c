/* SPDX-License-Identifier: MIT */
/* iocurve run through a daemon: hand it the campaign, then follow it, or return (--detach). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "campaign.h"
#include "client.h"
#include "control.h"
#include "frame.h"
#include "kneegate.h"
#include "submit.h"
#include "watch.h"

/* A socket file left by a daemon that is gone must not stop a plain `iocurve run`. */
bool submit_daemon_answers(const char *sock)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	bool ok;
	int fd;

	if (strlen(sock) >= sizeof(sun.sun_path))
		return false;
	memcpy(sun.sun_path, sock, strlen(sock) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok = fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

/* What --detach prints: the campaign's id, for `iocurve watch ID` or `status ID`. */
static void submit_detached(uint32_t id, const char *sock, bool queued, bool json)
{
	if (json) {
		json_t *o = json_pack("{s:s, s:i, s:s, s:b}", "event", "submitted", "id",
		                      (json_int_t)id, "coordinator", sock, "queued", queued);
		char *line = o != NULL ? json_dumps(o, JSON_COMPACT) : NULL;

		if (line != NULL)
			printf("%s\n", line);
		free(line);
		json_decref(o);
		return;
	}
	printf("%u\n", id);
	fprintf(stderr, "campaign %u submitted to %s%s; follow it with `iocurve watch %u`\n", id,
	        sock, queued ? ", queued behind the running campaign" : "", id);
}

/*
 * Hand the campaign to a daemon, then follow it as `iocurve watch` would, or with
 * detach return at once.
 */
static void submit_on_event(void *arg, const struct event *e)
{
	kneegate_event(arg, e);
}

int submit_and_follow(const char *sock, const char *path, const struct campsource *src,
                      bool no_queue, bool detach, bool json, const char *command,
                      struct kneegate *gate)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *reply;
	Iocurve__Submit sub = IOCURVE__SUBMIT__INIT;
	struct campaign *c;
	struct error err;
	uint32_t id;
	int rc;

	/*
	 * Check and expand here: errors point at the user's file and line, and ${NAME}
	 * is this shell's environment, not the daemon's.
	 */
	if (campaign_load_source(path, src, &c, &err) < 0) {
		fprintf(stderr, "iocurve: %s\n", err.msg);
		return 2;
	}
	sub.plan = c->text;
	sub.name = (char *)path;
	sub.no_wait = no_queue;
	sub.command = (char *)command;
	env.body_case = IOCURVE__ENVELOPE__BODY_SUBMIT;
	env.submit = &sub;
	rc = client_request(sock, &env, CONTROL_TIMEOUT_SECONDS, &reply, &err);
	campaign_free(c);
	if (rc < 0) {
		fprintf(stderr, "iocurve: %s\n", err.msg);
		return 1;
	}
	if (reply->body_case != IOCURVE__ENVELOPE__BODY_SUBMITTED || reply->submitted->id == 0) {
		fprintf(stderr, "iocurve: %s\n",
		        reply->body_case == IOCURVE__ENVELOPE__BODY_SUBMITTED
		            ? reply->submitted->error
		            : "unexpected reply from the daemon");
		frame_free(reply);
		return 1;
	}
	id = reply->submitted->id;
	if (detach) {
		submit_detached(id, sock, reply->submitted->queued, json);
		frame_free(reply);
		return 0;
	}
	/* --json: stdout carries only JSON lines; what a person reads goes to stderr. */
	fprintf(json ? stderr : stdout, "campaign %u submitted to %s%s\n", id, sock,
	        reply->submitted->queued ? ": queued behind the running campaign" : "");
	fflush(stdout);
	frame_free(reply);
	rc = watch_campaign_observed(sock, id, json, gate ? submit_on_event : NULL, gate, &err);
	if (rc < 0) {
		fprintf(stderr, "iocurve: %s\n", err.msg);
		return 1;
	}
	return rc;
}
