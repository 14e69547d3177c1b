/*
 * engine_int — what the files of the engine share; nothing outside
 * storage/engine/engine*.c includes it. engine.h has the contract.
 *
 * The files, and which way the calls go (never back up):
 *
 *   engine.c          the public entry points; checks a workload, runs a
 *                     group of threads behind one gate and sums them
 *     -> engine_thread.c   one engine thread: buffers, the I/O loop,
 *                          submission, stamping, its measured window
 *          -> engine_rng.c random numbers and data patterns
 *     -> engine_samples.c  per-second samples: merge, stream, the ragged
 *                          end; the counters' marks (hostctr.h)
 *
 * Ownership: engine.c allocates the threads (struct engine_thread, zeroed),
 * sets each up with engine_thread_init, starts engine_thread_main on it, and
 * after the join reads its counts and frees it with engine_thread_free.
 * While a thread runs, the calling thread reads only its atomics (live_*,
 * smp_sealed) and the seconds of smp below smp_sealed.
 */
#ifndef STORBENCH_ENGINE_INT_H
#define STORBENCH_ENGINE_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "engine.h"
#include "os/os.h"

/* xoshiro256** — fast, good enough for offsets and incompressible data.
 * The step is inline: it is on the I/O path (engine_thread.c). */
struct engine_rng {
	uint64_t s[4];
};

static inline uint64_t engine_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t engine_rng_next(struct engine_rng *g)
{
	uint64_t r = engine_rng_rotl(g->s[1] * 5, 7) * 9, t = g->s[1] << 17;

	g->s[2] ^= g->s[0];
	g->s[3] ^= g->s[1];
	g->s[1] ^= g->s[2];
	g->s[0] ^= g->s[3];
	g->s[2] ^= t;
	g->s[3] = engine_rng_rotl(g->s[3], 45);
	return r;
}

/* How a run of threads stops and what it does besides measuring. */
struct engine_mode {
	int create;	      /* the first open creates the file */
	uint64_t bytes_limit; /* 0: time-based; else stop after this many,
				 over all threads */
	int refresh;	      /* refill a write buffer before each submission
				 (random data only) */
	int fsync_at_end;
};

struct engine_shared {
	/* the start gate: each thread reports ready, then waits for go; at
	 * the end each finished thread signals cv (the caller waits there) */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned ready;
	int go;
	uint64_t start_ns;   /* when the gate opened (set before go) */
	atomic_int stop;     /* a thread failed: everybody stops */
	atomic_int finished; /* threads that left their loop */
	atomic_int opened;   /* threads whose measured window is open */
	atomic_int closed;   /* threads whose measured window has closed */
	unsigned started;    /* threads running (set before go) */
	/* the process's CPU time when the last window opened and when the
	 * last one closed, taken by the thread that did it */
	struct os_cpu ru_open, ru_close;
	int have_open, have_close;
};

struct engine_thread {
	struct engine_shared *sh;
	const struct engine_opts *o; /* its member's: file, back-end, outputs */
	const struct workload *w;
	const struct engine_mode *m;
	unsigned index; /* within its member */
	struct tgt t;
	struct tgt_io *slots;
	struct tgt_io **done;
	void *buf; /* every slot's buffer, one mapping */
	size_t buf_len;
	struct engine_rng rng;
	uint64_t region_start, region_len, seq_pos, issued_bytes;
	uint64_t io_limit;  /* size-based: this thread's bytes; else 0 */
	uint64_t stamp_seq; /* counts stamped 4 KiB blocks (stamp_blocks) */
	uint64_t
		writes_unsynced; /* completed writes since the last fdatasync */
	_Atomic uint64_t live_bytes, live_ios;
	struct result r;
	struct hist *hd[2];	   /* this thread's latencies by direction, when
				      either or all are asked for */
	struct engine_sample *smp; /* this thread's per-second counts */
	unsigned smp_cap;
	/* seconds [0, smp_sealed) of smp are final (released after they are
	 * written; UINT_MAX once the thread counts no more): what the calling
	 * thread may read while the run goes on
	 * (engine_samples_stream) */
	_Atomic unsigned smp_sealed;
	int rc;
	int direct;
	int opened, closed; /* this thread has counted into sh->opened/closed */
	char error[200];
	pthread_t tid;
};

