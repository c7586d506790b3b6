# SPDX-License-Identifier: GPL-2.0-or-later
"""tests/perf/perf_metrics.py - one measurement of one peer

Theory of operation: every function here runs one measurement against one
perf_peers.Instance and returns a Result: values for one or more rows of
the final table (keyed like "tcp:n2h:65520:1"), an optional short flag for
the table cell (e.g. "2 s near 0") and an error text if the measurement
failed. Raw tool output is kept in the rig's output directory, one file
per run, named after the row, the peer and the repetition.

Directions: "n2h" is namespace->host (client in the target namespace,
server on the host namespace's loopback, reached through the gateway
mapping); "h2n" is host->namespace (server in the target namespace,
client in the host namespace, through the forwarded port).

No timing assertions: a measurement reports numbers, never judges them.
"""

import json
import re
import statistics
import subprocess
import time

from perf_rig import RigError

IPERF_PORT = 5201
UDP_PORT = 5202
SOCKPERF_PORT = 11111
LOAD_PORT = 5203        # the bulk flow of latency_load()
LOAD_RAMP = 1.0         # seconds of bulk before the ping-pong starts
CONNRATE_PORT = 12001
CONNHOLD_PORT = 12002

GIB = 1 << 30
STALL_BPS = 1e6         # an interval below this counts as stalled,
STALL_SHARE = 0.05      # and one below this share of the run's median
SLACK = 30              # seconds a client may run beyond its test time
PROGRESS_SECS = 30      # opening connections: give up after no progress
RATE_SHORT = 0.95       # a paced run below this share of its rate is flagged


class Result:
    """Outcome of one measurement.

    values: row key -> number (None where there is no number)
    flag:   short text for the table cell, or None
    error:  why there is no number, or None
    """

    def __init__(self, values=None, flag=None, error=None):
        self.values = values or {}
        self.flag = flag
        self.error = error


def _tag(key, inst, rep):
    """File name stem for a raw output."""
    return f"{key.replace(':', '-')}.{inst.peer}.r{rep}"


def _dead(inst):
    """Error text if the instance's relay is not running, else None."""
    if inst.alive():
        return None
    return (f"{inst.peer} not running (exit status {inst.proc.returncode},"
            f" log {inst.proc.log})")


def iperf_json(text):
    """Parse iperf3 -J output; returns (dict or None, error or None)."""
    start = text.find("{")
    try:
        data = json.loads(text[start:]) if start >= 0 else None
    except ValueError:
        data = None
    if data is None:
        return None, "iperf3 printed no JSON: " + text.strip()[-200:]
    if data.get("error"):
        return data, "iperf3: " + data["error"]
    return data, None


def stalled_secs(data):
    """Seconds of an iperf3 run at (nearly) zero throughput.

    An interval of at least half a second counts if it moved less than
    STALL_SHARE of the run's median interval, or less than STALL_BPS.
    """
    rates = [i["sum"]["bits_per_second"] for i in data.get("intervals", [])
             if i["sum"]["seconds"] >= 0.5]
    if not rates:
        return 0
    limit = max(STALL_BPS, STALL_SHARE * statistics.median(rates))
    return sum(1 for r in rates if r < limit)


def _server_client(rig, inst, srv_ns, srv_argv, port, cli_ns, cli_argv,
                   tag, secs):
    """Start a server, wait for it to listen, run a client against it.

    Returns (client exit status or None on timeout, client output, CPU
    seconds the relay used while the client ran or None).
    """
    srv = rig.spawn(srv_ns, srv_argv, f"{tag}.server.log")
    try:
        rig.wait_listen(srv_ns, port)
        t0 = rig.cpu_seconds(inst.pid) if inst.pid else None
        rc, out = rig.run(cli_ns, cli_argv, f"{tag}.client.log",
                          secs + SLACK)
        cpu = None
        if t0 is not None and inst.alive():
            cpu = rig.cpu_seconds(inst.pid) - t0
    finally:
        rig.end(srv)
    return rc, out, cpu


