#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=dash # busybox ash
#
# tests/vm/guest_migrate.sh - the guest's side of
# tests/interop/qemu_migrate.sh: TCP streams both ways across a live
# migration
#
# Theory of operation: packed as /test.sh into the guest's initramfs; the
# host wrote the parameters to /etc/vmtest.conf and the files to upload to
# /up4.bin and /up6.bin. The guest starts on the source QEMU and, while
# its connections stream, moves to the target: its console goes on in the
# target's output, so the host reads "RESULT" lines from both
# (tests/vm/guest_lib.sh).
#
# Steps:
#   net		DHCP, a global IPv6 address (SLAAC), routes to the peer
#		via the gateway
#   streams	every connection open: a control connection (the peer
#		sends "go" on it once the migration is over), an upload of
#		/up4.bin and /up6.bin, a download over IPv4 and one over
#		IPv6. The uploads send their first half, then wait for
#		"go"; the peer's senders do the same on their side, so that
#		no connection ends before the migration, however the links
#		share
#   up4, up6, down4, down6	each connection's end: nc's exit status
#		(0: the peer read everything, or sent everything and closed;
#		busybox nc says 0 after a reset too), what the downloads
#		received (size), and when it ended (uptime)
#   back4, back6	the downloaded files sent back on new connections,
#		for the host to compare with what it sent (sha256 there)
#   rst		the guest's count of connections reset while established
#		(EstabResets of /proc/net/snmp)
#
# /etc/vmtest.conf:
#   VT_GW4		gateway address (IPv4)
#   VT_PEER4, VT_PEER6	the peer's addresses
#   VT_PORT_CTRL	control connection (IPv4)
#   VT_PORT_UP4, VT_PORT_UP6	the peer's receivers
#   VT_PORT_DOWN4, VT_PORT_DOWN6	the peer's senders
#   VT_PORT_BACK4, VT_PORT_BACK6	receivers of the downloads, sent back
#   VT_LIMIT		seconds each step may take

# shellcheck source=tests/vm/guest_lib.sh
. /lib/vmtest.sh
# shellcheck disable=SC1091 # written by the host
. /etc/vmtest.conf

GATE=/tmp/gate

# global6() - print the interface's global IPv6 address, if usable
global6() {
	ip -6 -o addr show dev "$IF" scope global 2>/dev/null |
		grep -v tentative | awk '{ print $4 }' | head -n 1
}

# v6_ready() - a usable global address and a default route
# shellcheck disable=SC2317 # called through vt_poll
v6_ready() {
	[ -n "$(global6)" ] && ip -6 route show default | grep -q via
}

# gate_open() - has the control connection delivered "go"?
# shellcheck disable=SC2317 # called through vt_poll
gate_open() {
	grep -q go "$GATE" 2>/dev/null
}

# upload() - send a file's first half, wait for the gate, send the rest
# $1: file
# $2: address
# $3: port
# $4: status file
upload() {
	local half=$(( $(vt_size "$1") / 2 ))

	{
		head -c "$half" "$1"
		vt_poll "$VT_LIMIT" gate_open
		tail -c +$((half + 1)) "$1"
	} | timeout "$((VT_LIMIT * 2))" nc "$2" "$3" >/dev/null 2>"$4.err"
	echo "$? $(vt_ms)" >"$4"
}

# download() - receive a file
# $1: file
# $2: address
# $3: port
# $4: status file
download() {
	timeout "$((VT_LIMIT * 2))" nc "$2" "$3" </dev/null >"$1" 2>"$4.err"
	echo "$? $(vt_ms)" >"$4"
}

# report() - one result for a finished connection
# $1: result name
# $2: status file
# $3: received file, if any
report() {
	local rc at

	read -r rc at <"$2" 2>/dev/null
	if [ "$rc" = 0 ]; then
		vt_result "$1" ok "${3:+$(vt_size "$3") bytes,} ended at $at ms"
	else
		vt_result "$1" fail "nc exited with status ${rc:-?}:" \
			  "$(tr '\n' ' ' <"$2.err" 2>/dev/null)" \
			  "${3:+after $(vt_size "$3") bytes}"
	fi
}

# send_back() - test: send a downloaded file back (the host hashes it)
# $1: result name
# $2: address
# $3: port
# $4: file
send_back() {
	if vt_nc "$VT_LIMIT" "$4" /dev/null "$2" "$3"; then
		vt_result "$1" ok "$(vt_size "$4") bytes at $(vt_ms) ms"
	else
		vt_result "$1" fail "nc $2 $3: $(tr '\n' ' ' </tmp/nc.err)"
	fi
}

# done_all() - have all four streams ended?
# shellcheck disable=SC2317 # called through vt_poll
done_all() {
	[ -f /tmp/up4.rc ] && [ -f /tmp/up6.rc ] && [ -f /tmp/down4.rc ] &&
		[ -f /tmp/down6.rc ]
}

IF=$(vt_iface)
ip link set lo up
# The relay is the only other node on the link: no duplicate to detect
[ -n "$IF" ] && echo 0 >"/proc/sys/net/ipv6/conf/$IF/accept_dad"
if [ -z "$IF" ] || ! ip link set "$IF" up; then
	vt_result net fail "no network interface"
	exit 1
fi
if ! vt_dhcp "$IF"; then
	vt_result net fail "no DHCP lease: $(tail -n 3 /tmp/udhcpc.log |
					     tr '\n' ' ')"
	exit 1
fi
if ! vt_poll 15 v6_ready; then
	vt_result net fail "no global IPv6 address and default route"
	exit 1
fi
gw6=$(ip -6 route show default | awk '{ print $3; exit }')
if ! ip route add "$VT_PEER4/32" via "$VT_GW4" ||
   ! ip -6 route add "$VT_PEER6/128" via "$gw6" dev "$IF"; then
	vt_result net fail "can't route to the peer"
	exit 1
fi
vt_result net ok "$(ip -4 -o addr show dev "$IF" | awk '{ print $4 }')" \
	  "$(global6) at $(vt_ms) ms"

timeout "$((VT_LIMIT * 2))" nc "$VT_PEER4" "$VT_PORT_CTRL" </dev/null \
	>"$GATE" 2>/tmp/gate.err &
upload /up4.bin "$VT_PEER4" "$VT_PORT_UP4" /tmp/up4.rc &
upload /up6.bin "$VT_PEER6" "$VT_PORT_UP6" /tmp/up6.rc &
download /tmp/down4.bin "$VT_PEER4" "$VT_PORT_DOWN4" /tmp/down4.rc &
download /tmp/down6.bin "$VT_PEER6" "$VT_PORT_DOWN6" /tmp/down6.rc &
vt_result streams ok "started at $(vt_ms) ms"

if ! vt_poll "$((VT_LIMIT * 2))" done_all; then
	vt_log "streams still running after $((VT_LIMIT * 2)) s:"
	netstat -tn 2>&1 | sed 's/^/#   /'
fi
vt_log "streams done at $(vt_ms) ms"
report up4 /tmp/up4.rc
report up6 /tmp/up6.rc
report down4 /tmp/down4.rc /tmp/down4.bin
report down6 /tmp/down6.rc /tmp/down6.bin

send_back back4 "$VT_PEER4" "$VT_PORT_BACK4" /tmp/down4.bin
send_back back6 "$VT_PEER6" "$VT_PORT_BACK6" /tmp/down6.bin

vt_result rst ok "$(awk '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++)
			 if ($i == "EstabResets") c = i; h = 1 }
			 else print $c }' /proc/net/snmp)"
exit 0
