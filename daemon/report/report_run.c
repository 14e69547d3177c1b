/*
 * report_run — one run as a report: GET /api/v1/runs/{id}'s answer
 * rendered as it stands (report.h). Its tiles (each test's headline: MB/s
 * for a sequential test, IOPS for the others, as the dashboard shows
 * them), a chart per test of that figure per iteration, the table of its
 * tests with latencies, its warnings, where an imported run came from,
 * then its machine and its job spec.
 */
#include "report.h"
#include "report_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BARS 64 /* iterations a chart draws */

/* The headline metric of test t: "mb_s" for a sequential test, "iops"
 * for the others, "seconds" for a test that has neither. */
static const char *headline(json_t *t)
{
	const char *p = json_string_value(json_object_get(t, "pattern"));
	json_t *best = json_object_get(t, "best");

	if (json_is_number(json_object_get(best, "mb_s")) ||
	    json_is_number(json_object_get(best, "iops")))
		return p && strcmp(p, "sequential") == 0 ? "mb_s" : "iops";
	return "seconds";
}

static const char *unit_of(json_t *run, const char *metric)
{
	const char *u = json_string_value(
		json_object_get(json_object_get(run, "units"), metric));

	return report_unit(u);
}

static void test_name(struct report_buf *b, json_t *t)
{
	report_text(b, json_string_value(json_object_get(t, "test")));
	if (json_is_string(json_object_get(t, "rw"))) {
		report_raw(b, " ");
		report_text(b, json_string_value(json_object_get(t, "rw")));
	}
}

static void texts(struct report_buf *b, const char *title, json_t *list)
{
	json_t *v;
	size_t i;

	if (!json_array_size(list))
		return;
	report_raw(b, "<h2>");
	report_text(b, title);
	report_raw(b, "</h2>\n<ul class=\"warnings\">\n");
	json_array_foreach(list, i, v)
	{
		report_raw(b, "<li>");
		report_value(b, v);
		report_raw(b, "</li>\n");
	}
	report_raw(b, "</ul>\n");
}

static void tiles(struct report_buf *b, json_t *run)
{
	json_t *t;
	size_t i;

	report_raw(b, "<h2 id=\"tiles\">Headline figures</h2>\n"
		      "<div class=\"tiles\">\n");
	json_array_foreach(json_object_get(run, "tests"), i, t)
	{
		const char *m = headline(t);
		report_raw(b, "<div class=\"tile\"><b>");
		test_name(b, t);
		report_raw(b, "</b><span class=\"v\">");
		report_fig(b, json_object_get(json_object_get(t, "best"), m), 0,
			   NULL);
		report_raw(b, "</span> ");
		report_text(b, unit_of(run, m));
		report_raw(b, "</div>\n");
	}
	report_raw(b, "</div>\n");
}

static void charts(struct report_buf *b, json_t *run)
{
	json_t *t, *it;
	size_t i, k;

	report_raw(b, "<h2 id=\"charts\">Iterations</h2>\n<p>Each test's "
		      "headline figure per iteration.</p>\n"
		      "<div class=\"charts\">\n");
	json_array_foreach(json_object_get(run, "tests"), i, t)
	{
		const char *m = headline(t);
		struct report_bar bars[MAX_BARS];
		char labels[MAX_BARS][32], cap[256];
		size_t n = 0;
		json_array_foreach(json_object_get(t, "iterations"), k, it)
		{
			json_t *v = json_object_get(it, m);
			if (n == MAX_BARS)
				break;
			snprintf(labels[n], sizeof(labels[n]), "iteration %lld",
				 (long long)json_integer_value(
					 json_object_get(it, "iteration")));
			bars[n] = (struct report_bar){
				.label = labels[n],
				.value = json_number_value(v),
				.has_value = json_is_number(v),
			};
			n++;
		}
		snprintf(cap, sizeof(cap), "%s%s%s: %s (%s)",
			 report_str(t, "test"), *report_str(t, "rw") ? " " : "",
			 report_str(t, "rw"), m, unit_of(run, m));
		report_svg_bars(b, cap, unit_of(run, m), bars, n);
	}
	report_raw(b, "</div>\n");
}

static void cell_fig(struct report_buf *b, json_t *v)
{
	report_raw(b, "<td class=\"n\">");
	report_fig(b, v, 0, NULL);
	report_raw(b, "</td>");
}

static void cell(struct report_buf *b, json_t *v)
{
	report_raw(b, "<td>");
	report_value(b, v);
	report_raw(b, "</td>");
}

