#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/integration/upstream_conf.sh - command-line behaviour that must be
# upstream's: settings of a disabled address family, ADDR%IFACE/PORT,
# passt's --no-splice, and what reaches the terminal (default level, -d,
# -q, -l)
#
# Rig (tests/lib/rig.sh): the relays run in a host namespace of our own
# (veth0: 192.0.2.2/24, 2001:db8::2/64). Most cases run pasta with a
# command of its own ("pasta --config-net OPTIONS -- true": its exit
# status is the command's once set-up worked, else 1), or pasta joining
# the rig's namespace, or passt on a socket. With tests/run --upstream
# PATH, every case also runs on upstream's binaries, and the two must
# agree (exit status, and what the test says about the output).
#
#   -4/-6: the address options of the other family (-a, -n, -g, -o, -D,
#     --dns-forward, --dns-host, --map-host-loopback, --map-guest-addr,
#     --outbound-if4/6) are accepted and ignored without a message
#     (podman's "--net=pasta:-6" passes --dns-forward 169.254.1.1 and
#     --map-guest-addr 169.254.1.2); with podman's whole command line and
#     -6, the namespace gets IPv6 only, and 1 MiB crosses a forwarded port
#     (sha256);
#   -4/-6: a forwarding rule that only the disabled family could serve is
#     refused, by both, ours naming the rule;
#   ADDR%IFACE/PORT: every shape of the man page (both families, ranges,
#     exclusions, mappings, target addresses, -u too) is accepted, and the
#     listening socket is bound to the address and the interface;
#   passt --no-splice: accepted (and ignored), --splice-only refused;
#   logging: pasta running a command prints no configuration summary
#     unless -d (stdout is the command's, stderr empty); pasta joining a
#     namespace and passt print it at the default level, not with -q;
#     with -l, the file has the messages, stderr lines carry no time
#     prefix; a start-up failure with -l still says why on stderr, and the
#     exit status is 1.

# shellcheck source=tests/lib/rig.sh disable=SC2317 # tests run via rig_run
. "$(dirname "$0")/../lib/rig.sh"
# shellcheck source=tests/lib/passt.sh
. "$(dirname "$0")/../lib/passt.sh"
# shellcheck source=tests/lib/upstream.sh
. "$(dirname "$0")/../lib/upstream.sh"

PORT=10401

rig_init
passt_find
rig_host_ns || exit 1

UP_PASTA=$(rig_upstream pasta)
UP_PASST=$(rig_upstream passt)
OUT=$RIG_TMP/out
ERR=$RIG_TMP/err

# spawn() - run pasta with a command of its own in the host namespace
# $1: pasta binary
# $2...: options; the command is "true" unless CMD is set
# Return: pasta's exit status; stdout in $OUT, stderr in $ERR
spawn() {
	local bin=$1
	shift

	rig_h timeout 20 "$bin" --runas 0 --config-net "$@" -- \
		sh -c "${CMD:-true}" >"$OUT" 2>"$ERR"
}

# both_spawn() - run a case on our pasta and upstream's, expect an outcome
# $1: "ok" (status 0, and for ours nothing on stderr) or "fail" (non-zero)
# $2...: options
both_spawn() {
	local want=$1 rc
	shift

	spawn "$RELAY" "$@"
	rc=$?
	if [ "$want" = ok ]; then
		[ "$rc" -eq 0 ] ||
			rig_fail "'$*': status $rc: $(head -c 300 "$ERR")" ||
			return 1
		[ ! -s "$ERR" ] ||
			rig_fail "'$*': a message: $(head -c 300 "$ERR")" ||
			return 1
	else
		[ "$rc" -ne 0 ] || rig_fail "'$*' was accepted" || return 1
	fi

	[ -n "$UP_PASTA" ] || return 0
	spawn "$UP_PASTA" "$@"
	rc=$?
	if [ "$want" = ok ]; then
		[ "$rc" -eq 0 ] ||
			rig_fail "upstream: '$*': status $rc:" \
				 "$(head -c 300 "$ERR")" || return 1
	else
		[ "$rc" -ne 0 ] ||
			rig_fail "upstream accepts '$*'" || return 1
	fi
}

