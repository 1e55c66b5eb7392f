/* SPDX-License-Identifier: MIT */
/* HOST:PORT parsing and resolution for the agent port. */
#ifndef IOCURVE_NETADDR_H
#define IOCURVE_NETADDR_H

#include <sys/socket.h>

#include "error.h"

/* "127.0.0.1:7450", "[::1]:7450", "localhost:7450", ":7450" (all addresses). */
int netaddr_parse(const char *text, struct sockaddr_storage *ss, socklen_t *len, struct error *err);
/* "127.0.0.1:7450" for a bound socket address. */
void netaddr_format(const struct sockaddr *sa, char *buf, size_t len);

#endif
