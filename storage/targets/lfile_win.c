/*
 * lfile_win — lfile.h on Windows, but for lfile_make (lfile_make_win.c) and
 * lfile_dio_align (dio_align_win.c):
 *   open        CreateFileW with FILE_FLAG_OVERLAPPED (always: the iocp
 *               back-end needs it, and the blocking transfer below works on
 *               it), FILE_FLAG_OPEN_REPARSE_POINT (a link is never
 *               followed), CREATE_NEW to create (never an existing file),
 *               FILE_FLAG_NO_BUFFERING for direct I/O (buffered when the
 *               volume refuses it) and FILE_FLAG_WRITE_THROUGH for dsync;
 *   transfer    ReadFile / WriteFile with an OVERLAPPED whose event is the
 *               calling thread's own, GetOverlappedResult to wait;
 *   fsync       FlushFileBuffers;
 *   preallocate SetFileInformationByHandle FileAllocationInfo, then
 *               FileEndOfFileInfo;
 *   unlink      DeleteFileW;
 *   dir checks  GetFileAttributesW, and a probe file made with
 *               CREATE_NEW | FILE_FLAG_DELETE_ON_CLOSE (lfile.c's
 *               lfile_check_dir says what they found);
 *   allocated   GetFileInformationByHandleEx FileStandardInfo;
 *   probe/space probe_local / probe_space (probe_win.c).
 */
#include "lfile.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/os.h"
#include "os/winapi.h"

static HANDLE open_w(const wchar_t *w, DWORD disposition, DWORD flags)
{
	return CreateFileW(w, GENERIC_READ | GENERIC_WRITE,
			   FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
			   disposition, FILE_ATTRIBUTE_NORMAL | flags, NULL);
}

/* A reparse point (symbolic link, junction) opened as itself: refused as
 * O_NOFOLLOW refuses a symlink. 0, -ELOOP or a negative errno. */