def tcp(rig, inst, direction, streams, secs, rep, rate=None):
    """iperf3 TCP throughput, receiver's rate; relay CPU per GiB.

    Rows: tcp:DIR:MTU:STREAMS (Gbit/s) and, for one stream,
    cpu:DIR:MTU (relay CPU seconds per GiB received). With a rate (iperf3
    -b), one row only: cpur:DIR:MTU, the relay CPU per GiB with every peer
    moving the same data at the same pace, flagged if the peer fell short
    of the rate. Each relay's own throughput changes its cost per GiB (a
    relay that is faster keeps both CPUs busier, and pays more for each
    wake-up), so only this row compares the work itself.
    """
    key = f"tcp:{direction}:{inst.mtu}:{streams}"
    if rate:
        key = f"cpur:{direction}:{inst.mtu}"
    err = _dead(inst)
    if err:
        return Result(error=err)
    if rate and not inst.pid:
        return Result(error="no relay process")
    common = ["-t", str(secs), "-P", str(streams), "-i", "1", "-J",
              "--connect-timeout", "5000"]
    if rate:
        common += ["-b", rate]
    if direction == "n2h":
        srv_ns, cli_ns, port = rig.host_ns, inst.ns, IPERF_PORT
        srv = ["iperf3", "-s", "-1", "-B", inst.srv_bind, "-p", str(port)]
        cli = ["iperf3", "-c", inst.gw4, "-p", str(port)] + common
    else:
        if not inst.fwd_port:
            return Result(error=inst.fwd_na or "no forwarded port")
        srv_ns, cli_ns, port = inst.ns, rig.host_ns, inst.fwd_port
        srv = ["iperf3", "-s", "-1", "-p", str(port)]
        cli = ["iperf3", "-c", inst.fwd_addr, "-p", str(port)] + common
    try:
        rc, out, cpu = _server_client(rig, inst, srv_ns, srv, port,
                                        cli_ns, cli, _tag(key, inst, rep),
                                        secs)
    except RigError as e:
        return Result(error=str(e))
    if rc is None:
        return Result(error=f"iperf3 client timed out after "
                            f"{secs + SLACK} s")
    data, err = iperf_json(out)
    if err:
        return Result(error=err)
    end = data["end"]["sum_received"]
    if rate:
        return paced_cpu(key, end, cpu, rate, _dead(inst))
    values = {key: end["bits_per_second"] / 1e9}
    stalled = stalled_secs(data)
    if streams == 1 and cpu is not None and end["bytes"] > 0:
        values[f"cpu:{direction}:{inst.mtu}"] = cpu / (end["bytes"] / GIB)
    err = _dead(inst)
    return Result(values, f"{stalled} s near 0" if stalled else None, err)


def rate_bps(rate):
    """iperf3 rate text (e.g. "4G", "500M") in bit/s."""
    mult = {"K": 1e3, "M": 1e6, "G": 1e9}
    if rate[-1:].upper() in mult:
        return float(rate[:-1]) * mult[rate[-1:].upper()]
    return float(rate)


def paced_cpu(key, end, cpu, rate, err):
    """Result of a paced iperf3 run: relay CPU per GiB, flagged if short.

    key: the row; end: iperf3's sum_received; cpu: the relay's CPU
    seconds meanwhile; rate: the -b text; err: the run's error, if any.
    """
    if cpu is None or end["bytes"] <= 0:
        return Result(error=err or "no relay CPU time or no data moved")
    values = {key: cpu / (end["bytes"] / GIB)}
    got = end["bits_per_second"]
    flag = None
    if got < RATE_SHORT * rate_bps(rate):
        flag = f"only {got / 1e9:.2f} Gbit/s"
    return Result(values, flag, err)


def udp(rig, inst, direction, secs, rate, length, rep):
    """iperf3 UDP at a high target rate: received rate and loss.

    The client always runs in the target namespace; host->namespace is
    iperf3 -R (the namespace opens the flow, the host side sends), so no
    forwarded UDP port is needed. Rows: udp:DIR:MTU:rate (Gbit/s) and
    udp:DIR:MTU:loss (percent).
    """
    key = f"udp:{direction}:{inst.mtu}"
    err = _dead(inst)
    if err:
        return Result(error=err)
    srv = ["iperf3", "-s", "-1", "-B", inst.srv_bind, "-p", str(UDP_PORT)]
    cli = ["iperf3", "-c", inst.gw4, "-p", str(UDP_PORT), "-u", "-b", rate,
           "-l", str(length), "-t", str(secs), "-i", "1", "-J",
           "--connect-timeout", "5000"]
    if direction == "h2n":
        cli.append("-R")
    try:
        rc, out, _ = _server_client(rig, inst, rig.host_ns, srv, UDP_PORT,
                                    inst.ns, cli, _tag(key, inst, rep), secs)
    except RigError as e:
        return Result(error=str(e))
    if rc is None:
        return Result(error=f"iperf3 client timed out after "
                            f"{secs + SLACK} s")
    data, err = iperf_json(out)
    if err:
        return Result(error=err)
    end = data["end"].get("sum_received") or data["end"]["sum"]
    return Result({f"{key}:rate": end["bits_per_second"] / 1e9,
                   f"{key}:loss": end["lost_percent"]}, None, _dead(inst))


