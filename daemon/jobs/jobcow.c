/*
 * jobcow — copy-on-write test files: what the job's test file does on an
 * overwrite (probe_file_cow, asked once the file is made, so it answers for
 * the file itself: btrfs's NOCOW attribute is inherited from the directory
 * when a file is made), written into the run's probe as fs_features' "cow"
 * or "nocow", and the run's warning when its tests write randomly to a file
 * that copies on write. The words for each filesystem are cow_words[], here
 * and nowhere else.
 */
#include "jobrun.h"

#include <stdio.h>
#include <string.h>

#include "targets/target.h"

static const struct {
	const char *fs;	  /* probe_file_cow's name */
	const char *what; /* the file, in words */
	const char *fix;  /* how to measure in place */
} cow_words[] = {
	{ "btrfs", "btrfs, no NOCOW attribute",
	  "turn it off with `chattr +C DIR` on the target directory before "
	  "the job (the test file inherits NOCOW when it is made; a file "
	  "that holds data cannot take it), or mount the filesystem with "
	  "-o nodatacow" },
	{ "zfs", "ZFS, copy-on-write by design",
	  "ZFS cannot turn it off, and a write smaller than the dataset's "
	  "recordsize rewrites the whole record: set the recordsize to the "
	  "block size before the job (zfs set recordsize=4K DATASET; a file "
	  "keeps the record size it was made with) and compare ZFS runs with "
	  "ZFS runs only" },
	{ "refs", "ReFS, integrity streams on",
	  "turn integrity streams off on the target directory before the job "
	  "(`Set-FileIntegrity DIR -Enable $false`: the test file inherits "
	  "it when it is made), or on a file (`Set-FileIntegrity FILE -Enable "
	  "$false`)" },
};

void job_cow_file(struct job_run *jr, const char *path)
{
	const char *fs;
	enum probe_cow c;

	/* a local file (a share through the system's own client included);
	 * the run's probe is the first file's */
	if (jr->run_id || jr->device || !(jr->ops->caps & TGT_CAP_FILES) ||
	    (jr->ops->caps & TGT_CAP_REMOTE))
		return;
	c = probe_file_cow(path, &fs);
	jr->cow = (int)c;
	jr->cow_fs = fs;
	probe_set_cow(&jr->pr, c);
}

void job_cow_warn(const struct job_run *jr, json_t *warnings)
{
	char tests[200], text[1200];
	size_t k = 0, n = 0, w = (size_t)-1;

	if (jr->cow != PROBE_COW_ON || !jr->cow_fs || !jr->plan)
		return;
	for (size_t i = 0; i < sizeof(cow_words) / sizeof(cow_words[0]); i++)
		if (strcmp(cow_words[i].fs, jr->cow_fs) == 0)
			w = i;
	if (w == (size_t)-1)
		return;
	tests[0] = '\0';
	for (size_t i = 0; i < jr->plan->n; i++) {
		const struct workload *t = &jr->plan->w[i];
		if (t->pattern != WL_RANDOM || t->read_pct == 100)
			continue;
		if (n++ < 4 && k < sizeof(tests))
			k += (size_t)snprintf(tests + k, sizeof(tests) - k,
					      "%s%s %s", k ? ", " : "", t->name,
					      wl_rw(t));
	}
	if (n == 0)
		return;
	snprintf(text, sizeof(text),
		 "%s%s: random writes to a copy-on-write test file (%s): "
		 "each write puts its block in a new place, so the file "
		 "fragments as the test runs, and the numbers (and later reads "
		 "of the file) measure the filesystem's copy-on-write, not the "
		 "device; %s",
		 tests, n > 4 ? " …" : "", cow_words[w].what, cow_words[w].fix);
	json_array_append_new(warnings, json_string(text));
}
