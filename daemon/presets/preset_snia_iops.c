/*
 * preset_snia_iops — the SNIA PTS 2.0.2 IOPS test: purge (a discard of the
 * test span on a raw device; a file cannot be purged, which the run says),
 * workload-independent preconditioning (sequential 128 KiB writes of twice
 * the span), then rounds: each round runs every cell of the matrix block
 * size {1024, 128, 64, 32, 16, 8, 4, 0.5} KiB × read/write mix {100/0,
 * 95/5, 65/35, 50/50, 35/65, 5/95, 0/100} for round_s, random I/O at
 * PTS-E (QD 32 × 4 threads) or PTS-C (QD 16 × 2), until the tracking
 * variable (4 KiB 0/100 IOPS) is steady (steady.h) or max_rounds have run.
 * Every cell's rounds are its iterations; its result is the tracking
 * window's average, and the summary is the PTS report's table: IOPS per
 * block size (rows) and mix (columns).
 *
 * 0.5 KiB I/O needs 512-byte direct-I/O alignment: on a target whose
 * alignment is larger (4 KiB logical sectors) the 0.5 KiB cells are not
 * run, the run says why, and their row is empty.
 */
#include "preset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "engine/engine.h"
#include "jobs/jobrun.h"
#include "jobs/steady.h"
#include "planrun.h"
#include "planrun_steady.h"
#include "platform/sys.h"
#include "targets/target.h"

#define N_BS 8
#define N_MIX 7
#define N_CELLS (N_BS * N_MIX)
#define TRACK (6 * N_MIX + 6) /* 4 KiB, 0/100 */

static const uint32_t sizes[N_BS] = { 1048576, 131072, 65536, 32768,
				      16384,   8192,   4096,  512 };
static const char *const size_names[N_BS] = { "1024K", "128K", "64K", "32K",
					      "16K",   "8K",   "4K",  "0.5K" };
static const double size_kib[N_BS] = { 1024, 128, 64, 32, 16, 8, 4, 0.5 };
static const unsigned mixes[N_MIX] = { 100, 95, 65, 50, 35, 5, 0 };
static const char *const mix_keys[N_MIX] = { "r100", "r95", "r65", "r50",
					     "r35",  "r5",  "r0" };

static const char *const profiles[] = { "pts-e", "pts-c", NULL };

static const struct field options[] = {
	{ .name = "profile",
	  .type = FIELD_ENUM,
	  .choices = profiles,
	  .def = "\"pts-e\"",
	  .help = "the PTS's outstanding I/O: pts-e (enterprise: QD 32 × 4 "
		  "threads) or pts-c (client: QD 16 × 2 threads)" },
	{ .name = "purge",
	  .type = FIELD_BOOL,
	  .def = "true",
	  .help = "discard the test span first on a raw device that takes it "
		  "(a file cannot be purged: the run says so)" },
	{ .name = "steady_state",
	  .type = FIELD_OBJECT,
	  .sub = steady_fields,
	  .n_sub = STEADY_N_FIELDS,
	  .def = "{}",
	  .help = "the steady state of the tracking variable (4 KiB 0/100 "
		  "IOPS): round_s per cell and round, the window, max_rounds "
		  "and the range and slope limits (the PTS's by default)" },
};

/* A cell's test name: "RND4K 65/35". */
static void cell_name(size_t b, size_t m, char *buf, size_t len)
{
	snprintf(buf, len, "RND%s %u/%u", size_names[b], mixes[m],
		 100 - mixes[m]);
}

/* The matrix as the plan's tests, block size by block size. */
static int check(struct preset_req *rq)
{
	int pts_c = strcmp(json_string_value(
				   json_object_get(rq->options, "profile")),
			   "pts-c") == 0;
	json_t *ss = json_object_get(rq->options, "steady_state");
	char name[32];

	if (!(rq->tests = json_array()))
		return -ENOMEM;
	for (size_t b = 0; b < N_BS; b++)
		for (size_t m = 0; m < N_MIX; m++) {
			cell_name(b, m, name, sizeof(name));
			if (json_array_append_new(
				    rq->tests,
				    json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, "
					      "s:O}",
					      "name", name, "pattern", "random",
					      "read_pct", (int)mixes[m],
					      "block_size", (int)sizes[b],
					      "queue_depth", pts_c ? 16 : 32,
					      "threads", pts_c ? 2 : 4,
					      "steady_state", ss)) < 0)
				return -ENOMEM;
		}
	return 0;
}

