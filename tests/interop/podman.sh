#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/interop/podman.sh - podman 5 (Debian 13) with this relay's pasta
#
# Rig (tests/lib/rig.sh, tests/interop/lib/trixie.sh and podman.sh): the
# rig's host namespace (192.0.2.2/24, 2001:db8::2/64 on veth0, gateways .1
# and ::1), and in it a session in the Debian 13 root where podman 5.4
# runs, its helper_binaries_dir naming this relay's pasta first. The
# container image is built from the root's own Debian packages and
# imported, never pulled. Every case runs twice: podman rootless (an
# unprivileged user with a subordinate range of 65536 IDs), and as root of
# a user namespace (podman nested in a container). Checked each time:
#   - default options: the pasta podman starts is this relay (the inode
#     behind /proc/PID/exe), and it exits once the container is removed;
#   - default options: the container's links, global addresses and
#     routes, once router advertisements had 2 s to arrive, are what
#     podman gives with Debian 13's own pasta (the control), and hold the
#     host's addresses, gateways and MTU 65520;
#   - -p TCP and UDP: from the host's loopback and from its address, IPv4
#     and IPv6, a file to a server in the container and one from it,
#     sha256-checked (TCP: 8 MiB, the whole stream; UDP: 64 KiB in 8 KiB
#     datagrams, each one's hash, in any order: UDP may reorder, and
#     Debian's pasta does);
#   - --net=pasta:-6 and --net=pasta:-4: the container has no global
#     address of the other family, and a forwarded port of the one left
#     works both ways, over loopback and the host's address;
#   - -t %veth0/PORT and -u %veth0/PORT (interface-bound forwarding),
#     and ADDR%veth0/PORT for both families: the host's address reaches
#     the container through veth0's binding, both ways;
#   - --net=pasta:-t,auto: a port the container listens on is forwarded
#     within 5 s, both ways, both families;
#   - --net=pasta:--map-gw: the gateway addresses reach the host's
#     loopback, both families, both ways;
#   - host.containers.internal: /etc/hosts names it, and it reaches a
#     server on the host's address, both ways;
#   - DNS: a resolver on the host namespace's loopback (127.0.0.53 in the
#     root's resolv.conf) answers the container over UDP and TCP through
#     podman's --dns-forward address, which is its resolv.conf's first.
#
# Environment: PM_PASTA=debian runs every case against Debian 13's pasta
# (/usr/bin/pasta of the root) instead, to check the test itself;
# INTEROP_ROOT, see tests/interop/lib/trixie.sh; see also tests/lib/rig.sh.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/interop/lib/trixie.sh
. "$(dirname "$0")/lib/trixie.sh"
# shellcheck source=tests/interop/lib/podman.sh
. "$(dirname "$0")/lib/podman.sh"

IMG=$TRIXIE_IMAGE
TCP_SIZE=8M
UDP_SIZE=64K
SETTLE=2		# seconds for router advertisements before a snapshot
LIMIT=30		# seconds for one transfer
DGRAM=8192		# bytes in each UDP datagram of a transfer
CT_SEQ=0
PORTS_READY=

rig_init
rig_host_ns || exit 1
PM_PASTA=${PM_PASTA:-relay}
pm_init "$RIG_TMP/trixie.log" || exit 1
TCP_FILE=$PM_SHARE/tcp.bin
UDP_FILE=$PM_SHARE/udp.bin
rig_random_file "$TCP_FILE" "$TCP_SIZE" &&
	rig_random_file "$UDP_FILE" "$UDP_SIZE" &&
	cp "$TOOLS_DIR/dns_stub" "$PM_SHARE/" &&
	chmod 644 "$TCP_FILE" "$UDP_FILE" && chmod 755 "$PM_SHARE/dns_stub" ||
	exit 1
rig_log "pasta under test: $PM_PASTA"

# sock_addr() - socat address for a client
# $1: tcp or udp
# $2: IPv4 or IPv6 address
# $3: port
sock_addr() {
	local p=${1^^}

	case $2 in
	*:*) echo "${p}6:[$2]:$3" ;;
	*)   echo "${p}4:$2:$3" ;;
	esac
}

