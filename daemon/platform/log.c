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

/* A line being put together: one write of it whole, so that no reader
 * (a test, journald, a file tail) ever sees half a line, and unbuffered
 * stderr takes one write(2), not one per character. */
struct out_line {
	char buf[1024 * 6 + 256]; /* line[1024], each byte at most \u00NN */
	size_t n;
};

static void add(struct out_line *o, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(o->buf + o->n, sizeof(o->buf) - o->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->n = o->n + (size_t)k < sizeof(o->buf) ? o->n + (size_t)k
							 : sizeof(o->buf) - 1;
}

/* text, control characters as \xNN (JSON: \u00NN, and " \ escaped). */
static void add_escaped(struct out_line *o, const char *text, int json)
{
	for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
		if (*c < 0x20 || *c == 0x7f)
			add(o, json ? "\\u%04x" : "\\x%02x", *c);
		else if (json && (*c == '"' || *c == '\\'))
			add(o, "\\%c", *c);
		else if (o->n + 1 < sizeof(o->buf))
			o->buf[o->n++] = (char)*c;
	}
	o->buf[o->n] = '\0';
}

void log_msg(const char *level, const char *fmt, ...)
{
	char now[32], line[1024], what[8];
	const char *msg = line;
	FILE *out = sink ? sink : stderr;
	struct out_line o = { .n = 0 };
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
	if (format == LOG_JSON) {
		/* "job 3: …" / "run 3: …": the id becomes a field */
		if (sscanf(line, "%3[a-z] %lld: %n", what, &id, &skip) == 2 &&
		    skip > 0 &&
		    (strcmp(what, "job") == 0 || strcmp(what, "run") == 0))
			msg = line + skip;
		add(&o, "{\"time\":\"%s\",\"level\":\"%s\",", now, level);
		if (msg != line)
			add(&o, "\"%s\":%lld,", what, id);
		add(&o, "\"msg\":\"");
		add_escaped(&o, msg, 1);
		add(&o, "\"}\n");
	} else {
		add(&o, "%s storbench %s: ", now, level);
		add_escaped(&o, line, 0);
		add(&o, "\n");
	}
	fwrite(o.buf, 1, o.n, out);
	fflush(out); /* (a file's buffer: the line whole, now) */
}
