/*
 * engine_smoke — the storage layer's Windows files (os_win.c, lfile_win.c,
 * dio_align_win.c, lfile_make_win.c, tgt_iocp_win.c) under the engine, in
 * a directory given on the command line:
 *   - what the system answers for the calls the seam depends on
 *     (FileStorageInfo, SetFileCompletionNotificationModes,
 *     SeManageVolumePrivilege, virtdisk.dll), printed, not judged;
 *   - engine_prepare_file of a 64 MiB file, then a 4 KiB random read at
 *     QD8 and a 1 MiB sequential write at QD4 for 1 s each on the iocp
 *     back-end (and the 4 KiB read on psync): IOPS, MB/s, mean latency,
 *     and Little's law — the mean number of I/Os in flight, IOPS × mean
 *     latency (= latency sum / window), within 10 % of the queue depth;
 *   - tgt_make_file with every file op, printing seconds or the error,
 *     and the bytes allocated.
 * Exit status 0 when the runs and Little's law hold; make_file errors are
 * reported, not failures (a volume may not clone).
 *
 *   engine_smoke.exe D:\bench
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

#include "engine/engine.h"
#include "os/os.h"
#include "targets/lfile.h"
#include "targets/target.h"

/* the FSCTLs lfile_make_win.c defines where mingw-w64 lacks them */
#define SMOKE_FSCTL_OFFLOAD_READ 0x00094264
#define SMOKE_FSCTL_DUPLICATE_EXTENTS 0x00098344

#define MIB (1ULL << 20)
#define FILE_SIZE (64 * MIB)

static char err[400];

static struct engine_opts opts(const struct tgt_ops *ops, const char *path)
{
	struct engine_opts o = {
		.ops = ops,
		.path = path,
		.direct = 1,
		.error = err,
		.error_len = sizeof(err),
	};
	err[0] = 0;
	return o;
}

static void say(const char *call, BOOL ok)
{
	printf("%s: %s", call, ok ? "ok" : "error");
	if (!ok)
		printf(" %lu", GetLastError());
	printf("\n");
}

/* The file-create calls one by one on a scratch file next to path. */
static void raw_calls(const char *path)
{
	char name[600];
	wchar_t w[MAX_PATH];
	FILE_ALLOCATION_INFO ai = { .AllocationSize.QuadPart = 1 << 20 };
	FILE_END_OF_FILE_INFO ei = { .EndOfFile.QuadPart = 1 << 20 };
	FILE_SET_SPARSE_BUFFER sb = { .SetSparse = TRUE };
	struct {
		HANDLE file;
		LARGE_INTEGER src, dst, count;
	} dup;
	struct {
		DWORD size, flags, ttl, reserved;
		DWORDLONG offset, length;
	} ri = { .size = sizeof(ri), .length = 1 << 20 };
	BYTE out[1024];
	HANDLE h, src;
	DWORD n;

	snprintf(name, sizeof(name), "%s-raw", path);
	MultiByteToWideChar(CP_UTF8, 0, name, -1, w, MAX_PATH);
	h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_NEW, 0,
			NULL);
	if (h == INVALID_HANDLE_VALUE) {
		printf("raw: cannot create %s (error %lu)\n", name,
		       GetLastError());
		return;
	}
	say("SetFileInformationByHandle(FileAllocationInfo)",
	    SetFileInformationByHandle(h, FileAllocationInfo, &ai, sizeof(ai)));
	say("SetFileInformationByHandle(FileEndOfFileInfo)",
	    SetFileInformationByHandle(h, FileEndOfFileInfo, &ei, sizeof(ei)));
	say("SetFileValidData", SetFileValidData(h, 1 << 20));
	say("FSCTL_SET_SPARSE", DeviceIoControl(h, FSCTL_SET_SPARSE, &sb,
						sizeof(sb), NULL, 0, &n, NULL));
	MultiByteToWideChar(CP_UTF8, 0, path, -1, w, MAX_PATH);
	src = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE,
			  NULL, OPEN_EXISTING, 0, NULL);
	memset(&dup, 0, sizeof(dup));
	dup.file = src;
	dup.count.QuadPart = 1 << 20;
	say("FSCTL_DUPLICATE_EXTENTS_TO_FILE",
	    DeviceIoControl(h, SMOKE_FSCTL_DUPLICATE_EXTENTS, &dup, sizeof(dup),
			    NULL, 0, &n, NULL));
	say("FSCTL_OFFLOAD_READ",
	    DeviceIoControl(src, SMOKE_FSCTL_OFFLOAD_READ, &ri, sizeof(ri), out,
			    sizeof(out), &n, NULL));
	CloseHandle(src);
	CloseHandle(h);
	MultiByteToWideChar(CP_UTF8, 0, name, -1, w, MAX_PATH);
	DeleteFileW(w);
}

