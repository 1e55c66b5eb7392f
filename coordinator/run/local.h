/* SPDX-License-Identifier: MIT */
/* Local agents for `iocurve run` with agents: {local: N}: real iocurve-agent processes. */
#ifndef IOCURVE_LOCAL_H
#define IOCURVE_LOCAL_H

#include "campaign_def.h"
#include "certs.h"
#include "error.h"

struct local_agents;

/*
 * Start the iocurve-agent binary for local-0..local-N-1, dialling coordinator
 * and allowed only allow[nallow] (one --allow each), each with its certificate, key and ca.crt as
 * inherited descriptors of certs (--tls-fd), which are closed here once the
 * agent has them. Each agent's log goes to LOG_DIR/agent-NAME.log. An agent
 * dies with this process (PDEATHSIG), even when nothing of it can run (SIGKILL,
 * out of memory). caps (agents.caps) become their --max-* options where set;
 * device_writes, their --allow-device-writes (iocurve run --allow-device-writes).
 */
struct local_agents *local_spawn(struct certs_mem *certs, const char *coordinator,
                                 const char *const *allow, size_t nallow, const char *log_dir,
                                 unsigned n, const struct campaign_caps *caps, bool device_writes,
                                 struct error *err);
/*
 * Reap local agents that exited on their own. Returns 1 and describes the first
 * ("local agent local-1 exited with status 2; its log: DIR/agent-local-1.log").
 */
int local_reap(struct local_agents *la, char *msg, size_t len);
/* SIGTERM every agent, wait for it (SIGKILL after a grace period). */
void local_stop(struct local_agents *la);
/*
 * The run's throw-away CA and certificates for local-0..local-N-1, in memory only
 * (certs_mem_new): a kill at any moment leaves no key anywhere. A private
 * directory an earlier version left in /tmp for a run that is gone is removed.
 */
int local_certs_new(struct certs_mem *certs, unsigned n, struct error *err);
/*
 * After a local agent's "workload W: workers 50 is over this agent's cap of 8
 * (--max-workers)": "; for local agents raise it with agents: {local: 2, caps:
 * {workers: 50}}" in buf, or "" when c's agents are not local or msg is not a cap.
 */
void local_cap_hint(const struct campaign *c, const char *msg, char *buf, size_t len);
/* The agent binary: $IOCURVE_AGENT, else next to this program, else in the build tree. */
int local_agent_binary(char *buf, size_t len);

#endif
