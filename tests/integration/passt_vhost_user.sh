#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/passt_vhost_user.sh - passt --vhost-user with a real
# QEMU guest
#
# Rig: as tests/integration/passt_qemu.sh (passt in a host namespace of our
# own with a forwarded port, QEMU 7.2 under TCG booting Debian's cloud
# kernel with a busybox initramfs running tests/vm/guest_passt.sh), but the
# guest's virtio-net device is served by passt through vhost-user: QEMU
# connects with -chardev socket and -netdev vhost-user, and shares the
# guest's memory with passt (memory-backend-memfd, share=on). Two rounds:
#   1. passt listens on a socket path (-s), in the foreground; at the end
#      it must exit on SIGTERM;
#   2. as QEMU 10.1's "-netdev passt" does: passt gets a connected socket
#      as --fd 3 (tests/vm/fd_pair), goes to the background once ready
#      (-P), and QEMU is on the other end (QEMU 7.2 can't take a socket
#      pair end for vhost-user: it connects by path to fd_pair, which
#      hands the accepted socket to passt, see boot_fd()); passt must
#      exit by itself when QEMU does (--fd implies --one-off).
# Checked in each round, as in passt_qemu.sh:
#   - the guest boots, its virtio-net driver comes up;
#   - DHCP: the host's address, prefix length, gateway and MTU 65520;
#   - ping to the gateway, IPv4 and IPv6;
#   - SLAAC address in the host's prefix, default route;
#   - TCP, IPv4 and IPv6: 20 MiB host -> guest and guest -> host, sha256
#     compared on both sides;
#   - a port forwarded with -t: 20 MiB from a server in the guest, sha256;
#   - the guest powers off, QEMU exits 0;
#   - round 1: passt serves the socket again; round 2: passt exits.
# QEMU runs under a hard timeout (VM_TIMEOUT, 150 s).
#
# Environment: PASST_OPTS, more passt options; VU_FD_PAIR, see boot_fd();
# see also tests/vm/host.sh.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"
# shellcheck source=tests/vm/host.sh
. "$(dirname "$0")/../vm/host.sh"

SIZE=20M
LIMIT=40		# seconds for each transfer
FWD=10001
PORT_DOWN4=7001
PORT_UP4=7002
PORT_DOWN6=7003
PORT_UP6=7004
FD_RELAY=3		# passt's end of the pair (QEMU 10.1 uses 3)
FD_PEER=4		# QEMU's end, with VU_FD_PAIR
FD_RELAY_PID=

