#!/usr/bin/env python3
"""Build a signed Apple Wallet order archive (.order) with stock Python tooling.

This script is deliberately independent of the wallet-orders Swift code. It packages an
order the way third-party tools do (hashlib for the manifest, pyca/cryptography for the
PKCS #7 signature, zipfile for the container), so the Swift tests can prove the verifier
accepts archives made by others.

    make_order_archive.py SOURCE_DIR OUT.order --cert CERT.pem --key KEY.pem --wwdr WWDR.pem
        [--directory-entries] [--stored | --mixed-compression] [--escape-slashes]
        [--signing-time 2026-01-01T00:00:00Z]

What it does:

1. Hashes every file under SOURCE_DIR (SHA-256, lowercase hex). Dotfiles and dot-directories
   (.DS_Store, .gitkeep, ...) and __MACOSX/ are skipped. SOURCE_DIR must contain order.json
   at its top level and must not already contain manifest.json or signature.
2. Writes manifest.json as json.dumps(manifest, sort_keys=True) (no trailing newline).
   --escape-slashes writes every "/" in the keys as "\\/" (equivalent JSON, as Apple's pass
   example does).
3. Signs those exact manifest.json bytes with cryptography's PKCS7SignatureBuilder: SHA-256,
   options DetachedSignature + Binary, the WWDR certificate added with add_certificate, DER
   output. The library adds the signed attributes contentType, signingTime (the current
   time), messageDigest and smimeCapabilities; SignerInfo.signatureAlgorithm is
   rsaEncryption for RSA keys.
4. Writes the ZIP with zipfile: the source files in sorted path order, then manifest.json,
   then signature. Default: every entry deflated. --stored: every entry stored.
   --mixed-compression: images (.png .jpg .jpeg .gif) stored, everything else deflated.
   --directory-entries: adds an explicit "dir/" entry (e.g. "fr.lproj/") before the files
   of each directory, as php-pkpass does. Directory entries are never in the manifest.

--signing-time: cryptography has no API for choosing the signing time. When the flag is
given, the script takes the library's DER output, replaces the value of the signingTime
signed attribute (UTCTime for 1950-2049, GeneralizedTime otherwise, per RFC 5652), and
recomputes the signer's signature over the new signed attributes with the same key
(RSA PKCS #1 v1.5 or ECDSA, SHA-256). Everything else, including messageDigest, is the
library's output. The flag also pins every ZIP entry timestamp to that time, so with an RSA
key the whole archive is byte-for-byte reproducible. Without the flag, the signing time is
"now", source entries carry the files' modification times, and manifest.json/signature the
current time.

Exit status: 0 on success, 1 on bad input (message on stderr), 2 on bad usage.
Requires Python 3.8+ and the `cryptography` package (tested with 48.0).
"""

import argparse
import datetime as dt
import hashlib
import json
import os
import sys
import tempfile
import time
import zipfile

try:
    from cryptography import x509
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
    from cryptography.hazmat.primitives.serialization import pkcs7
except ImportError as exc:  # pragma: no cover - environment problem
    sys.stderr.write("make_order_archive.py: error: the 'cryptography' package is required (%s)\n" % exc)
    sys.exit(1)

PROG = "make_order_archive.py"
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif")
RESERVED = ("manifest.json", "signature")


class InputError(Exception):
    """Bad input: reported as one line on stderr, exit status 1."""


# ---------------------------------------------------------------------------------------
# Source directory and manifest
# ---------------------------------------------------------------------------------------


def collect_files(source_dir):
    """Return sorted archive paths ("a/b.png") of every file to package."""
    if not os.path.exists(source_dir):
        raise InputError("SOURCE_DIR %r does not exist" % source_dir)
    if not os.path.isdir(source_dir):
        raise InputError("SOURCE_DIR %r is not a directory" % source_dir)
    paths = []
    for root, dirs, files in os.walk(source_dir):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__MACOSX"]
        for name in files:
            if name.startswith("."):
                continue  # .DS_Store, .gitkeep and other dotfiles
            full = os.path.join(root, name)
            if not os.path.isfile(full):
                continue  # sockets, dangling symlinks, ...
            rel = os.path.relpath(full, source_dir).replace(os.sep, "/")
            paths.append(rel)
    paths.sort()
    for reserved in RESERVED:
        if reserved in paths:
            raise InputError(
                "SOURCE_DIR already contains %s; pass the unsigned order source directory" % reserved
            )
    if "order.json" not in paths:
        raise InputError("SOURCE_DIR %r has no order.json at its top level" % source_dir)
    return paths


