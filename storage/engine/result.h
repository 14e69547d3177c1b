/*
 * result — the numbers of one iteration of one test, and the rules that turn
 * counts into figures. Kept apart from the engine so the math is testable.
 *
 * Units: MB/s is 10^6 bytes per second (CrystalDiskMark's convention), MiB/s
 * 2^20 bytes per second, IOPS completed I/Os per second, latency microseconds.
 */
#ifndef STORBENCH_RESULT_H
#define STORBENCH_RESULT_H

#include <stdint.h>

struct result {
	/* counted by the engine, inside the measured window */
	uint64_t ios;	       /* I/Os completed */
	uint64_t bytes;	       /* bytes those I/Os moved */
	uint64_t lat_sum_ns;   /* sum of (completion - submission) */
	uint64_t window_ns;    /* length of the measured window */
	int64_t start_unix_ns; /* the wall clock (os_wall_ns, ns since 1970
				  UTC) at the window's opening, so the
				  windows of a multi-host job's hosts line
				  up; 0 unknown (an import, an older run) */
	double cpu_user_s;     /* process CPU time from the start gate to the
				  end of the test, user and system, seconds */
	double cpu_sys_s;
	uint64_t syncs; /* fdatasync calls made in the window */
	/* the same counts by direction: [0] reads, [1] writes */
	uint64_t dir_ios[2], dir_bytes[2], dir_lat_sum_ns[2];
	/* derived by result_finish() */
	double seconds;
	double mb_s;
	double mib_s;
	double iops;
	double lat_mean_us;
};

/* Fills the derived fields from the counts. A zero window gives zero rates
 * (MB/s, MiB/s, IOPS); the mean latency needs only ios and lat_sum_ns. */
void result_finish(struct result *r);

/* Adds b's counts to a (threads of one test); derived fields untouched. */
void result_add(struct result *a, const struct result *b);

/*
 * Index of the headline iteration among n: the highest MB/s
 * (CrystalDiskMark's "best of N"); the first one on a tie. -1 when n is 0.
 */
int result_best(const struct result *r, int n);

#endif
