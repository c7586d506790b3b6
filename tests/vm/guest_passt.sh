#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=dash disable=SC2154 # busybox ash; lease variables
#
# tests/vm/guest_passt.sh - the guest's side of tests/integration/passt_qemu.sh
#
# Theory of operation: packed as /test.sh into the guest's initramfs and run
# by its /init once the virtio-net driver is loaded. The host wrote the
# rig's parameters to /etc/vmtest.conf (VT_* variables, see below). Each
# step prints one "RESULT" line (tests/vm/guest_lib.sh); the host compares
# what it expects with what the guest saw. A step that fails does not stop
# the others unless they need what it was to set up (the network).
#
# Steps: DHCP (the lease must carry the host's address, prefix, gateway and
# MTU, and the interface is configured with it), ping to the IPv4 gateway,
# SLAAC from passt's router advertisements, ping to the IPv6 gateway, then
# over TCP: download a file the host serves (IPv4), upload it back, the
# same over IPv6, optionally (VT_TSO_MTU) the virtio features and the same
# transfers at a small MTU, and serve the file on a port passt forwards
# from the host (-t): "RESULT fwd_ready" tells the host when to connect.
#
# /etc/vmtest.conf:
#   VT_GW4, VT_GW6	gateway addresses (reach the host's loopback)
#   VT_PREFIX6		expected IPv6 prefix, e.g. 2001:db8::
#   VT_PORT_DOWN4, VT_PORT_UP4, VT_PORT_DOWN6, VT_PORT_UP6
#			host ports: a server sending the file, a receiver
#   VT_FWD		port passt forwards from the host to the guest
#   VT_LIMIT		seconds allowed for each transfer
#   VT_TSO_MTU		optional (passt_vhost_user.sh): report the virtio
#			features, then download and upload again at this MTU
#   VT_PORT_TSO_DOWN4, VT_PORT_TSO_UP4, VT_PORT_TSO_DOWN6, VT_PORT_TSO_UP6
#			host ports for those transfers

# shellcheck source=tests/vm/guest_lib.sh
. /lib/vmtest.sh
# shellcheck disable=SC1091 # written by the host
. /etc/vmtest.conf

DATA=/tmp/data.bin

# slaac_addr() - print the interface's global, autoconfigured IPv6 address
slaac_addr() {
	ip -6 -o addr show dev "$IF" scope global 2>/dev/null |
		grep -v tentative | awk '{ print $4 }' | head -n 1
}

# slaac_ready() - a usable global address and a default route
# shellcheck disable=SC2317 # called through vt_poll
slaac_ready() {
	[ -n "$(slaac_addr)" ] && ip -6 route show default | grep -q via
}

IF=$(vt_iface)
if [ -z "$IF" ]; then
	vt_result link fail "no network interface: virtio-net missing?"
	exit 1
fi
ip link set lo up
if ! ip link set "$IF" up; then
	vt_result link fail "can't bring $IF up"
	exit 1
fi
vt_result link ok "$IF $(cat "/sys/class/net/$IF/address")"

# DHCP: udhcpc configures the interface through /etc/udhcpc.sh
start=$(vt_ms)
if vt_dhcp "$IF"; then
	# shellcheck disable=SC1091 # written by /etc/udhcpc.sh
	. /tmp/lease
	vt_log "DHCP took $(( $(vt_ms) - start )) ms:" \
	       "$(tr '\n' ' ' </tmp/udhcpc.log)"
	vt_log "configured: $(ip -4 -o addr show dev "$IF" | awk '{ print $4 }')" \
	       "mtu $(cat "/sys/class/net/$IF/mtu")," \
	       "$(ip -4 route show default)"
	vt_result dhcp ok "ip=$ip mask=$mask router=$router mtu=$mtu" \
		  "serverid=$serverid ifmtu=$(cat "/sys/class/net/$IF/mtu")" \
		  "ifaddr=$(ip -4 -o addr show dev "$IF" | awk '{ print $4 }')" \
		  "route=$(ip -4 route show default | awk '{ print $3 }')" \
		  "dns=$(echo "$dns" | tr ' ' ',')"
else
	vt_result dhcp fail "no lease: $(tail -n 3 /tmp/udhcpc.log |
					 tr '\n' ' ')"
fi

# ping -> passt's ICMP echo through ping sockets on the host
if ping -c 2 -W 5 "$VT_GW4" >/tmp/ping.log 2>&1; then
	vt_result ping4 ok "$(grep -E 'transmitted|round-trip' /tmp/ping.log |
			      tr '\n' ' ')"
