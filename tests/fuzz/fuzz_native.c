/*
 * fuzz_native — the libFuzzer target of storbench's own run document
 * imported (daemon/import/import_native.c through import_file, the path of POST
 * /api/v1/import and `storbench import`), against a real archive in the
 * sandbox of fuzz_env.h. Seeds: tests/fuzz/corpus/native/, documents of a
 * real run (GET /api/v1/runs/{id}?format=storbench), one trimmed to an
 * iteration, and one as the plain GET has it.
 *
 * The contract, beyond no crash, leak or sanitizer report:
 *   - an input is imported (0) or refused as bad input (-EINVAL, with a
 *     sentence naming the field); any other answer (-EIO: the archive
 *     refused what the checks let through) aborts;
 *   - a refused input writes nothing (the count of runs is unchanged);
 *   - an imported run reads back as its document, and that document
 *     imports again as a duplicate of the same run; then the run is
 *     deleted, so the archive stays small and the next input's uuid is
 *     new to it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "compare/runview.h"
#include "fuzz_env.h"
#include "import/import.h"

static struct archive *a;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char db[4200];

	(void)argc;
	(void)argv;
	fuzz_env_init();
	snprintf(db, sizeof(db), "%s/storbench.db", fuzz_dir);
	if (archive_open(db, &a) < 0) {
		fprintf(stderr, "fuzz_native: cannot open the archive %s\n",
			db);
		exit(2);
	}
	return 0;
}

static int64_t runs(void)
{
	json_t *l = NULL;
	int64_t total = -1;

	if (archive_runs_json(a, NULL, 1, 0, &l, &total) < 0)
		abort();
	json_decref(l);
	return total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_done done[IMPORT_MAX_RUNS], again[IMPORT_MAX_RUNS];
	char err[256] = "", *text;
	json_t *doc = NULL;
	size_t n = 0, n2 = 0;
	int64_t before = runs();
	int rc = import_file(a, "storbench", (const char *)data, size,
			     "fuzz.json", NULL, done, &n, err, sizeof(err));

	if (rc == -ENOMEM)
		return 0;
	if (rc == -EINVAL) {
		if (!err[0] || runs() != before) {
			fprintf(stderr, "refused (%s) but wrote\n", err);
			abort();
		}
		return 0;
	}
	if (rc != 0 || n != 1) {
		fprintf(stderr, "import_file: %d (%s)\n", rc, err);
		abort();
	}
	if (runview_document(a, done[0].id, &doc) < 0 ||
	    !(text = json_dumps(doc, JSON_COMPACT))) {
		fprintf(stderr, "run %lld does not read back\n",
			(long long)done[0].id);
		abort();
	}
	rc = import_file(a, "storbench", text, strlen(text), NULL, NULL, again,
			 &n2, err, sizeof(err));
	if (rc != 0 || n2 != 1 || !again[0].duplicate ||
	    again[0].id != done[0].id) {
		fprintf(stderr, "its own document again: %d (%s)\n", rc, err);
		abort();
	}
	free(text);
	json_decref(doc);
	if (!done[0].duplicate && archive_run_delete(a, done[0].id) < 0)
		abort();
	return 0;
}
