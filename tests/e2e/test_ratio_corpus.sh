#!/bin/sh
# scripts/ratio-corpus on a small corpus: sequential, on GNU parallel
# locally and through an sshd started here, killed and resumed, and as a
# Slurm job array on a single-node Slurm started here: the same merged
# figures every way, equal to each trace's own varg-trace ratio; a damaged
# trace is reported, the rest still merged, and the exit status says so;
# bad options fail cleanly.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_sshd.sh"
rc=$S/scripts/ratio-corpus
export VG_BUILD="$B"

tap_plan 26

tap_check "no command is a usage error" fails_cleanly 2 "$rc"
tap_check "an unknown command is a usage error" fails_cleanly 2 "$rc" frobnicate
tap_check "a missing directory is a usage error" fails_saying 2 "no such directory" "$rc" run --sequential --out "$work/x" "$work/nowhere"
mkdir -p "$work/empty"
tap_check "a directory without traces is a usage error" fails_saying 2 "no .vtr traces" "$rc" run --sequential --out "$work/x" "$work/empty"
tap_check "a bad --jobs is a usage error" fails_cleanly 2 "$rc" run --jobs many --out "$work/x" "$work/empty"
tap_check "an unknown option is a usage error" fails_cleanly 2 "$rc" run --frobnicate "$work/empty"
tap_check "a missing build is named" fails_saying 2 "no traces/varg-trace" "$rc" run --sequential --build "$work/empty" "$work/empty"

# The corpus: eight short heat-map sessions drawn by varg-synth, each
# browsed differently, and the bundled heat-map recording.
mkdir -p "$work/corpus"
for i in 1 2 3 4 5 6 7 8; do
	"$B/traces/varg-synth" -o "$work/f$i" -W 320 -H 240 -n 12 -s "$i" >/dev/null &&
	"$B/traces/varg-trace" import -f "$work/f$i" -o "$work/corpus/synth-$i.vtr" >/dev/null || exit 1
	rm -rf "$work/f$i"
done
cp "$S/traces/samples/heatmap-scroll.vtr" "$work/corpus/"
# And a damaged trace: a real one cut short.
head -c 5000 "$S/traces/samples/treeview-scroll.vtr" >"$work/damaged.vtr"

"$rc" run --sequential --out "$work/seq" "$work/corpus" >"$work/seq.log" 2>&1
st=$?
sed -n 's/^ratio-corpus: \(wall time.*\|merged.*\)/# sequential: \1/p' "$work/seq.log"
tap_check "sequential: every trace went through, numbered" \
	sh -c "test $st -eq 0 && test \$(ls '$work/seq/json' | wc -l) -eq 9 &&
		test \$(grep -c '^ratio-corpus: \[[1-9]/9\] [a-z0-9-]* done in ' '$work/seq.log') -eq 9"