def latency(rig, inst, secs, rep):
    """sockperf TCP ping-pong, 64-byte messages, round-trip p50 and p99.

    Rows: lat:MTU:p50 and lat:MTU:p99 (microseconds, full round trip).
    """
    key = f"lat:{inst.mtu}"
    err = _dead(inst)
    if err:
        return Result(error=err)
    srv = ["sockperf", "server", "--tcp", "-i", inst.srv_bind,
           "-p", str(SOCKPERF_PORT)]
    cli = ["sockperf", "ping-pong", "--tcp", "-i", inst.gw4,
           "-p", str(SOCKPERF_PORT), "-m", "64", "-t", str(secs),
           "--full-rtt"]
    try:
        rc, out, _ = _server_client(rig, inst, rig.host_ns, srv,
                                    SOCKPERF_PORT, inst.ns, cli,
                                    _tag(key, inst, rep), secs)
    except RigError as e:
        return Result(error=str(e))
    if rc != 0:
        return Result(error=f"sockperf exited with status {rc}: "
                            + out.strip()[-200:])
    values = {}
    for pct, name in (("50.000", "p50"), ("99.000", "p99")):
        m = re.search(r"percentile " + re.escape(pct) + r" =\s*([\d.]+)",
                      out)
        if not m:
            return Result(error=f"no {name} in sockperf's output")
        values[f"{key}:{name}"] = float(m.group(1))
    return Result(values, None, _dead(inst))


# sockperf's percentile lines, e.g. "---> percentile 99.990 =   52.4"
_SOCKPERF_PCT = {"p50": "50.000", "p99": "99.000", "p99.9": "99.900",
                 "p99.99": "99.990"}


def sockperf_stats(out):
    """Round-trip statistics from sockperf ping-pong --full-rtt output.

    Returns {"mean", "max", "p50", "p99", "p99.9", "p99.99": usec} or
    (None, error).
    """
    st = {}
    m = re.search(r"avg-rtt=([\d.]+)", out)
    if not m:
        return None, "no avg-rtt in sockperf's output"
    st["mean"] = float(m.group(1))
    m = re.search(r"<MAX> observation =\s*([\d.]+)", out)
    if m:
        st["max"] = float(m.group(1))
    for name, pct in _SOCKPERF_PCT.items():
        m = re.search(r"percentile " + re.escape(pct) + r" =\s*([\d.]+)",
                      out)
        if not m:
            return None, f"no {name} in sockperf's output"
        st[name] = float(m.group(1))
    return st, None


def _pingpong(rig, inst, secs, tag, nice=None):
    """sockperf TCP ping-pong, 64 bytes, ns client to a host server.

    With @nice, both ends run at that nice value. Returns (statistics as
    sockperf_stats(), error or None).
    """
    pre = ["nice", "-n", str(nice)] if nice is not None else []
    srv = pre + ["sockperf", "server", "--tcp", "-i", inst.srv_bind,
                 "-p", str(SOCKPERF_PORT)]
    cli = pre + ["sockperf", "ping-pong", "--tcp", "-i", inst.gw4,
                 "-p", str(SOCKPERF_PORT), "-m", "64", "-t", str(secs),
                 "--full-rtt"]
    try:
        rc, out, _ = _server_client(rig, inst, rig.host_ns, srv,
                                    SOCKPERF_PORT, inst.ns, cli, tag, secs)
    except RigError as e:
        return None, str(e)
    if rc != 0:
        return None, (f"sockperf exited with status {rc}: "
                      + out.strip()[-200:])
    return sockperf_stats(out)


