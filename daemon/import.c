/*
 * import — see import.h: the pieces of an import the API and the command
 * line share (detect, parse, store).
 */
#include "import.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

/* Does buf hold word, as UTF-8 or as UTF-16LE text? */
static int holds(const char *buf, size_t len, const char *word)
{
	size_t w = strlen(word);

	if (memmem(buf, len, word, w))
		return 1;
	for (size_t i = 0; i + 2 * w <= len; i++) {
		size_t k = 0;
		while (k < w && buf[i + 2 * k] == word[k] &&
		       buf[i + 2 * k + 1] == 0)
			k++;
		if (k == w)
			return 1;
	}
	return 0;
}

/* Is buf storbench's own run document: a JSON object with the run's
 * identity, engine and tests? */
static int is_native(const char *buf, size_t len)
{
	size_t i = 0;
	json_t *r, *uuid;
	int yes;

	while (i < len && strchr(" \t\r\n", buf[i]))
		i++;
	if (i == len || buf[i] != '{' || !holds(buf, len, "\"uuid\""))
		return 0;
	r = json_loadb(buf, len, 0, NULL);
	uuid = json_object_get(r, "uuid");
	yes = json_is_string(uuid) &&
	      json_is_object(json_object_get(r, "engine")) &&
	      json_is_array(json_object_get(r, "tests"));
	json_decref(r);
	return yes;
}

const char *import_detect(const char *buf, size_t len)
{
	if (is_native(buf, len))
		return "storbench";
	/* fio first: a fio run may name CrystalDiskMark in a path */
	if (holds(buf, len, "\"fio version\""))
		return "fio";
	if (holds(buf, len, "CrystalDiskMark"))
		return "cdm";
	if (holds(buf, len, "<Results>") || holds(buf, len, "DiskSpd") ||
	    holds(buf, len, "diskspd") ||
	    (holds(buf, len, "Input parameters:") &&
	     holds(buf, len, "Write IO")))
		return "diskspd";
	return NULL;
}

/*
 * The text a parser kept from the file (a comment, an OS line, a path, a
 * job name) becomes JSON in the archive, and JSON holds only UTF-8: a byte
 * that is not (a Latin-1 comment, a name cut in the middle of a character)
 * becomes '?', rather than failing the import or storing a run no answer
 * could carry.
 */
static void text_fit(struct import_run *r)
{
	char *const fields[] = { r->tool,	r->version, r->date,
				 r->os,		r->comment, r->host,
				 r->profile,	r->drive,   r->fs_type,
				 r->write_cache };

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		utf8_sanitize(fields[i]);
	for (size_t i = 0; i < r->n; i++) {
		utf8_sanitize(r->t[i].name);
		utf8_sanitize(r->t[i].rw);
		utf8_sanitize(r->t[i].pattern);
	}
}

/* Is the name and direction of test i taken by a test before it? */
static int name_taken(const struct import_run *r, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (strcmp(r->t[j].name, r->t[i].name) == 0 &&
		    strcmp(r->t[j].rw, r->t[i].rw) == 0)
			return 1;
	return 0;
}

/*
 * A run holds one test per name and direction (a comparison matches tests
 * by them): a repeat gets " #2", " #3" … — fio without group_reporting
 * prints a job entry per process of numjobs, all of one name, and a name
 * cut to its field's size can meet another.
 */
static void names_unique(struct import_run *r)
{
	for (size_t i = 1; i < r->n; i++) {
		char base[sizeof(r->t[i].name)];
		snprintf(base, sizeof(base), "%s", r->t[i].name);
		for (int k = 2; name_taken(r, i); k++) {
			snprintf(r->t[i].name, sizeof(r->t[i].name),
				 "%.80s #%d", base, k);
			utf8_sanitize(r->t[i].name); /* the cut may split a
							character */
		}
	}
}

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

int import_check_run(const struct import_run *r, char *err, size_t err_len)
{
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
		};
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

/* Parses buf as a format that holds one run into a new run of out. */
typedef int (*parse_one_fn)(const char *buf, size_t len, struct import_run *r,
			    char *err, size_t err_len, int *line);

static int parse_one(parse_one_fn fn, const char *buf, size_t len,
		     struct import_runs *out, char *err, size_t err_len,
		     int *line)
{
	struct import_run *r = import_runs_add(out);

	return r ? fn(buf, len, r, err, err_len, line) : -ENOMEM;
}

int import_parse(const char *format, const char *buf, size_t len,
		 struct import_runs *out, char *err, size_t err_len)
{
	int line = 0, rc;

	*out = (struct import_runs){ 0 };
	if (strcmp(format, "fio") == 0)
		rc = parse_one(import_fio, buf, len, out, err, err_len, &line);
	else if (strcmp(format, "cdm") == 0)
		rc = parse_one(import_cdm, buf, len, out, err, err_len, &line);
	else if (strcmp(format, "diskspd") == 0)
		rc = holds(buf, len, "<Results>")
			     ? parse_one(import_diskspd, buf, len, out, err,
					 err_len, &line)
			     : import_diskspd_text(buf, len, out, err, err_len,
						   &line);
	else
		rc = -EOPNOTSUPP;
	for (size_t i = 0; rc == 0 && i < out->n; i++) {
		text_fit(&out->v[i]);
		names_unique(&out->v[i]);
		rc = import_check_run(&out->v[i], err, err_len);
	}
	if (rc < 0)
		import_runs_free(out);
	if (rc != -EOPNOTSUPP)
		return rc;
	snprintf(err, err_len,
		 "%s results cannot be imported by this version "
		 "yet (CrystalDiskMark text, fio JSON and DiskSpd "
		 "XML can)",
		 strcmp(format, "diskspd") == 0 ? "DiskSpd text" : format);
	return -EOPNOTSUPP;
}
