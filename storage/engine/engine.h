/*
 * engine — runs one test (a workload) on one target and counts what happened.
 *
 * Design: one POSIX thread per workload thread, each with its own target
 * context and its own buffers; they start together behind a barrier and keep
 * queue_depth I/Os in flight until the deadline. The window is one span of
 * wall-clock time for every thread: it opens ramp_s after the gate opens
 * (what completes in the ramp is counted nowhere) and closes duration_s
 * later, so a thread that was slow to get going counts less, as a device
 * with a slow start would. A result's window is the longest of its threads'
 * (each closes at the last completion of what it issued before the
 * deadline). Latency of one
 * I/O runs from the moment its queue slot is free (the reap that returned
 * its predecessor, or the thread's start) to the reap that returns it, on the
 * monotonic clock (CLOCK_MONOTONIC on Linux): fio's lat, slat + clat; one
 * clock read per reaped batch. Each completed I/O is replaced by a new one
 * submitted on its own, as fio does by default. From the deadline on a
 * thread issues nothing new and drains what is in flight, and every I/O of
 * the drain counts, as fio counts it: the thread's window closes at the
 * last completion, so every I/O issued before the deadline is in the
 * result, with the time it took (a device that stalls at the end shows as a
 * longer window and slower I/Os, not as I/Os that vanished). A failure or a
 * cancel counts nothing after it. The calling thread meanwhile reports
 * progress every ~250 ms; the CPU time (os_cpu_times, the whole process:
 * engine threads, a back-end's workers, kernel work charged to them) runs
 * from the moment the last thread's window opened to the moment the last
 * one closed (each taken by the thread that did it): the ramp and the
 * set-up are not in it, the drain is.
 *
 * The engine never touches anything but the test file it is given; creating
 * and filling that file is engine_prepare_file(), removing it is the caller's
 * (tgt_unlink), so a caller can keep the file across tests as CrystalDiskMark
 * does. The clock is os_now_ns() (os.h).
 */
#ifndef STORBENCH_ENGINE_H
#define STORBENCH_ENGINE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "histogram.h"
#include "probe/hostctr.h"
#include "result.h"
#include "targets/target.h"
#include "workload.h"

struct engine_progress {
	double fraction;  /* of this call's work, 0 … 1 */
	double live_mb_s; /* over the last report interval, 10^6 B/s */
	double live_iops;
	int ramping; /* the ramp is running: nothing is counted yet */
};

typedef void (*engine_progress_fn)(void *arg, const struct engine_progress *p);

struct engine_sample;

/* One finished second of the measured window (see engine_opts.sample_done):
 * second is its index, s its counts over every thread, 1 s long. */
typedef void (*engine_sample_fn)(void *arg, unsigned second,
				 const struct engine_sample *s);

struct engine_opts {
	const struct tgt_ops *ops;
	const void *session;	     /* the back-end's own arguments
					(tgt_open_args.session), or NULL */
	const char *path;	     /* the test file */
	int device;		     /* path is a raw block device the
					admin allowed: engine_prepare_file
					writes it in place, never creates
					or removes it */
	int direct;		     /* ask for O_DIRECT */
	const atomic_int *cancel;    /* non-zero: stop as soon as possible */
	engine_progress_fn progress; /* may be NULL */
	void *progress_arg;
	char *error; /* receives a sentence on failure */
	size_t error_len;
	struct hist *hist;		/* NULL, or receives the latencies of
					   the I/Os counted by engine_run,
					   merged over threads (ns) */
	struct engine_samples *samples; /* NULL, or receives per-second
					   counts (see below) */
	struct hist *hist_dir[2];	/* NULL, or receive the latencies of
					   the reads [0] and writes [1] */
	engine_sample_fn sample_done;	/* NULL, or called (with samples set)
					   on the calling thread with every
					   second of the window once each
					   thread has counted a quarter second
					   past its end (within ~50 ms more),
					   so a caller can store it before the
					   run ends; what is reported is final
					   (no ragged end is ever folded into
					   it), and the seconds not reported
					   (the last, ragged or folded, and any
					   missed) come only in samples, at the
					   end */
	void *sample_arg;
	uint64_t *seq_pos;	  /* NULL, or w->threads entries: where each
				     thread's sequential stream starts (read
				     when the run starts, 0 for a fresh pass)
				     and where it stopped (written when it
				     ends), so a window measured in slices
				     (an interleaved job's) reads on through
				     the file instead of over its start */
	int64_t start_at_ns;	  /* 0, or the wall clock (os_wall_ns) at which
				     the start gate opens (the ramp, then the
				     window): the hosts of a multi-host job are
				     told one time; a time passed opens at once */
	struct hostctr *counters; /* NULL, or the host's and the device's
				     counters (hostctr.h), marked by the
				     calling thread at the window's
				     opening, each second's end (within
				     ~1 ms) and the window's close, into
				     samples->ctr; a struct hostctr of
				     its own per task */
};

