/* SPDX-License-Identifier: MIT */
/* iocurve run through a daemon (--coordinator, or one on the usual socket). */
#ifndef IOCURVE_SUBMIT_H
#define IOCURVE_SUBMIT_H

#include <stdbool.h>

/* Whether a daemon accepts connections on sock: a socket file left by one that is gone does not. */
bool submit_daemon_answers(const char *sock);
/*
 * Hand the campaign at path (read with src: --set) to the daemon at sock (no_queue: refused while
 * the fleet is busy), then follow it as `iocurve watch` does, or with detach print its id and
 * return. The daemon is handed the effective campaign, nothing left to expand. command is the
 * client's command line, for meta.json; gate (or NULL) is handed every event (run
 * --require-knee). Returns the exit status: the campaign's, 1 when the daemon refused it, 2 when
 * path does not load.
 */
struct campsource;
struct kneegate;
int submit_and_follow(const char *sock, const char *path, const struct campsource *src,
                      bool no_queue, bool detach, bool json, const char *command,
                      struct kneegate *gate);

#endif
