#include "capture/vg_firstpicture.h"

void vg_firstpicture_heard(vg_firstpicture *f, uint64_t now_ns)
{
	f->quiet_since_ns = now_ns;
}

bool vg_firstpicture_ask_due(vg_firstpicture *f, uint64_t now_ns)
{
	if (f->seen || now_ns - f->quiet_since_ns < VG_FIRSTPICTURE_ASK_MS * 1000000ull)
		return false;
	f->quiet_since_ns = now_ns;
	return true;
}
