/*
 * probe_win — what the Windows probe's files share: probe_win.c (probe.h's
 * functions) calls probe_disk_win.c (the disk) and probe_share_win.c (a
 * share), and all call probe_calls_win.c. Nothing else includes it
 * (tests/windows/probe_smoke.c declares probe_win_trace itself).
 */
#ifndef STORBENCH_PROBE_WIN_H
#define STORBENCH_PROBE_WIN_H

#include <stddef.h>
#include <wchar.h>

#include "os/winapi.h"
#include "probe.h"

/*
 * The share fields of p for real ("\\server\share[\dir…]", a directory or
 * file on a share through Windows' own SMB client, links resolved): the
 * server and share, the negotiated dialect, signing, encryption and
 * continuous availability (FILE_REMOTE_PROTOCOL_INFO); the remote volume's
 * file system and cluster size come from the share's root as from a local
 * volume's (probe_volume). Best effort: what
 * Windows does not tell stays as it was; each call's answer goes to
 * probe_win_trace.
 */
void probe_share(const wchar_t *real, struct probe *p);

/* The probe's calls (probe_calls_win.c), for the other three: */

/* What each Windows call answered (err 0: success, else its GetLastError
 * or LSTATUS), when set (tests/windows/probe_smoke.c sets it); NULL: none. */
extern void (*probe_win_trace)(const char *call, unsigned long err);

/* Reports ok (a BOOL a call returned) to probe_win_trace; GetLastError
 * kept. Returns ok. */
BOOL probe_win_traced(const char *call, BOOL ok);

/* Copies src into dst[n]. On truncation dst is "" and -ENAMETOOLONG. */
int probe_win_set_str(char *dst, size_t n, const char *src);

/* Strips leading and trailing spaces and tabs (and a line's end) of s in
 * place; returns the new start. */
char *probe_win_trim(char *s);

/* Opens a device (UTF-8 name, "\\.\PhysicalDrive0") with no access
 * rights, traced as call; INVALID_HANDLE_VALUE with the last error set on
 * failure. The caller closes it. */
HANDLE probe_win_open_device(const char *name, const char *call);

/* The disk fields of p (disk "PhysicalDriveN", device_model, bus_type,
 * rotational, write_cache) of physical disk n (probe_disk_win.c). */
void probe_win_disk(DWORD n, struct probe *p);

/* The disk fields of p (disk, device_model, bus_type, rotational,
 * write_cache) for the volume open at h, through its disk extents and
 * IOCTL_STORAGE_QUERY_PROPERTY on the disk: left unknown when the volume
 * spans several disks (probe_disk_win.c). */
void probe_win_volume_disk(HANDLE h, struct probe *p);

#endif
