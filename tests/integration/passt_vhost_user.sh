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
#   - offloads: the guest's virtio-net driver negotiated CSUM, GUEST_CSUM,
#     GUEST_TSO4/6 and HOST_TSO4/6 (its /sys/class/net/IF/device/features)
#     and passt logged them as on; then at MTU 1500 in the guest (so that
#     both kernels' TCP segments are smaller than a 64 KiB frame): TCP,
#     IPv4 and IPv6, 20 MiB host -> guest and guest -> host, sha256;
#   - a port forwarded with -t: 20 MiB from a server in the guest, sha256;
#   - the guest powers off, QEMU exits 0;
#   - passt's count of offloaded frames for the connection: partial
#     checksums from the guest, TSO super-frames both ways, none refused,
#     frames written in place in the guest's receive buffers, and no frame
#     dropped either way;
#   - round 1: passt serves the socket again; round 2: passt exits.
# Round 3: as round 1, but the guest's device has the offloads switched off
# (QEMU's csum, guest_csum, guest_tso4/6, host_tso4/6 properties): the
# guest must not have them, passt must say so and count no offloaded
# frame, and the same transfers (at MTU 1500 too) must pass.
# Round 4: as round 1, with mrg_rxbuf=off: offloads on, but every frame to
# the guest must fit one descriptor chain (num_buffers 1).
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
# shellcheck source=tests/vm/checks.sh
. "$(dirname "$0")/../vm/checks.sh"

FD_RELAY=3		# passt's end of the pair (QEMU 10.1 uses 3)
FD_PEER=4		# QEMU's end, with VU_FD_PAIR
FD_RELAY_PID=
TSO_MTU=1500		# guest MTU for the transfers with TSO super-frames
VU_OFFLOADS=on		# what the guest negotiates in this round
VU_MRG=on		# and whether with mergeable receive buffers
# virtio-net-pci properties of a guest that takes no offloads (round 3)
NO_OFFLOADS=csum=off,guest_csum=off,guest_tso4=off,guest_tso6=off
NO_OFFLOADS+=,host_tso4=off,host_tso6=off
PORT_TSO_DOWN4=7005
PORT_TSO_UP4=7006
PORT_TSO_DOWN6=7007
PORT_TSO_UP6=7008

rig_init
vmc_init
rig_need python3 || exit 1		# tests/vm/fd_pair
cat >>"$CONF" <<EOF
VT_TSO_MTU=$TSO_MTU
VT_PORT_TSO_DOWN4=$PORT_TSO_DOWN4
VT_PORT_TSO_UP4=$PORT_TSO_UP4
VT_PORT_TSO_DOWN6=$PORT_TSO_DOWN6
VT_PORT_TSO_UP6=$PORT_TSO_UP6
EOF

# servers_all() - test: the servers of vmc_checks(), and the ones for the
# transfers at MTU $TSO_MTU
servers_all() {
	servers || return 1
	rm -f "$RIG_TMP/tso_up4.sha" "$RIG_TMP/tso_up6.sha"
	serve_file "TCP4-LISTEN:$PORT_TSO_DOWN4,bind=127.0.0.1"
	serve_file "TCP6-LISTEN:$PORT_TSO_DOWN6,bind=[::1]"
	recv_file "TCP4-LISTEN:$PORT_TSO_UP4,bind=127.0.0.1" tso_up4
	recv_file "TCP6-LISTEN:$PORT_TSO_UP6,bind=[::1]" tso_up6
	for p in $PORT_TSO_DOWN4 $PORT_TSO_UP4 $PORT_TSO_DOWN6 $PORT_TSO_UP6
	do
		rig_wait_listen "$RIG_HOSTNS" "$p" || return 1
	done
}

