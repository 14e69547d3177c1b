/*
 * jobfiles — a job's files: named, recorded, made, removed (see jobrun.h),
 * and the ones a crash or a lost server left behind.
 *
 * A local file is named through a handle on its checked directory
 * (sys_dir_open / sys_dir_child: on Linux "/proc/self/fd/N/NAME"), so every
 * create, open and unlink lands in that very directory, whatever is renamed
 * or swapped for a symlink on the way to it meanwhile. A file on a remote
 * back-end (a share) is named by its URL under an allowed share. A share
 * through the system's own client (Windows: \\server\share\dir) is local
 * to the back-end, but what a crash left there may need a job's
 * credential: the next job on that share removes it, as for a remote one.
 */
#include "jobrun.h"
#include "os/os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobtarget.h"
#include "platform/confine.h"
#include "platform/log.h"
#include "platform/sys.h"
#include "targets/target.h"

static int remote(const struct job_run *jr)
{
	return (jr->ops->caps & TGT_CAP_REMOTE) != 0;
}

int job_file_path(const char *dir, int64_t id, const char *created_at,
		  const char *host, size_t n, char *buf, size_t len)
{
	uint32_t tag = 2166136261u; /* FNV-1a of "ID created_at" */
	size_t d = strlen(dir);
	/* a volume's root ("D:/", "/") ends in its separator already */
	const char *sep = d && dir[d - 1] == '/' ? "" : "/";
	char key[64];
	int w;

	snprintf(key, sizeof(key), "%lld %s", (long long)id, created_at);
	for (const char *c = key; *c; c++)
		tag = (tag ^ (unsigned char)*c) * 16777619u;
	if (n == 0)
		w = snprintf(buf, len, "%s%sstorbench-%s%s%lld-%08x.tmp", dir,
			     sep, host ? host : "", host ? "-" : "",
			     (long long)id, tag);
	else
		w = snprintf(buf, len, "%s%sstorbench-%s%s%lld-%08x-%zu.tmp",
			     dir, sep, host ? host : "", host ? "-" : "",
			     (long long)id, tag, n);
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

/*
 * A handle on local directory dir for this job's files, opened once per
 * job and checked where it really is against the allowed roots. *dir_i: its
 * index in jr->dirs. 0, or -EACCES / -errno with jr->error set.
 */
static int job_dir(struct job_run *jr, const char *dir, size_t *dir_i)
{
	char why[sizeof(jr->error) - 16], ok[PATH_MAX], real[PATH_MAX];
	intptr_t h;
	int rc;

	for (size_t i = 0; i < jr->n_dirs; i++)
		if (strcmp(jr->dirs[i].path, dir) == 0) {
			*dir_i = i;
			return 0;
		}
	if (jr->n_dirs == JOB_MAX_DIRS) {
		snprintf(jr->error, sizeof(jr->error), "too many directories");
		return -EMFILE;
	}
	if ((rc = sys_dir_open(dir, &h, real, sizeof(real))) == -EXDEV) {
		snprintf(jr->error, sizeof(jr->error),
			 "refused: %.100s: cannot tell where it is", dir);
		return -EACCES;
	}
	if (rc < 0) {
		snprintf(jr->error, sizeof(jr->error), "%.100s: %s", dir,
			 strerror(-rc));
		return rc;
	}
	if (confine_dir(real, NULL, ok, why, sizeof(why)) < 0 ||
	    strcmp(ok, real) != 0) {
		snprintf(jr->error, sizeof(jr->error), "refused: %s", why);
		sys_dir_close(h);
		return -EACCES;
	}
	snprintf(jr->dirs[jr->n_dirs].path, PATH_MAX, "%s", dir);
	snprintf(jr->dirs[jr->n_dirs].real, PATH_MAX, "%s", real);
	jr->dirs[jr->n_dirs].h = h;
	*dir_i = jr->n_dirs++;
	return 0;
}

int job_file_name(struct job_run *jr, const char *dir, const char **path)
{
	char realdir[PATH_MAX], why[sizeof(jr->error) - 16];
	char *p, *real;
	size_t di = 0;
	size_t slot;
	int rc;

	/* a slot whose file was removed is taken again (an interleaved job
	 * makes a file per round), under the same name */
	for (slot = 0; slot < jr->n_files && jr->files[slot][0]; slot++)
		;
	if (slot == JOB_MAX_FILES) {
		snprintf(jr->error, sizeof(jr->error), "too many test files");
		return -EMFILE;
	}
	p = jr->files[slot];
	real = jr->real[slot];
	if (remote(jr)) {
		if (confine_smb(dir, why, sizeof(why)) < 0) {
			snprintf(jr->error, sizeof(jr->error), "refused: %s",
				 why);
			return -EACCES;
		}
		snprintf(realdir, sizeof(realdir), "%s", dir);
	} else if ((rc = job_dir(jr, dir, &di)) < 0) {
		return rc;
	} else {
		snprintf(realdir, sizeof(realdir), "%s", jr->dirs[di].real);
	}
	if (job_file_path(realdir, jr->id, jr->s->created_at,
			  job_member_host(jr), jr->file_base + slot, real,
			  PATH_MAX) < 0) {
		snprintf(jr->error, sizeof(jr->error),
			 "path too long in %.100s", dir);
		return -ENAMETOOLONG;
	}
	if (remote(jr))
		memcpy(p, real, strlen(real) + 1); /* both PATH_MAX */
	else if (sys_dir_child(jr->dirs[di].h, strrchr(real, '/') + 1, p,
			       PATH_MAX) < 0) {
		snprintf(jr->error, sizeof(jr->error),
			 "path too long in %.100s", dir);
		return -ENAMETOOLONG;
	}
	if ((rc = archive_testfile_add(jr->a, real, jr->id)) < 0) {
		snprintf(jr->error, sizeof(jr->error), "archive unavailable");
		return rc;
	}
	if (slot == jr->n_files)
		jr->n_files++;
	*path = p;
	return 0;
}

const char *job_file_real(const struct job_run *jr, const char *path)
{
	for (size_t i = 0; i < jr->n_files; i++)
		if (strcmp(jr->files[i], path) == 0)
			return jr->real[i];
	return path;
}

/*
 * Does need more bytes fit in the directory dir now, leaving the reserve
 * free? Checked again when each file is made, since the job was queued
 * long ago perhaps; a share is left to the writes themselves.
 */
int job_room(struct job_run *jr, const char *dir, uint64_t need)
{
	int64_t free_bytes = 0, total = 0;
	char why[sizeof(jr->error) - 24];

	if (remote(jr) ||
	    tgt_space(jr->ops, dir, jr->session, &free_bytes, &total) < 0)
		return 0; /* cannot tell: the file's writes will */
	if (confine_room(dir, free_bytes, total, need, why, sizeof(why)))
		return 0;
	snprintf(jr->error, sizeof(jr->error), "refused at start: %s", why);
	return -ENOSPC;
}

/* A raw device the admin allowed: written in place, never created or
 * removed; free now, and held for the whole job so that nothing mounts or
 * claims it meanwhile. */
static int device_make(struct job_run *jr, const char *dev, uint64_t size,
		       enum wl_data data, int *direct, const char **path)
{
	char real[PATH_MAX], why[sizeof(jr->error) - 16];
	struct engine_opts o;
	uint64_t bytes = 0;
	int rc;

	if ((rc = confine_device(dev, real, &bytes, why, sizeof(why))) < 0) {
		snprintf(jr->error, sizeof(jr->error), "refused: %s", why);
		return rc == -ENOTBLK ? -ENODEV : rc;
	}
	if (size > bytes) {
		snprintf(jr->error, sizeof(jr->error),
			 "refused: %.100s holds %llu bytes now, fewer than the "
			 "job's %llu",
			 dev, (unsigned long long)bytes,
			 (unsigned long long)size);
		return -EINVAL;
	}
	if (jr->device_h < 0 &&
	    (rc = sys_device_hold(real, &jr->device_h)) < 0) {
		snprintf(jr->error, sizeof(jr->error),
			 "refused: %.100s: %s (claimed by something else just "
			 "now)",
			 dev, strerror(-rc));
		return rc;
	}
	*path = jr->s->target;
	o = job_engine_opts(jr, *path);
	log_info("job %lld: writing the first %llu bytes of device %s",
		 (long long)jr->id, (unsigned long long)size, *path);
	return engine_prepare_file(&o, size, data, direct);
}

int job_file_make(struct job_run *jr, const char *dir, uint64_t size,
		  enum wl_data data, int *direct, const char **path)
{
	struct engine_opts o;
	int rc;

	if (jr->device)
		return device_make(jr, dir, size, data, direct, path);
	if ((rc = job_room(jr, dir, size)) < 0)
		return rc;
	if ((rc = job_file_name(jr, dir, path)) < 0)
		return rc;
	o = job_engine_opts(jr, *path);
	log_info("job %lld: writing test file %s (%llu bytes)",
		 (long long)jr->id, job_file_real(jr, *path),
		 (unsigned long long)size);
	rc = engine_prepare_file(&o, size, data, direct);
	if (rc == -EEXIST)
		snprintf(jr->error, sizeof(jr->error),
			 "refused: %.110s exists and is not this job's; "
			 "storbench writes only files it creates (O_EXCL) "
			 "and left it untouched",
			 job_file_real(jr, *path));
	if (rc < 0) {
		/* the engine removed what it created; an existing file
		 * (-EEXIST) is not ours and must stay */
		archive_testfile_remove(jr->a, job_file_real(jr, *path));
		jr->files[(size_t)(*path - jr->files[0]) / PATH_MAX][0] = '\0';
		*path = NULL; /* nothing left for the caller to remove */
	} else {
		job_cow_file(jr, *path);
	}
	return rc;
}

/* Clears path from jr->files (its slot stays, empty). */
static void drop(struct job_run *jr, const char *path)
{
	for (size_t i = 0; i < jr->n_files; i++)
		if (strcmp(jr->files[i], path) == 0)
			jr->files[i][0] = '\0';
}

void job_file_forget(struct job_run *jr, const char *path)
{
	archive_testfile_remove(jr->a, job_file_real(jr, path));
	drop(jr, path);
}

void job_file_remove(struct job_run *jr, const char *path)
{
	/* path may be one of jr->files, cleared below */
	char p[PATH_MAX], real[PATH_MAX];
	int urc;

	snprintf(p, sizeof(p), "%s", path);
	snprintf(real, sizeof(real), "%s", job_file_real(jr, path));
	urc = tgt_unlink(jr->ops, p, jr->session);
	if (urc < 0 && urc != -ENOENT && remote(jr)) {
		/* the server is gone or refuses: the archive keeps the name,
		 * and the next job on that volume removes the file */
		log_warn("job %lld: could not remove %s (%s); the next job on "
			 "this share will",
			 (long long)jr->id, p, strerror(-urc));
		drop(jr, p);
		return;
	}
	if (urc < 0 && urc != -ENOENT) {
		/* not forgotten: the archive keeps the name, the run says so,
		 * and the next start removes it (job_files_remove_leftovers) */
		char text[PATH_MAX + 200];
		log_warn("job %lld: could not remove %s: %s; the next start "
			 "will try again",
			 (long long)jr->id, real, strerror(-urc));
		snprintf(text, sizeof(text),
			 "test file %s could not be removed (%s); it is still "
			 "listed, and the daemon's next start removes it",
			 real, strerror(-urc));
		if (jr->run_id)
			archive_run_warn(jr->a, jr->run_id, text);
		drop(jr, p);
		return;
	}
	if (urc == -ENOENT && (jr->ops->caps & TGT_CAP_FILES))
		log_warn("job %lld: test file %s was not there to remove "
			 "(was it removed by someone else during the job?)",
			 (long long)jr->id, real);
	archive_testfile_remove(jr->a, real);
	drop(jr, p);
}

void job_files_remove(struct job_run *jr)
{
	if (jr->n_files)
		job_phase(jr, "cleanup", NULL, NULL, 0);
	for (size_t i = 0; i < jr->n_files; i++)
		if (jr->files[i][0]) {
			job_file_remove(jr, jr->files[i]);
			jr->files[i][0] = '\0';
		}
	for (size_t i = 0; i < jr->n_dirs; i++)
		sys_dir_close(jr->dirs[i].h);
	jr->n_dirs = 0;
	sys_device_release(jr->device_h);
	jr->device_h = -1;
}

/* --- what earlier jobs left --- */

struct paths {
	char **v;
	size_t n, cap;
};

static void collect_path(void *arg, const char *path)
{
	struct paths *p = arg;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		char **v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return;
		p->v = v;
		p->cap = cap;
	}
	if ((p->v[p->n] = strdup(path)) != NULL)
		p->n++;
}

