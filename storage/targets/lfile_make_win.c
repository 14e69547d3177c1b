/*
 * lfile_make_win — lfile_make (lfile.h) on Windows: the file-create
 * operations, each on a new file (CREATE_NEW: never an existing one),
 * each timed alone and followed by FlushFileBuffers:
 *   preallocate  SetFileInformationByHandle FileAllocationInfo and
 *                FileEndOfFileInfo, then SetFileValidData where the process
 *                holds SeManageVolumePrivilege (enabled here with
 *                AdjustTokenPrivileges); without it the blocks are
 *                allocated but NTFS zero-fills them when they are read
 *                before they are written;
 *   sparse       FSCTL_SET_SPARSE, then FileEndOfFileInfo;
 *   clone        FSCTL_DUPLICATE_EXTENTS_TO_FILE (ReFS block cloning) over
 *                cluster-aligned ranges of a file first made as sparse as
 *                the source and of its size;
 *   odx          FSCTL_OFFLOAD_READ for a token, FSCTL_OFFLOAD_WRITE with
 *                it (offloaded data transfer, done by the storage array);
 *   read/write   ReadFile / WriteFile 1 MiB at a time;
 *   vhdx         CreateVirtualDisk (virtdisk.dll, loaded at run time) with
 *                CREATE_VIRTUAL_DISK_FLAG_FULL_PHYSICAL_ALLOCATION: a fixed
 *                VHDX whose every block the Virtual Disk API writes.
 * zeros are the engine's (engine_prepare_file), as on Linux. A method the
 * volume does not do answers a negative errno (ERROR_INVALID_FUNCTION,
 * ERROR_NOT_SUPPORTED: -EOPNOTSUPP).
 */
#include "lfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "os/os.h"
#include "os/winapi.h"

#include <virtdisk.h>
#include <winioctl.h>

#define COPY_CHUNK (1U << 20)
#define CLONE_CHUNK (1ULL << 30) /* under the 4 GiB a call may clone */

/* Not in mingw-w64's winioctl.h (Windows 8 / Server 2016 SDK values). */
#ifndef FSCTL_OFFLOAD_READ
#define FSCTL_OFFLOAD_READ                                                     \
	CTL_CODE(FILE_DEVICE_FILE_SYSTEM, 153, METHOD_BUFFERED,                \
		 FILE_READ_ACCESS)
#define FSCTL_OFFLOAD_WRITE                                                    \
	CTL_CODE(FILE_DEVICE_FILE_SYSTEM, 154, METHOD_BUFFERED,                \
		 FILE_WRITE_ACCESS)
#endif
#ifndef FSCTL_DUPLICATE_EXTENTS_TO_FILE
#define FSCTL_DUPLICATE_EXTENTS_TO_FILE                                        \
	CTL_CODE(FILE_DEVICE_FILE_SYSTEM, 209, METHOD_BUFFERED,                \
		 FILE_WRITE_ACCESS)
#endif
#define OFFLOAD_TOKEN_SIZE 512

/* VIRTUAL_STORAGE_TYPE_VENDOR_MICROSOFT, defined here rather than taken
 * from virtdisk.lib (the DLL is loaded at run time) */
static const GUID vendor_microsoft = { 0xEC984AEC,
				       0xA0F9,
				       0x47e9,
				       { 0x90, 0x1F, 0x71, 0x41, 0x5A, 0x66,
					 0x34, 0x5B } };

struct sb_duplicate_extents {
	HANDLE file;
	LARGE_INTEGER src_off, dst_off, count;
};

struct sb_offload_read_in {
	DWORD size, flags, ttl_ms, reserved;
	DWORDLONG offset, length;
};

struct sb_offload_read_out {
	DWORD size, flags;
	DWORDLONG length;
	BYTE token[OFFLOAD_TOKEN_SIZE];
};

struct sb_offload_write_in {
	DWORD size, flags;
	DWORDLONG offset, length, token_offset;
	BYTE token[OFFLOAD_TOKEN_SIZE];
};

struct sb_offload_write_out {
	DWORD size, flags;
	DWORDLONG written;
};

/* path opened synchronously, not following a link: the source of a copy
 * (read, shared for reading), or a new file (CREATE_NEW, read and write:
 * the copies' destinations are read back by nobody, but FSCTLs want it).
 * INVALID_HANDLE_VALUE with *rc a negative errno on failure. */