# guest_features() - test: the guest's driver negotiated the offloads, or
# none of them with VU_OFFLOADS=off (bit N of the virtio features is
# character N of the sysfs file), and passt says so
guest_features() {
	local bits b want=1 wrong=
	local all="0:CSUM 1:GUEST_CSUM 7:GUEST_TSO4 8:GUEST_TSO6 11:HOST_TSO4
		   12:HOST_TSO6"
	local log="offloads to the guest: checksum, TSO4, TSO6; from the guest:"
	log+=" checksum on, TSO4 on, TSO6 on"

	if [ "$VU_OFFLOADS" = off ]; then
		want=0
		log="offloads to the guest: none (plain frames); from the"
		log+=" guest: checksum off, TSO4 off, TSO6 off"
	fi
	vm_result features 30 || return 1
	bits=$(vm_word 1)
	rig_log "guest's virtio features: ${bits:-none}"
	for b in $all; do
		[ "${bits:${b%%:*}:1}" = "$want" ] || wrong="$wrong ${b#*:}"
	done
	[ -z "$wrong" ] ||
		rig_fail "the guest's driver negotiated offloads" \
			 "$VU_OFFLOADS, but not:$wrong" || return 1
	passt_log_has "$log" ||
		rig_fail "passt does not report the offloads $VU_OFFLOADS:" \
			 "$(grep -F 'offloads to the guest' "$RIG_RELAY_LOG" |
			    tail -n 1)"
}

# offload_checks() - the checks of offloads, run by vmc_checks()
# $1: prefix of the test names
offload_checks() {
	local m="at MTU $TSO_MTU, $SIZE, sha256"

	[ "$VU_OFFLOADS" = on ] && m="at MTU $TSO_MTU (TSO), $SIZE, sha256"
	rig_run "$1: checksum and TSO offloads negotiated: $VU_OFFLOADS" \
		guest_features
	rig_run "$1: TCP IPv4 host -> guest $m" \
		download tso_down4 "$PORT_TSO_DOWN4"
	rig_run "$1: TCP IPv4 guest -> host $m" \
		upload tso_up4 "$PORT_TSO_UP4" "$RIG_TMP/tso_up4.sha"
	rig_run "$1: TCP IPv6 host -> guest $m" \
		download tso_down6 "$PORT_TSO_DOWN6"
	rig_run "$1: TCP IPv6 guest -> host $m" \
		upload tso_up6 "$PORT_TSO_UP6" "$RIG_TMP/tso_up6.sha"
}
# shellcheck disable=SC2034 # read by vmc_checks()
VMC_EXTRA=offload_checks

# offload_counts() - test: once QEMU is gone, passt's count of offloaded
# frames for its connection: partial checksums from the guest, TSO
# super-frames both ways, none refused, and with mergeable receive buffers
# frames written in the guest's buffers in place; with VU_OFFLOADS=off,
# none at all; and no frame dropped either way (too long for the guest's
# buffers, or not as negotiated)
offload_counts() {
	local line n re

	! passt_log_has "vhost-user: dropping a frame" ||
		rig_fail "passt dropped frames:" \
			 "$(grep -m 2 -F "dropping a frame" "$RIG_RELAY_LOG" |
			    tr '\n' ' ')" || return 1

	rig_poll 5 passt_log_has "vhost-user: offloaded frames" ||
		rig_fail "passt did not log its offloaded frames" || return 1
	line=$(grep -m 1 -F "vhost-user: offloaded frames" "$RIG_RELAY_LOG")
	rig_log "${line#*vhost-user: }"
	re='from the guest ([0-9]+) with a partial checksum, ([0-9]+) TSO, '
	re+='([0-9]+) refused; to the guest ([0-9]+) with a partial '
	re+='checksum, ([0-9]+) TSO, ([0-9]+) written in place'
	[[ $line =~ $re ]] ||
		rig_fail "can't read the counts in: $line" || return 1
	if [ "$VU_OFFLOADS" = off ]; then
		[ "${BASH_REMATCH[*]:1}" = "0 0 0 0 0 0" ] ||
			rig_fail "offloaded frames without offloads"
		return
	fi
	for n in 1 2 4 5; do
		[ "${BASH_REMATCH[$n]}" -gt 0 ] ||
			rig_fail "some offload never happened" || return 1
	done
	[ "${BASH_REMATCH[3]}" -eq 0 ] || rig_fail "passt refused frames" ||
		return 1
	# Mergeable buffers: TCP data is read into the guest's buffers
	[ "$VU_MRG" = off ] || [ "${BASH_REMATCH[6]}" -gt 0 ] ||
		rig_fail "no frame was written in the guest's buffers"
}

