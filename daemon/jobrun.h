/*
 * jobrun — what the queue's runners share while one job runs (private to
 * daemon/: jobq.c runs plans of tests, presets.c runs mailbox-db and
 * file-create).
 *
 * Every file a job creates goes through job_file_make(): it is recorded in
 * the archive before it exists (so a crash leaves nothing the next start
 * does not remove), created with O_CREAT|O_EXCL|O_NOFOLLOW under a name the
 * job owns, and removed by job_files_remove() however the job ends.
 */
#ifndef STORBENCH_JOBRUN_H
#define STORBENCH_JOBRUN_H

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>

#include <jansson.h>

#include "archive.h"
#include "engine.h"
#include "plan.h"
#include "probe.h"

#define JOB_MAX_FILES 80
#define JOB_MAX_DIRS 40

struct jobq;

struct job_run {
	struct jobq *q;
	struct archive *a;
	int64_t id;
	int64_t run_id;              /* 0 until the run exists */
	const struct job_spec *s;
	const struct tgt_ops *ops;
	const atomic_int *cancel;
	int device;                  /* the target is a raw block device */
	int device_fd;               /* held O_EXCL while the job runs, or -1 */
	char error[256];
	char files[JOB_MAX_FILES][PATH_MAX]; /* as the job opens them: local
						files through their directory's
						handle, /proc/self/fd/N/NAME */
	char real[JOB_MAX_FILES][PATH_MAX];  /* where each is: archive, logs */
	size_t n_files;
	struct {
		char path[PATH_MAX];         /* as the job names it */
		char real[PATH_MAX];         /* where it was when opened */
		int fd;                      /* O_PATH, held for the job */
	} dirs[JOB_MAX_DIRS];
	size_t n_dirs;
	struct probe pr;             /* of the job's target */
	const struct plan *plan;     /* its tests (empty for mailbox-db and
					file-create) */
	json_t *options;             /* its preset's options, or NULL */
};

/*
 * Creates the job's run once its files are ready: probe, spec, warnings
 * (direct: whether direct I/O was in effect; buffered_size: the bytes a
 * buffered run would read, for the page-cache warning). Fills jr->run_id.
 */
int job_run_create(struct job_run *jr, int direct, uint64_t buffered_size);

/* Engine options for this job on path (progress, cancel, error wired). */
struct engine_opts job_engine_opts(struct job_run *jr, const char *path);

/* Do need more bytes fit in dir now, with the reserve? 0, or -ENOSPC with
 * jr->error set ("refused at start: …"). */
int job_room(struct job_run *jr, const char *dir, uint64_t need);

/*
 * A new file path for this job in dir, recorded in the archive
 * (*path receives it; the file is not created). Returns 0 or a negative
 * errno with jr->error filled.
 */
int job_file_name(struct job_run *jr, const char *dir, const char **path);

/* job_file_name, then the file created and filled (engine_prepare_file). */
int job_file_make(struct job_run *jr, const char *dir, uint64_t size,
		  enum wl_data data, int *direct, const char **path);

/* Removes (and forgets) one of the job's files; a missing one is fine. */
/* Drops path (one of jr->files, not created by the job: it existed)
 * from the job and the archive without touching it. */
void job_file_forget(struct job_run *jr, const char *path);

void job_file_remove(struct job_run *jr, const char *path);

/* Removes every file the job still has. */
void job_files_remove(struct job_run *jr);

/* The job's phase and current test, for GET /jobs/{id}. */
void job_phase(struct job_run *jr, const char *phase, const char *test,
	       const char *rw, int iteration);

/* One step of the job's progress is done (fraction = steps / total). */
void job_step(struct job_run *jr);
void job_set_steps(struct job_run *jr, int total, int tests_total);

/* Runs a mailbox-db job on its prepared files (presets.c). */
int run_mailbox(struct job_run *jr, json_t *options);

/* Runs a file-create job (presets.c). */
int run_file_create(struct job_run *jr, json_t *options);

#endif
