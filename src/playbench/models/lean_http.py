"""The lean transport: a minimal HTTP/1.1 keep-alive client for JSON model APIs, on asyncio streams.

Why it exists: a chat-completions call through the `openai` SDK costs about 1.7 ms of client CPU on a
small machine (request building, pydantic models, httpx, anyio), which caps one process at a few
hundred calls per second. The model layer needs much less from HTTP: POST one JSON body to one
origin, read one JSON reply. This client does exactly that for ~0.15 ms a call (see
benchmarks/bench_harness.py), while `RemoteChatModel` keeps every behaviour that matters (retries,
backoff, Retry-After, error classification and wording, usage).

What it does:
- One pool of keep-alive connections per (event loop, base URL, headers), shared by every model
  that uses the same server and key; idle connections expire after `KEEPALIVE_EXPIRY` seconds (as
  httpx's default) and a connection the server has closed is never reused.
- Requests go out in one write: request line, headers, a Content-Length body (`Content-Type:
  application/json`). Replies are read by Content-Length, chunked transfer coding, or to the end of
  the connection; gzip and deflate content codings are decoded; 1xx interim responses are skipped.
- TLS through `ssl` with the CA bundle httpx uses (`SSL_CERT_FILE`, `SSL_CERT_DIR`, else certifi's),
  ALPN http/1.1, SNI.
- Proxies from the environment as httpx reads them (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`,
  `NO_PROXY`): an `http://` proxy, with credentials from its URL; https origins are tunnelled
  through CONNECT. Other proxy schemes (socks5://, https://) are not supported (`unsupported_proxy`).
- A base URL with user:password@ is sent with HTTP basic auth, as httpx does.
- One timeout bounds a whole attempt (connect, send, wait, read).

Failures are raised as `HTTPStatusFailure`, `RequestTimedOut` and `ConnectFailed`, which
`RemoteChatModel._classify` words exactly as it words the SDKs' exceptions.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import ssl
import time
import weakref
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit
from urllib.request import getproxies_environment, proxy_bypass_environment

# How long an idle keep-alive connection may be reused (httpx's default keepalive_expiry).
KEEPALIVE_EXPIRY = 5.0
# Idle connections kept per pool; more in flight at once is fine, the extra ones are closed after use.
MAX_IDLE = 128
# asyncio's default stream limit (64 KiB) bounds one header block or chunk-size line, not the body.
STREAM_LIMIT = 1 << 20


class TransportError(Exception):
    """A request that got no usable HTTP response."""


class HTTPStatusFailure(TransportError):
    """A non-2xx response: its status, headers (names lower-cased) and raw body."""

    def __init__(self, status: int, headers: Mapping[str, str], body: bytes) -> None:
        super().__init__(f"HTTP {status}")
        self.status = status
        self.headers = headers
        self.body = body


class RequestTimedOut(TransportError):
    pass


class ConnectFailed(TransportError):
    """No response: `never_connected` when the connection (or the TLS/proxy setup) failed, False when
    the server closed or reset an established connection before a complete response."""

    def __init__(self, detail: str, never_connected: bool) -> None:
        super().__init__(detail)
        self.detail = detail
        self.never_connected = never_connected


@dataclass(frozen=True)
class _Target:
    scheme: str
    host: str  # without brackets
    port: int
    host_header: str
    path_prefix: str  # the base URL's path, ending in "/"
    query: str
    proxy: str | None


def proxy_for(url: str) -> str | None:
    """The proxy URL the environment names for `url`, as httpx picks it (None: connect directly)."""
    parts = urlsplit(url)
    proxies = getproxies_environment()
    if not {k for k in proxies if k != "no"} or proxy_bypass_environment(parts.hostname or "", proxies):
        return None
    return proxies.get(parts.scheme) or proxies.get("all")


def unsupported_proxy(url: str) -> str | None:
    """Why the lean transport cannot reach `url` through the environment's proxy, or None if it can."""
    proxy = proxy_for(url)
    if proxy is None:
        return None
    parts = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
    if parts.scheme != "http" or not parts.hostname:
        return f"the proxy {parts.scheme}://{parts.hostname or ''} (only http:// proxies are supported)"
    return None


def _target(base_url: str) -> _Target:
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    default = 443 if parts.scheme == "https" else 80
    port = parts.port or default
    shown = f"[{host}]" if ":" in host else host
    host_header = shown if port == default else f"{shown}:{port}"
    prefix = parts.path if parts.path.endswith("/") else parts.path + "/"
    return _Target(parts.scheme, host, port, host_header, prefix, parts.query, proxy_for(base_url))


_SSL_CONTEXTS: dict[tuple[str | None, str | None], ssl.SSLContext] = {}


