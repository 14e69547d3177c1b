/*
 * probe_win — a snapshot of the machine, the volume and the disk behind a
 * path on Windows (see probe.h for the fields).
 *
 * Sources: GetComputerNameExW (ComputerNameDnsHostname); RtlGetVersion
 * (ntdll, through GetProcAddress: GetVersionEx reports what the program's
 * manifest allows, not the system) and the registry's
 * HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion (ProductName,
 * DisplayVersion, UBR); GetFinalPathNameByHandleW (the real path, as
 * realpath on Linux); GetVolumePathNameW (mount_point);
 * GetVolumeNameForVolumeMountPointW (device, "\\?\Volume{…}\");
 * GetVolumeInformationW (volume_label, fs_type, fs_features);
 * GetDiskFreeSpaceW (fs_block_size: the cluster) and GetDiskFreeSpaceExW
 * (free_bytes, total_bytes); the disk under the volume and what it says
 * of itself (disk, device_model, bus_type, rotational, write_cache:
 * probe_disk_win.c); the registry's
 * HKLM\HARDWARE\DESCRIPTION\System\CentralProcessor\0 ProcessorNameString
 * (cpu_model); GetActiveProcessorCount (cpus); GlobalMemoryStatusEx
 * (memory_bytes).
 *
 * Design as probe_linux.c: probe_path() fails only when the path itself
 * cannot be resolved (GetFileAttributesW). Everything after that is best
 * effort; each source fills its own fields and leaves the rest "" or -1.
 * The volume and the disk are opened with no access rights (share read and
 * write), which IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS and
 * IOCTL_STORAGE_QUERY_PROPERTY accept: no administrator needed.
 *
 * Not filled: mount_options ("" — Windows has no mount options; what the
 * filesystem does is in fs_features), mount_type but "remote" for a
 * share (GetDriveTypeW: DRIVE_REMOTE; its smb fields: probe_share_win.c),
 * and "deduplication" in fs_features: no GetVolumeInformation flag tells
 * it, and the documented ways (the Data Deduplication WMI provider, a
 * file's IO_REPARSE_TAG_DEDUP) are not a cheap question about a volume.
 * A volume on more than one disk (a spanned or striped dynamic volume)
 * leaves the disk fields empty: one disk's model would misdescribe it. A
 * Storage Spaces volume is one virtual disk, bus "Spaces".
 *
 * Invariant: as on Linux, a string that does not fit its field is left ""
 * rather than cut short.
 */
#include "probe.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/winapi.h"
#include "probe_win.h"

#include <winioctl.h>

/* Flags of GetVolumeInformationW that older mingw-w64 headers lack. */
#ifndef FILE_SUPPORTS_BLOCK_REFCOUNTING
#define FILE_SUPPORTS_BLOCK_REFCOUNTING 0x08000000
#endif
#ifndef FILE_DAX_VOLUME
#define FILE_DAX_VOLUME 0x20000000
#endif

/* w as UTF-8 into dst[n] ('\' turned '/' when slashes); "" on failure. */
static void set_wide(char *dst, size_t n, const wchar_t *w, int slashes)
{
	if (win_narrow(w, dst, n, slashes) != 0)
		dst[0] = '\0';
}

/* A string value of HKLM\key into dst[n] as trimmed UTF-8; 0 or -1. */
static int reg_string(const wchar_t *key, const wchar_t *name, char *dst,
		      size_t n, const char *call)
{
	wchar_t w[256];
	char buf[768];
	DWORD size = sizeof(w);
	LONG st = RegGetValueW(HKEY_LOCAL_MACHINE, key, name, RRF_RT_REG_SZ,
			       NULL, w, &size);

	if (probe_win_trace)
		probe_win_trace(call, (unsigned long)st);
	dst[0] = '\0';
	if (st != ERROR_SUCCESS || win_narrow(w, buf, sizeof(buf), 0) != 0)
		return -1;
	return probe_win_set_str(dst, n, probe_win_trim(buf)) == 0 && dst[0]
		       ? 0
		       : -1;
}

#define NT_CURRENT_VERSION L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion"

/*
 * kernel: "Windows MAJOR.MINOR.BUILD[.UBR] (ProductName[, DisplayVersion])".
 * The numbers are what the system is; ProductName is the registry's text
 * as it stands (Windows 11 still calls itself "Windows 10 …" there, build
 * 22000 and later is 11).
 */
