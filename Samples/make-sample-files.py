#!/usr/bin/env python3
"""Regenerate every binary file (PNG images, PDF receipts and labels) of the sample orders and pass.

Usage (from anywhere):

    python3 Samples/make-sample-files.py            # rewrite the files next to this script
    python3 Samples/make-sample-files.py --check    # exit 1 if any file on disk differs

Pure Python 3 (zlib + struct only, no PIL). The output is deterministic: running the
script again rewrites every file byte for byte. The order.json and order.strings files are
hand-written data and are not touched.

Images are 8-bit RGB PNGs without alpha, drawn on a 300 x 300 logical canvas and rendered at
1x (300 px), and where a sample uses them 2x (600 px) and 3x (900 px), with flat colours
(no anti-aliasing) so they compress to a few kilobytes each.
"""

import argparse
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------
# PNG writing
# ---------------------------------------------------------------------------------------


def png_bytes(width, height, rows):
    """Encode rows (bytearrays of width*3 RGB bytes) as an 8-bit RGB PNG, filter type 0."""

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(row) for row in rows)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit, colour type 2 (RGB)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def rgb(hex_colour):
    hex_colour = hex_colour.lstrip("#")
    return bytes(int(hex_colour[i : i + 2], 16) for i in (0, 2, 4))


class Canvas:
    """A flat-colour raster addressed in logical 300 x 300 coordinates, scaled by `scale`."""

    SIZE = 300

    def __init__(self, scale, background):
        self.scale = scale
        self.px = self.SIZE * scale
        bg = rgb(background)
        self.rows = [bytearray(bg * self.px) for _ in range(self.px)]

    def _p(self, v):
        return int(round(v * self.scale))

    def _span(self, y, x0, x1, colour):
        if y < 0 or y >= self.px:
            return
        x0, x1 = max(0, x0), min(self.px, x1)
        if x1 > x0:
            self.rows[y][x0 * 3 : x1 * 3] = colour * (x1 - x0)

    def rect(self, x, y, w, h, colour):
        c = rgb(colour)
        x0, x1 = self._p(x), self._p(x + w)
        for py in range(self._p(y), self._p(y + h)):
            self._span(py, x0, x1, c)

    def ellipse(self, cx, cy, rx, ry, colour, y_from=None, y_to=None):
        """Filled ellipse; y_from/y_to (logical) clip it, e.g. for half discs."""
        c = rgb(colour)
        s = self.scale
        top = cy - ry if y_from is None else max(cy - ry, y_from)
        bottom = cy + ry if y_to is None else min(cy + ry, y_to)
        for py in range(self._p(top), self._p(bottom)):
            ly = (py + 0.5) / s - cy
            t = 1.0 - (ly * ly) / (ry * ry)
            if t <= 0:
                continue
            half = rx * t ** 0.5
            self._span(py, self._p(cx - half), self._p(cx + half), c)

    def disc(self, cx, cy, r, colour, **clip):
        self.ellipse(cx, cy, r, r, colour, **clip)

    def polygon(self, points, colour):
        """Filled polygon (even-odd scanline fill), points in logical coordinates."""
        c = rgb(colour)
        s = self.scale
        ys = [p[1] for p in points]
        n = len(points)
        for py in range(self._p(min(ys)), self._p(max(ys))):
            ly = (py + 0.5) / s
            xs = []
            for i in range(n):
                (ax, ay), (bx, by) = points[i], points[(i + 1) % n]
                if (ay <= ly < by) or (by <= ly < ay):
                    xs.append(ax + (ly - ay) * (bx - ax) / (by - ay))
            xs.sort()
            for i in range(0, len(xs) - 1, 2):
                self._span(py, self._p(xs[i]), self._p(xs[i + 1]), c)

    def text(self, x, y, string, cell, colour, spacing=1):
        """Draw `string` with the 5 x 7 bitmap font; `cell` is the logical size of one dot."""
        for ch in string:
            glyph = FONT[ch]
            for gy, line in enumerate(glyph):
                for gx, dot in enumerate(line):
                    if dot == "#":
                        self.rect(x + gx * cell, y + gy * cell, cell, cell, colour)
            x += (len(glyph[0]) + spacing) * cell

    def text_width(self, string, cell, spacing=1):
        return sum((len(FONT[ch][0]) + spacing) * cell for ch in string) - spacing * cell

    def png(self):
        return png_bytes(self.px, self.px, self.rows)


