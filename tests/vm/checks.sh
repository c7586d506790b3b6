# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# tests/vm/checks.sh - the guest checks of passt_qemu.sh and
# passt_vhost_user.sh: the host side of tests/vm/guest_passt.sh
#
# Sourced after tests/lib/rig.sh, tests/lib/passt.sh and tests/vm/host.sh.
# vmc_init() finds passt, makes the host namespace, the data to transfer
# and the guest's configuration; the scripts then start passt and QEMU
# their own way (stream socket, vhost-user, --fd) and run vmc_checks(),
# the checks every guest passes:
#   - DHCP: the host's address, prefix length, gateway and MTU 65520;
#   - ping to the gateway, IPv4 and IPv6;
#   - SLAAC address in the host's prefix, default route via a link-local
#     router;
#   - TCP, IPv4 and IPv6: SIZE host -> guest and guest -> host, sha256
#     compared on both sides (with RIG_KEEP, what the host received stays
#     in RIG_TMP and a mismatch says where the data first differs);
#   - a port forwarded with -t FWD: SIZE from a server in the guest,
#     sha256.

SIZE=20M
LIMIT=40		# seconds for each transfer
FWD=10001
PORT_DOWN4=7001
PORT_UP4=7002
PORT_DOWN6=7003
PORT_UP6=7004
SERVER_PIDS=()

# vmc_init() - passt binary, host namespace, data, guest configuration
# Sets PASST, DATA, SOCK, CONF; exits the script if something is missing.
vmc_init() {
	passt_find
	rig_log "passt: $PASST"
	rig_host_ns || exit 1

	DATA=$RIG_TMP/data.bin
	rig_random_file "$DATA" "$SIZE" || exit 1
	# shellcheck disable=SC2034 # used by the scripts
	SOCK=$RIG_TMP/passt.socket
	CONF=$RIG_TMP/vmtest.conf

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
}

# image() - test: build the guest (downloads the kernel on the first run)
image() {
	vm_image "$RIG_ROOT/tests/vm/guest_passt.sh" -f "$CONF:/etc/vmtest.conf"
}

# ping_sockets() - allow passt's ping sockets in the host namespace
ping_sockets() {
	rig_sysctl_set net.ipv4.ping_group_range "0 2147483647" \
		"$RIG_HOSTNS" || rig_fail "can't set ping_group_range"
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

# recv_file() - start a one-shot receiver hashing what it gets; with
# RIG_KEEP, it also keeps the data (NAME.bin) to compare with $DATA
# $1: socat listen address
# $2: name: the hash goes to NAME.sha
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

# first_diff() - with RIG_KEEP, where received data first differs from $DATA
# $1: name of the received file (RIG_TMP/NAME.bin)
first_diff() {
	local f=$RIG_TMP/$1.bin

	[ -s "$f" ] || return 0
	echo "($(stat -c %s "$f") bytes received;" \
	     "$(cmp "$DATA" "$f" 2>&1 | head -n 1))"
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
			 "${got:0:12}... (expected ${sha:0:12}...)" \
			 "$(first_diff "$(basename "$3" .sha)")" || return 1
	rig_log "host got sha256 ${got:0:12}... ok"
}

# forwarded() - test: host -> guest through the -t port
forwarded() {
	local sha got start ms keep=/dev/null

	vm_result fwd_ready 60 || return 1
	sha=$(vm_word 1)
	start=$(rig_now_ms)
	[ -n "$RIG_KEEP" ] && keep=$RIG_TMP/fwd.bin
	got=$(rig_h timeout -k 5 "$LIMIT" \
		socat -u "TCP4:127.0.0.1:$FWD,connect-timeout=5" STDOUT \
		2>"$RIG_TMP/fwd.err" | tee "$keep" | sha256sum | cut -d' ' -f1)
	ms=$(( $(rig_now_ms) - start ))
	[ "$got" != "$(sha256sum </dev/null | cut -d' ' -f1)" ] ||
		rig_fail "the host received nothing from the guest through" \
			 "port $FWD: $(tr '\n' ' ' <"$RIG_TMP/fwd.err")" ||
		return 1
	[ "$got" = "$sha" ] ||
		rig_fail "sha256 mismatch: guest served ${sha:0:12}...," \
			 "host got ${got:0:12}... $(first_diff fwd):" \
			 "$(tr '\n' ' ' <"$RIG_TMP/fwd.err")" || return 1
	[ "$ms" -gt 0 ] || ms=1
	rig_log "$(vm_word 2) bytes in $(rig_secs "$ms") s, sha256 ok"
	vm_result fwd 20
}

# finish() - test: the guest powers off, QEMU exits 0
finish() {
	vm_end 30
}

# vmc_checks() - the guest's checks, once it is up
# $1: prefix of the test names
# $2: function for the last check (forwarded or forwarded_fd)
# VMC_EXTRA, if set: a function running more checks (given the prefix)
# before the last one
vmc_checks() {
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
	[ -z "$VMC_EXTRA" ] || "$VMC_EXTRA" "$1"
	rig_run "$1: forwarded port (-t $FWD) host -> guest, sha256" "$2"
}
