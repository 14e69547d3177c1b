/*
 * preset_file_create — file-create: how long it takes to make a fixed-size
 * file (the fixed-VHDX case) and to copy it, at each of several sizes: by
 * preallocation, as a sparse file, by writing zeros (the copies' source),
 * then copied by clone, by the kernel or the server (copy_file_range,
 * server-side copy) and by reading and writing through this host. Every
 * method is an operation of the target's back-end (tgt_make_file), which
 * says which it does (its file_caps); one it does not do, or that the
 * filesystem refuses, is stored as "unsupported" with the reason. The zeros
 * are written by the back-end itself where it has its own way (one SMB
 * connection), else by the engine with direct I/O and a flush.
 */
#include "preset.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine/units.h"
#include "jobs/jobrun.h"
#include "jobs/jobtarget.h"
#include "os/os.h"
#include "targets/target.h"

#define MAX_SIZE (64ULL << 40)

static const struct field size = { .type = FIELD_BYTES,
				   .unit = "B",
				   .min = 1 << 20,
				   .max = (double)MAX_SIZE,
				   .step = 1 << 20 };

static const struct field options[] = {
	{ .name = "sizes",
	  .type = FIELD_LIST,
	  .item = &size,
	  .min_items = 1,
	  .max_items = 16,
	  .flags = FIELD_UNIQUE,
	  .def_text = "1, 4 and 16 GiB, those that fit twice (the file and "
		      "its copy) in free space; [size] when the job gives size",
	  .help = "the file sizes, in whole MiB; each file and its copy must "
		  "fit in the free space less the reserve" },
};

/* The methods in the order they run: those that only create, zeros (the
 * source), then the copies of it. A fixed VHDX runs only where the back-end
 * makes one (Windows): elsewhere it is left out, not stored as
 * unsupported. */
static const enum tgt_file_op methods[] = {
	TGT_FILE_PREALLOCATE, TGT_FILE_SPARSE, TGT_FILE_VHDX_FIXED,
	TGT_FILE_ZEROS,	      TGT_FILE_CLONE,  TGT_FILE_COPY_OFFLOAD,
	TGT_FILE_COPY_RW,
};

/* Is err a "this filesystem does not do that" answer (not a failure)? */
static int unsupported(int err)
{
	return err == -EOPNOTSUPP || err == -EXDEV || err == -EINVAL ||
	       err == -ENOSYS || err == -ENOTTY;
}

/* Files one measurement: seconds and bytes, or why it could not be made. */
static int store(struct job_run *jr, uint64_t bytes, const char *method, int it,
		 double secs, int err, int64_t allocated)
{
	struct workload w = { 0 };
	struct result r = { 0 };
	char text[320] = "";

	units_format_size(bytes, w.name, sizeof(w.name));
	snprintf(w.rw, sizeof(w.rw), "%s", method);
	w.pattern = WL_SEQUENTIAL;
	w.block_size = 1 << 20;
	w.queue_depth = 1;
	w.threads = 1;
	snprintf(w.group, sizeof(w.group), "%s", method);
	snprintf(w.sweep_field, sizeof(w.sweep_field), "size");
	w.sweep_value = (double)bytes;
	if (err == 0) {
		r.ios = 1;
		r.bytes = bytes;
		r.window_ns = (uint64_t)(secs * 1e9);
		r.lat_sum_ns = r.window_ns;
	} else {
		char detail[200];
		int n = snprintf(text, sizeof(text), "unsupported: %s (%s",
				 strerror(-err),
				 err == -EOPNOTSUPP ? "EOPNOTSUPP"
				 : err == -EXDEV    ? "EXDEV"
				 : err == -EINVAL   ? "EINVAL"
				 : err == -ENOSYS   ? "ENOSYS"
				 : err == -ENOTTY   ? "ENOTTY"
						    : "errno");
		/* the system's own words where errno loses them (Windows) */
		if (os_error_detail(detail, sizeof(detail)))
			snprintf(text + n, sizeof(text) - (size_t)n, "; %s)",
				 detail);
		else
			snprintf(text + n, sizeof(text) - (size_t)n, ")");
	}
	result_finish(&r);
	return job_stored(jr, archive_result_insert_note(
				      jr->a, jr->run_id, &w, it, &r, NULL,
				      err ? text : NULL, allocated));
}

