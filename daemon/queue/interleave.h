/*
 * interleave — the runner of an interleaved comparison job: the job's
 * target and its compare_with targets take turns, round after round, on
 * the same tests, so that drift on the host (a warming device, a
 * neighbour's load, the controller's cache) hits every side alike. Each
 * round makes a fresh test file on each target (so the file's placement
 * varies between rounds as it does between runs), then runs each test once
 * on every target, the test's window measured in slices of 1 s that the
 * targets take in turn — A B B A A B … (planrun_file_slice), starting B A
 * for the next test and the next round — so a disturbance of a second or
 * two on the host lands on every side alike instead of in one side's
 * window, and removes the files. There is one run per
 * target; its iteration n is round n, and its spec holds `interleave`
 * {job, targets, position, rounds}, which the comparison reads to pair the
 * rounds (compare_int.h: the paired test).
 */
#ifndef STORBENCH_INTERLEAVE_H
#define STORBENCH_INTERLEAVE_H

#include <stddef.h>

struct job_run;
struct tgt_ops;

/*
 * Runs job jr (set up by job_setup: its target is the first side) with its
 * spec's compare_with targets for iterations rounds. def: the default local
 * back-end. jr->run_id is the first target's run; the others' runs carry
 * the job's id and are ended with it (archive_job_finish). 0, -ECANCELED,
 * or a negative errno with jr->error (naming the target that failed).
 */
int interleave_run(struct job_run *jr, const struct tgt_ops *def);

/*
 * The order of a round r (from 1) of n sides, so that no side holds a
 * place of its own (the balance a paired test over rounds needs; bench/aa
 * measures what it buys):
 * - interleave_turn: the side taking turn j (0 … n − 1) at test i (from 0;
 *   test i's slice s is turn i + s): A B … when r − 1 + i is even, … B A
 *   when odd, so each side goes first as often as last;
 * - interleave_maker: the side whose test file is made j-th: the sides'
 *   order rotated by r − 1 (round 1 in the sides' order, which numbers
 *   their runs), so over n rounds each side's file is the newest once
 *   (a device's cache favours the data written last).
 */
size_t interleave_turn(size_t n, int r, size_t i, size_t j);
size_t interleave_maker(size_t n, int r, size_t j);

#endif
