# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/perf/perf_fleet.py - the "fleet" metric: start-up time and idle
memory of relays started as Podman starts them

Theory of operation: Podman starts one pasta per rootless container, as
the user, in that user's namespace, on the critical path of `podman run`.
So everything here runs as an unprivileged user (nobody) in a user and
network namespace of its own (setpriv, unshare -Urn: the "host" of the
relays), with a veth pair in it carrying the addresses and default routes
the relays copy (--config-net). One bash script (SCRIPT below) runs in
there and talks to this module over its standard streams:

  start   RELAY --config-net -- date +%s.%N, the relays in turn (A B C A B
          C ...), START_RUNS times each; bash's $EPOCHREALTIME before and
          after, and the command's own clock, give start to command
          running (what a launcher waits for) and start to exit (what
          `pasta -- true` costs). slirp4netns has no such mode: no start
          rows for it.
  idle    for each relay in turn, one idle relay: RELAY --config-net --
          sleep (slirp4netns: --configure --mtu=65520
          --disable-host-loopback PID tap0, PID a sleep in a new network
          namespace), started once the previous one is ready (its command
          runs; slirp4netns: --ready-fd); IDLE_SECS after the last one,
          this module reads its Rss and Pss (/proc/PID/smaps_rollup) and
          tells the script to end it.
  fleet   the same with FLEET_N relays of one kind at once, each in its own
          namespace: the sum of their Pss (pages shared between them, the
          binary's and libc's, count once in the sum).

Peers: this project's pasta (a copy that nobody can run), upstream's
current build (--upstream) and Debian's /usr/bin/pasta as they are, and
slirp4netns for the memory rows. No timing assertions: numbers only.
"""

import os
import shutil
import statistics
import subprocess
import tempfile
import time

from perf_metrics import Result
from perf_table import Row

PEERS = ("pasta", "pasta-current", "pasta-upstream", "slirp4netns")
START_RUNS = 15         # starts per relay (--quick: START_RUNS_QUICK)
START_RUNS_QUICK = 5
FLEET_N = 100           # idle relays at once (--quick: FLEET_N_QUICK)
FLEET_N_QUICK = 10
IDLE_SECS = 1.5         # from a relay's start to its memory reading
SLEEP_SECS = 120        # what idle relays run; they are ended before
USER = "65534"          # nobody
TIMEOUT = 600           # the whole script, seconds

SCRIPT = r"""
set -u
runs=$1 secs=$2; shift 2
ip link add h0 type veth peer name h1 &&
ip addr add 192.0.2.10/24 dev h0 &&
ip addr add 2001:db8::10/64 dev h0 nodad &&
ip link set h0 up && ip link set h1 up && ip link set lo up &&
ip route add default via 192.0.2.1 &&
ip -6 route add default via 2001:db8::1 || { echo "error rig"; exit 1; }
ns=$(readlink /proc/self/ns/net)

start() {  # TAG PATH: one start, timed
	local s e c rc
	s=$EPOCHREALTIME
	c=$("$2" --config-net -- date +%s.%N 2>/dev/null)
	rc=$?
	e=$EPOCHREALTIME
	echo "start $1 $s ${c:-0} $e $rc"
}

pids=()
up=$(mktemp -d) && mkfifo "$up/up" || { echo "error fifo"; exit 1; }
spawn() {  # TAG PATH: one idle relay, in the background, once it's ready
	local sp
	if [ "$1" = slirp4netns ]; then
		unshare -n sleep "$secs" >/dev/null 2>&1 &
		sp=$!
		pids+=("$sp")
		while [ "$(readlink "/proc/$sp/ns/net")" = "$ns" ]; do
			sleep 0.001
		done
		"$2" --configure --mtu=65520 --disable-host-loopback \
			--ready-fd=3 "$sp" tap0 3>"$up/up" >/dev/null 2>&1 &
		pids+=("$!")
		read -r -n 1 _ <"$up/up"
	else
		"$2" --config-net -- sh -c 'echo up; exec sleep "$0"' \
			"$secs" >"$up/up" 2>/dev/null &
		pids+=("$!")
		read -r _ <"$up/up"
	fi
	echo "pid $1 ${pids[-1]}"
}

