/* SPDX-License-Identifier: MIT */
/* meta.json: what a published result must say of its run (date, version, hosts, command). */
#ifndef IOCURVE_RUNMETA_H
#define IOCURVE_RUNMETA_H

#include <stddef.h>

#include "campaign.h"

struct session;

/*
 * meta.json's layout, its "format" key. A reader takes members by name, a missing
 * one as "" (a file without "format" is of iocurve 0.1.0, format 1), and ignores
 * members it does not know; a member whose meaning changes takes a new name and
 * the format goes up.
 */
#define RUNMETA_FORMAT 1

/*
 * The run's description as JSON text (malloc'd): "format", "started" (UTC), "iocurve"
 * (version), "command" (how it was started, or ""), "coordinator" {host,
 * kernel}, "agents" [{name, host, kernel, version, target}] by name, where target is
 * "SOURCE FSTYPE OPTIONS" of the mount holding the campaign's target (""
 * for a simulated target or an unknown mount).
 */
char *runmeta_json(const struct campaign *c, struct session *const *agents, size_t nagents,
                   const char *command);

#endif