static void probe_kernel(struct probe *p)
{
	typedef LONG(WINAPI * rtl_get_version_fn)(RTL_OSVERSIONINFOW *);
	RTL_OSVERSIONINFOW v = { .dwOSVersionInfoSize = sizeof(v) };
	HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
	FARPROC proc = ntdll ? GetProcAddress(ntdll, "RtlGetVersion") : NULL;
	char ver[64], product[128], display[32], all[256];
	DWORD ubr = 0, size = sizeof(ubr);
	LONG st;
	int n;

	probe_win_traced("GetProcAddress(RtlGetVersion)", proc != NULL);
	if (!proc)
		return;
	st = ((rtl_get_version_fn)(void (*)(void))proc)(&v);
	if (probe_win_trace)
		probe_win_trace("RtlGetVersion", (unsigned long)st);
	if (st != 0)
		return;
	st = RegGetValueW(HKEY_LOCAL_MACHINE, NT_CURRENT_VERSION, L"UBR",
			  RRF_RT_REG_DWORD, NULL, &ubr, &size);
	if (probe_win_trace)
		probe_win_trace("RegGetValueW(UBR)", (unsigned long)st);
	if (st != ERROR_SUCCESS)
		ubr = 0;
	snprintf(ver, sizeof(ver),
		 ubr ? "Windows %lu.%lu.%lu.%lu" : "Windows %lu.%lu.%lu",
		 (unsigned long)v.dwMajorVersion,
		 (unsigned long)v.dwMinorVersion,
		 (unsigned long)v.dwBuildNumber, (unsigned long)ubr);
	(void)probe_win_set_str(p->kernel, sizeof(p->kernel), ver);
	if (reg_string(NT_CURRENT_VERSION, L"ProductName", product,
		       sizeof(product), "RegGetValueW(ProductName)") != 0)
		return;
	if (reg_string(NT_CURRENT_VERSION, L"DisplayVersion", display,
		       sizeof(display), "RegGetValueW(DisplayVersion)") == 0)
		n = snprintf(all, sizeof(all), "%s (%s, %s)", ver, product,
			     display);
	else
		n = snprintf(all, sizeof(all), "%s (%s)", ver, product);
	/* too long with the product: the numbers alone */
	if (n > 0 && (size_t)n < sizeof(p->kernel))
		(void)probe_win_set_str(p->kernel, sizeof(p->kernel), all);
}

/* hostname, kernel, cpu_model, cpus, memory_bytes: the machine. */
static void probe_machine(struct probe *p)
{
	wchar_t host[256];
	DWORD size = 256, cpus;
	MEMORYSTATUSEX mem = { .dwLength = sizeof(mem) };
	SYSTEM_INFO si;

	if (probe_win_traced(
		    "GetComputerNameExW",
		    GetComputerNameExW(ComputerNameDnsHostname, host, &size)))
		set_wide(p->hostname, sizeof(p->hostname), host, 0);
	probe_kernel(p);
	(void)reg_string(L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
			 L"ProcessorNameString", p->cpu_model,
			 sizeof(p->cpu_model),
			 "RegGetValueW(ProcessorNameString)");
	cpus = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
	probe_win_traced("GetActiveProcessorCount", cpus != 0);
	if (cpus == 0) {
		GetSystemInfo(&si);
		cpus = si.dwNumberOfProcessors;
	}
	if (cpus > 0)
		p->cpus = cpus > INT_MAX ? INT_MAX : (int)cpus;
	if (probe_win_traced("GlobalMemoryStatusEx",
			     GlobalMemoryStatusEx(&mem)))
		p->memory_bytes = mem.ullTotalPhys > INT64_MAX
					  ? INT64_MAX
					  : (int64_t)mem.ullTotalPhys;
}

