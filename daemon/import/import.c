/*
 * import — see import.h: what every importer shares: the ranges a tool
 * could have printed and the number reading that checks against them, a
 * file's runs and a run's warnings. It calls no importer (import_parse.c
 * does), so the importers can call it.
 */
#include "import.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What each enum import_field may hold (import.h). */
static const struct {
	const char *name;
	double lo, hi;
} ranges[IMPORT_N_FIELDS] = {
	[IMPORT_MB_S] = { "MB/s", 0, 1e7 },
	[IMPORT_IOPS] = { "IOPS", 0, 1e9 },
	[IMPORT_LAT_US] = { "latency (µs)", 0, 1e10 },
	[IMPORT_SECONDS] = { "test time (s)", 1e-3, 1e7 },
	[IMPORT_BLOCK_SIZE] = { "block size (B)", 1, 4294967296.0 },
	[IMPORT_QD] = { "queue depth", 1, 65536 },
	[IMPORT_THREADS] = { "threads", 1, 65536 },
	[IMPORT_BEST_OF] = { "iterations", 1, 1000 },
	[IMPORT_TEST_SIZE] = { "test size (B)", 0, 1125899906842624.0 },
	[IMPORT_BYTES] = { "bytes", 0, 1e18 },
	[IMPORT_COUNT] = { "count", 0, 1e15 },
	[IMPORT_PERCENT] = { "percentage", 0, 100 },
};

const char *import_field_name(enum import_field f)
{
	return ranges[f].name;
}

int import_in_range(enum import_field f, double v)
{
	/* a latency under a nanosecond no tool prints but as 0 */
	if (f == IMPORT_LAT_US && v > 0 && v < 1e-3)
		return 0;
	return v >= ranges[f].lo && v <= ranges[f].hi; /* false for NaN */
}

int import_number(const char *s, double *v, const char **end)
{
	const char *p = s + strspn(s, " \t");
	const char *q = p + (*p == '-' || *p == '+');
	size_t whole = strspn(q, "0123456789"), frac = 0;
	char *e;

	if (q[whole] == '.')
		frac = strspn(q + whole + 1, "0123456789");
	if (whole + frac == 0)
		return -1; /* no digits: "inf", "nan", ".", "" */
	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
		return -1; /* a hex float */
	*v = strtod(p, &e);
	if (e == p)
		return -1;
	if (end)
		*end = e;
	return 0;
}

int import_ms_us(const char *s, double *us, const char **end)
{
	const char *p = s + strspn(s, " \t"), *e, *x;
	char buf[80];
	long exp = 0;

	if (import_number(s, us, &e) < 0)
		return -1;
	if (end)
		*end = e;
	/* the digits as printed with the exponent 3 higher: strtod rounds
	 * the exact product once ("2.038" is 2038 µs, not 2037.9999…) */
	x = p + strcspn(p, "eE");
	if (x > e)
		x = e;
	if (x < e)
		exp = strtol(x + 1, NULL, 10);
	if (x - p > 64 || exp > 1000 || exp < -1000) {
		*us *= 1e3; /* no tool prints such a number: the range
			       check refuses it */
		return 0;
	}
	snprintf(buf, sizeof(buf), "%.*se%ld", (int)(x - p), p, exp + 3);
	*us = strtod(buf, NULL);
	return 0;
}

/* v as an error shows it: a whole number in full ("99999999999",
 * "4294967296"), else 6 significant digits ("1e-300", "0.5"). */
static void show(char *buf, size_t len, double v)
{
	if (v == floor(v) && fabs(v) < 1e16)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.6g", v);
}

int import_check(enum import_field f, double v, int line, char *err,
		 size_t err_len, int *line_out)
{
	char at[24] = "", val[32], lo[32], hi[32];

	if (import_in_range(f, v))
		return 0;
	if (line > 0)
		snprintf(at, sizeof(at), "line %d: ", line);
	show(val, sizeof(val), v);
	show(lo, sizeof(lo), ranges[f].lo);
	show(hi, sizeof(hi), ranges[f].hi);
	snprintf(err, err_len, "%s%s %s out of range (%s … %s)", at,
		 ranges[f].name, val, lo, hi);
	if (line_out)
		*line_out = line;
	return -EINVAL;
}

int import_num(const char *s, enum import_field f, double *v, const char **end,
	       int line, char *err, size_t err_len, int *line_out)
{
	if (import_number(s, v, end) == 0)
		return import_check(f, *v, line, err, err_len, line_out);
	if (line > 0)
		snprintf(err, err_len, "line %d: %s: not a number", line,
			 ranges[f].name);
	else
		snprintf(err, err_len, "%s: not a number", ranges[f].name);
	if (line_out)
		*line_out = line;
	return -EINVAL;
}

int import_date_ok(const char *s)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30,
				     31, 31, 30, 31, 30, 31 };
	int y, mo, d, h, mi, se, n = 0;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se,
		   &n) != 6 ||
	    n != 19 || (s[n] && strcmp(s + n, "Z") != 0) ||
	    strspn(s, "0123456789") != 4)
		return 0;
	return y >= 1980 && y <= 2200 && mo >= 1 && mo <= 12 && d >= 1 &&
	       d <= mdays[mo - 1] &&
	       (mo != 2 || d < 29 ||
		(y % 4 == 0 && (y % 100 || y % 400 == 0))) &&
	       h >= 0 && h < 24 && mi >= 0 && mi < 60 && se >= 0 && se <= 60;
}

