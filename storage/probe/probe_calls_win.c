/*
 * probe_calls_win — what the Windows probe's files (probe_win.c,
 * probe_disk_win.c, probe_share_win.c) call on their way to a field: each
 * Windows call's answer reported to probe_win_trace
 * (tests/windows/probe_smoke.c), a string into a field whole or not at all,
 * trimmed text, a device opened with no access rights.
 */
#include "probe_win.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Not part of probe.h: tests/windows/probe_smoke.c sets it to learn what
 * each Windows call answered (err 0: success, else its GetLastError or
 * LSTATUS), so a run under wine or on a server shows which fields a
 * system cannot tell.
 */
void (*probe_win_trace)(const char *call, unsigned long err);

/* See probe_win.h. */
BOOL probe_win_traced(const char *call, BOOL ok)
{
	DWORD err = ok ? 0 : GetLastError();

	if (probe_win_trace)
		probe_win_trace(call, err);
	SetLastError(err);
	return ok;
}

/* See probe_win.h. */
int probe_win_set_str(char *dst, size_t n, const char *src)
{
	int len = snprintf(dst, n, "%s", src);

	if (len < 0 || (size_t)len >= n) {
		dst[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

/* See probe_win.h. */
char *probe_win_trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
			   end[-1] == '\r' || end[-1] == '\n'))
		end--;
	*end = '\0';
	return s;
}

/* See probe_win.h. */
HANDLE probe_win_open_device(const char *name, const char *call)
{
	wchar_t *w = win_wide(name);
	HANDLE h;

	if (!w) {
		SetLastError(ERROR_NOT_ENOUGH_MEMORY);
		return INVALID_HANDLE_VALUE;
	}
	h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
			OPEN_EXISTING, 0, NULL);
	free(w);
	probe_win_traced(call, h != INVALID_HANDLE_VALUE);
	return h;
}
