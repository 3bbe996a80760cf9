# Loopback ssh "hosts" for the tests of multi-host runs (t/wa-dist.t):
# one throw-away sshd on this test's own addresses (t_addr), its keys,
# configuration and logs in $tmp, and an ssh configuration that uses
# them, so that nothing outside $tmp is read or written (no ~/.ssh).
# Source it after t/lib.sh.
#
#   sshd_usable            true when sshd, ssh and ssh-keygen are there and
#                          sshd can run here (as root, or as the user it
#                          logs in); otherwise sets SSHD_WHY to the reason
#   sshd_start N           starts sshd on the addresses t_addr 1 ... t_addr N,
#                          port SSHD_PORT; sets SSHD_HOSTS (the addresses),
#                          SSH_CONFIG (ssh -F file: key, port, known hosts
#                          in $tmp, connection sharing) and SSH_LOGINS
#                          (one "ssh -F SSH_CONFIG ADDR" per line, for a GNU
#                          parallel --sshloginfile); an sshd that does not
#                          start skips the test when not root (call it
#                          before starting other servers), stops it as root
#   sshd_stop              closes the shared connections and stops sshd
#                          (the end of the test does it too)
SSHD=${SSHD:-/usr/sbin/sshd}
SSHD_PORT=2222
t_sshd_pid=

sshd_usable() {
	SSHD_WHY=
	for s_prog in "$SSHD" ssh ssh-keygen; do
		command -v "$s_prog" >/dev/null 2>&1 || { SSHD_WHY="needs $s_prog (openssh-server, openssh-client)"; return 1; }
	done
	# As root, sshd separates privileges into /run/sshd; as another user
	# it logs in that user only, without privilege separation.
	if [ "$(id -u)" = 0 ] && ! { [ -d /run/sshd ] || mkdir -p /run/sshd 2>/dev/null; }; then
		SSHD_WHY="sshd needs /run/sshd, which cannot be made"
		return 1
	fi
	return 0
}

sshd_start() {	# HOSTS
	s_dir=$tmp/sshd
	mkdir -p "$s_dir"
	ssh-keygen -q -N '' -t ed25519 -f "$s_dir/host_key" </dev/null || { echo "Bail out! ssh-keygen failed"; exit 1; }
	ssh-keygen -q -N '' -t ed25519 -f "$s_dir/user_key" </dev/null || { echo "Bail out! ssh-keygen failed"; exit 1; }
	cp "$s_dir/user_key.pub" "$s_dir/authorized_keys"
	SSHD_HOSTS=
	s_i=0
	while [ $s_i -lt "$1" ]; do
		s_i=$((s_i + 1))
		SSHD_HOSTS="$SSHD_HOSTS${SSHD_HOSTS:+ }$(t_addr $s_i)"
	done
	{
		for s_h in $SSHD_HOSTS; do echo "ListenAddress $s_h:$SSHD_PORT"; done
		cat <<EOF
HostKey $s_dir/host_key
AuthorizedKeysFile $s_dir/authorized_keys
PidFile $s_dir/sshd.pid
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AllowUsers $(id -un)
MaxStartups 100:30:200
MaxSessions 100
LogLevel INFO
EOF
	} >"$s_dir/sshd_config"
	SSH_CONFIG=$s_dir/ssh_config
	cat >"$SSH_CONFIG" <<EOF
Host *
	Port $SSHD_PORT
	User $(id -un)
	IdentityFile $s_dir/user_key
	IdentitiesOnly yes
	UserKnownHostsFile $s_dir/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking no
	BatchMode yes
	LogLevel ERROR
	ControlMaster auto
	ControlPath $s_dir/cm-%C
	ControlPersist 120
EOF
	"$SSHD" -D -e -f "$s_dir/sshd_config" 2>"$s_dir/sshd.log" &
	t_sshd_pid=$!
	trap 'sshd_stop; t_cleanup' EXIT
	# Ready when every address answers a login.
	for s_h in $SSHD_HOSTS; do
		s_i=0
		until ssh -F "$SSH_CONFIG" -o ControlMaster=no "$s_h" true 2>"$s_dir/ssh.err"; do
			if [ $s_i -ge 100 ] || ! kill -0 $t_sshd_pid 2>/dev/null; then
				s_why="sshd did not start on $s_h:$SSHD_PORT: $(cat "$s_dir/sshd.log" "$s_dir/ssh.err" | tail -3)"
				sshd_stop
				# Not root, sshd may lack what privilege separation needs.
				[ "$(id -u)" = 0 ] || skip_all "$s_why"
				echo "Bail out! $s_why"
				exit 1
			fi
			sleep 0.1
			s_i=$((s_i + 1))
		done
	done
	SSH_LOGINS=$(for s_h in $SSHD_HOSTS; do echo "ssh -F $SSH_CONFIG $s_h"; done)
}

sshd_stop() {
	[ -n "$t_sshd_pid" ] || return 0
	for s_h in $SSHD_HOSTS; do
		ssh -F "$SSH_CONFIG" -O exit "$s_h" 2>/dev/null
	done
	kill $t_sshd_pid 2>/dev/null
	wait $t_sshd_pid 2>/dev/null
	t_sshd_pid=
}
