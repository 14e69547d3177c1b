/*
 * jobspec — validation of a job request (POST /api/v1/jobs, storbench run).
 * The job's fields are a descriptor table (jobspec_fields, fields.h) that
 * also feeds GET /api/v1/profiles and the OpenAPI document; what a preset
 * takes besides them (its options, its tests) is the preset's table and
 * check hook (preset.h), read by jobspec_plan.c. Every refusal names the
 * field. Checks that touch
 * the machine (the target exists, is a directory, is writable, has room)
 * use the real filesystem or share (jobtarget.h): a job is refused before it
 * is queued, not after it starts.
 */
#include "api.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "engine/units.h"
#include "fleet/peers.h"
#include "jobs/jobsession.h"
#include "jobs/jobtarget.h"
#include "os/os.h"
#include "platform/creds.h"
#include "platform/fields.h"
#include "platform/utf8.h"
#include "presets/planrun.h"
#include "presets/preset.h"
#include "targets/target.h"

/* An interleaved job's rounds when iterations is not given: on a noisy
 * 2-vCPU VM (bench/aa: the paired test on real A/A rounds with a known
 * difference applied) 10 rounds of 1 s find a 13 % difference 90 % of the
 * time and 10 % 70 %; 5 rounds 53 % and 38 %. */
#define INTERLEAVE_ROUNDS 10
/* The job's field called name. */
static const struct field *jf(const char *name)
{
	return fields_find(jobspec_fields, jobspec_n_fields, name);
}

/* A refusal into the API's problem. */
static int problem(struct api_problem *p, const struct field_error *e)
{
	api_problem_set(p, e->status ? e->status : 400,
			e->field[0] ? e->field : NULL, "%s", e->detail);
	return -EINVAL;
}

int jobspec_notes(json_t *v, struct api_problem *p)
{
	struct field_error e;

	return field_check(jf("notes"), v, "notes", NULL, &e) < 0
		       ? problem(p, &e)
		       : 0;
}

int jobspec_labels(json_t *v, char **out, struct api_problem *p)
{
	const struct field *f = jf("labels");
	struct field_error e;
	json_t *norm;

	if (v && field_check(f, v, "labels", &norm, &e) < 0) {
		/* every label's refusal is the list's */
		const char *why = strstr(e.detail, ": ");
		snprintf(e.field, sizeof(e.field), "labels");
		if (why && strncmp(e.detail, "labels[", 7) == 0) {
			char d[sizeof(e.detail)];
			snprintf(d, sizeof(d), "labels: a label %s", why + 2);
			snprintf(e.detail, sizeof(e.detail), "%s", d);
		}
		return problem(p, &e);
	}
	*out = v ? json_dumps(norm, JSON_COMPACT) : strdup("[]");
	if (v)
		json_decref(norm);
	return *out ? 0 : -ENOMEM;
}

/* engine: a back-end by name, usable here; an smb:// target has its own. */
static int parse_engine(json_t *v, const struct tgt_ops *remote, char **out,
			struct field_error *e)
{
	const struct tgt_ops *o = tgt_local_default(NULL, 0);
	json_t *n = NULL;
	int rc;

	if (remote) {
		if (v)
			return field_fail(e, "engine",
					  "an smb:// target runs on the %s "
					  "back-end; leave engine out",
					  remote->name);
		*out = strdup(remote->name);
		return *out ? 0 : -ENOMEM;
	}
	if (v) {
		if ((rc = field_check(jf("engine"), v, "engine", &n, e)) < 0)
			return rc;
		o = tgt_find(json_string_value(n));
		if (!o) {
			char here[96] = "";
			for (size_t i = 0; tgt_backends[i]; i++)
				if (tgt_backends[i]->caps & TGT_CAP_BY_NAME)
					snprintf(here + strlen(here),
						 sizeof(here) - strlen(here),
						 "%s%s", here[0] ? ", " : "",
						 tgt_backends[i]->name);
			field_fail(e, "engine",
				   "%s is a back-end of storbench on another "
				   "system (io_uring: Linux, iocp: Windows); "
				   "this one has %s",
				   json_string_value(n), here);
			json_decref(n);
			return -EINVAL;
		}
		json_decref(n);
	}
	if (!o)
		return field_fail(e, "engine", "no back-end can run here");
	if ((rc = tgt_usable(o)) < 0) {
		const struct tgt_ops *d = tgt_local_default(NULL, 0);
		return field_fail(e, "engine",
				  "%s cannot be set up on this machine (%s); "
				  "use \"%s\"",
				  o->name, strerror(-rc),
				  d ? d->name : "psync");
	}
	*out = strdup(o->name);
	return *out ? 0 : -ENOMEM;
}