/* The purge, said on the tracking cell's precondition record. */
static void purge(struct job_run *jr, const struct engine_opts *o, json_t *pre)
{
	char why[300], text[400];
	int rc;

	if (!json_is_true(json_object_get(jr->options, "purge"))) {
		json_object_set_new(pre, "purge", json_string("not asked for"));
		return;
	}
	if (!jr->device) {
		snprintf(text, sizeof(text),
			 "snia-iops: a file cannot be purged, so the drive is "
			 "not fresh out of the box (FOB); the test ran on the "
			 "file as it was, after preconditioning");
		archive_run_warn(jr->a, jr->run_id, text);
		json_object_set_new(pre, "purge", json_string("a file: none"));
		return;
	}
	rc = sys_device_discard(o->path, 0, jr->s->size, why, sizeof(why));
	if (rc < 0) {
		snprintf(text, sizeof(text),
			 "snia-iops: no purge: %s; the drive is not fresh out "
			 "of the box (FOB)",
			 why);
		archive_run_warn(jr->a, jr->run_id, text);
	}
	json_object_set_new(pre, "purge",
			    json_string(rc < 0 ? why : "discarded"));
}

/* Are the 0.5 KiB cells out of reach of direct I/O on this file? Says so
 * on the run. */
static int skip_small(struct job_run *jr, const struct engine_opts *o)
{
	uint32_t off = 512, mem = 512;
	char text[300];

	if (!o->direct || tgt_dio_align(jr->ops, o->path, &off, &mem) < 0 ||
	    off <= 512)
		return 0;
	snprintf(text, sizeof(text),
		 "snia-iops: the 0.5 KiB row is not measured: direct I/O on "
		 "this target needs %u-byte alignment (its logical sector), "
		 "and 512-byte I/O cannot be aligned to it",
		 off);
	archive_run_warn(jr->a, jr->run_id, text);
	return 1;
}

/* Each cell's record, judged over the tracking variable's window, stored
 * in one transaction (every cell summed over the window, or none); err
 * (how the rounds ended: 0, -ECANCELED or an error) is said in the warning
 * of a window that did not settle. */
static int records(struct job_run *jr, const struct plan *p, const double *y,
		   size_t stride, size_t n, int reached, int small, json_t *pre,
		   int err)
{
	const struct wl_steady *s = &p->w[TRACK].steady;
	struct steady_window tw, w;
	int rc = 0;

	steady_check(y + ((size_t)TRACK * 3 + (size_t)s->metric) * stride, n, s,
		     &tw);
	if ((rc = archive_batch_begin(jr->a)) < 0)
		return job_stored(jr, rc);
	for (size_t i = 0; rc == 0 && i < N_CELLS; i++) {
		const double *c = y + i * 3 * stride;
		json_t *rec;
		if (small && i >= (N_BS - 1) * N_MIX)
			continue;
		steady_judge(c + (size_t)s->metric * stride, tw.first, tw.last,
			     s, &w);
		rec = json_object();
		if (rec && planrun_steady_record(rec, s, c, stride, &w, n,
						 reached) < 0) {
			json_decref(rec);
			rec = NULL;
		}
		json_object_set_new(json_object_get(rec, "steady_state"),
				    "tracking", json_boolean(i == TRACK));
		if (i == TRACK)
			json_object_set(rec, "precondition", pre);
		rc = rec ? archive_condition_put(jr->a, jr->run_id,
						 p->w[i].name, wl_rw(&p->w[i]),
						 (int)tw.first, (int)tw.last,
						 rec)
			 : -ENOMEM;
		json_decref(rec);
	}
	if ((rc = job_stored(jr, archive_batch_end(jr->a, rc))) == 0 &&
	    !reached) {
		char who[64];
		snprintf(who, sizeof(who), "snia-iops, tracking %s",
			 p->w[TRACK].name);
		planrun_steady_warn(jr, who, s, &tw, n, err);
	}
	return rc;
}

