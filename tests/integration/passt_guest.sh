#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/passt_guest.sh - passt: guest configuration, capture
#
# Rig (tests/lib/rig.sh, tests/lib/passt.sh): passt in a host namespace of
# our own, capturing to a pcap file (-p); the guest is a namespace whose
# tap device tap_bridge connects to passt's socket. Checked:
#   - DHCP: busybox udhcpc in the guest gets the host's address, prefix
#     length, gateway and MTU (the client script only records what it got:
#     ip netns exec shares the host's /etc, it must not touch resolv.conf);
#   - SLAAC: with router advertisements accepted, the guest configures an
#     address in the host's prefix and a default route through passt;
#   - TCP both ways with the addresses DHCP gave (5 MiB, sha256);
#   - the capture: tshark reads it with no malformed frame, it has frames
#     both ways, and DHCP, ARP, ICMPv6 and TCP in it.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"

LIMIT=60
FWD=10001
SIZE=5M

rig_init
passt_init
rig_need busybox || exit 1		# udhcpc
rig_host_ns || exit 1
rig_target_ns || exit 1

DATA=$RIG_TMP/data.bin
rig_random_file "$DATA" "$SIZE" || exit 1
SOCK=$RIG_TMP/passt.socket
PCAP=$RIG_TMP/capture.pcap
LEASE=$RIG_TMP/lease.env

# need_tshark() - install tshark if missing (unless NO_APT), check for it
need_tshark() {
	command -v tshark >/dev/null 2>&1 && return 0
	rig_log "installing tshark"
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections 2>/dev/null
	apt_install "$RIG_TMP/apt.log" tshark
	command -v tshark >/dev/null 2>&1 ||
		rig_fail "tshark not installed (apt-get install tshark):" \
			 "$(tail -n 1 "$RIG_TMP/apt.log" 2>/dev/null)"
}

# relay_up() - test: passt with a capture file, a guest connects
relay_up() {
	passt_start fg "$SOCK" -t "$FWD" -p "$PCAP" || return 1
	passt_guest_start "$RIG_NS" || return 1
	ip -n "$RIG_NS" link set "$PASST_TAP" up || return 1
	rig_poll 5 passt_log_has "Accepted guest connection" ||
		rig_fail "guest not accepted" || return 1
	passt_log_has "Saving packet capture to $PCAP" ||
		rig_fail "passt did not announce the capture"
}

# lease_var() - a variable of the lease
# $1: name
lease_var() {
	passt_lease_var "$LEASE" "$1"
}

# dhcp() - test: busybox udhcpc gets the host's configuration
dhcp() {
	local got

	passt_dhcp "$RIG_NS" "$LEASE" || return 1
	got=$(lease_var ip)
	[ "$got" = "$RIG_ADDR4" ] ||
		rig_fail "address $got, expected $RIG_ADDR4" || return 1
	got=$(lease_var subnet)
	[ "$got" = 255.255.255.0 ] || [ "$(lease_var mask)" = 24 ] ||
		rig_fail "netmask $got, expected 255.255.255.0" || return 1
	got=$(lease_var router)
	[ "$got" = "$RIG_GW4" ] ||
		rig_fail "router $got, expected $RIG_GW4" || return 1
	got=$(lease_var mtu)
	[ "$got" = "$PASST_MTU" ] ||
		rig_fail "MTU $got, expected $PASST_MTU" || return 1

	# Apply it as a DHCP client would, for the traffic test
	passt_lease_apply "$RIG_NS" "$LEASE"
}

# slaac_addr() - print the guest's global IPv6 addresses from autoconf
slaac_addr() {
	ip -n "$RIG_NS" -6 -o addr show dev "$PASST_TAP" scope global \
		dynamic 2>/dev/null | awk '{ print $4 }'
}

# slaac_ready() - a dynamic address in 2001:db8::/64 and a default route
slaac_ready() {
	slaac_addr | grep -q '^2001:db8::[0-9a-f:]*/64$' &&
		ip -n "$RIG_NS" -6 route show default | grep -q 'via fe80::'
}

# slaac() - test: router advertisements configure the guest
slaac() {
	rig_g sysctl -qw "net.ipv6.conf.$PASST_TAP.accept_ra=1" || return 1
	# Toggle the link: router solicitation now that RAs are accepted
	ip -n "$RIG_NS" link set "$PASST_TAP" down &&
	ip -n "$RIG_NS" link set "$PASST_TAP" up || return 1
	rig_poll 10 slaac_ready ||
		rig_fail "no SLAAC address or default route after 10 s:" \
			 "$(rig_addrs "$RIG_NS")" \
			 "$(ip -n "$RIG_NS" -6 route | tr '\n' ' ')" || return 1
	rig_log "SLAAC: $(slaac_addr | tr '\n' ' ')"
}

# traffic() - test: TCP both ways with the DHCP and SLAAC configuration
traffic() {
	rig_transfer "$RIG_NS" "TCP4:$RIG_GW4:7001" \
		"$RIG_HOSTNS" "TCP4-LISTEN:7001,bind=127.0.0.1" \
		"$DATA" "$LIMIT" || return 1
	rig_transfer "$RIG_NS" "TCP6:[$RIG_GW6]:7001" \
		"$RIG_HOSTNS" "TCP6-LISTEN:7001,bind=[::1]" \
		"$DATA" "$LIMIT" || return 1
	rig_transfer "$RIG_HOSTNS" "TCP4:$RIG_ADDR4:$FWD" \
		"$RIG_NS" "TCP4-LISTEN:$FWD" "$DATA" "$LIMIT"
}

# capture() - test: tshark reads the capture, nothing malformed
capture() {
	local bad n shown

	need_tshark || return 1
	[ -s "$PCAP" ] || rig_fail "capture file empty or missing" || return 1

	bad=$(tshark -r "$PCAP" -Y _ws.malformed 2>"$RIG_TMP/tshark.err") ||
		rig_fail "tshark can't read the capture:" \
			 "$(head -n 2 "$RIG_TMP/tshark.err" | tr '\n' ' ')" ||
		return 1
	[ -z "$bad" ] ||
		rig_fail "malformed frames: $(head -n 3 <<<"$bad" |
					      tr '\n' ' ')" || return 1

	n=$(tshark -r "$PCAP" 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] || rig_fail "no frames in the capture" || return 1
	rig_log "$n frames captured"

	for f in dhcp arp icmpv6 "tcp && ip.src == $RIG_GW4" \
		 "tcp && ip.dst == $RIG_GW4" "tcp && ipv6.dst == $RIG_GW6"; do
		shown=$(tshark -r "$PCAP" -Y "$f" 2>/dev/null | head -n 1)
		[ -n "$shown" ] ||
			rig_fail "no frame matching '$f' in the capture" ||
			return 1
	done
}

rig_run "passt: capture file, guest connects" relay_up
if [ -z "$RIG_RELAY_PID" ] || [ -z "$PASST_BRIDGE_PID" ]; then
	rig_summary
fi
rig_run "passt: DHCP lease (busybox udhcpc)" dhcp
rig_run "passt: SLAAC address and default route" slaac
rig_run "passt: TCP with the DHCP/SLAAC configuration" traffic
rig_run "passt exits on SIGTERM" rig_relay_stop_check
rig_run "passt: capture readable by tshark, nothing malformed" capture
rig_summary
