/*
 * sys_proc_win — what sys_proc_win.c offers the other Windows files beyond
 * sys.h: this process as a Windows service, talking to the service control
 * manager (SCM). Only *_win.c files include it (cmd_service_win.c, the
 * `service` command).
 *
 * The SCM's stop and shutdown controls are stop requests like a console's
 * Ctrl-Break: number 15 (SIGTERM's) for sys_wait_stop, so the daemon stops
 * the same way (its running job interrupted, its test file removed).
 */
#ifndef STORBENCH_SYS_PROC_WIN_H
#define STORBENCH_SYS_PROC_WIN_H

#include <wchar.h>

/* How long the SCM is told a stop may take (the wait hint of
 * SERVICE_STOP_PENDING), in ms: the running test ends and its file goes
 * within a second or two; this leaves room for a slow volume. */
#define SYS_SERVICE_STOP_MS 30000

/* Did the service control manager start this process: is its parent
 * services.exe? (The test .NET's and Go's service libraries make; a
 * console's `service run` is refused with it before the dispatcher would
 * wait for the SCM.) 1 or 0. */
int sys_service_started(void);

/*
 * Makes the calling ServiceMain's process service name for the SCM:
 * registers the control handler (stop and shutdown: SERVICE_STOP_PENDING
 * with a wait hint of SYS_SERVICE_STOP_MS, then stop request 15), reports
 * SERVICE_START_PENDING, and has the console handler ignore the logoff and
 * shutdown events every service gets (a user logging off must not stop
 * the daemon; the SCM sends its own shutdown control). sys_serving reports
 * SERVICE_RUNNING from then on. 0, or a negative errno (Windows' words in
 * os_error_detail).
 */
int sys_service_begin(const wchar_t *name);

/* Reports SERVICE_STOPPED with exit status rc: NO_ERROR for 0, else
 * ERROR_SERVICE_SPECIFIC_ERROR with rc as the service's own code (what
 * `sc query` shows as SERVICE_EXIT_CODE). The process ends soon after. */
void sys_service_end(int rc);

#endif
