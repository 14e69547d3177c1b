/*
 * winapi — what the Windows files of the OS seam (*_win.c) share, and
 * nothing else includes: UTF-8 paths to the UTF-16 the W functions take
 * and back, Windows' error codes as negative errno values. storbench
 * keeps paths as UTF-8 with '/' between components ("D:/bench"); Windows
 * takes either separator, so the conversion only widens the text and turns
 * '/' into '\'.
 */
#ifndef STORBENCH_WINAPI_H
#define STORBENCH_WINAPI_H

#include <stddef.h>
#include <wchar.h>
#include <windows.h>

/* path (UTF-8) as UTF-16 with '\' separators: malloc'd, or NULL with
 * errno set (EILSEQ: not UTF-8, ENOMEM). */
wchar_t *win_wide(const char *path);
/* Is this wine, not Windows (ntdll exports wine_get_version)? For what
 * wine does differently in ways that matter: a stub that ends the process,
 * access lists kept as Unix modes. */
int win_on_wine(void);

/* text (UTF-8) as UTF-16 as it is (a password: no '/' turned into '\'):
 * malloc'd, or NULL with errno set. */
wchar_t *win_wide_text(const char *text);

/* w (UTF-16, NUL-terminated) as UTF-8 into buf (len bytes) with '\' turned
 * into '/' when slashes is 1. 0, -ENAMETOOLONG or -EILSEQ. */
int win_narrow(const wchar_t *w, char *buf, size_t len, int slashes);

/* A Windows error code (GetLastError) as a negative errno:
 * ERROR_FILE_NOT_FOUND → -ENOENT, ERROR_ACCESS_DENIED → -EACCES,
 * ERROR_NOT_SUPPORTED → -EOPNOTSUPP, … ; unknown codes → -EIO. */
int win_errno(DWORD err);

/* The last error as win_errno(GetLastError()). */
int win_last_errno(void);

/* The system's sentence for err (FormatMessageW), as UTF-8 without the
 * trailing line break, with its code: "The request is not supported.
 * (error 50)". */
void win_strerror(DWORD err, char *buf, size_t len);

/* strerror with the GNU C library's words (strerror_win.c): the Windows
 * build defines strerror as os_strerror. */
char *os_strerror(int errnum);

/* Leaves text for os_take_note (os.h) on this thread. */
void win_note(const char *text);

#endif