# A tiny 5 x 7 bitmap font (plus one 7 x 7 CJK glyph) for monograms and language tags.
FONT = {
    "A": [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
    "C": [".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."],
    "E": ["#####", "#....", "#....", "####.", "#....", "#....", "#####"],
    "F": ["#####", "#....", "#....", "####.", "#....", "#....", "#...."],
    "H": ["#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
    "K": ["#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"],
    "L": ["#....", "#....", "#....", "#....", "#....", "#....", "#####"],
    "M": ["#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"],
    "N": ["#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#", "#...#"],
    "P": ["####.", "#...#", "#...#", "####.", "#....", "#....", "#...."],
    "R": ["####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"],
    "W": ["#...#", "#...#", "#...#", "#.#.#", "#.#.#", "##.##", "#...#"],
    "中": ["...#...", "#######", "#..#..#", "#..#..#", "#######", "...#...", "...#..."],
}

# ---------------------------------------------------------------------------------------
# PDF writing
# ---------------------------------------------------------------------------------------


def pdf_escape(text):
    out = []
    for ch in text:
        if ch in "\\()":
            out.append("\\" + ch)
        elif ch == "£":
            out.append("\\243")  # WinAnsiEncoding
        elif ord(ch) < 128:
            out.append(ch)
        else:
            raise ValueError("unsupported PDF character %r" % ch)
    return "".join(out)


def pdf_bytes(width, height, ops, title):
    """A one-page PDF 1.4 with Helvetica / Helvetica-Bold and an uncompressed content stream.

    `ops` is a list of drawing commands:
      ("text", x, y, size, bold, string)   text baseline at (x, y), points from bottom-left
      ("rect", x, y, w, h, grey)           filled rectangle, grey 0 (black) .. 1 (white)
      ("line", x0, y0, x1, y1, width)      stroked black line
    """
    content = []
    for op in ops:
        if op[0] == "text":
            _, x, y, size, bold, string = op
            font = "/F2" if bold else "/F1"
            content.append("BT %s %g Tf %g %g Td (%s) Tj ET" % (font, size, x, y, pdf_escape(string)))
        elif op[0] == "rect":
            _, x, y, w, h, grey = op
            content.append("%g g %g %g %g %g re f 0 g" % (grey, x, y, w, h))
        elif op[0] == "line":
            _, x0, y0, x1, y1, lw = op
            content.append("%g w %g %g m %g %g l S" % (lw, x0, y0, x1, y1))
        else:
            raise ValueError(op[0])
    stream = ("\n".join(content) + "\n").encode("latin-1")

    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] "
            "/Resources << /Font << /F1 4 0 R /F2 5 0 R >> >> /Contents 6 0 R >>" % (width, height)
        ).encode("ascii"),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"endstream",
        ("<< /Title (%s) /Producer (wallet-orders make-sample-files.py) >>" % pdf_escape(title)).encode(
            "latin-1"
        ),
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 %d\n" % (len(objects) + 1)
    out += b"0000000000 65535 f \n"
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\n" % (len(objects) + 1, len(objects))
    out += b"startxref\n%d\n%%%%EOF\n" % xref_at
    return bytes(out)


def barcode_ops(x, y, height, data, module=1.2):
    """Decorative 1-D bar pattern derived from `data` (a stand-in for a carrier barcode)."""
    ops = []
    cursor = x
    for i, ch in enumerate(data.encode("ascii")):
        for bit in range(6):
            wide = (ch >> bit) & 1
            width = module * (2 if wide else 1)
            if (i + bit) % 2 == 0:
                ops.append(("rect", round(cursor, 2), y, round(width, 2), height, 0))
            cursor += width
    return ops


# ---------------------------------------------------------------------------------------
# Drawings
# ---------------------------------------------------------------------------------------

# -- shipped-ecommerce: Northwind Outfitters (outdoor gear) --------------------------------


