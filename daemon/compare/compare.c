/*
 * compare — see compare.h.
 *
 * Design: every run of every side is gathered (compare_gather.c) into
 * per-test, per-side lists of [value, run, round], from its tests' stored
 * summaries or, when those do not say all compare reads, as
 * GET /api/v1/runs/{id} shows it. Then each metric is summarized per side
 * and judged against the baseline by compare_stats.c, at the level of runs
 * or interleaved rounds: a test's headline metric (MB/s for sequential
 * I/O, IOPS for the rest, a preset's kind its first) gives the side's
 * verdict, a test whose workload differs between the sides is not judged.
 * The conditions a side ran under (write cache, direct I/O, file size,
 * back-end, version) are gathered too: sides that differ in one the
 * comparison is not grouped by get a warning naming the values.
 */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "compare_int.h"
#include "presets/preset.h"
#include "runview.h"
#include "stats.h"

#define ALPHA 0.05

static json_t *summary_json(const struct stats_summary *s)
{
	/* one value has no spread: null, not 0 */
	return json_pack("{s:i, s:f, s:o}", "n", s->n, "mean", s->mean, "sd",
			 s->n >= 2 ? json_real(s->sd) : json_null());
}

/* Why test e is not like for like between the baseline and side s, into
 * why (""), from the shapes gathered. */
static void mismatch(json_t *e, size_t s, char *why, size_t len)
{
	json_t *sv = json_object_get(e, "sides");
	const char *a = json_string_value(
		json_object_get(json_array_get(sv, 0), "shape"));
	const char *b = json_string_value(
		json_object_get(json_array_get(sv, s), "shape"));

	why[0] = '\0';
	if (a && b && strcmp(a, b) != 0)
		snprintf(why, len, "%s vs %s", b, a);
}

/* Side's values of metric key summed up: n, mean, sd. */
static void summarize(const struct cval_sets *vs, json_t *side, const char *key,
		      struct stats_summary *out)
{
	const struct cvals *c = compare_vals_of(vs, side, key);
	size_t n = c ? c->n : 0;
	double *v = calloc(n ? n : 1, sizeof(*v));

	for (size_t i = 0; v && i < n; i++)
		v[i] = c->x[i].v;
	stats_summarize(v, v ? (int)n : 0, out);
	free(v);
}

/* The metric a test is read by: MB/s for sequential I/O, IOPS for the
 * rest; a preset's own kinds by their first metric. */
static size_t headline(const struct kind *k, const char *pattern)
{
	if (k->io && pattern && strcmp(pattern, "sequential") != 0)
		return 1;
	return 0;
}

/* A difference of test entry e in metric m (vs: its delta object) into f:
 * its size and its sentence. */
static void note(struct finding *f, const struct metric *m, json_t *vs,
		 json_t *e, int row)
{
	f->abs_pct = fabs(json_number_value(json_object_get(vs, "delta_pct")));
	compare_phrase(m, vs, json_string_value(json_object_get(e, "test")),
		       json_string_value(json_object_get(e, "rw")), row,
		       f->text, sizeof(f->text));
}

/* Side s of test entry e against the baseline in metric m
 * (compare_versus), worked out once: the verdicts and the test list both
 * read it. A new reference. */
static json_t *versus_of(struct compare_noise *nc, json_t *e,
			 const struct metric *m, size_t s)
{
	json_t *sv = json_object_get(e, "sides");
	json_t *vals = json_array_get(sv, s), *vs;
	char key[96];

	snprintf(key, sizeof(key), "vs:%s", m->key);
	if (!(vs = json_object_get(vals, key))) {
		vs = compare_versus(
			nc, m, json_array_get(sv, 0), vals,
			json_string_value(json_object_get(e, "test")),
			json_string_value(json_object_get(e, "rw")));
		json_object_set_new(vals, key, vs);
	}
	return json_incref(vs);
}

/* Adds test entry e of side s to the explanation of its "cannot tell" (vs:
 * its headline's delta object): explain holds one {how, tests: ["Seq
 * read", …], sides: [1, …]} per distinct reason (why: reason -> its
 * index), so the page and the answer say each once. */