def read_sources(source_dir, paths):
    contents = {}
    for rel in paths:
        full = os.path.join(source_dir, *rel.split("/"))
        try:
            with open(full, "rb") as f:
                contents[rel] = f.read()
        except OSError as exc:
            raise InputError("cannot read %s: %s" % (full, exc.strerror or exc))
    return contents


def manifest_bytes(contents, escape_slashes):
    manifest = {rel: hashlib.sha256(data).hexdigest() for rel, data in contents.items()}
    text = json.dumps(manifest, sort_keys=True)
    if escape_slashes:
        # Only keys can contain "/": the values are hex digests.
        text = text.replace("/", "\\/")
    return text.encode("utf-8")


# ---------------------------------------------------------------------------------------
# Certificates and keys
# ---------------------------------------------------------------------------------------


def read_bytes(path, what):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise InputError("cannot read %s %r: %s" % (what, path, exc.strerror or exc))
    if not data.strip():
        raise InputError("%s %r is empty" % (what, path))
    return data


def load_certificate(path, what):
    data = read_bytes(path, what)
    try:
        if b"-----BEGIN" in data:
            certs = x509.load_pem_x509_certificates(data)
            if not certs:
                raise ValueError("no certificate")
            return certs[0]  # the first certificate in the file
        return x509.load_der_x509_certificate(data)
    except ValueError as exc:
        raise InputError("%s %r is not a PEM or DER X.509 certificate (%s)" % (what, path, exc))


def load_private_key(path):
    data = read_bytes(path, "private key")
    try:
        if b"-----BEGIN" in data:
            key = serialization.load_pem_private_key(data, password=None)
        else:
            key = serialization.load_der_private_key(data, password=None)
    except TypeError:
        raise InputError(
            "private key %r is encrypted; decrypt it first (openssl pkey -in KEY -out PLAIN.pem)" % path
        )
    except (ValueError, UnsupportedAlgorithm) as exc:
        raise InputError("private key %r is not a readable PEM or DER private key (%s)" % (path, exc))
    if not isinstance(key, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
        raise InputError("private key %r must be RSA or EC, got %s" % (path, type(key).__name__))
    return key


def validity(cert):
    """(not_before, not_after) as aware UTC datetimes, for old and new cryptography versions."""
    if hasattr(cert, "not_valid_before_utc"):
        return cert.not_valid_before_utc, cert.not_valid_after_utc
    utc = dt.timezone.utc
    return cert.not_valid_before.replace(tzinfo=utc), cert.not_valid_after.replace(tzinfo=utc)


def public_der(public_key):
    return public_key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )


# ---------------------------------------------------------------------------------------
# Signing
# ---------------------------------------------------------------------------------------


def sign_manifest(manifest, cert, key, wwdr):
    builder = (
        pkcs7.PKCS7SignatureBuilder()
        .set_data(manifest)
        .add_signer(cert, key, hashes.SHA256())
        .add_certificate(wwdr)
    )
    return builder.sign(
        serialization.Encoding.DER,
        [pkcs7.PKCS7Options.DetachedSignature, pkcs7.PKCS7Options.Binary],
    )


# Minimal DER reader/writer, enough to rewrite one signed attribute.

OID_SIGNING_TIME = bytes.fromhex("06092a864886f70d010905")  # 1.2.840.113549.1.9.5


def der_read(data, pos):
    """Return (tag, content_start, end) of the TLV at pos (single-byte tags only)."""
    tag = data[pos]
    if tag & 0x1F == 0x1F:
        raise ValueError("multi-byte tags are not supported")
    first = data[pos + 1]
    if first < 0x80:
        length, start = first, pos + 2
    else:
        n = first & 0x7F
        if n == 0 or n > 4:
            raise ValueError("unsupported DER length")
        length = int.from_bytes(data[pos + 2 : pos + 2 + n], "big")
        start = pos + 2 + n
    end = start + length
    if end > len(data):
        raise ValueError("truncated DER")
    return tag, start, end


def der_parse(data, pos=0, end=None):
    """Parse a DER buffer into a tree: [tag, bytes] or [tag, [children]]."""
    end = len(data) if end is None else end
    nodes = []
    while pos < end:
        tag, start, stop = der_read(data, pos)
        if tag & 0x20:
            nodes.append([tag, der_parse(data, start, stop)])
        else:
            nodes.append([tag, data[start:stop]])
        pos = stop
    if pos != end:
        raise ValueError("DER overrun")
    return nodes


