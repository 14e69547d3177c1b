/*
 * report_compare — a comparison as a report: GET /api/v1/compare's answer
 * rendered as it stands (report.h). Sections in the order a reader asks:
 * the verdicts, what changed between the sides, the tiles, the charts,
 * the deltas, the tests missing on a side, the sides' runs, then the
 * machines and the job specs. A metric no side has a value for gets no
 * row; an explanation of how a difference was judged (or what would tell)
 * is written once with the rows it applies to.
 */
#include "report.h"
#include "report_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BARS 16

static const char *side_label(json_t *cmp, size_t s)
{
	const char *l = json_string_value(json_object_get(
		json_array_get(json_object_get(cmp, "sides"), s), "label"));

	return l ? l : "?";
}

/* The test's name and direction: "RND4K Q32T1 read". */
static void test_name(struct report_buf *b, json_t *t)
{
	report_text(b, json_string_value(json_object_get(t, "test")));
	if (json_is_string(json_object_get(t, "rw"))) {
		report_raw(b, " ");
		report_text(b, json_string_value(json_object_get(t, "rw")));
	}
}

/* The metric of t that is its headline, or NULL. */
static json_t *headline(json_t *t)
{
	const char *h = json_string_value(json_object_get(t, "headline"));
	json_t *m;
	size_t i;

	json_array_foreach(json_object_get(t, "metrics"), i, m)
	{
		if (h && json_is_string(json_object_get(m, "metric")) &&
		    strcmp(h, json_string_value(
				      json_object_get(m, "metric"))) == 0)
			return m;
	}
	return json_array_get(json_object_get(t, "metrics"), 0);
}

/* Has any side a value of metric m? */
static int filled(json_t *m)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(m, "sides"), i, s)
	{
		if (json_is_number(json_object_get(s, "mean")))
			return 1;
	}
	return 0;
}

static void verdicts(struct report_buf *b, json_t *cmp)
{
	json_t *v, *w = json_object_get(cmp, "warnings");
	size_t i;

	report_raw(b, "<h2 id=\"verdicts\">Verdicts</h2>\n<ul "
		      "class=\"verdicts\">\n");
	json_array_foreach(json_object_get(cmp, "verdicts"), i, v)
	{
		report_raw(b, "<li>");
		report_text(b, json_string_value(json_object_get(v, "text")));
		report_raw(b, "</li>\n");
	}
	report_raw(b, "</ul>\n");
	if (!json_array_size(w))
		return;
	report_raw(b, "<h3>Warnings</h3>\n<ul class=\"warnings\">\n");
	json_array_foreach(w, i, v)
	{
		report_raw(b, "<li>");
		report_text(b, json_string_value(v));
		report_raw(b, "</li>\n");
	}
	report_raw(b, "</ul>\n");
}

/* The compare's `changed` ([{"field", "label", "values": [a side each]}]),
 * when it has one. */
static void changed(struct report_buf *b, json_t *cmp)
{
	json_t *ch = json_object_get(cmp, "changed"), *c;
	size_t n = json_array_size(json_object_get(cmp, "sides")), i;

	if (!json_is_array(ch))
		return;
	report_raw(b, "<h2 id=\"changed\">What changed</h2>\n");
	if (!json_array_size(ch)) {
		report_raw(b, "<p>The sides' probes and conditions do not "
			      "differ.</p>\n");
		return;
	}
	report_raw(b, "<table class=\"changed\"><thead><tr><th>what</th>");
	for (size_t s = 0; s < n; s++) {
		report_raw(b, "<th>");
		report_text(b, side_label(cmp, s));
		report_raw(b, "</th>");
	}
	report_raw(b, "</tr></thead><tbody>\n");
	json_array_foreach(ch, i, c)
	{
		json_t *label = json_object_get(c, "label");
		report_raw(b, "<tr><th>");
		report_text(b, json_string_value(
				       label ? label
					     : json_object_get(c, "field")));
		report_raw(b, "</th>");
		for (size_t s = 0; s < n; s++) {
			report_raw(b, "<td>");
			report_value(
				b, json_array_get(json_object_get(c, "values"),
						  s));
			report_raw(b, "</td>");
		}
		report_raw(b, "</tr>\n");
	}
	report_raw(b, "</tbody></table>\n");
}

