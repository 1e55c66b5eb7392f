/* SPDX-License-Identifier: MIT */
/* Campaign CA and certificates, made with the OpenSSL API (EC P-256). */
#ifndef IOCURVE_CERTS_H
#define IOCURVE_CERTS_H

#include "error.h"

/*
 * Layout of DIR: ca.crt, ca.key, coordinator.crt, coordinator.key, NAME.crt,
 * NAME.key. Keys are written 0600, certificates 0644, DIR is created 0700 when
 * missing. A copy of DIR without ca.key is what goes to client machines.
 */
#define CERTS_COORDINATOR_NAME "coordinator"

/* Create the CA and the coordinator's certificate; refuses to overwrite a CA. */
int certs_init(const char *dir, struct error *err);
/*
 * Issue NAME.crt/NAME.key signed by DIR/ca.key, CN=NAME, clientAuth only. NAME
 * must be a plain name ([A-Za-z0-9._-], not starting with '.'), since it
 * becomes a file name.
 */
int certs_issue_agent(const char *dir, const char *name, struct error *err);
/* True when NAME is acceptable as an agent name. */
int certs_name_valid(const char *name);

#endif
