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

/*
 * A throw-away CA's certificates held in memory only, for `iocurve run`'s local
 * agents: each PEM file a sealed memfd (close-on-exec, no name on disk), read as
 * /proc/self/fd/N. Nothing outlives the processes that hold the descriptors,
 * and no other user can open them. The CA key exists only inside certs_mem_new.
 */
struct certs_mem {
	int ca_crt;                 /* ca.crt */
	int co_crt, co_key;         /* the coordinator's certificate and key */
	int *agent_crt, *agent_key; /* PREFIX0..PREFIX(n-1)'s */
	unsigned n;
};
/* The CA, the coordinator's pair and n agents' pairs named PREFIX0.. (clientAuth only). */
int certs_mem_new(struct certs_mem *m, unsigned n, const char *prefix, struct error *err);
/* Close agent i's descriptors (its process has its own copies). */
void certs_mem_drop_agent(struct certs_mem *m, unsigned i);
void certs_mem_free(struct certs_mem *m);

#endif
