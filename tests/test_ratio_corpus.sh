#!/bin/sh
# scripts/ratio-corpus on a corpus of real traces: sequential, on GNU
# parallel locally and through an sshd started here, resumed, and as a
# Slurm job array on a single-node Slurm started here: the same merged
# figures every way, equal to varg-trace ratio's own; a damaged trace is
# reported and the rest still merged; bad options fail cleanly.
. "${VG_TOP_SRCDIR:-.}/tests/tap.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_e2e.sh"
. "${VG_TOP_SRCDIR:-.}/tests/vg_xvfb.sh"
rc=$S/scripts/ratio-corpus
export VG_BUILD="$B"

tap_plan 17

tap_check "no command is a usage error" fails_cleanly 2 "$rc"
tap_check "an unknown command is a usage error" fails_cleanly 2 "$rc" frobnicate
tap_check "a missing directory is a usage error" fails_cleanly 2 "$rc" run --out "$work/x" "$work/nowhere"
mkdir -p "$work/empty"
tap_check "a directory without traces is a usage error" fails_cleanly 2 "$rc" run --out "$work/x" "$work/empty"
tap_check "a bad --jobs is a usage error" fails_cleanly 2 "$rc" run --jobs many --out "$work/x" "$work/empty"

# The corpus: eight short heat-map sessions drawn by varg-synth, each
# browsed differently, and the bundled heat-map recording.
mkdir -p "$work/corpus"
for i in 1 2 3 4 5 6 7 8; do
	"$B/traces/varg-synth" -o "$work/f$i" -W 320 -H 240 -n 12 -s "$i" >/dev/null &&
	"$B/traces/varg-trace" import -f "$work/f$i" -o "$work/corpus/synth-$i.vtr" >/dev/null || exit 1
	rm -rf "$work/f$i"
done
cp "$S/traces/samples/heatmap-scroll.vtr" "$work/corpus/"

"$rc" run --sequential --out "$work/seq" "$work/corpus" >"$work/seq.log" 2>&1
st=$?
sed -n 's/^ratio-corpus: \(wall time.*\|merged.*\)/# sequential: \1/p' "$work/seq.log"
tap_check "sequential: every trace went through" sh -c "test $st -eq 0 && test \$(ls '$work/seq/json' | wc -l) -eq 9"
"$B/traces/varg-trace" ratio -q --no-variants -j "$work/own.json" "$work/corpus/synth-3.vtr" >/dev/null
own=$(json_num "$work/own.json" total_bytes)
row=$(grep '^synth-3,' "$work/seq/summary.csv" | cut -d, -f4)
tap_check "the merged row equals varg-trace ratio's own figure ($own)" test "$row" = "$own"
total=$(awk -F, 'NR > 1 && $1 != "TOTAL" { s += $4 } END { print s }' "$work/seq/summary.csv")
tap_check "and the total row sums the traces" test "$(grep '^TOTAL,' "$work/seq/summary.csv" | cut -d, -f4)" = "$total"
tap_check "the markdown table has a row a trace and the total" test "$(grep -c '^| ' "$work/seq/summary.md")" -eq 11

if ! command -v parallel >/dev/null; then
	for i in $(seq 1 6); do tap_skip "GNU parallel is needed (scripts/setup)"; done
