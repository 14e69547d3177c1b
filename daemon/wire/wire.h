/*
 * wire — an SMB job against the wire: the TCP throughput to its file
 * server, measured by iperf3's library (libiperf) against an iperf3
 * server there (`iperf3 -s`) in both directions before the job's tests,
 * stored on the run, and each SMB result set against it.
 *
 * The job names it in `baseline` {host, port, duration_s, streams}
 * (wire_baseline_fields; host defaults to the share's server, which it
 * must be: the daemon sends traffic only to a server it was allowed to
 * reach). It is stored with the job's smb session (smb_json "baseline").
 *
 * libiperf is not for a threaded daemon: process-wide state (its timers,
 * i_errno), exit() on some failures, select() on descriptors that a busy
 * daemon numbers past FD_SETSIZE, its JSON printed to stdout. So it runs
 * in a child process, this program spawned fresh (`storbench
 * wire-iperf …`, child.h, as the SMB back-end's workers are), which
 * writes iperf3's JSON to its socket; the daemon parses it (wire.c).
 *
 * wire.c is portable (descriptors, the request, iperf3's JSON, the
 * efficiency); wire_linux.c measures; wire_win.c says why storbench.exe
 * cannot (no libiperf for Windows).
 */
#ifndef STORBENCH_WIRE_H
#define STORBENCH_WIRE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "platform/fields.h"

/* The request's "baseline" object: its descriptors (fields.h). */
#define WIRE_N_FIELDS 4
extern const struct field wire_baseline_fields[WIRE_N_FIELDS];

/* An imported run document's "wire" (run: the document's run object;
 * absent: *out NULL) checked by its descriptors (host, port, duration_s,
 * streams, both rates, measured_at required; both retransmit counts and
 * seconds and iperf when present, or null) into *out, a malloc'd JSON
 * text the caller frees, with those members only (what the OpenAPI
 * document's Wire describes; any other is dropped). 0, -EINVAL with e
 * naming the member, or -ENOMEM. */
int wire_from_doc(json_t *run, char **out, struct field_error *e);

/* The TCP port an iperf3 server listens on by default. */
#define WIRE_DEFAULT_PORT 5201

/* One direction as iperf3 measured it. */
struct wire_dir {
	double mb_s;	     /* 10^6 B/s the receiver counted
				(end.sum_received.bits_per_second / 8e6) */
	double seconds;	     /* end.sum_received.seconds */
	int64_t bytes;	     /* end.sum_received.bytes */
	int64_t retransmits; /* the sender's (end.sum_sent.retransmits), -1
				when iperf3 does not say */
	char version[32];    /* start.version without "iperf " ("3.12"), or
				"" */
};

/*
 * Request root's "baseline" (absent or null: none) for a job whose share is on
 * server (the smb:// URL's host; NULL for a job not on an smb:// target).
 * On 0, *out is NULL (no baseline) or the normalized object {host, port,
 * duration_s, streams} (a new reference). -EINVAL with e naming the field
 * ("baseline" on a local target or on storbench.exe, "baseline.host" for a
 * host that is not the share's server or does not resolve), -ENOMEM.
 */
int wire_from_request(json_t *root, const char *server, json_t **out,
		      struct field_error *e);

/*
 * Measures the wire as baseline b (the normalized object) says: both
 * directions, one after the other, each in a child process. On 0, *out
 * (the caller's, json_decref) is the run's "wire" object: {host, port,
 * duration_s, streams, to_server_mb_s, from_server_mb_s,
 * to_server_retransmits, from_server_retransmits, measured_at, iperf}.
 * A negative errno with a sentence in err that starts with "baseline"
 * (the server could not be reached, refused, died); -ECANCELED as soon as
 * *cancel (NULL: never) is set, the child killed.
 */
int wire_measure(json_t *b, const atomic_int *cancel, json_t **out, char *err,
		 size_t len);

/*
 * Parses iperf3's JSON output text into *d. 0; -EPROTO when it is not
 * iperf3's (err says why), -EIO with iperf3's own "error" sentence.
 */
int wire_parse_iperf(const char *text, struct wire_dir *d, char *err,
		     size_t len);

/*
 * Adds "wire_efficiency" to every iteration of run's tests (and so to
 * their "best") when the run has a "wire": SMB MB/s ÷ TCP MB/s in the
 * matching direction — reads against from_server_mb_s, writes against
 * to_server_mb_s; a mix by time: the seconds the wire needs for the
 * iteration's read and write bytes at its two rates ÷ the seconds the
 * iteration took, which is read_mb_s / from + write_mb_s / to (the split
 * from the test's read_pct in the run's spec). Tests that are not read,
 * write or mix (a preset's own) get none.
 */
void wire_efficiency(json_t *run);

/* --- the OS's part (wire_linux.c, wire_win.c) --- */

/* 1 where this build can measure; else 0 with why in buf. */
int wire_available(char *buf, size_t len);

/* How long a job's request waits for the baseline host's name to resolve,
 * ms: as long as the share's own check beside it (SMB_CHECK_TIMEOUT_MS). */
#define WIRE_RESOLVE_TIMEOUT_MS 5000

/* Is host the same server as server (equal names, or an address in
 * common)? Both names are resolved in a thread of their own, waited for at
 * most timeout_ms, so a slow resolver holds the caller (a POST) no longer
 * than that. 1; 0 with why in buf (it does not resolve, it did not resolve
 * within timeout_ms, it is another). */
int wire_same_server(const char *host, const char *server, int timeout_ms,
		     char *buf, size_t len);

/*
 * One direction (reverse 0: client → server, 1: server → client) in a
 * child: iperf3's JSON output into *json (malloc'd, the caller frees).
 * 0; a negative errno with a sentence in err (the child could not run,
 * gave no answer in time); -ECANCELED within 0.2 s of *cancel (NULL:
 * never) being set. A child that has not answered is killed.
 */
int wire_run_iperf(const char *host, int port, int duration_s, int streams,
		   int reverse, const atomic_int *cancel, char **json,
		   char *err, size_t len);

/* The child's entry: argv after the program name: ("wire-iperf", HOST,
 * PORT, DURATION_S, STREAMS, REVERSE). Writes iperf3's JSON to fd 1 (the
 * socket). Returns the exit status. */
int wire_child_main(int argc, char **argv);

#endif
