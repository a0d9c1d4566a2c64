#!/usr/bin/env python3
"""A legacy backend's receipt check against `storefront serve`, as such backends are written.

    legacy-verify-receipt.py --production URL --sandbox URL --receipt FILE [--password SECRET] [--exclude-old]

Reads the app receipt the app sent (the file's DER), base64-encodes it, and:
  1. takes a transaction id out of it with Apple's App Store Server Library
     (ReceiptUtility.extract_transaction_id_from_app_receipt), as a backend moving to the
     App Store Server API does;
  2. POSTs {"receipt-data", "password", "exclude-old-transactions"} as JSON to the production
     URL and, when it answers status 21007 (a sandbox receipt), to the sandbox URL: Apple's
     documented order for verifyReceipt.
Prints one JSON document: {"transactionId", "statuses": [each answer's status], "answer": the last answer}.
"""
import argparse
import base64
import json
import sys
import urllib.request

from appstoreserverlibrary.receipt_utility import ReceiptUtility


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        if response.status != 200:
            raise SystemExit(f"HTTP {response.status} from {url}")
        return json.loads(response.read())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--production", required=True)
    parser.add_argument("--sandbox", required=True)
    parser.add_argument("--receipt", required=True)
    parser.add_argument("--password")
    parser.add_argument("--exclude-old", action="store_true")
    arguments = parser.parse_args()
    with open(arguments.receipt, "rb") as file:
        receipt = base64.b64encode(file.read()).decode()
    transaction_id = ReceiptUtility().extract_transaction_id_from_app_receipt(receipt)
    body = {"receipt-data": receipt, "exclude-old-transactions": arguments.exclude_old}
    if arguments.password is not None:
        body["password"] = arguments.password
    statuses = []
    answer = post(arguments.production, body)
    statuses.append(answer.get("status"))
    if answer.get("status") == 21007:
        answer = post(arguments.sandbox, body)
        statuses.append(answer.get("status"))
    json.dump({"transactionId": transaction_id, "statuses": statuses, "answer": answer}, sys.stdout)


if __name__ == "__main__":
    main()