static void free_paths(struct paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
}

static int ours(const char *path);

/* Is path, a test file on the archive's list, on the volume root (a
 * back-end's, tgt_volume) — or, share 1, on the share with key root
 * (jobtarget_volume_key) and a storbench-*.tmp name under the roots? */
static int on_volume(const char *path, const char *root, int share)
{
	char key[800];

	if (!share)
		return strncmp(path, root, strlen(root)) == 0;
	return sys_path_share(path) &&
	       jobtarget_volume_key(path, key, sizeof(key)) == 0 &&
	       strcmp(key, root) == 0 && ours(path);
}

void job_files_remove_remote_leftovers(struct job_run *jr)
{
	struct paths p = { 0 };
	char root[800];
	int share = !remote(jr) && sys_path_share(jr->s->target), rc = -1;

	if (share)
		rc = jobtarget_volume_key(jr->s->target, root, sizeof(root));
	else if (remote(jr))
		rc = tgt_volume(jr->ops, jr->s->target, root, sizeof(root));
	if (rc < 0)
		return;
	archive_testfile_each(jr->a, collect_path, &p);
	for (size_t i = 0; i < p.n; i++) {
		if (!on_volume(p.v[i], root, share))
			continue;
		rc = tgt_unlink(jr->ops, p.v[i], jr->session);
		if (rc == 0)
			log_info("job %lld: removed test file %s left by an "
				 "earlier job",
				 (long long)jr->id, p.v[i]);
		if (rc == 0 || rc == -ENOENT)
			archive_testfile_remove(jr->a, p.v[i]);
	}
	free_paths(&p);
}