else
	"$rc" run --jobs 2 --out "$work/par" "$work/corpus" >"$work/par.log" 2>&1
	st=$?
	sed -n 's/^ratio-corpus: \(wall time.*\)/# parallel -j 2: \1/p' "$work/par.log"
	tap_check "parallel: the same merged figures as sequential" \
		sh -c "test $st -eq 0 && cmp -s '$work/seq/summary.csv' '$work/par/summary.csv'"

	# Resume: three jobs taken out of the joblog run again, and no more.
	head -n 7 "$work/par/joblog" >"$work/joblog" && mv "$work/joblog" "$work/par/joblog"
	"$rc" run --resume --jobs 2 --out "$work/par" "$work/corpus" >"$work/resume.log" 2>&1
	tap_check "--resume runs only the traces the joblog lacks" \
		test "$(grep -c ' done$' "$work/resume.log")" -eq 3
	tap_check "and merges the same figures" cmp -s "$work/seq/summary.csv" "$work/par/summary.csv"

	# A damaged trace among good ones.
	cp -r "$work/corpus" "$work/corpus2"
	head -c 5000 "$S/traces/samples/treeview-scroll.vtr" >"$work/corpus2/damaged.vtr"
	"$rc" run --jobs 2 --out "$work/dmg" "$work/corpus2" >"$work/dmg.log" 2>&1
	st=$?
	tap_check "a damaged trace fails the batch and is named" \
		sh -c "test $st -eq 1 && grep -q 'damaged FAILED' '$work/dmg.log'"
	tap_check "the good ones are still merged, the same" cmp -s "$work/seq/summary.csv" "$work/dmg/summary.csv"

	# Other hosts: through an sshd started here on loopback.
	ssh_ok=no
	if [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null; then
		SP=$(random_port)
		mkdir -p /run/sshd 2>/dev/null
		ssh-keygen -q -t ed25519 -N '' -f "$work/hostkey" &&
		ssh-keygen -q -t ed25519 -N '' -f "$work/userkey" &&
		cp "$work/userkey.pub" "$work/authorized_keys" &&
		cat >"$work/sshd_config" <<EOF
Port $SP
ListenAddress 127.0.0.1
HostKey $work/hostkey
AuthorizedKeysFile $work/authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
PermitRootLogin prohibit-password
PidFile $work/sshd.pid
LogLevel ERROR
EOF
		/usr/sbin/sshd -D -f "$work/sshd_config" -E "$work/sshd.log" &
		pids="$pids $!"
		for _ in $(seq 1 100); do
			ss -ltn | grep -q "127.0.0.1:$SP " && { ssh_ok=yes; break; }
			sleep 0.1
		done
	fi
	if [ $ssh_ok = yes ]; then
		login="ssh -F /dev/null -i $work/userkey -p $SP -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR $(id -un)@127.0.0.1"
		"$rc" run --jobs 2 --sshlogin "$login" --out "$work/ssh" "$work/corpus" >"$work/ssh.log" 2>&1
		st=$?
		tap_check "parallel --sshlogin: every trace ran on the host over SSH, the same figures" \
			sh -c "test $st -eq 0 && cmp -s '$work/seq/summary.csv' '$work/ssh/summary.csv' &&
				test \$(grep -c '127.0.0.1' '$work/ssh/joblog') -eq 9"
	else
		tap_skip "--sshlogin: no sshd could be started on loopback (scripts/setup installs openssh-server)"
	fi
fi

# Slurm: a controller and a node daemon of our own, with their own munge.
slurm_ok=no
if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null &&
   command -v sbatch >/dev/null; then
	sl=$work/slurm
	mkdir -p "$sl/state" "$sl/spool"
	dd if=/dev/urandom of="$sl/munge.key" bs=1024 count=1 2>/dev/null && chmod 600 "$sl/munge.key"
	munged --socket="$sl/munge.sock" --key-file="$sl/munge.key" --pid-file="$sl/munged.pid" \
		--log-file="$sl/munged.log" --seed-file="$sl/munge.seed" --force 2>"$sl/munged.err" &&
		pids="$pids $(cat "$sl/munged.pid")"
	host=$(hostname -s)
	cport=$(random_port)
	cat >"$sl/slurm.conf" <<EOF
ClusterName=vargtest
SlurmctldHost=$host
SlurmctldPort=$cport
SlurmdPort=$((cport + 1))
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
NodeName=$host CPUs=2 State=UNKNOWN
PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	SLURM_CONF=$sl/slurm.conf
	export SLURM_CONF
	slurmctld -D -f "$sl/slurm.conf" >"$sl/ctld.out" 2>&1 &
	pids="$pids $!"
	slurmd -D -f "$sl/slurm.conf" >"$sl/d.out" 2>&1 &
	pids="$pids $!"
	for _ in $(seq 1 100); do
		sinfo -h -o %T 2>/dev/null | grep -q idle && { slurm_ok=yes; break; }
		sleep 0.1
	done
	[ $slurm_ok = yes ] || { echo "# Slurm did not come up:"; tail -3 "$sl/slurmctld.log" "$sl/slurmd.log" 2>/dev/null | sed 's/^/#   /'; }
fi
if [ $slurm_ok = yes ]; then
	"$rc" slurm --test-only --out "$work/sl-test" "$work/corpus" >"$work/sl-test.log" 2>&1
	tap_check "slurm --test-only: sbatch accepts the array" grep -q 'to start at' "$work/sl-test.log"
	"$rc" slurm --out "$work/sl" "$work/corpus" >"$work/sl.log" 2>&1
	for _ in $(seq 1 600); do
		[ -z "$(squeue -h 2>/dev/null)" ] && break
		sleep 0.1
	done
	"$rc" merge "$work/sl" >"$work/sl-merge.log" 2>&1
	st=$?
	tap_check "a Slurm job array, one task a trace, merges to the same figures" \
		sh -c "test $st -eq 0 && cmp -s '$work/seq/summary.csv' '$work/sl/summary.csv' &&
			test \$(ls '$work/sl/slurm'/task-*.out | wc -l) -eq 9"
else
	tap_skip "Slurm is needed (scripts/setup installs slurm-wlm)"
	tap_skip "Slurm is needed (scripts/setup installs slurm-wlm)"
fi
tap_done
