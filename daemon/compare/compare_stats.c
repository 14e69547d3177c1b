/*
 * compare_stats — which test judges a difference, and the run-to-run noise
 * of a target from the archive (compare_int.h has the rules). Calls
 * nothing of compare.c.
 *
 * The run is the unit of evidence: iterations inside one run share its test
 * file's placement, the device's state and the host's load, so their spread
 * understates what differs between two runs. A side's values are therefore
 * reduced to one figure per run (the mean of its iterations) or, for an
 * interleaved job, one per round, and tested at that level.
 */
#include "compare_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "runview.h"
#include "stats.h"

#define ALPHA 0.05
#define SERIES_MAX_RUNS 40 /* the newest runs of a series that are read */
#define NOISE_MIN_DF 2	   /* three runs of one target at least */

json_t *compare_value_of(json_t *it, const struct metric *m)
{
	if (strcmp(m->key, "lat_p99_us") == 0)
		return json_object_get(json_object_get(it, "latency_us"),
				       "p99");
	return json_object_get(it, m->key);
}

/* --- a side's values, by run and by round --- */

long compare_vals_new(struct cval_sets *vs)
{
	if (vs->n == vs->cap) {
		size_t cap = vs->cap ? vs->cap * 2 : 64;
		struct cvals *n = realloc(vs->set, cap * sizeof(*n));
		if (!n)
			return -1;
		vs->set = n;
		vs->cap = cap;
	}
	vs->set[vs->n] = (struct cvals){ 0 };
	return (long)vs->n++;
}

static struct cvals *vals_of(const struct cval_sets *vs, json_t *side,
			     const char *key)
{
	json_t *i = json_object_get(side, key);
	json_int_t k = json_integer_value(i);

	return json_is_integer(i) && k >= 0 && (size_t)k < vs->n ? &vs->set[k]
								 : NULL;
}

const struct cvals *compare_vals_of(const struct cval_sets *vs, json_t *side,
				    const char *key)
{
	return vals_of(vs, side, key);
}

void compare_vals_add(struct cval_sets *vs, json_t *side, const char *key,
		      double v, int64_t run, int64_t job, int64_t round)
{
	struct cvals *c = vals_of(vs, side, key);

	if (!c)
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct cval *n = realloc(c->x, cap * sizeof(*n));
		if (!n)
			return;
		c->x = n;
		c->cap = cap;
	}
	c->x[c->n++] = (struct cval){ v, run, job, round };
}

void compare_vals_free(struct cval_sets *vs)
{
	for (size_t i = 0; i < vs->n; i++)
		free(vs->set[i].x);
	free(vs->set);
	*vs = (struct cval_sets){ 0 };
}

/* The values of c averaged per run into out (n: how many runs); the runs'
 * ids in ids when not NULL. */
static size_t per_run(const struct cvals *c, double *out, int64_t *ids)
{
	size_t i, k = 0, n = 0, nv = c ? c->n : 0;
	double *sum = calloc(nv + 1, sizeof(*sum));
	int *cnt = calloc(nv + 1, sizeof(*cnt));
	int64_t *id = calloc(nv + 1, sizeof(*id));

	if (!sum || !cnt || !id)
		goto out;
	for (i = 0; i < nv; i++) {
		int64_t r = c->x[i].run;
		/* a run's values come together: look further only when the
		 * run changes (a side of thousands of runs is linear) */
		if (k >= n || id[k] != r)
			for (k = 0; k < n && id[k] != r; k++)
				;
		if (k == n)
			id[n++] = r;
		sum[k] += c->x[i].v;
		cnt[k]++;
	}
	for (k = 0; k < n; k++) {
		out[k] = sum[k] / cnt[k];
		if (ids)
			ids[k] = id[k];
	}
out:
	free(sum);
	free(cnt);
	free(id);
	return n;
}

/* The rounds both a and b have (every value of each side is a round):
 * their values in pa and pb, how many in the return; 0 when a value is
 * not a round. */
