# Input to picture of one scripts/live-bench session, from three logs in
# this order: the input player's (T_NS N COMMAND), the shared screen's
# probe and the viewer's probe (T_NS HASH X Y W H after an origin line).
# For each action: the first change of the viewer's picture after it, and
# the first time the viewer's picture equals the shared screen as it
# settled after the action (its last picture before the next action) or
# any later picture of it (a state the viewer skipped to). An action
# after which the shared screen did not change is counted, not timed.
# Variables: who (the system), app, profile, rep t0 t1 hz bytes resent sc vc exact load, and
# lat, a file to which one line "FIRST_MS EXACT_MS KIND SETTLED_MS" per
# timed action is written (EXACT_MS -1 when never reached; KIND the
# script's command: key, wheel, click, drag; SETTLED_MS when the shared
# screen last changed after the action: the application's own drawing,
# which no system can be faster than). Prints one line of KEY=VALUE.
# With -v pool=1 it pools instead: the KEY=VALUE lines of several runs,
# then their lat files together; prints one line for all, the spread of
# the runs' p90, the mean bytes, bytes resent and CPU, and p50/p90 of exact and of
# settled by kind of action (exact_KIND=N/P50/P90, settled_KIND=...).
function sort(a, n,    i, j, x) {
	for (i = 2; i <= n; i++) {
		x = a[i]
		for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]
		a[j + 1] = x
	}
}
function pct(a, n, p,    k) {
	if (n == 0) return "null"
	k = int(p * n + 0.999999)
	if (k < 1) k = 1
	return sprintf("%.1f", a[k])
}
FNR == 1 { file++ }
pool && file == 1 {
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	runs++
	sum_bytes += v["bytes"]; sum_resent += v["resent_bytes"]; sum_sc += v["server_cpu"]; sum_vc += v["viewer_cpu"]; sum_miss += v["missed"]
	p90 = v["exact_p90_ms"]
	if (p90 != "null" && (lo90 == "" || p90 + 0 < lo90 + 0)) lo90 = p90
	if (p90 != "null" && (hi90 == "" || p90 + 0 > hi90 + 0)) hi90 = p90
	if (v["exact_end"] != "yes") inexact++
	loads = loads (runs > 1 ? "/" : "") v["load"]
	sys = v["system"]; ap = v["app"]; pr = v["profile"]
	next
}
pool && file == 2 {
	n++
	if ($1 >= 0) { nf++; fa[nf] = $1 }
	if ($2 >= 0) { ne++; ea[ne] = $2 }
	if (NF >= 4) {
		if (!($3 in nk)) kinds[++nkinds] = $3
		nk[$3]++
		ka[$3, nk[$3]] = $2 >= 0 ? $2 : 1e9
		sa[$3, nk[$3]] = $4
	}
	next
}
pool { next }
file == 1 && NF >= 3 && $1 ~ /^[0-9]+$/ { ni++; ti[ni] = $1; tk[ni] = $3 }
file == 2 && NF == 6 && $1 != "origin" { ns++; st[ns] = $1; sh[ns] = $2 }
file == 3 && NF == 6 && $1 != "origin" { nv++; vt[nv] = $1; vh[nv] = $2 }
END {
	if (pool) {
		sort(fa, nf); sort(ea, ne)
		printf "system=%s app=%s profile=%s runs=%d events=%d missed=%d", sys, ap, pr, runs, n, sum_miss
		printf " first_p50_ms=%s first_p90_ms=%s exact_p50_ms=%s exact_p90_ms=%s exact_p99_ms=%s p90_min_ms=%s p90_max_ms=%s",
			pct(fa, nf, .5), pct(fa, nf, .9), pct(ea, ne, .5), pct(ea, ne, .9), pct(ea, ne, .99),
			lo90 == "" ? "null" : lo90, hi90 == "" ? "null" : hi90
		printf " bytes=%d server_cpu=%.3f viewer_cpu=%.3f exact_end=%s load=%s", runs ? sum_bytes / runs : 0,
			runs ? sum_sc / runs : 0, runs ? sum_vc / runs : 0, inexact ? "no" : "yes", loads
		printf " resent_bytes=%d", runs ? sum_resent / runs : 0
		for (i = 1; i <= nkinds; i++) {
			k = kinds[i]
			delete x; delete y
			for (j = 1; j <= nk[k]; j++) { x[j] = ka[k, j]; y[j] = sa[k, j] }
			sort(x, nk[k]); sort(y, nk[k])
			printf " exact_%s=%d/%s/%s settled_%s=%d/%s/%s", k, nk[k], pct(x, nk[k], .5), pct(x, nk[k], .9),
				k, nk[k], pct(y, nk[k], .5), pct(y, nk[k], .9)
		}
		printf "\n"
		exit
	}
	printf "" >lat
	for (i = 1; i <= ni; i++) {
		lo = ti[i]
		hi = i < ni ? ti[i + 1] : 1e30
		f = 0; L = 0
		for (k = 1; k <= ns; k++)
			if (st[k] >= lo && st[k] < hi) { if (!f) f = k; L = k }
		if (!L) { noeffect++; continue }
		events++
		srv[events] = (st[f] - lo) / 1e6
		delete ok
		for (k = L; k <= ns; k++) ok[sh[k]] = 1
		first = -1; ex = -1
		for (k = 1; k <= nv; k++) {
			if (vt[k] <= lo) continue
			if (first < 0) first = (vt[k] - lo) / 1e6
			if (vh[k] in ok) { ex = (vt[k] - lo) / 1e6; break }
		}
		print first, ex, tk[i], (st[L] - lo) / 1e6 >>lat
		if (first >= 0) { nf++; fa[nf] = first }
		if (ex >= 0) { ne++; ea[ne] = ex } else missed++
	}
	close(lat)
	sort(fa, nf); sort(ea, ne); sort(srv, events)
	d = t1 - t0
	printf "system=%s app=%s profile=%s rep=%s actions=%d events=%d noeffect=%d missed=%d", who, app, profile, rep, ni, events, noeffect + 0, missed + 0
	printf " first_p50_ms=%s first_p90_ms=%s exact_p50_ms=%s exact_p90_ms=%s exact_p99_ms=%s app_p50_ms=%s",
		pct(fa, nf, .5), pct(fa, nf, .9), pct(ea, ne, .5), pct(ea, ne, .9), pct(ea, ne, .99), pct(srv, events, .5)
	printf " bytes=%d duration_s=%.2f server_cpu=%.3f viewer_cpu=%.3f exact_end=%s server_changes=%d viewer_changes=%d load=%s resent_bytes=%d\n",
		bytes, d, sc / hz / d, vc / hz / d, exact, ns, nv, load, resent
}
