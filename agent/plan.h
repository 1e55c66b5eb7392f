/* SPDX-License-Identifier: MIT */
/*
 * What the coordinator asks of the agent: Prepare a workload (check the target,
 * lay out, fork the pool of workers), StartStep, EndStep, EndWorkload, Abort; and
 * what goes back: Ready, layout progress, interval reports, StepDone, Error. It
 * knows nothing of the connection: it sends through the function it is given.
 */
#ifndef IOCURVE_PLAN_H
#define IOCURVE_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent.h"
#include "params.h"
#include "iocurve.pb-c.h"

struct plan;

/* What any plan may ask of this agent, from the command line. */
struct plan_opts {
	struct params_caps caps;  /* --max-workers and the others */
	bool allow_device_writes; /* --allow-device-writes: block devices may be written */
	bool allow_nfs_root;      /* --allow-nfs-root: an NFS target's calls may be root's */
};

/* Sends env to the coordinator (or drops it when there is no connection). */
typedef void (*plan_send_fn)(void *arg, const Iocurve__Envelope *env);

/* A plan for agent a (read, not copied: it must outlive the plan); it sends with send(arg). */
struct plan *plan_new(const struct agent *a, const struct plan_opts *opts, plan_send_fn send,
                      void *arg);
/* Stop the workers, if any, and free; NULL is allowed. */
void plan_free(struct plan *pl);
/* A message from the coordinator that drives I/O (Prepare, StartStep...). */
void plan_handle(struct plan *pl, const Iocurve__Envelope *env);
/* Stop the workload's workers, if any, saying why in the log. */
void plan_stop(struct plan *pl, const char *why);
/* The session's dead-man (from Welcome): the next Prepare's workers stop after it. */
void plan_set_deadman(struct plan *pl, uint64_t deadman_ms);
/*
 * The capabilities this agent and the session's coordinator both have (caps.h):
 * read and write apart are reported only with CAPABILITY_KINDS.
 */
void plan_set_caps(struct plan *pl, uint64_t caps);
/* The coordinator was heard at now_ns: the workers' dead-man starts again from there. */
void plan_alive(struct plan *pl, uint64_t now_ns);
/* Whether a workload's workers are running. */
bool plan_running(const struct plan *pl);
/* A child exited (from the agent's SIGCHLD handler). */
void plan_child_exited(struct plan *pl, pid_t pid, int status);

/* The fewest slots a sized workload's worker keeps within its device's request queue. */
#define PLAN_MIN_SLOTS 4

#endif
