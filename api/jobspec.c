/*
 * jobspec — validation of a job request (POST /api/v1/jobs). Every rule lives
 * here and every refusal names the field, so the API, the dashboard and the
 * tests agree on what a valid job is. Checks that touch the machine (the
 * target exists, is a directory, is writable, has room) use the real
 * filesystem: a job is refused before it is queued, not after it starts.
 */
#include "api.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "archive.h"
#include "plan.h"
#include "probe.h"
#include "profiles.h"
#include "units.h"

#define MIN_SIZE (8ULL << 20)
#define MAX_SIZE (64ULL << 40)
#define SIZE_ALIGN (1ULL << 20)
#define FREE_RESERVE (256ULL << 20)
#define MAX_LABELS 32
#define MAX_LABEL_CHARS 64
#define MAX_NOTES 4096   /* characters */
#define PSYNC_MAX_WORKERS 4096
#define MIN_DURATION 0.5 /* seconds: below that a window is a handful of I/Os */

static const char *const fields[] = {
	"target", "profile", "size", "iterations", "duration_s",
	"interval_s", "labels", "notes", "tests", "engine", "direct", "data",
	"ramp_s",
};

/* UTF-8 characters in s (Jansson has already checked it is UTF-8). */
static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

static int bad(struct api_problem *p, const char *field, const char *detail)
{
	api_problem_set(p, 400, field, "%s: %s", field, detail);
	return -EINVAL;
}

static int parse_target(json_t *v, const char *scratch, char **out,
			struct api_problem *p)
{
	char real[PATH_MAX];
	const char *t = scratch;
	struct stat st;
	struct statvfs vfs;

	if (v) {
		if (!json_is_string(v))
			return bad(p, "target", "must be a string (a directory path)");
		t = json_string_value(v);
		if (t[0] != '/')
			return bad(p, "target", "must be an absolute path");
	}
	if (!realpath(t, real) || stat(real, &st) != 0) {
		api_problem_set(p, 400, "target", "target: %s: %s", t,
				errno == ENOENT ? "does not exist"
						: strerror(errno));
		return -EINVAL;
	}
	if (!S_ISDIR(st.st_mode)) {
		api_problem_set(p, 400, "target",
				"target: %s is not a directory (storbench "
				"creates its own test file inside a directory)",
				t);
		return -EINVAL;
	}
	if (statvfs(real, &vfs) == 0 && vfs.f_blocks == 0) {
		api_problem_set(p, 400, "target",
				"target: %s is on a filesystem without storage "
				"(proc, sysfs …)",
				t);
		return -EINVAL;
	}
	if (access(real, W_OK | X_OK) != 0) {
		api_problem_set(p, 400, "target", "target: %s is not writable",
				t);
		return -EINVAL;
	}
	*out = strdup(real);
	return *out ? 0 : -ENOMEM;
}

static int parse_size(json_t *v, uint64_t def, uint64_t *out,
		      struct api_problem *p)
{
	char text[64];

	*out = def;
	if (!v)
		return 0;
	if (json_is_integer(v) || json_is_string(v)) {
		int rc = json_to_bytes(v, out);
		if (rc == -ERANGE)
			return bad(p, "size", "too large (at most 64TiB)");
		if (rc < 0 && json_is_integer(v))
			return bad(p, "size", "must be > 0");
		if (rc < 0) {
			api_problem_set(p, 400, "size",
					"size: \"%.40s\" is not a size (use bytes "
					"or a unit: 64MiB, 1GiB)",
					json_string_value(v));
			return -EINVAL;
		}
	} else {
		return bad(p, "size", "must be a string like \"1GiB\" or a number of bytes");
	}
	if (*out == 0)
		return bad(p, "size", "must be > 0");
	if (*out < MIN_SIZE || *out > MAX_SIZE)
		return bad(p, "size", "must be from 8MiB to 64TiB");
	if (*out % SIZE_ALIGN) {
		units_format_size(*out, text, sizeof(text));
		api_problem_set(p, 400, "size",
				"size: %s is not a multiple of 1 MiB (the largest "
				"block size); use MiB or GiB",
				text);
		return -EINVAL;
	}
	return 0;
}

/* A number of seconds in [min, max]. */
static int parse_number(json_t *v, const char *field, double def, double min,
			double max, double *out, struct api_problem *p)
{
	double d;

	*out = def;
	if (!v)
		return 0;
	if (!json_is_number(v))
		return bad(p, field, "must be a number of seconds");
	d = json_number_value(v);
	if (!isfinite(d) || d > max || d < min) {
		api_problem_set(p, 400, field, "%s: must be from %g to %g seconds",
				field, min, max);
		return -EINVAL;
	}
	*out = d;
	return 0;
}

