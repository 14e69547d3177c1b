/*
 * sys_proc_win — the process-wide parts of sys.h on Windows: the arguments
 * as UTF-8 (CommandLineToArgvW) and the console set up for UTF-8 and
 * escape sequences, the data directory's lock (a lock file opened with
 * share mode 0), no crash dialog or report (SetErrorMode), and stop
 * requests from the console (SetConsoleCtrlHandler) and, when the process
 * is a Windows service, from the service control manager
 * (RegisterServiceCtrlHandlerExW: sys_proc_win.h). The paths and files are
 * sys_win.c's.
 */
#include "sys_proc_win.h"
#include "sys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "os/winapi.h"
#include <shellapi.h> /* after windows.h (winapi.h) */
#include <tlhelp32.h>

void sys_args_utf8(int *argc, char ***argv)
{
	static char **args; /* kept for the process, as main's argv is */
	HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
	wchar_t **wa;
	DWORD mode;
	int n;

	SetConsoleOutputCP(CP_UTF8);
	SetConsoleCP(CP_UTF8);
	/* "\r\033[K" redraws the progress line (Windows 10 and later) */
	if (GetConsoleMode(err, &mode))
		SetConsoleMode(err, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
	if (args || !(wa = CommandLineToArgvW(GetCommandLineW(), &n)))
		return;
	if (!(args = calloc((size_t)n + 1, sizeof(*args))))
		goto out;
	for (int i = 0; i < n; i++) {
		int len = WideCharToMultiByte(CP_UTF8, 0, wa[i], -1, NULL, 0,
					      NULL, NULL);
		if (len <= 0 || !(args[i] = malloc((size_t)len)) ||
		    win_narrow(wa[i], args[i], (size_t)len, 0) < 0) {
			/* (not UTF-16: an unpaired surrogate) keep the
			 * arguments the C library made */
			for (int k = 0; k <= i; k++)
				free(args[k]);
			free(args);
			args = NULL;
			goto out;
		}
	}
	*argc = n;
	*argv = args;
out:
	LocalFree(wa);
}

/* Where the open file or directory h is: GetFinalPathNameByHandleW without
 * its "\\?\", with '/' (see the top). 0 or a negative errno. */
/*
 * DIR/storbench.lock opened with share mode 0: while we hold it no other
 * process (nor another open of ours) can open it, and nobody can delete it,
 * so a "stale" file cannot be removed to defeat the lock. The handle is
 * closed by sys_unlock_dir or by the system when the process ends however
 * it ends, and the file goes with it (FILE_FLAG_DELETE_ON_CLOSE). The pid
 * goes into pidfile for the refusal's sentence.
 */
/* The data directory's lock file, open (sys_lock_dir), or NULL. */
static HANDLE lock_handle;

int sys_lock_dir(const char *dir, const char *pidfile)
{
	char path[PATH_MAX], pid[32];
	wchar_t *w;
	HANDLE lock, pf;
	DWORD done = 0;
	int n;

	if (snprintf(path, sizeof(path), "%s/storbench.lock", dir) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	if (!(w = win_wide(path)))
		return -errno;
	/* removed when the last handle closes: no lock file is left */
	lock = CreateFileW(
		w, GENERIC_READ | GENERIC_WRITE | DELETE, 0, NULL, OPEN_ALWAYS,
		FILE_ATTRIBUTE_NORMAL | FILE_FLAG_DELETE_ON_CLOSE, NULL);
	free(w);
	if (lock == INVALID_HANDLE_VALUE)
		return win_last_errno(); /* a sharing violation: -EBUSY */
	lock_handle = lock;
	if (!(w = win_wide(pidfile)))
		return 1;
	pf = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ, NULL, CREATE_ALWAYS,
			 FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT,
			 NULL);
	free(w);
	n = snprintf(pid, sizeof(pid), "%lu\n",
		     (unsigned long)GetCurrentProcessId());
	if (pf == INVALID_HANDLE_VALUE ||
	    !WriteFile(pf, pid, (DWORD)n, &done, NULL) || done != (DWORD)n) {
		if (pf != INVALID_HANDLE_VALUE)
			CloseHandle(pf);
		return 1; /* locked; the pid could not be written */
	}
	CloseHandle(pf);
	return 0;
}

void sys_unlock_dir(void)
{
	if (lock_handle)
		CloseHandle(lock_handle);
	lock_handle = NULL;
}

/* No "program stopped working" dialog and no report (Windows Error
 * Reporting) with the process's memory in it when storbench crashes. (A
 * machine whose administrator configured WER LocalDumps for every program
 * may still keep one: that is the machine's policy.) */
void sys_no_core_dumps(void)
{
	SetErrorMode(SEM_FAILCRITICALERRORS | SEM_NOGPFAULTERRORBOX);
}

/*
 * Stop requests: the console's control events, as the numbers of the
 * signals Linux sends for them — Ctrl-C 2 (SIGINT), Ctrl-Break, logoff and
 * shutdown 15 (SIGTERM), the console window closed 1 (SIGHUP). The handler
 * runs in a thread of its own the system starts; it records the number and
 * sets stop_event. For Ctrl-C and Ctrl-Break it returns TRUE, so the
 * process lives on and sys_wait_stop's caller cancels the job and removes
 * its test file. After a close, logoff or shutdown event the system ends
 * the process when the handler returns (or some 5 s later), so the handler
 * waits there: the process ends when main returns, or at the system's
 * deadline.
 */
static HANDLE stop_event;
static volatile LONG stop_number;
/* 1 once the process is a service (sys_service_begin) */
static volatile LONG as_service;

/* Stop request number n: sys_wait_stop answers it. */
static void request_stop(LONG n)
{
	InterlockedExchange(&stop_number, n);
	SetEvent(stop_event);
}

static BOOL WINAPI on_console_event(DWORD type)
{
	LONG n;

	/* every service gets a user's logoff and the system's shutdown here
	 * too: the SCM's controls decide for a service */
	if (as_service &&
	    (type == CTRL_LOGOFF_EVENT || type == CTRL_SHUTDOWN_EVENT))
		return TRUE;
	switch (type) {
	case CTRL_C_EVENT:
		n = 2;
		break;
	case CTRL_CLOSE_EVENT:
		n = 1;
		break;
	case CTRL_BREAK_EVENT:
	case CTRL_LOGOFF_EVENT:
	case CTRL_SHUTDOWN_EVENT:
		n = 15;
		break;
	default:
		return FALSE;
	}
	request_stop(n);
	if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT)
		Sleep(INFINITE);
	return TRUE;
}

