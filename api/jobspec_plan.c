/*
 * jobspec_plan — the preset's part of a job request (jobspec.c does the
 * rest): its options, checked by the preset's descriptors and then its
 * check hook; its tests (the request's for a preset that takes them, the
 * hook's, or its fixed ones), planned (plan.h) and written out in full;
 * the job-wide precondition, steady_state, data and ramp_s each test takes
 * unless it sets its own; and the refusals of what the preset does not
 * take, each naming the presets that do.
 */
#include "api.h"

#include <errno.h>
#include <string.h>

#include "archive/archive.h"
#include "jobs/plan.h"
#include "jobs/steady.h"
#include "platform/fields.h"
#include "presets/preset.h"
#include "targets/target.h"

void jobspec_takers(unsigned flag, char *buf, size_t len)
{
	const struct preset *q;
	const char *names[32];
	size_t n = 0, k;

	for (size_t i = 0; n < 32 && (q = preset_at(i)); i++)
		if (flag ? (q->flags & flag) != 0 : q->n_options > 0)
			names[n++] = q->name;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		k = strlen(buf);
		snprintf(buf + k, len - k, "%s%s",
			 i == 0	      ? ""
			 : i + 1 == n ? " and "
				      : ", ",
			 names[i]);
	}
}

/* A refusal inside the preset's own tests, named after its option. */
static int own_field(struct field_error *e, const char *field)
{
	const char *dot = strchr(e->detail, ':');
	char d[sizeof(e->detail)];

	snprintf(d, sizeof(d), "%s%s", field, dot ? dot : "");
	snprintf(e->field, sizeof(e->field), "%s", field);
	snprintf(e->detail, sizeof(e->detail), "%s", d);
	return -EINVAL;
}

/* Does every test's queue_depth × threads fit the back-end's limit? */
static int check_slots(const struct preset *pr, const struct plan *plan,
		       const struct tgt_ops *o, struct field_error *e)
{
	char field[64];

	for (size_t i = 0; o && o->max_slots && i < plan->n; i++) {
		const struct workload *w = &plan->w[i];
		if ((uint64_t)w->queue_depth * w->threads <= o->max_slots)
			continue;
		if (pr->slots_field)
			snprintf(field, sizeof(field), "%s", pr->slots_field);
		else if (!(pr->flags & PRESET_TESTS))
			snprintf(field, sizeof(field), "profile");
		else
			snprintf(field, sizeof(field), "tests[%u].%s",
				 w->origin,
				 strcmp(w->sweep_field, "threads") == 0
					 ? "threads"
					 : "queue_depth");
		return field_fail(
			e, field,
			"test %s: engine %s runs one %s per queue slot; "
			"queue_depth × threads is %u, at most %u",
			w->name, o->name, o->slot_what,
			w->queue_depth * w->threads, o->max_slots);
	}
	return 0;
}

/* The job-wide fields a preset's flags say it does not take: precondition
 * and steady_state (PRESET_STEADY: a plan run by planrun), iterations and
 * duration_s (PRESET_OWN_ROUNDS: it times its own rounds). A preset with an
 * option of the same name is pointed to it. 0 or -EINVAL. */
static int refuse_untaken(json_t *root, const struct preset *pr,
			  struct field_error *e)
{
	static const struct {
		const char *name;
		unsigned flag, refuse_with;
		const char *what;
	} untaken[] = {
		{ "steady_state", PRESET_STEADY, 0,
		  "runs no steady-state rounds" },
		{ "precondition", PRESET_STEADY, 0, "does no preconditioning" },
		{ "iterations", 0, PRESET_OWN_ROUNDS,
		  "runs rounds until steady (at most max_rounds), not "
		  "iterations" },
		{ "duration_s", 0, PRESET_OWN_ROUNDS,
		  "times its rounds by round_s, not duration_s" },
	};
	char list[200];

	for (size_t i = 0; i < sizeof(untaken) / sizeof(untaken[0]); i++) {
		const char *n = untaken[i].name;
		int refused =
			untaken[i].flag
				? !(pr->flags & untaken[i].flag)
				: (pr->flags & untaken[i].refuse_with) != 0;
		if (!json_object_get(root, n) || !refused)
			continue;
		if (fields_find(pr->options, pr->n_options, "steady_state"))
			return field_fail(
				e, n,
				"the %s profile sets its rounds and "
				"preconditioning itself, so it does "
				"not take %s: set options.steady_state "
				"(round_s, window, max_rounds …)",
				pr->name, n);
		jobspec_takers(PRESET_STEADY, list, sizeof(list));
		return field_fail(e, n,
				  "the %s profile %s (%s do): leave it out",
				  pr->name, untaken[i].what, list);
	}
	return 0;
}

/* Explicit iterations on a job whose every test runs steady-state rounds:
 * they would mean nothing (rounds run until steady, at most max_rounds). */
static int refuse_rounds_iterations(json_t *root, const struct plan *plan,
				    struct field_error *e)
{
	size_t steady = 0;