# got_count() - how many lines a container's sink printed for a port:
# hashes of connections (TCP) or of datagrams (UDP)
# $1: container
# $2: port in the container
got_count() {
	pm_logs "$1" | grep -c "^GOT $2 "
}

# got_enough() - did the sink print at least N lines for a port?
# $1: container
# $2: port
# $3: N
got_enough() {
	[ "$(got_count "$1" "$2")" -ge "$3" ]
}

# chunk_sums() - the SHA-256 of every datagram that sends a file: every
# DGRAM bytes of it (socat reads a regular file that much at a time), one
# a line, sorted
# $1: file
chunk_sums() {
	local d

	if [ ! -s "$1.chunks" ]; then
		d=$(mktemp -d "$RIG_TMP/chunks.XXXXXX")
		split -b "$DGRAM" -a 4 "$1" "$d/c."
		sha256sum "$d"/c.* | cut -d' ' -f1 | sort >"$1.chunks"
		rm -rf "$d"
	fi
	cat "$1.chunks"
}

# same_datagrams() - test step: the datagrams that came are the file's,
# each once, in any order (UDP may reorder them: so does Debian's pasta)
# $1: sorted hashes of what came, one a line
# $2: file
# $3: what and where, for the message
same_datagrams() {
	local want missing

	want=$(chunk_sums "$2")
	[ "$1" = "$want" ] && return 0
	missing=$(comm -23 <(echo "$want") <(echo "$1") | grep -c .)
	rig_fail "$3: $(grep -c . <<<"$1") datagrams came for" \
		 "$(grep -c . <<<"$want") sent, $missing of these missing or" \
		 "altered"
}

# udp_back() - wait until a container's UDP source listens again (it
# serves one peer at a time, lib/container.sh)
# $1: container
# $2: port in the container
udp_back() {
	pm podman exec "$1" sh /share/container.sh listen udp "$2" ||
		rig_fail "UDP port $2 in the container not listening again"
}

# send_to() - a file from the host to a container's sink, sha256-checked
# (UDP: each datagram's)
# $1: container
# $2: tcp or udp
# $3: address the host connects to
# $4: host port
# $5: the sink's port in the container
# $6: file
send_to() {
	local ct=$1 proto=$2 addr=$3 hport=$4 cport=$5 file=$6 n want got
	local err=$RIG_TMP/send.err opt=,connect-timeout=5

	want=1
	[ "$proto" = udp ] && want=$(chunk_sums "$file" | grep -c .) opt=
	n=$(got_count "$ct" "$cport")
	rig_h timeout -k 5 "$LIMIT" socat -u -b "$DGRAM" "FILE:$file" \
		"$(sock_addr "$proto" "$addr" "$hport")$opt" 2>"$err" ||
		rig_fail "sending to $addr port $hport ($proto):" \
			 "$(tr '\n' ' ' <"$err")" || return 1
	rig_poll 10 got_enough "$ct" "$cport" $((n + want))
	got=$(pm_logs "$ct" | grep "^GOT $cport " | tail -n +$((n + 1)) |
	      cut -d' ' -f3 | sort)
	if [ "$proto" = udp ]; then
		same_datagrams "$got" "$file" \
			"host -> container, UDP from $addr"
		return
	fi
	[ -n "$got" ] ||
		rig_fail "the container's server got nothing from $addr" \
			 "port $hport (TCP) within 10 s" || return 1
	[ "$got" = "$(rig_sha "$file")" ] ||
		rig_fail "sha256 mismatch host -> container (TCP, $addr):" \
			 "sent $(rig_sha "$file" | cut -c 1-12)...," \
			 "received ${got:0:12}..."
}

