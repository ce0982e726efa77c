"""A web service that misbehaves, for `wallet-orders check-service` to meet.

    python3 misbehaving_service.py MODE SECONDS [ARCHIVE TOKEN UPDATED]

Prints "listening on PORT" on standard error, answers every request on 127.0.0.1 in MODE, and
stops by itself after SECONDS:
- dribble: a 200 head announcing 10,000 bytes of body, then one byte a second;
- bidi: a whole 200 answer at once whose Content-Type (wrong for the request) holds a
  right-to-left override (U+202E), as a hostile server would send (control characters such as
  an escape sequence are refused by the HTTP parser itself);
- numbers: Apple's protocol for the one order of ARCHIVE (its token TOKEN, its updatedAt UPDATED
  in epoch seconds) with two mistakes seen in services: Last-Modified and If-Modified-Since are
  epoch numbers (an HTTP-date is read as no date, so the archive is always sent again), and the
  changed-orders list asks for the order's Authorization, which Wallet doesn't send there.
"""
import socket
import sys
import threading
import time

mode, seconds = sys.argv[1], float(sys.argv[2])
if mode == "numbers":
    with open(sys.argv[3], "rb") as file:
        archive = file.read()
    token, updated = sys.argv[4], int(sys.argv[5])
registered = set()
listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(64)
listener.settimeout(0.5)
print(f"listening on {listener.getsockname()[1]}", file=sys.stderr, flush=True)
ends = time.monotonic() + seconds


def serve(connection):
    connection.settimeout(5)
    try:
        while True:
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                request += chunk
            if mode == "numbers":
                head, _, body = request.partition(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path = lines[0].split(" ")[:2]
                headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
                length = int(headers.get("content-length", "0"))
                while len(body) < length:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    body += chunk
                connection.sendall(answer_numbers(method, path, headers))
                continue
            if mode == "dribble":
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n")
                while time.monotonic() < ends:
                    connection.sendall(b" ")
                    time.sleep(1)
                return
            body = b"{}"
            hostile = "text/html\u202elmth".encode("utf-8")
            connection.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: " + hostile + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    except OSError:
        pass
    finally:
        connection.close()


def response(status, reason, body=b"", headers=()):
    head = f"HTTP/1.1 {status} {reason}\r\nContent-Length: {len(body)}\r\n" + "".join(f"{name}: {value}\r\n" for name, value in headers)
    return head.encode() + b"\r\n" + body


def answer_numbers(method, path, headers):
    authorized = headers.get("authorization") == "AppleOrder " + token
    parts = path.split("?")[0].split("/")
    if method == "POST" and path == "/v1/log":
        return response(200, "OK")
    if method == "GET" and len(parts) == 5 and parts[1:3] == ["v1", "orders"]:
        if not authorized or "wallet-orders-check-" in parts[4]:
            return response(401, "Unauthorized")
        try:
            if float(headers.get("if-modified-since", "")) >= updated:
                return response(304, "Not Modified")
        except ValueError:
            pass  # an HTTP-date is no number: sent again, every time
        return response(200, "OK", archive, [("Content-Type", "application/vnd.apple.finance.order"), ("Last-Modified", str(updated))])
    if len(parts) == 7 and parts[1:3] == ["v1", "devices"] and method in ("POST", "DELETE"):
        if not authorized:
            return response(401, "Unauthorized")
        if method == "DELETE":
            registered.discard(parts[3])
            return response(200, "OK")
        new = parts[3] not in registered
        registered.add(parts[3])
        return response(201 if new else 200, "Created" if new else "OK")
    if len(parts) == 6 and parts[1:3] == ["v1", "devices"] and method == "GET":
        if not authorized:
            return response(401, "Unauthorized")
        body = b'{"orderIdentifiers": [], "lastModified": "1"}'
        return response(200, "OK", body, [("Content-Type", "application/json")])
    return response(404, "Not Found")


while time.monotonic() < ends:
    try:
        connection, _ = listener.accept()
    except socket.timeout:
        continue
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