/* Does a test of the stored plan (plan_json's text, NULL: none) have a
 * precondition or a steady state? plan_json writes these members only when
 * a test has them. */
static int plan_has_rounds(const char *text)
{
	json_t *tests = text ? json_loads(text, 0, NULL) : NULL, *t;
	size_t i;
	int has = 0;

	json_array_foreach(tests, i, t)
	{
		if (json_object_get(t, "steady_state") ||
		    json_object_get(t, "precondition"))
			has = 1;
	}
	json_decref(tests);
	return has;
}

/* A job-wide number with the preset's default. */
static int number(json_t *root, const char *name, double def, double *out,
		  struct field_error *e)
{
	json_t *v;
	int rc = jobspec_get(root, name, &v, e);

	*out = v ? json_number_value(v) : def;
	json_decref(v);
	return rc;
}

/* compare_with: the other targets of an interleaved job, each checked as
 * target is (and with room for the test file), into s->compare_with_json. */
static int parse_compare_with(json_t *root, const struct preset *pr,
			      const char *scratch, const void *session,
			      uint64_t device_bytes, struct job_spec *s,
			      struct field_error *e)
{
	json_t *list = NULL, *v, *out;
	size_t i;
	int rc;

	if ((rc = jobspec_get(root, "compare_with", &list, e)) < 0 || !list ||
	    json_is_null(list)) {
		json_decref(list);
		return rc;
	}
	out = json_array();
	rc = 0;
	if (!(pr->flags & PRESET_INTERLEAVE)) {
		char names[400];
		jobspec_takers(PRESET_INTERLEAVE, names, sizeof(names));
		rc = field_fail(e, "compare_with",
				"the %s profile does not interleave targets; "
				"%s do",
				pr->name, names);
	} else if (device_bytes) {
		rc = field_fail(e, "compare_with",
				"a raw device target is not interleaved with "
				"others: compare directories or shares");
	} else if (plan_has_rounds(s->plan_json)) {
		rc = field_fail(e, "compare_with",
				"an interleaved job runs each test once per "
				"round: a test with precondition or "
				"steady_state runs alone");
	} else if (!json_object_get(root, "iterations") &&
		   s->iterations < INTERLEAVE_ROUNDS) {
		s->iterations = INTERLEAVE_ROUNDS;
	} else if (s->iterations < 2) {
		rc = field_fail(e, "iterations",
				"an interleaved job's iterations are its "
				"rounds, and its paired test needs at least 2 "
				"(5 or more tell a smaller difference)");
	}
	json_array_append_new(out, json_string(s->target));
	json_array_foreach(list, i, v)
	{
		char field[48], *path = NULL;
		uint64_t dev = 0;
		if (rc < 0)
			break;
		snprintf(field, sizeof(field), "compare_with[%zu]", i);
		if ((rc = jobtarget_check(v, field, scratch, session, 0, &dev,
					  &path, e)) < 0)
			break;
		json_array_append_new(out, json_string(path));
		free(path);
	}
	/* a round holds a test file on every target at once: each volume
	 * needs room for as many as it has targets */
	json_array_foreach(out, i, v)
	{
		char key[600], other[600], field[48], why[300], need[32];
		size_t j, n = 0;
		json_t *w;
		if (rc < 0 || i == 0 ||
		    jobtarget_volume_key(json_string_value(v), key,
					 sizeof(key)) < 0)
			continue;
		json_array_foreach(out, j, w) n +=
			jobtarget_volume_key(json_string_value(w), other,
					     sizeof(other)) == 0 &&
			strcmp(key, other) == 0;
		if (jobtarget_fits(json_string_value(v), session,
				   s->size * (n ? n : 1), why, sizeof(why)))
			continue;
		snprintf(field, sizeof(field), "compare_with[%zu]", i - 1);
		units_format_size(s->size * (n ? n : 1), need, sizeof(need));
		rc = field_fail(e, field,
				"%s does not fit (%zu test files of %s at once "
				"in a round): %s",
				need, n, "the job's size", why);
	}
	json_array_remove(out, 0);
	if (rc == 0 && !(s->compare_with_json = json_dumps(out, JSON_COMPACT)))
		rc = -ENOMEM;
	json_decref(out);
	json_decref(list);
	return rc;
}