# fetch_udp() - test step: a file from a container's UDP source: the host
# sends a datagram, the container answers with the file in datagrams (no
# end marker: socat 1.8 sends none), which the host reads one by one
# until it has as many bytes as the file, or 10 s went by
# $1: container
# $2: address the host sends to
# $3: host port
# $4: the source's port in the container
# $5: file the container sends
fetch_udp() {
	local d got

	udp_back "$1" "$4" || return 1
	d=$(mktemp -d "$RIG_TMP/dgrams.XXXXXX")
	# shellcheck disable=SC2016 # expanded by the inner bash
	rig_h timeout -k 5 10 bash -c '
		exec 3<>"/dev/udp/$0/$1" && printf go >&3 || exit 1
		i=0 n=0
		while [ "$n" -lt "$2" ]; do
			i=$((i + 1))
			dd bs=65536 count=1 <&3 >"$3/d.$i" 2>/dev/null ||
				exit 1
			n=$((n + $(stat -c %s "$3/d.$i")))
		done' "$2" "$3" "$(stat -c %s "$5")" "$d" \
		2>"$RIG_TMP/fetch.err"
	got=$(find "$d" -name 'd.*' -size +0 -exec sha256sum {} + |
	      cut -d' ' -f1 | sort)
	rm -rf "$d"
	same_datagrams "$got" "$5" "container -> host, UDP to $2 port $3"
}

# fetch_from() - a file from a container's source to the host, sha256
# (UDP: each datagram's, fetch_udp)
# $1: container
# $2: tcp or udp
# $3: address the host connects to
# $4: host port
# $5: the source's port in the container
# $6: file the container sends
fetch_from() {
	local ct=$1 proto=$2 addr=$3 hport=$4 cport=$5 file=$6 got
	local err=$RIG_TMP/fetch.err

	if [ "$proto" = udp ]; then
		fetch_udp "$ct" "$addr" "$hport" "$cport" "$file"
		return
	fi
	rm -f "$RIG_TMP/fetch.size"
	got=$(rig_h timeout -k 5 "$LIMIT" socat -u \
	      "$(sock_addr tcp "$addr" "$hport"),connect-timeout=5" \
	      STDOUT 2>"$err" | tee >(wc -c >"$RIG_TMP/fetch.size") |
	      sha256sum | cut -d' ' -f1)
	[ "$got" = "$(rig_sha "$file")" ] ||
		rig_fail "sha256 mismatch container -> host (TCP, $addr" \
			 "port $hport): expected" \
			 "$(rig_sha "$file" | cut -c 1-12)..., received" \
			 "${got:0:12}...$(fetch_size) $(tr '\n' ' ' <"$err")"
}

# fetch_size() - what fetch_from() received, in bytes, if it counted
fetch_size() {
	sleep 0.1	# wc, in the background, may still be writing
	[ -s "$RIG_TMP/fetch.size" ] &&
		echo " ($(cat "$RIG_TMP/fetch.size") bytes)"
}

# both_ways() - send_to the sink, then fetch_from the source (the next
# port)
# $1: container
# $2: tcp or udp
# $3: address
# $4: host port of the sink (the source's is the next one)
# $5: the sink's port in the container
both_ways() {
	local file=$TCP_FILE

	[ "$2" = udp ] && file=$UDP_FILE
	send_to "$1" "$2" "$3" "$4" "$5" "$file" &&
		fetch_from "$1" "$2" "$3" $(($4 + 1)) $(($5 + 1)) "$file"
}

# serve_cmd() - the container's command for servers of one or both
# protocols: sinks on PORT, sources on PORT + 1
# $1: tcp, udp or both
# $2: port
serve_cmd() {
	local s=/share/container.sh p=$2 c=

	case $1 in
	tcp|both) c="sh $s serve tcp $p $((p + 1)) /share/tcp.bin & " ;;
	esac
	case $1 in
	udp|both) c+="sh $s serve udp $p $((p + 1)) /share/udp.bin & " ;;
	esac
	echo "${c}wait"
}

# ready_count() - has a container printed READY at least N times?
# $1: container
# $2: N
ready_count() {
	[ "$(pm_logs "$1" | grep -c '^READY')" -ge "$2" ]
}

