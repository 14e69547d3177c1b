/*
 * runview — a run as the API serves it and compare reads it: the archive's
 * run (archive_run_json) plus what is computed above the archive: the
 * scaling efficiency of each thread or queue-depth sweep, and the summary
 * its preset adds (preset.h: mailbox-db's verdicts). The archive itself
 * knows no preset.
 */
#ifndef STORBENCH_RUNVIEW_H
#define STORBENCH_RUNVIEW_H

#include <stdint.h>

#include <jansson.h>

struct archive;

/* *out = run id as GET /api/v1/runs/{id} shows it (new reference).
 * Returns 0, -ENOENT, or another negative errno. */
int runview_json(struct archive *a, int64_t id, json_t **out);

/* *out = run id as a document another archive's import takes
 * (?format=storbench, `storbench run --json`, `storbench push`):
 * runview_json with archive_run_raw's counts, histograms and samples, and
 * "document": {"format": "storbench-run", "version": 1, "storbench": the
 * version that wrote it}. */
int runview_document(struct archive *a, int64_t id, json_t **out);

#endif
