/*
 * presets — the runners of the presets that are not a list of tests:
 * mailbox-db (a database and its logs at once, over a thread sweep) and
 * file-create (how long creating and copying a fixed-size file takes). Their
 * options arrive validated and explicit (api/jobspec.c); see docs/api.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobrun.h"
#include "log.h"
#include "presets.h"
#include "smb.h"
#include "units.h"

#define MAILBOX_MAX_DBS 16

static uint64_t opt_u64(json_t *o, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(o, key));
}

static const char *path_at(json_t *list, size_t i)
{
	return json_string_value(
		json_array_get(list, i % json_array_size(list)));
}

/* rc of an archive insert; a failure says so on the job. */
static int stored(struct job_run *jr, int rc)
{
	if (rc < 0)
		snprintf(jr->error, sizeof(jr->error),
			 "storing a result in the archive failed: %s",
			 strerror(-rc));
	return rc;
}

/* --- mailbox-db --- */

/* The workloads of one point: per database, a database stream and a log
 * stream, with the point's threads shared out over the databases. */
static void mailbox_workloads(json_t *opt, unsigned threads, unsigned dbs,
			      double duration, double ramp,
			      struct workload *db, struct workload *log)
{
	for (unsigned d = 0; d < dbs; d++) {
		struct workload *w = &db[d], *l = &log[d];
		memset(w, 0, sizeof(*w));
		memset(l, 0, sizeof(*l));
		snprintf(w->name, sizeof(w->name), "DB%u T%u", d + 1, threads);
		w->pattern = WL_RANDOM;
		w->read_pct = (unsigned)opt_u64(opt, "db_read_pct");
		w->block_size = (uint32_t)opt_u64(opt, "db_block_size");
		w->queue_depth = 1;
		w->threads = threads / dbs + (d < threads % dbs);
		w->file_size = opt_u64(opt, "database_size");
		w->duration_s = duration;
		w->ramp_s = ramp;
		w->sync_every = 1;
		snprintf(l->name, sizeof(l->name), "LOG%u T%u", d + 1, threads);
		l->pattern = WL_SEQUENTIAL;
		l->read_pct = 0;
		l->block_size = (uint32_t)opt_u64(opt, "log_block_size");
		l->queue_depth = 1;
		l->threads = 1;
		l->file_size = opt_u64(opt, "log_size");
		l->duration_s = duration;
		l->ramp_s = ramp;
		l->sync = WL_SYNC_DSYNC; /* a log write is durable when done */
		l->sync_every = 1;
	}
}

/* Files one direction of several tasks as one result row. */
static int mailbox_store(struct job_run *jr, unsigned threads, int it,
			 const char *rw, const struct engine_task *tasks,
			 size_t first, size_t n, int dir, struct hist *merged,
			 struct hist *const *parts)
{
	struct workload w = *tasks[first].w;
	struct result r = {0};

	hist_init(merged);
	for (size_t i = first; i < first + n; i++) {
		const struct result *t = &tasks[i].r;
		r.ios += t->dir_ios[dir];
		r.bytes += t->dir_bytes[dir];
		r.lat_sum_ns += t->dir_lat_sum_ns[dir];
		if (t->window_ns > r.window_ns)
			r.window_ns = t->window_ns;
		r.cpu_user_s = t->cpu_user_s;
		r.cpu_sys_s = t->cpu_sys_s;
		hist_merge(merged, parts[i]);
	}
	result_finish(&r);
	snprintf(w.name, sizeof(w.name), "Mailbox T%u", threads);
	snprintf(w.rw, sizeof(w.rw), "%s", rw);
	snprintf(w.group, sizeof(w.group), "mailbox");
	snprintf(w.sweep_field, sizeof(w.sweep_field), "threads");
	w.sweep_value = threads;
	/* the database rows ran `threads`; the log rows one stream each */
	w.threads = dir == 1 && strcmp(rw, "log write") == 0 ? (unsigned)n
							      : threads;
	return stored(jr, archive_result_insert(jr->a, jr->run_id, &w, it, &r,
						merged));
}