static void explained(json_t *explain, json_t *why, json_t *vs, json_t *e,
		      size_t s)
{
	const char *how = json_string_value(json_object_get(vs, "how"));
	json_t *idx, *x, *one, *list;
	char name[256];
	size_t i;
	int seen = 0;

	if (!how)
		return;
	if (!(idx = json_object_get(why, how))) {
		json_object_set_new(
			why, how,
			idx = json_integer(
				(json_int_t)json_array_size(explain)));
		json_array_append_new(explain,
				      json_pack("{s:s, s:[], s:[]}", "how", how,
						"tests", "sides"));
	}
	one = json_array_get(explain, (size_t)json_integer_value(idx));
	snprintf(name, sizeof(name), "%s %s",
		 json_string_value(json_object_get(e, "test")) ?: "",
		 json_string_value(json_object_get(e, "rw")) ?: "");
	list = json_object_get(one, "tests");
	json_array_foreach(list, i, x) seen |=
		strcmp(json_string_value(x), name) == 0;
	if (!seen)
		json_array_append_new(list, json_string(name));
	seen = 0;
	list = json_object_get(one, "sides");
	json_array_foreach(list, i, x) seen |=
		(size_t)json_integer_value(x) == s;
	if (!seen)
		json_array_append_new(list, json_integer((json_int_t)s));
}

