/*
 * probe_win — what the Windows probe's files share (probe_win.c, which
 * calls, and probe_share_win.c). Nothing else includes it.
 */
#ifndef STORBENCH_PROBE_WIN_H
#define STORBENCH_PROBE_WIN_H

#include <wchar.h>

#include "probe.h"

/*
 * The share fields of p for real ("\\server\share[\dir…]", a directory or
 * file on a share through Windows' own SMB client, links resolved): the
 * server and share, the negotiated dialect, signing, encryption and
 * continuous availability (FILE_REMOTE_PROTOCOL_INFO); the remote volume's
 * file system and cluster size come from the share's root as from a local
 * volume's (probe_volume). Best effort: what
 * Windows does not tell stays as it was. trace (may be NULL) learns what
 * each call answered (err 0, or its GetLastError), as probe_win_trace.
 */
void probe_share(const wchar_t *real, struct probe *p,
		 void (*trace)(const char *call, unsigned long err));

#endif