static size_t paired(const struct cvals *a, const struct cvals *b, double *pa,
		     double *pb)
{
	size_t i, j, n = 0, na = a ? a->n : 0, nb = b ? b->n : 0;

	for (i = 0; i < na; i++)
		if (!a->x[i].job)
			return 0;
	for (j = 0; j < nb; j++)
		if (!b->x[j].job)
			return 0;
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++) {
			if (a->x[i].job != b->x[j].job ||
			    a->x[i].round != b->x[j].round)
				continue;
			pa[n] = a->x[i].v;
			pb[n++] = b->x[j].v;
			break;
		}
	return n;
}

/* --- the noise of a target, from its repeated runs --- */

void compare_series_key(json_t *run, char *buf, size_t len)
{
	json_t *spec = json_object_get(run, "spec");

	snprintf(buf, len, "%s\x1f%s\x1f%lld\x1f%lld\x1f%g\x1f%d\x1f%s",
		 json_string_value(json_object_get(run, "target")) ?: "",
		 json_string_value(json_object_get(run, "profile")) ?: "",
		 (long long)json_integer_value(json_object_get(spec, "size")),
		 (long long)json_integer_value(
			 json_object_get(spec, "iterations")),
		 json_number_value(json_object_get(spec, "duration_s")),
		 json_is_true(json_object_get(spec, "direct_requested")),
		 json_string_value(json_object_get(
			 json_object_get(run, "engine"), "target"))
			 ?: "");
}

/* The runs of series key (a run of it: run), read once per comparison. */
static json_t *series_runs(struct compare_noise *nc, const char *key,
			   json_t *run)
{
	struct run_filter f = { 0 };
	json_t *runs, *idx, *r;
	size_t i, n;

	if ((runs = json_object_get(nc->series, key)))
		return runs;
	runs = json_array();
	json_object_set_new(nc->series, key, runs);
	f.target = json_string_value(json_object_get(run, "target"));
	f.profile = json_string_value(json_object_get(run, "profile"));
	if (!f.target || !f.profile || archive_runs_index(nc->a, &f, &idx) < 0)
		return runs;
	n = json_array_size(idx);
	for (i = n > SERIES_MAX_RUNS ? n - SERIES_MAX_RUNS : 0; i < n; i++) {
		json_t *one;
		char k[1024];
		r = json_array_get(idx, i);
		if (runview_json(nc->a,
				 json_integer_value(json_object_get(r, "id")),
				 &one) < 0)
			continue;
		compare_series_key(one, k, sizeof(k));
		if (strcmp(k, key) == 0 && !compare_run_foreign(one) &&
		    strcmp(json_string_value(json_object_get(one, "state"))
				   ?: "",
			   "done") == 0)
			json_array_append(runs, one);
		json_decref(one);
	}
	json_decref(idx);
	return runs;
}

/* Folds the series' figures of (test, rw, m) into the pooled relative
 * variance: ss += Σ (x / mean − 1)², df += n − 1, n_runs += n. */
static void fold_series(json_t *runs, const char *test, const char *rw,
			const struct metric *m, double *ss, double *df,
			int *n_runs)
{
	double fig[SERIES_MAX_RUNS], mean = 0;
	size_t i, j, n = 0;
	json_t *run, *t, *it;

	json_array_foreach(runs, i, run)
	{
		json_array_foreach(json_object_get(run, "tests"), j, t)
		{
			double sum = 0;
			int c = 0;
			size_t k;
			if (strcmp(json_string_value(json_object_get(t, "test"))
					   ?: "",
				   test) ||
			    strcmp(json_string_value(json_object_get(t, "rw"))
					   ?: "",
				   rw))
				continue;
			json_array_foreach(json_object_get(t, "iterations"), k,
					   it)
			{
				json_t *v = compare_value_of(it, m);
				if (json_is_number(v)) {
					sum += json_number_value(v);
					c++;
				}
			}
			if (c && n < SERIES_MAX_RUNS)
				fig[n++] = sum / c;
			break;
		}
	}
	if (n < 2)
		return;
	for (i = 0; i < n; i++)
		mean += fig[i] / n;
	if (mean == 0)
		return;
	for (i = 0; i < n; i++)
		*ss += (fig[i] / mean - 1) * (fig[i] / mean - 1);
	*df += n - 1;
	*n_runs += (int)n;
}

