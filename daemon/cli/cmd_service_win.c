/*
 * cmd_service_win — `storbench service`: the daemon as a Windows service.
 *
 *   storbench service install [serve's options]   (elevated)
 *   storbench service start | stop | uninstall      (elevated)
 *   storbench service run [serve's options]         (the SCM's, not people's)
 *
 * install registers service "storbench" with the service control manager
 * (SCM): its own process, started automatically with Windows, as
 * LocalSystem, its command line
 *
 *   "C:\full\path\storbench.exe" service run --listen ADDR:PORT --data DIR …
 *
 * The options are serve's, read and checked as serve would
 * (cmd_serve_options, cmd_serve_check) before anything is installed, so no
 * bad install leaves a service that cannot start; --data and --token-file
 * are made absolute (a service starts in System32; --allow is absolute
 * already, as confine.h wants it), and --data is always
 * written (default %ProgramData%\storbench). Each argument is quoted the
 * way CommandLineToArgvW (sys_args_utf8) reads it back.
 *
 * run is what the SCM starts: the service itself, cmd_service_run_win.c
 * (cmd_service_win.h).
 *
 * start and stop ask the SCM and wait, bounded (SERVICE_WAIT_MS), until the
 * service is RUNNING or STOPPED, and say the state; uninstall stops it
 * first. Failures say Windows' words and code (win_strerror): exit 1; bad
 * use exits 2.
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
#include "platform/sys_proc_win.h"
#include <shellapi.h> /* after windows.h (winapi.h) */

#define SERVICE_DISPLAY L"storbench storage benchmark"
#define SERVICE_DESCRIPTION                                                    \
	L"The storbench daemon: dashboard, REST API and job queue "            \
	L"(storbench.exe serve)."
/* how long start and stop wait for RUNNING or STOPPED, in ms */
#define SERVICE_WAIT_MS (SYS_SERVICE_STOP_MS + 30000)

static const char usage_service[] =
	"usage: storbench service install [serve's options]\n"
	"       storbench service start | stop | uninstall\n"
	"\n"
	"The daemon (storbench serve) as a Windows service named storbench, "
	"started with\n"
	"Windows as LocalSystem. Run from an elevated (Administrator) "
	"console.\n"
	"  install    register it with serve's options (storbench serve "
	"--help), checked\n"
	"             first; --data defaults to %ProgramData%\\storbench, "
	"its log is\n"
	"             DATA\\storbench.log\n"
	"  start      start it and wait until it serves\n"
	"  stop       stop it (the running job ends interrupted, its test "
	"file removed)\n"
	"  uninstall  stop it and remove it (its data stays)\n"
	"  run        what the service manager starts; not for a console\n";

/* Says on stderr that what failed with Windows' error err, as
 * "storbench service ACTION: WHAT: Windows' words (error N)", with the way
 * out for the errors people meet. */
static void say_failure(const char *action, const char *what, DWORD err)
{
	char words[300];
	const char *hint = "";

	win_strerror(err, words, sizeof(words));
	if (err == ERROR_ACCESS_DENIED)
		hint = ": run from an elevated (Administrator) console";
	else if (err == ERROR_SERVICE_DOES_NOT_EXIST)
		hint = ": storbench service install first";
	else if (err == ERROR_SERVICE_EXISTS ||
		 err == ERROR_SERVICE_MARKED_FOR_DELETE)
		hint = ": storbench service uninstall first";
	fprintf(stderr, "storbench service %s: %s: %s%s\n", action, what, words,
		hint);
}

/* The SCM's name for state (as sc.exe prints them). */
static const char *state_name(DWORD state)
{
	switch (state) {
	case SERVICE_STOPPED:
		return "STOPPED";
	case SERVICE_START_PENDING:
		return "START_PENDING";
	case SERVICE_STOP_PENDING:
		return "STOP_PENDING";
	case SERVICE_RUNNING:
		return "RUNNING";
	case SERVICE_CONTINUE_PENDING:
		return "CONTINUE_PENDING";
	case SERVICE_PAUSE_PENDING:
		return "PAUSE_PENDING";
	case SERVICE_PAUSED:
		return "PAUSED";
	default:
		return "UNKNOWN";
	}
}