int run_mailbox(struct job_run *jr, json_t *opt)
{
	json_t *dbp = json_object_get(opt, "database_paths");
	json_t *logp = json_object_get(opt, "log_paths");
	json_t *tl = json_object_get(opt, "threads");
	unsigned dbs = (unsigned)opt_u64(opt, "databases");
	const char *dbf[MAILBOX_MAX_DBS], *logf[MAILBOX_MAX_DBS];
	struct workload db[MAILBOX_MAX_DBS], lg[MAILBOX_MAX_DBS];
	struct engine_opts o[2 * MAILBOX_MAX_DBS];
	struct engine_task tasks[2 * MAILBOX_MAX_DBS];
	struct hist *h[2 * MAILBOX_MAX_DBS][2] = {{0}}, *part[2 * MAILBOX_MAX_DBS];
	struct hist *merged = malloc(sizeof(*merged));
	size_t points = json_array_size(tl), i;
	int direct = 0, d1 = 0, rc = 0;

	if (!opt || !json_is_array(dbp) || !json_is_array(logp) || dbs < 1 ||
	    dbs > MAILBOX_MAX_DBS || points == 0 || !merged) {
		free(merged);
		snprintf(jr->error, sizeof(jr->error), "mailbox-db: bad options");
		return -EINVAL;
	}
	job_set_steps(jr, (int)(2 * dbs + points * (size_t)jr->s->iterations),
		      (int)points);
	job_phase(jr, "preparing", NULL, NULL, 0);
	/* database files first (random data), then the logs */
	for (unsigned d = 0; d < dbs && rc == 0; d++, job_step(jr))
		rc = job_file_make(jr, path_at(dbp, d), opt_u64(opt, "database_size"),
				   WL_DATA_RANDOM, d == 0 ? &direct : &d1, &dbf[d]);
	for (unsigned d = 0; d < dbs && rc == 0; d++, job_step(jr))
		rc = job_file_make(jr, path_at(logp, d), opt_u64(opt, "log_size"),
				   WL_DATA_RANDOM, &d1, &logf[d]);
	if (rc == 0)
		rc = job_run_create(jr, direct, opt_u64(opt, "database_size") * dbs);
	for (i = 0; i < 2 * dbs && rc == 0; i++)
		for (int k = 0; k < 2; k++)
			if (!(h[i][k] = malloc(sizeof(struct hist))))
				rc = -ENOMEM;
	for (i = 0; i < points && rc == 0; i++) {
		unsigned threads = (unsigned)json_integer_value(json_array_get(tl, i));
		mailbox_workloads(opt, threads, dbs, jr->s->duration_s, 0, db, lg);
		for (int it = 1; it <= jr->s->iterations && rc == 0; it++) {
			char test[32];
			snprintf(test, sizeof(test), "Mailbox T%u", threads);
			job_phase(jr, "measuring", test, "db+log", it);
			for (unsigned d = 0; d < dbs; d++) {
				o[d] = job_engine_opts(jr, dbf[d]);
				o[dbs + d] = job_engine_opts(jr, logf[d]);
				o[d].hist_dir[0] = h[d][0];
				o[d].hist_dir[1] = h[d][1];
				o[dbs + d].hist_dir[1] = h[dbs + d][1];
				tasks[d] = (struct engine_task){.o = &o[d], .w = &db[d]};
				tasks[dbs + d] = (struct engine_task){.o = &o[dbs + d],
								      .w = &lg[d]};
			}
			if ((rc = engine_run_group(tasks, 2 * dbs)) < 0)
				break;
			for (unsigned d = 0; d < dbs; d++)
				part[d] = h[d][0];
			rc = mailbox_store(jr, threads, it, "db read", tasks, 0,
					   dbs, 0, merged, part);
			for (unsigned d = 0; d < dbs && rc == 0; d++)
				part[d] = h[d][1];
			if (rc == 0)
				rc = mailbox_store(jr, threads, it, "db write",
						   tasks, 0, dbs, 1, merged, part);
			for (unsigned d = 0; d < dbs && rc == 0; d++)
				part[dbs + d] = h[dbs + d][1];
			if (rc == 0)
				rc = mailbox_store(jr, threads, it, "log write",
						   tasks, dbs, dbs, 1, merged, part);
			job_step(jr);
		}
	}
	for (i = 0; i < 2 * MAILBOX_MAX_DBS; i++) {
		free(h[i][0]);
		free(h[i][1]);
	}
	free(merged);
	return rc;
}