/* The pooled run-to-run relative sd of (test, rw, m) over the series of
 * both sides (keys: their "series" members): each side needs a series of
 * its own with ≥ 2 runs (its run and another made the same way), so the
 * noise is measured on both targets and settings, not assumed; pooled df
 * ≥ NOISE_MIN_DF. 0 and nz filled, or -1. */
static int noise_of(struct compare_noise *nc, json_t *a, json_t *b,
		    const char *test, const char *rw, const struct metric *m,
		    struct compare_noise_est *nz)
{
	json_t *sides[2] = { json_object_get(a, "series"),
			     json_object_get(b, "series") };
	json_t *seen = json_object(), *run;
	const char *key;
	double ss = 0, df = 0;
	int n_runs = 0, n_series = 0, measured[2] = { 0, 0 };

	for (int s = 0; s < 2; s++)
		json_object_foreach(sides[s], key, run)
		{
			json_t *got = json_object_get(seen, key);
			int before = n_runs;
			if (got) { /* the other side's series too */
				measured[s] |= json_is_true(got);
				continue;
			}
			fold_series(series_runs(nc, key, run), test, rw, m, &ss,
				    &df, &n_runs);
			json_object_set_new(seen, key,
					    json_boolean(n_runs > before));
			measured[s] |= n_runs > before;
			n_series += n_runs > before;
		}
	json_decref(seen);
	if (!measured[0] || !measured[1] || df < NOISE_MIN_DF)
		return -1;
	nz->rel_sd = sqrt(ss / df);
	nz->df = df;
	nz->runs = n_runs;
	nz->series = n_series;
	return 0;
}

/* --- the verdict of one metric --- */

