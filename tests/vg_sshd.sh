# Sourced by tests that need SSH: a private sshd on loopback, added to
# $pids for the caller's cleanup (vg_e2e.sh, with random_port).

# start_sshd: an sshd on a random loopback port that lets this user in
# with a key made here and forwards TCP; sets SSH_CMD, an ssh command
# line that reaches it (add the destination, $(id -un)@127.0.0.1).
# Returns 1 when sshd is missing or does not listen within 10 s.
start_sshd() {
	[ -x /usr/sbin/sshd ] && command -v ssh >/dev/null || return 1
	sshd_port=$(random_port)
	mkdir -p /run/sshd 2>/dev/null
	rm -f "$work/sshd-hostkey" "$work/sshd-userkey" "$work/sshd-userkey.pub"
	ssh-keygen -q -t ed25519 -N '' -f "$work/sshd-hostkey" &&
	ssh-keygen -q -t ed25519 -N '' -f "$work/sshd-userkey" &&
	cp "$work/sshd-userkey.pub" "$work/sshd-authorized_keys" || return 1
	cat >"$work/sshd_config" <<SSHD
Port $sshd_port
ListenAddress 127.0.0.1
HostKey $work/sshd-hostkey
AuthorizedKeysFile $work/sshd-authorized_keys
StrictModes no
UsePAM no
PasswordAuthentication no
AllowTcpForwarding yes
PermitRootLogin prohibit-password
PidFile $work/sshd.pid
LogLevel ERROR
SSHD
	/usr/sbin/sshd -D -f "$work/sshd_config" -E "$work/sshd.log" &
	pids="$pids $!"
	SSH_CMD="ssh -F /dev/null -i $work/sshd-userkey -p $sshd_port -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR"
	for _ in $(seq 1 100); do
		ss -ltn | grep -q "127.0.0.1:$sshd_port " && return 0
		sleep 0.1
	done
	echo "# sshd did not start:"; sed 's/^/#   /' "$work/sshd.log"
	return 1
}
