/* SPDX-License-Identifier: MIT */
/* The CLI's side of the control socket: one request and its reply. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "client.h"
#include "control.h"
#include "frame.h"

const char *client_socket(const char *given, char *buf, unsigned long len)
{
	if (given != NULL)
		return given;
	return control_default_path(buf, len);
}

int client_call(const char *verb, const char *sock, const Iocurve__Envelope *req, int want,
                Iocurve__Envelope **reply)
{
	struct error err;

	if (client_request(sock, req, reply, &err) < 0) {
		fprintf(stderr, "iocurve %s: %s\n", verb, err.msg);
		return 1;
	}
	if ((int)(*reply)->body_case != want) {
		fprintf(stderr, "iocurve %s: %s\n", verb,
		        (*reply)->body_case == IOCURVE__ENVELOPE__BODY_CONTROL_REPLY
		            ? (*reply)->control_reply->message
		            : "unexpected reply from the daemon");
		frame_free(*reply);
		*reply = NULL;
		return 1;
	}
	return 0;
}

int client_request(const char *path, const Iocurve__Envelope *req, Iocurve__Envelope **reply,
                   struct error *err)
{
	struct evbuffer *out = evbuffer_new(), *in = evbuffer_new();
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd = -1, rc = -1;

	*reply = NULL;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		error_set(err, "cannot reach the daemon at %s: %s (is `iocurve serve` running?)",
		          path, strerror(errno));
		goto out;
	}
	frame_write(out, req, FRAME_MAX_DEFAULT);
	while (evbuffer_get_length(out) > 0)
		if (evbuffer_write(out, fd) < 0 && errno != EINTR) {
			error_set(err, "%s: %s", path, strerror(errno));
			goto out;
		}
	for (;;) {
		int n = frame_read(in, FRAME_MAX_DEFAULT + (1u << 20), reply, err);

		if (n > 0) {
			rc = 0;
			break;
		}
		if (n < 0)
			break;
		n = evbuffer_read(in, fd, 65536);
		if (n == 0) {
			error_set(err, "%s: the daemon closed the connection without a reply",
			          path);
			break;
		}
		if (n < 0 && errno != EINTR) {
			error_set(err, "%s: %s", path, strerror(errno));
			break;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	evbuffer_free(out);
	evbuffer_free(in);
	return rc;
}
