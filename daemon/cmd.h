/*
 * cmd — the commands of the storbench binary, one file each, which
 * daemon/main.c dispatches to: cmd_serve.c (the daemon), cmd_run.c (one job
 * here and now), cmd_import.c (other tools' results into the archive), and
 * cmd_common.c, what serve and run share: the data directory's lock and the
 * usage texts' list of presets.
 *
 * A command takes its own argv (argv[0] is the command's name), prints its
 * own usage on --help (stdout, 0) and on bad arguments (stderr, 2), and
 * returns the process's exit status. Calls go main.c -> cmd_*.c ->
 * cmd_common.c, never back.
 */
#ifndef STORBENCH_CMD_H
#define STORBENCH_CMD_H

#include <stdio.h>

/* storbench serve [...]: the daemon, until a stop signal (cmd_serve.c). */
int cmd_serve(int argc, char **argv);
/* storbench run [...] TARGET: one job, here and now (cmd_run.c). */
int cmd_run(int argc, char **argv);
/* storbench import [...] FILE...: results of other tools (cmd_import.c). */
int cmd_import(int argc, char **argv);

/*
 * Locks the data directory dir for this process (sys_lock_dir) and writes
 * our pid into dir/storbench.pid, so that a second daemon (or a `storbench
 * run`) on the same data directory stops before it touches the archive.
 * Returns 0 or -1 (logged). The lock lasts as long as the process.
 */
int cmd_lock_data_dir(const char *dir);

/* Prints usage to f, its one "%s" replaced by the presets of this build
 * that a command line can run (not one that takes a tests array), one
 * line each ("  name  title"), from the registry (preset.h), so no usage text
 * names a preset. */
void cmd_usage(FILE *f, const char *usage);

#endif