def ssl_context() -> ssl.SSLContext:
    """Certificate verification as httpx sets it up: SSL_CERT_FILE, SSL_CERT_DIR, else certifi."""
    key = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    if key not in _SSL_CONTEXTS:
        if key[0] and os.path.isfile(key[0]):
            ctx = ssl.create_default_context(cafile=key[0])
        elif key[1] and os.path.isdir(key[1]):
            ctx = ssl.create_default_context(capath=key[1])
        else:
            try:
                import certifi

                ctx = ssl.create_default_context(cafile=certifi.where())
            except ImportError:
                ctx = ssl.create_default_context()
        ctx.set_alpn_protocols(["http/1.1"])
        _SSL_CONTEXTS[key] = ctx
    return _SSL_CONTEXTS[key]


def _basic(userinfo_url: str) -> str | None:
    parts = urlsplit(userinfo_url)
    if parts.username is None and parts.password is None:
        return None
    raw = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}".encode()
    return "Basic " + base64.b64encode(raw).decode("ascii")


class _Conn:
    __slots__ = ("reader", "writer", "idle_since")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer, self.idle_since = reader, writer, 0.0

    def usable(self, now: float) -> bool:
        return (
            now - self.idle_since < KEEPALIVE_EXPIRY
            and not self.reader.at_eof()
            and not self.writer.transport.is_closing()
        )

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class _Pool:
    """Keep-alive connections to one origin, for one event loop."""

    def __init__(self, base_url: str, headers: Mapping[str, str]) -> None:
        self.target = _target(base_url)
        t = self.target
        fixed = dict(headers)
        basic = _basic(base_url)
        if basic is not None:
            fixed = {k: v for k, v in fixed.items() if k.lower() != "authorization"}
            fixed["Authorization"] = basic
        self.proxy_auth = _basic(t.proxy) if t.proxy else None
        if t.proxy and t.scheme == "http" and self.proxy_auth:
            fixed["Proxy-Authorization"] = self.proxy_auth
        # absolute-form request targets through a forwarding proxy, origin-form otherwise
        self.url_head = f"http://{t.host_header}" if t.proxy and t.scheme == "http" else ""
        self.head_tail = "".join(f"{k}: {v}\r\n" for k, v in {"Host": t.host_header, **fixed}.items())
        self.idle: list[_Conn] = []
        self.users = 0

    def request_head(self, path: str, length: int) -> bytes:
        t = self.target
        target = self.url_head + t.path_prefix + path.lstrip("/")
        if t.query:
            target += ("&" if "?" in target else "?") + t.query
        return (
            f"POST {target} HTTP/1.1\r\n{self.head_tail}Accept-Encoding: gzip, deflate\r\n"
            f"Content-Length: {length}\r\n\r\n"
        ).encode("latin-1")

    async def connect(self) -> _Conn:
        t = self.target
        tls = ssl_context() if t.scheme == "https" else None
        try:
            if t.proxy is None:
                reader, writer = await asyncio.open_connection(
                    t.host, t.port, ssl=tls, server_hostname=t.host if tls else None, limit=STREAM_LIMIT
                )
                return _Conn(reader, writer)
            proxy = urlsplit(t.proxy if "://" in t.proxy else f"http://{t.proxy}")
            reader, writer = await asyncio.open_connection(
                proxy.hostname, proxy.port or 80, limit=STREAM_LIMIT
            )
            if tls is None:
                return _Conn(reader, writer)
            await self._tunnel(reader, writer, f"{proxy.hostname}:{proxy.port or 80}")
            await writer.start_tls(tls, server_hostname=t.host)
            return _Conn(reader, writer)
        except ConnectFailed:
            raise
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
            raise ConnectFailed(f"ConnectError: {exc or type(exc).__name__}", never_connected=True) from None

    async def _tunnel(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, proxy: str) -> None:
        t = self.target
        auth = f"Proxy-Authorization: {self.proxy_auth}\r\n" if self.proxy_auth else ""
        writer.write(f"CONNECT {t.host}:{t.port} HTTP/1.1\r\nHost: {t.host}:{t.port}\r\n{auth}\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        status_line = head.split(b"\r\n", 1)[0].decode("latin-1")
        fields = status_line.split(" ", 2)
        if len(fields) < 2 or not fields[1].startswith("2"):
            writer.close()
            raise ConnectFailed(
                f"ProxyError: the proxy {proxy} answered {status_line!r} to CONNECT", never_connected=True
            )

    def checkin(self, conn: _Conn) -> None:
        if len(self.idle) >= MAX_IDLE or self.users <= 0:
            conn.close()
            return
        conn.idle_since = time.monotonic()
        self.idle.append(conn)

    def checkout(self) -> _Conn | None:
        now = time.monotonic()
        while self.idle:
            conn = self.idle.pop()
            if conn.usable(now):
                return conn
            conn.close()
        return None

    async def aclose(self) -> None:
        idle, self.idle = self.idle, []
        for conn in idle:
            conn.close()
        for conn in idle:
            with contextlib.suppress(Exception):
                await conn.writer.wait_closed()


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes, bool]:
    """(status, headers, body, the connection may be reused) of one response."""
    while True:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        fields = lines[0].split(" ", 2)
        if len(fields) < 2 or not fields[0].startswith("HTTP/") or not fields[1].isdigit():
            raise ConnectFailed(
                f"RemoteProtocolError: bad status line {lines[0][:80]!r}", never_connected=False
            )
        status = int(fields[1])
        if not 100 <= status < 200:
            break
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            name, value = name.strip().lower(), value.strip()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
    connection = headers.get("connection", "").lower()
    reuse = "close" not in connection if fields[0] != "HTTP/1.0" else "keep-alive" in connection
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader)
    elif "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif status in (204, 304):
        body = b""
    else:
        body, reuse = await reader.read(), False
    coding = headers.get("content-encoding", "").lower()
    if coding in ("gzip", "x-gzip"):
        body = zlib.decompress(body, 16 + zlib.MAX_WBITS)
    elif coding == "deflate":
        try:
            body = zlib.decompress(body)
        except zlib.error:  # raw deflate without the zlib header, as some servers send it
            body = zlib.decompress(body, -zlib.MAX_WBITS)
    elif coding not in ("", "identity"):
        raise ConnectFailed(f"DecodingError: unsupported Content-Encoding {coding!r}", never_connected=False)
    return status, headers, body, reuse


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    chunks: list[bytes] = []
    while True:
        size_line = await reader.readuntil(b"\r\n")
        size = int(size_line.split(b";", 1)[0].strip(), 16)
        if size == 0:
            while (await reader.readuntil(b"\r\n")) != b"\r\n":  # trailers, if any
                pass
            return b"".join(chunks)
        chunks.append(await reader.readexactly(size))
        await reader.readexactly(2)


