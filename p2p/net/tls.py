"""TLS 1.3 contexts with mutual certificates, authenticated by pinning peer ids.

Each peer presents a certificate whose subject public key is its Ed25519 identity key, so the
TLS handshake itself (CertificateVerify) proves possession of the identity key. Who that key
belongs to is then decided by pinning: the certificate's key fingerprint must equal the peer id
expected for the connection (``transport.dial`` / ``transport.check_identity``).

Why a "well-known issuer": Python's ``ssl`` module cannot ask for a client certificate without
also verifying its chain, and it has no verify callback to accept a self-signed one. So every
certificate is issued by a fixed issuer whose private key is *public* (derived from a constant,
see ``ISSUER_SEED``); every peer trusts that issuer. The chain check therefore proves nothing
and costs nothing, which is the intent: it turns CA verification off portably, and pinning is
the only authentication. Implementations with a verify callback may skip the chain check, but
must still issue their own certificate from this issuer so that Python peers accept it.

Ed25519 certificates and the Ed25519 TLS 1.3 signature scheme work with OpenSSL >= 1.1.1
(checked by ``tests/test_tls.py`` on the machine's OpenSSL), so no ECDSA fallback is needed.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import ssl
import tempfile
from collections.abc import Collection

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.x509.oid import NameOID

from p2p.errors import RemoteProtocolError
from p2p.identity import Identity, short_id

# The issuer key is public on purpose (see the module docstring): its seed is SHA-256 of this.
ISSUER_SEED = hashlib.sha256(b"solstice well-known TLS issuer v1").digest()
ISSUER_NAME = "solstice well-known issuer (no trust)"
# Fixed, wide validity: peers' clocks are not trusted and a game must not fail on expiry.
NOT_BEFORE = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)
NOT_AFTER = datetime.datetime(9999, 12, 31, 23, 59, 59, tzinfo=datetime.UTC)


class PeerIdentityMismatch(RemoteProtocolError):
    """The peer's certificate is valid TLS but belongs to another identity than expected."""

    def __init__(self, seat: int | None, expected: Collection[str], got: str) -> None:
        wanted = ", ".join(short_id(p) for p in sorted(expected)) or "nobody"
        super().__init__(seat, f"peer presented identity {short_id(got)}, expected {wanted}")
        self.expected = frozenset(expected)
        self.got = got


def _issuer_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(ISSUER_SEED)


def _issuer_certificate() -> x509.Certificate:
    key = _issuer_key()
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, ISSUER_NAME)])
    return (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(NOT_BEFORE)
        .not_valid_after(NOT_AFTER)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .sign(key, None)
    )


def make_certificate(identity: Identity) -> x509.Certificate:
    """The TLS certificate of ``identity``: its Ed25519 key, issued by the well-known issuer."""
    issuer_key = _issuer_key()
    return (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, identity.peer_id)]))
        .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, ISSUER_NAME)]))
        .public_key(identity.public_key)
        .serial_number(int(identity.peer_id[:30], 16) or 1)
        .not_valid_before(NOT_BEFORE)
        .not_valid_after(NOT_AFTER)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), False
        )
        .sign(issuer_key, None)
    )


def _context(identity: Identity, purpose: ssl.Purpose) -> ssl.SSLContext:
    ctx = ssl.SSLContext(
        ssl.PROTOCOL_TLS_SERVER if purpose is ssl.Purpose.CLIENT_AUTH else ssl.PROTOCOL_TLS_CLIENT
    )
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.maximum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False  # Peers are named by key fingerprint, not by host name.
    ctx.verify_mode = ssl.CERT_REQUIRED  # Both sides must present a certificate.
    issuer_pem = _issuer_certificate().public_bytes(serialization.Encoding.PEM)
    ctx.load_verify_locations(cadata=issuer_pem.decode("ascii"))
    cert_pem = make_certificate(identity).public_bytes(serialization.Encoding.PEM)
    key_pem = identity.private_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    # ssl can only load a key from a file; use a private temporary directory and remove it at
    # once so the key is never left on disk outside the 0600 identity file.
    with tempfile.TemporaryDirectory(prefix="solstice-tls-") as tmp:
        path = os.path.join(tmp, "chain.pem")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key_pem + cert_pem)
        ctx.load_cert_chain(path)
    return ctx


def server_context(identity: Identity) -> ssl.SSLContext:
    """Context for the accepting side of a connection (requires a client certificate)."""
    return _context(identity, ssl.Purpose.CLIENT_AUTH)


def client_context(identity: Identity) -> ssl.SSLContext:
    """Context for the dialing side of a connection (presents our certificate too)."""
    return _context(identity, ssl.Purpose.SERVER_AUTH)


def peer_public_key(ssl_object: ssl.SSLObject | ssl.SSLSocket) -> bytes:
    """The raw Ed25519 public key from the peer certificate of a finished handshake."""
    der = ssl_object.getpeercert(binary_form=True)
    if der is None:
        raise RemoteProtocolError(None, "peer presented no certificate")
    key = x509.load_der_x509_certificate(der).public_key()
    if not isinstance(key, Ed25519PublicKey):
        raise RemoteProtocolError(None, "certificate key is not Ed25519")
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
