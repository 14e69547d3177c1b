/*
 * import_native — storbench's own run document imported (import.h:
 * import_native); its tests and their iterations are read by
 * import_native_tests.c, the checks a field table cannot make are in
 * import_native_check.c.
 */
#ifndef STORBENCH_IMPORT_NATIVE_H
#define STORBENCH_IMPORT_NATIVE_H

#include <jansson.h>

#include "archive/archive.h"

struct field_error;

/* What a document's run becomes: read by import_native.c (the run, its
 * samples, wire baseline and conditions) and import_native_tests.c (its
 * tests' iterations); freed by import_native.c's doc_free. */
struct import_native_doc {
	json_t *root;
	struct archive_restore in;
	struct archive_restore_row *rows;
	struct archive_restore_sample *samples;
	struct archive_restore_cond *conds;
	size_t n_conds;
	void **hists;  /* cap_rows of them, NULL or each row's decoded bytes */
	char **stated; /* cap_rows: an imported row's stated JSON text or
			  NULL (import_native_stated), malloc'd */
	size_t n_rows, cap_rows, n_samples;
	char *spec, *probe, *labels, *warnings, *wire;
	int no_raw;
};

/* The document's tests (its "tests" member) and their iterations, each
 * checked by its table, into d->rows (d->n_rows of them; d->cap_rows and
 * d->hists allocated, the iterations' decoded histograms, all freed with
 * d, also on failure); d->no_raw set when an iteration has no raw counts.
 * A native iteration's rates must follow from its counts, an imported
 * one's be within the importers' ranges. 0, -EINVAL with e naming the
 * member, or -ENOMEM. */
int import_native_tests(struct import_native_doc *d, json_t *tests,
			struct field_error *e);

/* An imported iteration it (at path) of a document: what its file stated
 * beside the rates (bytes, ios, seconds, latency_us as the API serves
 * them: import_native_stated.c), checked against the importers' ranges,
 * into *out (a JSON text, malloc'd; NULL when it states nothing). 0,
 * -ENOMEM, or -EINVAL with e naming the member. */
int import_native_stated(json_t *it, const char *path, char **out,
			 struct field_error *e);

/* Checks document r (its members already checked by their tables) for what
 * the tables cannot say: the uuid's shape (lower-case hex, 8-4-4-4-12),
 * real times with finished_at not before started_at, the spec's tests a
 * list of objects, and an imported run's best_of, test_size and date within
 * what the importers take. 0, or -EINVAL with e naming the field. */
int import_native_check(json_t *r, struct field_error *e);

/* A document's sample s (at its path at) has its host and device counters
 * (absent or null: none) checked by their tables (archive_ctr.c's fields,
 * percentages 0 … 100, counts ≥ 0, at most 8 members) and re-written with
 * only those members into *host and *device (malloc'd JSON texts, NULL for
 * none; the caller frees them, also on failure). 0, -ENOMEM, or -EINVAL
 * with e naming the field. */
int import_native_counters(json_t *s, const char *at, char **host,
			   char **device, struct field_error *e);

/* Frees the counters' texts of samples[0 … n) and the array itself. */
struct archive_restore_sample;
void import_native_counters_free(struct archive_restore_sample *samples,
				 size_t n);

struct archive_restore_cond;

/* The precondition and steady_state records of the document's tests
 * (import_native_steady.c), into *out (*n of them, the caller frees them
 * with import_native_conds_free, also on failure). 0, -EINVAL with e
 * naming the member, or -ENOMEM. */
int import_native_conds(json_t *tests, struct archive_restore_cond **out,
			size_t *n, struct field_error *e);
void import_native_conds_free(struct archive_restore_cond *c, size_t n);

#endif