static HANDLE open_file(const char *path, int create, int *rc)
{
	wchar_t *w = win_wide(path);
	HANDLE h;

	if (!w) {
		*rc = -errno;
		return INVALID_HANDLE_VALUE;
	}
	h = CreateFileW(w, GENERIC_READ | (create ? GENERIC_WRITE : 0),
			create ? 0 : FILE_SHARE_READ, NULL,
			create ? CREATE_NEW : OPEN_EXISTING,
			FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT,
			NULL);
	*rc = h == INVALID_HANDLE_VALUE ? win_last_errno() : 0;
	free(w);
	return h;
}

static int set_eof(HANDLE h, uint64_t size)
{
	FILE_END_OF_FILE_INFO ei;

	ei.EndOfFile.QuadPart = (LONGLONG)size;
	return SetFileInformationByHandle(h, FileEndOfFileInfo, &ei, sizeof(ei))
		       ? 0
		       : win_last_errno();
}

static int set_sparse(HANDLE h)
{
	FILE_SET_SPARSE_BUFFER sb = { .SetSparse = TRUE };
	DWORD n;

	return DeviceIoControl(h, FSCTL_SET_SPARSE, &sb, sizeof(sb), NULL, 0,
			       &n, NULL)
		       ? 0
		       : win_last_errno();
}

/*
 * SeManageVolumePrivilege, enabled in the process token if it holds it
 * (an administrator's token does; a service can be granted it): 1 when
 * enabled, 0 when not held. Asked once.
 */
static int manage_volume_privilege(void)
{
	static volatile LONG state; /* 0 unknown, 1 held, 2 not */
	TOKEN_PRIVILEGES tp = { .PrivilegeCount = 1 };
	HANDLE tok;
	LONG s;

	if ((s = state))
		return s == 1;
	s = 2;
	if (LookupPrivilegeValueW(NULL, L"SeManageVolumePrivilege",
				  &tp.Privileges[0].Luid) &&
	    OpenProcessToken(GetCurrentProcess(),
			     TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &tok)) {
		tp.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
		/* succeeds with ERROR_NOT_ALL_ASSIGNED when not held */
		if (AdjustTokenPrivileges(tok, FALSE, &tp, 0, NULL, NULL) &&
		    GetLastError() == ERROR_SUCCESS)
			s = 1;
		CloseHandle(tok);
	}
	InterlockedExchange(&state, s);
	return s == 1;
}

/* Allocated and sized; valid data set to the end where the privilege is
 * held (else reads before writes are zero-filled by the file system). */
static int preallocate(HANDLE h, uint64_t size)
{
	FILE_ALLOCATION_INFO ai;
	int rc;

	ai.AllocationSize.QuadPart = (LONGLONG)size;
	if (!SetFileInformationByHandle(h, FileAllocationInfo, &ai, sizeof(ai)))
		return win_last_errno();
	if ((rc = set_eof(h, size)) < 0)
		return rc;
	if (!size)
		return 0;
	if (!manage_volume_privilege()) {
		win_note("allocated and sized without SetFileValidData (the "
			 "process does not hold SeManageVolumePrivilege): the "
			 "clusters are reserved, and NTFS writes zeros ahead "
			 "of any later write beyond the valid data");
		return 0;
	}
	if (!SetFileValidData(h, (LONGLONG)size))
		return win_last_errno();
	return 0;
}

/* The cluster size of the volume holding path, or 0. */
static uint64_t cluster_size(const char *path)
{
	wchar_t *w = win_wide(path), root[MAX_PATH + 1];
	DWORD spc, bps, nfree, total;
	uint64_t c = 0;

	if (!w)
		return 0;
	if (GetVolumePathNameW(w, root, MAX_PATH + 1) &&
	    GetDiskFreeSpaceW(root, &spc, &bps, &nfree, &total))
		c = (uint64_t)spc * bps;
	free(w);
	return c;
}

/*
 * Block cloning: the destination must be sparse when the source is, and
 * as long as the range it receives; each range starts on a cluster and is
 * a whole number of clusters (the last may run to the cluster boundary
 * past the end of file).
 */