/* What the system says to the calls the seam relies on. */
static void answers(const char *path)
{
	wchar_t w[MAX_PATH];
	FILE_STORAGE_INFO si;
	HANDLE h, port;
	TOKEN_PRIVILEGES tp = { .PrivilegeCount = 1 };
	HANDLE tok;

	MultiByteToWideChar(CP_UTF8, 0, path, -1, w, MAX_PATH);
	h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ, NULL,
			OPEN_EXISTING, FILE_FLAG_OVERLAPPED, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		printf("answers: cannot open %s (error %lu)\n", path,
		       GetLastError());
		return;
	}
	if (GetFileInformationByHandleEx(h, FileStorageInfo, &si, sizeof(si)))
		printf("FileStorageInfo: logical %lu B, physical for "
		       "performance %lu B\n",
		       si.LogicalBytesPerSector,
		       si.PhysicalBytesPerSectorForPerformance);
	else
		printf("FileStorageInfo: error %lu (dio_align falls back to "
		       "GetDiskFreeSpaceW)\n",
		       GetLastError());
	port = CreateIoCompletionPort(h, NULL, 0, 1);
	printf("CreateIoCompletionPort: %s\n", port ? "ok" : "failed");
	if (SetFileCompletionNotificationModes(
		    h, FILE_SKIP_COMPLETION_PORT_ON_SUCCESS |
			       FILE_SKIP_SET_EVENT_ON_HANDLE))
		printf("SetFileCompletionNotificationModes: ok\n");
	else
		printf("SetFileCompletionNotificationModes: error %lu\n",
		       GetLastError());
	if (port)
		CloseHandle(port);
	CloseHandle(h);
	if (LookupPrivilegeValueW(NULL, L"SeManageVolumePrivilege",
				  &tp.Privileges[0].Luid) &&
	    OpenProcessToken(GetCurrentProcess(),
			     TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &tok)) {
		tp.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
		BOOL ok = AdjustTokenPrivileges(tok, FALSE, &tp, 0, NULL, NULL);
		printf("SeManageVolumePrivilege: AdjustTokenPrivileges %s, "
		       "last error %lu (%s)\n",
		       ok ? "ok" : "failed", GetLastError(),
		       ok && GetLastError() == 0 ? "held" : "not held");
		CloseHandle(tok);
	} else {
		printf("SeManageVolumePrivilege: lookup/token error %lu\n",
		       GetLastError());
	}
	raw_calls(path);
	HMODULE vd = LoadLibraryW(L"virtdisk.dll");
	printf("virtdisk.dll: %s, CreateVirtualDisk %s\n",
	       vd ? "loaded" : "absent",
	       vd && GetProcAddress(vd, "CreateVirtualDisk") ? "present"
							     : "absent");
	if (vd)
		FreeLibrary(vd);
}

/* One run: the figures and Little's law. 0 or -1. */
static int run(const struct tgt_ops *ops, const char *path, const char *name,
	       enum wl_pattern pat, unsigned read_pct, uint32_t bs, unsigned qd)
{
	struct engine_opts o = opts(ops, path);
	struct workload w = {
		.pattern = pat,
		.read_pct = read_pct,
		.block_size = bs,
		.queue_depth = qd,
		.threads = 1,
		.file_size = FILE_SIZE,
		.duration_s = 1.0,
	};
	struct result r;
	double inflight;
	int rc;