# ready_twice() - wait until a container printed READY twice (both
# protocols' servers listen)
# $1: container
ready_twice() {
	rig_poll 20 ready_count "$1" 2 ||
		rig_fail "container $1 not ready after 20 s:" \
			 "$(pm_logs "$1" | tail -n 5 | tr '\n' ' ')"
}

# --- the cases ---

# t_session() - test: a session with podman for a user, image imported
# $1: rootless or userns
t_session() {
	pm_start "$1"
}

# t_default_exe() - test: the pasta podman starts is ours; it exits with
# the container
t_default_exe() {
	local ct=def-exe pid

	pm_bg "$ct" "$IMG" sleep 600 || return 1
	pid=$(pm_pasta_pid "$ct") ||
		rig_fail "no pasta process for the container" || return 1
	rig_log "pasta pid $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
	if [ "$PM_PASTA" = relay ]; then
		pm_is_relay "$pid" ||
			rig_fail "podman started $(readlink "/proc/$pid/exe")," \
				 "not this relay ($PM_RELAY_BIN)" || return 1
	else
		! pm_is_relay "$pid" ||
			rig_fail "podman started this relay, not Debian's" ||
			return 1
	fi
	pm_rm "$ct"
	rig_poll 5 rig_exited "$pid" ||
		rig_fail "pasta (pid $pid) still runs 5 s after the container" \
			 "was removed"
}

# netconf() - a container's links, global addresses and routes, one a
# line, sorted, without what differs from run to run (MAC and link-local
# addresses)
# $1: podman run's output: four JSON documents of ip -j
netconf() {
	local j=$1

	jq -r 'select(type == "array") | .[] |
	       if .addr_info then
		 (select(.ifname != "lo") |
		  "link \(.ifname) mtu \(.mtu) \(.operstate)"),
		 (.addr_info[] | select(.scope == "global") |
		  "addr \(.family) \(.local)/\(.prefixlen)")
	       elif .dst then
		 select(.dst != "fe80::/64") |
		 "route \(.dst) via \(.gateway // "-") dev \(.dev // "-")" +
		 " proto \(.protocol // "boot") scope \(.scope // "-")" +
		 " src \(.prefsrc // "-")"
	       else empty end' <<<"$j" | sort
}

# t_default_conf() - test: the container's configuration is the host's,
# as with Debian 13's pasta
t_default_conf() {
	local cmd out mine theirs want def4

	cmd="sleep $SETTLE; ip -j addr show; ip -j -4 route show;"
	cmd+=" ip -j -6 route show"
	out=$(pm_run "$IMG" sh -c "$cmd") ||
		rig_fail "podman run failed: $(tail -n 3 <<<"$out")" || return 1
	mine=$(netconf "$out") ||
		rig_fail "can't read ip -j's output: $(head -c 300 <<<"$out")" ||
		return 1
	out=$(PM_PASTA=debian pm_run "$IMG" sh -c "$cmd") ||
		rig_fail "podman run with Debian's pasta failed:" \
			 "$(tail -n 3 <<<"$out")" || return 1
	theirs=$(netconf "$out") || rig_fail "can't read ip -j's output" ||
		return 1
	rig_log "container's configuration:"
	rig_indent <<<"$mine"
	def4="route default via $RIG_GW4 dev veth0 proto boot scope - src -"
	for want in "addr inet $RIG_ADDR4/24" "addr inet6 $RIG_ADDR6/64" \
		    "$def4" "link veth0 mtu 65520 UNKNOWN"; do
		grep -qxF "$want" <<<"$theirs" ||
			rig_fail "with Debian's pasta, no '$want': the rig" \
				 "is not what this test expects" || return 1
		grep -qxF "$want" <<<"$mine" ||
			rig_fail "no '$want' in the container" || return 1
	done
	grep -q "^route default via $RIG_GW6 dev veth0" <<<"$mine" ||
		rig_fail "no IPv6 default route via $RIG_GW6" || return 1
	[ "$mine" = "$theirs" ] && return 0
	rig_fail "differs from Debian 13's pasta (-: Debian's only," \
		 "+: this relay's only):" \
		 "$(diff <(echo "$theirs") <(echo "$mine") | grep '^[<>]' |
		    sed 's/^</-/; s/^>/+/' | tr '\n' ';')"
}

