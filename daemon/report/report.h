/*
 * report — a comparison or a run as one self-contained HTML file to
 * publish: no script, no external resource (the style sheet inline, the
 * charts inline SVG drawn here), readable offline in any browser and
 * printable on A4 without a cut table.
 *
 * The report renders the JSON the API answers (GET /api/v1/compare, GET
 * /api/v1/runs/{id}) and computes nothing of its own: every figure in it
 * is a number that JSON states. Every string from the archive (labels,
 * notes, paths, probe fields) is escaped. Both are deterministic: the same
 * JSON gives the same bytes.
 */
#ifndef STORBENCH_REPORT_H
#define STORBENCH_REPORT_H

#include <stddef.h>

#include <jansson.h>

/*
 * The comparison cmp (GET /api/v1/compare's answer, its optional
 * `changed` array too) as HTML: the tiles (each test's headline per side),
 * a bar chart per test (the headline per side, the 95 % interval of its
 * difference from the baseline as whiskers), the deltas with their
 * intervals and verdicts, the verdict sentences, what changed, and each
 * run's probe and spec. runs: an object keyed by run id ("12") of the
 * sides' runs as GET /api/v1/runs/{id} shows them (NULL, or runs missing:
 * their probes and specs are left out, said so). *out: malloc'd, the
 * caller's to free, *len bytes (NUL-terminated too). Returns 0 or -ENOMEM
 * (nothing to free then).
 */
int report_compare_html(json_t *cmp, json_t *runs, char **out, size_t *len);

/*
 * The run run (GET /api/v1/runs/{id}'s answer) as HTML: its tiles, a
 * chart of each test's headline per iteration, the table of its tests, its
 * warnings, probe and spec. *out as report_compare_html's. 0 or -ENOMEM.
 */
int report_run_html(json_t *run, char **out, size_t *len);

#endif
