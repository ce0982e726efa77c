#!/usr/bin/python3
"""Loads a preview page in headless Chromium, as a phone would show it, and reports what a test
needs to judge it, as JSON on stdout:

  console     console messages of level warning or error, and uncaught exceptions
  requests    every URL the page asked for that is not a data: URI (a self-contained page: none)
  failed      loads that failed (Network.loadingFailed), data: URIs included
  blocked     "URL REASON" for each load Chromium refused itself (REASON "csp": the page's policy)
  text        document.body.innerText: what a person reads
  scrollWidth, clientWidth   horizontal overflow at the viewport width (390 CSS px by default)
  barcodes    for each <svg class="barcode">: its format and what zbarimg (QR, Code 128) and
              ZXing-C++ (all four) read from a screenshot of it (both independent of zint)
  screenshot  the full page as PNG, with --screenshot FILE
  probes      with --probe NAME=EXPRESSION (repeatable): each expression's value once loaded, as JSON text

--user-agent and --accept-language set what the browser sends (an iPhone's Chrome, French);
--color-scheme the appearance a page that follows the system's sees.

The DevTools protocol over --remote-debugging-pipe (fd 3 in, fd 4 out, NUL-separated JSON): no
WebSocket library needed. Run with Debian's /usr/bin/python3 (python3-zxing-cpp, python3-pil).
"""
import argparse, base64, json, os, shutil, subprocess, sys, tempfile, time


