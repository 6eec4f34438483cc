"""The Python runtime of crossrun's wire protocol (protocol/SPEC.md): a client
and a server on CPython's standard library, non-blocking sockets under a
selector, over TCP or TLS 1.3."""

__version__ = "1.0.0"