# t_ports_start() - test: a container with -p for TCP and UDP, sinks on
# 5000, sources on 5001, from host ports 15000 and 15001
t_ports_start() {
	PORTS_READY=
	rig_persist
	pm_bg ports -p 15000:5000/tcp -p 15001:5001/tcp -p 15000:5000/udp \
		-p 15001:5001/udp "$IMG" sh -c "$(serve_cmd both 5000)" &&
		ready_twice ports && PORTS_READY=1
}

# t_only() - test: --net=pasta:-4 or -6, the other family absent, a
# forwarded port of the family left works both ways
# $1: 4 or 6
t_only() {
	local fam=$1 ct=only$1 other=6 out loop=127.0.0.1 addr=$RIG_ADDR4

	[ "$fam" = 6 ] && other=4 loop=::1 addr=$RIG_ADDR6
	pm_bg "$ct" "--net=pasta:-$fam" -p 15010:5010 -p 15011:5011 "$IMG" \
		sh -c "$(serve_cmd tcp 5010)" || return 1
	pm_wait_ready "$ct" || return 1
	out=$(pm podman exec "$ct" ip -j "-$other" addr show scope global 2>&1)
	[ "$(jq -r '[.[].addr_info[]] | length' <<<"$out" 2>/dev/null)" = 0 ] ||
		rig_fail "IPv$other configured with -$fam: $out" || return 1
	both_ways "$ct" tcp "$loop" 15010 5010 &&
		both_ways "$ct" tcp "$addr" 15010 5010
}

# t_ifbound() - test: forwarding bound to the host's interface
# $1: tcp or udp
# $2: spec before /PORT: %veth0, or ADDR%veth0
# $3...: addresses the host connects to
t_ifbound() {
	local proto=$1 spec=$2 ct a f
	shift 2

	f=-t
	[ "$proto" = udp ] && f=-u
	CT_SEQ=$((CT_SEQ + 1))
	ct=ifb-$proto-$CT_SEQ
	pm_bg "$ct" "--net=pasta:$f,$spec/15020:5020,$f,$spec/15021:5021" \
		"$IMG" sh -c "$(serve_cmd "$proto" 5020)" || return 1
	pm_wait_ready "$ct" || return 1
	for a in "$@"; do
		both_ways "$ct" "$proto" "$a" 15020 5020 || return 1
	done
}

# listens_46() - does a TCP port listen in the host namespace, for IPv4 and
# IPv6 (two sockets, or one for both)?
# $1: port
listens_46() {
	local v6

	v6=$(rig_h ss -Hltn -6 "sport = :$1")
	[ -n "$v6" ] || return 1
	[[ $v6 == *" *:$1 "* ]] ||
		[ -n "$(rig_h ss -Hltn -4 "sport = :$1")" ]
}

# t_auto() - test: --net=pasta:-t,auto follows a port the container opens
t_auto() {
	local ct=auto

	pm_bg "$ct" --net=pasta:-t,auto "$IMG" sh -c "$(serve_cmd tcp 5030)" ||
		return 1
	pm_wait_ready "$ct" || return 1
	rig_poll 5 listens_46 5030 && rig_poll 5 listens_46 5031 ||
		rig_fail "ports 5030 and 5031 not forwarded for both families" \
			 "5 s after the container listened" || return 1
	both_ways "$ct" tcp 127.0.0.1 5030 5030 &&
		both_ways "$ct" tcp "$RIG_ADDR6" 5030 5030
}