/* A canonical name of Linux's for Windows' filesystem name, or NULL. */
static const char *fs_name(const char *win)
{
	static const char *const names[][2] = {
		{ "NTFS", "ntfs" },    { "ReFS", "refs" }, { "exFAT", "exfat" },
		{ "FAT32", "fat32" },  { "FAT", "fat" },   { "UDF", "udf" },
		{ "CDFS", "iso9660" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (_stricmp(win, names[i][0]) == 0)
			return names[i][1];
	return NULL;
}

/* fs_features: the flags of GetVolumeInformationW that change numbers. */
static void features(DWORD flags, char *dst, size_t n)
{
	static const struct {
		DWORD flag;
		const char *name;
	} map[] = {
		{ FILE_FILE_COMPRESSION, "compression" },
		{ FILE_SUPPORTS_SPARSE_FILES, "sparse_files" },
		{ FILE_SUPPORTS_INTEGRITY_STREAMS, "integrity_streams" },
		{ FILE_SUPPORTS_BLOCK_REFCOUNTING, "block_cloning" },
		{ FILE_DAX_VOLUME, "dax" },
	};
	size_t len = 0;

	dst[0] = '\0';
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		int w;

		if (!(flags & map[i].flag))
			continue;
		w = snprintf(dst + len, n - len, "%s%s", len ? "," : "",
			     map[i].name);
		if (w < 0 || (size_t)w >= n - len) {
			dst[0] = '\0';
			return;
		}
		len += (size_t)w;
	}
}

/* *free_bytes and *total_bytes of the volume holding dir (a directory
 * with a trailing '\'). 0 or a negative errno. */
static int space_of(const wchar_t *dir, int64_t *free_bytes,
		    int64_t *total_bytes)
{
	ULARGE_INTEGER avail, total;

	if (!probe_win_traced("GetDiskFreeSpaceExW",
			      GetDiskFreeSpaceExW(dir, &avail, &total, NULL)))
		return win_last_errno();
	*free_bytes = avail.QuadPart > INT64_MAX ? INT64_MAX
						 : (int64_t)avail.QuadPart;
	*total_bytes = total.QuadPart > INT64_MAX ? INT64_MAX
						  : (int64_t)total.QuadPart;
	return 0;
}

/* w with a trailing '\' (malloc'd), or NULL. */
static wchar_t *with_slash(const wchar_t *w)
{
	size_t n = wcslen(w);
	wchar_t *s = malloc((n + 2) * sizeof(*s));

	if (!s)
		return NULL;
	memcpy(s, w, n * sizeof(*s));
	if (n == 0 || (w[n - 1] != L'\\' && w[n - 1] != L'/'))
		s[n++] = L'\\';
	s[n] = 0;
	return s;
}

/* The volume holding path into vol[n] ("C:\", "C:\mnt\data\", "\\srv\s\").
 * Returns TRUE or FALSE (last error set). */
static BOOL volume_of(const wchar_t *path, wchar_t *vol, DWORD n)
{
	return probe_win_traced("GetVolumePathNameW",
				GetVolumePathNameW(path, vol, n));
}

/*
 * The real path of w (links and junctions followed), malloc'd, without the
 * "\\?\" GetFinalPathNameByHandleW puts in front ("\\?\UNC\srv\s" becomes
 * "\\srv\s"); the full path of w when it cannot be opened; NULL for no
 * memory.
 */
static wchar_t *real_path(const wchar_t *w)
{
	HANDLE h = CreateFileW(
		w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
		NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	wchar_t *r = NULL;
	DWORD n = 0;

	if (probe_win_traced("CreateFileW(path)", h != INVALID_HANDLE_VALUE)) {
		n = GetFinalPathNameByHandleW(h, NULL, 0, FILE_NAME_NORMALIZED);
		if (n && (r = malloc((n + 1) * sizeof(*r))) &&
		    !probe_win_traced(
			    "GetFinalPathNameByHandleW",
			    GetFinalPathNameByHandleW(
				    h, r, n + 1, FILE_NAME_NORMALIZED) != 0)) {
			free(r);
			r = NULL;
		}
		CloseHandle(h);
	}
	if (!r) {
		n = GetFullPathNameW(w, 0, NULL, NULL);
		if (!n || !(r = malloc((n + 1) * sizeof(*r))))
			return NULL;
		if (!probe_win_traced("GetFullPathNameW",
				      GetFullPathNameW(w, n + 1, r, NULL) !=
					      0)) {
			free(r);
			return NULL;
		}
	}
	if (wcsncmp(r, L"\\\\?\\UNC\\", 8) == 0)
		memmove(r + 2, r + 8, (wcslen(r + 8) + 1) * sizeof(*r));
	else if (wcsncmp(r, L"\\\\?\\", 4) == 0 && r[4] && r[5] == L':')
		memmove(r, r + 4, (wcslen(r + 4) + 1) * sizeof(*r));
	return r;
}

/* Everything of the volume at vol (its root, with a trailing '\'). */
static void probe_volume(const wchar_t *vol, struct probe *p)
{
	wchar_t guid[64], label[MAX_PATH + 1], fs[MAX_PATH + 1];
	char fsname[MAX_PATH * 3 + 1], dev[64];
	DWORD flags = 0, spc, bps, nfc, tnc;
	const char *name;
	HANDLE h = INVALID_HANDLE_VALUE;
	size_t len;

	set_wide(p->mount_point, sizeof(p->mount_point), vol, 1);
	/* a share: fs_type is the server's filesystem; mount_type says it is
	 * not local (as "fuseblk" does on Linux for an "ntfs") */
	if (GetDriveTypeW(vol) == DRIVE_REMOTE)
		(void)probe_win_set_str(p->mount_type, sizeof(p->mount_type),
					"remote");
	if (probe_win_traced("GetVolumeNameForVolumeMountPointW",
			     GetVolumeNameForVolumeMountPointW(vol, guid, 64)))
		set_wide(p->device, sizeof(p->device), guid, 0);
	if (probe_win_traced("GetVolumeInformationW",
			     GetVolumeInformationW(vol, label, MAX_PATH + 1,
						   NULL, NULL, &flags, fs,
						   MAX_PATH + 1))) {
		set_wide(p->volume_label, sizeof(p->volume_label), label, 0);
		if (win_narrow(fs, fsname, sizeof(fsname), 0) == 0) {
			name = fs_name(fsname);
			(void)probe_win_set_str(p->fs_type, sizeof(p->fs_type),
						name ? name : fsname);
		}
		features(flags, p->fs_features, sizeof(p->fs_features));
	}
	if (probe_win_traced("GetDiskFreeSpaceW",
			     GetDiskFreeSpaceW(vol, &spc, &bps, &nfc, &tnc)) &&
	    spc && bps)
		p->fs_block_size = (int64_t)spc * (int64_t)bps;

	/* the volume device: its GUID path without the trailing '\', or
	 * the drive letter's \\.\X: */
	len = strlen(p->device);
	if (len > 1 && len < sizeof(dev)) {
		memcpy(dev, p->device, len - 1);
		dev[len - 1] = '\0';
		h = probe_win_open_device(dev, "CreateFileW(volume GUID)");
	}
	if (h == INVALID_HANDLE_VALUE && vol[0] && vol[1] == L':') {
		snprintf(dev, sizeof(dev), "\\\\.\\%c:", (char)vol[0]);
		h = probe_win_open_device(dev, "CreateFileW(\\\\.\\X:)");
	}
	if (h == INVALID_HANDLE_VALUE)
		return;
	probe_win_volume_disk(h, p);
	CloseHandle(h);
}

/* Every field unknown ("" and -1). */
static void probe_init(struct probe *p)
{
	memset(p, 0, sizeof(*p));
	p->fs_block_size = p->free_bytes = p->total_bytes = -1;
	p->memory_bytes = -1;
	p->rotational = p->cpus = -1;
	p->smb_signing = p->smb_encryption = p->smb_ca = -1;
}

/* See probe.h. On error *p holds only unknowns ("" and -1). */
int probe_path(const char *path, struct probe *p)
{
	wchar_t *w = NULL, *real = NULL, *dir = NULL, *vol = NULL;
	DWORD attr, n;
	int rc;

	if (!path || !p)
		return -EINVAL;
	probe_init(p);
	if (!(w = win_wide(path)))
		return -errno;
	attr = GetFileAttributesW(w);
	if (!probe_win_traced("GetFileAttributesW",
			      attr != INVALID_FILE_ATTRIBUTES)) {
		rc = win_last_errno();
		goto out;
	}
	rc = 0;
	if (!(real = real_path(w)))
		goto machine;
	n = (DWORD)wcslen(real) + MAX_PATH; /* room for a GUID path */
	if ((vol = malloc(n * sizeof(*vol))) && volume_of(real, vol, n))
		probe_volume(vol, p);
	else if (vol)
		vol[0] = 0;
	if (real[0] == L'\\' && real[1] == L'\\') /* \\server\share\… */
		probe_share(real, p);
	/* free space as this user sees it at the directory (a file: its
	 * volume) */
	dir = (attr & FILE_ATTRIBUTE_DIRECTORY) ? with_slash(real) : NULL;
	if (dir || (vol && vol[0]))
		(void)space_of(dir ? dir : vol, &p->free_bytes,
			       &p->total_bytes);
machine:
	probe_machine(p);
out:
	free(dir);
	free(vol);
	free(real);
	free(w);
	return rc;
}

/* See probe.h. Both left as they were on error. */
int probe_space(const char *path, int64_t *free_bytes, int64_t *total_bytes)
{
	wchar_t *w, *dir = NULL;
	DWORD attr, n;
	int rc;

	if (!path || !free_bytes || !total_bytes)
		return -EINVAL;
	if (!(w = win_wide(path)))
		return -errno;
	attr = GetFileAttributesW(w);
	if (attr == INVALID_FILE_ATTRIBUTES) {
		rc = win_last_errno();
	} else if (attr & FILE_ATTRIBUTE_DIRECTORY) {
		dir = with_slash(w);
		rc = dir ? space_of(dir, free_bytes, total_bytes) : -ENOMEM;
	} else {
		n = (DWORD)wcslen(w) + 2;
		if (!(dir = malloc(n * sizeof(*dir))))
			rc = -ENOMEM;
		else if (!volume_of(w, dir, n))
			rc = win_last_errno();
		else
			rc = space_of(dir, free_bytes, total_bytes);
	}
	free(dir);
	free(w);
	return rc;
}

/* Is c a separator ('\' or '/')? */
static int is_sep(char c)
{
	return c == '\\' || c == '/';
}

/* A device path: "\\.\X:", "//./X:", "\\.\PhysicalDriveN". */
static int is_device(const char *t)
{
	return is_sep(t[0]) && is_sep(t[1]) && t[2] == '.' && is_sep(t[3]) &&
	       t[4];
}

/* See probe.h. A raw volume or disk: the machine, fs_type "raw", the
 * device's path as mount_point and device, and what the disk tells. */
int probe_local(const char *target, struct probe *p)
{
	unsigned long n;
	char *end;
	HANDLE h;

	if (!target || !p || !is_device(target))
		return probe_path(target, p);
	probe_init(p);
	h = probe_win_open_device(target, "CreateFileW(device)");
	if (h == INVALID_HANDLE_VALUE)
		return win_last_errno();
	if (_strnicmp(target + 4, "PhysicalDrive", 13) == 0) {
		n = strtoul(target + 17, &end, 10);
		if (end != target + 17 && *end == '\0')
			probe_win_disk((DWORD)n, p);
	} else {
		probe_win_volume_disk(h, p);
	}
	CloseHandle(h);
	probe_machine(p);
	snprintf(p->fs_type, sizeof(p->fs_type), "raw");
	(void)probe_win_set_str(p->mount_point, sizeof(p->mount_point), target);
	(void)probe_win_set_str(p->device, sizeof(p->device), target);
	p->free_bytes = 0;
	p->total_bytes = 0;
	return 0;
}

/* Not in mingw-w64's winioctl.h (Windows Server 2012 SDK values):
 * CTL_CODE(FILE_DEVICE_FILE_SYSTEM, 159, METHOD_BUFFERED,
 * FILE_ANY_ACCESS) and its answer. */
#ifndef FSCTL_GET_INTEGRITY_INFORMATION
#define FSCTL_GET_INTEGRITY_INFORMATION 0x0009027c
#endif
struct probe_integrity {
	WORD checksum_algorithm; /* 0 CHECKSUM_TYPE_NONE: integrity off */
	WORD reserved;
	DWORD flags;
	DWORD checksum_chunk_size;
	DWORD cluster_size;
};

/*
 * See probe.h. ReFS copies a file's data on write while the file has
 * integrity streams (a checksum algorithm: FSCTL_GET_INTEGRITY_INFORMATION
 * on the file, or on a directory, what its new files inherit); without
 * them it writes data in place (OFF). Other filesystems are NONE.
 *
 * Only checked under wine, which has no ReFS: GetVolumeInformationByHandleW
 * names another filesystem there, so the FSCTL is never sent. That the
 * FSCTL answers on a handle opened with FILE_READ_ATTRIBUTES only, and
 * that a file made in a directory with integrity on reports CRC64, are
 * what only a Windows Server with a ReFS volume can confirm.
 */
enum probe_cow probe_file_cow(const char *path, const char **fs)
{
	wchar_t *w = path ? win_wide(path) : NULL;
	wchar_t fsname[MAX_PATH + 1];
	struct probe_integrity in;
	enum probe_cow c = PROBE_COW_NONE;
	DWORD got = 0;
	HANDLE h;

	if (fs)
		*fs = NULL;
	if (!w)
		return PROBE_COW_NONE;
	/* FILE_FLAG_BACKUP_SEMANTICS: a directory opens too */
	h = CreateFileW(w, FILE_READ_ATTRIBUTES,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return PROBE_COW_NONE;
	if (GetVolumeInformationByHandleW(h, NULL, 0, NULL, NULL, NULL, fsname,
					  MAX_PATH + 1) &&
	    _wcsicmp(fsname, L"ReFS") == 0 &&
	    DeviceIoControl(h, FSCTL_GET_INTEGRITY_INFORMATION, NULL, 0, &in,
			    sizeof(in), &got, NULL) &&
	    got >= sizeof(WORD)) {
		c = in.checksum_algorithm ? PROBE_COW_ON : PROBE_COW_OFF;
		if (fs)
			*fs = "refs";
	}
	CloseHandle(h);
	return c;
}
