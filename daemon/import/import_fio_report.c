/*
 * import_fio_report — which of the JSON documents in a fio output file is
 * the run (import.h: import_fio_last_report). With --status-interval fio
 * prints a whole report every interval and the final one last; each must
 * parse and continue the one before (the same jobs and options, no count
 * lower), and only whitespace may follow the last: a cut-off final report
 * or two runs pasted together are refused with the line where the document
 * starts, never read as an interim report.
 */
#include "import.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

/* The line (from 1) of byte at of buf. */
static int line_of(const char *buf, const char *at)
{
	int n = 1;

	for (const char *p = buf; p < at; p++)
		if (*p == '\n')
			n++;
	return n;
}

/* The job list of report d ("jobs", else "client_stats"), or NULL. */
static json_t *report_jobs(json_t *d)
{
	json_t *j = json_object_get(d, "jobs");

	return json_is_array(j) ? j : json_object_get(d, "client_stats");
}

/* Whether count key of direction dir of job b fell from job a's. */
static int fell(json_t *a, json_t *b, const char *dir, const char *key)
{
	json_t *x = json_object_get(json_object_get(a, dir), key),
	       *y = json_object_get(json_object_get(b, dir), key);

	return json_is_number(x) && json_is_number(y) &&
	       json_number_value(y) < json_number_value(x);
}

/* Whether a[key] and b[key] are equal, or both absent. */
static int same(json_t *a, json_t *b, const char *key)
{
	json_t *x = json_object_get(a, key), *y = json_object_get(b, key);

	return (!x && !y) || json_equal(x, y);
}

/*
 * Whether report b continues report a of one fio run (--status-interval):
 * the same jobs (names and options, in order) and no count lower — a
 * job's runtime, or a direction's total_ios or io_bytes.
 */
static int continues(json_t *a, json_t *b)
{
	static const char *const dirs[] = { "read", "write" };
	json_t *ja = report_jobs(a), *jb = report_jobs(b), *x, *y;
	size_t i;

	if (json_array_size(ja) != json_array_size(jb) ||
	    !same(a, b, "global options") || !same(a, b, "fio version"))
		return 0;
	json_array_foreach(jb, i, y)
	{
		x = json_array_get(ja, i);
		if (!same(x, y, "jobname") || !same(x, y, "job options") ||
		    !same(x, y, "hostname"))
			return 0;
		for (int d = 0; d < 2; d++)
			if (fell(x, y, dirs[d], "runtime") ||
			    fell(x, y, dirs[d], "total_ios") ||
			    fell(x, y, dirs[d], "io_bytes"))
				return 0;
	}
	return 1;
}

/*
 * The last JSON document of buf into *root, and how many came before it
 * (*interim). fio may print warnings before its JSON, and with
 * --status-interval it prints a whole report every interval and the final
 * one last, each a document of its own, each continuing the one before
 * (continues); only whitespace may follow the final one. Duplicate keys
 * (a second "filename") keep the last. 0, or -EINVAL with err and *line
 * (the line where a document that does not parse, or does not continue
 * the run, starts).
 */
int import_fio_last_report(const char *buf, size_t len, json_t **root,
			   int *interim, char *err, size_t err_len, int *line)
{
	const char *at = memchr(buf, '{', len), *end = buf + len;
	json_error_t je;

	*root = NULL;
	*interim = 0;
	if (!at) {
		snprintf(err, err_len, "no JSON object in the file");
		return -EINVAL;
	}
	while (at < end) {
		size_t left = (size_t)(end - at);
		json_t *doc = json_loadb(at, left, JSON_DISABLE_EOF_CHECK, &je);
		if (!doc) {
			*line = line_of(buf, at);
			if (!*root) {
				*line += je.line - 1;
				snprintf(err, err_len, "line %d: not JSON: %s",
					 *line, je.text);
			} else {
				snprintf(err, err_len,
					 "line %d: the fio report that starts "
					 "here is not whole JSON (cut off?): "
					 "%s",
					 *line, je.text);
			}
			goto fail;
		}
		if (*root && !continues(*root, doc)) {
			*line = line_of(buf, at);
			snprintf(err, err_len,
				 "line %d: this fio report does not continue "
				 "the one before (other jobs or options, or "
				 "lower counts): two fio runs in one file?",
				 *line);
			json_decref(doc);
			goto fail;
		}
		if (*root) {
			json_decref(*root);
			++*interim;
		}
		*root = doc;
		/* the flag makes position the bytes the document took */
		at += (size_t)je.position;
		while (at < end && isspace((unsigned char)*at))
			at++;
	}
	return 0;
fail:
	json_decref(*root);
	*root = NULL;
	return -EINVAL;
}
