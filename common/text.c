/* SPDX-License-Identifier: MIT */
/* Text from the wire made safe for a terminal or a log: control characters escaped. */
#include <stdbool.h>
#include <stdio.h>

#include "text.h"

/* How many bytes of in[0..] form one control character to escape (0: none). */
static size_t text_control_len(const unsigned char *p, bool multiline)
{
	if (p[0] < 0x20)
		return multiline && (p[0] == '\n' || p[0] == '\t') ? 0 : 1;
	if (p[0] == 0x7f)
		return 1;
	if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) /* C1 in UTF-8 */
		return 2;
	/* A lone C1 byte is not UTF-8: some terminals still obey it (0x9b is CSI). */
	if (p[0] >= 0x80 && p[0] <= 0x9f)
		return 1;
	return 0;
}

char *text_clean(const char *in, char *out, size_t len, bool multiline)
{
	const unsigned char *p = (const unsigned char *)(in ? in : "");
	size_t o = 0;

	if (len == 0)
		return out;
	while (*p) {
		size_t n = text_control_len(p, multiline);

		if (n == 0) {
			if (o + 1 >= len)
				break;
			out[o++] = (char)*p++;
			continue;
		}
		if (o + 4 * n >= len)
			break;
		for (size_t i = 0; i < n; i++)
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", p[i]);
		p += n;
	}
	out[o] = '\0';
	return out;
}

bool text_name_ok(const char *s)
{
	for (; *s != '\0'; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return false;
	}
	return true;
}