# Each trace on its own, straight through varg-trace ratio: its row of the
# merge holds the same frames, updates and bytes of every method.
csv=$work/seq/summary.csv
methods=$(head -1 "$csv" | tr , '\n' | sed -n '5,$p' | sed '/^best_stock$/,$d' | tr '\n' ' ')
# own_row NAME: NAME,frames,updates,varg,bytes of each method, from
# $work/own/NAME.json.
own_row() {
	j=$work/own/$1.json
	row="$1,$(json_num "$j" frames),$(json_num "$j" updates),$(json_num "$j" total_bytes)"
	for m in $methods; do
		row="$row,$(sed -n '/"encodings": {/,/^  }/p' "$j" | sed -n "s/.*\"$m\": {\"bytes\": \([0-9]*\).*/\1/p")"
	done
	echo "$row"
}
same_as_own() {
	echo "$methods" | grep -qw zrle || { echo "# no zrle column: '$methods'"; return 1; }
	mkdir -p "$work/own"
	nf=$((4 + $(echo $methods | wc -w)))
	for t in "$work"/corpus/*.vtr; do
		n=$(basename "$t" .vtr)
		"$B/traces/varg-trace" ratio -q --no-variants -j "$work/own/$n.json" "$t" >/dev/null || return 1
		want=$(own_row "$n")
		got=$(grep "^$n," "$csv" | cut -d, -f1-$nf)
		[ "$want" = "$got" ] || { echo "# $n: merged '$got', own '$want'"; return 1; }
	done
}
echo "# methods: $methods"
tap_check "every merged row equals its trace's own varg-trace ratio (varg $methods)" same_as_own
tap_check "the total row sums the traces, column by column" \
	awk -F, -v want="$methods" '
		NR == 1 { n = 4 + split(want, m, " ") }
		NR > 1 && $1 != "TOTAL" { for (i = 2; i <= n; i++) s[i] += $i }
		$1 == "TOTAL" { for (i = 2; i <= n; i++) if ($i != s[i]) { print "# column " i ": " $i " != " s[i]; bad = 1 }; seen = 1 }
		END { exit !(seen && !bad) }' "$csv"
tap_check "the markdown table has a row a trace and the total" test "$(grep -c '^| ' "$work/seq/summary.md")" -eq 11

# --resume without parallel: only the traces without a result run.
cp -r "$work/seq" "$work/seqr"
rm "$work/seqr/json/synth-2.json" "$work/seqr/json/synth-7.json"
"$rc" run --sequential --resume --out "$work/seqr" "$work/corpus" >"$work/seqr.log" 2>&1
st=$?
tap_check "sequential --resume: the two traces without a result run, no others" \
	sh -c "test $st -eq 0 && test \$(grep -c ' done in ' '$work/seqr.log') -eq 2 &&
		grep -q 'synth-2 done' '$work/seqr.log' && grep -q 'synth-7 done' '$work/seqr.log' &&
		cmp -s '$csv' '$work/seqr/summary.csv'"

# A missing result is a failed merge that names the trace.
cp -r "$work/seq" "$work/miss"
rm "$work/miss/json/synth-5.json"
tap_check "merge: a trace without a result is named and fails it" \
	sh -c "'$rc' merge '$work/miss' >'$work/miss.out' 2>'$work/miss.err'; test \$? -eq 1 &&
		grep -q '^ratio-corpus: synth-5: no result' '$work/miss.err' &&
		test \$(grep -c '^synth-' '$work/miss/summary.csv') -eq 7"

if ! command -v parallel >/dev/null; then
	for i in $(seq 1 10); do tap_skip "GNU parallel is needed (scripts/setup installs it)"; done
else
	"$rc" run --jobs 2 --out "$work/par" "$work/corpus" >"$work/par.log" 2>&1
	st=$?
	sed -n 's/^ratio-corpus: \(wall time.*\)/# parallel -j 2: \1/p' "$work/par.log"
	tap_check "parallel: the same merged figures as sequential, CSV and markdown" \
		sh -c "test $st -eq 0 && cmp -s '$csv' '$work/par/summary.csv' &&
			cmp -s '$work/seq/summary.md' '$work/par/summary.md'"

	# Options after -- reach varg-trace ratio on every trace.
	"$rc" run --jobs 2 --out "$work/z1" "$work/corpus" -- --zlib-level 1 >"$work/z1.log" 2>&1
	st=$?
	"$B/traces/varg-trace" ratio -q --no-variants --zlib-level 1 -j "$work/z1.json" "$work/corpus/synth-3.vtr" >/dev/null
	tap_check "options after -- reach varg-trace ratio (--zlib-level 1: synth-3 $(json_num "$work/z1.json" total_bytes) bytes)" \
		sh -c "test $st -eq 0 && test \"\$(grep '^synth-3,' '$work/z1/summary.csv' | cut -d, -f4)\" = '$(json_num "$work/z1.json" total_bytes)' &&
			! cmp -s '$csv' '$work/z1/summary.csv'"

	# Killed part way (its whole process group, as Ctrl-C would), once
	# the joblog has three traces, then resumed: what the joblog says
	# finished is not run again, the rest is.
	setsid "$rc" run --jobs 1 --out "$work/kill" "$work/corpus" >"$work/kill.log" 2>&1 &
	kpid=$!
	pids="$pids $kpid"
	for _ in $(seq 1 300); do
		[ -f "$work/kill/joblog" ] && [ "$(wc -l <"$work/kill/joblog")" -ge 4 ] && break
		sleep 0.05
	done
	kill -TERM "-$kpid" 2>/dev/null
	wait "$kpid"
	kept=$(ls "$work/kill/json" | wc -l)
	fin=$(awk -F'\t' 'NR > 1 && $7 == 0' "$work/kill/joblog" | wc -l)
	echo "# killed with $kept of 9 results written, $fin finished in the joblog"
	tap_check "killed: nothing half-written is left (results whole, no temporary files)" \
		sh -c "test $kept -ge 3 && test \$(ls -A '$work/kill/json' | wc -l) -eq $kept &&
			for j in '$work/kill/json'/*.json; do python3 -m json.tool \"\$j\" >/dev/null || exit 1; done"
	touch -d 2000-01-01 "$work/kill/json"/*.json
	"$rc" run --resume --jobs 2 --out "$work/kill" "$work/corpus" >"$work/resume.log" 2>&1
	st=$?
	tap_check "--resume runs only the $((9 - fin)) unfinished traces" \
		sh -c "test $st -eq 0 && test $fin -ge 3 -a $fin -lt 9 &&
			test \$(grep -c ' done in ' '$work/resume.log') -eq $((9 - fin)) &&
			test \$(find '$work/kill/json' -name '*.json' ! -newermt 2000-01-02 | wc -l) -eq $fin"
	tap_check "and merges the same figures" cmp -s "$csv" "$work/kill/summary.csv"
	cp "$work/corpus/synth-1.vtr" "$work/corpus/extra.vtr"
	tap_check "--resume over a changed list of traces is refused" \
		fails_saying 2 "--resume needs the same list" "$rc" run --resume --out "$work/kill" "$work/corpus"
	rm "$work/corpus/extra.vtr"

	# A damaged trace among good ones.
	cp -r "$work/corpus" "$work/corpus2"
	cp "$work/damaged.vtr" "$work/corpus2/"
	"$rc" run --jobs 2 --out "$work/dmg" "$work/corpus2" >"$work/dmg.log" 2>&1
	st=$?
	grep 'damaged' "$work/dmg.log" | sed 's/^/#   /'
	tap_check "a damaged trace fails the batch, named with varg-trace's reason" \
		sh -c "test $st -eq 1 && grep -q 'damaged FAILED' '$work/dmg.log' &&
			grep -q 'damaged.vtr: .*truncated' '$work/dmg.log' &&
			grep -q '^ratio-corpus: damaged: no result' '$work/dmg.log'"
	tap_check "the good ones are still merged, the same" cmp -s "$csv" "$work/dmg/summary.csv"
	"$rc" run --resume --jobs 2 --out "$work/dmg" "$work/corpus2" >"$work/dmg2.log" 2>&1
	st=$?
	tap_check "--resume tries the failed trace again, and only it" \
		sh -c "test $st -eq 1 && test \$(grep -c 'FAILED' '$work/dmg2.log') -eq 1 &&
			test \$(grep -c ' done in ' '$work/dmg2.log') -eq 0"

	# Other hosts: through an sshd started here on loopback.
	if [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null; then
		ssh_ok=no
		start_sshd && ssh_ok=yes
		login="$SSH_CMD $(id -un)@127.0.0.1"
		if [ $ssh_ok = yes ]; then
			"$rc" run --jobs 2 --sshlogin "$login" --out "$work/ssh" "$work/corpus" >"$work/ssh.log" 2>&1
			st=$?
			sed -n 's/^ratio-corpus: \(wall time.*\)/# parallel --sshlogin: \1/p' "$work/ssh.log"
			name="parallel --sshlogin: every trace ran on the host over SSH, the same figures"
			if test $st -eq 0 && cmp -s "$csv" "$work/ssh/summary.csv" &&
			   test "$(awk -F'\t' 'NR > 1 && $2 ~ /127\.0\.0\.1/' "$work/ssh/joblog" | wc -l)" -eq 9; then
				tap_ok "$name"
			else
				tap_not_ok "$name"
				echo "# exit $st; its output, joblog and the sshd's log:"
				cat "$work/ssh.log" "$work/ssh/joblog" "$work/sshd.log" | sed 's/^/#   /'
			fi
		else
			echo "# sshd did not answer:"; sed 's/^/#   /' "$work/sshd.log"
			tap_not_ok "parallel --sshlogin: an sshd started here answers"
		fi
	else
		tap_skip "--sshlogin: no sshd here (scripts/setup installs openssh-server)"
	fi
fi

# Slurm: a controller and a node daemon of our own, with their own munge,
# all on this machine, addressed by loopback so that no name lookup can
# stall them. A try that does not answer is stopped and made again on
# other ports: a port the random pick shares with another test's server,
# or a daemon slow on a loaded machine, is not a failure of the batch.
slurm_conf() { # PORT: writes $sl/slurm.conf for a controller on PORT
	cat >"$sl/slurm.conf" <<EOF
ClusterName=vargtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$(($1 + 1))
AuthType=auth/munge
AuthInfo=socket=$sl/munge.sock
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
StateSaveLocation=$sl/state
SlurmdSpoolDir=$sl/spool
SlurmctldPidFile=$sl/slurmctld.pid
SlurmdPidFile=$sl/slurmd.pid
SlurmctldLogFile=$sl/slurmctld.log
SlurmdLogFile=$sl/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
# Short tasks: start them as soon as CPUs free up, and keep finished ones
# long enough that sbatch --wait, which then polls every 8 s, sees them.
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
MinJobAge=16
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=2 State=UNKNOWN
PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}
slurm_start() { # one try: returns 0 once the node is idle (at most 40 s)
	rm -rf "$sl/state" "$sl/spool" && mkdir -p "$sl/state" "$sl/spool"
	slurm_conf "$(random_port)"
	slurmctld -D -f "$sl/slurm.conf" >>"$sl/ctld.out" 2>&1 &
	ctld=$!
	slurmd -D -N "$host" -f "$sl/slurm.conf" >>"$sl/d.out" 2>&1 &
	sld=$!
	pids="$pids $ctld $sld"
	for _ in $(seq 1 400); do
		sinfo -h -o %T 2>/dev/null | grep -q idle && return 0
		kill -0 "$ctld" 2>/dev/null && kill -0 "$sld" 2>/dev/null || break
		sleep 0.1
	done
	kill "$ctld" "$sld" 2>/dev/null
	wait "$ctld" "$sld" 2>/dev/null
	return 1
}
if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null &&
   command -v sbatch >/dev/null; then
	slurm_ok=no
	sl=$work/slurm
	mkdir -p "$sl"
	dd if=/dev/urandom of="$sl/munge.key" bs=1024 count=1 2>/dev/null && chmod 600 "$sl/munge.key"
	munged --socket="$sl/munge.sock" --key-file="$sl/munge.key" --pid-file="$sl/munged.pid" \
		--log-file="$sl/munged.log" --seed-file="$sl/munge.seed" --force 2>"$sl/munged.err" &&
		pids="$pids $(cat "$sl/munged.pid")"
	host=$(hostname -s)
	SLURM_CONF=$sl/slurm.conf
	export SLURM_CONF
	for try in 1 2 3; do
		slurm_start && { slurm_ok=yes; break; }
		echo "# Slurm try $try did not answer"
	done
	if [ $slurm_ok = yes ]; then
		"$rc" slurm --test-only --out "$work/sl-test" "$work/corpus" >"$work/sl-test.log" 2>&1
		tap_check "slurm --test-only: sbatch accepts the array" grep -q 'to start at' "$work/sl-test.log"
		timeout 300 "$rc" slurm --wait --out "$work/sl" "$work/corpus" >"$work/sl.log" 2>&1
		st=$?
		sed -n 's/^ratio-corpus: \(wall time.*\)/# slurm, 9 tasks: \1/p' "$work/sl.log"
		tap_check "a Slurm job array, one task a trace, merges to the same figures" \
			sh -c "test $st -eq 0 && cmp -s '$csv' '$work/sl/summary.csv' &&
				test \$(grep -l ' done in ' '$work/sl/slurm'/task-*.out | wc -l) -eq 9"
		mkdir -p "$work/corpus3"
		cp "$work/corpus/synth-1.vtr" "$work/damaged.vtr" "$work/corpus3/"
		timeout 300 "$rc" slurm --wait --out "$work/sl3" "$work/corpus3" >"$work/sl3.log" 2>&1
		st=$?
		tap_check "a failed Slurm task fails the batch and is named" \
			sh -c "test $st -eq 1 && grep -q '^ratio-corpus: damaged: no result' '$work/sl3.log' &&
				grep -q 'damaged FAILED' '$work/sl3/slurm'/task-*.out &&
				grep -q '^synth-1,' '$work/sl3/summary.csv'"
	elif [ "$(id -u)" -ne 0 ]; then
		for i in 1 2 3; do tap_skip "a private slurmd did not start without root"; done
	else
		echo "# Slurm did not come up:"
		for f in munged.err munged.log slurmctld.log slurmd.log ctld.out d.out; do
			echo "# $f:"
			tail -n 8 "$sl/$f" 2>&1 | sed 's/^/#   /'
		done
		for i in 1 2 3; do tap_not_ok "a single-node Slurm started here answers"; done
	fi
else
	for i in 1 2 3; do tap_skip "Slurm is needed (scripts/setup installs slurm-wlm)"; done
fi
tap_done