static int clone_data(HANDLE in, HANDLE out, uint64_t size, uint64_t cluster)
{
	BY_HANDLE_FILE_INFORMATION bi;
	struct sb_duplicate_extents d = { .file = in };
	uint64_t done = 0, end;
	DWORD n;
	int rc;

	if (!GetFileInformationByHandle(in, &bi))
		return win_last_errno();
	if ((bi.dwFileAttributes & FILE_ATTRIBUTE_SPARSE_FILE) &&
	    (rc = set_sparse(out)) < 0)
		return rc;
	if ((rc = set_eof(out, size)) < 0)
		return rc;
	if (cluster == 0)
		cluster = 4096;
	end = (size + cluster - 1) / cluster * cluster;
	while (done < end) {
		uint64_t len =
			end - done < CLONE_CHUNK ? end - done : CLONE_CHUNK;
		d.src_off.QuadPart = d.dst_off.QuadPart = (LONGLONG)done;
		d.count.QuadPart = (LONGLONG)len;
		if (!DeviceIoControl(out, FSCTL_DUPLICATE_EXTENTS_TO_FILE, &d,
				     sizeof(d), NULL, 0, &n, NULL))
			return win_last_errno();
		done += len;
	}
	return 0;
}

/*
 * ODX: the source range becomes a token (FSCTL_OFFLOAD_READ, which may
 * cover less than asked), the token is written at the same offset of the
 * destination (FSCTL_OFFLOAD_WRITE, which may write less than the token
 * covers: the rest is written with the token's next offset).
 */
static int offload_data(HANDLE in, HANDLE out, uint64_t size)
{
	struct sb_offload_read_in ri = { .size = sizeof(ri) };
	struct sb_offload_read_out ro;
	struct sb_offload_write_in wi;
	struct sb_offload_write_out wo;
	uint64_t done = 0;
	DWORD n;
	int rc;

	if ((rc = set_eof(out, size)) < 0)
		return rc;
	while (done < size) {
		uint64_t got = 0;
		ri.offset = done;
		ri.length = size - done;
		memset(&ro, 0, sizeof(ro));
		ro.size = sizeof(ro);
		if (!DeviceIoControl(in, FSCTL_OFFLOAD_READ, &ri, sizeof(ri),
				     &ro, sizeof(ro), &n, NULL))
			return win_last_errno();
		if (ro.length == 0)
			return -EIO;
		while (got < ro.length) {
			memset(&wi, 0, sizeof(wi));
			wi.size = sizeof(wi);
			wi.offset = done + got;
			wi.length = ro.length - got;
			wi.token_offset = got;
			memcpy(wi.token, ro.token, sizeof(wi.token));
			memset(&wo, 0, sizeof(wo));
			wo.size = sizeof(wo);
			if (!DeviceIoControl(out, FSCTL_OFFLOAD_WRITE, &wi,
					     sizeof(wi), &wo, sizeof(wo), &n,
					     NULL))
				return win_last_errno();
			if (wo.written == 0)
				return -EIO;
			got += wo.written;
		}
		done += got;
	}
	return 0;
}

static int copy_rw(HANDLE in, HANDLE out, uint64_t size)
{
	uint64_t done = 0;
	char *buf = malloc(COPY_CHUNK);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	while (done < size && rc == 0) {
		DWORD want = size - done < COPY_CHUNK ? (DWORD)(size - done)
						      : COPY_CHUNK;
		DWORD n = 0, w = 0, k;
		if (!ReadFile(in, buf, want, &n, NULL)) {
			rc = win_last_errno();
			break;
		}
		if (n == 0) {
			rc = -EIO; /* the source is shorter than size */
			break;
		}
		while (w < n && rc == 0) {
			if (!WriteFile(out, buf + w, n - w, &k, NULL))
				rc = win_last_errno();
			else if (k == 0)
				rc = -ENOSPC;
			else
				w += k;
		}
		done += n;
	}
	free(buf);
	return rc;
}

/* A copy of src's first size bytes into the new file dst by op. */
int lfile_copy_file(const char *src, const char *dst, enum tgt_file_op op,
		    uint64_t size)
{
	HANDLE in, out;
	int rc;

	if ((in = open_file(src, 0, &rc)) == INVALID_HANDLE_VALUE)
		return rc;
	if ((out = open_file(dst, 1, &rc)) == INVALID_HANDLE_VALUE) {
		CloseHandle(in);
		return rc;
	}
	if (op == TGT_FILE_CLONE)
		rc = clone_data(in, out, size, cluster_size(dst));
	else if (op == TGT_FILE_COPY_OFFLOAD)
		rc = offload_data(in, out, size);
	else
		rc = copy_rw(in, out, size);
	if (rc == 0 && !FlushFileBuffers(out))
		rc = win_last_errno();
	CloseHandle(in);
	CloseHandle(out);
	return rc;
}

