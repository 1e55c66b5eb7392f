/* SPDX-License-Identifier: MIT */
/* The CLI's side of the control socket: one request and its reply, or a live watch. */
#ifndef IOCURVE_CLIENT_H
#define IOCURVE_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "iocurve.pb-c.h"

/* The option of every verb that talks to the daemon, for its table of options. */
#define CLIENT_OPTION_COORDINATOR                                                                  \
	{                                                                                          \
		"coordinator", 'C', "SOCKET",                                                      \
		    "the daemon's control socket (default: its usual path)", false,                \
		    "IOCURVE_COORDINATOR"                                                          \
	}
/*
 * One request to the daemon and its reply, which must be of body case want, each
 * within CONTROL_TIMEOUT_SECONDS.
 * Errors are printed as "iocurve VERB: ..."; returns 0, or 1 on any error.
 */
int client_call(const char *verb, const char *sock, const Iocurve__Envelope *req, int want,
                Iocurve__Envelope **reply);
/*
 * A request answered by a ControlReply (cancel, resume): its message is printed,
 * on stdout when ok, else on stderr as "iocurve VERB: ...". Returns 0 when ok, else 1.
 */
int client_control(const char *verb, const char *sock, const Iocurve__Envelope *req);
/* --coordinator PATH, or the default socket path. */
const char *client_socket(const char *given, char *buf, unsigned long len);
/*
 * Send req to the daemon at path and wait for one reply (free with frame_free), at most
 * timeout_s seconds to connect and as long again for the reply (0: no limit). -1 with
 * err: nobody listens, the daemon did not answer in time, req is over the frame limit,
 * the request could not be sent, or the daemon hung up without a reply.
 */
int client_request(const char *path, const Iocurve__Envelope *req, unsigned timeout_s,
                   Iocurve__Envelope **reply, struct error *err);
#endif
