/*
 * cmd — the commands of the storbench binary, one file each, which
 * daemon/cli/main.c dispatches to: cmd_serve.c (the daemon), cmd_run.c (one job
 * here and now), cmd_import.c (other tools' results into the archive),
 * cmd_push.c (runs to another daemon), cmd_report.c (a comparison or a
 * run as HTML), cmd_service_win.c and
 * cmd_service_run_win.c (the daemon as a Windows service;
 * cmd_service_linux.c points to the systemd unit), and
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

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "platform/confine.h"

struct archive;

/* storbench serve [...]: the daemon, until a stop signal (cmd_serve.c). */
int cmd_serve(int argc, char **argv);

/* serve's options as its command line gave them (cmd_serve_options): the
 * strings point into argv; NULL or 0 for what it left out. */
struct cmd_serve_opts {
	const char *listen; /* ADDR:PORT; NULL: 127.0.0.1:8080 */
	const char *data;   /* NULL: ./var (the Windows service: its own) */
	const char *token_file, *reserve, *log_format;
	const char *hub, *hub_token_file; /* --hub URL (checked by
					     peerhttp_url_ok), its token */
	const char *allow[CONFINE_MAX_ROOTS], *devs[CONFINE_MAX_ROOTS];
	size_t n_allow, n_devs;
	int demo, require_token, help;
	long clock_offset_ms; /* --clock-offset-ms: for tests, the wall clock
				 off the system's (os_wall_offset_set) */
};
/*
 * Reads serve's options from argv (argv[0]: the command's name; getopt's
 * state starts afresh) into *o, without acting on any. 0 (o->help set on
 * --help: the caller prints its usage), or -EINVAL with the reason on
 * stderr in the words of cmd ("storbench CMD: unknown option --x"; the
 * caller prints its usage and exits 2).
 */
int cmd_serve_options(const char *cmd, int argc, char **argv,
		      struct cmd_serve_opts *o);
/*
 * Refuses, on stderr in the words of cmd, what serve would refuse in o
 * without its data directory: --listen not ADDR:PORT, a --reserve, --allow
 * or --allow-device that confine.h refuses, a --token-file or
 * --hub-token-file it cannot read or would refuse. For `service install`, which
 * stores options the service reads later: it sets this process's confinement
 * policy, so call it in a process that serves nothing. 0, or -EINVAL (exit 2).
 */
int cmd_serve_check(const char *cmd, const struct cmd_serve_opts *o);
/* Can serve use data directory dir: a folder, or a missing one in a folder
 * (serve makes the last component only)? 0, or -EINVAL after a sentence on
 * stderr ("storbench CMD: --data DIR: …"). */
int cmd_data_dir_check(const char *cmd, const char *dir);
/* The daemon with options o (cmd_serve after its options): until a stop
 * request. The process's exit status. */
int cmd_serve_run(const struct cmd_serve_opts *o);
/*
 * storbench service install|uninstall|start|stop|run (cmd_service_win.c):
 * the daemon as a Windows service; on Linux (cmd_service_linux.c) a
 * sentence naming the systemd unit, exit 2.
 */
int cmd_service(int argc, char **argv);
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

/*
 * Reads the API token from path, or — when create and no file is there —
 * creates it: 32 random bytes as 64 hex digits, mode 0600. A token shorter
 * than 16 characters, of other characters than a bearer token's, or in a
 * file others may read, is refused. Returns 0 or a negative errno
 * (logged).
 */
int cmd_load_token(const char *path, int create, char *tok, size_t len);

/*
 * Sends runs ids[0 … n) of archive a to another daemon's import endpoint
 * (url: its base, "http://host:8080", or the endpoint itself), each as its
 * run document (runview_document), with the token of token_file (NULL:
 * none, as a loopback listener takes). Prints one line per run: what the
 * other archive answered (imported as, already there as: on out; its
 * problem: on stderr). Returns 0 when every run landed (or was there),
 * else 1 (cmd_push.c).
 */
int cmd_push_runs(struct archive *a, const char *url, const char *token_file,
		  const int64_t *ids, size_t n, FILE *out);
/* Are url (http or https, no query) and token_file (NULL: none) what a
 * push takes? 0, or -1 with the reason on stderr (before a long run). */
int cmd_push_check(const char *url, const char *token_file);
/* storbench push [...] URL RUN_ID...: runs to another daemon (cmd_push.c). */
int cmd_push(int argc, char **argv);
/* storbench report [...] (--runs A,B | --group-by F | --run N): a
 * comparison or a run as an HTML file (cmd_report.c). */
int cmd_report(int argc, char **argv);

/* Says what getopt_long (its option string starting with ':', so that it
 * says nothing itself) found wrong, the same words on every system:
 * "storbench CMD: unknown option --x" (c '?') or "storbench CMD: --x
 * needs a value" (c ':'). argv: the command's. */
void cmd_bad_option(const char *cmd, int c, char **argv);

/* Prints usage to f, its one "%s" replaced by the presets of this build
 * that a command line can run (not one that takes a tests array), one
 * line each ("  name  title"), from the registry (preset.h), so no usage text
 * names a preset. */
void cmd_usage(FILE *f, const char *usage);

#endif