# family_ignored() - test: -4/-6 with settings of the other family
family_ignored() {
	local c
	local cases=(
		"-6 --dns-forward 169.254.1.1 --map-guest-addr 169.254.1.2"
		"-4 --dns-forward 2001:db8::53 --map-guest-addr 2001:db8::99"
		"-6 -a 192.0.2.9 -n 24 -g 192.0.2.1 -o 192.0.2.2"
		"-6 -D 192.0.2.53 --dns-host 192.0.2.54"
		"-6 --map-host-loopback 169.254.1.3 --outbound-if6 veth0"
		"-4 -a 2001:db8::9/64 -g 2001:db8::1 -o 2001:db8::2"
		"-4 -D 2001:db8::53 --dns-host 2001:db8::54"
		"-4 --map-host-loopback 2001:db8::3 --outbound-if4 veth0"
		"--dns-forward 169.254.1.1 -6 -t $PORT"
		"-a 2001:db8::9 -D 2001:db8::53 -4 -u $PORT"
	)

	for c in "${cases[@]}"; do
		# shellcheck disable=SC2086 # options, split on purpose
		both_spawn ok -q $c || return 1
	done
}

# podman_v6() - test: podman's options with -6, on ours and upstream's
podman_v6() {
	local bin data=$RIG_TMP/data.bin

	rig_random_file "$data" 1M || return 1
	for bin in "$RELAY" $UP_PASTA; do
		# podman 5.4's command line, "--net=pasta:-6" and a port
		upstream_relay_start "$bin" --config-net -6 \
			-t "$PORT-$PORT:$PORT-$PORT" -u none -T none -U none \
			--dns-forward 169.254.1.1 --no-map-gw --quiet \
			--map-guest-addr 169.254.1.2 || return 1
		rig_poll 5 rig_has_addr "$NS" "$RIG_ADDR6" ||
			rig_fail "$bin: no $RIG_ADDR6 in the namespace:" \
				 "$(rig_addrs "$NS")" || return 1
		! ip -n "$NS" -4 addr show scope global | grep -q inet ||
			rig_fail "$bin: IPv4 in the namespace with -6:" \
				 "$(rig_addrs "$NS")" || return 1
		rig_transfer "$RIG_HOSTNS" "TCP6:[$RIG_ADDR6]:$PORT" \
			"$NS" "TCP6-LISTEN:$PORT" "$data" 20 || return 1
		rig_kill "$(cat "$UPSTREAM_PIDF")"
	done
}

# family_rules() - test: rules that only a disabled family could serve
family_rules() {
	local c
	local cases=(
		"-6 -t 192.0.2.2/$PORT"
		"-4 -t [2001:db8::2]/$PORT"
		"-6 -t 0.0.0.0/$PORT"
		"-6 -t $PORT:192.0.2.9"
		"-4 -u $PORT:[2001:db8::9]/$((PORT + 1))"
		"-6 -t 192.0.2.2/all"
		"-6 --outbound-if4 veth0"
		"-4 --outbound-if6 veth0"
	)

	for c in "${cases[@]}"; do
		# shellcheck disable=SC2086 # options, split on purpose
		both_spawn fail -q $c || return 1
		# shellcheck disable=SC2086
		spawn "$RELAY" -q $c
		grep -q "disables IPv" "$ERR" ||
			rig_fail "'$c': $(cat "$ERR")" || return 1
	done
}

