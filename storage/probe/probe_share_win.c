/*
 * probe_share_win — the probe of a share through Windows' own SMB client
 * (probe_win.h): what Windows negotiated, and the volume behind the share.
 *
 * Sources: the path itself ("\\server\share\…": smb_server, smb_share;
 * smb_port stays 0, Windows' client speaks to 445);
 * GetFileInformationByHandleEx(FileRemoteProtocolInfo) on the directory,
 * opened with no access rights: Protocol WNNC_NET_SMB, the dialect from
 * ProtocolMajorVersion.ProtocolMinorVersion.ProtocolRevision (3.1.1 is
 * "SMB3_11", the names of the smb back-end's probe, so that runs group and
 * compare alike), and from StructureVersion 2 (Windows 8 / Server 2012) on
 * the flags REMOTE_PROTOCOL_INFO_FLAG_INTEGRITY (signed: smb_signing),
 * _PRIVACY (encrypted: smb_encryption) and _PERSISTENT_HANDLE, or the
 * share's SMB2_SHARE_CAP_CONTINUOUS_AVAILABILITY (smb_ca).
 * The volume behind the share is the local volume code's (probe_win.c):
 * GetVolumePathNameW names a share's root "\\server\share\", which
 * GetVolumeInformationW (fs_type: the server's file system, "ntfs",
 * "refs") and GetDiskFreeSpaceW (fs_block_size: the cluster as the server
 * reports it) take as they take "D:\".
 *
 * A redirector other than SMB (WebDAV, NFS) leaves the smb fields but the
 * server and share empty: -1 and "".
 */
#include "probe_win.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/winapi.h"
#include "smb_dialect.h"
#include <winnetwk.h> /* after windows.h (winapi.h): WNNC_NET_SMB */

/* Flags of FILE_REMOTE_PROTOCOL_INFO that mingw-w64's headers lack. */
#ifndef REMOTE_PROTOCOL_INFO_FLAG_PRIVACY
#define REMOTE_PROTOCOL_INFO_FLAG_PRIVACY 0x00000008
#endif
#ifndef REMOTE_PROTOCOL_INFO_FLAG_INTEGRITY
#define REMOTE_PROTOCOL_INFO_FLAG_INTEGRITY 0x00000010
#endif

/* The n characters at w as UTF-8 into dst[len]; "" when they do not fit. */
static void narrow_n(const wchar_t *w, size_t n, char *dst, size_t len)
{
	wchar_t *copy = malloc((n + 1) * sizeof(*copy));

	dst[0] = '\0';
	if (!copy)
		return;
	memcpy(copy, w, n * sizeof(*copy));
	copy[n] = 0;
	if (win_narrow(copy, dst, len, 0) != 0)
		dst[0] = '\0';
	free(copy);
}

/* dialect, signing, encryption and continuous availability from the
 * remote protocol of the open handle h. */
static void protocol(HANDLE h, struct probe *p)
{
	FILE_REMOTE_PROTOCOL_INFO ri;
	const ULONG ca = RPI_FLAG_SMB2_SHARECAP_CONTINUOUS_AVAILABILITY;

	memset(&ri, 0, sizeof(ri));
	if (!probe_win_traced(
		    "GetFileInformationByHandleEx(FileRemoteProtocolInfo)",
		    GetFileInformationByHandleEx(h, FileRemoteProtocolInfo, &ri,
						 sizeof(ri))) ||
	    ri.Protocol != WNNC_NET_SMB)
		return;
	snprintf(p->smb_dialect, sizeof(p->smb_dialect), "%s",
		 smb_dialect_of_version(ri.ProtocolMajorVersion,
					ri.ProtocolMinorVersion,
					ri.ProtocolRevision));
	if (ri.StructureVersion < 2)
		return; /* Windows 7: no such flags */
	p->smb_signing = !!(ri.Flags & REMOTE_PROTOCOL_INFO_FLAG_INTEGRITY);
	p->smb_encryption = !!(ri.Flags & REMOTE_PROTOCOL_INFO_FLAG_PRIVACY);
	p->smb_ca = (ri.Flags & REMOTE_PROTOCOL_INFO_FLAG_PERSISTENT_HANDLE) ||
		    (ri.ProtocolSpecific.Smb2.Share.Capabilities & ca);
}

void probe_share(const wchar_t *real, struct probe *p)
{
	const wchar_t *server = real + 2, *share, *end;
	HANDLE h;
	size_t n;

	if (wcsncmp(real, L"\\\\", 2) != 0 ||
	    !(share = wcschr(server, L'\\')) || !share[1])
		return;
	share++;
	end = wcschr(share, L'\\');
	n = end ? (size_t)(end - share) : wcslen(share);
	narrow_n(server, (size_t)(share - 1 - server), p->smb_server,
		 sizeof(p->smb_server));
	narrow_n(share, n, p->smb_share, sizeof(p->smb_share));
	p->smb_port = 0;
	h = CreateFileW(real, 0,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	if (!probe_win_traced("CreateFileW(share path)",
			      h != INVALID_HANDLE_VALUE))
		return;
	protocol(h, p);
	CloseHandle(h);
}