/*
 * Per-second counts of one engine_run: second i covers [i, i+1) s of the
 * measured window (the last one ends with the window: its length is
 * `last_s`, 0.25 … 1.25 s when the window is longer than a second, since a
 * sliver under 0.25 s is folded into the second before it). Index 0 is reads, 1
 * writes. Counts are of the same I/Os as the result, so summing every second
 * gives the result's ios, bytes and latency sum exactly. The caller owns the
 * struct; engine_run fills n (≤ cap) and the arrays, which the caller allocates
 * with cap entries.
 */
struct engine_sample {
	uint64_t ios[2], bytes[2], lat_sum_ns[2];
};

struct engine_samples {
	struct engine_sample *s; /* cap entries, caller-allocated */
	unsigned cap;		 /* seconds the array holds; later seconds
				    are added to the last one */
	unsigned n;		 /* seconds filled */
	double last_s;		 /* length of the last second, s */
	double *len_s; /* NULL, or cap entries: each second's length, s,
			  where the seconds are a window's measured in
			  slices (engine_samples_append), not all 1 s */
	struct hostctr_sample *ctr; /* NULL, or cap entries: the counters
				       (engine_opts.counters) over each
				       second, the same seconds as s (the
				       folded end too); entry i is filled
				       before sample_done reports second
				       i; an entry without them (a second
				       the calling thread missed) has
				       have 0 */
};

/* The length of second i of s, in seconds: len_s[i], or 1 but for the
 * last (last_s). */
double engine_second_len(const struct engine_samples *s, unsigned i);

/*
 * Appends from's seconds (a slice of a window: one engine_run's) to to's,
 * with their lengths and counters (to->len_s must be set; to->ctr too for
 * from's counters to be kept): what a window measured in slices keeps. A
 * second past to->cap is added to the last one (its counters kept from the
 * first). to->last_s becomes the last second's length.
 */
void engine_samples_append(struct engine_samples *to,
			   const struct engine_samples *from);

/*
 * Creates o->path (O_CREAT|O_EXCL|O_NOFOLLOW: never an existing file) and
 * writes size bytes to it in 1 MiB writes, then fsyncs it. data says what:
 * WL_DATA_RANDOM refills every block with fresh random bytes, so the file
 * holds no repeated block. size must be a multiple of 1 MiB. *direct
 * receives whether direct I/O was in effect. Returns 0, -ECANCELED when
 * cancelled, or a negative errno with o->error filled; on failure the file
 * is removed.
 */
int engine_prepare_file(const struct engine_opts *o, uint64_t size,
			enum wl_data data, int *direct);

/*
 * Runs one iteration of w on the existing test file o->path, whose size is
 * at least w->file_size: for w->duration_s after the ramp (time-based), or
 * until w->io_bytes have completed (size-based). With direct I/O in effect,
 * a block size the file's direct-I/O alignment does not divide fails with
 * -EINVAL and a sentence saying what the alignment is. Fills *r (counts summed
 * over threads, derived figures computed). Returns 0, -EINVAL for a workload
 * outside the rules in workload.h (with o->error saying which), -ECANCELED when
 * cancelled (r holds what was counted), or the negative errno of a failed I/O
 * or set-up.
 */
int engine_run(const struct engine_opts *o, const struct workload *w,
	       struct result *r);

/*
 * Several workloads at once, each on its own file with its own options
 * (path, back-end, direct, histograms, samples, error), behind one start gate
 * and one measured window — a database and its log, say. Every workload must
 * be time-based with the same ramp and duration; tasks[0].o gives the
 * progress callback and the cancel flag. Each task's r receives its own
 * counts; the CPU figures are the whole run's, the same on every task.
 * Returns 0, -EINVAL (a workload outside the rules, more than
 * ENGINE_MAX_TASKS tasks or 1024 threads), -ECANCELED, or the first error.
 */
#define ENGINE_MAX_TASKS 64
struct engine_task {
	const struct engine_opts *o;
	const struct workload *w;
	struct result r;
};
int engine_run_group(struct engine_task *tasks, size_t n);

#endif
