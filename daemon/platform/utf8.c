/*
 * utf8 — text checks for what arrives from requests and files: JSON holds
 * only UTF-8, and control characters in a name would reach terminals and
 * logs.
 */
#include "utf8.h"

#include <stddef.h>

size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

int utf8_has_control(const char *s)
{
	for (const unsigned char *u = (const unsigned char *)s; *u; u++)
		if (*u < 0x20 || *u == 0x7f ||
		    (u[0] == 0xC2 && u[1] >= 0x80 && u[1] <= 0x9F))
			return 1;
	return 0;
}

/* Length of the valid UTF-8 sequence at s (RFC 3629), or 0 if invalid. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F; /* no surrogates */
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

int utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = utf8_seq(p);
		if (n == 0)
			return 0;
		p += n;
	}
	return 1;
}

void utf8_sanitize(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t n = utf8_seq(p);
		if (n == 0) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
}
