#!/usr/bin/env python3
"""Connection burst: N clients connect to a MySQL server at the same moment.

Each client completes the handshake and logs in (mysql_native_password,
following an auth switch or caching_sha2's fast path if the server asks);
the report gives the time until every client is logged in, the median and
99th-percentile login time, failures, and two counters that explain a slow
burst without timing anything: the kernel's listen-queue overflows
(TcpExt ListenOverflows: SYNs or handshakes dropped because the accept
queue was full) and TCP segments retransmitted, both machine-wide over
the round. With --pid, the server's CPU time per connection (from
/proc/PID/stat) is added, the figure least disturbed by a busy machine.

One thread drives all clients with epoll, so the client side adds no
thread creation of its own. Standard library only.

Usage: connect-burst.py --port P [--user U --password W] [-n 1000]
                        [--rounds 3] [--pid PID] [--label NAME]
"""
import argparse
import errno
import hashlib
import os
import resource
import selectors
import socket
import struct
import sys
import time

CLIENT_LONG_PASSWORD = 0x1
CLIENT_PROTOCOL_41 = 0x200
CLIENT_TRANSACTIONS = 0x2000
CLIENT_SECURE_CONNECTION = 0x8000
CLIENT_PLUGIN_AUTH = 0x80000
CAPS = CLIENT_LONG_PASSWORD | CLIENT_PROTOCOL_41 | CLIENT_TRANSACTIONS | CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH


def native(scramble, password):
    """mysql_native_password: SHA1(pw) XOR SHA1(scramble ++ SHA1(SHA1(pw)))."""
    if not password:
        return b""
    p1 = hashlib.sha1(password.encode()).digest()
    p2 = hashlib.sha1(p1).digest()
    mix = hashlib.sha1(scramble + p2).digest()
    return bytes(a ^ b for a, b in zip(p1, mix))


def packet(seq, payload):
    return struct.pack("<I", len(payload))[:3] + bytes([seq & 0xFF]) + payload


class Client:
    """One connection: connecting -> greeting -> auth -> done / failed."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""
        self.state = "greeting"
        self.done_at = None
        self.error = None

    def packets(self):
        while len(self.buf) >= 4:
            n = int.from_bytes(self.buf[:3], "little")
            if len(self.buf) < 4 + n:
                return
            seq, body = self.buf[3], self.buf[4 : 4 + n]
            self.buf = self.buf[4 + n :]
            yield seq, body


def on_packet(c, seq, body, args):
    """Advances `c` by one server packet; returns bytes to send."""
    if body[:1] == b"\xff":
        c.error = body[3:].decode(errors="replace")
        c.state = "failed"
        return b""
    if c.state == "greeting":
        i = body.index(b"\0", 1)
        part1 = body[i + 5 : i + 13]
        rest = body[i + 13 + 1 + 2 + 1 + 2 + 2 + 1 + 10 :]
        part2 = rest[:12]
        scramble = part1 + part2
        user = args.user.encode() + b"\0"
        auth = native(scramble, args.password)
        payload = struct.pack("<IIB", CAPS, 1 << 24, 45) + b"\0" * 23 + user
        payload += bytes([len(auth)]) + auth + b"mysql_native_password\0"
        c.state = "auth"
        return packet(seq + 1, payload)
    if body[:1] == b"\x00":
        c.state = "done"
        c.done_at = time.perf_counter()
        return packet(0, b"\x01")  # COM_QUIT
    if body[:1] == b"\xfe":  # auth switch: plugin name, then its scramble
        j = body.index(b"\0", 1)
        plugin, data = body[1:j], body[j + 1 :].rstrip(b"\0")
        if plugin != b"mysql_native_password":
            c.error = f"auth switch to {plugin.decode()} not supported"
            c.state = "failed"
            return b""
        return packet(seq + 1, native(data[:20], args.password))
    if body[:1] == b"\x01":  # caching_sha2: 3 = fast auth passed, OK follows
        return b""
    c.error = f"unexpected packet {body[:1].hex()}"
    c.state = "failed"
    return b""


def counters():
    """TcpExt ListenOverflows and Tcp RetransSegs, machine-wide."""
    out = {}
    for path, want in (("/proc/net/netstat", "ListenOverflows"), ("/proc/net/snmp", "RetransSegs")):
        with open(path) as f:
            lines = f.read().splitlines()
        for names, values in zip(lines[::2], lines[1::2]):
            names, values = names.split(), values.split()
            if want in names:
                out[want] = int(values[names.index(want)])
    return out


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def burst(args):
    sel = selectors.DefaultSelector()
    clients = []
    before = counters()
    cpu0 = cpu_seconds(args.pid) if args.pid else None
    t0 = time.perf_counter()
    for _ in range(args.n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        rc = s.connect_ex((args.host, args.port))
        if rc not in (0, errno.EINPROGRESS):
            raise OSError(rc, os.strerror(rc))
        c = Client(s)
        clients.append(c)
        sel.register(s, selectors.EVENT_READ, c)
    pending = args.n
    deadline = t0 + args.timeout
    while pending and time.perf_counter() < deadline:
        for key, _ in sel.select(timeout=0.5):
            c = key.data
            try:
                data = c.sock.recv(65536)
            except OSError as e:
                data, c.error, c.state = b"", str(e), "failed"
            if not data and c.state not in ("done", "failed"):
                c.error, c.state = c.error or "closed by server", "failed"
            c.buf += data
            for seq, body in c.packets():
                out = on_packet(c, seq, body, args)
                if out:
                    c.sock.sendall(out)
                if c.state in ("done", "failed"):
                    break
            if c.state in ("done", "failed"):
                sel.unregister(c.sock)
                pending -= 1
    t_all = time.perf_counter() - t0
    cpu = cpu_seconds(args.pid) - cpu0 if args.pid else None
    after = counters()
    for c in clients:
        c.sock.close()
    sel.close()
    times = sorted(c.done_at - t0 for c in clients if c.state == "done")
    failed = [c for c in clients if c.state != "done"]
    pct = lambda p: times[min(len(times) - 1, int(p * len(times)))] if times else float("nan")
    return {
        "all_s": t_all if not failed else float("nan"),
        "p50_s": pct(0.5),
        "p99_s": pct(0.99),
        "ok": len(times),
        "failed": len(failed),
        "first_error": failed[0].error if failed else "",
        "overflows": after["ListenOverflows"] - before["ListenOverflows"],
        "retrans": after["RetransSegs"] - before["RetransSegs"],
        "cpu_us_per_conn": cpu * 1e6 / args.n if cpu is not None else None,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--user", default="root")
    ap.add_argument("--password", default="")
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pid", type=int, help="server process, for CPU time per connection")
    ap.add_argument("--label", default="")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--pause", type=float, default=2.0, help="seconds between rounds (server closes the last burst)")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, args.n + 64)), hard))
    label = args.label or f"{args.host}:{args.port}"
    for r in range(args.rounds):
        if r:
            time.sleep(args.pause)
        m = burst(args)
        cpu = f"{m['cpu_us_per_conn']:8.0f}" if m["cpu_us_per_conn"] is not None else "       -"
        print(
            f"{label:<12} round {r + 1}: n={args.n} all={m['all_s']:7.3f}s p50={m['p50_s']:6.3f}s "
            f"p99={m['p99_s']:6.3f}s ok={m['ok']} failed={m['failed']} listen_overflows={m['overflows']} "
            f"retrans={m['retrans']} cpu_us/conn={cpu}"
            + (f"  first error: {m['first_error']}" if m["failed"] else ""),
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
