"""A web service that misbehaves, for `wallet-orders check-service` to meet.

    python3 misbehaving_service.py MODE SECONDS

Prints "listening on PORT" on standard error, answers every request on 127.0.0.1 in MODE, and
stops by itself after SECONDS:
- dribble: a 200 head announcing 10,000 bytes of body, then one byte a second;
- bidi: a whole 200 answer at once whose Content-Type (wrong for the request) holds a
  right-to-left override (U+202E), as a hostile server would send (control characters such as
  an escape sequence are refused by the HTTP parser itself).
"""
import socket
import sys
import threading
import time

mode, seconds = sys.argv[1], float(sys.argv[2])
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


while time.monotonic() < ends:
    try:
        connection, _ = listener.accept()
    except socket.timeout:
        continue
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
