/*
 * vs-fio — what the two files of storbench-vs-fio share: vs-fio.c (the
 * engine's side, the pairs, the table and the check) and vs-fio-fio.c
 * (fio's side: fio run with the same workload on the same file, its JSON
 * read into the same measures, and the huge pages its buffers ask for).
 */
#ifndef STORBENCH_VS_FIO_H
#define STORBENCH_VS_FIO_H

#include <limits.h>
#include <stdint.h>

#include "engine/workload.h"

struct xw {
	const char *name;
	enum wl_pattern pattern;
	unsigned read_pct;
	uint32_t bs;
	unsigned qd, threads;
};

/* One measurement by one tool. */
struct meas {
	double iops;
	double cpu_per_io_ns; /* (user + system) CPU time per I/O */
	double lat_mean_us;
	double p50_us, p99_us; /* NAN for a mixed workload on fio's side */
	double little;	       /* QD × T / IOPS ÷ mean latency */
};

/* The command line's settings (vs-fio.c parses them). */
struct vsfio_cfg {
	char dir[PATH_MAX];
	uint64_t size;
	double duration;
	int pairs;
	double settle; /* seconds of idle before every run on a device */
	int null_engine;
	int check;
	double tolerance;
	const char *only;
	int hugepages_old; /* -1: untouched */
};
extern struct vsfio_cfg cfg;

/* The test file both tools use, made and filled by storbench. */
extern char file[PATH_MAX + 64];

/* Runs argv (searched in PATH), returns its standard output (malloc'd, the
 * caller frees) or NULL. */
char *capture(char *const argv[]);

/* One fio run of workload x on file for cfg.duration into *m (its buffers
 * in huge pages when shmhuge). 0, or -1 with the reason on stderr. */
int run_fio(const struct xw *x, struct meas *m, int shmhuge);

/* Reserves huge pages for fio's buffers (iomem=shmhuge), keeping the
 * old count in cfg.hugepages_old: 1 when fio may use them, else 0. */
int reserve_hugepages(void);

/* Gives the huge pages back (the count before reserve_hugepages). */
void restore_hugepages(void);

#endif