def der_encode(node):
    tag, value = node
    body = b"".join(der_encode(child) for child in value) if isinstance(value, list) else value
    n = len(body)
    if n < 0x80:
        length = bytes([n])
    else:
        raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(raw)]) + raw
    return bytes([tag]) + length + body


def encode_time(when):
    """RFC 5652 / 5280: UTCTime for 1950-2049, GeneralizedTime otherwise."""
    if 1950 <= when.year <= 2049:
        return [0x17, when.strftime("%y%m%d%H%M%SZ").encode("ascii")]
    return [0x18, ("%04d" % when.year + when.strftime("%m%d%H%M%SZ")).encode("ascii")]


def set_signing_time(signature, key, when):
    """Replace signingTime in the library's CMS output and re-sign the signed attributes."""
    tree = der_parse(signature)
    if len(tree) != 1 or der_encode(tree[0]) != signature:
        raise InputError("internal: the library's signature did not round-trip through the DER reader")
    content_info = tree[0][1]
    signed_data = content_info[1][1][0][1]  # ContentInfo.content [0] -> SignedData SEQUENCE
    signer_infos = signed_data[-1]
    if signer_infos[0] != 0x31 or len(signer_infos[1]) != 1:
        raise InputError("internal: expected exactly one SignerInfo")
    signer_info = signer_infos[1][0][1]
    attrs_index = next(i for i, n in enumerate(signer_info) if n[0] == 0xA0)
    signed_attrs = signer_info[attrs_index]
    found = False
    for attribute in signed_attrs[1]:
        oid, values = attribute[1][0], attribute[1][1]
        if der_encode(oid) == OID_SIGNING_TIME:
            values[1] = [encode_time(when)]
            found = True
    if not found:
        raise InputError("internal: the library's signature has no signingTime attribute")
    # DER SET OF: keep the attributes sorted by their encodings.
    signed_attrs[1].sort(key=der_encode)
    to_sign = der_encode([0x31, signed_attrs[1]])  # signed over as an explicit SET OF
    if isinstance(key, rsa.RSAPrivateKey):
        new_signature = key.sign(to_sign, padding.PKCS1v15(), hashes.SHA256())
    else:
        new_signature = key.sign(to_sign, ec.ECDSA(hashes.SHA256()))
    signature_index = attrs_index + 2  # signedAttrs, signatureAlgorithm, signature
    if signer_info[signature_index][0] != 0x04:
        raise InputError("internal: unexpected SignerInfo layout")
    signer_info[signature_index][1] = new_signature
    return der_encode(tree[0])


def parse_signing_time(text):
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise InputError("--signing-time %r is not an RFC 3339 date-time like 2026-01-01T00:00:00Z" % text)
    if when.tzinfo is None:
        raise InputError("--signing-time %r needs a time zone (Z or +hh:mm)" % text)
    if when.microsecond:
        raise InputError("--signing-time %r: use whole seconds (CMS signingTime has no fractions)" % text)
    when = when.astimezone(dt.timezone.utc)
    if when.year < 1980:
        raise InputError("--signing-time %r: ZIP timestamps cannot predate 1980" % text)
    return when


# ---------------------------------------------------------------------------------------
# ZIP
# ---------------------------------------------------------------------------------------


def zip_time(epoch):
    t = time.localtime(epoch) if epoch is not None else time.localtime()
    return max((1980, 1, 1, 0, 0, 0), tuple(t[:6]))


