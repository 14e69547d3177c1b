/*
 * workload — the spec of one test: what the engine does for one iteration.
 * Plain data; validated by engine_run() (see engine.h for the rules).
 */
#ifndef STORBENCH_WORKLOAD_H
#define STORBENCH_WORKLOAD_H

#include <stdint.h>

/* The engine's limits on a workload (engine_run refuses what is outside). */
#define WL_MAX_QUEUE_DEPTH 1024
#define WL_MAX_THREADS 256

enum wl_sync {
	WL_SYNC_NONE,  /* writes land in the device's cache as it likes */
	WL_SYNC_DSYNC, /* O_DSYNC: every write is durable when it completes */
	WL_SYNC_FDATASYNC, /* fdatasync once sync_every writes have completed
			      since the last one; one call covers every write
			      completed before it (so with bursts of
			      completions it runs less often than 1/N) */
};

enum wl_pattern {
	WL_SEQUENTIAL, /* each thread walks its own region, wrapping at its end
			*/
	WL_RANDOM,     /* uniform block-aligned offsets over the whole file */
};

enum wl_data {
	WL_DATA_RANDOM, /* incompressible, and every 4 KiB written is unique */
	WL_DATA_ZEROS,	/* all zero bytes (CrystalDiskMark's "0Fill") */
	WL_DATA_REPEAT, /* one random 4 KiB block, the same in every write:
			   incompressible within a block, but a deduplicating
			   device stores it once */
};

enum wl_precondition {
	WL_PRE_NONE,	 /* the test as it finds the file */
	WL_PRE_FILL,	 /* first sequential 128 KiB writes of twice the
			    test's span, measured nowhere (SNIA PTS's
			    workload-independent preconditioning) */
	WL_PRE_WORKLOAD, /* rounds of the test's own workload until steady
			    (steady.on is then set) */
};

/* The SNIA PTS 2.0.2 steady state a test's rounds seek: each round is one
 * iteration of round_s seconds; the test ends when the last `window`
 * rounds' tracking metric varies by at most range_pct % of their mean (max
 * − min) and their least-squares line moves by at most slope_pct % of it
 * across the window, or after max_rounds rounds. */
struct wl_steady {
	int on;		     /* 0: the test runs its iterations as usual */
	int metric;	     /* 0 IOPS, 1 MB/s, 2 mean latency (steady.h) */
	double round_s;	     /* seconds per round */
	unsigned window;     /* rounds judged together */
	unsigned max_rounds; /* rounds at most */
	double range_pct;    /* limit on (max − min) / mean, % */
	double slope_pct;    /* limit on |slope| × (window − 1) / mean, % */
};

struct workload {
	char name[32]; /* CrystalDiskMark's name: "SEQ1M Q8T1" */
	enum wl_pattern pattern;
	unsigned read_pct;    /* 100 = read only, 0 = write only */
	uint32_t block_size;  /* bytes, a multiple of 512 */
	unsigned queue_depth; /* outstanding I/Os per thread, 1 …
				 WL_MAX_QUEUE_DEPTH */
	unsigned threads;     /* 1 … WL_MAX_THREADS, each with its own
				 target context */
	uint64_t file_size;   /* bytes, the span the I/Os cover */
	double duration_s;    /* measured window per iteration, seconds
				 (time-based: io_bytes == 0) */
	uint64_t io_bytes;    /* size-based: the iteration ends once this
				 many bytes have completed (split evenly
				 over the threads, whole blocks); 0 =
				 time-based */
	double ramp_s;	      /* seconds of I/O before the window opens,
				 excluded from every figure; 0 … 3600 */
	enum wl_sync sync;
	unsigned sync_every; /* writes per fdatasync (WL_SYNC_FDATASYNC),
				1 … 1000000; per thread */
	enum wl_data data;   /* what writes carry */
	/* reporting only (the engine ignores them): a direction label other
	 * than read/write/mix ("db read"), and a point of a sweep */
	char rw[16];
	char group[32];	      /* the sweep it belongs to, "" if none */
	char sweep_field[16]; /* the field swept: "threads" … */
	double sweep_value;   /* its value at this point */
	unsigned origin;      /* the request's test it came from (tests[i]) */
	/* the runner's, not the engine's (daemon/jobs/steady.h): what runs
	 * before the test, and the SNIA PTS steady state its rounds seek */
	enum wl_precondition precondition;
	struct wl_steady steady;
};

/* "read", "write" or "mix" for read_pct 100, 0 or anything between. */
static inline const char *wl_rw_name(unsigned read_pct)
{
	return read_pct == 100 ? "read" : read_pct == 0 ? "write" : "mix";
}

/* The direction a workload's results are filed under. */
static inline const char *wl_rw(const struct workload *w)
{
	return w->rw[0] ? w->rw : wl_rw_name(w->read_pct);
}

static inline const char *wl_pattern_name(enum wl_pattern p)
{
	return p == WL_SEQUENTIAL ? "sequential" : "random";
}

static inline const char *wl_data_name(enum wl_data d)
{
	return d == WL_DATA_ZEROS    ? "zeros"
	       : d == WL_DATA_REPEAT ? "repeat"
				     : "random";
}

static inline const char *wl_sync_name(enum wl_sync s)
{
	return s == WL_SYNC_DSYNC	? "dsync"
	       : s == WL_SYNC_FDATASYNC ? "fdatasync"
					: "none";
}

#endif