# ifname_forms() - test: ADDR%IFACE/PORT, every shape
ifname_forms() {
	local p=$PORT c
	local cases=(
		"-t 2001:db8::2%veth0/$p:$p"
		"-t 2001:db8::2%veth0/$p"
		"-t [2001:db8::2]%veth0/$p"
		"-t 2001:db8::2%veth0/$p-$((p + 2)):$((p + 10))-$((p + 12))"
		"-t 2001:db8::2%veth0/$p-$((p + 4)),~$((p + 2))"
		"-t 2001:db8::2%veth0/$p:[2001:db8::9]/$((p + 10))"
		"-t 192.0.2.2%veth0/$p:$p"
		"-t 192.0.2.2%veth0/$p-$((p + 2)),~$((p + 1))"
		"-t %veth0/$p"
		"-u 2001:db8::2%veth0/$p:$p"
		"-u 192.0.2.2%veth0/$p-$((p + 1)):$((p + 10))-$((p + 11))"
		"-t 2001:db8::2%veth0/$p -t 192.0.2.2%veth0/$((p + 1))"
	)

	for c in "${cases[@]}"; do
		# shellcheck disable=SC2086 # options, split on purpose
		both_spawn ok -q $c || return 1
	done

	# Bound as asked: to the address, on the interface
	upstream_relay_start "$RELAY" --config-net \
		-t "2001:db8::2%veth0/$p:$p" -u none -T none -U none || return 1
	rig_h ss -Hltn "sport = :$p" | grep -qF "[2001:db8::2]%veth0:$p" ||
		rig_fail "listener: $(rig_h ss -Hltn "sport = :$p")"
}

# passt_up() - start a passt in daemon mode, then stop it
# $1: passt binary
# $2...: options
# Return: passt's exit status
passt_up() {
	local bin=$1 sock=$RIG_TMP/passt.sock pidf=$RIG_TMP/passt.pid rc
	shift

	rm -f "$sock" "$pidf"
	rig_h timeout 20 "$bin" --runas 0 -s "$sock" -P "$pidf" "$@" \
		>"$OUT" 2>"$ERR"
	rc=$?
	[ -s "$pidf" ] && rig_kill "$(cat "$pidf")"
	return "$rc"
}

# no_splice() - test: passt takes --no-splice, refuses --splice-only
no_splice() {
	local bin

	for bin in "$PASST" $UP_PASST; do
		passt_up "$bin" -q --no-splice ||
			rig_fail "$bin --no-splice: $(cat "$ERR")" || return 1
		! passt_up "$bin" -q --splice-only ||
			rig_fail "$bin --splice-only accepted" || return 1
	done
}

# summary_lines() - count configuration summary lines in a file
# $1: file
summary_lines() {
	local ours='Flow table|Our MAC address|MTU:|IPv[46]: '
	local upstream='Template interface|Inbound forwarding'

	grep -cE "^([0-9.]+: )?($ours|$upstream)" "$1"
}

# log_command() - test: pasta running a command, default level and -d
log_command() {
	CMD="echo from-the-command" spawn "$RELAY" ||
		rig_fail "status $?: $(cat "$ERR")" || return 1
	[ "$(cat "$OUT")" = from-the-command ] ||
		rig_fail "stdout: $(head -c 200 "$OUT")" || return 1
	[ ! -s "$ERR" ] ||
		rig_fail "stderr ($(wc -l <"$ERR") lines):" \
			 "$(head -n 3 "$ERR" | tr '\n' '|')" || return 1

	spawn "$RELAY" -d || return 1
	[ "$(summary_lines "$ERR")" -gt 0 ] ||
		rig_fail "-d: no summary: $(head -n 5 "$ERR" | tr '\n' '|')" ||
		return 1

	[ -n "$UP_PASTA" ] || return 0
	CMD="echo from-the-command" spawn "$UP_PASTA" || return 1
	[ "$(cat "$OUT")" = from-the-command ] &&
	[ "$(summary_lines "$ERR")" -eq 0 ] ||
		rig_fail "upstream: a summary without -d" || return 1
	spawn "$UP_PASTA" -d || return 1
	[ "$(summary_lines "$ERR")" -gt 0 ] ||
		rig_fail "upstream -d: no summary"
}