def write_archive(out_path, entries, directories, mode, fixed_time):
    """entries: list of (arcname, bytes, mtime or None); directories: set of "dir/" names."""
    fixed = fixed_time.timetuple()[:6] if fixed_time else None

    def method(name):
        if mode == "stored":
            return zipfile.ZIP_STORED
        if mode == "mixed" and name.lower().endswith(IMAGE_EXTENSIONS):
            return zipfile.ZIP_STORED
        return zipfile.ZIP_DEFLATED

    out_dir = os.path.dirname(os.path.abspath(out_path))
    if not os.path.isdir(out_dir):
        raise InputError("output directory %r does not exist" % out_dir)
    if os.path.isdir(out_path):
        raise InputError("OUT %r is a directory" % out_path)
    fd, tmp = tempfile.mkstemp(prefix=".make_order_archive.", dir=out_dir)
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w") as archive:
            written_dirs = set()
            for name, data, mtime in entries:
                parts = name.split("/")[:-1]
                for depth in range(1, len(parts) + 1):
                    d = "/".join(parts[:depth]) + "/"
                    if d in directories and d not in written_dirs:
                        info = zipfile.ZipInfo(d, date_time=fixed or zip_time(None))
                        info.external_attr = (0o40755 << 16) | 0x10  # drwxr-xr-x + MS-DOS dir bit
                        info.compress_type = zipfile.ZIP_STORED
                        archive.writestr(info, b"")
                        written_dirs.add(d)
                info = zipfile.ZipInfo(name, date_time=fixed or zip_time(mtime))
                info.external_attr = 0o100644 << 16  # -rw-r--r--
                info.compress_type = method(name)
                archive.writestr(info, data)
        os.replace(tmp, out_path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# ---------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------


def build_parser():
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Build a signed Apple Wallet order archive (.order) from an order source "
        "directory, using hashlib, cryptography's PKCS7SignatureBuilder and zipfile.",
    )
    parser.add_argument("source_dir", metavar="SOURCE_DIR", help="order source: order.json, images, xx.lproj/")
    parser.add_argument("out", metavar="OUT.order", help="archive to write (replaced if it exists)")
    parser.add_argument("--cert", required=True, metavar="CERT.pem", help="signer (Order Type ID) certificate, PEM or DER")
    parser.add_argument("--key", required=True, metavar="KEY.pem", help="signer private key, unencrypted PEM or DER (RSA or EC)")
    parser.add_argument("--wwdr", required=True, metavar="WWDR.pem", help="intermediate certificate to embed, PEM or DER")
    parser.add_argument("--directory-entries", action="store_true", help='add explicit "xx.lproj/" directory entries')
    compression = parser.add_mutually_exclusive_group()
    compression.add_argument("--stored", action="store_true", help="store every entry uncompressed")
    compression.add_argument(
        "--mixed-compression", action="store_true", help="store images (.png/.jpg/.jpeg/.gif), deflate the rest"
    )
    parser.add_argument("--escape-slashes", action="store_true", help='write "/" in manifest keys as "\\/"')
    parser.add_argument(
        "--signing-time",
        metavar="RFC3339",
        help="signingTime to put in the signature, e.g. 2026-01-01T00:00:00Z (default: now); "
        "also pins all ZIP entry timestamps",
    )
    return parser


def run(args):
    signing_time = parse_signing_time(args.signing_time) if args.signing_time else None
    paths = collect_files(args.source_dir)
    contents = read_sources(args.source_dir, paths)

    cert = load_certificate(args.cert, "certificate")
    wwdr = load_certificate(args.wwdr, "WWDR certificate")
    key = load_private_key(args.key)
    if public_der(cert.public_key()) != public_der(key.public_key()):
        raise InputError("private key %r does not match certificate %r" % (args.key, args.cert))
    if cert.issuer != wwdr.subject:
        sys.stderr.write(
            "%s: note: WWDR certificate subject (%s) is not the signer's issuer (%s); signing anyway\n"
            % (PROG, wwdr.subject.rfc4514_string(), cert.issuer.rfc4514_string())
        )

    if signing_time is not None:
        not_before, not_after = validity(cert)
        if not (not_before <= signing_time <= not_after):
            sys.stderr.write(
                "%s: note: --signing-time %s is outside the signer certificate's validity (%s .. %s); "
                "signing anyway\n" % (PROG, signing_time.isoformat(), not_before.isoformat(), not_after.isoformat())
            )

    manifest = manifest_bytes(contents, args.escape_slashes)
    signature = sign_manifest(manifest, cert, key, wwdr)
    if signing_time is not None:
        signature = set_signing_time(signature, key, signing_time)

    entries = []
    for rel in paths:
        full = os.path.join(args.source_dir, *rel.split("/"))
        entries.append((rel, contents[rel], os.stat(full).st_mtime))
    entries.append(("manifest.json", manifest, None))
    entries.append(("signature", signature, None))

    directories = set()
    if args.directory_entries:
        for rel in paths:
            parts = rel.split("/")[:-1]
            for depth in range(1, len(parts) + 1):
                directories.add("/".join(parts[:depth]) + "/")
    mode = "stored" if args.stored else "mixed" if args.mixed_compression else "deflated"
    write_archive(args.out, entries, directories, mode, signing_time)
    print("%s: wrote %s (%d files + manifest.json + signature)" % (PROG, args.out, len(paths)))


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        run(args)
    except InputError as exc:
        sys.stderr.write("%s: error: %s\n" % (PROG, exc))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
