#!/usr/bin/env python3
"""Issue test certificate chains in Apple's exact Order Type ID profile, with pyca/cryptography.

Deliberately independent of the wallet-orders Swift code: the profile is copied from real Apple
certificates, not from what wallet-orders believes it to be, so a test built on it checks the
project against Apple's artifacts rather than against its own mirror.

    apple_profile_chain.py issue OUT_DIR --leaf REAL_LEAF.pem --intermediate WWDR.pem
        [--marker TEXT] [--without-leaf OID]... [--without-intermediate OID]... [--pass-shaped]
    apple_profile_chain.py extensions CERT.pem...

issue writes OUT_DIR/root.pem, OUT_DIR/wwdr.pem, OUT_DIR/leaf.pem and OUT_DIR/leaf.key.pem:
- root.pem: a self-signed test root ("wallet-orders replica root (TEST ONLY)") whose subject key
  identifier is the authority key identifier Apple's intermediate names, so the intermediate's
  extensions can be copied unchanged.
- wwdr.pem: a copy of the given intermediate (Apple WWDR G4): its subject and every extension,
  same OIDs, criticality and values (the WWDR marker 1.2.840.113635.100.6.2.1 included), with a
  fresh key, issued by the test root. --without-intermediate OID leaves that extension out.
- leaf.pem: a copy of the given leaf (a real Order Type ID certificate): its subject and every
  extension (EKU clientAuth + 1.2.840.113635.100.4.19, the order-type marker
  1.2.840.113635.100.14.2, the APNs extension 1.2.840.113635.100.6.3.2, AKI, AIA, policies, CRL
  distribution points...), with a fresh RSA-2048 key, valid from a day ago for a year, issued by
  wwdr.pem. --marker TEXT writes TEXT (a UTF8String) as the order-type marker; --without-leaf OID
  leaves that extension out; --pass-shaped turns it into a Pass Type ID certificate the way Apple
  shapes those (EKU clientAuth + 1.2.840.113635.100.4.14, marker 1.2.840.113635.100.6.1.16 in
  place of the order-type marker).

extensions prints, for each certificate, a JSON object {"subject": RFC 4514 text, "extensions":
[{"oid", "critical", "value"}]} where value is the lowercase hex of the extnValue contents, in
certificate order, one JSON document for all the certificates (a list).
"""

import argparse
import datetime
import json
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, ExtensionOID, NameOID

ORDER_TYPE_MARKER = x509.ObjectIdentifier("1.2.840.113635.100.14.2")
PASS_TYPE_MARKER = x509.ObjectIdentifier("1.2.840.113635.100.6.1.16")
PASS_SIGNING = x509.ObjectIdentifier("1.2.840.113635.100.4.14")
DER_NULL = b"\x05\x00"


def load(path):
    with open(path, "rb") as handle:
        return x509.load_pem_x509_certificate(handle.read())


