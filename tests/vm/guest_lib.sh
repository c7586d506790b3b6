# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=dash # busybox ash: has local
#
# tests/vm/guest_lib.sh - helpers for test scripts inside the guest
#
# Theory of operation: packed as /lib/vmtest.sh into the guest's initramfs
# (tests/vm/mkimage); the guest's /test.sh sources it. Everything runs under
# busybox ash, with the console as output. Results go to the host as single
# lines "RESULT NAME ok DETAILS" or "RESULT NAME fail REASON", which
# tests/vm/host.sh waits for; diagnostics are lines starting with "# ".
# Every network command runs under a timeout, so a stuck step fails and the
# test goes on.

# vt_result() - report a result to the host
# $1: name (no spaces)
# $2: ok or fail
# $3...: details or reason (one line)
vt_result() {
	local name=$1 status=$2

	shift 2
	echo "RESULT $name $status $*"
}

# vt_log() - print a diagnostic line
# $@: message
vt_log() {
	echo "# $*"
}

# vt_ms() - milliseconds since boot
vt_ms() {
	local up

	read -r up _ </proc/uptime
	# Two decimals: "1" in front keeps "08" from being read as octal
	echo $(( ${up%.*} * 1000 + 1${up#*.} * 10 - 1000 ))
}

# vt_poll() - poll a condition every 0.1 s, bounded
# $1: seconds
# $2...: command; success ends the wait
# Return: 0 once the command succeeded, 1 if it never did
vt_poll() {
	local limit=$(( $1 * 10 )) i=0

	shift
	until "$@"; do
		[ $i -ge "$limit" ] && return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 0
}

# vt_iface() - print the name of the first network interface but lo
vt_iface() {
	local d

	for d in /sys/class/net/*; do
		[ "${d##*/}" = lo ] && continue
		[ -e "$d" ] || continue
		echo "${d##*/}"
		return 0
	done
	return 1
}

# vt_dhcp() - DHCP on an interface: udhcpc configures it through
# /etc/udhcpc.sh (address, route, MTU), which writes the lease to /tmp/lease
# $1: interface
# Return: 0 with a lease; udhcpc's output is in /tmp/udhcpc.log
vt_dhcp() {
	timeout 30 udhcpc -i "$1" -f -q -n -t 5 -T 2 -O mtu \
		-s /etc/udhcpc.sh >/tmp/udhcpc.log 2>&1 && [ -s /tmp/lease ]
}

# vt_sha() - print the SHA-256 of a file
# $1: file
vt_sha() {
	sha256sum "$1" | cut -d' ' -f1
}

# vt_size() - print the size of a file in bytes
# $1: file
vt_size() {
	wc -c <"$1" | tr -d ' '
}

# vt_rate() - print "N bytes in S s, M Mbit/s"
# $1: bytes
# $2: milliseconds
vt_rate() {
	local ms=$2

	[ "$ms" -gt 0 ] || ms=1
	echo "$1 bytes in $((ms / 1000)).$(( (ms % 1000) / 100 )) s," \
	     "$(( $1 * 8 / ms / 1000 )) Mbit/s"
}

# vt_listening() - is a TCP port listening in the guest?
# $1: port
vt_listening() {
	netstat -ltn 2>/dev/null | grep -q "[:.]$1 "
}

# vt_not_running() - has a background job ended?
# $1: PID
vt_not_running() {
	! kill -0 "$1" 2>/dev/null
}

# vt_nc() - run nc under a time limit; show the sockets if it runs over
# $1: seconds
# $2: file for stdin
# $3: file for stdout
# $4...: nc arguments
# Return: nc's exit status, 124 if it ran over (then it is killed)
vt_nc() {
	local limit=$1 in=$2 out=$3 pid
	shift 3

	nc "$@" <"$in" >"$out" 2>/tmp/nc.err &
	pid=$!
	if ! vt_poll "$limit" vt_not_running "$pid"; then
		vt_log "nc $* still running after $limit s, sockets:"
		netstat -tn 2>&1 | grep -v '^Active' | sed 's/^/#   /'
		kill "$pid"
		wait "$pid"
		echo "timed out after $limit s" >>/tmp/nc.err
		return 124
	fi
	wait "$pid"
}

# vt_fetch() - test: receive a file over TCP, report its hash and size
# $1: result name
# $2: address to connect to
# $3: port
# $4: file to write
# $5: timeout in seconds
vt_fetch() {
	local name=$1 addr=$2 port=$3 file=$4 limit=$5 start rc

	start=$(vt_ms)
	vt_nc "$limit" /dev/null "$file" "$addr" "$port"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		vt_result "$name" fail "nc $addr $port exited with status" \
			  "$rc after $(vt_size "$file") bytes:" \
			  "$(tr '\n' ' ' </tmp/nc.err)"
		return 1
	fi
	vt_log "$name: $(vt_rate "$(vt_size "$file")" \
			       $(( $(vt_ms) - start )))"
	vt_result "$name" ok "$(vt_sha "$file") $(vt_size "$file")"
}

# vt_send() - test: send a file over TCP, report its hash once sent
# $1: result name
# $2: address to connect to
# $3: port
# $4: file to send
# $5: timeout in seconds
#
# busybox nc closes its sending side at the end of the file and exits once
# the peer closes: status 0 means the peer read everything.
vt_send() {
	local name=$1 addr=$2 port=$3 file=$4 limit=$5 start rc

	start=$(vt_ms)
	vt_nc "$limit" "$file" /dev/null "$addr" "$port"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		vt_result "$name" fail "nc $addr $port exited with status" \
			  "$rc: $(tr '\n' ' ' </tmp/nc.err)"
		return 1
	fi
	vt_log "$name: $(vt_rate "$(vt_size "$file")" \
			       $(( $(vt_ms) - start )))"
	vt_result "$name" ok "$(vt_sha "$file") $(vt_size "$file")"
}