# host_servers() - a sink and a source on the host namespace, TCP
# $1: address to bind (127.0.0.1, ::1, 0.0.0.0)
# $2: sink port (the source is on the next one)
# Sets HOST_SINK (prefix of the sink's .sha and .size files) and
# HOST_SINK_PID.
host_servers() {
	local l=TCP4-LISTEN

	[[ $1 == *:* ]] && l=TCP6-LISTEN
	HOST_SINK=$RIG_TMP/host_sink.$2
	ip netns exec "$RIG_HOSTNS" timeout -k 5 $((LIMIT + 10)) \
		bash -o pipefail -c "socat -u '$l:$2,bind=$1,reuseaddr' STDOUT |
			tee >(wc -c >'$HOST_SINK.size') | sha256sum |
			cut -d' ' -f1 >'$HOST_SINK.sha'" &
	HOST_SINK_PID=$!
	rig_defer "rig_kill $!"
	ip netns exec "$RIG_HOSTNS" timeout -k 5 $((LIMIT + 10)) \
		socat -u "FILE:$TCP_FILE" "$l:$(($2 + 1)),bind=$1,reuseaddr" \
		2>/dev/null &
	rig_defer "rig_kill $!"
	rig_wait_listen "$RIG_HOSTNS" "$2" &&
		rig_wait_listen "$RIG_HOSTNS" $(($2 + 1))
}

# ct_client() - in a new container: send the file to ADDR:PORT, fetch
# one from ADDR:PORT+1, print "SENT" and "FETCHED SHA" lines
# $1: podman's --net value (or "" for the default)
# $2: address (name or IPv4 or IPv6)
# $3: port
ct_client() {
	local net=() a=$2 p=$3 c4=TCP

	[ -n "$1" ] && net=("--net=$1")
	[[ $a == *:* ]] && a="[$a]" c4=TCP6
	# Not -u: socat waits for the host to close, so that the data is
	# there before the container, and its socket, go away
	pm_run "${net[@]}" "$IMG" sh -c "
		socat -t 30 - $c4:$a:$p,connect-timeout=5 \
			</share/tcp.bin >/dev/null &&
		echo SENT &&
		socat -u $c4:$a:$((p + 1)),connect-timeout=5 STDOUT |
			sha256sum | sed 's/^/FETCHED /'"
}

# client_check() - test step: a container's client against host servers
# $1: podman's --net value (or "")
# $2: address the container connects to
# $3: address the host's servers bind
# $4: sink port
client_check() {
	local out sha

	sha=$(rig_sha "$TCP_FILE")
	host_servers "$3" "$4" || return 1
	out=$(ct_client "$1" "$2" "$4")
	grep -q '^SENT' <<<"$out" ||
		rig_fail "the container could not send to $2 port $4:" \
			 "$(tail -n 3 <<<"$out" | tr '\n' ' ')" || return 1
	rig_wait_pid "$HOST_SINK_PID" 10 ||
		rig_fail "the host's receiver did not finish" || return 1
	[ "$(cat "$HOST_SINK.sha")" = "$sha" ] ||
		rig_fail "sha256 mismatch container -> host ($2):" \
			 "$(cat "$HOST_SINK.size") of" \
			 "$(stat -c %s "$TCP_FILE") bytes" || return 1
	grep -q "^FETCHED $sha " <<<"$out" ||
		rig_fail "sha256 mismatch host -> container ($2):" \
			 "$(tail -n 3 <<<"$out" | tr '\n' ' ')"
}

# t_map_gw() - test: --net=pasta:--map-gw: the gateways reach the host's
# loopback
t_map_gw() {
	client_check pasta:--map-gw "$RIG_GW4" 127.0.0.1 5040 &&
		client_check pasta:--map-gw "$RIG_GW6" ::1 5042
}

# t_hci() - test: host.containers.internal, default options
t_hci() {
	local out

	out=$(pm_run "$IMG" grep host.containers.internal /etc/hosts)
	[ -n "$out" ] ||
		rig_fail "no host.containers.internal in /etc/hosts" || return 1
	rig_log "/etc/hosts: $out"
	client_check "" host.containers.internal 0.0.0.0 5050
}

