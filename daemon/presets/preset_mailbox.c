/*
 * preset_mailbox — mailbox-db, an Exchange Jetstress-style mailbox database
 * load: per database a database stream (random 32 KiB, about 3 reads to 2
 * writes) and a log stream (sequential 8 KiB, each write durable: O_DSYNC),
 * all at once behind one start gate (engine_run_group), over a sweep of
 * thread counts (default 4, 8, 12) shared out over the databases. Database
 * files may sit on other volumes than the logs (database_paths, log_paths).
 * Each thread count is judged PASS or FAIL against latency thresholds
 * (database read mean ≤ 20 ms, log write mean ≤ 10 ms by default), with
 * transactional IOPS and how linear the scaling is (the summary:
 * preset_mailbox_verdicts.c). See docs/api.md.
 */
#include "preset_mailbox.h"
#include "preset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/units.h"
#include "jobs/jobrun.h"
#include "jobs/jobtarget.h"
#include "targets/target.h"

#define MAILBOX_MAX_DBS 16
#define MAX_SIZE (64ULL << 40)

static const struct field dir_item = {
	.type = FIELD_DIR, .help = "a directory, checked like target"
};
static const struct field thread_count = {
	.type = FIELD_INT, .unit = "threads", .min = 1, .max = WL_MAX_THREADS
};

/* A latency threshold in ms: > 0 and at most an hour, or null (not
 * checked). */
#define THRESHOLD(field, def_ms, what)                                         \
	{                                                                      \
		.name = field, .type = FIELD_NUMBER, .unit = "ms", .min = 0,   \
		.max = 3.6e6, .def = def_ms,                                   \
		.flags = FIELD_NULLABLE | FIELD_ABOVE_MIN,                     \
		.help = what "; null: not checked"                             \
	}

static const struct field thresholds[] = {
	THRESHOLD("db_read_mean_ms", "20", "database read mean latency"),
	THRESHOLD("db_read_p99_ms", "null", "database read p99 latency"),
	THRESHOLD("db_write_mean_ms", "null", "database write mean latency"),
	THRESHOLD("log_write_mean_ms", "10", "log write mean latency"),
	THRESHOLD("log_write_p99_ms", "null", "log write p99 latency"),
};

static const struct field options[] = {
	{ .name = "database_paths",
	  .type = FIELD_LIST,
	  .item = &dir_item,
	  .min_items = 1,
	  .max_items = 16,
	  .def_text = "[target]",
	  .help = "directories for the database files, used in turn; the "
		  "run's target becomes the first" },
	{ .name = "log_paths",
	  .type = FIELD_LIST,
	  .item = &dir_item,
	  .min_items = 1,
	  .max_items = 16,
	  .def_text = "[target]",
	  .help = "directories of the log files, used in turn" },
	{ .name = "databases",
	  .type = FIELD_INT,
	  .min = 1,
	  .max = MAILBOX_MAX_DBS,
	  .def_text = "one per database path",
	  .help = "database files, each with its log: database d on "
		  "database_paths[d mod n], its log on log_paths[d mod n]" },
	{ .name = "database_size",
	  .type = FIELD_BYTES,
	  .unit = "B",
	  .min = 8 << 20,
	  .max = (double)MAX_SIZE,
	  .step = 1 << 20,
	  .def_text = "the job's size",
	  .help = "each database file; all the files must fit, summed per "
		  "filesystem, in the free space less the reserve" },
	{ .name = "log_size",
	  .type = FIELD_BYTES,
	  .unit = "B",
	  .min = 8 << 20,
	  .max = (double)MAX_SIZE,
	  .step = 1 << 20,
	  .def = "67108864",
	  .help = "each log file" },
	{ .name = "threads",
	  .type = FIELD_LIST,
	  .item = &thread_count,
	  .min_items = 1,
	  .max_items = 16,
	  .flags = FIELD_UNIQUE,
	  .def = "[4, 8, 12]",
	  .help = "the thread counts of the sweep, at least one per database" },
	{ .name = "db_block_size",
	  .type = FIELD_BYTES,
	  .unit = "B",
	  .min = 512,
	  .max = 1 << 20,
	  .step = 512,
	  .def = "32768",
	  .help = "bytes per database I/O" },
	{ .name = "db_read_pct",
	  .type = FIELD_INT,
	  .unit = "%",
	  .min = 0,
	  .max = 100,
	  .def = "60",
	  .help = "share of database I/Os that are reads" },
	{ .name = "log_block_size",
	  .type = FIELD_BYTES,
	  .unit = "B",
	  .min = 512,
	  .max = 1 << 20,
	  .step = 512,
	  .def = "8192",
	  .help = "bytes per log write" },
	{ .name = "thresholds",
	  .type = FIELD_OBJECT,
	  .sub = thresholds,
	  .n_sub = FIELDS_N(thresholds),
	  .def = "{}",
	  .help = "PASS/FAIL limits in milliseconds; a threshold on reads "
		  "with db_read_pct 0, or on writes with 100, is refused" },
};