def northwind_logo(c):
    c.rect(0, 0, 300, 300, "1F4D3A")
    c.polygon([(30, 200), (115, 70), (200, 200)], "E8E2D0")
    c.polygon([(120, 200), (190, 95), (270, 200)], "C9D6C4")
    c.polygon([(92, 105), (115, 70), (138, 105), (115, 96)], "FFFFFF")
    c.rect(30, 200, 240, 6, "E8E2D0")
    w = c.text_width("NW", 8)
    c.text(150 - w / 2, 222, "NW", 8, "E8E2D0")


def backpack(c):
    c.disc(150, 110, 70, "C2532E", y_to=110)
    c.rect(80, 110, 140, 130, "C2532E")
    c.rect(105, 165, 90, 55, "9E3F20")
    c.rect(105, 165, 90, 6, "2E2E2E")
    c.rect(130, 50, 40, 14, "2E2E2E")
    c.rect(92, 80, 10, 150, "7A2E16")
    c.rect(198, 80, 10, 150, "7A2E16")
    c.rect(80, 240, 140, 10, "2E2E2E")


def bottle(c):
    c.rect(110, 95, 80, 170, "3C7DBF")
    c.disc(150, 95, 40, "3C7DBF", y_to=95)
    c.rect(128, 48, 44, 20, "2E2E2E")
    c.rect(134, 40, 32, 10, "2E2E2E")
    for y in (150, 170, 190):
        c.rect(110, y, 80, 8, "D9E6F2")
    c.rect(110, 258, 80, 7, "2B5C8C")


def socks(c):
    for x0, colour in ((70, "6B8E4E"), (150, "B5763A")):
        c.rect(x0, 50, 52, 150, colour)
        c.rect(x0, 170, 92, 52, colour)
        c.disc(x0 + 92, 196, 26, colour)
        c.rect(x0, 50, 52, 22, "E8E2D0")
        c.rect(x0, 80, 52, 6, "E8E2D0")
        c.rect(x0 + 60, 170, 32, 52, "E8E2D0")


# -- store-pickup: Komorebi Stationery (Tokyo) ---------------------------------------------


def komorebi_logo(c):
    c.rect(0, 0, 300, 300, "F4EFE3")
    c.disc(150, 150, 118, "2F6B4F")
    c.disc(150, 150, 104, "F4EFE3")
    w = c.text_width("K", 20)
    c.text(150 - w / 2, 80, "K", 20, "2F6B4F")
    c.disc(206, 88, 14, "E0A23B")


def fountain_pen(c):
    c.polygon([(60, 250), (75, 265), (225, 115), (210, 100)], "1E3A6E")
    c.polygon([(210, 100), (225, 115), (250, 60), (265, 45), (245, 55)], "D4AF37")
    c.polygon([(95, 215), (110, 230), (125, 215), (110, 200)], "D4AF37")
    c.polygon([(40, 270), (50, 280), (75, 265), (60, 250)], "142A52")


def notebook(c):
    c.rect(70, 40, 170, 220, "C9503A")
    c.rect(70, 40, 22, 220, "8E3323")
    c.rect(110, 70, 110, 160, "F7F3EA")
    for gy in range(80, 226, 14):
        for gx in range(120, 216, 14):
            c.rect(gx, gy, 3, 3, "9A9486")
    c.rect(205, 40, 12, 240, "2B2B2B")


# -- localized: Maison Lumière (tea); one variant per language ------------------------------

LANGS = {
    # lproj: (tag text, background, accent)
    "en": ("EN", "E9EEF6", "1F3B73"),
    "fr": ("FR", "F7E8E6", "8C1C2C"),
    "zh-Hans": ("中", "F9EFD2", "B22222"),
}


def lang_tag(c, lang):
    tag, _, accent = LANGS[lang]
    w = c.text_width(tag, 5)
    c.rect(292 - w - 16, 8, w + 16, 51, accent)
    c.text(292 - w - 8, 16, tag, 5, "FFFFFF")


def lumiere_logo(c, lang):
    _, bg, accent = LANGS[lang]
    c.rect(0, 0, 300, 300, bg)
    c.disc(150, 155, 105, accent)
    c.disc(150, 155, 93, bg)
    w = c.text_width("ML", 11)
    c.text(150 - w / 2, 117, "ML", 11, accent)
    c.rect(0, 270, 300, 30, accent)
    lang_tag(c, lang)


