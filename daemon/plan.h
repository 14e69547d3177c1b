/*
 * plan — a job's tests as data: the ordered list of workloads the queue runs.
 *
 * A job names a built-in profile (its tests are expanded here) or the
 * profile "custom" with its own `tests` array. Either way the job is queued
 * with its plan written out in full (plan_json), so what ran is what was
 * asked for even if a later version changes a preset, and the run keeps it.
 *
 * A test object (request and stored form; every field optional in a request):
 *   name         string, 1 … 31 bytes, no control characters, no leading or
 *                trailing space; default
 *                CrystalDiskMark-style from the fields ("RND4K Q32T1",
 *                "SEQ1M Q8T1", a mix adds its read share: "RND8K Q16T2 R70")
 *   pattern      "sequential" | "random"                    (random)
 *   read_pct     integer 0 … 100; 100 read, 0 write          (100)
 *   block_size   bytes, integer or "4KiB"; a multiple of 512, ≤ 64 MiB (4KiB)
 *   queue_depth  integer 1 … 1024, I/Os in flight per thread (1)
 *   threads      integer 1 … 256                             (1)
 *   duration_s   seconds 0.5 … 3600, the measured window      (the job's)
 *   io_size      bytes, integer or "1GiB": size-based — the iteration ends
 *                after exactly this much I/O, a multiple of threads ×
 *                block_size; 0 = time-based                   (0)
 *   ramp_s       seconds 0 … 3600 of I/O before the window; time-based only
 *                (a size-based test does not take the job's ramp)
 *   sync         "none" | "dsync" (O_DSYNC) | "fdatasync"    (none);
 *                not for a read-only test
 *   sync_every   writes per fdatasync, 1 … 1000000 (sync "fdatasync" only)
 *   data         "random" | "zeros" | "repeat"               (the job's)
 */
#ifndef STORBENCH_PLAN_H
#define STORBENCH_PLAN_H

#include <stddef.h>

#include <jansson.h>

#include "profiles.h"
#include "workload.h"

#define PLAN_MAX_TESTS 64
#define PLAN_MAX_BUFFERS (1ULL << 30) /* queue_depth × threads × block_size */

struct plan {
	struct workload *w;
	size_t n;
};

/* Where a plan is wrong: the field ("tests[2].block_size") and why. */
struct plan_error {
	char field[64];
	char detail[400];
};

/*
 * Parses a tests array (a request's or a stored plan) into *out (caller:
 * plan_free). def gives the job-wide values a test does not set: file_size,
 * duration_s, ramp_s and data (the other fields of def are ignored).
 * Returns 0, -EINVAL with *e filled, or -ENOMEM.
 */
int plan_parse(json_t *tests, const struct workload *def, struct plan *out,
	       struct plan_error *e);
/* The same for a plan the daemon stored itself: its tests may carry the
 * "sweep" object that marks a point (a request may not). */
int plan_parse_stored(json_t *tests, const struct workload *def,
		      struct plan *out, struct plan_error *e);

/* Expands profile p with the job-wide values in def (as above). */
int plan_from_profile(const struct profile *p, const struct workload *def,
		      struct plan *out);

/* The plan in its explicit stored form: every field of every test. */
json_t *plan_json(const struct plan *p);

void plan_free(struct plan *p);

/* Any control character in UTF-8 text: C0, DEL, or C1 (U+0080–U+009F,
 * which terminals obey too)? */
int utf8_has_control(const char *s);

/* Is s valid UTF-8 (RFC 3629: no overlong forms, no surrogates)? */
int utf8_valid(const char *s);

/* Replaces every byte of s that does not belong to a valid UTF-8 sequence
 * with '?', in place: text from a file or a request, made fit for JSON
 * (which holds only UTF-8) without refusing it. */
void utf8_sanitize(char *s);

/* A byte count in JSON: a non-negative integer, or a string with a unit
 * ("4KiB", "1GiB", see units.h). 0, -ERANGE (too large) or -EINVAL. */
int json_to_bytes(json_t *v, uint64_t *out);

#endif
