/*
 * winapi_win — winapi.h: MultiByteToWideChar / WideCharToMultiByte with
 * MB_ERR_INVALID_CHARS (invalid text is an error, never replaced), the map
 * of Windows error codes to errno values, FormatMessageW; os.h's
 * os_error_detail, beside the code it keeps.
 */
#include "winapi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os.h"

int win_on_wine(void)
{
	HMODULE nt = GetModuleHandleW(L"ntdll.dll");

	return nt && GetProcAddress(nt, "wine_get_version") != NULL;
}

wchar_t *win_wide_text(const char *text)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1,
				    NULL, 0);
	wchar_t *w;

	if (n <= 0) {
		errno = EILSEQ;
		return NULL;
	}
	if (!(w = malloc((size_t)n * sizeof(*w)))) {
		errno = ENOMEM;
		return NULL;
	}
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, w, n);
	return w;
}

wchar_t *win_wide(const char *path)
{
	wchar_t *w = win_wide_text(path);

	for (size_t i = 0; w && w[i]; i++)
		if (w[i] == L'/')
			w[i] = L'\\';
	return w;
}

int win_narrow(const wchar_t *w, char *buf, size_t len, int slashes)
{
	int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, NULL,
				    0, NULL, NULL);

	if (n <= 0)
		return -EILSEQ;
	if ((size_t)n > len)
		return -ENAMETOOLONG;
	WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, buf, n, NULL,
			    NULL);
	for (int i = 0; slashes && i < n; i++)
		if (buf[i] == '\\')
			buf[i] = '/';
	return 0;
}

/* Windows' codes and the errno each stands for. */
static const struct {
	DWORD err;
	int no;
} err_map[] = {
	{ ERROR_FILE_NOT_FOUND, ENOENT },
	{ ERROR_PATH_NOT_FOUND, ENOENT },
	{ ERROR_INVALID_DRIVE, ENOENT },
	{ ERROR_BAD_NETPATH, ENOENT },
	{ ERROR_BAD_NET_NAME, ENOENT },
	{ ERROR_ACCESS_DENIED, EACCES },
	{ ERROR_SHARING_VIOLATION, EBUSY },
	{ ERROR_LOCK_VIOLATION, EBUSY },
	{ ERROR_FILE_EXISTS, EEXIST },
	{ ERROR_ALREADY_EXISTS, EEXIST },
	{ ERROR_DISK_FULL, ENOSPC },
	{ ERROR_HANDLE_DISK_FULL, ENOSPC },
	{ ERROR_NOT_ENOUGH_MEMORY, ENOMEM },
	{ ERROR_OUTOFMEMORY, ENOMEM },
	{ ERROR_INVALID_PARAMETER, EINVAL },
	{ ERROR_INVALID_NAME, EINVAL },
	{ ERROR_BAD_PATHNAME, EINVAL },
	{ ERROR_DIRECTORY, ENOTDIR },
	{ ERROR_DIR_NOT_EMPTY, ENOTEMPTY },
	{ ERROR_FILENAME_EXCED_RANGE, ENAMETOOLONG },
	{ ERROR_NOT_SUPPORTED, EOPNOTSUPP },
	{ ERROR_INVALID_FUNCTION, EOPNOTSUPP },
	{ ERROR_CALL_NOT_IMPLEMENTED, EOPNOTSUPP },
	{ ERROR_MOD_NOT_FOUND, EOPNOTSUPP },  /* a DLL the system lacks */
	{ ERROR_PROC_NOT_FOUND, EOPNOTSUPP }, /* a call its DLL lacks */
	{ ERROR_PRIVILEGE_NOT_HELD, EPERM },
	{ ERROR_WRITE_PROTECT, EROFS },
	{ ERROR_OPERATION_ABORTED, ECANCELED },
	{ ERROR_CANT_RESOLVE_FILENAME, ELOOP },
	{ ERROR_NOT_SAME_DEVICE, EXDEV },
	{ ERROR_NOT_READY, EAGAIN },
	{ ERROR_NO_SYSTEM_RESOURCES, ENOMEM },
	{ ERROR_NO_SUCH_PRIVILEGE, EPERM },
};

/* The last code win_errno turned into an errno, on this thread
 * (os_error_detail; 0: none). */
static _Thread_local DWORD last_err;

int os_error_detail(char *buf, size_t len)
{
	DWORD err = last_err;

	last_err = 0;
	if (!err)
		return 0;
	win_strerror(err, buf, len);
	return 1;
}

/* The sentence win_note left on this thread (os_take_note), or "". */
static _Thread_local char note[240];

void win_note(const char *text)
{
	snprintf(note, sizeof(note), "%s", text);
}

int os_take_note(char *buf, size_t len)
{
	if (!note[0])
		return 0;
	snprintf(buf, len, "%s", note);
	note[0] = '\0';
	return 1;
}

int win_errno(DWORD err)
{
	last_err = err;
	for (size_t i = 0; i < sizeof(err_map) / sizeof(err_map[0]); i++)
		if (err_map[i].err == err)
			return -err_map[i].no;
	return -EIO;
}

int win_last_errno(void)
{
	return win_errno(GetLastError());
}

void win_strerror(DWORD err, char *buf, size_t len)
{
	wchar_t w[256];
	char text[512];
	DWORD n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM |
					 FORMAT_MESSAGE_IGNORE_INSERTS,
				 NULL, err, 0, w, 256, NULL);

	while (n &&
	       (w[n - 1] == L'\n' || w[n - 1] == L'\r' || w[n - 1] == L' '))
		w[--n] = 0;
	if (!n || win_narrow(w, text, sizeof(text), 0) < 0)
		snprintf(buf, len, "Windows error %lu", (unsigned long)err);
	else
		snprintf(buf, len, "%s (error %lu)", text, (unsigned long)err);
}