static uint64_t opt_u64(json_t *o, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(o, key));
}

static const char *path_at(json_t *list, size_t i)
{
	return json_string_value(
		json_array_get(list, i % json_array_size(list)));
}

/* --- the run --- */

/* The workloads of one point: per database, a database stream and a log
 * stream, with the point's threads shared out over the databases. */
static void mailbox_workloads(json_t *opt, unsigned threads, unsigned dbs,
			      double duration, double ramp, struct workload *db,
			      struct workload *log)
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
	struct result r = { 0 };

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
	return job_stored(jr, archive_result_insert(jr->a, jr->run_id, &w, it,
						    &r, merged));
}

static int run(struct job_run *jr)
{
	json_t *opt = jr->options;
	json_t *dbp = json_object_get(opt, "database_paths");
	json_t *logp = json_object_get(opt, "log_paths");
	json_t *tl = json_object_get(opt, "threads");
	unsigned dbs = (unsigned)opt_u64(opt, "databases");
	const char *dbf[MAILBOX_MAX_DBS], *logf[MAILBOX_MAX_DBS];
	struct workload db[MAILBOX_MAX_DBS], lg[MAILBOX_MAX_DBS];
	struct engine_opts o[2 * MAILBOX_MAX_DBS];
	struct engine_task tasks[2 * MAILBOX_MAX_DBS];
	struct hist *h[2 * MAILBOX_MAX_DBS][2] = { { 0 } },
			   *part[2 * MAILBOX_MAX_DBS];
	struct hist *merged = malloc(sizeof(*merged));
	size_t points = json_array_size(tl), i;
	int direct = 0, d1 = 0, rc = 0;

	if (!opt || !json_is_array(dbp) || !json_is_array(logp) || dbs < 1 ||
	    dbs > MAILBOX_MAX_DBS || points == 0 || !merged) {
		free(merged);
		snprintf(jr->error, sizeof(jr->error),
			 "mailbox-db: bad options");
		return -EINVAL;
	}
	job_set_steps(jr, (int)(2 * dbs + points * (size_t)jr->s->iterations),
		      (int)points);
	job_phase(jr, "preparing", NULL, NULL, 0);
	/* database files first (random data), then the logs */
	for (unsigned d = 0; d < dbs && rc == 0; d++, job_step(jr))
		rc = job_file_make(
			jr, path_at(dbp, d), opt_u64(opt, "database_size"),
			WL_DATA_RANDOM, d == 0 ? &direct : &d1, &dbf[d]);
	for (unsigned d = 0; d < dbs && rc == 0; d++, job_step(jr))
		rc = job_file_make(jr, path_at(logp, d),
				   opt_u64(opt, "log_size"), WL_DATA_RANDOM,
				   &d1, &logf[d]);
	if (rc == 0)
		rc = job_run_create(jr, direct,
				    opt_u64(opt, "database_size") * dbs);
	for (i = 0; i < 2 * dbs && rc == 0; i++)
		for (int k = 0; k < 2; k++)
			if (!(h[i][k] = malloc(sizeof(struct hist))))
				rc = -ENOMEM;
	for (i = 0; i < points && rc == 0; i++) {
		unsigned threads =
			(unsigned)json_integer_value(json_array_get(tl, i));
		mailbox_workloads(opt, threads, dbs, jr->s->duration_s, 0, db,
				  lg);
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
				tasks[d] = (struct engine_task){ .o = &o[d],
								 .w = &db[d] };
				tasks[dbs + d] =
					(struct engine_task){ .o = &o[dbs + d],
							      .w = &lg[d] };
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
						   tasks, 0, dbs, 1, merged,
						   part);
			for (unsigned d = 0; d < dbs && rc == 0; d++)
				part[dbs + d] = h[dbs + d][1];
			if (rc == 0)
				rc = mailbox_store(jr, threads, it, "log write",
						   tasks, dbs, dbs, 1, merged,
						   part);
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

/* --- the options --- */

/* A list of directories, each checked like the target (every path of a job
 * on a share is on a share); absent: [target]. Replaced by their resolved
 * paths. */
static int check_dirs(struct preset_req *rq, const char *key)
{
	json_t *v = json_object_get(rq->options, key), *d, *real_list;
	char field[64];
	size_t i;

	if (!(real_list = json_array()))
		return -ENOMEM;
	if (!v) {
		json_array_append_new(real_list, json_string(rq->s->target));
		json_object_set_new(rq->options, key, real_list);
		return 0;
	}
	json_array_foreach(v, i, d)
	{
		char *real = NULL;
		int rc;
		snprintf(field, sizeof(field), "options.%s[%zu]", key, i);
		rc = jobtarget_check(d, field, rq->s->target, rq->session, 0,
				     NULL, &real, rq->e);
		if (rc < 0) {
			json_decref(real_list);
			return rc;
		}
		json_array_append_new(real_list, json_string(real));
		free(real);
	}
	json_object_set_new(rq->options, key, real_list);
	return 0;
}

/*
 * Do a mailbox-db job's files fit? Database d goes on dbp[d mod n], its
 * log on logp[d mod m]; the bytes are summed per filesystem (st_dev) and
 * must leave the reserve free there.
 */
static int room(const struct preset_req *rq, json_t *dbp, json_t *logp,
		unsigned dbs, uint64_t dbsize, uint64_t logsize)
{
	struct {
		char key[600]; /* st_dev, or the SMB share */
		const char *path;
		uint64_t need, db;
	} fs[32];
	size_t nfs = 0;

	for (unsigned k = 0; k < 2 * dbs; k++) {
		json_t *list = k < dbs ? dbp : logp;
		unsigned d = k % dbs;
		const char *path = json_string_value(
			json_array_get(list, d % json_array_size(list)));
		char key[600];
		size_t f;
		if (jobtarget_volume_key(path, key, sizeof(key)) < 0)
			continue;
		for (f = 0; f < nfs && strcmp(fs[f].key, key) != 0; f++)
			;
		if (f == nfs) {
			if (nfs == 32)
				continue;
			snprintf(fs[nfs].key, sizeof(fs[nfs].key), "%s", key);
			fs[nfs].path = path;
			fs[nfs].need = fs[nfs].db = 0;
			nfs++;
		}
		fs[f].need += k < dbs ? dbsize : logsize;
		fs[f].db += k < dbs ? dbsize : 0;
	}
	for (size_t f = 0; f < nfs; f++) {
		char need[32], why[300];
		/* name the larger of the two on this filesystem */
		const char *field = 2 * fs[f].db >= fs[f].need
					    ? "options.database_size"
					    : "options.log_size";
		if (jobtarget_fits(fs[f].path, rq->session, fs[f].need, why,
				   sizeof(why)))
			continue;
		units_format_size(fs[f].need, need, sizeof(need));
		return field_fail(rq->e, field,
				  "the database and log files need %s; %s",
				  need, why);
	}
	return 0;
}

/* What the descriptors cannot say: the directories, the defaults that come
 * from the job, one thread per database, thresholds on I/O the workload
 * makes, the room of every file. The run's probe describes the (first)
 * database volume. */
static int check(struct preset_req *rq)
{
	json_t *o = rq->options, *th = json_object_get(o, "thresholds"), *v;
	json_t *given = json_object_get(rq->root, "options");
	json_t *given_th = json_object_get(given, "thresholds");
	json_int_t dbs,
		rp = json_integer_value(json_object_get(o, "db_read_pct"));
	size_t i;
	char *t;
	int rc;

	if ((rc = check_dirs(rq, "database_paths")) < 0 ||
	    (rc = check_dirs(rq, "log_paths")) < 0)
		return rc;
	if (!json_object_get(o, "databases"))
		json_object_set_new(
			o, "databases",
			json_integer((json_int_t)json_array_size(
				json_object_get(o, "database_paths"))));
	dbs = json_integer_value(json_object_get(o, "databases"));
	if (!json_object_get(o, "database_size"))
		json_object_set_new(o, "database_size",
				    json_integer((json_int_t)rq->s->size));
	json_array_foreach(json_object_get(o, "threads"), i,
			   v) if (json_integer_value(v) < dbs)
	{
		char field[64];
		snprintf(field, sizeof(field), "options.threads[%zu]", i);
		return field_fail(rq->e, field,
				  "an integer from %lld (one thread per "
				  "database at least) to %d, each thread count "
				  "once",
				  (long long)dbs, WL_MAX_THREADS);
	}
	if ((rp == 0 && json_object_get(given_th, "db_read_mean_ms") &&
	     !json_is_null(json_object_get(th, "db_read_mean_ms"))) ||
	    (rp == 0 &&
	     json_is_number(json_object_get(th, "db_read_p99_ms"))) ||
	    (rp == 100 &&
	     json_is_number(json_object_get(th, "db_write_mean_ms"))))
		return field_fail(
			rq->e, "options.thresholds",
			"a threshold on database reads or writes the "
			"workload never makes (db_read_pct is 0 or 100)");
	if (rp == 0) /* the default read threshold has nothing to judge */
		json_object_set_new(th, "db_read_mean_ms", json_null());
	if ((rc = room(rq, json_object_get(o, "database_paths"),
		       json_object_get(o, "log_paths"), (unsigned)dbs,
		       opt_u64(o, "database_size"), opt_u64(o, "log_size"))) <
	    0)
		return rc;
	/* the explicit form, in the order the archive has always kept */
	v = json_pack("{s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O}",
		      "database_paths", json_object_get(o, "database_paths"),
		      "log_paths", json_object_get(o, "log_paths"), "databases",
		      json_object_get(o, "databases"), "database_size",
		      json_object_get(o, "database_size"), "log_size",
		      json_object_get(o, "log_size"), "threads",
		      json_object_get(o, "threads"), "db_block_size",
		      json_object_get(o, "db_block_size"), "db_read_pct",
		      json_object_get(o, "db_read_pct"), "log_block_size",
		      json_object_get(o, "log_block_size"), "thresholds", th);
	if (!v)
		return -ENOMEM;
	json_object_clear(o);
	json_object_update(o, v);
	json_decref(v);
	if (!(t = strdup(path_at(json_object_get(o, "database_paths"), 0))))
		return -ENOMEM;
	free(rq->s->target);
	rq->s->target = t;
	return 0;
}

const struct preset preset_mailbox = {
	.version = PRESET_VERSION,
	.name = "mailbox-db",
	.title = "Mailbox database (Jetstress style): database and log "
		 "streams, thread sweep, PASS/FAIL on latency",
	.kind = "mailbox-db",
	.flags = PRESET_OWN_ROOM,
	.defaults = { .size = 1ULL << 30, .iterations = 1, .duration_s = 30 },
	.options = options,
	.n_options = FIELDS_N(options),
	.check = check,
	.run = run,
	.summary_key = "mailbox",
	.summary = preset_mailbox_verdicts,
	.rows = &preset_mailbox_rows,
	.view = "rows",
};