/*
 * Appends arg to the command line at buf (len bytes, *at used), quoted
 * for CommandLineToArgvW when it holds a blank or a quote or is empty:
 * inside quotes, backslashes are literal except before a quote, where
 * each one is doubled and the quote escaped. 0 or -ENAMETOOLONG.
 */
static int put_arg(char *buf, size_t len, size_t *at, const char *arg)
{
	int quote = !arg[0] || strpbrk(arg, " \t\n\v\"") != NULL;
	size_t k = *at;

#define PUT(ch)                                                                \
	do {                                                                   \
		if (k + 2 > len)                                               \
			return -ENAMETOOLONG;                                  \
		buf[k++] = (ch);                                               \
	} while (0)
	if (k > 0)
		PUT(' ');
	if (quote)
		PUT('"');
	for (const char *c = arg;; c++) {
		size_t slashes = 0;
		while (*c == '\\') {
			slashes++;
			c++;
		}
		/* before the closing quote or a quote: doubled */
		if (quote && (!*c || *c == '"'))
			slashes *= 2;
		for (size_t i = 0; i < slashes; i++)
			PUT('\\');
		if (!*c)
			break;
		if (*c == '"')
			PUT('\\');
		PUT(*c);
	}
	if (quote)
		PUT('"');
#undef PUT
	buf[k] = '\0';
	*at = k;
	return 0;
}

/* path made absolute against the current directory (GetFullPathNameW), with
 * Windows' separators, into out. 0 or a negative errno. */
static int full_path(const char *path, char *out, size_t len)
{
	wchar_t *w = win_wide(path), full[PATH_MAX];
	DWORD n;

	if (!w)
		return -errno;
	n = GetFullPathNameW(w, PATH_MAX, full, NULL);
	free(w);
	if (n == 0)
		return win_last_errno();
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	return win_narrow(full, out, len, 0);
}

/*
 * The command line the SCM runs: this program's full path, "service run"
 * and the options o with every path absolute (--data: data), into line
 * (len bytes). 0, or -1 said on stderr.
 */
static int service_line(const struct cmd_serve_opts *o, const char *data,
			char *line, size_t len)
{
	static wchar_t exe_w[PATH_MAX];
	char exe[PATH_MAX], path[PATH_MAX];
	size_t at = 0;
	int rc = 0;
	DWORD n = GetModuleFileNameW(NULL, exe_w, PATH_MAX);

	if (n == 0 || n >= PATH_MAX || win_narrow(exe_w, exe, sizeof(exe), 0)) {
		fprintf(stderr, "storbench service install: cannot tell this "
				"program's path\n");
		return -1;
	}
	/* the program's name: always quoted (CommandLineToArgvW reads the
	 * first argument to the next quote, without escapes) */
	if (snprintf(line, len, "\"%s\"", exe) >= (int)len)
		goto long_line;
	at = strlen(line);
	rc |= put_arg(line, len, &at, "service");
	rc |= put_arg(line, len, &at, "run");
	rc |= put_arg(line, len, &at, "--listen");
	rc |= put_arg(line, len, &at, o->listen ? o->listen : "127.0.0.1:8080");
	rc |= put_arg(line, len, &at, "--data");
	rc |= put_arg(line, len, &at, data);
	for (size_t i = 0; i < o->n_allow; i++) { /* (absolute: confine.h) */
		rc |= put_arg(line, len, &at, "--allow");
		rc |= put_arg(line, len, &at, o->allow[i]);
	}
	for (size_t i = 0; i < o->n_devs; i++) {
		rc |= put_arg(line, len, &at, "--allow-device");
		rc |= put_arg(line, len, &at, o->devs[i]);
	}
	if (o->reserve) {
		rc |= put_arg(line, len, &at, "--reserve");
		rc |= put_arg(line, len, &at, o->reserve);
	}
	if (o->token_file) {
		const char *t = o->token_file;
		if (full_path(t, path, sizeof(path)) == 0)
			t = path;
		rc |= put_arg(line, len, &at, "--token-file");
		rc |= put_arg(line, len, &at, t);
	}
	if (o->require_token)
		rc |= put_arg(line, len, &at, "--require-token");
	if (o->hub) {
		rc |= put_arg(line, len, &at, "--hub");
		rc |= put_arg(line, len, &at, o->hub);
	}
	if (o->hub_token_file) {
		const char *t = o->hub_token_file;
		if (full_path(t, path, sizeof(path)) == 0)
			t = path;
		rc |= put_arg(line, len, &at, "--hub-token-file");
		rc |= put_arg(line, len, &at, t);
	}
	if (o->demo)
		rc |= put_arg(line, len, &at, "--demo");
	if (o->log_format) {
		rc |= put_arg(line, len, &at, "--log-format");
		rc |= put_arg(line, len, &at, o->log_format);
	}
	if (rc == 0)
		return 0;
long_line:
	fprintf(stderr,
		"storbench service install: the command line is "
		"longer than %zu bytes\n",
		len - 1);
	return -1;
}

