#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=dash
#
# tests/interop/lib/container.sh - servers inside the podman tests'
# containers (copied to /share, run with sh /share/container.sh)
#
# Usage:
#   container.sh serve PROTO SINK SOURCE FILE
#	PROTO tcp or udp. On port SINK, what every connection (TCP) or
#	datagram (UDP) brings is hashed, and "GOT SINK SHA256" printed on
#	stderr; on port SOURCE, every connection (TCP) or peer sending a
#	datagram (UDP) gets FILE (UDP: in datagrams of 8 KiB, socat reading
#	the file that much at a time). Both families: IPv6 sockets that
#	take IPv4 too. Prints READY once both ports listen and no IPv6
#	address is tentative any more (so that the link-local address the
#	relay may use for the host's traffic works), then runs until killed.
#   container.sh sink PORT
#	Hash what comes on stdin, print it (socat runs it for each
#	connection or datagram).
#   container.sh listen PROTO PORT...
#	Wait (up to 10 s) until the ports listen; 1 if they never do.
#
# Theory of operation: the container's own tools (socat, iproute2's ss,
# sha256sum) do the work; the test on the host reads the lines from
# podman logs and compares the hashes with its own. The TCP servers fork
# a child per connection; the source's waits (-t 30) for the peer to
# close once it has sent the file, so that it never closes first. UDP
# datagrams may come in any order, so the UDP sink hashes each one by
# itself (a child per datagram). The UDP source serves one peer: a loop
# starts it again, and the test waits (listen) before each transfer until
# it is back; a peer that stops for 5 s is done with (-T).

# listening() - does a port listen?
# $1: tcp or udp
# $2: port
listening() {
	[ -n "$(ss -Hln "--$1" "sport = :$2" 2>/dev/null)" ]
}

# wait_listen() - wait up to 10 s for ports to listen
# $1: tcp or udp
# $2...: ports
wait_listen() {
	local proto=$1 p i

	shift
	for p in "$@"; do
		i=0
		until listening "$proto" "$p"; do
			i=$((i + 1))
			[ $i -gt 100 ] && return 1
			sleep 0.1
		done
	done
	return 0
}

# no_tentative() - no IPv6 address waits for duplicate address detection
no_tentative() {
	[ -z "$(ip -6 addr show tentative 2>/dev/null)" ]
}

# udp_source() - UDP source, one peer at a time, forever
# $1: port
# $2: file
udp_source() {
	while :; do
		socat -T 5 -U -b 8192 "UDP6-LISTEN:$1,ipv6only=0,reuseaddr" \
			"OPEN:$2,rdonly"
	done
}

case $1 in
serve)
	proto=$2 sink=$3 source=$4 file=$5
	if [ "$proto" = tcp ]; then
		socat "TCP6-LISTEN:$sink,ipv6only=0,reuseaddr,fork" \
			"SYSTEM:sh /share/container.sh sink $sink" &
		socat -t 30 "TCP6-LISTEN:$source,ipv6only=0,reuseaddr,fork" \
			"SYSTEM:cat $file" &
	else
		socat -u -b 65536 \
			"UDP6-RECVFROM:$sink,ipv6only=0,reuseaddr,fork" \
			"SYSTEM:sh /share/container.sh sink $sink" &
		udp_source "$source" "$file" &
	fi
	if ! wait_listen "$proto" "$sink" "$source"; then
		echo "NOT LISTENING $proto $sink $source"
		exit 1
	fi
	i=0
	until no_tentative; do
		i=$((i + 1))
		[ $i -gt 50 ] && break
		sleep 0.1
	done
	echo READY
	wait
	;;
sink)
	sum=$(sha256sum | cut -d' ' -f1)
	echo "GOT $2 $sum" >&2
	;;
listen)
	proto=$2
	shift 2
	wait_listen "$proto" "$@"
	;;
*)
	echo "container.sh: serve, sink or listen" >&2
	exit 1
	;;
esac
