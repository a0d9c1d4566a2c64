#!/usr/bin/env python3
"""Decodes signed transactions and renewal info with Apple's App Store Server Library.

An independent check of Storefront's signed data (see docs/store-file.md: signed data). Reads one
JSON document on standard input:

    {"transactions": ["JWS", ...], "renewalInfo": ["JWS", ...], "appTransactions": ["JWS", ...]}

(standard input, or --input FILE) and verifies each with `SignedDataVerifier`, as a server would:

    verify-signed-data.py --environment Xcode --bundle-id ID [--input FILE]
    verify-signed-data.py --environment Sandbox --bundle-id ID --root root.der [--input FILE]

In Xcode (and LocalTesting) the library decodes without checking signatures; in
Sandbox and Production it verifies the x5c chain against the given root (in place
of Apple's) at each payload's signedDate, offline (enable_online_checks=False).
Prints one JSON document: every decoded payload with each field's value and
Python type name, so the caller can check what is present. Exits 1 naming the first
JWS the library refuses.
"""
import argparse
import json
import sys

import attr

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException


def describe(decoded):
    """Each attribute the library decoded: its value (enums as their value) and its type."""
    fields = {}
    for field in attr.fields(type(decoded)):
        name, value = field.name, getattr(decoded, field.name)
        if value is None:
            continue
        kind = type(value).__name__
        if attr.has(type(value)):  # a nested object of the library (commitmentInfo)
            value = describe(value)
        elif hasattr(value, "value"):  # an enum of the library
            kind = "enum:" + type(value).__name__
            value = value.value
        fields[name] = {"value": value, "type": kind}
    return fields


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--environment", required=True, choices=[e.value for e in Environment])
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--root", help="DER root certificate to trust in place of Apple's")
    parser.add_argument("--app-apple-id", type=int, default=None)
    parser.add_argument("--input", help="the JSON document to read instead of standard input")
    arguments = parser.parse_args()

    roots = []
    if arguments.root:
        with open(arguments.root, "rb") as handle:
            roots.append(handle.read())
    verifier = SignedDataVerifier(roots, False, Environment(arguments.environment), arguments.bundle_id,
                                  arguments.app_apple_id)
    if arguments.input:
        with open(arguments.input, encoding="utf-8") as handle:
            signed = json.load(handle)
    else:
        signed = json.load(sys.stdin)
    out = {"transactions": [], "renewalInfo": [], "appTransactions": []}
    for kind, verify in (("transactions", verifier.verify_and_decode_signed_transaction),
                         ("renewalInfo", verifier.verify_and_decode_renewal_info),
                         ("appTransactions", verifier.verify_and_decode_app_transaction)):
        for index, jws in enumerate(signed.get(kind, [])):
            try:
                out[kind].append(describe(verify(jws)))
            except VerificationException as error:
                cause = repr(error.__cause__) if error.__cause__ else ""
                print(f"refused {kind}[{index}]: {error.status.name} {cause}", file=sys.stderr)
                return 1
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
