/*
 * sys_private_win — what keeps the daemon's secrets private on Windows:
 * the counterpart of Linux's 0700 and 0600 is a protected access list
 * (DACL, no inherited entries) granting full access to Administrators
 * (S-1-5-32-544) and to the account the daemon runs as (the token's user:
 * a person's account, a service account, or SYSTEM for a service under
 * LocalSystem) and to nobody else. What is created in a private directory
 * inherits it (OICI), which is why the data directory itself is made
 * private (sys_tighten): SQLite creates storbench.db, its -wal and -shm
 * files itself, and they take the directory's list.
 *
 *   create       CreateDirectoryW / CreateFileW with that DACL
 *                (ConvertStringSecurityDescriptorToSecurityDescriptorW from
 *                "D:P(A;OICI;FA;;;BA)(A;OICI;FA;;;<the account's SID>)")
 *   shared?      GetSecurityInfo: an allowing entry (not inherit-only) with
 *                read, write or full access for any SID but Administrators,
 *                SYSTEM, the account, OWNER RIGHTS; a NULL DACL is everyone
 *   tighten      SetSecurityInfo / SetNamedSecurityInfoW with
 *                PROTECTED_DACL_SECURITY_INFORMATION
 *   names        LookupAccountSidW ("BUILTIN\Users"), else the SID's text
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
#include <aclapi.h> /* after windows.h (winapi.h) */
#include <sddl.h>

#include "log.h"
#include "os/os.h"

/* The account the daemon runs as, found once: its SID (as text for the
 * SDDL and icacls) and its name for sentences. */
static INIT_ONCE account_once = INIT_ONCE_STATIC_INIT;
static PSID account_sid;
static wchar_t account_sid_text[192];
static char account_name[256] = "this account";
static char private_words[320] = "Administrators and this account only";

/* The name of sid ("BUILTIN\Users", "NT AUTHORITY\SYSTEM") or its text. */
static void sid_name(PSID sid, char *buf, size_t len)
{
	wchar_t name[128], dom[128];
	DWORD nn = 128, dn = 128;
	SID_NAME_USE use;
	wchar_t *text = NULL;
	char n8[256], d8[256];

	if (LookupAccountSidW(NULL, sid, name, &nn, dom, &dn, &use) &&
	    win_narrow(name, n8, sizeof(n8), 0) == 0 &&
	    win_narrow(dom, d8, sizeof(d8), 0) == 0) {
		snprintf(buf, len, "%s%s%s", d8, d8[0] ? "\\" : "", n8);
		return;
	}
	if (ConvertSidToStringSidW(sid, &text) &&
	    win_narrow(text, n8, sizeof(n8), 0) == 0)
		snprintf(buf, len, "%s", n8);
	else
		snprintf(buf, len, "an unknown account");
	LocalFree(text);
}

static BOOL CALLBACK find_account(INIT_ONCE *once, void *arg, void **ctx)
{
	union {
		TOKEN_USER user;
		char space[512];
	} u;
	wchar_t *text = NULL;
	HANDLE tok;
	DWORD n = 0;

	(void)once, (void)arg, (void)ctx;
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok))
		return TRUE;
	if (GetTokenInformation(tok, TokenUser, &u, sizeof(u), &n) &&
	    ConvertSidToStringSidW(u.user.User.Sid, &text) &&
	    wcslen(text) < sizeof(account_sid_text) / sizeof(wchar_t)) {
		DWORD k = GetLengthSid(u.user.User.Sid);
		if ((account_sid = malloc(k)) &&
		    CopySid(k, account_sid, u.user.User.Sid)) {
			wcscpy(account_sid_text, text);
			sid_name(account_sid, account_name,
				 sizeof(account_name));
			snprintf(private_words, sizeof(private_words),
				 "Administrators and %s only", account_name);
		}
	}
	LocalFree(text);
	CloseHandle(tok);
	return TRUE;
}

static void know_account(void)
{
	InitOnceExecuteOnce(&account_once, find_account, NULL, NULL);
}

