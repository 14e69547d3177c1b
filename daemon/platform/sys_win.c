/*
 * sys_win — sys.h's paths and files on Windows (the process-wide rest:
 * arguments, the data directory's lock, stop requests, no crash dumps, is
 * sys_proc_win.c). Which calls do what:
 *
 *   paths        a drive letter, ':' and a separator is absolute, and so is
 *                a share through Windows' own SMB client, \\server\share\dir
 *                (sys_share_win.c); \\.\ and \\?\ device paths are not.
 *   realpath     CreateFileW (no access, FILE_FLAG_BACKUP_SEMANTICS: follows
 *                links, opens directories) + GetFinalPathNameByHandleW
 *                (FILE_NAME_NORMALIZED | VOLUME_NAME_DOS), "\\?\" taken off,
 *                '\' turned into '/': "D:/bench/x", a drive's root "D:/";
 *                "\\?\UNC\srv\share\x" becomes "//srv/share/x", a share's
 *                root "//srv/share" (opened as "\\srv\share\").
 *   path kinds   GetFileAttributesW, and GetFileInformationByHandleEx
 *                (FileAttributeTagInfo) for a reparse point's tag; device
 *                paths are told by their text.
 *   held dirs    CreateFileW sharing reading and writing, not deletion:
 *                while open, nobody renames or removes the directory or
 *                one above it, so its path keeps naming it (O_PATH and
 *                /proc/self/fd/N on Linux). Children are named by path.
 *   raw devices  none: storbench.exe benchmarks files in volumes and refuses
 *                raw volumes (\\.\D:) and physical drives.
 *   private      sys_private_win.c.
 *   remove tree  FindFirstFileW / DeleteFileW / RemoveDirectoryW; a reparse
 *                point is removed, not entered.
 */
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "os/winapi.h"

#include "os/os.h"

static int is_sep(char c)
{
	return c == '/' || c == '\\';
}

int sys_path_absolute(const char *path)
{
	/* "D:/…", "D:\…", \\server\share\…; not "D:x" (relative to D:'s
	 * current directory), not "\x" (the current drive's root), not \\.\
	 * or \\?\ device paths */
	return (((path[0] >= 'A' && path[0] <= 'Z') ||
		 (path[0] >= 'a' && path[0] <= 'z')) &&
		path[1] == ':' && is_sep(path[2])) ||
	       sys_path_share(path);
}

int sys_path_sep(int c)
{
	return c == '/' || c == '\\';
}

/* path as UTF-16 for the W calls (win_wide), a share's root with a '\' at
 * its end ("\\srv\share\"), which every call takes as its directory.
 * malloc'd, or NULL with errno set. */
static wchar_t *wide_path(const char *path)
{
	wchar_t *w = win_wide(path), *more;
	size_t n, seps = 0;

	if (!w || !sys_path_share(path))
		return w;
	n = wcslen(w);
	for (size_t i = 2; i < n; i++)
		seps += w[i] == L'\\';
	if (seps != 1 || w[n - 1] == L'\\')
		return w;
	if (!(more = realloc(w, (n + 2) * sizeof(*w)))) {
		free(w);
		errno = ENOMEM;
		return NULL;
	}
	more[n] = L'\\';
	more[n + 1] = 0;
	return more;
}

/* Does path start with the four characters "\\.\" or "\\?\" (either
 * separator)? Then *kind is '.' or '?'. */
static int device_prefix(const char *path, char *kind)
{
	if (!is_sep(path[0]) || !is_sep(path[1]) ||
	    (path[2] != '.' && path[2] != '?') || !is_sep(path[3]))
		return 0;
	*kind = path[2];
	return 1;
}

/* Is path a raw volume or drive: \\.\X:, \\.\PhysicalDriveN,
 * \\.\HarddiskVolumeN, \\?\Volume{…} (without a separator after it, which
 * would name its root directory)? */
static int is_device_path(const char *path)
{
	const char *p = path + 4, *close;
	char k;

	if (!device_prefix(path, &k))
		return 0;
	if (k == '.' && ((p[0] | 0x20) >= 'a' && (p[0] | 0x20) <= 'z') &&
	    p[1] == ':' && p[2] == '\0')
		return 1;
	if (k == '.' && (strncasecmp(p, "PhysicalDrive", 13) == 0 ||
			 strncasecmp(p, "HarddiskVolume", 14) == 0))
		return strpbrk(p, "/\\") == NULL;
	if (strncasecmp(p, "Volume{", 7) == 0 && (close = strchr(p, '}')))
		return close[1] == '\0';
	return 0;
}