end_all() {  # the idle relays, their commands, the sleeps
	local p kids=()
	for p in "${pids[@]}"; do
		kids+=($(cat "/proc/$p/task/$p/children" 2>/dev/null))
	done
	kill "${pids[@]}" "${kids[@]}" 2>/dev/null
	wait 2>/dev/null
	pids=()
}

for _ in $(seq "$runs"); do
	for p in "$@"; do
		[ "${p%%=*}" = slirp4netns ] || start "${p%%=*}" "${p#*=}"
	done
done
echo "starts-end"

while read -r what tag n path; do
	[ "$what" = done ] && break
	for _ in $(seq "$n"); do spawn "$tag" "$path"; done
	echo "ready $what $tag"
	read -r _
	end_all
done
rm -r "$up"
echo "done"
"""


def rows(quick):
    """Rows of the fleet metric, in order."""
    n = FLEET_N_QUICK if quick else FLEET_N
    out = []
    for what, label in (("start", "start to exit"),
                        ("cmd", "start to command running")):
        for p in ("p50", "p90"):
            out.append(Row(f"fleet:{what}:{p}",
                           f"--config-net -- CMD, {label}, {p}", "ms",
                           "lower", fmt="{:.1f}"))
    out.append(Row("fleet:rss", f"one idle relay, {IDLE_SECS} s after "
                   "start, RSS", "MiB", "lower", fmt="{:.1f}"))
    out.append(Row("fleet:pss", f"one idle relay, {IDLE_SECS} s after "
                   "start, PSS", "MiB", "lower", fmt="{:.1f}"))
    out.append(Row("fleet:pss-n", f"{n} idle relays, PSS sum", "MiB",
                   "lower", fmt="{:.0f}"))
    return out


def notes(peers, notes_out):
    """Cells the metric never fills, in tests/perf/run's notes."""
    if "slirp4netns" in peers:
        for what in ("fleet:start", "fleet:cmd"):
            notes_out[("slirp4netns", what)] = ("no mode that runs a "
                                                "command")
    if "veth" in peers:
        notes_out[("veth", "fleet:")] = "no relay process"
    if "pasta-busy" in peers:
        notes_out[("pasta-busy", "fleet:")] = ("pasta is the same binary: "
                                               "--busy-poll costs nothing "
                                               "idle")


def _paths(args, tmp):
    """{peer: binary} of the peers to measure, nobody-runnable."""
    ours = os.path.join(tmp, "ours")
    os.makedirs(ours)
    shutil.copy(os.path.realpath(args.ours), os.path.join(ours, "pasta"))
    for d in (tmp, ours):
        os.chmod(d, 0o755)
    paths = {"pasta": os.path.join(ours, "pasta"),
             "pasta-current": args.upstream,
             "pasta-upstream": "/usr/bin/pasta",
             "slirp4netns": shutil.which("slirp4netns")}
    return {p: paths[p] for p in args.peers
            if p in PEERS and p not in args.unavailable and paths.get(p)}


def _mem_kib(pid):
    """(Rss, Pss) of a process in KiB, from smaps_rollup; None if gone."""
    vals = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("Rss", "Pss"):
                    vals[k] = int(v.split()[0])
    except (OSError, ValueError):
        return None
    return (vals["Rss"], vals["Pss"]) if len(vals) == 2 else None


def _pct(vals, q):
    """Percentile q (0-100) of a list, nearest rank."""
    v = sorted(vals)
    return v[min(len(v) - 1, max(0, round(q / 100 * len(v) + 0.5) - 1))]


