/*
 * log — see log.h. One event is one line: control characters in a message
 * (a directory name may hold a newline) are escaped, so nothing a user
 * names can forge a second log line.
 */
#include "log.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void log_utc_now(char buf[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static enum log_format format = LOG_TEXT;
static int quiet;
static FILE *sink; /* NULL: stderr */

void log_to(FILE *f)
{
	sink = f;
}

void log_setup(enum log_format f, int q)
{
	format = f;
	quiet = q;
}

/* text into out, control characters as \xNN (JSON: \u00NN, and " \
 * escaped). */
static void put_escaped(FILE *out, const char *text, int json)
{
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			fprintf(out, json ? "\\u%04x" : "\\x%02x", *c);
		else if (json && (*c == '"' || *c == '\\'))
			fprintf(out, "\\%c", *c);
		else
			putc_unlocked(*c, out);
	}
}

void log_msg(const char *level, const char *fmt, ...)
{
	char now[32], line[1024], what[8];
	const char *msg = line;
	FILE *out = sink ? sink : stderr;
	long long id = 0;
	int skip = 0;
	va_list ap;

	if (quiet && strcmp(level, "info") == 0)
		return;
	log_utc_now(now);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* a path that is not UTF-8, or a cut through a character: '?' */
	utf8_sanitize(line);
	flockfile(out);
	if (format == LOG_JSON) {
		/* "job 3: …" / "run 3: …": the id becomes a field */
		if (sscanf(line, "%3[a-z] %lld: %n", what, &id, &skip) == 2 &&
		    skip > 0 &&
		    (strcmp(what, "job") == 0 || strcmp(what, "run") == 0))
			msg = line + skip;
		fprintf(out, "{\"time\":\"%s\",\"level\":\"%s\",", now, level);
		if (msg != line)
			fprintf(out, "\"%s\":%lld,", what, id);
		fputs("\"msg\":\"", out);
		put_escaped(out, msg, 1);
		fputs("\"}\n", out);
	} else {
		fprintf(out, "%s storbench %s: ", now, level);
		put_escaped(out, line, 0);
		putc_unlocked('\n', out);
	}
	fflush(out); /* (a file's buffer: the line whole, now) */
	funlockfile(out);
}