static int service_install(int argc, char **argv)
{
	struct cmd_serve_opts o;
	char data[PATH_MAX], line[8192];
	wchar_t *wline = NULL;
	SC_HANDLE scm = NULL, svc = NULL;
	SERVICE_DESCRIPTIONW desc = { (wchar_t *)SERVICE_DESCRIPTION };
	int rc = 2;

	if (cmd_serve_options("service install", argc, argv, &o) < 0) {
		fputs(usage_service, stderr);
		return 2;
	}
	if (o.help) {
		fputs(usage_service, stdout);
		return 0;
	}
	if (cmd_serve_check("service install", &o) < 0)
		return 2;
	if (o.data ? full_path(o.data, data, sizeof(data)) < 0
		   : cmd_service_default_data(data, sizeof(data)) < 0) {
		fprintf(stderr,
			"storbench service install: %s: cannot make it an "
			"absolute path; give --data DIR\n",
			o.data ? o.data : "%ProgramData%\\storbench");
		return 2;
	}
	/* (D:\dir\ as D:\dir: DATA\storbench.log reads right) */
	for (size_t n = strlen(data); n > 3 && data[n - 1] == '\\'; n--)
		data[n - 1] = '\0';
	if (cmd_data_dir_check("service install", data) < 0)
		return 2;
	if (service_line(&o, data, line, sizeof(line)) < 0)
		return 2;
	rc = 1;
	if (!(wline = win_wide_text(line)))
		goto out;
	if (!(scm = OpenSCManagerW(NULL, NULL, SC_MANAGER_CREATE_SERVICE))) {
		say_failure("install", "the service control manager",
			    GetLastError());
		goto out;
	}
	svc = CreateServiceW(scm, SERVICE_NAME, SERVICE_DISPLAY,
			     SERVICE_CHANGE_CONFIG | SERVICE_QUERY_STATUS,
			     SERVICE_WIN32_OWN_PROCESS, SERVICE_AUTO_START,
			     SERVICE_ERROR_NORMAL, wline, NULL, NULL, NULL,
			     NULL /* LocalSystem */, NULL);
	if (!svc) {
		say_failure("install", "service storbench", GetLastError());
		goto out;
	}
	ChangeServiceConfig2W(svc, SERVICE_CONFIG_DESCRIPTION, &desc);
	printf("installed service storbench (\"storbench storage benchmark\"): "
	       "started with Windows, as LocalSystem\n"
	       "  command line: %s\n"
	       "  data: %s\n"
	       "  log:  %s\\storbench.log\n"
	       "start it now with: storbench.exe service start\n",
	       line, data, data);
	rc = 0;
out:
	if (svc)
		CloseServiceHandle(svc);
	if (scm)
		CloseServiceHandle(scm);
	free(wline);
	return rc;
}

/* The service storbench opened with access, or NULL (said on stderr for
 * action). *scm is the SCM's handle to close after it. */
static SC_HANDLE open_service(const char *action, DWORD access, SC_HANDLE *scm)
{
	SC_HANDLE svc;

	if (!(*scm = OpenSCManagerW(NULL, NULL, SC_MANAGER_CONNECT))) {
		say_failure(action, "the service control manager",
			    GetLastError());
		return NULL;
	}
	if (!(svc = OpenServiceW(*scm, SERVICE_NAME, access))) {
		say_failure(action, "service storbench", GetLastError());
		CloseServiceHandle(*scm);
		*scm = NULL;
	}
	return svc;
}

/* Waits up to SERVICE_WAIT_MS while svc's state is pending, into *st. 0,
 * or -1 said on stderr for action. */
