/*
 * probe_smoke — storage/probe/probe_win.c on one path: probe_smoke.exe PATH
 * [local]. Prints, one per line as name=value for a script to parse:
 * call.NAME=… for each Windows call the probe made ("ok", or the error it
 * answered), rc= (what probe_path, or probe_local with "local", returned),
 * every field of struct probe, then space.rc, space.free_bytes and
 * space.total_bytes from probe_space. The path comes from the wide command
 * line (CommandLineToArgvW) as UTF-8, as storbench.exe takes it; lines end
 * in "\n" (stdout in binary mode). Exits 0 when the probe succeeded, 1 when
 * it returned an error, 2 on bad usage.
 */
#include "os/winapi.h"
#include "probe/probe.h"

#include <fcntl.h>
#include <inttypes.h>
#include <io.h>
#include <shellapi.h>
#include <stdio.h>
#include <string.h>

/* probe_win.c's hook: what each Windows call answered. */
extern void (*probe_win_trace)(const char *call, unsigned long err);

static void trace(const char *call, unsigned long err)
{
	char text[512];

	if (err == 0) {
		printf("call.%s=ok\n", call);
		return;
	}
	win_strerror((DWORD)err, text, sizeof(text));
	printf("call.%s=%s\n", call, text);
}

static void str(const char *name, const char *v)
{
	printf("%s=%s\n", name, v);
}

static void num(const char *name, int64_t v)
{
	printf("%s=%" PRId64 "\n", name, v);
}

int main(void)
{
	int argc = 0, rc, src;
	wchar_t **wargv = CommandLineToArgvW(GetCommandLineW(), &argc);
	char path[4096];
	struct probe p;
	int64_t free_b = -1, total_b = -1;

	if (!wargv || argc < 2 || argc > 3 ||
	    (argc == 3 && wcscmp(wargv[2], L"local") != 0)) {
		fprintf(stderr, "usage: probe_smoke.exe PATH [local]\n");
		return 2;
	}
	if (win_narrow(wargv[1], path, sizeof(path), 0) != 0) {
		fprintf(stderr, "probe_smoke: the path is not valid text\n");
		return 2;
	}
	/* "\n" line ends, not "\r\n": the output is for a script */
	_setmode(_fileno(stdout), _O_BINARY);
	probe_win_trace = trace;
	str("path", path);
	rc = argc == 3 ? probe_local(path, &p) : probe_path(path, &p);
	num("rc", rc);
	str("hostname", p.hostname);
	str("kernel", p.kernel);
	str("fs_type", p.fs_type);
	str("mount_type", p.mount_type);
	num("fs_block_size", p.fs_block_size);
	str("mount_point", p.mount_point);
	str("mount_options", p.mount_options);
	str("device", p.device);
	str("disk", p.disk);
	str("device_model", p.device_model);
	num("rotational", p.rotational);
	str("write_cache", p.write_cache);
	str("firmware_rev", p.firmware_rev);
	str("scheduler", p.scheduler);
	str("bus_type", p.bus_type);
	str("volume_label", p.volume_label);
	str("fs_features", p.fs_features);
	num("free_bytes", p.free_bytes);
	num("total_bytes", p.total_bytes);
	str("cpu_model", p.cpu_model);
	num("cpus", p.cpus);
	num("memory_bytes", p.memory_bytes);
	str("smb_server", p.smb_server);
	num("smb_port", p.smb_port);
	str("smb_share", p.smb_share);
	str("smb_dialect", p.smb_dialect);
	num("smb_signing", p.smb_signing);
	num("smb_encryption", p.smb_encryption);
	num("smb_ca", p.smb_ca);
	probe_win_trace = NULL;
	src = probe_space(path, &free_b, &total_b);
	num("space.rc", src);
	num("space.free_bytes", free_b);
	num("space.total_bytes", total_b);
	LocalFree(wargv);
	return rc == 0 ? 0 : 1;
}