rig_init
PASST=${PASST:-$(dirname "$RELAY")/passt}
case $PASST in
/*) ;;
*)  PASST=$RIG_ROOT/$PASST ;;
esac
if [ ! -x "$PASST" ]; then
	echo "FAIL: prerequisites: passt binary $PASST not found" \
	     "(run make, or set PASST=/path/to/passt)"
	exit 1
fi
rig_log "passt: $PASST"
rig_host_ns || exit 1

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" "$SIZE" || exit 1
SOCK=$RIG_TMP/passt.socket
CONF=$RIG_TMP/vmtest.conf
SERVER_PIDS=()

cat >"$CONF" <<EOF
VT_GW4=$RIG_GW4
VT_GW6=$RIG_GW6
VT_PREFIX6=${RIG_ADDR6%::*}::
VT_PORT_DOWN4=$PORT_DOWN4
VT_PORT_UP4=$PORT_UP4
VT_PORT_DOWN6=$PORT_DOWN6
VT_PORT_UP6=$PORT_UP6
VT_FWD=$FWD
VT_LIMIT=$LIMIT
EOF

# image() - test: build the guest (downloads the kernel on the first run)
image() {
	vm_image "$RIG_ROOT/tests/vm/guest_passt.sh" -f "$CONF:/etc/vmtest.conf"
}

# ping_sockets() - allow passt's ping sockets in the host namespace
ping_sockets() {
	rig_sysctl_set net.ipv4.ping_group_range "0 2147483647" \
		"$RIG_HOSTNS" || rig_fail "can't set ping_group_range"
}

# relay_up() - test: passt --vhost-user listens on its socket
relay_up() {
	rig_persist
	ping_sockets || return 1
	# shellcheck disable=SC2086 # options split into words
	passt_start fg "$SOCK" --vhost-user -t "$FWD" $PASST_OPTS
}

# serve_file() - start a one-shot server sending $DATA
# $1: socat listen address
serve_file() {
	ip netns exec "$RIG_HOSTNS" timeout -k 5 "$VM_TIMEOUT" \
		socat -u "FILE:$DATA" "$1,reuseaddr" \
		2>"$RIG_TMP/server.$(rig_port_of "$1").err" &
	SERVER_PIDS[$(rig_port_of "$1")]=$!
	rig_defer "rig_kill $!"
}

# recv_file() - start a one-shot receiver hashing what it gets
# $1: socat listen address
# $2: name: the hash goes to NAME.sha (and with RIG_KEEP, data to NAME.bin)
recv_file() {
	local keep=/dev/null

	[ -n "$RIG_KEEP" ] && keep=$RIG_TMP/$2.bin
	ip netns exec "$RIG_HOSTNS" timeout -k 5 "$VM_TIMEOUT" \
		bash -o pipefail -c "socat -u '$1,reuseaddr' STDOUT |
				     tee '$keep' | sha256sum |
				     cut -d' ' -f1" >"$RIG_TMP/$2.sha" &
	SERVER_PIDS[$(rig_port_of "$1")]=$!
	rig_defer "rig_kill $!"
}

# servers() - test: the servers the guest will reach through the gateway
servers() {
	rig_persist
	rm -f "$RIG_TMP/up4.sha" "$RIG_TMP/up6.sha"
	serve_file "TCP4-LISTEN:$PORT_DOWN4,bind=127.0.0.1"
	serve_file "TCP6-LISTEN:$PORT_DOWN6,bind=[::1]"
	recv_file "TCP4-LISTEN:$PORT_UP4,bind=127.0.0.1" up4
	recv_file "TCP6-LISTEN:$PORT_UP6,bind=[::1]" up6
	for p in $PORT_DOWN4 $PORT_UP4 $PORT_DOWN6 $PORT_UP6; do
		rig_wait_listen "$RIG_HOSTNS" "$p" || return 1
	done
}

# guest_up() - wait for the guest's driver and interface
guest_up() {
	local t

	vm_result modules 60 || return 1
	t=$(vm_line "VMTEST init" | awk '{ print $3 }')
	rig_log "guest init after $t s of guest time," \
		"$(rig_secs $(( $(rig_now_ms) - VM_START_MS ))) s after start"
	vm_result link 20 || return 1
	rig_log "guest interface: $VM_RESULT"
}

# boot() - test: QEMU boots the guest on passt's socket
boot() {
	rig_persist
	VM_NETDEV=vhost-user VM_WRAP='' vm_start "$SOCK"
	rig_poll 10 passt_log_has "Accepted guest connection" ||
		rig_fail "passt did not accept QEMU's connection in 10 s:" \
			 "$(tr '\n' ' ' <"$VM_ERR" | cut -c 1-200)" ||
		return 1
	guest_up
}

# boot_fd() - test: passt on a connected socket it inherits (--fd), QEMU on
# the other end, as with QEMU 10.1's -netdev passt
#
# QEMU 7.2 refuses "-chardev socket,fd=N" for vhost-user ("does not support
# FD passing"), so by default QEMU connects to a path where tests/vm/fd_pair
# accepts, and passt gets the accepted socket as --fd 3: the same kind of
# descriptor as QEMU 10.1's socket pair. VU_FD_PAIR=1 uses a socket pair
# and "-chardev socket,fd=N" instead, for a QEMU that supports it.
boot_fd() {
	local pidfile=$RIG_TMP/relay.fd.pid path=$RIG_TMP/fd.socket
	local peer="path=$path" netdev=vhost-user arg=$path

	if [ -n "$VU_FD_PAIR" ]; then
		peer="fd=$FD_PEER"
		netdev=vhost-user-fd
		arg=$FD_PEER
	fi

	rig_persist
	RIG_RELAY_SEQ=$((RIG_RELAY_SEQ + 1))
	RIG_RELAY_LOG=$RIG_TMP/relay.$RIG_RELAY_SEQ.log
	# shellcheck disable=SC2034 # read by rig_relay_stop_check
	RIG_RELAY_MODE=daemon
	: >"$RIG_RELAY_LOG"
	VM_NETDEV=$netdev \
	VM_WRAP="$RIG_ROOT/tests/vm/fd_pair $FD_RELAY $peer $PASST
		 --vhost-user --fd $FD_RELAY -P $pidfile -l $RIG_RELAY_LOG
		 --runas 0 -t $FWD $PASST_OPTS --" \
		vm_start "$arg"
	rig_poll 10 test -s "$pidfile" ||
		rig_fail "passt did not write its PID file in 10 s:" \
			 "$(tr '\n' ' ' <"$VM_ERR" | cut -c 1-300)" ||
		return 1
	RIG_RELAY_PID=$(cat "$pidfile")
	rig_defer "rig_kill '$RIG_RELAY_PID'"
	rig_log "passt pid $RIG_RELAY_PID (--fd), log $RIG_RELAY_LOG"
	rig_poll 10 passt_log_has "Serving the vhost-user front-end" ||
		rig_fail "passt does not serve the socket:" \
			 "$(tr '\n' ' ' <"$RIG_RELAY_LOG" | cut -c 1-200)" ||
		return 1
	guest_up
}

# expect() - compare a field of the last guest result
# $1: key
# $2: expected value
# $3: what it is, for the message
expect() {
	local got

	got=$(vm_field "$1")
	[ "$got" = "$2" ] || rig_fail "$3: guest got '$got', expected '$2'" \
				      "(guest: $VM_RESULT)"
}

# dhcp() - test: the lease carries the host's configuration
dhcp() {
	vm_result dhcp 60 || return 1
	rig_log "lease: $VM_RESULT"
	expect ip "$RIG_ADDR4" "address" &&
	expect mask 24 "prefix length" &&
	expect router "$RIG_GW4" "router" &&
	expect mtu 65520 "MTU option" &&
	expect ifaddr "$RIG_ADDR4/24" "address on the interface" &&
	expect ifmtu 65520 "MTU of the interface" &&
	expect route "$RIG_GW4" "default route"
}

# ping_gw() - test: ping a gateway
# $1: result name (ping4, ping6)
ping_gw() {
	vm_result "$1" 30 || return 1
	rig_log "ping: $VM_RESULT"
}

# slaac() - test: an address in the host's prefix, a default route
slaac() {
	local addr via

	vm_result slaac 30 || return 1
	addr=$(vm_word 1)
	via=$(vm_field via)
	rig_log "SLAAC: $VM_RESULT"
	[[ $addr == "${RIG_ADDR6%::*}:"*/64 ]] ||
		rig_fail "address $addr not in ${RIG_ADDR6%::*}::/64" ||
		return 1
	[[ $via == fe80::* ]] ||
		rig_fail "default route via '$via', expected a link-local" \
			 "router address"
}

