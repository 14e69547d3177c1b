/*
 * log — see log.h.
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
	fprintf(stderr, "%s storbench %s: %s\n", now, level, line);
}