# t_dns() - test: a resolver on the host's loopback answers the container
t_dns() {
	local out count=$RIG_TMP/dns.count first

	ip netns exec "$RIG_HOSTNS" "$TOOLS_DIR/dns_stub" server \
		-b 127.0.0.53 -p 53 -A 198.51.100.7 -c "$count" \
		>"$RIG_TMP/dns.log" 2>&1 &
	rig_defer "rig_kill $!"
	rig_poll 5 rig_listening "$RIG_HOSTNS" 53 ||
		rig_fail "the host's resolver did not start" || return 1
	# shellcheck disable=SC2016 # expanded in the container
	out=$(pm_run "$IMG" sh -c '
		head -n 1 /etc/resolv.conf
		for p in "" -t; do
			/share/dns_stub query -s "$(awk "/^nameserver/ {
				print \$2; exit }" /etc/resolv.conf)" -p 53 \
				-n test.example $p -w 5 2>&1 ||
				echo "query $p failed"
		done')
	rig_log "container: $(tr '\n' ' ' <<<"$out")"
	first=$(head -n 1 <<<"$out")
	[ "$first" = "nameserver 169.254.1.1" ] ||
		rig_fail "resolv.conf starts with '$first', not podman's" \
			 "--dns-forward address" || return 1
	[ "$(grep -c '^198\.51\.100\.7$' <<<"$out")" = 2 ] ||
		rig_fail "no answer over UDP and TCP:" \
			 "$(tr '\n' ' ' <<<"$out")" || return 1
	[ "$(cat "$count" 2>/dev/null)" -ge 2 ] ||
		rig_fail "the host's resolver counted" \
			 "$(cat "$count" 2>/dev/null) queries, not 2"
}

# mode_cases() - every case for one podman user
# $1: rootless or userns
mode_cases() {
	local m=$1 p a proto

	rig_run "$m: podman session, image imported" t_session "$m"
	[ -n "$TRIXIE_SESSION" ] || return 0
	RIG_NAME_PREFIX="$m: "
	rig_run "default options: pasta is $PM_PASTA's, exits after" \
		t_default_exe
	rig_run "default options: configuration as Debian 13's pasta's" \
		t_default_conf
	rig_run "-p TCP and UDP: container listens" t_ports_start
	if [ -n "$PORTS_READY" ]; then
		for proto in tcp udp; do
			for a in 127.0.0.1 "$RIG_ADDR4" ::1 "$RIG_ADDR6"; do
				p=${proto^^}
				rig_run "-p $p, $a: both ways, sha256" \
					both_ways ports "$proto" "$a" 15000 5000
			done
		done
	fi
	rig_run "--net=pasta:-6: no IPv4, IPv6 forwarding both ways" t_only 6
	rig_run "--net=pasta:-4: no IPv6, IPv4 forwarding both ways" t_only 4
	for proto in tcp udp; do
		p=-t
		[ "$proto" = udp ] && p=-u
		rig_run "$p %veth0/PORT: IPv4 and IPv6 both ways" \
			t_ifbound "$proto" %veth0 "$RIG_ADDR4" "$RIG_ADDR6"
		rig_run "$p $RIG_ADDR4%veth0/PORT: both ways" \
			t_ifbound "$proto" "$RIG_ADDR4%veth0" "$RIG_ADDR4"
		rig_run "$p $RIG_ADDR6%veth0/PORT: both ways" \
			t_ifbound "$proto" "$RIG_ADDR6%veth0" "$RIG_ADDR6"
	done
	rig_run "--net=pasta:-t,auto: a new listening port forwarded" t_auto
	rig_run "--net=pasta:--map-gw: gateways reach the host's loopback" \
		t_map_gw
	rig_run "host.containers.internal reaches the host" t_hci
	rig_run "DNS: resolver on the host's 127.0.0.53, UDP and TCP" t_dns
	RIG_NAME_PREFIX=
	pm_stop
}

mode_cases rootless
mode_cases userns
rig_summary