/* --- engine_rng.c --- */

/* Seeds g from the OS's random bytes, mixed with salt so threads never
 * share a stream. */
void engine_rng_seed(struct engine_rng *g, uint64_t salt);
/* Fills len bytes (a multiple of 8) with random words from g. */
void engine_rng_fill(struct engine_rng *g, void *buf, size_t len);
/* Fills a buffer with a data pattern: random bytes from g, zeros, or one
 * 4 KiB block from a fixed seed repeated (the same in every thread and run). */
void engine_fill_pattern(void *buf, size_t len, enum wl_data data,
			 struct engine_rng *g);

/* --- engine_thread.c --- */

/* Sets up thread e (zeroed) as thread i of its workload w on options o,
 * sharing sh and m; seed makes its random stream its own. */
void engine_thread_init(struct engine_thread *e, struct engine_shared *sh,
			const struct engine_opts *o, const struct workload *w,
			const struct engine_mode *m, unsigned i, unsigned seed);
/* The thread's body (pthread_create's start routine, arg a struct
 * engine_thread): opens the target, waits at the gate, runs the I/O loop,
 * closes; e->rc and e->error say how it went. */
void *engine_thread_main(void *arg);
/* Frees what the thread allocated (after the join; safe on a thread that
 * never started). */
void engine_thread_free(struct engine_thread *e);

/* --- engine_samples.c --- */

/*
 * The measured window of workload w once the start gate opened at start_ns
 * (os_now_ns, ns): it opens after the ramp (engine_open_ns) and, for a
 * time-based test, closes duration_s later (engine_deadline_ns). One
 * formula for the calling thread, which marks the counters at the window's
 * seconds and its close (engine.c), and for every I/O thread, which stops
 * at the deadline (engine_thread.c): the two must meet to the nanosecond.
 */
static inline uint64_t engine_open_ns(const struct workload *w,
				      uint64_t start_ns)
{
	return start_ns + (uint64_t)(w->ramp_s * 1e9);
}

static inline uint64_t engine_deadline_ns(const struct workload *w,
					  uint64_t start_ns)
{
	return engine_open_ns(w, start_ns) + (uint64_t)(w->duration_s * 1e9);
}

/* A ragged end of the window shorter than this is folded into the second
 * before it; a thread seals a second only once its window has run this far
 * past the second's end, so a second streamed is never folded into after. */
#define ENGINE_FOLD_NS 250000000ULL

/* Empties out (its cap seconds) before the threads are merged into it. */
void engine_samples_begin(struct engine_samples *out);
/* Adds thread e's per-second counts into out. */
void engine_samples_merge(struct engine_samples *out,
			  const struct engine_thread *e);
/* Sets out->n and out->last_s from the window, folding a ragged end. */
void engine_samples_end(struct engine_samples *out, uint64_t window_ns);
/* Reports, through o->sample_done, the seconds every one of th[0..n) has
 * sealed since the last call (*done: how many are reported so far). */
void engine_samples_stream(const struct engine_opts *o,
			   const struct engine_thread *th, unsigned n,
			   unsigned *done);

/* Which boundary of the window each counter slot holds (engine_opts
 * .counters): the calling thread's, one per task. */
struct engine_marks {
	unsigned next;		  /* the next boundary to mark */
	long held[HOSTCTR_MARKS]; /* slot → boundary (0: the opening), or
				     -1 */
	unsigned end_slot;	  /* 1 + the slot of the close, or 0 */
};
/* Forgets the marks and empties o->samples->ctr: before the gate opens. */
void engine_marks_begin(const struct engine_opts *o, struct engine_marks *m);
/* Marks the boundary now has reached (window opened at open_ns), once,
 * and fills the second it ends. now ≥ a boundary that was skipped
 * leaves that second empty. */
void engine_marks_tick(const struct engine_opts *o, struct engine_marks *m,
		       uint64_t open_ns, uint64_t now);
/* Marks the window's close (once). */
void engine_marks_close(const struct engine_opts *o, struct engine_marks *m);
/* After engine_samples_end: fills the last second (n − 1) from its opening
 * to the close, and empties the entries after it. */
void engine_marks_end(const struct engine_opts *o, struct engine_marks *m);

#endif