void sys_hold_stop_requests(void)
{
	if (stop_event)
		return;
	stop_event = CreateEventW(NULL, FALSE, FALSE, NULL);
	if (stop_event)
		SetConsoleCtrlHandler(on_console_event, TRUE);
}

int sys_wait_stop(int timeout_ms)
{
	DWORD t = timeout_ms < 0 ? INFINITE : (DWORD)timeout_ms;

	if (!stop_event) {
		sys_hold_stop_requests();
		if (!stop_event) {
			Sleep(t);
			return 0;
		}
	}
	if (WaitForSingleObject(stop_event, t) != WAIT_OBJECT_0)
		return 0;
	return (int)InterlockedExchange(&stop_number, 0);
}

/*
 * The process as a service (sys_proc_win.h). The status is one structure
 * under one lock: the control handler (the dispatcher's thread), the
 * daemon's thread (sys_serving) and ServiceMain's end report through it,
 * and once a stop is pending nothing reports RUNNING again.
 */
static SERVICE_STATUS_HANDLE service_handle;
static SERVICE_STATUS service_status;
static SRWLOCK service_lock = SRWLOCK_INIT;

/* Reports state (SERVICE_*) with its wait hint in ms (0: none); the
 * checkpoint counts the reports of a pending state. */
static void service_report(DWORD state, DWORD wait_ms)
{
	SERVICE_STATUS *st = &service_status;

	AcquireSRWLockExclusive(&service_lock);
	/* RUNNING only after START_PENDING: not once a stop is pending */
	if (service_handle && (state != SERVICE_RUNNING ||
			       st->dwCurrentState == SERVICE_START_PENDING)) {
		if (state == SERVICE_RUNNING || state == SERVICE_STOPPED)
			st->dwCheckPoint = 0;
		else if (state == st->dwCurrentState)
			st->dwCheckPoint++;
		else
			st->dwCheckPoint = 1;
		st->dwCurrentState = state;
		st->dwWaitHint = wait_ms;
		st->dwControlsAccepted =
			state == SERVICE_RUNNING
				? SERVICE_ACCEPT_STOP | SERVICE_ACCEPT_SHUTDOWN
				: 0;
		SetServiceStatus(service_handle, st);
	}
	ReleaseSRWLockExclusive(&service_lock);
}

static DWORD WINAPI on_service_control(DWORD control, DWORD type, void *data,
				       void *ctx)
{
	(void)type;
	(void)data;
	(void)ctx;
	switch (control) {
	case SERVICE_CONTROL_STOP:
	case SERVICE_CONTROL_SHUTDOWN:
		service_report(SERVICE_STOP_PENDING, SYS_SERVICE_STOP_MS);
		request_stop(15);
		return NO_ERROR;
	case SERVICE_CONTROL_INTERROGATE:
		return NO_ERROR;
	default:
		return ERROR_CALL_NOT_IMPLEMENTED;
	}
}

int sys_service_started(void)
{
	PROCESSENTRY32W e = { .dwSize = sizeof(e) };
	DWORD self = GetCurrentProcessId(), parent = 0;
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	int found = 0;

	if (snap == INVALID_HANDLE_VALUE)
		return 0;
	/* our parent's id, then its program's name */
	for (BOOL ok = Process32FirstW(snap, &e); ok && !parent;
	     ok = Process32NextW(snap, &e))
		if (e.th32ProcessID == self)
			parent = e.th32ParentProcessID;
	for (BOOL ok = Process32FirstW(snap, &e); ok && parent && !found;
	     ok = Process32NextW(snap, &e))
		if (e.th32ProcessID == parent)
			found = _wcsicmp(e.szExeFile, L"services.exe") == 0;
	CloseHandle(snap);
	return found;
}

int sys_service_begin(const wchar_t *name)
{
	SERVICE_STATUS_HANDLE h;

	InterlockedExchange(&as_service, 1);
	sys_hold_stop_requests(); /* the event the controls set */
	if (!stop_event)
		return win_last_errno();
	h = RegisterServiceCtrlHandlerExW(name, on_service_control, NULL);
	if (!h)
		return win_last_errno();
	AcquireSRWLockExclusive(&service_lock);
	service_status.dwServiceType = SERVICE_WIN32_OWN_PROCESS;
	service_handle = h;
	ReleaseSRWLockExclusive(&service_lock);
	service_report(SERVICE_START_PENDING, 10000);
	return 0;
}

void sys_serving(void)
{
	service_report(SERVICE_RUNNING, 0);
}

void sys_service_end(int rc)
{
	AcquireSRWLockExclusive(&service_lock);
	service_status.dwWin32ExitCode =
		rc ? ERROR_SERVICE_SPECIFIC_ERROR : NO_ERROR;
	service_status.dwServiceSpecificExitCode = (DWORD)rc;
	ReleaseSRWLockExclusive(&service_lock);
	service_report(SERVICE_STOPPED, 0);
}
