/*
 * fleet_int — what the coordinator's files share (fleet.c: the thread and
 * its jobs' ends; fleet_job.c: one job with its hosts; fleet_sum.c: the
 * aggregate run).
 */
#ifndef STORBENCH_FLEET_INT_H
#define STORBENCH_FLEET_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <jansson.h>

#include "archive/archive.h"
#include "fleet.h"
#include "peers.h"

#define FLEET_MAX 64	     /* hosts of one job */
#define FLEET_MAX_SKEWS 4096 /* windows whose start skew is kept */

struct fleet {
	struct archive *a; /* the coordinator's own connection */
	pthread_t tid;
	int started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stopping;	    /* under mu */
	int kicked;	    /* under mu */
	int64_t current;    /* the running job, 0 none; under mu */
	atomic_int cancel;  /* the running job is to stop */
	json_t *progress;   /* the running job's, under mu */
	char hostname[256]; /* this host's, for the hosts' records */
};

/* One host of a job. */
struct fleet_host {
	char name[65];
	struct peer peer;
	struct peer_clock clk;
	int64_t offset_ns;	    /* its clock minus ours (the probe's) */
	int64_t job;		    /* its job there, 0 before */
	char state[16];		    /* its job's state as it last said */
	json_t *progress;	    /* its job's progress as it last said */
	uint64_t answered_ns;	    /* os_now_ns of its last answer */
	int64_t remote_run;	    /* its run there, 0 none */
	int64_t local_run;	    /* that run imported here, 0 none */
	struct archive_window *win; /* local_run's windows (fleet_sum) */
	size_t n_win;
	double common_share_min; /* the least share of its windows inside
				    the common ones */
	int64_t skew_max_ns;	 /* the latest it opened after the earliest
				    host, over the windows */
	char error[256];
};

/* One multi-host job while the coordinator runs it. */
struct fleet_job {
	struct fleet *f;
	struct archive *a;
	int64_t id;
	const struct job_spec *s;
	json_t *req; /* the request each host is sent, without hosts */
	double clock_bound_ms;
	double peer_timeout_s; /* a host silent this long has failed */
	size_t n;
	struct fleet_host hosts[FLEET_MAX];
	int64_t agg_run;		   /* the aggregate run, 0 before */
	int64_t skews_ns[FLEET_MAX_SKEWS]; /* each window's: the latest
					      host's opening after the
					      earliest's */
	size_t n_skews;
	int gates;     /* windows started */
	json_t *sweep; /* the job's hosts_sweep (host counts), or NULL */
	size_t point;  /* this run's host count in it (0: none) */
	char error[512];
};

/* Runs job j from its hosts' probe to its aggregate run (fleet_job.c).
 * 0 done; -ECANCELED; or another negative errno with j->error saying
 * what failed, naming the host. */
int fleet_job_run(struct fleet_job *j);
/* Frees what fleet_job_run kept in j. */
void fleet_job_clear(struct fleet_job *j);

/* The aggregate of j's hosts' runs (local_run each; their windows read
 * once into hosts[].win) into j->agg_run (fleet_sum.c): store 0 works out
 * each host's start skew and common share and j->skews_ns only, store 1
 * stores every aggregate iteration. 0 or a negative errno with j->error. */
int fleet_sum(struct fleet_job *j, int store);

#endif