int import_check_run(const struct import_run *r, char *err, size_t err_len)
{
	if (r->date[0] && !import_date_ok(r->date)) {
		snprintf(err, err_len, "date: %s is not a date", r->date);
		return -EINVAL;
	}
	if (import_check(IMPORT_BEST_OF, r->iterations, 0, err, err_len, NULL) <
		    0 ||
	    import_check(IMPORT_TEST_SIZE, (double)r->test_size, 0, err,
			 err_len, NULL) < 0)
		return -EINVAL;
	for (size_t i = 0; i < r->n; i++) {
		const struct import_test *t = &r->t[i];
		const struct {
			enum import_field f;
			double v;
		} c[] = {
			{ IMPORT_MB_S, t->mb_s },
			{ IMPORT_IOPS, t->iops < 0 ? 0 : t->iops },
			{ IMPORT_LAT_US,
			  t->lat_mean_us < 0 ? 0 : t->lat_mean_us },
			/* 0: the file does not say (fio without bs) */
			{ IMPORT_BLOCK_SIZE,
			  t->block_size ? (double)t->block_size : 1 },
			{ IMPORT_QD, t->queue_depth },
			{ IMPORT_THREADS, t->threads },
			/* what the file states beside the rates (0: not) */
			{ IMPORT_BYTES, (double)t->bytes },
			{ IMPORT_COUNT, (double)t->ios },
			{ IMPORT_SECONDS,
			  t->has & IMPORT_HAS_SECONDS ? t->seconds : 1 },
			{ IMPORT_LAT_US, t->lat_min_us },
			{ IMPORT_LAT_US, t->lat_max_us },
			{ IMPORT_LAT_US, t->lat_stdev_us },
		};
		for (size_t k = 0; k < t->n_pct; k++)
			if (!(t->pct[k].level > 0 && t->pct[k].level < 100) ||
			    import_check(IMPORT_LAT_US, t->pct[k].us, t->line,
					 err, err_len, NULL) < 0) {
				snprintf(err, err_len,
					 "latency percentile %g: %g µs is not "
					 "one a tool prints (test %s %s)",
					 t->pct[k].level, t->pct[k].us, t->name,
					 t->rw);
				return -EINVAL;
			}
		for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
			char why[160];
			if (import_check(c[k].f, c[k].v, t->line, why,
					 sizeof(why), NULL) == 0)
				continue;
			snprintf(err, err_len, "%s (test %s %s)", why, t->name,
				 t->rw);
			return -EINVAL;
		}
	}
	return 0;
}

struct import_run *import_runs_add(struct import_runs *s)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1;
		struct import_run *v;
		if (s->n >= IMPORT_MAX_RUNS ||
		    !(v = realloc(s->v, cap * sizeof(*v))))
			return NULL;
		s->v = v;
		s->cap = cap;
	}
	memset(&s->v[s->n], 0, sizeof(s->v[0]));
	return &s->v[s->n++];
}

void import_runs_free(struct import_runs *s)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t k = 0; k < s->v[i].n; k++)
			free(s->v[i].t[k].hist);
	free(s->v);
	*s = (struct import_runs){ 0 };
}

void import_warn(struct import_run *r, const char *fmt, ...)
{
	va_list ap;
	size_t i =
		r->n_warn < IMPORT_MAX_WARN ? r->n_warn++ : IMPORT_MAX_WARN - 1;

	va_start(ap, fmt);
	vsnprintf(r->warn[i], sizeof(r->warn[i]), fmt, ap);
	va_end(ap);
}

int import_no_controls(const char *text, size_t n, const char *tool, char *err,
		       size_t len, int *line)
{
	int at = 1;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\n')
			at++;
		if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') ||
		    c == 0x7F) {
			snprintf(err, len,
				 "line %d: a control character (0x%02X) in the "
				 "text: %s writes none",
				 at, c, tool);
			*line = at;
			return -EINVAL;
		}
	}
	return 0;
}

int import_holds(const char *buf, size_t len, const char *word)
{
	size_t w = strlen(word);

	/* a character every byte (UTF-8), or every other with a NUL after */
	for (size_t step = 1; step <= 2; step++)
		for (size_t i = 0; i + step * w <= len; i++) {
			size_t k = 0;
			while (k < w && buf[i + step * k] == word[k] &&
			       (step == 1 || buf[i + 2 * k + 1] == 0))
				k++;
			if (k == w)
				return 1;
		}
	return 0;
}

int import_pct_add(struct import_test *t, double level, double us)
{
	size_t i = t->n_pct;

	for (size_t k = 0; k < t->n_pct; k++)
		if (t->pct[k].level == level) {
			t->pct[k].us = us;
			return 0;
		}
	if (t->n_pct == IMPORT_MAX_PCT)
		return -ENOSPC;
	for (; i > 0 && t->pct[i - 1].level > level; i--)
		t->pct[i] = t->pct[i - 1];
	t->pct[i] = (struct import_pct){ level, us };
	t->n_pct++;
	return 0;
}