/* The reparse tag of the reparse point w (opened itself, not followed), or
 * 0 when it cannot be read. */
static DWORD reparse_tag(const wchar_t *w)
{
	FILE_ATTRIBUTE_TAG_INFO ti;
	HANDLE h = CreateFileW(
		w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
		NULL, OPEN_EXISTING,
		FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
		NULL);
	DWORD tag = 0;

	if (h == INVALID_HANDLE_VALUE)
		return 0;
	if (GetFileInformationByHandleEx(h, FileAttributeTagInfo, &ti,
					 sizeof(ti)) &&
	    (ti.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT))
		tag = ti.ReparseTag;
	CloseHandle(h);
	return tag;
}

int sys_path_kind(const char *path)
{
	wchar_t *w;
	DWORD a;
	int kind;

	if (is_device_path(path))
		return SYS_KIND_DEVICE; /* not opened: that could block */
	if (!(w = wide_path(path)))
		return -errno;
	a = GetFileAttributesW(w);
	if (a == INVALID_FILE_ATTRIBUTES) {
		kind = win_last_errno();
	} else if (a & FILE_ATTRIBUTE_REPARSE_POINT) {
		/* a link of any kind — symbolic link, junction, volume mount
		 * point (the "name surrogates") — is one; a file the system
		 * only stores differently (OneDrive, deduplication) is what
		 * it holds. Without its tag (wine gives none for the Unix
		 * symbolic links it reports as reparse points) it is a link */
		DWORD tag = reparse_tag(w);
		kind = tag && !IsReparseTagNameSurrogate(tag)
			       ? (a & FILE_ATTRIBUTE_DIRECTORY ? SYS_KIND_DIR
							       : SYS_KIND_FILE)
			       : SYS_KIND_LINK;
	} else if (a & FILE_ATTRIBUTE_DIRECTORY) {
		kind = SYS_KIND_DIR;
	} else if (a & FILE_ATTRIBUTE_DEVICE) {
		kind = SYS_KIND_OTHER;
	} else {
		kind = SYS_KIND_FILE;
	}
	free(w);
	return kind;
}

