/* SPDX-License-Identifier: MIT */
/* Local agents for `iocurve run` with agents: {local: N}: real iocurve-agent processes. */
#ifndef IOCURVE_LOCAL_H
#define IOCURVE_LOCAL_H

#include "error.h"

struct local_agents;

/*
 * Issue a certificate for local-0..local-N-1 in certs_dir (which holds the
 * throw-away CA) and start the iocurve-agent binary for each, dialling
 * coordinator and allowed only allow_path. Each agent's log goes to
 * LOG_DIR/agent-NAME.log. An agent dies with this process (PDEATHSIG), even when
 * nothing of it can run (SIGKILL, out of memory).
 */
struct local_agents *local_spawn(const char *certs_dir, const char *coordinator,
                                 const char *allow_path, const char *log_dir, unsigned n,
                                 struct error *err);
/*
 * Reap local agents that exited on their own. Returns 1 and describes the first
 * ("local agent local-1 exited with status 2; its log: DIR/agent-local-1.log").
 */
int local_reap(struct local_agents *la, char *msg, size_t len);
/* SIGTERM every agent, wait for it (SIGKILL after a grace period). */
void local_stop(struct local_agents *la);
/*
 * Make the run's private certificate directory, /tmp/iocurve-run.PID.XXXXXX, into
 * buf (len >= 64), after removing those of runs whose PID is gone. It is removed by
 * local_certs_remove, at exit, and on a fatal signal (abort, segfault...).
 */
int local_certs_dir(char *buf, size_t len, struct error *err);
void local_certs_remove(void);
/* The agent binary: $IOCURVE_AGENT, else next to this program, else in the build tree. */
int local_agent_binary(char *buf, size_t len);

#endif