/* --- file-create --- */

static double seconds_since(uint64_t t0)
{
	return (double)(engine_now_ns() - t0) / 1e9;
}

/* Opens a new file of the job's (O_EXCL: never an existing one). */
static int open_new(const char *path, int extra)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC |
				    extra,
		      0600);
	return fd < 0 ? -errno : fd;
}

/* fallocate: the filesystem reserves the blocks, writes nothing. */
static int create_fallocate(const char *path, uint64_t size)
{
	int fd = open_new(path, 0), rc = 0;

	if (fd < 0)
		return fd;
	if (fallocate(fd, 0, 0, (off_t)size) != 0 || fsync(fd) != 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* sparse: the size is set, nothing is allocated. */
static int create_sparse(const char *path, uint64_t size)
{
	int fd = open_new(path, 0), rc = 0;

	if (fd < 0)
		return fd;
	if (ftruncate(fd, (off_t)size) != 0 || fsync(fd) != 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* clone: the filesystem shares the source's extents (reflink). */
static int copy_clone(const char *src, const char *dst, uint64_t size)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out, rc = 0;

	(void)size;
	if (in < 0)
		return -errno;
	if ((out = open_new(dst, 0)) < 0) {
		close(in);
		return out;
	}
	if (ioctl(out, FICLONE, in) != 0 || fsync(out) != 0)
		rc = -errno;
	close(in);
	close(out);
	return rc;
}

/* copy_file_range: the kernel copies (and may offload or share). */
static int copy_range(const char *src, const char *dst, uint64_t size)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out, rc = 0;
	uint64_t done = 0;

	if (in < 0)
		return -errno;
	if ((out = open_new(dst, 0)) < 0) {
		close(in);
		return out;
	}
	while (done < size) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, size - done, 0);
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		done += (uint64_t)n;
	}
	if (rc == 0 && fsync(out) != 0)
		rc = -errno;
	close(in);
	close(out);
	return rc;
}

/* read/write: what a plain copy program does, 1 MiB at a time. */
static int copy_rw(const char *src, const char *dst, uint64_t size)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out, rc = 0;
	char *buf = malloc(1 << 20);
	uint64_t done = 0;

	if (in < 0 || !buf) {
		rc = in < 0 ? -errno : -ENOMEM;
		if (in >= 0)
			close(in);
		free(buf);
		return rc;
	}
	if ((out = open_new(dst, 0)) < 0) {
		close(in);
		free(buf);
		return out;
	}
	while (done < size && rc == 0) {
		ssize_t n = read(in, buf, 1 << 20), w = 0;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		while (w < n && rc == 0) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));
			if (k < 0)
				rc = -errno;
			else
				w += k;
		}
		done += (uint64_t)n;
	}
	if (rc == 0 && fsync(out) != 0)
		rc = -errno;
	close(in);
	close(out);
	free(buf);
	return rc;
}

/* Files one measurement: seconds and bytes, or why it could not be made. */
static int fc_store(struct job_run *jr, uint64_t size, const char *method,
		    int it, double secs, int err, int64_t allocated)
{
	struct workload w = {0};
	struct result r = {0};
	char text[160] = "";

	units_format_size(size, w.name, sizeof(w.name));
	snprintf(w.rw, sizeof(w.rw), "%s", method);
	w.pattern = WL_SEQUENTIAL;
	w.block_size = 1 << 20;
	w.queue_depth = 1;
	w.threads = 1;
	snprintf(w.group, sizeof(w.group), "%s", method);
	snprintf(w.sweep_field, sizeof(w.sweep_field), "size");
	w.sweep_value = (double)size;
	if (err == 0) {
		r.ios = 1;
		r.bytes = size;
		r.window_ns = (uint64_t)(secs * 1e9);
		r.lat_sum_ns = r.window_ns;
	} else {
		snprintf(text, sizeof(text), "unsupported: %s (%s)",
			 strerror(-err),
			 err == -EOPNOTSUPP ? "EOPNOTSUPP"
			 : err == -EXDEV	? "EXDEV"
			 : err == -EINVAL	? "EINVAL"
			 : err == -ENOSYS	? "ENOSYS"
			 : err == -ENOTTY	? "ENOTTY"
						: "errno");
	}
	result_finish(&r);
	return stored(jr, archive_result_insert_note(jr->a, jr->run_id, &w, it,
						     &r, NULL, err ? text : NULL,
						     allocated));
}