static void tests_table(struct report_buf *b, json_t *run)
{
	json_t *t;
	size_t i;

	report_raw(b, "<h2 id=\"tests\">Tests</h2>\n<p>Each test's result "
		      "(<code>best</code>: the headline the API states) and "
		      "its latency over all its iterations.</p>\n"
		      "<table class=\"tests\"><colgroup><col "
		      "style=\"width:16%\"><col style=\"width:11%\"><col "
		      "style=\"width:9%\"><col style=\"width:5%\"><col "
		      "style=\"width:4%\"><col span=\"7\" "
		      "style=\"width:7.8%\"></colgroup>"
		      "<thead><tr><th>test</th>"
		      "<th>pattern</th><th>block (B)</th><th>QD</th>"
		      "<th>T</th><th>MB/s</th><th>IOPS</th>"
		      "<th>mean (µs)</th><th>p50 (µs)</th><th>p99 (µs)</th>"
		      "<th>p99.9 (µs)</th><th>max (µs)</th></tr></thead>"
		      "<tbody>\n");
	json_array_foreach(json_object_get(run, "tests"), i, t)
	{
		json_t *best = json_object_get(t, "best"),
		       *lat = json_object_get(t, "latency_us");
		report_raw(b, "<tr><td>");
		test_name(b, t);
		report_raw(b, "</td>");
		cell(b, json_object_get(t, "pattern"));
		cell(b, json_object_get(t, "block_size"));
		cell(b, json_object_get(t, "queue_depth"));
		cell(b, json_object_get(t, "threads"));
		cell_fig(b, json_object_get(best, "mb_s"));
		cell_fig(b, json_object_get(best, "iops"));
		cell_fig(b, json_object_get(best, "lat_mean_us"));
		cell_fig(b, json_object_get(lat, "p50"));
		cell_fig(b, json_object_get(lat, "p99"));
		cell_fig(b, json_object_get(lat, "p99.9"));
		cell_fig(b, json_object_get(lat, "max"));
		report_raw(b, "</tr>\n");
	}
	report_raw(b, "</tbody></table>\n");
}

/* The run's own facts: a small table. */
static void facts(struct report_buf *b, json_t *run)
{
	static const char *const keys[][2] = {
		{ "id", "run" },
		{ "uuid", "uuid" },
		{ "profile", "profile" },
		{ "target", "target" },
		{ "state", "state" },
		{ "started_at", "started (UTC)" },
		{ "finished_at", "ended (UTC)" },
		{ "labels", "labels" },
		{ "notes", "notes" },
	};
	json_t *eng = json_object_get(run, "engine"),
	       *imp = json_object_get(run, "import");

	report_raw(b, "<h2 id=\"run\">The run</h2>\n<table class=\"keep "
		      "facts\"><colgroup><col style=\"width:25%\"><col>"
		      "</colgroup><tbody>\n");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		report_raw(b, "<tr><th>");
		report_text(b, keys[i][1]);
		report_raw(b, "</th>");
		cell(b, json_object_get(run, keys[i][0]));
		report_raw(b, "</tr>\n");
	}
	if (json_is_object(eng)) {
		/* an import's engine is the tool that measured, its version
		 * the tool's (imported from, below), not storbench's */
		report_raw(b, "<tr><th>engine</th><td>");
		report_value(b, json_object_get(eng, "target"));
		report_raw(b, json_is_object(imp) ? " " : " (storbench ");
		report_value(b, json_object_get(eng, "version"));
		report_raw(b, !json_is_object(imp) ? ")" : "");
		report_raw(b, json_is_true(json_object_get(eng, "direct"))
				      ? ", direct I/O"
				      : ", buffered I/O");
		report_raw(b, "</td></tr>\n");
	}
	if (json_is_object(imp)) {
		report_raw(b, "<tr><th>imported from</th><td>");
		report_value(b, json_object_get(imp, "tool"));
		report_raw(b, " ");
		report_value(b, json_object_get(imp, "version"));
		report_raw(b, ", ");
		report_value(b, json_object_get(imp, "filename"));
		report_raw(b, " (SHA-256 ");
		report_value(b, json_object_get(imp, "sha256"));
		report_raw(b, ")</td></tr>\n");
	}
	report_raw(b, "</tbody></table>\n");
}

int report_run_html(json_t *run, char **out, size_t *len)
{
	struct report_buf b = { 0 };
	json_t *one = json_pack("[O]", run);
	/* the whole target: a path cut in its middle would read as another
	 * (and could end inside a character) */
	size_t tn = strlen(report_str(run, "profile")) +
		    strlen(report_str(run, "target")) + 64;
	char *title = malloc(tn), sub[256];

	if (!title) {
		json_decref(one);
		return -ENOMEM;
	}
	snprintf(title, tn, "storbench run %lld: %s on %s",
		 (long long)json_integer_value(json_object_get(run, "id")),
		 report_str(run, "profile"), report_str(run, "target"));
	snprintf(sub, sizeof(sub), "%s, started %s (UTC). storbench %s.",
		 report_str(run, "state"), report_str(run, "started_at"),
		 STORBENCH_VERSION);
	report_head(&b, title, sub);
	free(title);
	facts(&b, run);
	texts(&b, "Warnings", json_object_get(run, "warnings"));
	tiles(&b, run);
	charts(&b, run);
	tests_table(&b, run);
	if (one)
		report_machines(&b, one);
	else
		b.err = -ENOMEM;
	report_foot(&b);
	json_decref(one);
	return report_buf_done(&b, out, len);
}