/* size, iterations, duration, interval, labels, notes, direct. */
static int parse_job_fields(json_t *root, const struct preset *pr,
			    struct job_spec *s, const void *session,
			    struct api_problem *p, struct field_error *e)
{
	json_t *v = NULL;
	double d;
	int rc;

	if ((rc = jobspec_get(root, "size", &v, e)) < 0)
		return rc;
	s->size = v ? (uint64_t)json_integer_value(v) : pr->defaults.size;
	json_decref(v);
	if ((rc = number(root, "iterations", pr->defaults.iterations, &d, e)) <
	    0)
		return rc;
	s->iterations = (int)d;
	if ((rc = number(root, "duration_s", pr->defaults.duration_s,
			 &s->duration_s, e)) < 0 ||
	    (rc = number(root, "interval_s", pr->defaults.interval_s,
			 &s->interval_s, e)) < 0)
		return rc;
	if ((rc = jobspec_labels(json_object_get(root, "labels"),
				 &s->labels_json, p)) < 0)
		return rc == -EINVAL ? -EPROTO : rc;
	v = json_object_get(root, "notes");
	if (v && jobspec_notes(v, p) < 0)
		return -EPROTO;
	if (!(s->notes = strdup(v ? json_string_value(v) : "")))
		return -ENOMEM;
	if ((rc = jobspec_get(root, "direct", &v, e)) < 0)
		return rc;
	s->direct = !v || json_is_true(v);
	json_decref(v);
	if (!s->direct && session)
		return field_fail(
			e, "direct",
			"an SMB target has no client cache to bypass "
			"(libsmbclient keeps none): leave direct out");
	return 0;
}

/* Does the request ask for steady state anywhere (the job, a test)? The
 * name of the field that does into field. */
static int wants_steady(json_t *root, char *field, size_t len)
{
	json_t *t;
	size_t i;

	if (json_object_get(root, "steady_state") &&
	    !json_is_null(json_object_get(root, "steady_state"))) {
		snprintf(field, len, "steady_state");
		return 1;
	}
	json_array_foreach(json_object_get(root, "tests"), i, t)
	{
		json_t *v = json_object_get(t, "steady_state");
		if (v && !json_is_null(v)) {
			snprintf(field, len, "tests[%zu].steady_state", i);
			return 1;
		}
	}
	return 0;
}

/* A multi-host job's own fields in a job without hosts: refused, not
 * ignored (they would say the job is what it is not). */
static int only_with_hosts(json_t *root, struct field_error *e)
{
	static const char *const own[] = { "hosts_sweep", "clock_bound_ms",
					   "peer_timeout_s" };

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		json_t *v = json_object_get(root, own[i]);
		if (v && !json_is_null(v))
			return field_fail(e, own[i],
					  "%s: a multi-host job's (with "
					  "hosts); this job runs here only",
					  own[i]);
	}
	return 0;
}

/*
 * A multi-host job (hosts): queued here for the coordinator (fleet.h),
 * which sends each host the request without hosts; each host checks it
 * against its own machine (target, allowed roots, credential), so here
 * only what is the same everywhere: the hosts are peers, the profile runs
 * tests window by window, the job's own fields.
 */
static int parse_hosts(json_t *root, const struct preset *pr,
		       struct job_spec *s, struct api_problem *p,
		       struct field_error *e)
{
	json_t *hosts = NULL, *bound = NULL, *patience = NULL, *sweep = NULL,
	       *req, *v, *rec;
	const char *t;
	char field[48];
	size_t i;
	int rc;