static int final_path(HANDLE h, char *out, size_t len)
{
	DWORD n = GetFinalPathNameByHandleW(
		h, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	wchar_t *w, *p;
	int rc;

	if (n == 0)
		return win_last_errno();
	if (!(w = malloc(((size_t)n + 1) * sizeof(*w))))
		return -ENOMEM;
	n = GetFinalPathNameByHandleW(h, w, n + 1,
				      FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	if (n == 0) {
		free(w);
		return win_last_errno();
	}
	p = w;
	if (wcsncmp(p, L"\\\\?\\UNC\\", 8) == 0) {
		p += 6; /* "\\?\UNC\srv" → "\\srv" */
		p[0] = L'\\';
	} else if (wcsncmp(p, L"\\\\?\\", 4) == 0) {
		p += 4;
	}
	rc = win_narrow(p, out, len, 1);
	free(w);
	if (rc < 0)
		return rc;
	/* a drive's root keeps its '/': "D:/"; nothing else ends in one */
	n = (DWORD)strlen(out);
	if (n > 3 && out[n - 1] == '/')
		out[n - 1] = '\0';
	return 0;
}

/* path opened for nothing but its name (CreateFileW with no access), or
 * INVALID_HANDLE_VALUE with *rc set. */
static HANDLE open_name(const char *path, DWORD access, DWORD share, int *rc)
{
	wchar_t *w = wide_path(path);
	HANDLE h;

	if (!w) {
		*rc = -errno;
		return INVALID_HANDLE_VALUE;
	}
	h = CreateFileW(w, access, share, NULL, OPEN_EXISTING,
			FILE_FLAG_BACKUP_SEMANTICS, NULL);
	if (h == INVALID_HANDLE_VALUE)
		*rc = win_last_errno();
	free(w);
	return h;
}

int sys_realpath(const char *path, char *real)
{
	int rc = 0;
	HANDLE h = open_name(
		path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
		&rc);

	if (h == INVALID_HANDLE_VALUE) {
		errno = -rc;
		return rc;
	}
	rc = final_path(h, real, PATH_MAX);
	CloseHandle(h);
	if (rc < 0)
		errno = -rc; /* as realpath(3) does: callers may read it */
	return rc;
}

int sys_dir_open(const char *dir, intptr_t *h, char *real, size_t len)
{
	BY_HANDLE_FILE_INFORMATION info;
	int rc = 0;
	/* no FILE_SHARE_DELETE: the directory cannot be renamed or removed
	 * while we hold it (see the top) */
	HANDLE d = open_name(dir, FILE_LIST_DIRECTORY,
			     FILE_SHARE_READ | FILE_SHARE_WRITE, &rc);

	*h = -1;
	real[0] = '\0';
	if (d == INVALID_HANDLE_VALUE)
		return rc;
	if (!GetFileInformationByHandle(d, &info) ||
	    !(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
		CloseHandle(d);
		return -ENOTDIR;
	}
	if (final_path(d, real, len) < 0) {
		real[0] = '\0';
		CloseHandle(d);
		return -EXDEV; /* cannot tell where it is */
	}
	*h = (intptr_t)d;
	return 0;
}

int sys_dir_child(intptr_t h, const char *name, char *buf, size_t len)
{
	char dir[PATH_MAX];
	int n;

	/* the held directory cannot have moved: its name now is its name */
	if (final_path((HANDLE)h, dir, sizeof(dir)) < 0)
		return -ENAMETOOLONG;
	n = snprintf(buf, len, "%s%s%s", dir,
		     dir[strlen(dir) - 1] == '/' ? "" : "/", name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void sys_dir_close(intptr_t h)
{
	if (h != -1)
		CloseHandle((HANDLE)h);
}

/*
 * Raw devices: storbench.exe does not write raw volumes (\\.\D:) or physical
 * drives (\\.\PhysicalDrive0); benchmarks on Windows run on files in
 * volumes. Nothing is a raw device to it, so confine.c treats every target
 * as a directory and --allow-device never allows one.
 */
int sys_device_id(const char *path, char *real, uint64_t *id)
{
	(void)path;
	(void)real;
	(void)id;
	return -ENOTBLK;
}

int sys_device_free(const char *name, const char *real, uint64_t id, char *why,
		    size_t len)
{
	(void)real;
	(void)id;
	snprintf(why, len,
		 "%s: storbench on Windows does not write raw volumes or "
		 "drives; benchmark a directory in the volume",
		 name);
	return -EOPNOTSUPP;
}

int sys_device_size(const char *real, uint64_t *bytes)
{
	(void)real;
	*bytes = 0;
	return -EOPNOTSUPP;
}

int sys_device_hold(const char *real, intptr_t *h)
{
	(void)real;
	*h = -1;
	return -EOPNOTSUPP;
}

void sys_device_release(intptr_t h)
{
	(void)h;
}

int sys_device_discard(const char *real, uint64_t offset, uint64_t len,
		       char *why, size_t why_len)
{
	(void)offset;
	(void)len;
	snprintf(why, why_len,
		 "%s cannot be discarded: storbench.exe has no purge", real);
	return -EOPNOTSUPP;
}

/* Removes what w names: a directory's contents first, unless it is a
 * reparse point (a link), which is removed itself. */
static void remove_w(const wchar_t *w)
{
	DWORD a = GetFileAttributesW(w);
	size_t n = wcslen(w);
	WIN32_FIND_DATAW fd;
	wchar_t *pat;
	HANDLE f;

	if (a == INVALID_FILE_ATTRIBUTES)
		return;
	if (a & FILE_ATTRIBUTE_READONLY)
		SetFileAttributesW(w, a & ~(DWORD)FILE_ATTRIBUTE_READONLY);
	if (!(a & FILE_ATTRIBUTE_DIRECTORY)) {
		DeleteFileW(w);
		return;
	}
	if (a & FILE_ATTRIBUTE_REPARSE_POINT) {
		RemoveDirectoryW(w); /* the junction or link, not its target */
		return;
	}
	if (!(pat = malloc((n + 3) * sizeof(*pat))))
		return;
	swprintf(pat, n + 3, L"%ls\\*", w);
	f = FindFirstFileW(pat, &fd);
	while (f != INVALID_HANDLE_VALUE) {
		if (wcscmp(fd.cFileName, L".") != 0 &&
		    wcscmp(fd.cFileName, L"..") != 0) {
			size_t k = n + 2 + wcslen(fd.cFileName);
			wchar_t *c = malloc(k * sizeof(*c));
			if (c) {
				swprintf(c, k, L"%ls\\%ls", w, fd.cFileName);
				remove_w(c);
				free(c);
			}
		}
		if (!FindNextFileW(f, &fd)) {
			FindClose(f);
			break;
		}
	}
	free(pat);
	RemoveDirectoryW(w);
}

void sys_remove_tree(const char *path)
{
	wchar_t *w = win_wide(path);
	size_t n;

	if (!w)
		return;
	n = wcslen(w);
	while (n > 3 && w[n - 1] == L'\\')
		w[--n] = 0;
	remove_w(w);
	free(w);
}