int compare_json(struct archive *a, const struct compare_side *sides, size_t n,
		 const char *grouped_by, json_t **out, char *err,
		 size_t err_len)
{
	json_t *acc = json_object(), *order = json_array(), *key;
	json_t *tests = json_array(), *unmatched = json_array();
	json_t *side_info = json_array(), *verdicts = json_array();
	json_t *warnings = json_array(), *imports = json_object();
	json_t *changed = NULL, *explain = json_array(),
	       *reasons = json_object();
	size_t said[2] = { 0, 0 }; /* compare_verdict's */
	char imported[32] = { 0 }; /* a side holds an imported run */
	struct finding *found = NULL, *raw = NULL;
	struct kinds ks = { .n = 0 };
	struct cval_sets values = { 0 };
	struct compare_noise nc = { a, json_object(), &values };
	json_t *cond = json_array(); /* per side: conditions -> runs */
	struct archive_reader *rd = NULL;
	size_t i, nt;
	int rc = 0;

	*out = NULL;
	if ((rc = archive_reader_open(a, &rd)) < 0)
		goto out;
	for (size_t s = 0; s < n && rc == 0; s++) {
		json_t *runs = json_array();
		json_array_append_new(cond, json_object());
		for (size_t r = 0; r < sides[s].n && rc == 0; r++) {
			const struct archive_test_sum *ts = NULL;
			size_t nts = 0;
			json_t *run;
			int full;
			/* the run in brief and its tests' summaries; in full
			 * only when they do not say all compare reads */
			if ((rc = archive_reader_run(rd, sides[s].runs[r],
						     &run)) < 0) {
				if (rc == -ENOENT)
					snprintf(err, err_len, "no run %lld",
						 (long long)sides[s].runs[r]);
				break;
			}
			full = compare_needs_full(run);
			if (!full &&
			    (rc = archive_reader_tests(rd, sides[s].runs[r],
						       &ts, &nts)) < 0) {
				json_decref(run);
				break;
			}
			for (size_t j = 0; j < nts && !full; j++)
				full = ts[j].errors > 0;
			if (full) {
				json_decref(run);
				if ((rc = runview_json(a, sides[s].runs[r],
						       &run)) < 0) {
					if (rc == -ENOENT)
						snprintf(err, err_len,
							 "no run %lld",
							 (long long)sides[s]
								 .runs[r]);
					break;
				}
				compare_gather(&values, acc, order, run, s, n,
					       &ks);
			} else {
				compare_gather_sums(&values, acc, order, run,
						    ts, nts, s, n, &ks);
			}
			compare_conditions_add(json_array_get(cond, s), run);
			if (compare_run_listed(runs, warnings, imports, run) &&
			    s < sizeof(imported))
				imported[s] = 1;
			json_decref(run);
		}
		json_array_append_new(side_info,
				      json_pack("{s:s, s:o}", "label",
						sides[s].label, "runs", runs));
	}
	if (rc < 0)
		goto out;
	nt = json_array_size(order);
	found = calloc((nt + 1) * n, sizeof(*found));
	raw = calloc((nt + 1) * n, sizeof(*raw));
	if (!found || !raw) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t s = 1; s < n; s++) {
		int better = 0, worse = 0, noise = 0, untested = 0, unlike = 0;
		size_t nf = 0, nr = 0;
		json_array_foreach(order, i, key)
		{
			json_t *e =
				json_object_get(acc, json_string_value(key));
			json_t *sv = json_object_get(e, "sides");
			const struct kind *k = &ks.k[json_integer_value(
				json_object_get(e, "kind"))];
			const struct metric *m = k->m;
			size_t h;
			struct stats_summary b, x;
			json_t *vs;
			const char *verdict_s;
			if (!json_is_true(json_object_get(json_array_get(sv, 0),
							  "present")) ||
			    !json_is_true(json_object_get(json_array_get(sv, s),
							  "present")))
				continue;
			h = headline(k, json_string_value(
						json_object_get(e, "pattern")));
			summarize(&values, json_array_get(sv, 0), m[h].key, &b);
			summarize(&values, json_array_get(sv, s), m[h].key, &x);
			if (b.n == 0 || x.n == 0)
				continue; /* unsupported on a side: listed, not
					     judged */
			{
				char why[400];
				mismatch(e, s, why, sizeof(why));
				if (why[0]) {
					unlike++;
					continue; /* not like for like: not
						     judged */
				}
			}
			vs = versus_of(&nc, e, &m[h], s);
			verdict_s = json_string_value(
				json_object_get(vs, "verdict"));
			if (strcmp(verdict_s, "significant") == 0) {
				if (json_is_true(json_object_get(vs, "better")))
					better++;
				else
					worse++;
				note(&found[nf++], &m[h], vs, e,
				     k->rows != NULL);
			} else if (strcmp(verdict_s, "within noise") == 0) {
				noise++;
			} else {
				untested++;
				note(&raw[nr++], &m[h], vs, e, k->rows != NULL);
				explained(explain, reasons, vs, e, s);
			}
			json_decref(vs);
		}
		json_array_append_new(
			verdicts,
			compare_verdict(sides, s, better, worse, noise,
					untested, unlike,
					imported[0] || (s < sizeof(imported) &&
							imported[s]),
					said, found, nf, raw, nr));
	}
	json_array_foreach(order, i, key)
	{
		json_t *e = json_object_get(acc, json_string_value(key));
		json_t *sv = json_object_get(e, "sides"),
		       *present = json_array();
		json_t *metrics = json_array(), *t, *mbv = json_array();
		const struct kind *k =
			&ks.k[json_integer_value(json_object_get(e, "kind"))];
		size_t nm = k->nm, here = 0;
		const struct metric *m = k->m;
		for (size_t s = 0; s < n; s++) {
			json_t *vals = json_array_get(sv, s);
			int p = json_is_true(json_object_get(vals, "present"));
			here += (size_t)p;
			json_array_append_new(present, json_boolean(p));
			json_array_append(mbv,
					  json_object_get(vals, "verdicts"));
		}
		if (here < n)
			json_array_append_new(
				unmatched,
				json_pack("{s:O, s:O, s:O}", "test",
					  json_object_get(e, "test"), "rw",
					  json_object_get(e, "rw"), "present",
					  present));
		if (here < n && !json_is_true(json_array_get(present, 0))) {
			json_decref(present);
			json_decref(metrics);
			json_decref(mbv);
			continue; /* not on the baseline: listed only */
		}
		for (size_t mi = 0; mi < nm; mi++) {
			json_t *sum = json_array(), *vsl = json_array();
			struct stats_summary b;
			size_t filled = 0;
			summarize(&values, json_array_get(sv, 0), m[mi].key,
				  &b);
			for (size_t s = 0; s < n; s++) {
				json_t *vals = json_array_get(sv, s);
				struct stats_summary x;
				if (!json_is_true(
					    json_object_get(vals, "present"))) {
					json_array_append_new(sum, json_null());
					json_array_append_new(vsl, json_null());
					continue;
				}
				summarize(&values, vals, m[mi].key, &x);
				filled += x.n > 0;
				json_array_append_new(sum,
						      x.n ? summary_json(&x)
							  : json_null());
				json_array_append_new(
					vsl,
					s == 0 || !x.n || !b.n
						? json_null()
						: versus_of(&nc, e, &m[mi], s));
			}
			if (!filled) { /* no side has it (an import's
					  latency): no row */
				json_decref(sum);
				json_decref(vsl);
				continue;
			}
			json_array_append_new(
				metrics,
				json_pack("{s:s, s:s, s:s, s:o, s:o}", "metric",
					  m[mi].key, "unit", m[mi].unit,
					  "better",
					  m[mi].higher ? "higher" : "lower",
					  "sides", sum, "vs_baseline", vsl));
		}
		t = json_pack("{s:O, s:O, s:s, s:s, s:o, s:o}", "test",
			      json_object_get(e, "test"), "rw",
			      json_object_get(e, "rw"), "kind", k->name,
			      "headline",
			      m[headline(k, json_string_value(json_object_get(
						    e, "pattern")))]
				      .key,
			      "present", present, "metrics", metrics);
		if (json_object_get(e, "sweep"))
			json_object_set(t, "sweep",
					json_object_get(e, "sweep"));
		if (k->io) {
			json_t *shapes = json_array(), *mm = json_array();
			for (size_t s = 0; s < n; s++) {
				char why[400];
				json_array_append(
					shapes,
					json_object_get(json_array_get(sv, s),
							"shape")
						?: json_null());
				mismatch(e, s, why, sizeof(why));
				json_array_append_new(mm,
						      why[0] ? json_string(why)
							     : json_null());
			}
			json_object_set_new(t, "workload", shapes);
			json_object_set_new(t, "not_like_for_like", mm);
		}
		if (k->rows && k->rows->verdicts_key)
			json_object_set(t, k->rows->verdicts_key, mbv);
		json_decref(mbv);
		if (!k->io && !k->rows) {
			json_t *errs = json_array();
			for (size_t s = 0; s < n; s++)
				json_array_append(
					errs,
					json_object_get(json_array_get(sv, s),
							"errors"));
			json_object_set_new(t, "errors", errs);
		}
		json_array_append_new(tests, t);
	}
	compare_imports_warn(imports, warnings);
	compare_conditions_warn(cond, sides, n, grouped_by, warnings);
	if ((rc = compare_changed(a, sides, n, &changed)) < 0)
		goto out;
	*out = json_pack("{s:i, s:O, s:O, s:O, s:O, s:O, s:O, s:O, "
			 "s:{s:f, s:s, s:o}}",
			 "baseline", 0, "sides", side_info, "verdicts",
			 verdicts, "cannot_tell", explain, "changed", changed,
			 "warnings", warnings, "tests", tests, "unmatched",
			 unmatched, "rules", "alpha", ALPHA, "evidence",
			 "runs: a side's figure per run (or per round of an "
			 "interleaved job) is what is tested, never its "
			 "iterations as if independent",
			 "tests", compare_tests_doc());
	rc = *out ? 0 : -ENOMEM;
out:
	archive_reader_close(rd);
	free(found);
	free(raw);
	json_decref(acc);
	json_decref(order);
	json_decref(tests);
	json_decref(unmatched);
	json_decref(side_info);
	json_decref(verdicts);
	json_decref(warnings);
	json_decref(imports);
	json_decref(changed);
	json_decref(explain);
	json_decref(reasons);
	json_decref(cond);
	json_decref(nc.series);
	compare_vals_free(&values);
	return rc;
}