static int wait_pending(const char *action, SC_HANDLE svc,
			SERVICE_STATUS_PROCESS *st)
{
	DWORD n;

	for (int waited = 0;; waited += 100) {
		if (!QueryServiceStatusEx(svc, SC_STATUS_PROCESS_INFO,
					  (BYTE *)st, sizeof(*st), &n)) {
			say_failure(action, "its state", GetLastError());
			return -1;
		}
		if ((st->dwCurrentState != SERVICE_START_PENDING &&
		     st->dwCurrentState != SERVICE_STOP_PENDING) ||
		    waited >= SERVICE_WAIT_MS)
			return 0;
		Sleep(100);
	}
}

/* The value of option name (--data, --listen) in svc's command line, into
 * out, or "?" when it is not there. */
static void service_option(SC_HANDLE svc, const char *name, char *out,
			   size_t len)
{
	QUERY_SERVICE_CONFIGW *cfg = NULL;
	wchar_t **args = NULL, *wname = win_wide_text(name);
	DWORD need = 0;
	int n = 0;

	snprintf(out, len, "?");
	QueryServiceConfigW(svc, NULL, 0, &need);
	if (!wname || !need || !(cfg = malloc(need)) ||
	    !QueryServiceConfigW(svc, cfg, need, &need) ||
	    !(args = CommandLineToArgvW(cfg->lpBinaryPathName, &n)))
		goto out;
	for (int i = 1; i + 1 < n; i++)
		if (wcscmp(args[i], wname) == 0) {
			win_narrow(args[i + 1], out, len, 0);
			break;
		}
out:
	if (args)
		LocalFree(args);
	free(cfg);
	free(wname);
}

/* Says svc's state st on f, with where it serves and its log. */
static void say_state(FILE *f, SC_HANDLE svc, const SERVICE_STATUS_PROCESS *st)
{
	char data[PATH_MAX], listen[300];

	service_option(svc, "--data", data, sizeof(data));
	service_option(svc, "--listen", listen, sizeof(listen));
	if (st->dwCurrentState == SERVICE_RUNNING)
		fprintf(f,
			"storbench: RUNNING (pid %lu), serving http://%s/; "
			"log: %s\\storbench.log\n",
			(unsigned long)st->dwProcessId, listen, data);
	else if (st->dwCurrentState == SERVICE_STOPPED &&
		 st->dwWin32ExitCode == ERROR_SERVICE_SPECIFIC_ERROR &&
		 st->dwServiceSpecificExitCode == SERVICE_EXIT_OPTIONS)
		fprintf(f,
			"storbench: STOPPED: the options of its command line "
			"are refused (storbench service uninstall, then "
			"install)\n");
	else if (st->dwCurrentState == SERVICE_STOPPED &&
		 st->dwWin32ExitCode == ERROR_SERVICE_SPECIFIC_ERROR &&
		 st->dwServiceSpecificExitCode == SERVICE_EXIT_LOG)
		fprintf(f,
			"storbench: STOPPED: cannot write its log "
			"%s\\storbench.log\n",
			data);
	else if (st->dwCurrentState == SERVICE_STOPPED &&
		 st->dwWin32ExitCode == ERROR_SERVICE_SPECIFIC_ERROR)
		fprintf(f,
			"storbench: STOPPED with exit status %lu; its log "
			"says why: %s\\storbench.log\n",
			(unsigned long)st->dwServiceSpecificExitCode, data);
	else if (st->dwCurrentState == SERVICE_STOPPED &&
		 st->dwWin32ExitCode != NO_ERROR) {
		char words[300];
		win_strerror(st->dwWin32ExitCode, words, sizeof(words));
		fprintf(f, "storbench: STOPPED: %s; log: %s\\storbench.log\n",
			words, data);
	} else
		fprintf(f, "storbench: %s; log: %s\\storbench.log\n",
			state_name(st->dwCurrentState), data);
}

static int service_start(void)
{
	SC_HANDLE scm, svc;
	SERVICE_STATUS_PROCESS st;
	int rc = 1;

	svc = open_service("start",
			   SERVICE_START | SERVICE_QUERY_STATUS |
				   SERVICE_QUERY_CONFIG,
			   &scm);
	if (!svc)
		return 1;
	if (!StartServiceW(svc, 0, NULL) &&
	    GetLastError() != ERROR_SERVICE_ALREADY_RUNNING) {
		say_failure("start", "service storbench", GetLastError());
		goto out;
	}
	if (wait_pending("start", svc, &st) < 0)
		goto out;
	rc = st.dwCurrentState == SERVICE_RUNNING ? 0 : 1;
	say_state(rc == 0 ? stdout : stderr, svc, &st);
out:
	CloseServiceHandle(svc);
	CloseServiceHandle(scm);
	return rc;
}