/* The cells share one warned slot (PLANRUN_ONE_WARNED): each kind of
 * warning once per run, not once per cell (56 of them, every round). The
 * first time one is given, the run says so. */
static void warned_note(struct job_run *jr, unsigned char before,
			unsigned char warned)
{
	static const char note[] =
		"snia-iops: each kind of warning on a cell is given once per "
		"run, for the first cell it applied to; later cells may have "
		"it too (their figures are on the run)";

	if (!before && warned)
		archive_run_warn(jr->a, jr->run_id, note);
}

/* Rounds over the matrix until the tracking cell is steady. */
static int rounds(struct job_run *jr, struct planrun_file *f,
		  const struct plan *p, int small, json_t *pre,
		  unsigned char *warned)
{
	const struct wl_steady *s = &p->w[TRACK].steady;
	size_t stride = s->max_rounds, n = 0;
	double *y = calloc((size_t)N_CELLS * 3 * stride, sizeof(double));
	struct steady_window tw;
	int reached = 0, rc = 0;

	if (!y)
		return -ENOMEM;
	while (rc == 0 && !reached && n < s->max_rounds) {
		for (size_t i = 0; rc == 0 && i < N_CELLS; i++) {
			struct result r = { 0 };
			unsigned char before = *warned;
			if (small && i >= (N_BS - 1) * N_MIX)
				continue;
			rc = planrun_file_test(f, i, (int)n + 1, &r);
			warned_note(jr, before, *warned);
			/* tests_done counts the cells of this round */
			job_tests_done(jr, (int)i + 1);
			const double v[3] = { r.iops, r.mb_s, r.lat_mean_us };
			for (int m = 0; rc == 0 && m < 3; m++)
				y[(i * 3 + (size_t)m) * stride + n] = v[m];
		}
		if (rc == 0)
			reached = steady_check(
				y + ((size_t)TRACK * 3 + (size_t)s->metric) *
						stride,
				++n, s, &tw);
	}
	/* cancelled or failed: the whole rounds done are kept and judged */
	if (n > 0) {
		int put = records(jr, p, y, stride, n, reached, small, pre, rc);
		if (rc == 0)
			rc = put;
	}
	free(y);
	return rc;
}

/* The progress's shape: the fill, then each cell measured (the 0.5 KiB
 * row's too unless small) in each of at most max_rounds rounds, which are
 * its iterations. */
static void cells(struct job_run *jr, const struct plan *p, int small)
{
	int n = N_CELLS - (small ? N_MIX : 0);

	job_set_steps(jr, 1 + n * (int)p->w[0].steady.max_rounds, n);
	job_set_iterations(jr, (int)p->w[0].steady.max_rounds);
}

static int run(struct job_run *jr)
{
	struct plan p = { 0 };
	struct planrun_file *f = NULL;
	unsigned char warned = 0; /* every cell's: PLANRUN_ONE_WARNED */
	struct engine_opts o;
	json_t *pre = NULL, *fill = NULL;
	int rc = planrun_plan(jr, &p, jr->error, sizeof(jr->error));

	if (rc == 0 && p.n != N_CELLS) {
		snprintf(jr->error, sizeof(jr->error),
			 "the stored plan has %zu tests, not the %d cells of "
			 "the matrix",
			 p.n, N_CELLS);
		rc = -EINVAL;
	}
	if (rc == 0) {
		cells(jr, &p, 0);
		rc = planrun_file_open(jr, &p, &warned, PLANRUN_ONE_WARNED, &f);
	}
	if (rc == 0)
		rc = planrun_file_begin(f, &o);
	/* purge, then precondition, then the rounds (PTS 2.0.2, 7.x) */
	if (rc == 0 && !(pre = json_object()))
		rc = -ENOMEM;
	if (rc == 0) {
		purge(jr, &o, pre);
		rc = planrun_fill(f, jr, p.w[0].data, &fill);
	}
	if (rc == 0) {
		int small = skip_small(jr, &o);
		if (small)
			cells(jr, &p, small);
		json_object_update(pre, fill);
		rc = rounds(jr, f, &p, small, pre, &warned);
	}
	json_decref(fill);
	json_decref(pre);
	planrun_file_close(f, 0);
	plan_free(&p);
	return rc;
}

