#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/vg_error.h"
#include "traces/vg_fpmodel.h"

#define GIB 1073741824.0

void vg_fpmodel_defaults(vg_fpmodel_params *p)
{
	p->data_bytes = 100 * GIB;
	p->redundancy = 0.75;
	p->k = 40;
	p->l = 160;
	p->p = 20;
	p->segment_bytes = 32;
}

static int is_whole(double v)
{
	return isfinite(v) && floor(v) == v;
}

int vg_fpmodel_eval(const vg_fpmodel_params *p, vg_fpmodel_result *out)
{
	double unique, n, group, sum;

	if (!(isfinite(p->data_bytes) && p->data_bytes > 0) ||
	    !(p->redundancy >= 0 && p->redundancy <= 1) ||
	    !is_whole(p->k) || p->k < 1 || p->k > 160 ||
	    !is_whole(p->l) || p->l < 0 || p->l > 512 ||
	    !is_whole(p->p) || p->p < 1 || p->p > 1e9 ||
	    !(p->segment_bytes >= 1 && p->segment_bytes <= p->data_bytes))
		return VG_EINVAL;
	unique = p->data_bytes * (1 - p->redundancy);
	/* The sum runs over whole segments: its bound is (S - R) / s rounded
	 * down, and sum_{i=1}^{n} i = n (n + 1) / 2. */
	n = floor(unique / p->segment_bytes);
	sum = ldexp(n * (n + 1) / 2, -(int)p->k);
	group = p->l > 0 ? p->p : 1;
	out->segments = p->data_bytes / p->segment_bytes;
	out->unique_bytes = unique;
	out->fingerprint_bytes = (p->k / 8 + p->l / (8 * p->p)) * out->segments;
	out->collision_bytes = group * p->segment_bytes * sum;
	out->total_bytes = unique + out->fingerprint_bytes + out->collision_bytes;
	out->ratio = p->data_bytes / out->total_bytes;
	out->ratio_no_collisions = p->data_bytes / (unique + out->fingerprint_bytes);
	return 0;
}

static const struct {
	const char *name;
	vg_fpmodel_var var;
} vars[] = {
	{ "k", VG_FPMODEL_K }, { "l", VG_FPMODEL_L }, { "p", VG_FPMODEL_P },
	{ "s", VG_FPMODEL_S }, { "R", VG_FPMODEL_R }, { "S", VG_FPMODEL_DATA },
};

/* Parses the finite number from..stop (or to the string's end when stop
 * is NULL), nothing else; -1 if it is not one. */
static int parse_num(const char *from, const char *stop, double *v)
{
	char buf[64], *end;
	size_t n = stop ? (size_t)(stop - from) : strlen(from);

	/* A copy, so that strtod cannot read "8." out of "8..64". */
	if (n == 0 || n >= sizeof buf || *from == ' ')
		return -1;
	memcpy(buf, from, n);
	buf[n] = '\0';
	*v = strtod(buf, &end);
	return end == buf + n && isfinite(*v) ? 0 : -1;
}

int vg_fpmodel_sweep_parse(const char *spec, vg_fpmodel_sweep *out)
{
	const char *eq, *dots, *colon;
	double from, to, step = 1, n;
	size_t i;

	if (!spec || !(eq = strchr(spec, '=')))
		return VG_EINVAL;
	for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if (strlen(vars[i].name) == (size_t)(eq - spec) && strncmp(spec, vars[i].name, (size_t)(eq - spec)) == 0)
			break;
	if (i == sizeof vars / sizeof vars[0])
		return VG_EINVAL;
	dots = strstr(eq + 1, "..");
	if (!dots) {
		if (parse_num(eq + 1, NULL, &from) != 0)
			return VG_EINVAL;
		to = from;
	} else {
		colon = strchr(dots + 2, ':');
		if (parse_num(eq + 1, dots, &from) != 0 ||
		    parse_num(dots + 2, colon, &to) != 0 ||
		    (colon && parse_num(colon + 1, NULL, &step) != 0))
			return VG_EINVAL;
	}
	if (!(from <= to) || !(step > 0))
		return VG_EINVAL;
	/* A small tolerance so that 0.1 steps reach their end. */
	n = floor((to - from) / step + 1e-9) + 1;
	if (n > VG_FPMODEL_MAX_POINTS)
		return VG_EINVAL;
	out->var = vars[i].var;
	out->name = vars[i].name;
	out->n = (size_t)n;
	out->first = from;
	out->step = step;
	return 0;
}

double vg_fpmodel_sweep_value(const vg_fpmodel_sweep *sw, size_t i)
{
	return sw->first + (double)i * sw->step;
}

void vg_fpmodel_set(vg_fpmodel_params *p, vg_fpmodel_var var, double v)
{
	switch (var) {
	case VG_FPMODEL_K: p->k = v; break;
	case VG_FPMODEL_L: p->l = v; break;
	case VG_FPMODEL_P: p->p = v; break;
	case VG_FPMODEL_S: p->segment_bytes = v; break;
	case VG_FPMODEL_R: p->redundancy = v / 100; break;
	case VG_FPMODEL_DATA: p->data_bytes = v * GIB; break;
	}
}