/* Is err a "this filesystem does not do that" answer (not a failure)? */
static int unsupported(int err)
{
	return err == -EOPNOTSUPP || err == -EXDEV || err == -EINVAL ||
	       err == -ENOSYS || err == -ENOTTY;
}

static int64_t allocated_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (int64_t)st.st_blocks * 512 : -1;
}

/*
 * How a back-end makes a file of size bytes at dst (a copy of src for the
 * copy methods), into *secs: the operation alone. Local files use system
 * calls; an SMB share the server, through a one-shot child (smb.h), whose
 * own clock leaves out its start and its connection.
 */
struct fc_method {
	const char *name;
	int copy; /* needs the written source */
	int (*make)(const char *src, const char *dst, uint64_t size,
		    double *secs);
};

/* Times a local method. */
#define LOCAL_TIMED(fn, call)                                                 \
	static int fn(const char *src, const char *dst, uint64_t size,        \
		      double *secs)                                           \
	{                                                                     \
		uint64_t t0 = engine_now_ns();                                \
		int rc;                                                       \
		(void)src;                                                    \
		rc = call;                                                    \
		*secs = seconds_since(t0);                                    \
		return rc;                                                    \
	}
LOCAL_TIMED(local_fallocate, create_fallocate(dst, size))
LOCAL_TIMED(local_sparse, create_sparse(dst, size))
LOCAL_TIMED(local_clone, copy_clone(src, dst, size))
LOCAL_TIMED(local_range, copy_range(src, dst, size))
LOCAL_TIMED(local_rw, copy_rw(src, dst, size))

static const struct fc_method local_methods[] = {
	{"fallocate", 0, local_fallocate}, {"sparse", 0, local_sparse},
	{"clone", 1, local_clone},         {"copy_file_range", 1, local_range},
	{"read/write", 1, local_rw},
};

static int smb_timed(const char *op, const char *src, const char *dst,
		     uint64_t size, double *secs)
{
	struct smb_info in;
	int rc = smb_op(NULL, op, src ? src : dst, src ? dst : NULL, size, &in);

	*secs = (double)in.elapsed_ns / 1e9;
	return rc < 0 ? rc : (int)in.err;
}

/* libsmbclient has no call that allocates or clones (no FSCTL for it) */
static int smb_unsupported(const char *src, const char *dst, uint64_t size,
			   double *secs)
{
	(void)src;
	(void)dst;
	(void)size;
	*secs = 0;
	return -EOPNOTSUPP;
}

static int smb_sparse(const char *src, const char *dst, uint64_t size,
		      double *secs)
{
	(void)src;
	return smb_timed("sparse", NULL, dst, size, secs);
}

static int smb_server_copy(const char *src, const char *dst, uint64_t size,
			   double *secs)
{
	return smb_timed("copy", src, dst, size, secs);
}

static int smb_rw(const char *src, const char *dst, uint64_t size,
		  double *secs)
{
	return smb_timed("copy-rw", src, dst, size, secs);
}

static const struct fc_method smb_methods[] = {
	{"fallocate", 0, smb_unsupported},     {"sparse", 0, smb_sparse},
	{"clone", 1, smb_unsupported},         {"server_copy", 1, smb_server_copy},
	{"read/write", 1, smb_rw},
};

/* zeros: written 1 MiB at a time and flushed — the copies' source. Locally
 * with the engine (direct I/O where the filesystem takes it, then fsync);
 * on a share by a child on one connection. */
static int fc_zeros(struct job_run *jr, const char *path, uint64_t size,
		    double *secs)
{
	struct engine_opts o;
	uint64_t t0;
	int direct, rc;

	if (jr->ops == &tgt_smb_ops)
		return smb_timed("zeros", NULL, path, size, secs);
	o = job_engine_opts(jr, path);
	o.progress = NULL;
	t0 = engine_now_ns();
	rc = engine_prepare_file(&o, size, WL_DATA_ZEROS, &direct);
	*secs = seconds_since(t0);
	return rc;
}