def latency_idle(rig, inst, secs, rep):
    """Unloaded ping-pong: mean, p50, p99, p99.99 and maximum round trip.

    The mean compares the relay's per-message cost with the veth pair;
    the p99.99 and the maximum show a delayed-ACK tail (about 40 ms) if
    a frame ever waits for company. Rows: lati:MTU:mean, lati:MTU:p50,
    lati:MTU:p99, lati:MTU:p99.99, lati:MTU:max (microseconds, full
    round trip).
    """
    key = f"lati:{inst.mtu}"
    err = _dead(inst)
    if err:
        return Result(error=err)
    st, err = _pingpong(rig, inst, secs, _tag(key, inst, rep))
    if err:
        return Result(error=err)
    values = {f"{key}:{k}": st[k] for k in ("mean", "p50", "p99",
                                            "p99.99", "max")
              if k in st}
    return Result(values, None, _dead(inst))


def latency_load(rig, inst, secs, rep, rate=None, nice=None):
    """Ping-pong while a bulk TCP flow fills the same path.

    iperf3 -R from the namespace (the host side sends: the bulk flow goes
    host->ns, as the ping-pong's answers do) runs for the whole
    measurement; after LOAD_RAMP seconds, sockperf ping-pong measures the
    round trip of 64-byte messages for secs seconds. Rows: latl:MTU:p50,
    latl:MTU:p99, latl:MTU:p99.9 (microseconds) and latl:MTU:bulk (the
    bulk flow's rate meanwhile, Gbit/s: a relay that moves less bulk data
    queues less of it). With @rate (iperf3 -b), every peer carries the
    same bulk rate, so that the round trip compares queueing rather than
    how much CPU the bulk flow's two ends take from the ping-pong. With
    @nice, the ping-pong's two ends run at that nice value: a negative one
    lets them have a CPU before the bulk flow's ends, which shows how much
    of the round trip was their wait for a CPU.
    """
    key = f"latl:{inst.mtu}"
    tag = _tag(key, inst, rep)
    err = _dead(inst)
    if err:
        return Result(error=err)
    bulk_secs = secs + 2 * LOAD_RAMP + 1
    srv = rig.spawn(rig.host_ns, ["iperf3", "-s", "-1", "-B", inst.srv_bind,
                                  "-p", str(LOAD_PORT)],
                    f"{tag}.bulk-server.log")
    bulk = None
    try:
        rig.wait_listen(rig.host_ns, LOAD_PORT)
        bulk = rig.spawn(inst.ns, ["iperf3", "-c", inst.gw4, "-p",
                                   str(LOAD_PORT), "-R", "-t",
                                   str(int(bulk_secs)), "-J",
                                   "--connect-timeout", "5000"] +
                         (["-b", rate] if rate else []),
                         f"{tag}.bulk-client.log")
        time.sleep(LOAD_RAMP)
        if bulk.poll() is not None:
            return Result(error=f"iperf3 (bulk) exited with status "
                                f"{bulk.returncode}, see {bulk.log}")
        st, err = _pingpong(rig, inst, secs, tag, nice)
        try:
            bulk.wait(timeout=bulk_secs + SLACK)
        except subprocess.TimeoutExpired:
            pass
    except RigError as e:
        return Result(error=str(e))
    finally:
        if bulk:
            rig.end(bulk)
        rig.end(srv)
    if err:
        return Result(error=err)
    values = {f"{key}:{k}": st[k] for k in ("p50", "p99", "p99.9")}
    flag, berr = bulk_rate(bulk.log, f"{key}:bulk", values)
    return Result(values, flag, berr or _dead(inst))


def bulk_rate(log, key, values):
    """The rate of a bulk flow that ran beside a measurement.

    log: its iperf3 -J output; key: the row to add to @values (Gbit/s).
    Returns (the cell's flag or None, an error or None).
    """
    with open(log, encoding="utf-8", errors="replace") as f:
        data, err = iperf_json(f.read())
    if err:
        return "bulk failed", f"bulk flow: {err}"
    values[key] = data["end"]["sum_received"]["bits_per_second"] / 1e9
    stalled = stalled_secs(data)
    return (f"bulk: {stalled} s near 0" if stalled else None), None


