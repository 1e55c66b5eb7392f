/* SPDX-License-Identifier: MIT */
/* HOST:PORT parsing and resolution. */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netaddr.h"

int netaddr_parse(const char *text, struct sockaddr_storage *ss, socklen_t *len, struct error *err)
{
	struct addrinfo hints = {0}, *res = NULL;
	char host[256], *end;
	const char *colon, *port;
	long portnum;
	int rc;

	if (text[0] == '[') {
		const char *close = strchr(text, ']');

		if (close == NULL || close[1] != ':') {
			error_set(err, "'%s' is not HOST:PORT (expected [ADDR]:PORT for IPv6)",
			          text);
			return -1;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(close - text - 1), text + 1);
		port = close + 2;
	} else {
		colon = strrchr(text, ':');
		if (colon == NULL || (size_t)(colon - text) >= sizeof(host)) {
			error_set(err, "'%s' is not HOST:PORT", text);
			return -1;
		}
		snprintf(host, sizeof(host), "%.*s", (int)(colon - text), text);
		port = colon + 1;
	}
	portnum = strtol(port, &end, 10);
	if (*port == '\0' || *end != '\0' || portnum < 0 || portnum > 65535) {
		error_set(err, "'%s': port '%s' is not a number 0..65535", text, port);
		return -1;
	}
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (host[0] == '\0' ? AI_PASSIVE : 0);
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (rc != 0) {
		error_set(err, "'%s': cannot resolve '%s': %s", text, host, gai_strerror(rc));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

void netaddr_format(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(buf, len, "%s:%u", host, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(buf, len, "[%s]:%u", host, ntohs(in6->sin6_port));
	} else {
		snprintf(buf, len, "(family %d)", sa->sa_family);
	}
}