def utf8_string(text):
    data = text.encode("utf-8")
    if len(data) < 0x80:
        return b"\x0c" + bytes([len(data)]) + data
    length = len(data).to_bytes((len(data).bit_length() + 7) // 8, "big")
    return b"\x0c" + bytes([0x80 | len(length)]) + length + data


def new_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def write_pem(path, certificate):
    with open(path, "wb") as handle:
        handle.write(certificate.public_bytes(serialization.Encoding.PEM))


def copied(builder, template, without, replace=None):
    """Adds every extension of template to builder (same OID, criticality and value)."""
    replace = replace or {}
    for extension in template.extensions:
        dotted = extension.oid.dotted_string
        if dotted in without:
            continue
        value = replace.get(dotted, extension.value)
        if value is None:
            continue
        builder = builder.add_extension(value, extension.critical)
    return builder


def issue(arguments):
    real_leaf = load(arguments.leaf)
    real_intermediate = load(arguments.intermediate)
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    os.makedirs(arguments.out_dir, exist_ok=True)

    # The root: only as much as a CA needs, with the subject key identifier the intermediate's
    # authority key identifier names.
    root_key = new_key()
    root_name = x509.Name([
        x509.NameAttribute(NameOID.COMMON_NAME, "wallet-orders replica root (TEST ONLY)"),
        x509.NameAttribute(NameOID.ORGANIZATION_NAME, "wallet-orders TEST ONLY"),
        x509.NameAttribute(NameOID.COUNTRY_NAME, "US"),
    ])
    authority_key_id = real_intermediate.extensions.get_extension_for_oid(
        ExtensionOID.AUTHORITY_KEY_IDENTIFIER).value.key_identifier
    root = (
        x509.CertificateBuilder()
        .subject_name(root_name).issuer_name(root_name)
        .public_key(root_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=30)).not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(
            digital_signature=False, content_commitment=False, key_encipherment=False, data_encipherment=False,
            key_agreement=False, key_cert_sign=True, crl_sign=True, encipher_only=False, decipher_only=False),
            critical=True)
        .add_extension(x509.SubjectKeyIdentifier(authority_key_id), critical=False)
        .sign(root_key, hashes.SHA256())
    )

    # The intermediate: Apple's subject and every extension, a fresh key.
    intermediate_key = new_key()
    builder = (
        x509.CertificateBuilder()
        .subject_name(real_intermediate.subject).issuer_name(root.subject)
        .public_key(intermediate_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=20)).not_valid_after(now + datetime.timedelta(days=1800))
    )
    intermediate = copied(builder, real_intermediate, set(arguments.without_intermediate)).sign(
        root_key, hashes.SHA256())

    # The leaf: the real certificate's subject and every extension, a fresh key.
    leaf_key = new_key()
    replace = {}
    if arguments.marker is not None:
        replace[ORDER_TYPE_MARKER.dotted_string] = x509.UnrecognizedExtension(
            ORDER_TYPE_MARKER, utf8_string(arguments.marker))
    if arguments.pass_shaped:
        replace[ExtensionOID.EXTENDED_KEY_USAGE.dotted_string] = x509.ExtendedKeyUsage(
            [ExtendedKeyUsageOID.CLIENT_AUTH, PASS_SIGNING])
        replace[ORDER_TYPE_MARKER.dotted_string] = x509.UnrecognizedExtension(PASS_TYPE_MARKER, DER_NULL)
    builder = (
        x509.CertificateBuilder()
        .subject_name(real_leaf.subject).issuer_name(intermediate.subject)
        .public_key(leaf_key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=365))
    )
    leaf = copied(builder, real_leaf, set(arguments.without_leaf), replace).sign(intermediate_key, hashes.SHA256())

    write_pem(os.path.join(arguments.out_dir, "root.pem"), root)
    write_pem(os.path.join(arguments.out_dir, "wwdr.pem"), intermediate)
    write_pem(os.path.join(arguments.out_dir, "leaf.pem"), leaf)
    with open(os.path.join(arguments.out_dir, "leaf.key.pem"), "wb") as handle:
        handle.write(leaf_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))


def extensions(arguments):
    described = []
    for path in arguments.certificates:
        certificate = load(path)
        described.append({
            "subject": certificate.subject.rfc4514_string(),
            "extensions": [
                {"oid": e.oid.dotted_string, "critical": e.critical, "value": e.value.public_bytes().hex()}
                for e in certificate.extensions
            ],
        })
    json.dump(described, sys.stdout, indent=1)
    sys.stdout.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    issuing = commands.add_parser("issue")
    issuing.add_argument("out_dir")
    issuing.add_argument("--leaf", required=True)
    issuing.add_argument("--intermediate", required=True)
    issuing.add_argument("--marker")
    issuing.add_argument("--without-leaf", action="append", default=[])
    issuing.add_argument("--without-intermediate", action="append", default=[])
    issuing.add_argument("--pass-shaped", action="store_true")
    issuing.set_defaults(run=issue)
    reading = commands.add_parser("extensions")
    reading.add_argument("certificates", nargs="+")
    reading.set_defaults(run=extensions)
    arguments = parser.parse_args()
    arguments.run(arguments)


if __name__ == "__main__":
    main()