static double pct(double x, double base)
{
	return base != 0 ? x / fabs(base) * 100 : NAN;
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* Fills o with what test found: delta, %, CI, band, p, verdict. */
static void judged(json_t *o, const struct metric *m,
		   const struct stats_test *st, double base)
{
	int better = m->higher ? st->delta > 0 : st->delta < 0;

	json_object_set_new(o, "delta", json_real(st->delta));
	json_object_set_new(o, "delta_pct", real_or_null(pct(st->delta, base)));
	json_object_set_new(o, "better",
			    st->delta == 0 ? json_null()
					   : json_boolean(better));
	json_object_set_new(o, "t", real_or_null(st->t));
	json_object_set_new(o, "df", real_or_null(st->df));
	json_object_set_new(o, "p", real_or_null(st->p));
	json_object_set_new(
		o, "ci_pct",
		json_pack("[o, o]",
			  real_or_null(pct(st->delta - st->half, base)),
			  real_or_null(pct(st->delta + st->half, base))));
	json_object_set_new(o, "noise_band_pct",
			    real_or_null(pct(st->half, base)));
	/* a difference inside the band is never called real: the band is
	 * the interval's half-width, so this is p < ALPHA */
	json_object_set_new(
		o, "verdict",
		json_string(st->p < ALPHA && fabs(st->delta) > st->half
				    ? "significant"
				    : "within noise"));
}

static double mean_of(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / n : NAN;
}

json_t *compare_versus(struct compare_noise *nc, const struct metric *m,
		       json_t *bv, json_t *xv, const char *test, const char *rw)
{
	const struct cvals *b = compare_vals_of(nc->values, bv, m->key),
			   *x = compare_vals_of(nc->values, xv, m->key);
	size_t nb = b ? b->n : 0, nx = x ? x->n : 0;
	double *pa = calloc(nb + nx + 1, sizeof(double));
	double *pb = calloc(nb + nx + 1, sizeof(double));
	json_t *o = json_object();
	struct stats_summary sb, sx;
	struct stats_test st;
	struct compare_noise_est nz;
	size_t np, rb, rx;
	char how[200];

	if (!pa || !pb || !o)
		goto out;
	/* 1: rounds of interleaved jobs, paired */
	if ((np = paired(b, x, pa, pb)) >= 2 &&
	    stats_paired(pa, pb, (int)np, &st) == 0) {
		judged(o, m, &st, mean_of(pa, np));
		snprintf(how, sizeof(how),
			 "paired t-test over %zu interleaved rounds", np);
		json_object_set_new(o, "test", json_string("paired"));
		json_object_set_new(o, "n",
				    json_pack("[i, i]", (int)np, (int)np));
		goto done;
	}
	/* 2: two or more runs on each side, by their run figures */
	rb = per_run(b, pa, NULL);
	rx = per_run(x, pb, NULL);
	stats_summarize(pa, (int)rb, &sb);
	stats_summarize(pb, (int)rx, &sx);
	json_object_set_new(o, "n", json_pack("[i, i]", (int)rb, (int)rx));
	if (rb >= 2 && rx >= 2 && stats_welch_test(&sb, &sx, &st) == 0) {
		judged(o, m, &st, sb.mean);
		snprintf(how, sizeof(how),
			 "Welch's t-test over runs (%zu vs %zu)", rb, rx);
		json_object_set_new(o, "test", json_string("runs"));
		goto done;
	}
	/* 3: the targets' run-to-run noise from repeated runs */
	if (rb && rx && noise_of(nc, bv, xv, test, rw, m, &nz) == 0 &&
	    stats_noise_test(&sb, &sx, nz.rel_sd, nz.df, &st) == 0) {
		judged(o, m, &st, sb.mean);
		snprintf(how, sizeof(how),
			 "t-test against the run-to-run noise of %d runs of "
			 "%s, each made as the run compared (±%.1f %% per "
			 "run)",
			 nz.runs,
			 nz.series > 1 ? "both targets" : "the same target",
			 nz.rel_sd * 100);
		json_object_set_new(o, "test", json_string("noise"));
		json_object_set_new(o, "noise",
				    json_pack("{s:f, s:f, s:i}", "run_sd_pct",
					      nz.rel_sd * 100, "df", nz.df,
					      "runs", nz.runs));
		goto done;
	}
	/* 4: nothing says how big the noise is */
	st.delta = (rx ? sx.mean : NAN) - (rb ? sb.mean : NAN);
	json_object_set_new(o, "delta", real_or_null(st.delta));
	json_object_set_new(o, "delta_pct",
			    real_or_null(pct(st.delta, sb.mean)));
	json_object_set_new(o, "better",
			    !isfinite(st.delta) || st.delta == 0
				    ? json_null()
				    : json_boolean(m->higher ? st.delta > 0
							     : st.delta < 0));
	json_object_set_new(o, "p", json_null());
	json_object_set_new(o, "ci_pct", json_null());
	json_object_set_new(o, "noise_band_pct", json_null());
	json_object_set_new(o, "verdict", json_string("cannot tell"));
	json_object_set_new(o, "test", json_null());
	snprintf(how, sizeof(how),
		 "%s: one more run of each side (made the same way), or an "
		 "interleaved job of both targets, would tell",
		 rb < 2 && rx < 2 ? "one run per side and no run-to-run noise "
				    "estimate for these targets"
				  : "one side has a single run and no "
				    "run-to-run noise estimate for its target");
done:
	json_object_set_new(o, "how", json_string(how));
out:
	free(pa);
	free(pb);
	return o;
}

json_t *compare_tests_doc(void)
{
	return json_pack(
		"{s:s, s:s, s:s, s:s}", "paired",
		"every value of both sides is a round of the same interleaved "
		"job(s): the paired t-test over the rounds (host drift hits "
		"both sides of a round alike)",
		"runs",
		"two or more runs per side: Welch's t-test over the runs' "
		"figures (a run's figure is the mean of its iterations)",
		"noise",
		"a side with one run: the difference against the run-to-run "
		"spread of the runs of the sides' targets made as the runs "
		"compared (same profile, size, iterations, duration, direct "
		"request, back-end): each side's target needs two such runs or "
		"more, three in all (an A/A series)",
		"cannot tell",
		"none of these: the verdict says what would tell");
}
