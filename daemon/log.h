/*
 * log — one line per event on stderr: UTC time, level, message. Thread-safe
 * (one fprintf per line). Never given a password or a request body.
 */
#ifndef STORBENCH_LOG_H
#define STORBENCH_LOG_H

void log_msg(const char *level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_info(...) log_msg("info", __VA_ARGS__)
#define log_warn(...) log_msg("warn", __VA_ARGS__)
#define log_error(...) log_msg("error", __VA_ARGS__)

/* The current UTC time as ISO 8601 ("2026-11-30T06:50:00Z") into buf[32]. */
void log_utc_now(char buf[32]);

#endif