/* A sentence the system left on how the method was done (os_take_note):
 * a warning on the run, once. */
static void warn_note(struct job_run *jr, const char *method)
{
	char note[240], text[300];

	if (!os_take_note(note, sizeof(note)))
		return;
	snprintf(text, sizeof(text), "file-create %s: %s", method, note);
	archive_run_warn(jr->a, jr->run_id, text);
}

/* Makes path by op (src: the zeros, for the copies); *secs the op alone. */
static int make(struct job_run *jr, enum tgt_file_op op, const char *src,
		const char *path, uint64_t bytes, double *secs)
{
	struct tgt_open_args dst = { .path = path,
				     .create = 1,
				     .session = jr->session };
	struct engine_opts o;
	uint64_t t0;
	int direct, rc;
	char stale[8];

	/* this op's words only */
	os_error_detail(stale, sizeof(stale));
	os_take_note(stale, sizeof(stale));
	if (op != TGT_FILE_ZEROS || tgt_can(jr->ops, op))
		return tgt_make_file(jr->ops, &dst, op, src, bytes, secs);
	/* zeros through the engine: direct I/O where the filesystem takes
	 * it, then a flush */
	o = job_engine_opts(jr, path);
	o.progress = NULL;
	t0 = os_now_ns();
	rc = engine_prepare_file(&o, bytes, WL_DATA_ZEROS, &direct);
	*secs = (double)(os_now_ns() - t0) / 1e9;
	return rc;
}

/* One iteration at one size: every method, each file removed after its
 * measurement but the zeros (the copies' source), removed at the end. */
static int iteration(struct job_run *jr, uint64_t bytes, const char *name,
		     int it, int first)
{
	const char *src = NULL, *p;
	size_t keep = jr->n_files;
	double secs = 0;
	int err = 0, rc = 0;

	for (size_t k = 0; k < FIELDS_N(methods) && rc == 0; k++) {
		enum tgt_file_op op = methods[k];
		const char *method = tgt_file_op_name(jr->ops, op);
		int64_t allocated = -1;
		if (op == TGT_FILE_VHDX_FIXED && !tgt_can(jr->ops, op))
			continue;
		if (jr->cancel && *jr->cancel)
			return -ECANCELED;
		job_phase(jr, "measuring", name, method, it);
		if ((rc = job_file_name(jr, jr->s->target, &p)) < 0)
			break;
		err = make(jr, op, src, p, bytes, &secs);
		if (err == -EEXIST) {
			/* not ours: left as it is, only forgotten */
			job_file_forget(jr, p);
			goto failed;
		}
		if (err < 0 && (op == TGT_FILE_ZEROS || !unsupported(err))) {
			job_file_remove(jr, p);
			goto failed;
		}
		if (err == 0)
			(void)tgt_allocated(jr->ops, p, jr->session,
					    &allocated);
		if (err == 0 && first)
			warn_note(jr, method);
		rc = store(jr, bytes, method, it, secs, err, allocated);
		if (op == TGT_FILE_ZEROS)
			src = p; /* kept for the copies */
		else if (err < 0 && tgt_allocated(jr->ops, p, jr->session,
						  &allocated) == -ENOENT)
			job_file_forget(jr, p); /* the method made no file */
		else
			job_file_remove(jr, p);
	}
	if (src)
		job_file_remove(jr, src);
	jr->n_files = keep; /* every name used here is gone */
	return rc;
failed:
	if (src)
		job_file_remove(jr, src);
	if (err == -EEXIST)
		snprintf(jr->error, sizeof(jr->error),
			 "refused: a file exists at %.110s and is not this "
			 "job's; "
			 "storbench writes only files it creates (O_EXCL) and "
			 "left it untouched",
			 jr->real[jr->n_files - 1]);
	else
		snprintf(jr->error, sizeof(jr->error), "file-create %s: %s",
			 name, strerror(-err));
	return err;
}