/* Bytes the filesystem allocated for path; -1 on a share (libsmbclient's
 * stat derives st_blocks from the size) or when unknown. */
static int64_t fc_allocated(struct job_run *jr, const char *path)
{
	return jr->ops == &tgt_smb_ops ? -1 : allocated_of(path);
}

int run_file_create(struct job_run *jr, json_t *opt)
{
	const struct fc_method *m = jr->ops == &tgt_smb_ops ? smb_methods
							    : local_methods;
	json_t *sizes = json_object_get(opt, "sizes");
	size_t n = json_array_size(sizes), i;
	int rc;

	if (!opt || n == 0) {
		snprintf(jr->error, sizeof(jr->error), "file-create: bad options");
		return -EINVAL;
	}
	/* files must really be written and removed, whatever back-end the
	 * job named (null does no I/O) */
	if (jr->ops == &tgt_null_ops)
		jr->ops = tgt_local_default();
	job_set_steps(jr, (int)n * jr->s->iterations, (int)n);
	if ((rc = job_run_create(jr, jr->s->direct, 0)) < 0)
		return rc;
	for (i = 0; i < n && rc == 0; i++) {
		uint64_t size = (uint64_t)json_integer_value(json_array_get(sizes, i));
		char name[32];
		units_format_size(size, name, sizeof(name));
		/* the file and its copy, with the reserve, as when queued */
		if ((rc = job_room(jr, jr->s->target, 2 * size)) < 0)
			return rc;
		for (int it = 1; it <= jr->s->iterations && rc == 0; it++) {
			const char *src = NULL, *p;
			size_t keep = jr->n_files;
			double secs;
			int err = 0;

			/* the two that only create, then zeros (the source),
			 * then the copies of it */
			for (size_t k = 0; k < 6 && rc == 0; k++) {
				const struct fc_method *mk =
					k < 2 ? &m[k] : k > 2 ? &m[k - 1] : NULL;
				const char *method = mk ? mk->name : "zeros";
				if (jr->cancel && *jr->cancel)
					return -ECANCELED;
				job_phase(jr, "measuring", name, method, it);
				if ((rc = job_file_name(jr, jr->s->target, &p)) < 0)
					break;
				err = mk ? mk->make(src, p, size, &secs)
					 : fc_zeros(jr, p, size, &secs);
				if (err == -EEXIST) {
					/* not ours: left as it is, only
					 * forgotten */
					job_file_forget(jr, p);
					goto failed;
				}
				if (err < 0 && (!mk || !unsupported(err))) {
					job_file_remove(jr, p);
					goto failed;
				}
				rc = fc_store(jr, size, method, it, secs, err,
					      err ? -1 : fc_allocated(jr, p));
				if (!mk)
					src = p; /* kept for the copies */
				else
					job_file_remove(jr, p);
			}
			if (src)
				job_file_remove(jr, src);
			jr->n_files = keep; /* every name used here is gone */
			job_step(jr);
			continue;
failed:
			if (src)
				job_file_remove(jr, src);
			if (err == -EEXIST)
				snprintf(jr->error, sizeof(jr->error),
					 "refused: a file exists at %.110s and is "
					 "not this job's; storbench writes only "
					 "files it creates (O_EXCL) and left it "
					 "untouched",
					 jr->real[jr->n_files - 1]);
			else
				snprintf(jr->error, sizeof(jr->error),
					 "file-create %s: %s", name, strerror(-err));
			return err;
		}
	}
	return rc;
}

/* --- mailbox-db verdicts --- */

/* Totals of one test over its iterations. */
struct totals {
	double ios, bytes, seconds, lat_sum_us, p99_us;
};

static int totals_of(json_t *tests, const char *name, const char *rw,
		     struct totals *t)
{
	size_t i, j;
	json_t *x, *it;