def teapot(c, lang):
    _, _, accent = LANGS[lang]
    c.polygon([(205, 175), (265, 120), (275, 128), (220, 200)], "3A3A3A")  # spout
    c.disc(70, 172, 40, "3A3A3A")  # handle ring
    c.disc(70, 172, 24, LANGS[lang][1])
    c.ellipse(150, 180, 80, 68, "3A3A3A")  # body
    c.rect(95, 108, 110, 14, "2A2A2A")  # lid
    c.disc(150, 100, 12, accent)  # knob
    c.rect(85, 178, 130, 10, accent)  # decorative band
    c.rect(70, 250, 160, 10, "2A2A2A")
    lang_tag(c, lang)


def tea_tin(c, lang):
    _, _, accent = LANGS[lang]
    c.rect(95, 90, 110, 170, "B08D57")
    c.rect(88, 70, 124, 32, "7D6238")
    c.rect(95, 140, 110, 70, accent)
    c.ellipse(150, 175, 26, 18, "F4E9D4")
    c.rect(95, 252, 110, 8, "7D6238")
    lang_tag(c, lang)


# -- returns-and-transactions: Fernhill Home, sold through Parcelly ------------------------


def fernhill_logo(c):
    c.rect(0, 0, 300, 300, "FBF7F0")
    c.disc(150, 230, 130, "7A9A6B", y_to=230)
    c.disc(215, 230, 80, "5B7A4E", y_to=230)
    c.rect(0, 230, 300, 70, "5B7A4E")
    w = c.text_width("F", 14)
    c.text(150 - w / 2, 112, "F", 14, "FBF7F0")


def duvet(c):
    c.rect(40, 70, 220, 170, "E6DCCB")
    for y in range(82, 240, 22):
        c.rect(40, y, 220, 5, "CDBFA6")
    c.rect(40, 70, 220, 30, "F5F0E6")
    c.rect(40, 234, 220, 6, "B8A88C")


