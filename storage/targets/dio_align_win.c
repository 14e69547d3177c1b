/*
 * dio_align_win — what unbuffered I/O (FILE_FLAG_NO_BUFFERING) on a file
 * needs: lfile_dio_align (lfile.h). Offsets, lengths and buffer addresses
 * must all be multiples of the volume's logical sector size, from
 * GetFileInformationByHandleEx(FileStorageInfo) (Windows 8+), else from
 * GetDiskFreeSpaceW's bytes per sector of the volume holding the path
 * (GetVolumePathNameW), where FileStorageInfo is not answered (older
 * Windows, some file systems and redirectors).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "lfile.h"
#include "os/winapi.h"

/* FileStorageInfo of the file w: the logical sector size, or 0. */
static uint32_t storage_info_sector(const wchar_t *w)
{
	FILE_STORAGE_INFO si;
	uint32_t sector = 0;
	HANDLE h = CreateFileW(
		w, FILE_READ_ATTRIBUTES,
		FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
		OPEN_EXISTING,
		FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
		NULL);

	if (h == INVALID_HANDLE_VALUE)
		return 0;
	if (GetFileInformationByHandleEx(h, FileStorageInfo, &si, sizeof(si)))
		sector = si.LogicalBytesPerSector;
	CloseHandle(h);
	return sector;
}

/* Bytes per sector of the volume holding w: 0 or a negative errno. */
static int volume_sector(const wchar_t *w, uint32_t *sector)
{
	wchar_t root[MAX_PATH + 1];
	DWORD spc, bps, nfree, total;

	if (!GetVolumePathNameW(w, root, MAX_PATH + 1))
		return win_last_errno();
	if (!GetDiskFreeSpaceW(root, &spc, &bps, &nfree, &total))
		return win_last_errno();
	*sector = bps;
	return 0;
}

int lfile_dio_align(const char *path, uint32_t *offset_align,
		    uint32_t *mem_align)
{
	wchar_t *w = win_wide(path);
	uint32_t sector;
	int rc = 0;

	*offset_align = *mem_align = 0;
	if (!w)
		return -errno;
	sector = storage_info_sector(w);
	if (sector == 0)
		rc = volume_sector(w, &sector);
	free(w);
	if (rc < 0)
		return rc;
	if (sector == 0 || (sector & (sector - 1)))
		return -EOPNOTSUPP; /* no sector size to go by */
	/* NO_BUFFERING: buffers on sector boundaries too */
	*offset_align = *mem_align = sector;
	return 0;
}