static void tiles(struct report_buf *b, json_t *cmp)
{
	json_t *t;
	size_t i;

	report_raw(b, "<h2 id=\"tiles\">Headline figures</h2>\n"
		      "<div class=\"tiles\">\n");
	json_array_foreach(json_object_get(cmp, "tests"), i, t)
	{
		json_t *m = headline(t), *sv;
		size_t s;
		report_raw(b, "<div class=\"tile\"><b>");
		test_name(b, t);
		report_raw(b, "</b>");
		json_array_foreach(json_object_get(m, "sides"), s, sv)
		{
			report_raw(b, "<div>");
			report_text(b, side_label(cmp, s));
			report_raw(b, ": <span class=\"v\">");
			report_fig(b, json_object_get(sv, "mean"), 0, NULL);
			report_raw(b, "</span> ");
			report_text(b, report_unit(json_string_value(
					       json_object_get(m, "unit"))));
			report_raw(b, "</div>");
		}
		report_raw(b, "</div>\n");
	}
	report_raw(b, "</div>\n");
}

/* The figure pct % (a json number) away from base. */
static double on_base(double base, json_t *pct)
{
	return base * (1 + json_number_value(pct) / 100);
}

/* A chart per test: its headline per side, the whiskers the 95 % interval
 * of the side's difference from the baseline (ci_pct) laid on the
 * baseline's figure. */
static void charts(struct report_buf *b, json_t *cmp)
{
	json_t *t;
	size_t i;

	report_raw(b, "<h2 id=\"charts\">Charts</h2>\n<p>Each test's "
		      "headline figure per side (the first is the "
		      "baseline); the whiskers are the 95 % interval of the "
		      "side's difference from the baseline.</p>\n"
		      "<div class=\"charts\">\n");
	json_array_foreach(json_object_get(cmp, "tests"), i, t)
	{
		json_t *m = headline(t), *sv;
		struct report_bar bars[MAX_BARS];
		double base = json_number_value(json_object_get(
			json_array_get(json_object_get(m, "sides"), 0),
			"mean"));
		size_t s, n = 0;
		char cap[256];
		json_array_foreach(json_object_get(m, "sides"), s, sv)
		{
			json_t *vs = json_array_get(
				json_object_get(m, "vs_baseline"), s);
			json_t *ci = json_object_get(vs, "ci_pct");
			if (n == MAX_BARS)
				break;
			bars[n] = (struct report_bar){
				.label = side_label(cmp, s),
				.value = json_number_value(
					json_object_get(sv, "mean")),
				.has_value = json_is_number(
					json_object_get(sv, "mean")),
				.has_ci = json_array_size(ci) == 2 && base > 0,
				.baseline = s == 0,
			};
			if (bars[n].has_ci) {
				bars[n].lo =
					on_base(base, json_array_get(ci, 0));
				bars[n].hi =
					on_base(base, json_array_get(ci, 1));
			}
			n++;
		}
		snprintf(cap, sizeof(cap), "%s%s%s: %s (%s)",
			 report_str(t, "test"), *report_str(t, "rw") ? " " : "",
			 report_str(t, "rw"), report_str(m, "metric"),
			 report_unit(report_str(m, "unit")));
		report_svg_bars(b, cap,
				report_unit(json_string_value(
					json_object_get(m, "unit"))),
				bars, n);
	}
	report_raw(b, "</div>\n");
}

/* The explanations (`how`) the delta rows cite, each once: an array of
 * strings; returns the index of how in it (added when new). */
static size_t how_index(json_t *hows, const char *how)
{
	json_t *h;
	size_t i;

	json_array_foreach(hows, i, h)
	{
		if (strcmp(json_string_value(h), how) == 0)
			return i;
	}
	json_array_append_new(hows, json_string(how));
	return json_array_size(hows) - 1;
}

