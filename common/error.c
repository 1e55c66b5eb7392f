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
	char old[sizeof(err->msg)];
	size_t n;
	va_list ap;

	if (err == NULL)
		return;
	memcpy(old, err->msg, sizeof(old));
	va_start(ap, fmt);
	n = (size_t)vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	/* The old message follows the prefix, cut to what still fits. */
	if (n < sizeof(err->msg))
		memcpy(err->msg + n, old, strnlen(old, sizeof(old) - 1 - n) + 1);
	err->msg[sizeof(err->msg) - 1] = '\0';
}