	for (size_t i = 0; i < plan->n; i++)
		steady += plan->w[i].steady.on != 0;
	if (!json_object_get(root, "iterations") || !plan->n ||
	    steady < plan->n)
		return 0;
	return field_fail(e, "iterations",
			  "every test runs steady-state rounds: they run "
			  "until steady, at most steady_state.max_rounds; "
			  "leave iterations out");
}

/* The job's precondition and steady_state, each test's unless it sets its
 * own (plan.c). */
static int parse_steady(json_t *root, struct workload *def,
			struct field_error *e)
{
	json_t *v = NULL;
	int rc, k;

	if ((rc = jobspec_get(root, "precondition", &v, e)) < 0)
		return rc;
	k = fields_index_of(steady_precondition_names, json_string_value(v));
	if (k >= 0)
		def->precondition = (enum wl_precondition)k;
	json_decref(v);
	if ((rc = jobspec_get(root, "steady_state", &v, e)) < 0)
		return rc;
	rc = steady_from_json(v, "steady_state", &def->steady, e);
	json_decref(v);
	if (rc == 0 && def->precondition == WL_PRE_WORKLOAD && !def->steady.on)
		steady_defaults(&def->steady);
	return rc;
}

int jobspec_plan(json_t *root, const struct preset *pr, struct job_spec *s,
		 const char *scratch, const void *session,
		 const struct tgt_ops *ops, struct field_error *e)
{
	struct workload def = { .file_size = s->size,
				.duration_s = s->duration_s };
	struct preset_req rq = { .root = root,
				 .s = s,
				 .scratch = scratch,
				 .session = session,
				 .e = e };
	json_t *tests = json_object_get(root, "tests");
	json_t *opts = json_object_get(root, "options"), *v = NULL, *pj;
	struct plan plan = { 0 };
	struct field_error pe;
	char list[200];
	int rc, k;

	if ((rc = jobspec_get(root, "data", &v, e)) < 0)
		return rc;
	k = fields_index_of(plan_data_names, json_string_value(v));
	if (k >= 0)
		def.data = (enum wl_data)k;
	json_decref(v);
	if ((rc = jobspec_get(root, "ramp_s", &v, e)) < 0)
		return rc;
	def.ramp_s = v ? json_number_value(v) : 0;
	json_decref(v);
	if ((rc = parse_steady(root, &def, e)) < 0)
		return rc;
	if ((pr->flags & PRESET_TESTS) && !tests)
		return field_fail(e, "tests",
				  "the %s profile needs a tests array (e.g. "
				  "[{\"pattern\": \"random\", \"block_size\": "
				  "\"4KiB\", \"queue_depth\": 32}])",
				  pr->name);
	if (!(pr->flags & PRESET_TESTS) && tests) {
		jobspec_takers(PRESET_TESTS, list, sizeof(list));
		return field_fail(e, "tests",
				  "only the %s profile takes tests; set "
				  "\"profile\" to it",
				  list);
	}
	if (opts && !json_is_object(opts))
		return field_fail(e, "options", "must be an object");
	if (opts && !pr->n_options) {
		jobspec_takers(0, list, sizeof(list));
		return field_fail(e, "options",
				  "the %s profile takes none (%s do)", pr->name,
				  list);
	}
	if (pr->n_options &&
	    (rc = fields_check_object(pr->options, pr->n_options, opts,
				      "options", pr->name, &rq.options, e)) < 0)
		return rc;
	if ((rc = refuse_untaken(root, pr, e)) < 0)
		goto out;
	if (pr->check && (rc = pr->check(&rq)) < 0)
		goto out;
	if (rq.options &&
	    !(s->options_json = json_dumps(rq.options, JSON_COMPACT))) {
		rc = -ENOMEM;
		goto out;
	}
	if (!tests)
		tests = rq.tests;
	if (tests)
		rc = plan_parse(tests, &def, &plan, &pe);
	else if (pr->n_tests)
		rc = plan_from_tests(pr->tests, pr->n_tests, &def, &plan);
	if (rc == -EINVAL) {
		field_fail(e, pe.field, "%s", "");
		snprintf(e->detail, sizeof(e->detail), "%s", pe.detail);
		if (!json_object_get(root, "tests") && pr->plan_field)
			own_field(e, pr->plan_field);
		goto out;
	}
	if (rc < 0 || (rc = check_slots(pr, &plan, ops, e)) < 0 ||
	    (!(pr->flags & PRESET_OWN_ROUNDS) &&
	     (rc = refuse_rounds_iterations(root, &plan, e)) < 0))
		goto out;
	pj = plan_json(&plan);
	s->plan_json = pj ? json_dumps(pj, JSON_COMPACT) : NULL;
	json_decref(pj);
	rc = s->plan_json ? 0 : -ENOMEM;
out:
	plan_free(&plan);
	json_decref(rq.options);
	json_decref(rq.tests);
	return rc;
}