# transfer_result() - wait for a transfer's result; if it takes long, show
# the host's sockets while the guest's side still exists
# $1: result name
transfer_result() {
	vm_wait_line "RESULT $1 " $((LIMIT - 5)) >/dev/null && return 0
	vm_exited && return 0
	rig_log "no result '$1' after $((LIMIT - 5)) s"
	rig_sockets "$RIG_HOSTNS"
}

# download() - test: the guest received the host's file intact
# $1: result name
# $2: port of the host's server
download() {
	local sha

	transfer_result "$1"
	vm_result "$1" $((LIMIT + 30)) || return 1
	sha=$(rig_sha "$DATA")
	[ "$(vm_word 1)" = "$sha" ] ||
		rig_fail "sha256 mismatch: host sent ${sha:0:12}...," \
			 "guest got $(vm_word 1 | cut -c 1-12)..." \
			 "($(vm_word 2) bytes)" || return 1
	rig_log "guest got $(vm_word 2) bytes, sha256 ${sha:0:12}... ok"
	rig_wait_pid "${SERVER_PIDS[$2]}" 5 ||
		rig_fail "server on port $2 did not exit cleanly:" \
			 "$(tr '\n' ' ' <"$RIG_TMP/server.$2.err")"
}

# upload() - test: the host received the guest's file intact
# $1: result name
# $2: port of the host's receiver
# $3: file with the receiver's hash
upload() {
	local sha got

	transfer_result "$1"
	vm_result "$1" $((LIMIT + 30)) || return 1
	sha=$(rig_sha "$DATA")
	rig_wait_pid "${SERVER_PIDS[$2]}" 10 ||
		rig_fail "receiver on port $2 did not finish" || return 1
	got=$(cat "$3")
	[ "$got" = "$sha" ] ||
		rig_fail "sha256 mismatch: guest sent" \
			 "$(vm_word 1 | cut -c 1-12)..., host got" \
			 "${got:0:12}... (expected ${sha:0:12}...)" || return 1
	rig_log "host got sha256 ${got:0:12}... ok"
}

# forwarded() - test: host -> guest through the -t port
forwarded() {
	local sha got start ms

	vm_result fwd_ready 60 || return 1
	sha=$(vm_word 1)
	start=$(rig_now_ms)
	got=$(rig_h timeout -k 5 "$LIMIT" \
		socat -u "TCP4:127.0.0.1:$FWD,connect-timeout=5" STDOUT \
		2>"$RIG_TMP/fwd.err" | sha256sum | cut -d' ' -f1)
	ms=$(( $(rig_now_ms) - start ))
	[ "$got" != "$(sha256sum </dev/null | cut -d' ' -f1)" ] ||
		rig_fail "the host received nothing from the guest through" \
			 "port $FWD: $(tr '\n' ' ' <"$RIG_TMP/fwd.err")" ||
		return 1
	[ "$got" = "$sha" ] ||
		rig_fail "sha256 mismatch: guest served ${sha:0:12}...," \
			 "host got ${got:0:12}...:" \
			 "$(tr '\n' ' ' <"$RIG_TMP/fwd.err")" || return 1
	[ "$ms" -gt 0 ] || ms=1
	rig_log "$(vm_word 2) bytes in $(rig_secs "$ms") s, sha256 ok"
	vm_result fwd 20
}

