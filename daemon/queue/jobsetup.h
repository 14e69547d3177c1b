/*
 * jobsetup — a job made ready to run, for the queue's worker (jobq.c) and
 * each target of an interleaved job (interleave.c): its back-end, session
 * and probe (job_setup), then the wire baseline before an SMB job's tests
 * (job_wire).
 */
#ifndef STORBENCH_JOBSETUP_H
#define STORBENCH_JOBSETUP_H

struct job_run;
struct tgt_ops;

/*
 * The job's back-end (its target's, else default's or its engine's),
 * session and probe. 0, or a negative errno with jr->error.
 */
int job_setup(struct job_run *jr, const struct tgt_ops *def);

/*
 * When the job names a baseline (its smb session's "baseline", wire.h):
 * measures the TCP throughput to its file server in both directions into
 * jr->wire, before any test. 0 (also with none); -EIO with jr->error
 * saying why, starting with "baseline": no test has run then;
 * -ECANCELED when the job was cancelled meanwhile.
 */
int job_wire(struct job_run *jr);

#endif
