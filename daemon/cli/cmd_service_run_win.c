/*
 * cmd_service_run_win — `storbench service run`: the daemon as the service
 * the service control manager (SCM) starts (cmd_service_win.c installs
 * it; cmd_service_win.h).
 *
 * StartServiceCtrlDispatcherW connects this process to the SCM and calls
 * ServiceMain in a thread of its own, which registers the control handler
 * and reports START_PENDING (sys_service_begin, sys_proc_win.h), reads
 * serve's options from the command line install wrote (--data: default
 * %ProgramData%\storbench), sends the daemon's log (log.h: log_to) to
 * DATA\storbench.log, appended, since a service has no console, and runs
 * the daemon (cmd_serve_run), which reports RUNNING once it serves
 * (sys_serving). The SCM's stop is a console's Ctrl-Break: stop request
 * 15, the running job interrupted and its test file removed; when the
 * daemon returns, STOPPED with its exit status (sys_service_end).
 *
 * Started by anyone but the SCM (sys_service_started: its parent is not
 * services.exe), run refuses at once (exit 2): the dispatcher would wait
 * for a connection that never comes (wine: 10 s and more) before failing
 * with ERROR_FAILED_SERVICE_CONTROLLER_CONNECT, which is refused the same
 * way.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "cmd.h"
#include "cmd_service_win.h"
#include "os/winapi.h"
#include "platform/log.h"
#include "platform/sys.h"
#include "platform/sys_proc_win.h"

int cmd_service_default_data(char *out, size_t len)
{
	wchar_t w[PATH_MAX];
	char dir[PATH_MAX];
	DWORD n = GetEnvironmentVariableW(L"ProgramData", w, PATH_MAX);

	if (n == 0 || n >= PATH_MAX || win_narrow(w, dir, sizeof(dir), 0) < 0)
		return -ENOENT;
	if (snprintf(out, len, "%s\\storbench", dir) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* its arguments, for ServiceMain, and its exit status */
static int run_argc;
static char **run_argv;
static int run_rc = 1;

/* The daemon's lines (log.h) into dir\storbench.log, appended, from now on
 * (the process has no console); dir is made (0700) when missing. The file
 * stays open while the process lives. 0 or a negative errno. */
static int log_to_file(const char *dir)
{
	char path[PATH_MAX];
	wchar_t *w;
	FILE *f;
	int err;

	if ((err = sys_mkdir_private(dir)) < 0)
		return err;
	if (snprintf(path, sizeof(path), "%s/storbench.log", dir) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	if (!(w = win_wide(path)))
		return -errno;
	f = _wfopen(w, L"a"); /* text: lines end in CR LF */
	err = f ? 0 : -errno;
	free(w);
	if (f) {
		setvbuf(f, NULL, _IOFBF, 4096); /* log.c flushes each line */
		log_to(f);
	}
	return err;
}

static void WINAPI service_main(DWORD n, wchar_t **args)
{
	struct cmd_serve_opts o;
	char data[PATH_MAX];

	(void)n;
	(void)args; /* StartServiceW's; the options are the command line's */
	if (sys_service_begin(SERVICE_NAME) < 0)
		return;
	if (cmd_serve_options("service run", run_argc, run_argv, &o) < 0 ||
	    o.help) {
		run_rc = SERVICE_EXIT_OPTIONS;
		goto out;
	}
	if (!o.data) {
		if (cmd_service_default_data(data, sizeof(data)) < 0)
			goto out;
		o.data = data;
	}
	if (log_to_file(o.data) < 0) {
		run_rc = SERVICE_EXIT_LOG;
		goto out;
	}
	log_info("service storbench: started by the service manager");
	run_rc = cmd_serve_run(&o);
out:
	sys_service_end(run_rc);
}

int cmd_service_run(int argc, char **argv)
{
	SERVICE_TABLE_ENTRYW table[] = {
		{ (wchar_t *)SERVICE_NAME, service_main },
		{ NULL, NULL },
	};
	char words[300];
	DWORD err;

	run_argc = argc;
	run_argv = argv;
	if (!sys_service_started())
		err = ERROR_FAILED_SERVICE_CONTROLLER_CONNECT;
	else if (StartServiceCtrlDispatcherW(table))
		return run_rc; /* ServiceMain has returned */
	else
		err = GetLastError();
	if (err == ERROR_FAILED_SERVICE_CONTROLLER_CONNECT) {
		fprintf(stderr,
			"storbench service run: for the service manager, which "
			"starts it (storbench service start); on a console, "
			"run storbench serve\n");
		return 2;
	}
	win_strerror(err, words, sizeof(words));
	fprintf(stderr,
		"storbench service run: the service control "
		"dispatcher: %s\n",
		words);
	return 1;
}