/* Stops svc (opened with SERVICE_STOP and SERVICE_QUERY_STATUS) and waits
 * until it has. 0 when it is STOPPED, else 1 (said on stderr). */
static int stop(const char *action, SC_HANDLE svc)
{
	SERVICE_STATUS s;
	SERVICE_STATUS_PROCESS st;

	/* a service still starting takes no stop yet */
	if (wait_pending(action, svc, &st) < 0)
		return 1;
	if (st.dwCurrentState != SERVICE_STOPPED &&
	    !ControlService(svc, SERVICE_CONTROL_STOP, &s) &&
	    GetLastError() != ERROR_SERVICE_NOT_ACTIVE) {
		say_failure(action, "stopping service storbench",
			    GetLastError());
		return 1;
	}
	if (wait_pending(action, svc, &st) < 0)
		return 1;
	if (st.dwCurrentState != SERVICE_STOPPED) {
		fprintf(stderr, "storbench service %s: still %s after %d s\n",
			action, state_name(st.dwCurrentState),
			SERVICE_WAIT_MS / 1000);
		return 1;
	}
	return 0;
}

static int service_stop(void)
{
	SC_HANDLE scm, svc;
	SERVICE_STATUS_PROCESS st;
	DWORD n;
	int rc;

	svc = open_service("stop",
			   SERVICE_STOP | SERVICE_QUERY_STATUS |
				   SERVICE_QUERY_CONFIG,
			   &scm);
	if (!svc)
		return 1;
	rc = stop("stop", svc);
	if (rc == 0 && QueryServiceStatusEx(svc, SC_STATUS_PROCESS_INFO,
					    (BYTE *)&st, sizeof(st), &n))
		say_state(stdout, svc, &st);
	CloseServiceHandle(svc);
	CloseServiceHandle(scm);
	return rc;
}

static int service_uninstall(void)
{
	SC_HANDLE scm, svc;
	char data[PATH_MAX];
	int rc = 1;

	svc = open_service("uninstall",
			   DELETE | SERVICE_STOP | SERVICE_QUERY_STATUS |
				   SERVICE_QUERY_CONFIG,
			   &scm);
	if (!svc)
		return 1;
	service_option(svc, "--data", data, sizeof(data));
	if (stop("uninstall", svc) != 0)
		goto out;
	if (!DeleteService(svc)) {
		say_failure("uninstall", "service storbench", GetLastError());
		goto out;
	}
	printf("removed service storbench; its data stays in %s\n", data);
	rc = 0;
out:
	CloseServiceHandle(svc);
	CloseServiceHandle(scm);
	return rc;
}

int cmd_service(int argc, char **argv)
{
	const char *action = argc >= 2 ? argv[1] : "";

	if (strcmp(action, "--help") == 0 || strcmp(action, "help") == 0 ||
	    (argc == 3 && strcmp(argv[2], "--help") == 0 &&
	     strcmp(action, "install") != 0 && strcmp(action, "run") != 0)) {
		fputs(usage_service, stdout);
		return 0;
	}
	if (strcmp(action, "install") == 0)
		return service_install(argc - 1, argv + 1);
	if (strcmp(action, "run") == 0)
		return cmd_service_run(argc - 1, argv + 1);
	if (strcmp(action, "start") != 0 && strcmp(action, "stop") != 0 &&
	    strcmp(action, "uninstall") != 0) {
		if (argc < 2)
			fprintf(stderr, "storbench service: install, start, "
					"stop or uninstall?\n");
		else
			fprintf(stderr,
				"storbench service: unknown action %s\n",
				action);
		fputs(usage_service, stderr);
		return 2;
	}
	if (argc > 2) {
		fprintf(stderr,
			"storbench service %s: unexpected argument %s\n",
			action, argv[2]);
		fputs(usage_service, stderr);
		return 2;
	}
	if (strcmp(action, "start") == 0)
		return service_start();
	if (strcmp(action, "stop") == 0)
		return service_stop();
	return service_uninstall();
}
