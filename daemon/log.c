/*
 * log — see log.h. One event is one line: control characters in a message
 * (a directory name may hold a newline) are written as \xNN, so nothing a
 * user names can forge a second log line.
 */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

void log_utc_now(char buf[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void log_msg(const char *level, const char *fmt, ...)
{
	char now[32], line[1024];
	va_list ap;

	log_utc_now(now);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	flockfile(stderr);
	fprintf(stderr, "%s storbench %s: ", now, level);
	for (const unsigned char *c = (const unsigned char *)line; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			fprintf(stderr, "\\x%02x", *c);
		else
			putc_unlocked(*c, stderr);
	}
	putc_unlocked('\n', stderr);
	funlockfile(stderr);
}