def mugs(c):
    colours = ("2F5D7C", "C77D4A", "7A9A6B", "D9C7A0")
    for i, colour in enumerate(colours):
        x = 30 + (i % 2) * 130
        y = 40 + (i // 2) * 125
        c.disc(x + 88, y + 50, 24, colour)
        c.disc(x + 88, y + 50, 13, "F4F1EC")
        c.rect(x, y, 85, 100, colour)
        c.rect(x, y, 85, 8, "FFFFFF")


def wool_throw(c):
    c.rect(45, 45, 210, 210, "8E2F3C")
    for v in range(55, 255, 40):
        c.rect(v, 45, 10, 210, "2E3B4E")
        c.rect(45, v, 210, 10, "2E3B4E")
    for v in range(70, 255, 40):
        c.rect(v, 45, 3, 210, "E3C15B")
        c.rect(45, v, 210, 3, "E3C15B")
    for x in range(48, 252, 8):
        c.rect(x, 255, 4, 16, "8E2F3C")
        c.rect(x, 29, 4, 16, "8E2F3C")


def parcelly_logo(c, dark):
    bg, fg, box = ("16181D", "F2F4F7", "F5A524") if dark else ("FFFFFF", "16181D", "E08A00")
    c.rect(0, 0, 300, 300, bg)
    c.polygon([(150, 40), (250, 90), (150, 140), (50, 90)], box)  # box top
    c.polygon([(50, 90), (150, 140), (150, 260), (50, 210)], fg)  # left face
    c.polygon([(150, 140), (250, 90), (250, 210), (150, 260)], box)  # right face
    c.polygon([(95, 67), (195, 117), (205, 112), (105, 62)], bg)  # tape
    w = c.text_width("P", 9)
    c.text(75 - w / 2 + 25, 150, "P", 9, bg)


# ---------------------------------------------------------------------------------------
# PDFs
# ---------------------------------------------------------------------------------------

A4 = (595, 842)


def receipt_ops(heading, lines, total_label, total, footer):
    ops = [
        ("rect", 0, 782, 595, 60, 0.2),
        ("text", 50, 805, 22, True, "Fernhill Home"),
        ("text", 50, 740, 16, True, heading),
        ("text", 50, 718, 10, False, "Order FH-204417  |  Order placed 3 March 2025"),
        ("text", 50, 704, 10, False, "Sold through Parcelly (parcelly.example) on behalf of Fernhill Home Ltd"),
        ("line", 50, 690, 545, 690, 0.8),
    ]
    y = 668
    for left, right in lines:
        ops.append(("text", 50, y, 11, False, left))
        ops.append(("text", 470, y, 11, False, right))
        y -= 20
    ops.append(("line", 50, y + 8, 545, y + 8, 0.8))
    ops.append(("text", 50, y - 12, 12, True, total_label))
    ops.append(("text", 470, y - 12, 12, True, total))
    fy = y - 60
    for text in footer:
        ops.append(("text", 50, fy, 9, False, text))
        fy -= 14
    return ops


def purchase_receipt():
    return pdf_bytes(
        *A4,
        receipt_ops(
            "Receipt",
            [
                ("1 x Linen duvet cover, king, oat", "£89.00"),
                ("1 x Stoneware mug set of 4, mixed", "£36.00"),
                ("1 x Lambswool throw, heather check", "£64.00"),
                ("Subtotal", "£189.00"),
                ("Standard delivery", "£4.95"),
                ("Discount (WELCOME10)", "-£10.00"),
            ],
            "Total paid",
            "£183.95",
            [
                "Paid 3 March 2025 with Mastercard ending 5100 (Apple Pay).",
                "Prices include VAT at 20% (£30.66). VAT reg. GB 000 0000 00 (sample).",
                "Sample document generated for the wallet-orders test suite.",
            ],
        ),
        "Fernhill Home receipt FH-204417",
    )


def refund_receipt():
    return pdf_bytes(
        *A4,
        receipt_ops(
            "Refund confirmation",
            [
                ("Return RMA-30521 received 12 March 2025", ""),
                ("1 x Lambswool throw, heather check", "£64.00"),
            ],
            "Total refunded",
            "£64.00",
            [
                "Refunded 14 March 2025 to Mastercard ending 5100 (Apple Pay).",
                "Refunds can take 3 to 5 working days to appear on your statement.",
                "Sample document generated for the wallet-orders test suite.",
            ],
        ),
        "Fernhill Home refund FH-204417",
    )


def return_label():
    # A 4 x 6 inch shipping label (288 x 432 pt).
    ops = [
        ("rect", 8, 8, 272, 416, 1),
        ("line", 8, 8, 280, 8, 1.5),
        ("line", 280, 8, 280, 424, 1.5),
        ("line", 280, 424, 8, 424, 1.5),
        ("line", 8, 424, 8, 8, 1.5),
        ("text", 20, 400, 14, True, "ROYAL MAIL  Tracked Returns 48"),
        ("text", 20, 384, 9, False, "Postage paid  |  No stamp needed"),
        ("line", 8, 374, 280, 374, 1),
        ("text", 20, 356, 8, False, "FROM"),
        ("text", 20, 342, 10, False, "Amelia Hartley"),
        ("text", 20, 329, 10, False, "14 Rowan Crescent, Bristol BS6 7QA"),
        ("line", 8, 316, 280, 316, 1),
        ("text", 20, 298, 8, False, "TO"),
        ("text", 20, 280, 13, True, "Fernhill Home Returns"),
        ("text", 20, 264, 12, False, "Unit 7, Cotswold Park"),
        ("text", 20, 248, 12, False, "Cirencester GL7 1YQ"),
        ("text", 20, 232, 12, False, "United Kingdom"),
        ("line", 8, 218, 280, 218, 1),
    ]
    ops += barcode_ops(28, 120, 80, "RMA30521FH204417")
    ops += [
        ("text", 60, 104, 11, True, "RMA-30521  FH-204417"),
        ("line", 8, 92, 280, 92, 1),
        ("text", 20, 72, 9, False, "Drop off by 24 March 2025 at any Post Office"),
        ("text", 20, 58, 9, False, "or Parcelshop. Keep your proof of postage."),
        ("text", 20, 30, 7, False, "Sample label for the wallet-orders test suite - not valid postage."),
    ]
    return pdf_bytes(288, 432, ops, "Return label RMA-30521")


# ---------------------------------------------------------------------------------------
# Catalogue of every generated file
# ---------------------------------------------------------------------------------------


def image(draw, *args, scale=1):
    def render():
        canvas = Canvas(scale, "FFFFFF")
        draw(canvas, *args)
        return canvas.png()

    return render


def canvas_bg(draw, background):
    """Wrap a drawing that only paints the foreground onto a solid background colour."""

    def wrapped(c, *args):
        c.rect(0, 0, 300, 300, background)
        draw(c, *args)

    return wrapped


def lang_background(draw):
    def wrapped(c, lang):
        c.rect(0, 0, 300, 300, LANGS[lang][1])
        draw(c, lang)

    return wrapped


def pass_image(width, height, background, band):
    """A pass image at its display size in pixels: a flat background with a band across it."""

    def render():
        back, stripe = rgb(background), rgb(band)
        rows = []
        for y in range(height):
            colour = stripe if height * 2 // 5 <= y < height * 3 // 5 else back
            rows.append(bytearray(colour * width))
        return png_bytes(width, height, rows)

    return render


def catalogue():
    files = {
        "shipped-ecommerce/logo.png": image(northwind_logo),
        "shipped-ecommerce/backpack.png": image(canvas_bg(backpack, "F1ECE2")),
        "shipped-ecommerce/bottle.png": image(canvas_bg(bottle, "EEF2F5")),
        "shipped-ecommerce/socks.png": image(canvas_bg(socks, "F3F0EA")),
        "store-pickup/logo.png": image(komorebi_logo),
        "store-pickup/fountain-pen.png": image(canvas_bg(fountain_pen, "EFEAE0")),
        "store-pickup/notebook.png": image(canvas_bg(notebook, "E9EEF0")),
        "returns-and-transactions/logo.png": image(fernhill_logo),
        "returns-and-transactions/duvet-cover.png": image(canvas_bg(duvet, "F4F1EC")),
        "returns-and-transactions/mug-set.png": image(canvas_bg(mugs, "F4F1EC")),
        "returns-and-transactions/wool-throw.png": image(canvas_bg(wool_throw, "F4F1EC")),
        "returns-and-transactions/parcelly-logo-dark.png": image(parcelly_logo, True),
        "returns-and-transactions/parcelly-logo-light.png": image(parcelly_logo, False),
        "returns-and-transactions/receipt-purchase.pdf": purchase_receipt,
        "returns-and-transactions/receipt-refund.pdf": refund_receipt,
        "returns-and-transactions/return-label.pdf": return_label,
    }
    # The event ticket pass: icon (29 x 29 pt) and logo (160 x 50 pt) at @1x, @2x and @3x.
    for scale, suffix in ((1, ""), (2, "@2x"), (3, "@3x")):
        files["event-ticket-pass/icon%s.png" % suffix] = pass_image(29 * scale, 29 * scale, "1F3A5F", "F2C14E")
        files["event-ticket-pass/logo%s.png" % suffix] = pass_image(160 * scale, 50 * scale, "1F3A5F", "F2C14E")
    for lang in LANGS:
        for name, draw in (
            ("logo", lumiere_logo),
            ("teapot", lang_background(teapot)),
            ("tea-tin", lang_background(tea_tin)),
        ):
            for scale, suffix in ((1, ""), (2, "@2x"), (3, "@3x")):
                path = "localized/%s.lproj/%s%s.png" % (lang, name, suffix)
                files[path] = image(draw, lang, scale=scale)
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the files on disk, write nothing")
    args = parser.parse_args()

    stale = []
    for rel, render in sorted(catalogue().items()):
        data = render()
        path = os.path.join(HERE, *rel.split("/"))
        if args.check:
            try:
                with open(path, "rb") as f:
                    if f.read() == data:
                        continue
            except FileNotFoundError:
                pass
            stale.append(rel)
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        print("%8d  %s" % (len(data), rel))
    if args.check:
        for rel in stale:
            print("differs: %s" % rel, file=sys.stderr)
        print("%s" % ("all files up to date" if not stale else "%d file(s) differ" % len(stale)))
        return 1 if stale else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