/* The private security descriptor (LocalFree it), or NULL. */
static PSECURITY_DESCRIPTOR private_sd(void)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	wchar_t sddl[320];

	know_account();
	if (account_sid_text[0])
		swprintf(sddl, 320, L"D:P(A;OICI;FA;;;BA)(A;OICI;FA;;;%ls)",
			 account_sid_text);
	else /* the token unread: Administrators and the owner */
		swprintf(sddl, 320, L"D:P(A;OICI;FA;;;BA)(A;OICI;FA;;;OW)");
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(
		    sddl, SDDL_REVISION_1, &sd, NULL))
		return NULL;
	return sd;
}

/* Security attributes with the private DACL in *sa (free with
 * private_sa_free), or NULL when the system cannot make them (then what is
 * created takes the DACL of its directory). */
static SECURITY_ATTRIBUTES *private_sa(SECURITY_ATTRIBUTES *sa)
{
	if (!(sa->lpSecurityDescriptor = private_sd()))
		return NULL;
	sa->nLength = sizeof(*sa);
	sa->bInheritHandle = FALSE;
	return sa;
}

static void private_sa_free(SECURITY_ATTRIBUTES *sa)
{
	if (sa)
		LocalFree(sa->lpSecurityDescriptor);
}

/* Is sid one of ours: Administrators, SYSTEM, the account, OWNER RIGHTS? */
static int own_sid(PSID sid)
{
	static const WELL_KNOWN_SID_TYPE ours[] = {
		WinBuiltinAdministratorsSid,
		WinLocalSystemSid,
		WinCreatorOwnerRightsSid,
	};

	if (account_sid && EqualSid(sid, account_sid))
		return 1;
	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (IsWellKnownSid(sid, ours[i]))
			return 1;
	return 0;
}

/* Which rights of an entry count: reading or changing the data (or the
 * list itself); for a directory (dir_add), adding files in it. */
#define READ_RIGHTS (FILE_READ_DATA | GENERIC_READ | GENERIC_ALL)
#define WRITE_RIGHTS                                                           \
	(FILE_WRITE_DATA | FILE_APPEND_DATA | GENERIC_WRITE | GENERIC_ALL |    \
	 WRITE_DAC | WRITE_OWNER)

/*
 * Does h's access list let someone else in? 1 with "NAME may read it"
 * (or "may write it", "may read and write it"; for dir_add "NAME may
 * create files there", counting only the groups of every local user) in
 * who, 0, or -1 when the list cannot be read.
 */
static int shared(HANDLE h, char *who, size_t len, int dir_add)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PACL dacl = NULL;
	int found = 0;

	know_account();
	if (GetSecurityInfo(h, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL,
			    NULL, &dacl, NULL, &sd) != ERROR_SUCCESS)
		return -1;
	if (!dacl) { /* no list at all: everyone may do anything */
		if (who)
			snprintf(who, len,
				 "everyone may %s (it has no access "
				 "list)",
				 dir_add ? "create files there"
					 : "read and write it");
		LocalFree(sd);
		return 1;
	}
	for (DWORD i = 0; i < dacl->AceCount && !found; i++) {
		ACCESS_ALLOWED_ACE *ace;
		PSID sid;
		int r, w;
		if (!GetAce(dacl, i, (void **)&ace) ||
		    ace->Header.AceType != ACCESS_ALLOWED_ACE_TYPE ||
		    (ace->Header.AceFlags & INHERIT_ONLY_ACE))
			continue;
		sid = (PSID)&ace->SidStart;
		r = (ace->Mask & READ_RIGHTS) != 0;
		w = (ace->Mask & WRITE_RIGHTS) != 0;
		if (dir_add) {
			if (!(ace->Mask &
			      (FILE_ADD_FILE | FILE_ADD_SUBDIRECTORY |
			       GENERIC_WRITE | GENERIC_ALL)) ||
			    !(IsWellKnownSid(sid, WinWorldSid) ||
			      IsWellKnownSid(sid, WinBuiltinUsersSid) ||
			      IsWellKnownSid(sid, WinAuthenticatedUserSid) ||
			      IsWellKnownSid(sid, WinInteractiveSid)))
				continue;
		} else if ((!r && !w) || own_sid(sid)) {
			continue;
		}
		found = 1;
		if (who) {
			char name[200];
			sid_name(sid, name, sizeof(name));
			snprintf(who, len, "%s may %s", name,
				 dir_add  ? "create files there"
				 : r && w ? "read and write it"
				 : r	  ? "read it"
					  : "write it");
		}
	}
	LocalFree(sd);
	return found;
}