# Pools by event loop, then by (base URL, headers): models on one server with one key share one.
_POOLS: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[str, tuple[tuple[str, str], ...]], _Pool]
]
_POOLS = weakref.WeakKeyDictionary()


class LeanClient:
    """One model's handle on the shared pool for its base URL and headers, on the running loop.

    `base_url` reads like the SDK's (with a trailing slash); `close()` releases the handle (the pool
    closes its connections when its last handle is released); `abandon()` forgets a handle whose
    event loop has ended.
    """

    def __init__(self, base_url: str, headers: Mapping[str, str]) -> None:
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        loop = asyncio.get_running_loop()
        pools = _POOLS.setdefault(loop, {})
        key = (self.base_url, tuple(sorted(headers.items())))
        pool = pools.get(key)
        if pool is None:
            pool = pools[key] = _Pool(self.base_url, headers)
        pool.users += 1
        self._pool: _Pool | None = pool
        self._key = key
        self._loop = loop

    async def post(self, path: str, body: bytes, timeout: float) -> bytes:
        """POST `body` (JSON) to base URL + `path`; the 2xx reply's body, else HTTPStatusFailure,
        RequestTimedOut or ConnectFailed."""
        pool = self._pool
        if pool is None:
            raise ConnectFailed("the client is closed", never_connected=True)
        payload = pool.request_head(path, len(body)) + body
        conn: _Conn | None = None
        try:
            async with asyncio.timeout(timeout):
                conn = pool.checkout() or await pool.connect()
                conn.writer.write(payload)
                status, headers, reply, reuse = await _read_response(conn.reader)
        except TimeoutError:
            if conn is not None:
                conn.close()
            raise RequestTimedOut() from None
        except BaseException as exc:
            if conn is not None:
                conn.close()
            if isinstance(exc, asyncio.IncompleteReadError):
                detail = (
                    "RemoteProtocolError: Server disconnected without sending a response."
                    if not exc.partial and conn is not None
                    else "RemoteProtocolError: the server closed the connection mid-response"
                )
                raise ConnectFailed(detail, never_connected=False) from None
            if isinstance(exc, ConnectionError | asyncio.LimitOverrunError | ValueError | zlib.error):
                raise ConnectFailed(
                    f"ReadError: {type(exc).__name__}: {exc}", never_connected=False
                ) from None
            raise
        if reuse:
            pool.checkin(conn)
        else:
            conn.close()
        if not 200 <= status < 300:
            raise HTTPStatusFailure(status, headers, reply)
        return reply

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        pool.users -= 1
        if pool.users <= 0:
            pools = _POOLS.get(self._loop, {})
            if pools.get(self._key) is pool:
                del pools[self._key]
            await pool.aclose()

    def abandon(self) -> None:
        """Forget the pool of an event loop that has ended (its sockets go with the garbage collector)."""
        self._pool = None