static void delta_row(struct report_buf *b, json_t *cmp, json_t *t, json_t *m,
		      size_t s, json_t *hows)
{
	json_t *vs = json_array_get(json_object_get(m, "vs_baseline"), s);
	json_t *sides = json_object_get(m, "sides");
	json_t *ci = json_object_get(vs, "ci_pct");
	const char *verdict = json_string_value(json_object_get(vs, "verdict"));
	const char *how = json_string_value(json_object_get(vs, "how"));
	int better = json_is_true(json_object_get(vs, "better"));

	report_raw(b, "<tr><td>");
	test_name(b, t);
	report_raw(b, ", ");
	report_text(b, json_string_value(json_object_get(m, "metric")));
	report_raw(b, " (");
	report_text(b,
		    report_unit(json_string_value(json_object_get(m, "unit"))));
	report_raw(b, ")</td><td>");
	report_text(b, side_label(cmp, s));
	report_raw(b, "</td><td class=\"n\">");
	report_fig(b, json_object_get(json_array_get(sides, 0), "mean"), 0,
		   NULL);
	report_raw(b, "</td><td class=\"n\">");
	report_fig(b, json_object_get(json_array_get(sides, s), "mean"), 0,
		   NULL);
	report_raw(b, "</td><td class=\"n\">");
	report_fig(b, json_object_get(vs, "delta"), 1, NULL);
	report_raw(b, "</td><td class=\"n\">");
	report_fig(b, json_object_get(vs, "delta_pct"), 1, " %");
	report_raw(b, "</td><td class=\"n\">");
	if (json_array_size(ci) == 2) {
		report_fig(b, json_array_get(ci, 0), 1, " … ");
		report_fig(b, json_array_get(ci, 1), 1, " %");
	} else
		report_raw(b, "—");
	report_raw(b, "</td><td class=\"n\">");
	report_fig(b, json_object_get(vs, "p"), 0, NULL);
	report_rawf(b, "</td><td class=\"%s\">",
		    verdict && strcmp(verdict, "significant") == 0
			    ? (better ? "better" : "worse")
			    : "verdict");
	report_text(b, verdict ? verdict : "—");
	if (json_is_string(json_object_get(vs, "test"))) {
		report_raw(b, " (");
		report_text(b, json_string_value(json_object_get(vs, "test")));
		report_raw(b, ")");
	}
	if (how)
		report_rawf(b, " <sup>%zu</sup>", how_index(hows, how) + 1);
	report_raw(b, "</td></tr>\n");
}

static void deltas(struct report_buf *b, json_t *cmp)
{
	json_t *hows = json_array(), *t, *m, *h;
	size_t n = json_array_size(json_object_get(cmp, "sides")), i, j;

	report_raw(b, "<h2 id=\"deltas\">Differences from the baseline</h2>\n"
		      "<p>Baseline: ");
	report_text(b, side_label(cmp, 0));
	report_raw(b, ". Each side's mean over its runs' figures, the "
		      "difference, its 95 % confidence interval and p, and "
		      "the verdict at α = 0.05 (the test that judged it in "
		      "brackets; the notes say how).</p>\n"
		      "<table class=\"deltas\"><colgroup><col "
		      "style=\"width:17%\"><col style=\"width:9%\"><col "
		      "style=\"width:9%\"><col style=\"width:9%\"><col "
		      "style=\"width:9%\"><col style=\"width:10%\"><col "
		      "style=\"width:15%\"><col style=\"width:7%\"><col "
		      "style=\"width:15%\"></colgroup><thead><tr>"
		      "<th>test, metric</th><th>side</th><th>baseline</th>"
		      "<th>side's</th><th>delta</th><th>delta %</th>"
		      "<th>95 % CI</th>"
		      "<th>p</th><th>verdict</th></tr></thead><tbody>\n");
	json_array_foreach(json_object_get(cmp, "tests"), i, t)
	{
		json_array_foreach(json_object_get(t, "metrics"), j, m)
		{
			if (!filled(m))
				continue; /* no side can fill the row */
			for (size_t s = 1; s < n; s++)
				delta_row(b, cmp, t, m, s, hows);
		}
	}
	report_raw(b, "</tbody></table>\n");
	if (json_array_size(hows)) {
		report_raw(b, "<ol class=\"how\">\n");
		json_array_foreach(hows, i, h)
		{
			report_raw(b, "<li>");
			report_text(b, json_string_value(h));
			report_raw(b, "</li>\n");
		}
		report_raw(b, "</ol>\n");
	}
	json_decref(hows);
}