/* Gives h (or, h NULL, what path names) the private DACL. 0 or a negative
 * errno. */
static int make_private(HANDLE h, const wchar_t *path)
{
	PSECURITY_DESCRIPTOR sd = private_sd();
	PACL dacl = NULL;
	BOOL present = FALSE, dflt = FALSE;
	DWORD err;

	if (!sd)
		return win_last_errno();
	GetSecurityDescriptorDacl(sd, &present, &dacl, &dflt);
	err = h ? SetSecurityInfo(h, SE_FILE_OBJECT,
				  DACL_SECURITY_INFORMATION |
					  PROTECTED_DACL_SECURITY_INFORMATION,
				  NULL, NULL, dacl, NULL)
		: SetNamedSecurityInfoW(
			  (wchar_t *)path, SE_FILE_OBJECT,
			  DACL_SECURITY_INFORMATION |
				  PROTECTED_DACL_SECURITY_INFORMATION,
			  NULL, NULL, dacl, NULL);
	LocalFree(sd);
	return err == ERROR_SUCCESS ? 0 : win_errno(err);
}

int sys_mkdir_private(const char *path)
{
	SECURITY_ATTRIBUTES sa_buf, *sa;
	wchar_t *w = win_wide(path);
	int rc = 0;

	if (!w)
		return -errno;
	sa = private_sa(&sa_buf);
	if (!CreateDirectoryW(w, sa) && GetLastError() != ERROR_ALREADY_EXISTS)
		rc = win_last_errno();
	private_sa_free(sa);
	free(w);
	if (rc < 0)
		errno = -rc; /* as mkdir(2) does: callers may read it */
	return rc;
}

int sys_temp_dir(const char *prefix, char *path, size_t len)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	wchar_t tmp[MAX_PATH + 1];
	char base[PATH_MAX];
	DWORD n = GetTempPathW(MAX_PATH + 1, tmp);
	int rc;

	if (n == 0 || n > MAX_PATH)
		return n ? -ENAMETOOLONG : win_last_errno();
	if ((rc = win_narrow(tmp, base, sizeof(base), 1)) < 0)
		return rc;
	n = (DWORD)strlen(base);
	if (n > 3 && base[n - 1] == '/')
		base[n - 1] = '\0';
	for (int tries = 0; tries < 16; tries++) {
		unsigned char r[6];
		char suffix[7];
		if ((rc = os_random(r, sizeof(r))) < 0)
			return rc;
		for (size_t i = 0; i < sizeof(r); i++)
			suffix[i] = digits[r[i] % (sizeof(digits) - 1)];
		suffix[6] = '\0';
		if (snprintf(path, len, "%s/%s-%s", base, prefix, suffix) >=
		    (int)len)
			return -ENAMETOOLONG;
		{
			SECURITY_ATTRIBUTES sa_buf, *sa = private_sa(&sa_buf);
			wchar_t *w = win_wide(path);
			BOOL made = w && CreateDirectoryW(w, sa);
			DWORD err = GetLastError();
			private_sa_free(sa);
			free(w);
			if (made)
				return 0;
			if (!w)
				return -ENOMEM;
			if (err != ERROR_ALREADY_EXISTS)
				return win_errno(err);
		}
	}
	return -EEXIST;
}

/*
 * CreateFileW, so that a final reparse point is not followed
 * (FILE_FLAG_OPEN_REPARSE_POINT, then refused as -ELOOP) and a new file
 * gets the private DACL; the handle, not inherited (no
 * bInheritHandle), becomes a C library descriptor (_open_osfhandle).
 */