static int parse_labels(json_t *v, char **out, struct api_problem *p)
{
	size_t i;
	json_t *l;

	if (!v) {
		*out = strdup("[]");
		return *out ? 0 : -ENOMEM;
	}
	if (!json_is_array(v))
		return bad(p, "labels", "must be an array of strings");
	if (json_array_size(v) > MAX_LABELS)
		return bad(p, "labels", "at most 32 labels");
	json_array_foreach(v, i, l)
	{
		size_t n;
		if (!json_is_string(l))
			return bad(p, "labels", "every label must be a string");
		const char *t = json_string_value(l);
		n = utf8_chars(t);
		if (n < 1 || n > MAX_LABEL_CHARS)
			return bad(p, "labels", "every label must be 1 … 64 characters");
		if (utf8_has_control(t) || t[0] == ' ' || t[strlen(t) - 1] == ' ')
			return bad(p, "labels", "a label may not hold control "
						 "characters or start or end with a space");
		for (size_t j = 0; j < i; j++)
			if (strcmp(t, json_string_value(json_array_get(v, j))) == 0)
				return bad(p, "labels", "duplicate label");
	}
	*out = json_dumps(v, JSON_COMPACT);
	return *out ? 0 : -ENOMEM;
}

/* engine: a back-end by name; default io_uring, or psync where io_uring
 * cannot be set up. */
static int parse_engine(json_t *v, char **out, struct api_problem *p)
{
	const char *name = tgt_local_default()->name;
	int urc;

	if (v) {
		if (!json_is_string(v) || !tgt_find(json_string_value(v)))
			return bad(p, "engine", "must be \"io_uring\", \"psync\" "
						 "or \"null\" (no I/O: the engine's "
						 "own cost)");
		name = json_string_value(v);
	}
	if (strcmp(name, "io_uring") == 0 && (urc = tgt_uring_probe()) < 0) {
		api_problem_set(p, 400, "engine",
				"engine: io_uring cannot be set up on this "
				"machine (%s); use \"psync\"",
				strerror(-urc));
		return -EINVAL;
	}
	*out = strdup(name);
	return *out ? 0 : -ENOMEM;
}

/*
 * The tests: a custom job's own (`tests`), or the profile's, with the
 * job-wide data pattern and ramp applied; written out in full.
 */
static int parse_plan(json_t *root, const struct profile *prof, int custom,
		      struct job_spec *s, struct api_problem *p)
{
	static const char *const datas[] = {"random", "zeros", "repeat"};
	struct workload def = {.file_size = s->size,
			       .duration_s = s->duration_s};
	json_t *tests = json_object_get(root, "tests");
	json_t *v = json_object_get(root, "data");
	struct plan plan;
	struct plan_error pe;
	json_t *pj;
	int rc;

	if (v) {
		int k;
		for (k = 0; k < 3 && !(json_is_string(v) &&
				       strcmp(json_string_value(v), datas[k]) == 0);
		     k++)
			;
		if (k == 3)
			return bad(p, "data", "must be \"random\" (incompressible, "
					      "never repeated), \"zeros\" or "
					      "\"repeat\" (one 4 KiB block)");
		def.data = (enum wl_data)k;
	}
	if ((rc = parse_number(json_object_get(root, "ramp_s"), "ramp_s", 0, 0,
			       3600, &def.ramp_s, p)) < 0)
		return rc;
	if (custom && !tests)
		return bad(p, "tests", "the custom profile needs a tests array "
				       "(e.g. [{\"pattern\": \"random\", "
				       "\"block_size\": \"4KiB\", \"queue_depth\": 32}])");
	if (!custom && tests)
		return bad(p, "tests", "only the custom profile takes tests; set "
				       "\"profile\": \"custom\"");
	rc = custom ? plan_parse(tests, &def, &plan, &pe)
		    : plan_from_profile(prof, &def, &plan);
	if (rc == -EINVAL) {
		api_problem_set(p, 400, pe.field, "%s", pe.detail);
		return rc;
	}
	if (rc < 0)
		return rc;
	/* psync runs a worker thread per queue slot */
	for (size_t i = 0; strcmp(s->engine, "psync") == 0 && i < plan.n; i++)
		if ((uint64_t)plan.w[i].queue_depth * plan.w[i].threads >
		    PSYNC_MAX_WORKERS) {
			char field[64];
			snprintf(field, sizeof(field), "tests[%zu].queue_depth", i);
			api_problem_set(p, 400, field,
					"%s: engine psync runs one thread per queue "
					"slot; queue_depth × threads is %u, at most "
					"%d",
					field,
					plan.w[i].queue_depth * plan.w[i].threads,
					PSYNC_MAX_WORKERS);
			plan_free(&plan);
			return -EINVAL;
		}
	pj = plan_json(&plan);
	s->plan_json = pj ? json_dumps(pj, JSON_COMPACT) : NULL;
	json_decref(pj);
	plan_free(&plan);
	return s->plan_json ? 0 : -ENOMEM;
}