/* Preallocated or sparse, then flushed. */
int lfile_create_sized(const char *path, uint64_t size, int sparse)
{
	int rc;
	HANDLE h = open_file(path, 1, &rc);

	if (h == INVALID_HANDLE_VALUE)
		return rc;
	if (sparse)
		rc = set_sparse(h);
	else
		rc = preallocate(h, size);
	if (rc == 0 && sparse)
		rc = set_eof(h, size);
	if (rc == 0 && !FlushFileBuffers(h))
		rc = win_last_errno();
	CloseHandle(h);
	return rc;
}

/* Wine's virtdisk.dll exports CreateVirtualDisk as a stub that ends the
 * process when called (wine 8): win_on_wine. */

typedef DWORD(WINAPI *create_vdisk_fn)(PVIRTUAL_STORAGE_TYPE, PCWSTR,
				       VIRTUAL_DISK_ACCESS_MASK,
				       PSECURITY_DESCRIPTOR,
				       CREATE_VIRTUAL_DISK_FLAG, ULONG,
				       PCREATE_VIRTUAL_DISK_PARAMETERS,
				       LPOVERLAPPED, PHANDLE);

/*
 * A fixed VHDX of size bytes (a whole number of MiB), every block written
 * by the Virtual Disk API, then flushed. virtdisk.dll is loaded here so
 * that storbench.exe starts where it is missing (Windows Server Core
 * without Hyper-V tools, wine): -EOPNOTSUPP then.
 */
int lfile_create_vhdx(const char *path, uint64_t size)
{
	VIRTUAL_STORAGE_TYPE vst = {
		.DeviceId = VIRTUAL_STORAGE_TYPE_DEVICE_VHDX,
		.VendorId = vendor_microsoft,
	};
	CREATE_VIRTUAL_DISK_PARAMETERS p;
	HMODULE dll = LoadLibraryExW(L"virtdisk.dll", NULL,
				     LOAD_LIBRARY_SEARCH_SYSTEM32);
	create_vdisk_fn create;
	HANDLE vd = INVALID_HANDLE_VALUE, h;
	wchar_t *w;
	DWORD err;
	int rc = 0;

	if (dll && win_on_wine()) {
		FreeLibrary(dll);
		/* wine's is a stub that ends the process: say what it is */
		return win_errno(ERROR_CALL_NOT_IMPLEMENTED);
	}
	if (!dll) /* LOAD_LIBRARY_SEARCH_SYSTEM32 needs KB2533623 on 7 */
		dll = LoadLibraryW(L"virtdisk.dll");
	if (!dll) /* virtdisk.dll is not on this system */
		return win_errno(ERROR_MOD_NOT_FOUND);
	create = (create_vdisk_fn)(void (*)(void))GetProcAddress(
		dll, "CreateVirtualDisk");
	if (!create) {
		FreeLibrary(dll);
		return win_errno(ERROR_PROC_NOT_FOUND);
	}
	if (!(w = win_wide(path))) {
		FreeLibrary(dll);
		return -errno;
	}
	/* CreateVirtualDisk would not overwrite a file, but say so as
	 * CREATE_NEW does, before it is asked */
	if (GetFileAttributesW(w) != INVALID_FILE_ATTRIBUTES) {
		rc = -EEXIST;
		goto out;
	}
	memset(&p, 0, sizeof(p));
	p.Version = CREATE_VIRTUAL_DISK_VERSION_2;
	p.Version2.MaximumSize = size;
	/* block, sector and physical sector sizes 0: the API's defaults */
	err = create(&vst, w, VIRTUAL_DISK_ACCESS_NONE, NULL,
		     CREATE_VIRTUAL_DISK_FLAG_FULL_PHYSICAL_ALLOCATION, 0, &p,
		     NULL, &vd);
	if (err != ERROR_SUCCESS) {
		rc = win_errno(err);
		goto out;
	}
	CloseHandle(vd);
	h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ, NULL, OPEN_EXISTING,
			FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		rc = win_last_errno();
		goto out;
	}
	if (!FlushFileBuffers(h))
		rc = win_last_errno();
	CloseHandle(h);
out:
	free(w);
	FreeLibrary(dll);
	return rc;
}