	snprintf(w.name, sizeof(w.name), "%s", name);
	rc = engine_run(&o, &w, &r);
	if (rc < 0) {
		printf("%-6s %-12s FAILED: %s (%s)\n", ops->name, name,
		       strerror(-rc), err);
		return -1;
	}
	inflight = r.window_ns ? (double)r.lat_sum_ns / (double)r.window_ns : 0;
	printf("%-6s %-12s %9.0f IOPS %8.1f MB/s  mean %8.1f us  in flight "
	       "%.2f of QD%u (IOPS x mean latency %.2f)  %.2f s\n",
	       ops->name, name, r.iops, r.mb_s, r.lat_mean_us, inflight, qd,
	       r.iops * r.lat_mean_us / 1e6, r.seconds);
	if (r.ios == 0 || fabs(inflight - qd) > 0.1 * qd) {
		printf("  Little's law does not hold\n");
		return -1;
	}
	return 0;
}

/* strerror of mingw-w64's C library knows no text for the POSIX-only
 * values (EOPNOTSUPP is "Unknown error"): their names. */
static const char *err_name(int e)
{
	return e == EOPNOTSUPP ? "EOPNOTSUPP"
	       : e == EINVAL   ? "EINVAL"
	       : e == EPERM    ? "EPERM"
	       : e == EEXIST   ? "EEXIST"
	       : e == ENOSPC   ? "ENOSPC"
	       : e == EIO      ? "EIO"
			       : "errno";
}

static void make_all(const struct tgt_ops *ops, const char *dir,
		     const char *src)
{
	char path[600];

	for (int op = 0; op < TGT_FILE_N; op++) {
		struct tgt_open_args dst = { .path = path, .create = 1 };
		int64_t alloc = -1;
		double secs = 0;
		int rc;

		snprintf(path, sizeof(path), "%s/sb-make-%d", dir, op);
		rc = tgt_make_file(ops, &dst, (enum tgt_file_op)op, src,
				   FILE_SIZE, &secs);
		if (rc == 0) {
			(void)tgt_allocated(ops, path, NULL, &alloc);
			printf("make %-10s %.4f s, %lld B allocated\n",
			       tgt_file_op_name(ops, (enum tgt_file_op)op),
			       secs, (long long)alloc);
		} else {
			printf("make %-10s error %d %s: %s%s\n",
			       tgt_file_op_name(ops, (enum tgt_file_op)op), rc,
			       err_name(-rc), strerror(-rc),
			       op == TGT_FILE_ZEROS
				       ? " (the engine writes zeros)"
				       : "");
		}
		(void)tgt_unlink(ops, path, NULL);
	}
}

int main(int argc, char **argv)
{
	const struct tgt_ops *iocp = tgt_find("iocp"),
			     *psync = tgt_find("psync");
	char data[600], why[300];
	struct engine_opts o;
	struct tgt_check chk;
	uint32_t oa, ma;
	int direct = -1, rc, fails = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: engine_smoke DIR\n");
		return 2;
	}
	if (!iocp || !psync) {
		printf("iocp or psync back-end missing\n");
		return 1;
	}
	printf("default back-end: %s",
	       tgt_local_default(why, sizeof(why))->name);
	printf("%s%s\n", why[0] ? " — " : "", why);
	if ((rc = tgt_check_dir(iocp, argv[1], NULL, &chk)) < 0) {
		printf("check_dir: %s\n", chk.why);
		return 1;
	}
	snprintf(data, sizeof(data), "%s/sb-smoke-data", argv[1]);
	o = opts(iocp, data);
	rc = engine_prepare_file(&o, FILE_SIZE, WL_DATA_RANDOM, &direct);
	if (rc < 0) {
		printf("prepare: %s (%s)\n", strerror(-rc), err);
		return 1;
	}
	printf("prepared %llu MiB, direct %d\n",
	       (unsigned long long)(FILE_SIZE / MIB), direct);
	answers(data);
	rc = tgt_dio_align(iocp, data, &oa, &ma);
	printf("dio_align: rc %d, offset %u B, memory %u B\n", rc, oa, ma);
	fails += run(iocp, data, "4K rand QD8", WL_RANDOM, 100, 4096, 8) < 0;
	fails +=
		run(iocp, data, "1M seq wr", WL_SEQUENTIAL, 0, 1U << 20, 4) < 0;
	fails += run(psync, data, "4K rand QD8", WL_RANDOM, 100, 4096, 8) < 0;
	make_all(iocp, argv[1], data);
	(void)tgt_unlink(iocp, data, NULL);
	printf("%s\n", fails ? "FAILED" : "ok");
	return fails ? 1 : 0;
}
