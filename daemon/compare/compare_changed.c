/*
 * compare_changed — what changed between the sides: for each field of the
 * run documents that says what a run ran on or under (OS and kernel, the
 * back-end and its version, the filesystem and its options, the device and
 * its firmware, the write cache and the I/O scheduler, the CPU and memory,
 * the SMB session, steady state, direct I/O, the job's spec), each side's
 * value, listed only where the sides differ. One table of descriptors
 * (fields[]) drives it: a new field is one line. Reads each run's facts
 * (archive_run_facts), never its results; calls nothing of compare.c.
 */
#include "compare.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"

/* How a run's value is shown. */
enum changed_how {
	AS_STATED, /* a string or number as the run states it */
	ON_OFF,	   /* a boolean: "on", "off" */
	DIRECT,	   /* a boolean: "direct", "buffered" */
	STEADY,	   /* the tests' steady states: "reached", "not reached on
		      RND4K Q32T1 write", none when no test had one */
};

static const struct {
	const char *field; /* the dotted path in the run document */
	const char *alt;   /* where an imported run states it, or NULL */
	const char *label;
	enum changed_how how;
} fields[] = {
	{ "probe.os", NULL, "OS", AS_STATED },
	{ "probe.kernel", NULL, "kernel", AS_STATED },
	{ "engine.version", NULL, "version", AS_STATED },
	{ "engine.target", NULL, "back-end", AS_STATED },
	{ "probe.fs_type", NULL, "file system", AS_STATED },
	{ "probe.mount_options", NULL, "mount options", AS_STATED },
	{ "probe.fs_features", NULL, "file-system features", AS_STATED },
	{ "probe.fs_block_size", NULL, "cluster size (B)", AS_STATED },
	{ "probe.device_model", NULL, "device model", AS_STATED },
	{ "probe.firmware_rev", NULL, "firmware", AS_STATED },
	{ "probe.write_cache", NULL, "write cache", AS_STATED },
	{ "probe.scheduler", NULL, "I/O scheduler", AS_STATED },
	{ "probe.cpu_model", NULL, "CPU", AS_STATED },
	{ "probe.cpus", NULL, "CPUs", AS_STATED },
	{ "probe.memory_bytes", NULL, "memory (B)", AS_STATED },
	{ "probe.smb.dialect", NULL, "SMB dialect", AS_STATED },
	{ "probe.smb.signing", NULL, "SMB signing", ON_OFF },
	{ "probe.smb.encryption", NULL, "SMB encryption", ON_OFF },
	{ "tests.steady_state.reached", NULL, "steady state", STEADY },
	{ "engine.direct", NULL, "direct I/O", DIRECT },
	{ "profile", NULL, "profile", AS_STATED },
	{ "spec.size", "spec.imported.test_size", "test file size (B)",
	  AS_STATED },
	{ "spec.iterations", NULL, "iterations", AS_STATED },
	{ "spec.duration_s", NULL, "duration per test (s)", AS_STATED },
};
#define N_FIELDS (sizeof(fields) / sizeof(fields[0]))

/* The member of o at the dotted path, or NULL. */
static json_t *at_path(json_t *o, const char *path)
{
	char key[64];

	while (o && path && *path) {
		const char *dot = strchr(path, '.');
		size_t len = dot ? (size_t)(dot - path) : strlen(path);
		if (len >= sizeof(key))
			return NULL;
		memcpy(key, path, len);
		key[len] = '\0';
		o = json_object_get(o, key);
		path = dot ? dot + 1 : NULL;
	}
	return o;
}

/* "not reached on RND4K Q32T1 write, …" or "reached" from the run's
 * steady states; NULL when no test had one. A new reference. */
static json_t *steady_of(json_t *steady)
{
	char text[512];
	size_t k = 0, i;
	json_t *t;
	int missed = 0;

	if (!json_array_size(steady))
		return NULL;
	json_array_foreach(steady, i, t)
	{
		if (json_is_true(json_object_get(t, "reached")))
			continue;
		if (k < sizeof(text))
			k += (size_t)snprintf(
				text + k, sizeof(text) - k, "%s%s %s",
				missed ? ", " : "not reached on ",
				json_string_value(json_object_get(t, "test"))
					?: "?",
				json_string_value(json_object_get(t, "rw"))
					?: "?");
		missed = 1;
	}
	return json_string(missed ? text : "reached");
}

/* Field f of run (its facts) as shown, or NULL when the run does not state
 * it. A new reference. */