# forwarded_fd() - test: forwarded(), after which the guest powers off: from
# then on, passt (one-off) may exit with QEMU, which finish_fd() checks
forwarded_fd() {
	FD_RELAY_PID=$RIG_RELAY_PID
	forwarded
	local rc=$?

	RIG_RELAY_PID=
	return "$rc"
}

# finish() - test: the guest powers off, QEMU exits 0
finish() {
	vm_end 30
}

# listen_again() - test: after QEMU went, passt (not one-off) serves its
# socket again: a new front-end connects, and its leaving is noticed too
listen_again() {
	rig_poll 5 passt_log_has "Guest connection closed" ||
		rig_fail "passt did not notice QEMU leaving" || return 1
	rig_h socat -u /dev/null "UNIX-CONNECT:$SOCK" ||
		rig_fail "can't connect to $SOCK again" || return 1
	# shellcheck disable=SC2016 # expanded by eval, at every poll
	rig_poll 5 eval '[ "$(grep -c "Guest connection closed" \
		"$RIG_RELAY_LOG")" -ge 2 ]' ||
		rig_fail "passt did not serve a second front-end:" \
			 "$(tail -n 3 "$RIG_RELAY_LOG" | tr '\n' ' ')"
}

# finish_fd() - test: the guest powers off, QEMU exits 0, and passt (one-off
# with --fd) exits by itself
finish_fd() {
	local pid=${FD_RELAY_PID:-$RIG_RELAY_PID}

	vm_end 30 || return 1
	rig_poll 5 eval "! kill -0 $pid 2>/dev/null" ||
		rig_fail "passt (pid $pid) still running 5 s after QEMU" \
			 "exited" || return 1
	passt_log_has "exiting (one-off)" ||
		rig_fail "passt exited without saying why:" \
			 "$(tail -n 3 "$RIG_RELAY_LOG" | tr '\n' ' ')" ||
		return 1
	RIG_RELAY_PID=
}

# checks() - the guest's checks, once it is up
# $1: prefix of the test names
# $2: function for the last check (forwarded or forwarded_fd)
checks() {
	rig_run "$1: DHCP lease: host's address, prefix, gateway, MTU" dhcp
	rig_run "$1: ping IPv4 gateway" ping_gw ping4
	rig_run "$1: SLAAC address and default route" slaac
	rig_run "$1: ping IPv6 gateway" ping_gw ping6
	rig_run "$1: TCP IPv4 host -> guest, $SIZE, sha256" \
		download down4 "$PORT_DOWN4"
	rig_run "$1: TCP IPv4 guest -> host, $SIZE, sha256" \
		upload up4 "$PORT_UP4" "$RIG_TMP/up4.sha"
	rig_run "$1: TCP IPv6 host -> guest, $SIZE, sha256" \
		download down6 "$PORT_DOWN6"
	rig_run "$1: TCP IPv6 guest -> host, $SIZE, sha256" \
		upload up6 "$PORT_UP6" "$RIG_TMP/up6.sha"
	rig_run "$1: forwarded port (-t $FWD) host -> guest, sha256" "$2"
}

N="passt vhost-user VM"
rig_run "$N: guest image (Debian kernel, busybox initramfs)" image
[ -n "$VM_KERNEL" ] || rig_summary

# Round 1: a socket path
rig_run "$N: passt --vhost-user serves its socket" relay_up
if [ -n "$RIG_RELAY_PID" ]; then
	rig_run "$N: host servers listen" servers
	rig_run "$N: QEMU boots, vhost-user handshake, virtio-net up" boot
	if [ -n "$VM_PID" ]; then
		checks "$N" forwarded
		rig_run "$N: guest powers off, QEMU exits" finish
		rig_run "$N: passt serves its socket again (no --one-off)" \
			listen_again
	fi
	rig_run "$N: passt exits on SIGTERM" rig_relay_stop_check
fi
[ "$RIG_FAILED" -eq 0 ] || vm_console_tail 40

# Round 2: --fd, one end of a socket pair, as QEMU 10.1 starts passt
F="$N (--fd)"
failed_before=$RIG_FAILED
rig_run "$F: host servers listen" servers
rig_run "$F: passt --vhost-user --fd $FD_RELAY, QEMU on the other end" \
	boot_fd
if [ -n "$VM_PID" ]; then
	checks "$F" forwarded_fd
	rig_run "$F: guest powers off, QEMU and passt (one-off) exit" \
		finish_fd
fi
[ "$RIG_FAILED" -eq "$failed_before" ] || vm_console_tail 40
rig_summary
