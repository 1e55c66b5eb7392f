/* SPDX-License-Identifier: MIT */
/* What a session of the agent port answers about itself, and its claim by a campaign. */
#include <string.h>

#include "server_priv.h"

struct session *server_first_session(struct server *srv)
{
	return TAILQ_FIRST(&srv->sessions);
}

struct session *session_next(const struct session *s)
{
	return TAILQ_NEXT(s, entry);
}

const char *session_name(const struct session *s)
{
	return s->name;
}

uint64_t session_noise(struct session *s)
{
	uint64_t n = ++s->noise;

	for (uint64_t at = 1; at <= n && at <= UINT64_MAX / 10; at *= 10)
		if (n == at)
			return n;
	return 0;
}

const char *session_host(const struct session *s)
{
	return s->host;
}

const char *session_kernel(const struct session *s)
{
	return s->kernel;
}

const char *session_version(const struct session *s)
{
	return s->version;
}

uint64_t session_caps(const struct session *s)
{
	return s->caps;
}

const char *session_mount_of(const struct session *s, const char *path)
{
	const char *best = "";
	size_t bestlen = 0;

	for (size_t i = 0; path != NULL && i < s->nallowed; i++) {
		size_t n = strlen(s->allowed[i]);

		if (strncmp(s->allowed[i], path, n) == 0 && (path[n] == '\0' || path[n] == '/') &&
		    n >= bestlen) {
			best = s->mounts[i];
			bestlen = n;
		}
	}
	return best;
}

bool session_ready(const struct session *s)
{
	return s->welcomed && s->clock.synced;
}

const struct clocksync *session_clock(const struct session *s)
{
	return &s->clock.model;
}

const struct label *session_labels(const struct session *s, size_t *n)
{
	*n = s->nlabels;
	return s->labels;
}

int session_claim(struct session *s, void *owner)
{
	if (s->owner != NULL && s->owner != owner)
		return -1;
	s->owner = owner;
	return 0;
}

void session_release(struct session *s, const void *owner)
{
	if (s->owner == owner)
		s->owner = NULL;
}

void session_set_slot(struct session *s, uint32_t slot)
{
	s->owner_slot = slot;
}

uint32_t session_slot(const struct session *s)
{
	return s->owner_slot;
}

void *session_owner(const struct session *s)
{
	return s->owner;
}