# relay_up() - test: passt --vhost-user listens on its socket
relay_up() {
	rig_persist
	ping_sockets || return 1
	# shellcheck disable=SC2086 # options split into words
	passt_start fg "$SOCK" --vhost-user -t "$FWD" $PASST_OPTS
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

# forwarded_fd() - test: forwarded(), after which the guest powers off: from
# then on, passt (one-off) may exit with QEMU, which finish_fd() checks
forwarded_fd() {
	FD_RELAY_PID=$RIG_RELAY_PID
	forwarded
	local rc=$?

	RIG_RELAY_PID=
	return "$rc"
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

N="passt vhost-user VM"
rig_run "$N: guest image (Debian kernel, busybox initramfs)" image
[ -n "$VM_KERNEL" ] || rig_summary

# Round 1: a socket path
rig_run "$N: passt --vhost-user serves its socket" relay_up
if [ -n "$RIG_RELAY_PID" ]; then
	rig_run "$N: host servers listen" servers_all
	rig_run "$N: QEMU boots, vhost-user handshake, virtio-net up" boot
	if [ -n "$VM_PID" ]; then
		vmc_checks "$N" forwarded
		rig_run "$N: guest powers off, QEMU exits" finish
		rig_run "$N: offloaded frames: checksums, TSO both ways" \
			offload_counts
		rig_run "$N: passt serves its socket again (no --one-off)" \
			listen_again
	fi
	rig_run "$N: passt exits on SIGTERM" rig_relay_stop_check
fi
[ "$RIG_FAILED" -eq 0 ] || vm_console_tail 40

# Round 2: --fd, one end of a socket pair, as QEMU 10.1 starts passt
F="$N (--fd)"
failed_before=$RIG_FAILED
rig_run "$F: host servers listen" servers_all
rig_run "$F: passt --vhost-user --fd $FD_RELAY, QEMU on the other end" \
	boot_fd
if [ -n "$VM_PID" ]; then
	vmc_checks "$F" forwarded_fd
	rig_run "$F: guest powers off, QEMU and passt (one-off) exit" \
		finish_fd
	rig_run "$F: offloaded frames: checksums, TSO both ways" \
		offload_counts
fi
[ "$RIG_FAILED" -eq "$failed_before" ] || vm_console_tail 40

# round_dev() - a round on a socket path with other device properties
# $1: prefix of the test names
# $2: virtio-net-pci properties (VM_DEV_OPTS)
# $3: offloads the guest takes with them: on or off (VU_OFFLOADS)
# $4: mergeable receive buffers: on or off (VU_MRG)
round_dev() {
	local failed_before=$RIG_FAILED

	VU_OFFLOADS=$3
	VU_MRG=$4
	rig_run "$1: passt --vhost-user serves its socket" relay_up
	[ -n "$RIG_RELAY_PID" ] || return
	rig_run "$1: host servers listen" servers_all
	VM_DEV_OPTS=$2 \
		rig_run "$1: QEMU boots, vhost-user handshake, virtio-net up" \
			boot
	if [ -n "$VM_PID" ]; then
		vmc_checks "$1" forwarded
		rig_run "$1: guest powers off, QEMU exits" finish
		rig_run "$1: offloaded frames ($3)" offload_counts
	fi
	rig_run "$1: passt exits on SIGTERM" rig_relay_stop_check
	[ "$RIG_FAILED" -eq "$failed_before" ] || vm_console_tail 40
}

# Round 3: a guest that takes no offloads (QEMU's device properties): plain
# frames both ways, as before offloads existed
round_dev "$N (no offloads)" "$NO_OFFLOADS" off on

# Round 4: offloads without mergeable receive buffers: the guest posts one
# big chain per frame (its "big packets"), each 64 KiB frame fits one
round_dev "$N (offloads, no MRG_RXBUF)" mrg_rxbuf=off on off
rig_summary
