/* SPDX-License-Identifier: MIT */
/*
 * The control verbs (verbs.c): the daemon's half of each `iocurve` verb that talks to
 * it, one row of a table each, as the CLI's half is one cli/cmd_NAME.c.
 */
#ifndef IOCURVE_VERBS_H
#define IOCURVE_VERBS_H

#include "conn.h"

/*
 * A control connection's callbacks, their arg the struct daemon: each request
 * dispatched to its verb's row; a request no row takes is refused and the
 * connection closed; a watcher's entry goes with its connection.
 */
extern const struct conn_cbs verbs_control_cbs;

#endif