class Browser:
    def __init__(self, chromium, width):
        self.profile = tempfile.mkdtemp(prefix="wallet-orders-browser-")
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        def wire():
            os.dup2(to_child_r, 3)
            os.dup2(from_child_w, 4)

        args = [chromium, "--headless", "--remote-debugging-pipe", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
                "--disable-sync", "--mute-audio", "--hide-scrollbars", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                f"--user-data-dir={self.profile}", f"--window-size={width},900", "about:blank"]
        if os.geteuid() == 0:
            args.append("--no-sandbox")
        self.process = subprocess.Popen(args, preexec_fn=wire, pass_fds=(3, 4),
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=(None if os.environ.get("BROWSER_CHECK_DEBUG") else subprocess.DEVNULL))
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        wanted = self.next_id
        while True:
            reply = self.receive()
            if reply.get("id") == wanted:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def receive(self, deadline=60):
        end = time.time() + deadline
        while b"\0" not in self.buffer:
            if time.time() > end:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def wait_for(self, method, session, deadline=60):
        for event in self.events:
            if event.get("method") == method and event.get("sessionId") == session:
                return event
        end = time.time() + deadline
        while time.time() < end:
            event = self.receive(deadline)
            self.events.append(event)
            if event.get("method") == method and event.get("sessionId") == session:
                return event
        raise TimeoutError(method)

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def decode(png_path):
    found = []
    zbar = subprocess.run(["zbarimg", "--quiet", "--raw", png_path], capture_output=True)
    zbar_text = zbar.stdout.decode("utf-8", "replace").splitlines() if zbar.returncode == 0 else []
    import zxingcpp
    from PIL import Image
    zxing_text = [result.text for result in zxingcpp.read_barcodes(Image.open(png_path))]
    return zbar_text, zxing_text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("page")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--width", type=int, default=390)
    parser.add_argument("--screenshot")
    parser.add_argument("--barcode-folder")
    parser.add_argument("--probe", action="append", default=[], metavar="NAME=EXPRESSION")
    parser.add_argument("--user-agent")
    parser.add_argument("--accept-language")
    parser.add_argument("--color-scheme", choices=("light", "dark"), help="the prefers-color-scheme the page sees")
    parser.add_argument("--edit", nargs=3, metavar=("FILE", "OLD", "NEW"),
                        help="after the load, replace OLD with NEW in FILE and wait (15 s at most) for the page "
                             "to reload itself; report its new text as editedText")
    options = parser.parse_args()

    browser = Browser(options.chromium, options.width)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.send(f"{domain}.enable", session=session)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": options.width, "height": 844, "deviceScaleFactor": 2, "mobile": True}, session=session)
        if options.user_agent or options.accept_language:
            override = {"userAgent": options.user_agent or browser.send("Browser.getVersion")["userAgent"]}
            if options.accept_language:
                override["acceptLanguage"] = options.accept_language
            browser.send("Emulation.setUserAgentOverride", override, session=session)
        if options.color_scheme:
            browser.send("Emulation.setEmulatedMedia",
                         {"features": [{"name": "prefers-color-scheme", "value": options.color_scheme}]}, session=session)
        url = options.page if options.page.startswith("http") else "file://" + os.path.abspath(options.page)
        origin = "/".join(url.split("/")[:3]) if url.startswith("http") else None
        browser.send("Page.navigate", {"url": url}, session=session)
        browser.wait_for("Page.loadEventFired", session)
        evaluate = lambda expression: browser.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=session)["result"].get("value")
        report = {
            "text": evaluate("document.body.innerText"),
            "scrollWidth": evaluate("document.documentElement.scrollWidth"),
            "clientWidth": evaluate("document.documentElement.clientWidth"),
            "brokenImages": evaluate("[...document.images].filter(i => !i.complete || i.naturalWidth === 0).length"),
        }
        report["probes"] = {}
        for probe in options.probe:
            name, _, expression = probe.partition("=")
            report["probes"][name] = evaluate(f"JSON.stringify({expression})")
        boxes = evaluate("""[...document.querySelectorAll('svg.barcode')].map(e => {
            const r = e.getBoundingClientRect();
            return {format: e.dataset.format, x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height};
        })""")
        folder = options.barcode_folder or tempfile.mkdtemp(prefix="wallet-orders-barcodes-")
        os.makedirs(folder, exist_ok=True)
        report["barcodes"] = []
        for index, box in enumerate(boxes):
            margin = 12
            clip = {"x": max(box["x"] - margin, 0), "y": max(box["y"] - margin, 0),
                    "width": box["width"] + 2 * margin, "height": box["height"] + 2 * margin, "scale": 1}
            shot = browser.send("Page.captureScreenshot",
                                {"format": "png", "clip": clip, "captureBeyondViewport": True}, session=session)
            path = os.path.join(folder, f"barcode-{index}-{box['format']}.png")
            with open(path, "wb") as file:
                file.write(base64.b64decode(shot["data"]))
            zbar, zxing = decode(path)
            report["barcodes"].append({"format": box["format"], "zbar": zbar, "zxing": zxing, "png": path})
        if options.screenshot:
            height = evaluate("document.documentElement.scrollHeight")
            shot = browser.send("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": options.width, "height": height, "scale": 1}}, session=session)
            with open(options.screenshot, "wb") as file:
                file.write(base64.b64decode(shot["data"]))
        if options.edit:
            path, old, new = options.edit
            loads = sum(1 for e in browser.events if e.get("method") == "Page.loadEventFired")
            with open(path, encoding="utf-8") as file:
                text = file.read()
            with open(path, "w", encoding="utf-8") as file:
                file.write(text.replace(old, new))
            end = time.time() + 15
            while sum(1 for e in browser.events if e.get("method") == "Page.loadEventFired") == loads and time.time() < end:
                browser.events.append(browser.receive(15))
            report["editedText"] = evaluate("document.body.innerText")
        time.sleep(0.2)
        while True:  # drain what arrived after the load
            try:
                os.set_blocking(browser.from_child, False)
                chunk = os.read(browser.from_child, 1 << 20)
                if not chunk:
                    break
                browser.buffer += chunk
            except BlockingIOError:
                break
            finally:
                os.set_blocking(browser.from_child, True)
        while b"\0" in browser.buffer:
            browser.events.append(browser.receive())
        console, requests, failed, blocked, urls = [], [], [], [], {}
        for event in browser.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
                console.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                console.append(params.get("exceptionDetails", {}).get("text", "exception"))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
                console.append(params["entry"].get("text", ""))
            elif method == "Network.requestWillBeSent":
                url = params.get("request", {}).get("url", "")
                urls[params.get("requestId")] = url
                if not url.startswith("data:") and not url.startswith("file://") and not (origin and url.startswith(origin + "/")):
                    requests.append(url)
            elif method == "Network.loadingFailed":
                failed.append(params.get("errorText", "failed"))
                if params.get("blockedReason"):
                    blocked.append(urls.get(params.get("requestId"), "?") + " " + params["blockedReason"])
        report.update({"console": console, "requests": requests, "failed": failed, "blocked": blocked})
        print(json.dumps(report))
    finally:
        browser.close()


if __name__ == "__main__":
    main()
