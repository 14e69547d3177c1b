/*
 * log — one line per event on stderr, or the file log_to names.
 * Thread-safe (one locked write per line). Never given a password, a token
 * or a request body.
 *
 * Text (the default): "2026-11-30T06:50:00Z storbench info: job 3: done".
 * JSON (--log-format json, for log shippers): one object per line,
 * {"time": "…Z", "level": "info", "msg": "…"} plus "job" / "run" (integers)
 * when the event is about one ("job 3: …" and "run 3: …" messages carry
 * them, and msg is the rest). Control characters in a message are escaped
 * either way, so no message can forge a second line.
 */
#ifndef STORBENCH_LOG_H
#define STORBENCH_LOG_H

#include <stdio.h>

enum log_format { LOG_TEXT, LOG_JSON };

/* How lines look from now on; quiet drops "info" lines (storbench run on a
 * terminal keeps only warnings and errors). Set before threads start. */
void log_setup(enum log_format format, int quiet);

/* Lines go to f from now on instead of stderr (NULL: stderr again), each
 * flushed whole as it ends: the Windows service's log file, having no
 * console. Set before threads start; f stays open while anything logs. */
void log_to(FILE *f);

void log_msg(const char *level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_info(...) log_msg("info", __VA_ARGS__)
#define log_warn(...) log_msg("warn", __VA_ARGS__)
#define log_error(...) log_msg("error", __VA_ARGS__)

/* The current UTC time as ISO 8601 ("2026-11-30T06:50:00Z") into buf[32]. */
void log_utc_now(char buf[32]);

#endif