else
	vt_result ping4 fail "$(tr '\n' ' ' </tmp/ping.log)"
fi

# SLAAC: the kernel solicits a router when the link comes up
if vt_poll 15 slaac_ready; then
	vt_result slaac ok "$(slaac_addr)" \
		  "via=$(ip -6 route show default | awk '{ print $3 }')" \
		  "prefix=$VT_PREFIX6"
else
	vt_result slaac fail "no global address and default route after" \
		  "15 s: $(ip -6 -o addr show dev "$IF" | awk '{ print $4 }' |
			   tr '\n' ' ') routes: $(ip -6 route | tr '\n' ' ')"
fi

if ping -6 -c 2 -W 5 "$VT_GW6" >/tmp/ping6.log 2>&1; then
	vt_result ping6 ok "$(grep -E 'transmitted|round-trip' /tmp/ping6.log |
			      tr '\n' ' ')"
else
	vt_result ping6 fail "$(tr '\n' ' ' </tmp/ping6.log)"
fi

# TCP both ways, IPv4 then IPv6; the upload sends what was downloaded
if vt_fetch down4 "$VT_GW4" "$VT_PORT_DOWN4" "$DATA" "$VT_LIMIT"; then
	vt_send up4 "$VT_GW4" "$VT_PORT_UP4" "$DATA" "$VT_LIMIT"
else
	vt_result up4 fail "nothing to send: the download failed"
fi

if vt_fetch down6 "$VT_GW6" "$VT_PORT_DOWN6" /tmp/data6.bin "$VT_LIMIT"
then
	vt_send up6 "$VT_GW6" "$VT_PORT_UP6" /tmp/data6.bin "$VT_LIMIT"
	[ -s "$DATA" ] || mv /tmp/data6.bin "$DATA"
else
	vt_result up6 fail "nothing to send: the download failed"
fi
rm -f /tmp/data6.bin

# vt_tso_round() - download a file, send it back (sha256 checked by both)
# $1: IP version, for the result names
# $2: gateway address
# $3: port to download from
# $4: port to send to
vt_tso_round() {
	if vt_fetch "tso_down$1" "$2" "$3" /tmp/tso.bin "$VT_LIMIT"; then
		vt_send "tso_up$1" "$2" "$4" /tmp/tso.bin "$VT_LIMIT"
	else
		vt_result "tso_up$1" fail "nothing to send: the download failed"
	fi
	rm -f /tmp/tso.bin
}

# Offloads (set by passt_vhost_user.sh): the virtio features the driver
# negotiated, then TCP at a small MTU, where segmentation offloads turn
# into TSO super-frames both ways; the MTU is restored after
if [ -n "$VT_TSO_MTU" ]; then
	vt_result features ok \
		  "$(cat "/sys/class/net/$IF/device/features" 2>/dev/null)"
	mtu0=$(cat "/sys/class/net/$IF/mtu")
	if ip link set "$IF" mtu "$VT_TSO_MTU"; then
		vt_log "MTU $(cat "/sys/class/net/$IF/mtu") for the TSO" \
		       "transfers"
		vt_tso_round 4 "$VT_GW4" "$VT_PORT_TSO_DOWN4" \
			     "$VT_PORT_TSO_UP4"
		vt_tso_round 6 "$VT_GW6" "$VT_PORT_TSO_DOWN6" \
			     "$VT_PORT_TSO_UP6"
		ip link set "$IF" mtu "$mtu0"
	else
		for r in tso_down4 tso_up4 tso_down6 tso_up6; do
			vt_result "$r" fail "can't set MTU $VT_TSO_MTU on $IF"
		done
	fi
fi

# A port forwarded by passt from the host: serve the file once
[ -s "$DATA" ] || head -c 1048576 /dev/urandom >"$DATA"
timeout $((VT_LIMIT + 15)) nc -l -p "$VT_FWD" <"$DATA" >/dev/null \
	2>/tmp/ncl.err &
ncl=$!
if vt_poll 5 vt_listening "$VT_FWD"; then
	vt_result fwd_ready ok "$(vt_sha "$DATA") $(vt_size "$DATA")"
	if wait "$ncl"; then
		vt_result fwd ok "$(vt_sha "$DATA") $(vt_size "$DATA")"
	else
		vt_result fwd fail "nc -l -p $VT_FWD: no connection or it" \
			  "failed: $(tr '\n' ' ' </tmp/ncl.err)"
	fi
else
	kill "$ncl" 2>/dev/null
	vt_result fwd_ready fail "nc -l -p $VT_FWD did not listen"
fi

exit 0