	if ((rc = jobspec_get(root, "hosts", &hosts, e)) < 0)
		return rc;
	json_array_foreach(hosts, i, v)
	{
		struct peer peer;
		const char *name = json_string_value(v);
		if (strcmp(name, "self") != 0 && !creds_name_ok(name))
			rc = field_fail(e, "hosts",
					"hosts[%zu]: a peer name (1 to 64 of "
					"A-Z a-z 0-9 . _ -) or self",
					i);
		else if (peers_get(name, &peer) < 0)
			rc = field_fail(e, "hosts",
					"hosts[%zu]: no peer named %s (POST "
					"/api/v1/peers registers one)",
					i, name);
		os_wipe(&peer, sizeof(peer));
		if (rc < 0)
			goto out;
	}
	if (json_object_get(root, "fleet") &&
	    !json_is_null(json_object_get(root, "fleet"))) {
		rc = field_fail(e, "fleet",
				"a job is a coordinator's (hosts) or a "
				"host's (fleet), not both");
	} else if (json_object_get(root, "compare_with") &&
		   !json_is_null(json_object_get(root, "compare_with"))) {
		rc = field_fail(e, "compare_with",
				"an interleaved job runs on one host: leave "
				"compare_with out with hosts");
	} else if (pr->run != planrun_run) {
		rc = field_fail(e, "profile",
				"%s is not run on several hosts: with hosts, "
				"a profile that is a list of tests (cdm-*, "
				"custom, seq-sweep)",
				pr->name);
	} else if (wants_steady(root, field, sizeof(field))) {
		rc = field_fail(e, field,
				"steady state ends each host's test at its "
				"own round: not with hosts");
	} else if ((v = json_object_get(root, "target")) && !json_is_null(v) &&
		   (!json_is_string(v) || !(t = json_string_value(v))[0] ||
		    strlen(t) > 4096)) {
		rc = field_fail(e, "target",
				"a path or URL each host resolves under its "
				"own allowed roots");
	} else if ((rc = jobspec_get(root, "clock_bound_ms", &bound, e)) == 0 &&
		   (rc = jobspec_get(root, "peer_timeout_s", &patience, e)) ==
			   0 &&
		   (rc = jobspec_get(root, "hosts_sweep", &sweep, e)) == 0) {
		json_int_t last = 0;
		json_array_foreach(sweep, i, v)
		{
			json_int_t k = json_integer_value(v);
			if (k <= last || (size_t)k > json_array_size(hosts)) {
				rc = field_fail(
					e, "hosts_sweep",
					"hosts_sweep[%zu]: %lld: host counts "
					"ascending, each at most the %zu hosts",
					i, (long long)k,
					json_array_size(hosts));
				break;
			}
			last = k;
		}
		if (rc == 0)
			rc = parse_job_fields(root, pr, s, NULL, p, e);
	}
	if (rc < 0)
		goto out;
	v = json_object_get(root, "target");
	s->target = strdup(json_is_string(v) ? json_string_value(v) : "");
	v = json_object_get(root, "engine");
	if (json_is_string(v))
		s->engine = strdup(json_string_value(v));
	req = json_deep_copy(root);
	json_object_del(req, "hosts");
	json_object_del(req, "clock_bound_ms");
	json_object_del(req, "peer_timeout_s");
	json_object_del(req, "hosts_sweep");
	rec = json_pack("{s:O, s:o, s:O?, s:O?, s:O?}", "hosts", hosts,
			"request", req, "clock_bound_ms", bound,
			"peer_timeout_s", patience, "hosts_sweep", sweep);
	s->hosts_json = rec ? json_dumps(rec, JSON_COMPACT) : NULL;
	json_decref(rec);
	rc = s->target && s->hosts_json ? 0 : -ENOMEM;
out:
	json_decref(hosts);
	json_decref(sweep);
	json_decref(bound);
	json_decref(patience);
	return rc;
}

/* A host's job of a multi-host job (fleet, set by its coordinator): the
 * record checked and kept; the rest is an ordinary job. */
static int parse_member(json_t *root, const struct preset *pr,
			struct job_spec *s, struct field_error *e)
{
	json_t *v = NULL;
	char field[48];
	int rc;

	if ((rc = jobspec_get(root, "fleet", &v, e)) < 0 || !v)
		return rc;
	if (!json_is_string(json_object_get(v, "host")) ||
	    !json_is_integer(json_object_get(v, "job")))
		rc = field_fail(e, "fleet", "fleet: host and job are needed");
	else if (!creds_name_ok(json_string_value(json_object_get(v, "host"))))
		rc = field_fail(e, "fleet.host",
				"a peer name (1 to 64 of A-Z a-z 0-9 . _ -)");
	else if (json_object_get(root, "compare_with") &&
		 !json_is_null(json_object_get(root, "compare_with")))
		rc = field_fail(e, "compare_with", "not with fleet");
	else if (pr->run != planrun_run)
		rc = field_fail(e, "profile", "%s is not run on several hosts",
				pr->name);
	else if (wants_steady(root, field, sizeof(field)))
		rc = field_fail(e, field, "not with fleet");
	else if (!(s->fleet_json = json_dumps(v, JSON_COMPACT)))
		rc = -ENOMEM;
	json_decref(v);
	return rc;
}

