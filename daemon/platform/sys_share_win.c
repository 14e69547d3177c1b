/*
 * sys_share_win — sys.h's shares on Windows: which paths are on a share
 * (\\server\share\dir, unc.h), and connecting one under a stored
 * credential for a job (mpr.dll).
 *
 * WNetAddConnection2W without a local name makes a "deviceless"
 * connection in the process's logon session: Windows' SMB client then
 * reaches the share, and every other share of that server, with that
 * user. WNetCancelConnection2W on the share's name cancels every deviceless
 * connection to it, so the connections are counted here, one entry per
 * share (its name compared without case, as Windows does): the last holder
 * cancels. Every holder's WNetAddConnection2W still runs, so Windows checks
 * each logon; one lock is held across the calls (a connect and a cancel of
 * one share must not cross), so a connect to a server that does not answer
 * holds up the others for as long as Windows waits.
 *
 * The password is widened into a buffer of our own, passed to the call
 * and wiped (SecureZeroMemory); nothing keeps it.
 */
#include "sys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "os/winapi.h"
#include "unc.h"
#include <winnetwk.h> /* after windows.h (winapi.h) */

#define MAX_SHARES 64

static struct held {
	wchar_t name[MAX_PATH + 1]; /* "\\server\share" */
	unsigned n;		    /* holders; 0: a free entry */
} held[MAX_SHARES];
static SRWLOCK lock = SRWLOCK_INIT;

int sys_path_share(const char *path)
{
	return unc_is(path);
}

/* Is err Windows refusing the logon, not failing to reach the share? */
static int logon_error(DWORD err)
{
	static const DWORD codes[] = {
		ERROR_ACCESS_DENIED,		    /* 5 */
		ERROR_INVALID_PASSWORD,		    /* 86 */
		ERROR_SESSION_CREDENTIAL_CONFLICT,  /* 1219 */
		ERROR_NOT_AUTHENTICATED,	    /* 1244 */
		ERROR_LOGON_FAILURE,		    /* 1326 */
		ERROR_ACCOUNT_RESTRICTION,	    /* 1327 */
		ERROR_INVALID_LOGON_HOURS,	    /* 1328 */
		ERROR_INVALID_WORKSTATION,	    /* 1329 */
		ERROR_PASSWORD_EXPIRED,		    /* 1330 */
		ERROR_ACCOUNT_DISABLED,		    /* 1331 */
		ERROR_LOGON_TYPE_NOT_GRANTED,	    /* 1385 */
		ERROR_PASSWORD_MUST_CHANGE,	    /* 1907 */
		ERROR_ACCOUNT_LOCKED_OUT,	    /* 1909 */
		ERROR_DOWNGRADE_DETECTED,	    /* 1265 */
		ERROR_NO_SUCH_LOGON_SESSION,	    /* 1312 */
		ERROR_TRUSTED_RELATIONSHIP_FAILURE, /* 1789 */
	};

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		if (codes[i] == err)
			return 1;
	return 0;
}

/* The words for err from WNetAddConnection2W into why; a provider's own
 * error (ERROR_EXTENDED_ERROR) is asked of WNetGetLastErrorW. */
static void net_words(DWORD err, char *why, size_t len)
{
	wchar_t text[256], provider[64];
	char t[512], pv[128];
	DWORD code = 0;

	if (err == ERROR_EXTENDED_ERROR &&
	    WNetGetLastErrorW(&code, text, 256, provider, 64) == NO_ERROR &&
	    win_narrow(text, t, sizeof(t), 0) == 0 &&
	    win_narrow(provider, pv, sizeof(pv), 0) == 0) {
		snprintf(why, len, "%s (%s, error %lu)", t, pv,
			 (unsigned long)code);
		return;
	}
	win_strerror(err, why, len);
}

/* The entry holding name, or a free one (n 0), or NULL when full. Under
 * the lock. */
static struct held *entry_for(const wchar_t *name)
{
	struct held *free_one = NULL;

	for (size_t i = 0; i < MAX_SHARES; i++) {
		if (held[i].n && CompareStringOrdinal(held[i].name, -1, name,
						      -1, TRUE) == CSTR_EQUAL)
			return &held[i];
		if (!held[i].n && !free_one)
			free_one = &held[i];
	}
	return free_one;
}

int sys_share_connect(const char *share, const char *user, const char *domain,
		      const char *password, intptr_t *h, char *why, size_t len)
{
	NETRESOURCEW nr;
	wchar_t *name = NULL, *pw = NULL, *who = NULL;
	char login[300];
	struct held *e;
	size_t pw_len = 0;
	DWORD err;
	int rc = 0;

	*h = -1;
	why[0] = '\0';
	snprintf(login, sizeof(login), "%s%s%s", domain, domain[0] ? "\\" : "",
		 user);
	if (!(name = win_wide(share)) || !(who = win_wide_text(login)) ||
	    !(pw = win_wide_text(password))) {
		rc = -errno;
		snprintf(why, len, "%s", strerror(-rc));
		goto out;
	}
	pw_len = wcslen(pw);
	if (wcslen(name) > MAX_PATH) {
		rc = -ENAMETOOLONG;
		snprintf(why, len, "the share's name is too long for Windows");
		goto out;
	}
	memset(&nr, 0, sizeof(nr));
	nr.dwType = RESOURCETYPE_DISK;
	nr.lpRemoteName = name;
	AcquireSRWLockExclusive(&lock);
	if (!(e = entry_for(name))) {
		rc = -EMFILE;
		snprintf(why, len, "%d shares are connected already",
			 MAX_SHARES);
	} else if ((err = WNetAddConnection2W(&nr, pw, who, 0)) != NO_ERROR) {
		rc = win_errno(err); /* and os_error_detail's words */
		if (logon_error(err))
			rc = -EACCES;
		net_words(err, why, len);
	} else {
		if (!e->n++) /* (its length is checked above) */
			memcpy(e->name, name,
			       (wcslen(name) + 1) * sizeof(*name));
		*h = (intptr_t)(e - held);
	}
	ReleaseSRWLockExclusive(&lock);
out:
	if (pw)
		SecureZeroMemory(pw, pw_len * sizeof(*pw));
	free(pw);
	free(who);
	free(name);
	return rc;
}

void sys_share_release(intptr_t h)
{
	if (h < 0 || h >= MAX_SHARES)
		return;
	AcquireSRWLockExclusive(&lock);
	/* not forced: a file of another program on it keeps it */
	if (held[h].n && !--held[h].n)
		WNetCancelConnection2W(held[h].name, 0, FALSE);
	ReleaseSRWLockExclusive(&lock);
}