def connrate(rig, inst, tool, secs, rep):
    """Sequential connect-send-close rate, namespace->host.

    Row: conn:MTU (connections per second); failures flag the cell.
    """
    key = f"conn:{inst.mtu}"
    err = _dead(inst)
    if err:
        return Result(error=err)
    srv = [tool, "server", inst.srv_bind, str(CONNRATE_PORT)]
    cli = [tool, "client", inst.gw4, str(CONNRATE_PORT), str(secs)]
    try:
        rc, out, _ = _server_client(rig, inst, rig.host_ns, srv,
                                    CONNRATE_PORT, inst.ns, cli,
                                    _tag(key, inst, rep), secs)
    except RigError as e:
        return Result(error=str(e))
    m = re.search(r"connections (\d+) failures (\d+) seconds ([\d.]+) "
                  r"rate ([\d.]+)", out)
    if not m:       # exit status 1 with a summary: none completed (rate 0)
        return Result(error=f"connrate exited with status {rc}: "
                            + out.strip()[-200:])
    failed = int(m.group(2))
    flag, err = None, _dead(inst)
    if failed:
        first = re.search(r"connection (\d+): (.*)", out)
        what = f"#{first.group(1)}: {first.group(2)}" if first else "?"
        flag = f"{failed} failed"
        err = err or f"connrate: {failed} connections failed, first {what}"
        if "giving up" in out:
            flag = f"gave up at #{first.group(1) if first else '?'}"
            err += f"; gave up after {m.group(3)} s"
    return Result({key: float(m.group(4))}, flag, err)


def rss_idle(inst):
    """Resident memory of a relay after start-up. Row: rss:idle (MiB)."""
    if not inst.pid:
        return Result(error="no relay process")
    err = _dead(inst)
    if err or inst.rss_idle_kib is None:
        return Result(error=err or "relay exited during start-up")
    return Result({"rss:idle": inst.rss_idle_kib / 1024})


def _last(path, pattern):
    """Last match of pattern (one group) in a file, as an int, or None."""
    with open(path, encoding="utf-8", errors="replace") as f:
        found = re.findall(pattern, f.read())
    return int(found[-1]) if found else None


def _poll_progress(rig, cond, progress):
    """Wait for cond() while progress() keeps changing.

    Gives up (returns None) once progress() has not changed for
    PROGRESS_SECS; returns cond()'s value once it is true.
    """
    last, since = None, time.monotonic()
    while True:
        v = rig.poll(1, cond, step=0.2)
        if v:
            return v
        now, p = time.monotonic(), progress()
        if p != last:
            last, since = p, now
        elif now - since > PROGRESS_SECS:
            return None


def rss_conns(rig, inst, tool, count, rep):
    """Resident memory of a relay holding count TCP connections.

    A client in the target namespace opens count connections to a server
    on the host namespace's loopback, which accepts and holds them all.
    Once the client is done and the server has accepted them, the relay's
    VmRSS is read. Opening may be slow (slirp4netns walks a list of
    sockets): it may take as long as the server's count keeps growing. Row: rss:conns (MiB); fewer connections flag the cell.
    """
    key = "rss:conns"
    tag = _tag(key, inst, rep)
    err = _dead(inst)
    if err:
        return Result(error=err)
    srv = rig.spawn(rig.host_ns, [tool, "server", inst.srv_bind,
                                  str(CONNHOLD_PORT)], f"{tag}.server.log")
    cli = None
    try:
        rig.wait_listen(rig.host_ns, CONNHOLD_PORT)
        cli = rig.spawn(inst.ns, [tool, "client", inst.gw4,
                                  str(CONNHOLD_PORT), str(count)],
                        f"{tag}.client.log")

        def opened():
            if cli.poll() is not None:
                raise RigError(f"connhold client exited with status "
                               f"{cli.returncode}, see {cli.log}")
            return _last(cli.log, r"done (\d+)")

        done = _poll_progress(rig, opened,
                              lambda: _last(srv.log, r"accepted (\d+)"))
        if done is None:
            return Result(error=f"opening {count} connections: no progress "
                                f"for {PROGRESS_SECS} s, see {cli.log}")
        rig.poll(30, lambda: (_last(srv.log, r"accepted (\d+)") or 0)
                 >= done, step=0.2)
        accepted = _last(srv.log, r"accepted (\d+)") or 0
        time.sleep(1)
        err = _dead(inst)
        if err:
            return Result(error=err)
        kib = rig.rss_kib(inst.pid)
    except RigError as e:
        return Result(error=str(e))
    finally:
        if cli:
            rig.end(cli)
        rig.end(srv)
    held = min(done, accepted)
    flag = None if held >= count else f"only {held} held"
    with open(cli.log, encoding="utf-8", errors="replace") as f:
        m = re.search(r"done \d+ failures \d+ seconds ([\d.]+)", f.read())
    values = {key: kib / 1024}
    if m:       # not a row of the table: progress line and results.json
        values[f"{key}:open_s"] = float(m.group(1))
    return Result(values, flag)
