/*
 * preset_mailbox — what mailbox-db's preset file (preset_mailbox.c: its
 * options, check and runner) and its summary (preset_mailbox_verdicts.c)
 * share: the summary and its rows, named by the preset's table.
 */
#ifndef STORBENCH_PRESET_MAILBOX_H
#define STORBENCH_PRESET_MAILBOX_H

#include <jansson.h>

#include "preset.h"

/*
 * preset.summary: one row per thread count of opts.threads that tests (the
 * run's tests, archive_run_json's) measured: {threads, transactional_iops,
 * db_read_iops, db_write_iops, db_read_mean_ms, db_read_p99_ms,
 * db_write_mean_ms, log_write_mean_ms, log_write_p99_ms (null where the
 * direction made no I/O), log_mb_s, verdict "PASS"/"FAIL", reasons (each
 * threshold of opts.thresholds exceeded, in words), efficiency}. A new
 * reference.
 */
json_t *preset_mailbox_verdicts(json_t *tests, json_t *opts);

/* preset.rows: those rows for compare and the run page. */
extern const struct preset_rows preset_mailbox_rows;

#endif
