/*
 * fleet — multi-host jobs: this daemon as the coordinator of storbench
 * daemons on several hosts (its peers, peers.h, and itself as "self")
 * that act as one load generator.
 *
 * A job with "hosts" is queued like any job but run here, not by the
 * queue's worker (jobq.h): a thread of its own claims it, probes every
 * host (reachable, clock offset within the job's bound), sends each host
 * the job (its request with a "fleet" member record: the host's name,
 * which its test files carry, this coordinator and job), then starts each
 * measured window on every host at one time on the wall clock once every
 * host waits at that window's gate (jobgate.c on each host), collects
 * every host's run whole (its run document, imported here) and stores the
 * aggregate run (fleet_sum.c: sums over the common window, percentiles
 * from the merged histograms). A host that fails, is cancelled or stops
 * answering fails the job, naming it; the other hosts' jobs are cancelled
 * (so every host removes its files) and their runs kept. Cancelling the
 * job cancels it on every host. A coordinator that stops mid-job leaves
 * it interrupted; when it starts again it cancels what its hosts still
 * run for it (archive_fleet_unsettled), and a host left waiting at a gate
 * stops its job itself (gate_timeout_s).
 *
 * Threads: one coordinator thread with its own archive connection; the
 * API's threads call fleet_kick, fleet_cancel and fleet_progress, which
 * take the coordinator's mutex only.
 */
#ifndef STORBENCH_FLEET_H
#define STORBENCH_FLEET_H

#include <stdint.h>

#include <jansson.h>

#include "platform/fields.h"

struct fleet;

/* A host's job's member record ("fleet" of a job request), which the
 * coordinator sets on the job it sends each host: host (its name, which
 * its test files carry), coordinator (that daemon's host name), job (the
 * coordinator's job id) and gate_timeout_s (how long the host waits for a
 * start before it stops the job itself). */
#define FLEET_N_MEMBER_FIELDS 4
extern const struct field fleet_member_fields[FLEET_N_MEMBER_FIELDS];

/* Opens the archive at db_path for the coordinator. 0 or a negative
 * errno; *out is freed by fleet_stop. */
int fleet_open(const char *db_path, struct fleet **out);
/* Starts the coordinator's thread: it first cancels the hosts' jobs a
 * crash left (archive_fleet_unsettled), then runs queued multi-host jobs
 * one at a time. 0 or a negative errno. */
int fleet_run(struct fleet *f);
/* A multi-host job was queued. NULL is fine. */
void fleet_kick(struct fleet *f);
/* Cancels running job id: 0 (its hosts' jobs are cancelled and the job
 * ends cancelled within a few seconds), -ENOENT when job id is not the
 * coordinator's running job. */
int fleet_cancel(struct fleet *f, int64_t id);
/* The running job id's hosts, as the job's "fleet_progress": {"gate",
 * "live_iops", "live_mb_s", "hosts": [{"name", "job", "state", "phase",
 * "test", "rw", "iteration", "gate", "fraction", "live_iops",
 * "live_mb_s", "error"}]}; NULL when job id is not running here. */
json_t *fleet_progress(struct fleet *f, int64_t id);
/* Stops the coordinator: a running job's hosts are cancelled and the job
 * ends interrupted; then the thread exits. NULL is fine. */
void fleet_stop(struct fleet *f);

#endif
