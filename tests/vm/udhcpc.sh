#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=dash disable=SC2154 # busybox ash; lease from udhcpc
#
# tests/vm/udhcpc.sh - busybox udhcpc event script of the test guest
#
# Theory of operation: udhcpc runs this script (as /etc/udhcpc.sh in the
# guest's initramfs) with the event as $1 and the lease in the environment.
# On a lease, it configures the interface as a distribution's client would:
# MTU, address and prefix length, default route, resolv.conf (this runs in
# the VM, not on the host), and records the lease in /tmp/lease as shell
# assignments for the test.

# prefix_of() - prefix length of a dotted netmask
# $1: netmask, e.g. 255.255.255.0
prefix_of() {
	local n=0 octet

	for octet in $(echo "$1" | tr '.' ' '); do
		case $octet in
		255) n=$((n + 8)) ;;
		254) n=$((n + 7)) ;;
		252) n=$((n + 6)) ;;
		248) n=$((n + 5)) ;;
		240) n=$((n + 4)) ;;
		224) n=$((n + 3)) ;;
		192) n=$((n + 2)) ;;
		128) n=$((n + 1)) ;;
		esac
	done
	echo "$n"
}

case $1 in
deconfig)
	ip -4 addr flush dev "$interface"
	ip link set dev "$interface" up
	;;
bound|renew)
	[ -n "$mtu" ] && ip link set dev "$interface" mtu "$mtu"
	[ -n "$mask" ] || mask=$(prefix_of "$subnet")
	ip -4 addr flush dev "$interface"
	ip addr add "$ip/$mask" dev "$interface"
	ip -4 route del default 2>/dev/null
	for r in $router; do
		ip route add default via "$r" dev "$interface" && break
	done
	: >/etc/resolv.conf
	for d in $dns; do
		echo "nameserver $d" >>/etc/resolv.conf
	done
	for v in ip mask subnet router mtu serverid lease dns domain; do
		eval "echo \"$v='\$$v'\""
	done >/tmp/lease
	;;
esac
exit 0
