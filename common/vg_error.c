#include "common/vg_error.h"

const char *vg_strerror(int code)
{
	switch (code) {
	case VG_OK:       return "success";
	case VG_EINVAL:   return "invalid argument";
	case VG_ETRUNC:   return "input truncated";
	case VG_ECORRUPT: return "input corrupt";
	case VG_ERANGE:   return "value out of range";
	case VG_EIO:      return "input/output error";
	case VG_ENOENT:   return "not found";
	case VG_EZLIB:    return "zlib error";
	case VG_ECRYPTO:  return "crypto library error";
	case VG_ENOTSUP:  return "not supported";
	case VG_EPROTO:   return "protocol violation";
	case VG_EBUSY:    return "resource busy";
	case VG_ENOSPC:   return "no space left";
	case VG_EFORMAT:  return "wrong file type";
	case VG_EAUTH:    return "authentication failed";
	case VG_ECANCELED: return "stopped on request";
	case VG_ETIMEDOUT: return "no answer in time";
	}
	return "unknown error";
}