static int run(struct job_run *jr)
{
	json_t *sizes = json_object_get(jr->options, "sizes");
	size_t n = json_array_size(sizes), i;
	int rc;

	if (n == 0) {
		snprintf(jr->error, sizeof(jr->error),
			 "file-create: bad options");
		return -EINVAL;
	}
	/* files must really be written and removed, whatever back-end the
	 * job named (null does no I/O) */
	if (!(jr->ops->caps & TGT_CAP_FILES))
		jr->ops = tgt_local_default(NULL, 0);
	job_set_steps(jr, (int)n * jr->s->iterations, (int)n);
	if ((rc = job_run_create(jr, jr->s->direct, 0)) < 0)
		return rc;
	for (i = 0; i < n && rc == 0; i++) {
		uint64_t bytes =
			(uint64_t)json_integer_value(json_array_get(sizes, i));
		char name[32];
		units_format_size(bytes, name, sizeof(name));
		/* the file and its copy, with the reserve, as when queued */
		if ((rc = job_room(jr, jr->s->target, 2 * bytes)) < 0)
			return rc;
		for (int it = 1; it <= jr->s->iterations && rc == 0; it++) {
			rc = iteration(jr, bytes, name, it, i == 0 && it == 1);
			job_step(jr);
		}
	}
	return rc;
}

/* The sizes: as given, or [size] when the job gives size, or the defaults
 * that fit; each must fit twice (the file and its copy) with the reserve. */
static int check(struct preset_req *rq)
{
	json_t *given =
		json_object_get(json_object_get(rq->root, "options"), "sizes");
	json_t *v = json_object_get(rq->options, "sizes"), *list, *e;
	int size_given = json_object_get(rq->root, "size") != NULL;
	char why[300], field[64];
	size_t i;

	if (!v && size_given)
		v = json_pack("[I]", (json_int_t)rq->s->size);
	else if (!v)
		v = json_pack("[I, I, I]", (json_int_t)1 << 30,
			      (json_int_t)4 << 30, (json_int_t)16 << 30);
	else
		json_incref(v);
	if (!v || !(list = json_array())) {
		json_decref(v);
		return -ENOMEM;
	}
	json_array_foreach(v, i, e)
	{
		uint64_t b = (uint64_t)json_integer_value(e);
		if (jobtarget_fits(rq->s->target, rq->session, 2 * b, why,
				   sizeof(why)))
			goto fits;
		if (!given && !size_given)
			continue; /* a default that does not fit: dropped */
		if (!given)
			snprintf(field, sizeof(field), "size");
		else
			snprintf(field, sizeof(field), "options.sizes[%zu]", i);
		json_decref(v);
		json_decref(list);
		return field_fail(rq->e, field,
				  "does not fit: the file and its copy need "
				  "twice its size; %s",
				  why);
	fits:
		json_array_append(list, e);
	}
	json_decref(v);
	if (json_array_size(list) == 0) {
		json_decref(list);
		return field_fail(
			rq->e, "options.sizes",
			"none of the default sizes (1, 4, 16 GiB) fits "
			"twice (the file and its copy) in the target's "
			"free space minus the reserve; give "
			"options.sizes or size");
	}
	json_object_set_new(rq->options, "sizes", list);
	return 0;
}

static const struct metric metrics[] = {
	{ "seconds", "s", 0, "slower", "faster", "s", 3 },
};

const struct preset preset_file_create = {
	.version = PRESET_VERSION,
	.name = "file-create",
	.title = "Time to create and copy fixed-size files",
	.kind = "file-create",
	.flags = PRESET_OWN_ROOM,
	.defaults = { .size = 1ULL << 30, .iterations = 1, .duration_s = 5 },
	.options = options,
	.n_options = FIELDS_N(options),
	.check = check,
	.run = run,
	.metrics = metrics,
	.n_metrics = FIELDS_N(metrics),
	.compare_kind = "file-create",
	.view = "methods",
};