/* --- the PTS report's table --- */

/* The window average IOPS of each cell, a row per block size. */
static json_t *table(json_t *tests, json_t *opts)
{
	json_t *out = json_array(), *t;
	char name[32];
	size_t k;

	(void)opts;
	for (size_t b = 0; out && b < N_BS; b++) {
		json_t *row = json_pack("{s:f, s:I}", "block_kib", size_kib[b],
					"block_size", (json_int_t)sizes[b]);
		int any = 0;
		for (size_t m = 0; row && m < N_MIX; m++) {
			json_t *v = json_null();
			cell_name(b, m, name, sizeof(name));
			json_array_foreach(tests, k, t)
			{
				json_t *r = json_object_get(
					json_object_get(t, "steady_state"),
					"result");
				if (strcmp(json_string_value(
						   json_object_get(t, "test")),
					   name) == 0 &&
				    json_is_number(
					    json_object_get(r, "iops"))) {
					json_decref(v);
					v = json_incref(
						json_object_get(r, "iops"));
					any = 1;
				}
			}
			json_object_set_new(row, mix_keys[m], v);
		}
		if (row && !any)
			json_object_set_new(row, "note",
					    json_string("not measured"));
		json_array_append_new(out, row);
	}
	return out;
}

static void row_name(json_t *row, char *buf, size_t len)
{
	snprintf(buf, len, "RND %g KiB",
		 json_number_value(json_object_get(row, "block_kib")));
}

#define MIX_METRIC(k, w)                                                       \
	{                                                                      \
		k, "I/O/s", 1, "more", "fewer", "IOPS at " w, 0                \
	}
static const struct metric metrics[] = {
	MIX_METRIC("r100", "100/0"), MIX_METRIC("r95", "95/5"),
	MIX_METRIC("r65", "65/35"),  MIX_METRIC("r50", "50/50"),
	MIX_METRIC("r35", "35/65"),  MIX_METRIC("r5", "5/95"),
	MIX_METRIC("r0", "0/100"),
};

static const struct preset_column columns[] = {
	{ "block_kib", "Block size (KiB)", 1, 0, NULL },
	{ "r100", "100/0", 0, 1, NULL },
	{ "r95", "95/5", 0, 1, NULL },
	{ "r65", "65/35", 0, 1, NULL },
	{ "r50", "50/50", 0, 1, NULL },
	{ "r35", "35/65", 0, 1, NULL },
	{ "r5", "5/95", 0, 1, NULL },
	{ "r0", "0/100", 0, 1, NULL },
};

static const struct preset_rows rows = {
	.title = "SNIA PTS IOPS (window average, read/write mix)",
	.x = "block_kib",
	.y_title = "IOPS",
	.columns = columns,
	.n_columns = FIELDS_N(columns),
	.kind = "snia-iops",
	.metrics = metrics,
	.n_metrics = FIELDS_N(metrics),
	.row_name = row_name,
};

const struct preset preset_snia_iops = {
	.version = PRESET_VERSION,
	.name = "snia-iops",
	.title = "SNIA PTS 2.0.2 IOPS: purge, precondition, block size × "
		 "read/write mix rounds until steady",
	.kind = "snia-iops",
	.flags = PRESET_RAW_DEVICE | PRESET_OWN_ROUNDS,
	.defaults = { .size = 1ULL << 30, .iterations = 1, .duration_s = 60 },
	.options = options,
	.n_options = FIELDS_N(options),
	.check = check,
	.plan_field = "options",
	.run = run,
	.summary_key = "snia_iops",
	.summary = table,
	.rows = &rows,
	.view = "rows",
};