/* Could path be one of our test files: a storbench-*.tmp name in a
 * directory inside the allowed roots? (The archive's list is trusted only
 * that far: a copied or edited archive must not make us remove anything
 * else.) */
static int ours(const char *path)
{
	const char *base = strrchr(path, '/');
	char dir[PATH_MAX], real[PATH_MAX], why[256];
	size_t n;

	if (!base || base == path || (size_t)(base - path) >= sizeof(dir))
		return 0;
	n = strlen(base + 1);
	if (strncmp(base + 1, "storbench-", 10) != 0 || n < 14 ||
	    strcmp(base + 1 + n - 4, ".tmp") != 0)
		return 0;
	memcpy(dir, path, (size_t)(base - path));
	dir[base - path] = '\0';
	return confine_dir(dir, NULL, real, why, sizeof(why)) == 0;
}

void job_files_remove_leftovers(struct archive *a)
{
	const struct tgt_ops *local = tgt_local_default(NULL, 0);
	struct paths p = { 0 };

	archive_testfile_each(a, collect_path, &p);
	for (size_t i = 0; i < p.n; i++) {
		if (tgt_for_target(p.v[i])) {
			/* no session at hand here: the next job on that
			 * volume removes it */
			log_warn("test file %s, on an SMB share, was left by a "
				 "crash; the next job on that share removes it",
				 p.v[i]);
			continue;
		}
		if (sys_path_share(p.v[i]) && !ours(p.v[i])) {
			log_warn("test file %s, on a share, was left by a "
				 "crash; the daemon's account cannot remove it "
				 "now: the next job on that share removes it",
				 p.v[i]);
			continue;
		}
		if (!ours(p.v[i])) {
			/* kept on the list: a start that allows its folder
			 * again removes it */
			log_warn("not removing %s, listed as a test file: it "
				 "is not in a folder this run or daemon may "
				 "write (or not a storbench-*.tmp name); a run "
				 "on its folder, or a daemon allowing it, with "
				 "this archive removes it",
				 p.v[i]);
			continue;
		}
		int urc = local ? tgt_unlink(local, p.v[i], NULL) : -ENOENT;
		if (urc == 0)
			log_info("removed test file %s left behind", p.v[i]);
		if (urc < 0 && urc != -ENOENT) {
			/* kept on the list: the next start tries again */
			log_warn("could not remove test file %s: %s; the next "
				 "start tries again",
				 p.v[i], strerror(-urc));
			continue;
		}
		archive_testfile_remove(a, p.v[i]);
	}
	free_paths(&p);
}