static json_t *value_of(json_t *run, size_t f)
{
	json_t *v;

	if (fields[f].how == STEADY)
		return steady_of(json_object_get(run, "steady"));
	v = at_path(run, fields[f].field);
	if ((!v || json_is_null(v)) && fields[f].alt)
		v = at_path(run, fields[f].alt);
	if (!v || json_is_null(v))
		return NULL;
	if (json_is_boolean(v) && fields[f].how == ON_OFF)
		return json_string(json_is_true(v) ? "on" : "off");
	if (json_is_boolean(v) && fields[f].how == DIRECT)
		return json_string(json_is_true(v) ? "direct" : "buffered");
	if (json_is_boolean(v))
		return json_string(json_is_true(v) ? "yes" : "no");
	if (json_is_string(v) && !json_string_length(v))
		return NULL;
	return json_is_string(v) || json_is_number(v) ? json_incref(v) : NULL;
}

/* v as text into buf at *k (a number as JSON writes it). */
static void append_text(json_t *v, char *buf, size_t len, size_t *k)
{
	char *num = NULL;

	if (*k >= len)
		return;
	if (json_is_string(v))
		*k += (size_t)snprintf(buf + *k, len - *k, "%s",
				       json_string_value(v));
	else if ((num = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT)))
		*k += (size_t)snprintf(buf + *k, len - *k, "%s", num);
	free(num);
}

/* qsort's order of two values: numbers by value before text, text by
 * bytes. */
static int by_value(const void *pa, const void *pb)
{
	json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;

	if (json_is_number(a) && json_is_number(b))
		return (json_number_value(a) > json_number_value(b)) -
		       (json_number_value(a) < json_number_value(b));
	if (json_is_number(a) != json_is_number(b))
		return json_is_number(a) ? -1 : 1;
	return strcmp(json_string_value(a) ?: "", json_string_value(b) ?: "");
}

/* Side's value of field f over its runs' facts (an array): the one value
 * its runs state, their distinct values sorted (by_value) and joined with
 * ", " — so two sides holding the same values are the same, whatever
 * order their runs came in — or null. A new reference. */
static json_t *side_value(json_t *facts, size_t f)
{
	json_t *seen = json_array(), *run, *v, *out;
	size_t i, j;

	json_array_foreach(facts, i, run)
	{
		json_t *x = value_of(run, f), *y;
		int dup = 0;
		if (!x)
			continue;
		json_array_foreach(seen, j, y) dup |= json_equal(x, y);
		if (dup)
			json_decref(x);
		else
			json_array_append_new(seen, x);
	}
	if (json_array_size(seen) <= 1) {
		out = json_array_size(seen)
			      ? json_incref(json_array_get(seen, 0))
			      : json_null();
	} else {
		char text[1024];
		size_t k = 0, m = json_array_size(seen);
		json_t **sorted = malloc(m * sizeof(*sorted));
		if (!sorted) {
			json_decref(seen);
			return json_null();
		}
		json_array_foreach(seen, j, v) sorted[j] = v;
		qsort(sorted, m, sizeof(*sorted), by_value);
		for (j = 0; j < m; j++) {
			if (j && k < sizeof(text))
				k += (size_t)snprintf(text + k,
						      sizeof(text) - k, ", ");
			append_text(sorted[j], text, sizeof(text), &k);
		}
		free(sorted);
		out = json_string(text);
	}
	json_decref(seen);
	return out;
}

int compare_changed(struct archive *a, const struct compare_side *sides,
		    size_t n, json_t **out)
{
	json_t *facts = json_array(), *changed = json_array();
	int rc = 0;

	*out = NULL;
	if (!facts || !changed) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t s = 0; s < n && rc == 0; s++) {
		json_t *runs = json_array();
		json_array_append_new(facts, runs);
		for (size_t r = 0; r < sides[s].n && rc == 0; r++) {
			json_t *run = NULL;
			if ((rc = archive_run_facts(a, sides[s].runs[r],
						    &run)) == 0)
				json_array_append_new(runs, run);
		}
	}
	if (rc < 0)
		goto out;
	for (size_t f = 0; f < N_FIELDS; f++) {
		json_t *values = json_array();
		int differ = 0;
		for (size_t s = 0; s < n; s++) {
			json_t *v = side_value(json_array_get(facts, s), f);
			differ |=
				s && !json_equal(v, json_array_get(values, 0));
			json_array_append_new(values, v);
		}
		if (!differ) {
			json_decref(values);
			continue;
		}
		json_array_append_new(
			changed,
			json_pack("{s:s, s:s, s:o}", "field", fields[f].field,
				  "label", fields[f].label, "values", values));
	}
	*out = changed;
	changed = NULL;
out:
	json_decref(facts);
	json_decref(changed);
	return rc;
}
