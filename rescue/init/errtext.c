// SPDX-License-Identifier: GPL-2.0
/*
 * errtext.c: the text of an errno in rescue-init's messages, glibc's,
 * whichever libc rescue-init links (rescue/musl/musl.mk).
 *
 * musl words some errnos differently ("Resource busy" for EBUSY) and has
 * no text at all for others, among them EUCLEAN, which is what a mount
 * of a corrupt ext4 or XFS returns: its strerror() gives "No error
 * information" there.  The messages, the man pages and the tests name
 * glibc's texts, the ones mount(8) and every tool of the rescue shell
 * print.  This is glibc 2.36's wording for each errno where musl 1.2.3's
 * differs (how the table was made: docs/decisions.md).
 */
#include <errno.h>
#include <string.h>

#include "rescue-init.h"

const char *errtext(int err)
{
	switch (err) {
	case EIO: return "Input/output error";
	case ECHILD: return "No child processes";
	case ENOMEM: return "Cannot allocate memory";
	case EBUSY: return "Device or resource busy";
	case EXDEV: return "Invalid cross-device link";
	case EMFILE: return "Too many open files";
	case ENOTTY: return "Inappropriate ioctl for device";
	case ESPIPE: return "Illegal seek";
	case EDOM: return "Numerical argument out of domain";
	case ERANGE: return "Numerical result out of range";
	case EDEADLOCK: return "Resource deadlock avoided";
	case ENAMETOOLONG: return "File name too long";
	case ELOOP: return "Too many levels of symbolic links";
	case ECHRNG: return "Channel number out of range";
	case EL2NSYNC: return "Level 2 not synchronized";
	case EL3HLT: return "Level 3 halted";
	case EL3RST: return "Level 3 reset";
	case ELNRNG: return "Link number out of range";
	case EUNATCH: return "Protocol driver not attached";
	case ENOCSI: return "No CSI structure available";
	case EL2HLT: return "Level 2 halted";
	case EBADE: return "Invalid exchange";
	case EBADR: return "Invalid request descriptor";
	case EXFULL: return "Exchange full";
	case ENOANO: return "No anode";
	case EBADRQC: return "Invalid request code";
	case EBADSLT: return "Invalid slot";
	case EBFONT: return "Bad font file format";
	case ETIME: return "Timer expired";
	case ENONET: return "Machine is not on the network";
	case ENOPKG: return "Package not installed";
	case EREMOTE: return "Object is remote";
	case EADV: return "Advertise error";
	case ESRMNT: return "Srmount error";
	case ECOMM: return "Communication error on send";
	case EDOTDOT: return "RFS specific error";
	case EOVERFLOW: return "Value too large for defined data type";
	case ENOTUNIQ: return "Name not unique on network";
	case EREMCHG: return "Remote address changed";
	case ELIBACC: return "Can not access a needed shared library";
	case ELIBBAD: return "Accessing a corrupted shared library";
	case ELIBSCN: return ".lib section in a.out corrupted";
	case ELIBMAX: return "Attempting to link in too many shared libraries";
	case ELIBEXEC: return "Cannot exec a shared library directly";
	case EILSEQ: return "Invalid or incomplete multibyte or wide character";
	case ERESTART: return "Interrupted system call should be restarted";
	case ESTRPIPE: return "Streams pipe error";
	case EUSERS: return "Too many users";
	case ENOTSOCK: return "Socket operation on non-socket";
	case EMSGSIZE: return "Message too long";
	case ENOTSUP: return "Operation not supported";
	case EADDRINUSE: return "Address already in use";
	case EADDRNOTAVAIL: return "Cannot assign requested address";
	case ENETUNREACH: return "Network is unreachable";
	case ENETRESET: return "Network dropped connection on reset";
	case ECONNABORTED: return "Software caused connection abort";
	case EISCONN: return "Transport endpoint is already connected";
	case ENOTCONN: return "Transport endpoint is not connected";
	case ESHUTDOWN: return "Cannot send after transport endpoint shutdown";
	case ETIMEDOUT: return "Connection timed out";
	case EHOSTUNREACH: return "No route to host";
	case EINPROGRESS: return "Operation now in progress";
	case EUCLEAN: return "Structure needs cleaning";
	case ENOTNAM: return "Not a XENIX named type file";
	case ENAVAIL: return "No XENIX semaphores available";
	case EISNAM: return "Is a named type file";
	case EDQUOT: return "Disk quota exceeded";
	case EOWNERDEAD: return "Owner died";
	case ERFKILL: return "Operation not possible due to RF-kill";
	default: return strerror(err);
	}
}
