/* SPDX-License-Identifier: MIT */
/* Text from the wire made safe for a terminal or a log: control characters escaped. */
#ifndef IOCURVE_TEXT_H
#define IOCURVE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Copy in to out (len bytes, always terminated; a long text is cut) with
 * every control character written as \xNN: C0 (below 0x20), DEL and the C1
 * controls (U+0080..U+009F, as UTF-8 or as raw bytes), so no escape sequence
 * reaches a terminal, and every byte that is not part of valid UTF-8, so the
 * result is UTF-8 that JSON can hold (a character is never cut in half).
 * multiline keeps newline and tab. Returns out.
 */
char *text_clean(const char *in, char *out, size_t len, bool multiline);

/* Letters, digits, '.', '_' and '-': what a name that becomes a file name may hold. */
bool text_name_ok(const char *s);
/*
 * What makes an absolute path not plain, in words (a control character, an empty part
 * '//', a '.' or '..' part, longer than a path can be), or NULL when it is plain.
 */
const char *text_path_unplain(const char *path);

/*
 * text to f in lines of at most width characters (bytes), broken at spaces, each line
 * after the first led by indent (counted in the width); a line of text stays a line, and
 * a word longer than a line is cut where the line ends. Ends with a newline.
 */
void text_wrap(FILE *f, const char *text, size_t width, const char *indent);

/*
 * text to f line by line: a line wider than width wrapped as text_wrap does, its
 * continuation led by two spaces; a table row (led by '|') kept whole, as its columns
 * are its own. Ends as text ends.
 */
void text_wrap_lines(FILE *f, const char *text, size_t width);

#endif