int jobspec_parse(const char *body, size_t len, const char *scratch,
		  struct job_spec *s, struct api_problem *p)
{
	json_t *root = NULL, *v;
	json_error_t jerr;
	const struct profile *prof;
	const char *key, *name = "cdm-default";
	long long n;
	int64_t free_bytes = 0;
	int custom, rc = -EINVAL;

	memset(s, 0, sizeof(*s));
	if (!body || len == 0) {
		api_problem_set(p, 400, NULL,
				"the body is empty: send a JSON object ({} takes "
				"every default)");
		goto out;
	}
	root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		api_problem_set(p, 400, NULL,
				"malformed JSON at line %d column %d: %s",
				jerr.line, jerr.column, jerr.text);
		goto out;
	}
	if (!json_is_object(root)) {
		api_problem_set(p, 400, NULL, "the body must be a JSON object");
		goto out;
	}
	json_object_foreach(root, key, v)
	{
		size_t i, nf = sizeof(fields) / sizeof(fields[0]);
		for (i = 0; i < nf && strcmp(key, fields[i]) != 0; i++)
			;
		if (i == nf) {
			api_problem_set(p, 400, key,
					"unknown field \"%.64s\" (known: target, "
					"profile, size, iterations, duration_s, "
					"interval_s, labels, notes, tests, engine, "
					"direct, data, ramp_s)",
					key);
			goto out;
		}
	}
	if ((v = json_object_get(root, "profile")) != NULL) {
		if (!json_is_string(v)) {
			rc = bad(p, "profile", "must be a string");
			goto out;
		}
		name = json_string_value(v);
	}
	custom = strcmp(name, "custom") == 0;
	if (!(prof = profile_find(custom ? "cdm-default" : name))) {
		api_problem_set(p, 400, "profile",
				"profile: unknown profile \"%.64s\" (see GET "
				"/api/v1/profiles)",
				name);
		goto out;
	}
	if (!(s->profile = strdup(custom ? "custom" : prof->name))) {
		rc = -ENOMEM;
		goto out;
	}
	if ((rc = parse_target(json_object_get(root, "target"), scratch,
			       &s->target, p)) < 0)
		goto out;
	if ((rc = parse_size(json_object_get(root, "size"), prof->size,
			     &s->size, p)) < 0)
		goto out;
	s->iterations = prof->iterations;
	if ((v = json_object_get(root, "iterations")) != NULL) {
		n = json_is_integer(v) ? json_integer_value(v) : 0;
		if (!json_is_integer(v) || n < 1 || n > 100) {
			rc = bad(p, "iterations", "must be an integer from 1 to 100");
			goto out;
		}
		s->iterations = (int)n;
	}
	if ((rc = parse_number(json_object_get(root, "duration_s"), "duration_s",
			       prof->duration_s, MIN_DURATION, 3600,
			       &s->duration_s, p)) < 0 ||
	    (rc = parse_number(json_object_get(root, "interval_s"), "interval_s",
			       prof->interval_s, 0, 3600, &s->interval_s,
			       p)) < 0)
		goto out;
	if ((rc = parse_labels(json_object_get(root, "labels"),
			       &s->labels_json, p)) < 0)
		goto out;
	v = json_object_get(root, "notes");
	if (v && (!json_is_string(v) ||
		  utf8_chars(json_string_value(v)) > MAX_NOTES)) {
		rc = bad(p, "notes", "must be a string of at most 4096 characters");
		goto out;
	}
	if (!(s->notes = strdup(v ? json_string_value(v) : ""))) {
		rc = -ENOMEM;
		goto out;
	}
	s->direct = 1;
	if ((v = json_object_get(root, "direct")) != NULL) {
		if (!json_is_boolean(v)) {
			rc = bad(p, "direct", "must be true (O_DIRECT, the default) "
					      "or false (buffered I/O)");
			goto out;
		}
		s->direct = json_is_true(v);
	}
	if ((rc = parse_engine(json_object_get(root, "engine"), &s->engine,
			       p)) < 0 ||
	    (rc = parse_plan(root, prof, custom, s, p)) < 0)
		goto out;
	if (probe_free_bytes(s->target, &free_bytes) == 0 &&
	    s->size + FREE_RESERVE > (uint64_t)free_bytes) {
		char need[32], have[32];
		units_format_size(s->size, need, sizeof(need));
		snprintf(have, sizeof(have), "%.1f GiB",
			 (double)free_bytes / (1 << 30));
		api_problem_set(p, 400, "size",
				"size: %s does not fit in %s free on %s (with a "
				"256 MiB reserve)",
				need, have, s->target);
		rc = -EINVAL;
		goto out;
	}
	rc = 0;
out:
	json_decref(root);
	if (rc < 0) {
		if (rc != -EINVAL)
			api_problem_set(p, api_status_from_errno(rc), NULL,
					"%s", strerror(-rc));
		job_spec_clear(s);
	}
	return rc;
}