int sys_open_private(const char *path, int how)
{
	SECURITY_ATTRIBUTES sa_buf, *sa = NULL;
	BY_HANDLE_FILE_INFORMATION info;
	DWORD access = GENERIC_READ, create = OPEN_EXISTING,
	      flags = FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT;
	int mode = _O_RDONLY, fd;
	wchar_t *w = win_wide(path);
	HANDLE h;

	if (!w)
		return -errno;
	if (how == SYS_OPEN_NEW) {
		access = GENERIC_WRITE;
		create = CREATE_NEW;
		mode = _O_WRONLY;
	} else if (how == SYS_OPEN_OWN) {
		access =
			GENERIC_READ | GENERIC_WRITE | READ_CONTROL | WRITE_DAC;
		create = OPEN_ALWAYS;
		mode = _O_RDWR;
		flags = FILE_ATTRIBUTE_NORMAL; /* as on Linux: followed */
	}
	if (how != SYS_OPEN_READ)
		sa = private_sa(&sa_buf);
	h = CreateFileW(w, access,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
			sa, create, flags, NULL);
	fd = h == INVALID_HANDLE_VALUE ? win_last_errno() : 0;
	private_sa_free(sa);
	free(w);
	if (fd < 0)
		return fd;
	if (!GetFileInformationByHandle(h, &info) ||
	    (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
		CloseHandle(h);
		return -ELOOP;
	}
	if (how == SYS_OPEN_OWN && !win_on_wine() && shared(h, NULL, 0, 0))
		make_private(h, NULL); /* an older copy's: ours alone now */
	if ((fd = _open_osfhandle((intptr_t)h, mode | _O_BINARY)) < 0) {
		CloseHandle(h);
		return -EMFILE;
	}
	return fd;
}

int sys_fsync(int fd)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);

	if (h == INVALID_HANDLE_VALUE)
		return -EBADF;
	return FlushFileBuffers(h) ? 0 : win_last_errno();
}

int sys_fd_shared(int fd, char *who, size_t len)
{
	HANDLE h = (HANDLE)_get_osfhandle(fd);

	return h != INVALID_HANDLE_VALUE && shared(h, who, len, 0) == 1;
}

/* Opens what path names to read its access list (a directory too). */
static HANDLE open_for_list(const wchar_t *w, DWORD access)
{
	return CreateFileW(
		w, READ_CONTROL | access,
		FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
		OPEN_EXISTING,
		FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
		NULL);
}

int sys_dir_open_to_all(const char *path, char *who, size_t len)
{
	wchar_t *w = win_wide(path);
	HANDLE h = w ? open_for_list(w, 0) : INVALID_HANDLE_VALUE;
	int rc = 0;

	if (h != INVALID_HANDLE_VALUE) {
		rc = shared(h, who, len, 1) == 1;
		CloseHandle(h);
	}
	free(w);
	return rc;
}

const char *sys_private_words(void)
{
	know_account();
	return private_words;
}

void sys_private_fix(const char *path, char *buf, size_t len)
{
	char sid[192] = "";

	know_account();
	win_narrow(account_sid_text, sid, sizeof(sid), 0);
	/* SIDs, not names: Administrators is named in the system's
	 * language */
	snprintf(buf, len,
		 "icacls \"%s\" /inheritance:r /grant:r *S-1-5-32-544:F "
		 "*%s:F",
		 path, sid[0] ? sid : "S-1-3-4");
}

/* Makes what path names private when its list lets others in, saying so
 * (what the list allowed, and why for the data directory). Not under wine:
 * it keeps access lists as Unix modes, and setting the private list on an
 * existing directory of mode 755 leaves it 777; there the sentence says to
 * use chmod. */
static void tighten_one(const char *path, const char *why)
{
	wchar_t *w = win_wide(path);
	HANDLE h = w ? open_for_list(w, WRITE_DAC) : INVALID_HANDLE_VALUE;
	char who[240];
	int rc;

	if (h != INVALID_HANDLE_VALUE) {
		if (shared(h, who, sizeof(who), 0) == 1) {
			if (win_on_wine()) /* see the comment above */
				log_warn("%s: its access list lets others in "
					 "(%s); under wine, which keeps access "
					 "lists as Unix modes, make it private "
					 "with chmod go-rwx",
					 path, who);
			else if ((rc = make_private(h, NULL)) == 0)
				log_warn("%s: its access list let others in "
					 "(%s); now %s%s",
					 path, who, private_words, why);
			else
				log_warn("%s: its access list lets others in "
					 "(%s) and could not be changed: %s",
					 path, who, strerror(-rc));
		}
		CloseHandle(h);
	}
	free(w);
}

void sys_tighten(const char *dir, const char *scratch, const char *const *own,
		 size_t n)
{
	char path[PATH_MAX];

	know_account();
	tighten_one(dir, " (the archive and credential store take the data "
			 "directory's list)");
	tighten_one(scratch, "");
	for (size_t i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, own[i]) >=
		    (int)sizeof(path))
			return;
		tighten_one(path, "");
	}
}