class _Script:
    """The script in its namespace, with its output as lines."""

    def __init__(self, outdir, paths, runs):
        argv = ["setpriv", f"--reuid={USER}", f"--regid={USER}",
                "--clear-groups", "unshare", "-Urn", "bash", "-c", SCRIPT,
                "fleet", str(runs), str(SLEEP_SECS)]
        argv += [f"{p}={path}" for p, path in paths.items()]
        self.err = open(os.path.join(outdir, "fleet.stderr"), "w",
                        encoding="utf-8")
        self.log = open(os.path.join(outdir, "fleet.txt"), "w",
                        encoding="utf-8")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err,
                                     text=True, bufsize=1,
                                     start_new_session=True)
        self.deadline = time.monotonic() + TIMEOUT

    def line(self):
        """Next line of the script's output, "" at its end."""
        if time.monotonic() > self.deadline:
            return ""
        ln = self.proc.stdout.readline()
        self.log.write(ln)
        return ln.strip()

    def say(self, text):
        """A line to the script."""
        self.log.write(f"> {text}\n")
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def close(self):
        """End the script and everything it started."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        self.err.close()
        self.log.close()


def _starts(script, results):
    """Read the start lines; fill the start rows. Returns the next line."""
    times = {}
    ln = script.line()
    while ln.startswith("start ") and ln != "starts-end":
        _, peer, s, c, e, rc = ln.split()
        t = times.setdefault(peer, {"start": [], "cmd": [], "fail": 0})
        if rc != "0" or float(c) <= 0:
            t["fail"] += 1
        else:
            t["start"].append((float(e) - float(s)) * 1000)
            t["cmd"].append((float(c) - float(s)) * 1000)
        ln = script.line()
    if ln == "starts-end":
        ln = ""
    for peer, t in times.items():
        vals = {}
        for what in ("start", "cmd"):
            if t[what]:
                vals[f"fleet:{what}:p50"] = statistics.median(t[what])
                vals[f"fleet:{what}:p90"] = _pct(t[what], 90)
        err = (f"{t['fail']} of {t['fail'] + len(t['start'])} starts "
               "failed (fleet.stderr)") if t["fail"] else None
        results.add([f"fleet:{w}:{p}" for w in ("start", "cmd")
                     for p in ("p50", "p90")], peer, Result(vals, error=err))
    return ln


def _idle(script, what, peer, path, n):
    """n idle relays of a peer; returns [(Rss, Pss)] or an error text."""
    script.say(f"{what} {peer} {n} {path}")
    pids = []
    ln = script.line()
    while ln.startswith("pid "):
        pids.append(int(ln.split()[2]))
        ln = script.line()
    if ln != f"ready {what} {peer}":
        return f"script: {ln or 'ended'}"
    time.sleep(IDLE_SECS)
    mem = [_mem_kib(p) for p in pids]
    script.say("go")
    gone = sum(1 for m in mem if m is None)
    if gone:
        return f"{gone} of {n} relays exited before {IDLE_SECS} s"
    return mem


def run(args, outdir, results, log):
    """The fleet metric for every peer that has a binary; fills results."""
    runs = START_RUNS_QUICK if args.quick else START_RUNS
    n = FLEET_N_QUICK if args.quick else FLEET_N
    tmp = tempfile.mkdtemp(prefix="rlyp-fleet-")
    try:
        paths = _paths(args, tmp)
        log(f"# fleet: {runs} starts per relay, then idle memory of 1 "
            f"and {n} relays each, as user {USER} in a user namespace")
        script = _Script(outdir, paths, runs)
        try:
            ln = _starts(script, results)
            if ln:
                log(f"# fleet: unexpected {ln!r}")
            for peer, path in paths.items():
                for what, count in (("idle", 1), ("fleet", n)):
                    mem = _idle(script, what, peer, path, count)
                    if isinstance(mem, str):
                        keys = (["fleet:rss", "fleet:pss"] if count == 1
                                else ["fleet:pss-n"])
                        results.add(keys, peer, Result(error=mem))
                    elif count == 1:
                        results.add(["fleet:rss", "fleet:pss"], peer,
                                    Result({"fleet:rss": mem[0][0] / 1024,
                                            "fleet:pss": mem[0][1] / 1024}))
                    else:
                        total = sum(m[1] for m in mem) / 1024
                        results.add(["fleet:pss-n"], peer,
                                    Result({"fleet:pss-n": total}))
                    log(f"[fleet] {peer:<15} {count:>3} idle: "
                        + (mem if isinstance(mem, str) else
                           f"PSS {sum(m[1] for m in mem) / 1024:.1f} MiB"))
            script.say("done")
        finally:
            script.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