int jobspec_parse(const char *body, size_t len, const char *scratch,
		  struct job_spec *s, struct api_problem *p)
{
	json_t *root = NULL, *v;
	json_error_t jerr;
	struct field_error e = { 0 };
	const struct preset *pr = preset_at(0);
	void *session = NULL;
	struct jobsession_conn *conn = NULL;
	uint64_t device_bytes = 0;
	char why[300];
	int rc = -EPROTO; /* below: the problem is set at once */

	jobspec_init();
	memset(s, 0, sizeof(*s));
	memset(p, 0, sizeof(*p));
	if (!body || len == 0) {
		api_problem_set(
			p, 400, NULL,
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
	if ((rc = fields_known(jobspec_fields, jobspec_n_fields, root, "", NULL,
			       &e)) < 0)
		goto out;
	if ((v = json_object_get(root, "profile")) != NULL) {
		if (!json_is_string(v)) {
			rc = field_fail(&e, "profile", "must be a string");
			goto out;
		}
		if (!(pr = preset_find(json_string_value(v)))) {
			rc = field_fail(&e, "profile",
					"unknown profile \"%.64s\" (see GET "
					"/api/v1/profiles)",
					json_string_value(v));
			goto out;
		}
	}
	if (!(s->profile = strdup(pr->name))) {
		rc = -ENOMEM;
		goto out;
	}
	if ((v = json_object_get(root, "hosts")) && !json_is_null(v)) {
		rc = parse_hosts(root, pr, s, p, &e);
		goto out;
	}
	if ((rc = only_with_hosts(root, &e)) < 0 ||
	    (rc = parse_member(root, pr, s, &e)) < 0)
		goto out;
	if ((rc = jobsession_from_request(root, &session, &s->smb_json, &e)) <
		    0 ||
	    (rc = jobsession_connect_request(root, &conn, &e)) < 0 ||
	    (rc = jobtarget_check(json_object_get(root, "target"), "target",
				  scratch, session,
				  pr->flags & PRESET_RAW_DEVICE, &device_bytes,
				  &s->target, &e)) < 0 ||
	    (rc = parse_job_fields(root, pr, s, session, p, &e)) < 0 ||
	    (rc = parse_engine(json_object_get(root, "engine"),
			       session ? tgt_for_target(s->target) : NULL,
			       &s->engine, &e)) < 0 ||
	    (rc = jobspec_plan(root, pr, s, scratch, session,
			       session ? tgt_for_target(s->target)
				       : tgt_find(s->engine),
			       &e)) < 0)
		goto out;
	/* a raw device: the test region is its first size bytes */
	if (device_bytes && s->size > device_bytes) {
		char need[32], have[32];
		units_format_size(s->size, need, sizeof(need));
		units_format_size(device_bytes, have, sizeof(have));
		rc = field_fail(&e, "size",
				"%s is larger than the device %s (%s)", need,
				s->target, have);
		goto out;
	}
	/* a preset that places its own files checks their room itself */
	if (!device_bytes && !(pr->flags & PRESET_OWN_ROOM) &&
	    !jobtarget_fits(s->target, session, s->size, why, sizeof(why))) {
		char need[32];
		units_format_size(s->size, need, sizeof(need));
		rc = field_fail(&e, "size", "%s does not fit: %s", need, why);
		goto out;
	}
	if ((rc = parse_compare_with(root, pr, scratch, session, device_bytes,
				     s, &e)) < 0)
		goto out;
	rc = 0;
out:
	json_decref(root);
	jobsession_free(session);
	jobsession_disconnect(conn);
	if (rc == -EINVAL)
		problem(p, &e);
	if (rc == -EPROTO) /* the problem is set already */
		rc = -EINVAL;
	if (rc < 0) {
		if (rc != -EINVAL)
			api_problem_set(p, api_status_from_errno(rc), NULL,
					"%s", strerror(-rc));
		job_spec_clear(s);
	}
	return rc;
}
