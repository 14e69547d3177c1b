/*
 * presets — runners of mailbox-db and file-create (see presets.c), and the
 * verdicts the archive serves with a mailbox-db run.
 */
#ifndef STORBENCH_PRESETS_H
#define STORBENCH_PRESETS_H

#include <jansson.h>

/*
 * One row per thread count of a mailbox-db run, from its tests (the run
 * JSON's "tests") and the job's options (thresholds): transactional IOPS
 * (database reads + writes per second), database read mean and p99,
 * database write mean, log write mean and p99 (ms), log MB/s, scaling
 * efficiency, and "PASS" or "FAIL" with the reasons in words. A new
 * reference; an empty array when there is nothing to judge.
 */
json_t *mailbox_verdicts(json_t *tests, json_t *options);

#endif
