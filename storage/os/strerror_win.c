/*
 * strerror_win — strerror on Windows with the words of the GNU C library,
 * so that storbench.exe says what storbench says on Linux. The Windows
 * build defines strerror as os_strerror (CMakeLists.txt, one place):
 * Microsoft's C library knows only the errno values of C89 and says
 * "Unknown error" for the POSIX ones storbench uses (EOPNOTSUPP,
 * ECANCELED, ELOOP…), and words some others differently ("Resource
 * device" for EBUSY).
 */
#undef strerror /* this file calls the C library's own */
#include <errno.h>
#include <string.h>

#include "os.h"
#include "winapi.h"

static const char *const texts[] = {
	[EPERM] = "Operation not permitted",
	[ENOENT] = "No such file or directory",
	[ESRCH] = "No such process",
	[EINTR] = "Interrupted system call",
	[EIO] = "Input/output error",
	[ENXIO] = "No such device or address",
	[ENOEXEC] = "Exec format error",
	[EBADF] = "Bad file descriptor",
	[ECHILD] = "No child processes",
	[EAGAIN] = "Resource temporarily unavailable",
	[ENOMEM] = "Cannot allocate memory",
	[EACCES] = "Permission denied",
	[EFAULT] = "Bad address",
	[ENOTBLK] = "Block device required",
	[EBUSY] = "Device or resource busy",
	[EEXIST] = "File exists",
	[EXDEV] = "Invalid cross-device link",
	[ENODEV] = "No such device",
	[ENOTDIR] = "Not a directory",
	[EISDIR] = "Is a directory",
	[EINVAL] = "Invalid argument",
	[ENFILE] = "Too many open files in system",
	[EMFILE] = "Too many open files",
	[ENOTTY] = "Inappropriate ioctl for device",
	[EFBIG] = "File too large",
	[ENOSPC] = "No space left on device",
	[ESPIPE] = "Illegal seek",
	[EROFS] = "Read-only file system",
	[EMLINK] = "Too many links",
	[EPIPE] = "Broken pipe",
	[EDOM] = "Numerical argument out of domain",
	[ERANGE] = "Numerical result out of range",
	[EDEADLK] = "Resource deadlock avoided",
	[ENAMETOOLONG] = "File name too long",
	[ENOLCK] = "No locks available",
	[ENOSYS] = "Function not implemented",
	[ENOTEMPTY] = "Directory not empty",
	[EILSEQ] = "Invalid or incomplete multibyte or wide character",
	[ENOTUNIQ] = "Name not unique on network",
	[EADDRINUSE] = "Address already in use",
	[EADDRNOTAVAIL] = "Cannot assign requested address",
	[EAFNOSUPPORT] = "Address family not supported by protocol",
	[EALREADY] = "Operation already in progress",
	[EBADMSG] = "Bad message",
	[ECANCELED] = "Operation canceled",
	[ECONNABORTED] = "Software caused connection abort",
	[ECONNREFUSED] = "Connection refused",
	[ECONNRESET] = "Connection reset by peer",
	[EDESTADDRREQ] = "Destination address required",
	[EHOSTUNREACH] = "No route to host",
	[EINPROGRESS] = "Operation now in progress",
	[EISCONN] = "Transport endpoint is already connected",
	[ELOOP] = "Too many levels of symbolic links",
	[EMSGSIZE] = "Message too long",
	[ENETDOWN] = "Network is down",
	[ENETRESET] = "Network dropped connection on reset",
	[ENETUNREACH] = "Network is unreachable",
	[ENOBUFS] = "No buffer space available",
	[ENODATA] = "No data available",
	[ENOTCONN] = "Transport endpoint is not connected",
	[ENOTSOCK] = "Socket operation on non-socket",
	[ENOTSUP] = "Operation not supported",
	[EOPNOTSUPP] = "Operation not supported",
	[EOVERFLOW] = "Value too large for defined data type",
	[EPROTO] = "Protocol error",
	[ETIMEDOUT] = "Connection timed out",
	[EWOULDBLOCK] = "Resource temporarily unavailable",
};

char *os_strerror(int errnum)
{
	if (errnum >= 0 && (size_t)errnum < sizeof(texts) / sizeof(texts[0]) &&
	    texts[errnum])
		return (char *)texts[errnum];
	return strerror(errnum);
}
