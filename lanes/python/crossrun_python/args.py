"""Command-line flags of the peer contract (lanes/README.md): `--name value`
or `--name=value`, in any order, each at most once. Problems raise
UsageError (exit 2); a valid request this runtime cannot serve raises
Unsupported (exit 127)."""

import ipaddress
import re

from . import codec


class UsageError(Exception):
    pass


class Unsupported(Exception):
    pass


def parse_flags(argv, required, optional=()):
    values = {}
    names = set(required) | set(optional)
    i = 0
    while i < len(argv):
        arg = argv[i]
        if not arg.startswith("--"):
            raise UsageError("unexpected argument %r" % arg)
        name, eq, value = arg[2:].partition("=")
        if name not in names:
            raise UsageError("unknown flag --%s" % name)
        if name in values:
            raise UsageError("--%s given twice" % name)
        if not eq:
            if i + 1 >= len(argv):
                raise UsageError("--%s needs a value" % name)
            i += 1
            value = argv[i]
        values[name] = value
        i += 1
    for name in required:
        if name not in values:
            raise UsageError("missing --%s" % name)
    return values


_UINT = re.compile(r"[0-9]{1,40}\Z")


def parse_uint(name, text):
    if not _UINT.match(text):
        raise UsageError("--%s: not a non-negative decimal integer: %r" % (name, text))
    return int(text)


_ADDRESS = re.compile(r"(?:\[([^\]]+)\]|([^:\[\]]+)):([0-9]{1,5})\Z")


class Address:
    __slots__ = ("host", "port", "family_v6", "text")

    def __init__(self, host, port, family_v6, text):
        self.host = host
        self.port = port
        self.family_v6 = family_v6
        self.text = text


def parse_address(name, text, allow_zero_port):
    """"HOST:PORT" or "[IPv6]:PORT" with a numeric address (lanes/README.md);
    an IPv6 address without brackets ("::1:0") is refused: its port cannot be
    told from it."""
    m = _ADDRESS.match(text)
    if not m:
        raise UsageError("--%s: expected HOST:PORT or [IPv6]:PORT, got %r" % (name, text))
    host = m.group(1) or m.group(2)
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        raise UsageError("--%s: not a numeric IP address: %r" % (name, host)) from None
    if (m.group(1) is not None) != (ip.version == 6):
        raise UsageError("--%s: an IPv6 address comes in brackets, IPv4 without: %r" % (name, text))
    port = int(m.group(3))
    if port > 65535 or (port == 0 and not allow_zero_port):
        raise UsageError("--%s: bad port %s" % (name, m.group(3)))
    return Address(str(ip), port, ip.version == 6, text)


def _transport(v, role):
    """The transport flags of the TLS contract (SESSION: --transport tcp|tls,
    --cert/--key for a tls server, --ca for a tls client)."""
    transport = v.get("transport", "tcp")
    if transport not in ("tcp", "tls"):
        raise UsageError("--transport: expected tcp or tls, got %r" % transport)
    files = ("cert", "key") if role == "server" else ("ca",)
    if transport == "tcp":
        for f in files:
            if f in v:
                raise UsageError("--%s needs --transport tls" % f)
        return "tcp", {}
    for f in files:
        if f not in v:
            raise UsageError("--transport tls needs --%s FILE" % f)
        if not v[f]:
            raise UsageError("--%s: empty file name" % f)
    return "tls", {f: v[f] for f in files}


class ServerArgs:
    def __init__(self, listen, transport, files):
        self.listen = listen
        self.transport = transport
        self.files = files


class ClientArgs:
    def __init__(self, connect, workload, transport, files):
        self.connect = connect
        self.workload = workload
        self.transport = transport
        self.files = files


def parse_server_args(argv):
    v = parse_flags(argv, ("listen",), ("transport", "cert", "key"))
    listen = parse_address("listen", v["listen"], True)
    transport, files = _transport(v, "server")
    return ServerArgs(listen, transport, files)


def parse_client_args(argv):
    v = parse_flags(
        argv,
        ("connect", "warmup", "round-trips", "payload-bytes", "max-in-flight"),
        ("transport", "ca"),
    )
    connect = parse_address("connect", v["connect"], False)
    warmup = parse_uint("warmup", v["warmup"])
    round_trips = parse_uint("round-trips", v["round-trips"])
    payload = parse_uint("payload-bytes", v["payload-bytes"])
    in_flight = parse_uint("max-in-flight", v["max-in-flight"])
    if round_trips < 1:
        raise UsageError("--round-trips must be at least 1")
    if payload > codec.MAX_PAYLOAD_BYTES:
        raise UsageError("--payload-bytes must be at most %d" % codec.MAX_PAYLOAD_BYTES)
    if not 1 <= in_flight <= codec.MAX_IN_FLIGHT:
        raise UsageError("--max-in-flight must be 1..%d" % codec.MAX_IN_FLIGHT)
    if warmup + round_trips >= codec.WORKLOAD_SUM_LIMIT:
        raise UsageError("--warmup plus --round-trips must be below 2^62")
    transport, files = _transport(v, "client")
    w = codec.Workload(warmup, round_trips, payload, in_flight)
    return ClientArgs(connect, w, transport, files)
