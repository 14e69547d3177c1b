/*
 * utf8 — text checks: control characters, validity (RFC 3629), sanitizing,
 * counting characters.
 */
#ifndef STORBENCH_UTF8_H
#define STORBENCH_UTF8_H

#include <stddef.h>

/* Any control character in UTF-8 text: C0, DEL, or C1 (U+0080–U+009F,
 * which terminals obey too)? */
int utf8_has_control(const char *s);

/* Is s valid UTF-8 (RFC 3629: no overlong forms, no surrogates)? */
int utf8_valid(const char *s);

/* Replaces every byte of s that does not belong to a valid UTF-8 sequence
 * with '?', in place: text from a file or a request, made fit for JSON
 * (which holds only UTF-8) without refusing it. */
void utf8_sanitize(char *s);

/* Characters (not bytes) in s, which must be valid UTF-8. */
size_t utf8_chars(const char *s);

#endif