static int not_a_link(HANDLE h)
{
	BY_HANDLE_FILE_INFORMATION bi;

	if (!GetFileInformationByHandle(h, &bi))
		return win_last_errno();
	if (bi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
		return -ELOOP;
	if (bi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
		return -EISDIR;
	return 0;
}

int lfile_open(const struct tgt_open_args *args, struct lfile *f, int *direct)
{
	DWORD disp = args->create ? CREATE_NEW : OPEN_EXISTING;
	DWORD flags = FILE_FLAG_OVERLAPPED | FILE_FLAG_OPEN_REPARSE_POINT;
	wchar_t *w = win_wide(args->path);
	HANDLE h = INVALID_HANDLE_VALUE;
	DWORD err;
	int rc;

	*direct = 0;
	f->h = -1;
	if (!w)
		return -errno;
	if (args->dsync)
		flags |= FILE_FLAG_WRITE_THROUGH;
	if (args->direct) {
		h = open_w(w, disp, flags | FILE_FLAG_NO_BUFFERING);
		err = GetLastError();
		if (h != INVALID_HANDLE_VALUE)
			*direct = 1;
		else if (err != ERROR_INVALID_PARAMETER &&
			 err != ERROR_NOT_SUPPORTED) {
			free(w);
			return win_errno(err);
		}
		/* refused: buffered, as Linux does where O_DIRECT is */
	}
	if (h == INVALID_HANDLE_VALUE)
		h = open_w(w, disp, flags);
	if (h == INVALID_HANDLE_VALUE) {
		rc = win_last_errno();
		free(w);
		return rc;
	}
	if (!args->create && (rc = not_a_link(h)) < 0) {
		CloseHandle(h);
		free(w);
		*direct = 0;
		return rc;
	}
	free(w);
	f->h = (intptr_t)h;
	return 0;
}

void lfile_close(struct lfile *f)
{
	if (f->h != -1)
		CloseHandle((HANDLE)f->h);
	f->h = -1;
}

/*
 * The handle is overlapped, so a blocking transfer needs an OVERLAPPED with
 * an event; several psync workers share one handle, so each thread waits on
 * its own (made once, closed when the thread ends). The event's low bit set
 * keeps the completion off a port the handle may be bound to.
 */
static pthread_key_t ev_key;
static pthread_once_t ev_once = PTHREAD_ONCE_INIT;
static int ev_key_rc;

static void ev_free(void *ev)
{
	CloseHandle(ev);
}

static void ev_key_make(void)
{
	ev_key_rc = pthread_key_create(&ev_key, ev_free);
}

static HANDLE thread_event(void)
{
	HANDLE ev;

	pthread_once(&ev_once, ev_key_make);
	if (ev_key_rc != 0)
		return NULL;
	if ((ev = pthread_getspecific(ev_key)))
		return ev;
	if (!(ev = CreateEventW(NULL, TRUE, FALSE, NULL)))
		return NULL;
	if (pthread_setspecific(ev_key, ev) != 0) {
		CloseHandle(ev);
		return NULL;
	}
	return ev;
}

int64_t lfile_transfer(const struct lfile *f, struct tgt_io *io)
{
	HANDLE h = (HANDLE)f->h, ev = thread_event();
	uint64_t off = 0;

	if (!ev)
		return -ENOMEM;
	while (off < io->len) {
		uint64_t at = io->offset + off;
		OVERLAPPED ov;
		DWORD n = 0, len = io->len - (DWORD)off, err;
		BOOL ok;

		memset(&ov, 0, sizeof(ov));
		ov.Offset = (DWORD)at;
		ov.OffsetHigh = (DWORD)(at >> 32);
		ov.hEvent = (HANDLE)((uintptr_t)ev | 1);
		ok = io->write ? WriteFile(h, (char *)io->buf + off, len, NULL,
					   &ov)
			       : ReadFile(h, (char *)io->buf + off, len, NULL,
					  &ov);
		if (!ok && GetLastError() != ERROR_IO_PENDING)
			err = GetLastError();
		else if (!GetOverlappedResult(h, &ov, &n, TRUE))
			err = GetLastError();
		else
			err = 0;
		if (err == ERROR_HANDLE_EOF)
			break; /* a read past the end: bytes so far */
		if (err)
			return win_errno(err);
		if (n == 0)
			break; /* end of file or a full disk: short */
		off += n;
	}
	return (int64_t)off;
}

int lfile_tgt_fsync(void *ctx)
{
	const struct lfile *f = ctx;

	return FlushFileBuffers((HANDLE)f->h) ? 0 : win_last_errno();
}

/*
 * fallocate(fd, 0, 0, size): blocks reserved and the size raised to size,
 * never lowered. Allocation below the end of file would truncate the file,
 * so nothing is set unless the file grows.
 */
int lfile_tgt_preallocate(void *ctx, uint64_t size)
{
	const struct lfile *f = ctx;
	HANDLE h = (HANDLE)f->h;
	FILE_ALLOCATION_INFO ai;
	FILE_END_OF_FILE_INFO ei;
	LARGE_INTEGER cur;

	if (!GetFileSizeEx(h, &cur))
		return win_last_errno();
	if ((uint64_t)cur.QuadPart >= size)
		return 0;
	ai.AllocationSize.QuadPart = (LONGLONG)size;
	if (!SetFileInformationByHandle(h, FileAllocationInfo, &ai, sizeof(ai)))
		return win_last_errno();
	ei.EndOfFile.QuadPart = (LONGLONG)size;
	if (!SetFileInformationByHandle(h, FileEndOfFileInfo, &ei, sizeof(ei)))
		return win_last_errno();
	return 0;
}

int lfile_unlink(const char *path, const void *session)
{
	wchar_t *w = win_wide(path);
	int rc = 0;

	(void)session;
	if (!w)
		return -errno;
	if (!DeleteFileW(w))
		rc = win_last_errno();
	free(w);
	return rc;
}

int lfile_dir_kind(const char *dir)
{
	wchar_t *w = win_wide(dir);
	DWORD attr;

	if (!w)
		return -errno;
	attr = GetFileAttributesW(w);
	free(w);
	if (attr == INVALID_FILE_ATTRIBUTES)
		return win_last_errno();
	return attr & FILE_ATTRIBUTE_DIRECTORY ? 0 : -ENOTDIR;
}

/* A probe file in dir, created and removed by its own handle's close. */
int lfile_dir_writable(const char *dir)
{
	char name[64];
	size_t n = strlen(dir);
	char *path = malloc(n + sizeof(name) + 1);
	wchar_t *w;
	HANDLE h;
	int rc;

	if (!path)
		return -ENOMEM;
	snprintf(name, sizeof(name), ".storbench-check-%lu-%llu",
		 (unsigned long)GetCurrentProcessId(),
		 (unsigned long long)os_now_ns());
	snprintf(path, n + sizeof(name) + 1, "%s%s%s", dir,
		 n && (dir[n - 1] == '/' || dir[n - 1] == '\\') ? "" : "/",
		 name);
	w = win_wide(path);
	free(path);
	if (!w)
		return -errno;
	h = CreateFileW(w, GENERIC_WRITE, 0, NULL, CREATE_NEW,
			FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE,
			NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		rc = win_last_errno();
		return rc == -EEXIST ? -EACCES : rc;
	}
	CloseHandle(h);
	return 0;
}

int lfile_allocated(const char *path, const void *session, int64_t *bytes)
{
	FILE_STANDARD_INFO si;
	wchar_t *w = win_wide(path);
	HANDLE h;
	int rc = 0;

	(void)session;
	if (!w)
		return -errno;
	h = CreateFileW(w, FILE_READ_ATTRIBUTES,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			NULL, OPEN_EXISTING,
			FILE_FLAG_BACKUP_SEMANTICS |
				FILE_FLAG_OPEN_REPARSE_POINT,
			NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return win_last_errno();
	if (GetFileInformationByHandleEx(h, FileStandardInfo, &si, sizeof(si)))
		*bytes = (int64_t)si.AllocationSize.QuadPart;
	else
		rc = win_last_errno();
	CloseHandle(h);
	return rc;
}