	memset(t, 0, sizeof(*t));
	json_array_foreach(tests, i, x)
	{
		if (strcmp(json_string_value(json_object_get(x, "test")), name) ||
		    strcmp(json_string_value(json_object_get(x, "rw")), rw))
			continue;
		json_array_foreach(json_object_get(x, "iterations"), j, it)
		{
			double n = json_number_value(json_object_get(it, "ios"));
			t->ios += n;
			t->bytes += json_number_value(json_object_get(it, "bytes"));
			t->seconds += json_number_value(json_object_get(it, "seconds"));
			t->lat_sum_us += n * json_number_value(json_object_get(it, "lat_mean_us"));
		}
		t->p99_us = json_number_value(
			json_object_get(json_object_get(x, "latency_us"), "p99"));
		return 0;
	}
	return -ENOENT;
}

/* A mean or p99 in ms as JSON: null when the direction made no I/O. */
static json_t *ms_or_null(const struct totals *t, double ms)
{
	return t->ios > 0 ? json_real(ms) : json_null();
}

static double mean_ms(const struct totals *t)
{
	return t->ios > 0 ? t->lat_sum_us / t->ios / 1e3 : 0;
}

/* Adds a reason when value is over the threshold key (ms; null: skip). */
static void judge(json_t *reasons, json_t *th, const char *key,
		  const struct totals *t, double value, const char *what)
{
	json_t *v = json_object_get(th, key);
	char text[200];

	if (!json_is_number(v) || t->ios == 0 || value <= json_number_value(v))
		return;
	snprintf(text, sizeof(text), "%s %.3g ms is over the %g ms threshold",
		 what, value, json_number_value(v));
	json_array_append_new(reasons, json_string(text));
}

json_t *mailbox_verdicts(json_t *tests, json_t *options)
{
	json_t *out = json_array(), *th = json_object_get(options, "thresholds");
	json_t *tl = json_object_get(options, "threads"), *v;
	double base_iops = 0, base_threads = 0;
	size_t i;

	json_array_foreach(tl, i, v)
	{
		struct totals r, w, l;
		char name[32];
		double threads = (double)json_integer_value(v), tiops;
		json_t *reasons = json_array(), *row;

		snprintf(name, sizeof(name), "Mailbox T%lld",
			 (long long)json_integer_value(v));
		if (totals_of(tests, name, "db read", &r) < 0 ||
		    totals_of(tests, name, "db write", &w) < 0 ||
		    totals_of(tests, name, "log write", &l) < 0 ||
		    r.seconds <= 0) {
			json_decref(reasons);
			continue; /* not measured (yet) */
		}
		tiops = (r.ios + w.ios) / r.seconds;
		if (base_threads == 0) {
			base_threads = threads;
			base_iops = tiops;
		}
		judge(reasons, th, "db_read_mean_ms", &r, mean_ms(&r),
		      "database read mean latency");
		judge(reasons, th, "db_read_p99_ms", &r, r.p99_us / 1e3,
		      "database read p99 latency");
		judge(reasons, th, "db_write_mean_ms", &w, mean_ms(&w),
		      "database write mean latency");
		judge(reasons, th, "log_write_mean_ms", &l, mean_ms(&l),
		      "log write mean latency");
		judge(reasons, th, "log_write_p99_ms", &l, l.p99_us / 1e3,
		      "log write p99 latency");
		row = json_pack("{s:f, s:f, s:f, s:f, s:o, s:o, s:o, s:o, s:o, "
				"s:f, s:s, s:o}",
				"threads", threads, "transactional_iops", tiops,
				"db_read_iops", r.ios / r.seconds,
				"db_write_iops", w.ios / r.seconds,
				"db_read_mean_ms", ms_or_null(&r, mean_ms(&r)),
				"db_read_p99_ms", ms_or_null(&r, r.p99_us / 1e3),
				"db_write_mean_ms", ms_or_null(&w, mean_ms(&w)),
				"log_write_mean_ms", ms_or_null(&l, mean_ms(&l)),
				"log_write_p99_ms", ms_or_null(&l, l.p99_us / 1e3),
				"log_mb_s", l.seconds > 0 ? l.bytes / l.seconds / 1e6 : 0,
				"verdict", json_array_size(reasons) ? "FAIL" : "PASS",
				"reasons", reasons);
		json_object_set_new(row, "efficiency",
				    json_real(base_iops > 0 ? (tiops / base_iops) /
								  (threads / base_threads)
							    : 0));
		json_array_append_new(out, row);
	}
	return out;
}