# log_default() - test: pasta joining a namespace, and passt: summary
# at the default level, none with -q
log_default() {
	local bin

	for bin in "$RELAY" $UP_PASTA; do
		upstream_relay_start "$bin" --config-net || return 1
		[ "$(summary_lines "$ERR")" -gt 0 ] ||
			rig_fail "$bin --netns: no summary" || return 1
		rig_kill "$(cat "$UPSTREAM_PIDF")"
		upstream_relay_start "$bin" --config-net -q || return 1
		[ "$(summary_lines "$ERR")" -eq 0 ] ||
			rig_fail "$bin --netns -q: a summary" || return 1
		rig_kill "$(cat "$UPSTREAM_PIDF")"
	done

	for bin in "$PASST" $UP_PASST; do
		passt_up "$bin" || return 1
		[ "$(summary_lines "$ERR")" -gt 0 ] ||
			rig_fail "$bin: no summary" || return 1
		passt_up "$bin" -q || return 1
		[ "$(summary_lines "$ERR")" -eq 0 ] ||
			rig_fail "$bin -q: a summary" || return 1
	done
}

# log_file() - test: -l FILE with a command: the file has the messages,
# stderr none of the summary, and no time prefixes with -d
log_file() {
	local log=$RIG_TMP/pasta.log bin

	spawn "$RELAY" -l "$log" || return 1
	[ ! -s "$ERR" ] || rig_fail "stderr: $(head -n 3 "$ERR")" || return 1
	head -n 1 "$log" | grep -q "^pasta " ||
		rig_fail "no header in the file: $(head -n 1 "$log")" ||
		return 1

	for bin in "$RELAY" $UP_PASTA; do
		rm -f "$log"
		spawn "$bin" -l "$log" -d || return 1
		[ "$(summary_lines "$ERR")" -gt 0 ] ||
			rig_fail "$bin -l -d: no summary on stderr" || return 1
		! grep -qE '^[0-9]+\.[0-9]+: ' "$ERR" ||
			rig_fail "$bin -l -d: time prefixes on stderr:" \
				 "$(head -n 1 "$ERR")" || return 1
		grep -q "debug\|DEBUG\|^[0-9.]*: " "$log" ||
			rig_fail "$bin -l -d: no debug line in the file" ||
			return 1
	done
}

# log_failure() - test: a start-up failure with -l says why, on stderr
log_failure() {
	local log=$RIG_TMP/fail.log bin rc

	for bin in "$RELAY" $UP_PASTA; do
		spawn "$bin" -l "$log" -t "192.0.2.2/$PORT" -6
		rc=$?
		[ "$rc" -ne 0 ] && [ -s "$ERR" ] ||
			rig_fail "$bin: status $rc, stderr: $(cat "$ERR")" ||
			return 1
	done

	# A later failure: the port is taken
	ip netns exec "$RIG_HOSTNS" socat -u "TCP-LISTEN:$PORT,reuseaddr" \
		/dev/null &
	rig_defer "rig_kill $!"
	rig_wait_listen "$RIG_HOSTNS" "$PORT" || return 1
	for bin in "$RELAY" $UP_PASTA; do
		spawn "$bin" -l "$log" -t "$PORT"
		rc=$?
		[ "$rc" -ne 0 ] && [ -s "$ERR" ] ||
			rig_fail "$bin, port taken: status $rc, stderr:" \
				 "$(cat "$ERR")" || return 1
	done
	grep -q "can't listen on TCP port $PORT" "$ERR" ||
		[ -n "$UP_PASTA" ] || rig_fail "stderr: $(cat "$ERR")"
}

rig_run "-4/-6: the other family's address options accepted, ignored silently" \
	family_ignored
rig_run "-6 with podman's options: IPv6 only in the namespace, 1 MiB sha256 through -t" \
	podman_v6
rig_run "-4/-6: a rule only the disabled family could serve is refused" \
	family_rules
rig_run "ADDR%IFACE/PORT: every shape accepted, bound to address and interface" \
	ifname_forms
rig_run "passt: --no-splice accepted and ignored, --splice-only refused" \
	no_splice
rig_run "pasta running a command: no summary without -d, stdout the command's" \
	log_command
rig_run "pasta --netns and passt: summary at the default level, none with -q" \
	log_default
rig_run "-l FILE: messages in the file, no summary or time prefix on stderr" \
	log_file
rig_run "-l FILE: a start-up failure says why on stderr, status not 0" \
	log_failure

rig_summary
