/* SPDX-License-Identifier: MIT */
/* User-visible error messages. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

void error_set(struct error *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void error_prefix(struct error *err, const char *fmt, ...)
{
	char head[512], old[sizeof(err->msg)];
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s%s", head, old);
}