static void unmatched(struct report_buf *b, json_t *cmp)
{
	json_t *u = json_object_get(cmp, "unmatched"), *t, *p;
	size_t i, s;

	if (!json_array_size(u))
		return;
	report_raw(b, "<h3>Tests not on every side</h3>\n<ul>\n");
	json_array_foreach(u, i, t)
	{
		report_raw(b, "<li>");
		test_name(b, t);
		report_raw(b, ": ran on ");
		json_array_foreach(json_object_get(t, "present"), s, p)
		{
			if (!json_is_true(p))
				continue;
			report_text(b, side_label(cmp, s));
			report_raw(b, " ");
		}
		report_raw(b, "</li>\n");
	}
	report_raw(b, "</ul>\n");
}

/* The sides' runs: a row each; and their full runs, in side order, into
 * all (for the machines). */
static void side_runs(struct report_buf *b, json_t *cmp, json_t *runs,
		      json_t *all)
{
	/* each run's cells after its side's, in the head's order */
	static const char *const cols[] = { "id",      "profile", "target",
					    "fs_type", "engine",  "labels",
					    "state" };
	json_t *side, *r;
	size_t i, j;
	int missing = 0;

	report_raw(b, "<h2 id=\"runs\">The sides' runs</h2>\n<table><thead>"
		      "<tr><th>side</th><th>run</th><th>profile</th>"
		      "<th>target</th><th>file system</th><th>engine</th>"
		      "<th>labels</th><th>state</th></tr></thead><tbody>\n");
	json_array_foreach(json_object_get(cmp, "sides"), i, side)
	{
		json_array_foreach(json_object_get(side, "runs"), j, r)
		{
			char key[32];
			json_t *full;
			snprintf(key, sizeof(key), "%lld",
				 (long long)json_integer_value(
					 json_object_get(r, "id")));
			full = json_object_get(runs, key);
			if (full) { /* a run on two sides is listed once */
				size_t k;
				json_t *x;
				int dup = 0;
				json_array_foreach(all, k, x)
				{
					dup |= x == full;
				}
				if (!dup)
					json_array_append(all, full);
			}
			missing |= !full;
			report_raw(b, "<tr><td>");
			report_text(b, side_label(cmp, i));
			for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]);
			     c++) {
				report_raw(b, c ? "</td><td>"
						: "</td><td class=\"n\">");
				report_value(b, json_object_get(r, cols[c]));
			}
			report_raw(b, "</td></tr>\n");
		}
	}
	report_raw(b, "</tbody></table>\n");
	if (missing)
		report_raw(b, "<p>Some runs' probes and specs are not in this "
			      "report (a side of many runs shows its first "
			      "ones).</p>\n");
}

int report_compare_html(json_t *cmp, json_t *runs, char **out, size_t *len)
{
	struct report_buf b = { 0 };
	json_t *all = json_array();
	size_t n = json_array_size(json_object_get(cmp, "sides"));
	size_t tn = 64, k;
	char *title, sub[160];
	int rc;

	/* every side's whole label: one cut short could end inside a
	 * character */
	for (size_t s = 0; s < n; s++)
		tn += strlen(side_label(cmp, s)) + 4;
	if (!(title = malloc(tn))) {
		json_decref(all);
		return -ENOMEM;
	}
	k = (size_t)snprintf(title, tn, "storbench comparison: ");
	for (size_t s = 0; s < n; s++)
		k += (size_t)snprintf(title + k, tn - k, "%s%s",
				      s ? " vs " : "", side_label(cmp, s));
	snprintf(sub, sizeof(sub),
		 "%zu sides, %zu tests; the baseline is the first side. "
		 "storbench %s.",
		 n, json_array_size(json_object_get(cmp, "tests")),
		 STORBENCH_VERSION);
	report_head(&b, title, sub);
	free(title);
	verdicts(&b, cmp);
	changed(&b, cmp);
	tiles(&b, cmp);
	charts(&b, cmp);
	deltas(&b, cmp);
	unmatched(&b, cmp);
	side_runs(&b, cmp, runs, all);
	report_machines(&b, all);
	report_foot(&b);
	json_decref(all);
	rc = report_buf_done(&b, out, len);
	return rc;
}
