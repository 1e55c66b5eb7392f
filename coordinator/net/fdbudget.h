/* SPDX-License-Identifier: MIT */
/*
 * The daemon's descriptors, shared out against RLIMIT_NOFILE: caps on connections
 * nobody has vouched for yet (agents before Hello, /metrics clients, control clients
 * before their first request), and a reserve at the top of the table those never
 * take, so that the control socket, known agents and results files always find one.
 */
#ifndef IOCURVE_FDBUDGET_H
#define IOCURVE_FDBUDGET_H

#include <stdbool.h>
#include <stddef.h>

/* The soft RLIMIT_NOFILE, read once. */
unsigned fdbudget_nofile(void);
/*
 * A listener's cap: wanted, or 1/share of the descriptor limit when that is less
 * (at least 4). The shares of the listeners add up to half the limit.
 */
size_t fdbudget_cap(size_t wanted, unsigned share);
/*
 * fd, just accepted, lies in the reserve (the top quarter of the table): every
 * descriptor below it is taken, so a connection nobody vouched for may not keep it.
 */
bool fdbudget_in_reserve(int fd);
/*
 * Which of n connections nobody vouched for goes to make room for a newcomer from
 * src (NULL: none): the oldest of the source holding the most of them, the
 * newcomer counted with its own (so a source with many loses its own oldest
 * first); ties go to the newcomer's source, then to the oldest. Connections are
 * given oldest first by source(i). Returns the index, or -1 when n is 0.
 */
long fdbudget_victim(size_t n, const char *(*source)(size_t i, void *arg), void *arg,
                     const char *src);

#endif
