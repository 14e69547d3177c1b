/*
 * cmd_service_win — what the two files of `storbench service` on Windows
 * share: cmd_service_win.c (the command, and the actions on the service
 * control manager: install, start, stop, uninstall) calls
 * cmd_service_run_win.c (`service run`, the service itself), never back.
 */
#ifndef STORBENCH_CMD_SERVICE_WIN_H
#define STORBENCH_CMD_SERVICE_WIN_H

#include <stddef.h>

/* The service's name for the service control manager. */
#define SERVICE_NAME L"storbench"

/* The service's own exit statuses, beside the daemon's 0, 1 and 2 (as
 * sysexits.h numbers them; `sc query` shows them as SERVICE_EXIT_CODE):
 * the options of its command line refused (someone edited what install
 * wrote), its log file not opened. */
enum { SERVICE_EXIT_OPTIONS = 64, SERVICE_EXIT_LOG = 74 };

/* The service's default data directory, %ProgramData%\storbench, into out
 * (len bytes). 0 or a negative errno. */
int cmd_service_default_data(char *out, size_t len);

/* storbench service run [serve's options]: the service, when the service
 * control manager started this process; else a refusal (exit 2). argv[0]
 * is "run". The process's exit status. */
int cmd_service_run(int argc, char **argv);

#endif
