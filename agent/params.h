/* SPDX-License-Identifier: MIT */
/* The coordinator's Prepare as the worker pool's parameters: the one place it is read. */
#ifndef IOCURVE_PARAMS_H
#define IOCURVE_PARAMS_H

#include "iocurve.pb-c.h"
#include "pool.h"

/*
 * Check p and fill pp (and *sim when p carries a simulated device; pp->sim then points
 * at it). pp->dir and pp->device are left for the target check. file_prefix names the
 * worker files (the agent's name). Returns 0, or -1 with err naming what is invalid.
 */
int params_from_prepare(const Iocurve__Prepare *p, const char *file_prefix, struct pool_params *pp,
                        struct engine_sim_params *sim, struct error *err);

#endif
