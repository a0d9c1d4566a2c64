#!/usr/bin/env python3
"""A backend's view of `storefront serve`, through Apple's App Store Server Library.

Two modes, both verifying every signed answer with SignedDataVerifier against the
store's exported root (in place of Apple's), as a real backend would:

    server-client.py call --port P --key KEY.p8 --key-id ID --issuer ISS --bundle-id B \
        --root root.der --environment Sandbox --calls calls.json

runs each call of the JSON list with AppStoreServerAPIClient (pointed at the local
server) and prints one JSON document: the decoded results, or Apple's error (HTTP
status, errorCode, errorMessage) for each. Calls: {"call": "transaction", "id": …},
{"call": "history", "id": …, "version": 1 or 2, "sort": …, "productTypes": […], "revoked": …, "revision": …},
{"call": "statuses", "id": …, "status": [1, …]}, {"call": "refunds", "id": …},
{"call": "test"}, {"call": "extend", "id": …, "days": …}, {"call": "notificationHistory",
"start": ms, "end": ms, "transactionId": …, "type": …, "subtype": …}, {"call": "massExtend", "productId": …, "requestIdentifier": …, "days": …,
"storefronts": […]}, {"call": "massStatus", "productId": …, "requestIdentifier": …}, {"call": "appTransaction", "id": …},
{"call": "setAppAccountToken", "id": …, "token": …}, {"call": "finish", "id": …}, {"call": "consumption", "id": …,
"request": {ConsumptionRequest's fields}}, {"call": "consumptionV1", "id": …, "request": {…}},
{"call": "raw", "method": …, "path": …, "body": …, "host": …} (any request, for bad tokens and bodies; "host" sets
the Host header, as a request meant for Apple's host names it), {"call": "retention", "method": NAME} (one of
the Retention Messaging API's methods of AppStoreServerAPIClient, called with small valid arguments).
With --environment Production, --app-apple-id is the app's Apple ID the verifier checks.

    server-client.py receive --bundle-id B --root root.der --environment Sandbox --out FILE

listens on a free loopback port (printed as "listening PORT"), decodes each
notification POSTed to it and appends {"type", "subtype", "uuid", "transactionId",
"originalTransactionId", "productId", "inAppOwnershipType", "revocationReason", "consumptionRequestReason", "status"} (or "summary") as one JSON line to FILE; answers 200. Runs until SIGTERM.
"""
import argparse
import base64
import json
import signal
import sys
import uuid
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient
from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
from appstoreserverlibrary.models.ConsumptionRequestV1 import ConsumptionRequestV1
from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
from appstoreserverlibrary.models.MassExtendRenewalDateRequest import MassExtendRenewalDateRequest
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.NotificationTypeV2 import NotificationTypeV2
from appstoreserverlibrary.models.Subtype import Subtype
from appstoreserverlibrary.models.Status import Status
from appstoreserverlibrary.models.TransactionHistoryRequest import Order, ProductType, TransactionHistoryRequest
from appstoreserverlibrary.models.RefundPreference import RefundPreference
from appstoreserverlibrary.models.UpdateAppAccountTokenRequest import UpdateAppAccountTokenRequest
from appstoreserverlibrary.models.UploadMessageRequestBody import UploadMessageRequestBody
from appstoreserverlibrary.models.DefaultConfigurationRequest import DefaultConfigurationRequest
from appstoreserverlibrary.models.RealtimeUrlRequest import RealtimeUrlRequest
from appstoreserverlibrary.models.PerformanceTestRequest import PerformanceTestRequest
from appstoreserverlibrary.api_client import GetTransactionHistoryVersion
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier


def verifier(arguments):
    with open(arguments.root, "rb") as handle:
        root = handle.read()
    return SignedDataVerifier([root], False, Environment(arguments.environment), arguments.bundle_id,
                              arguments.app_apple_id)


def value(x):
    return getattr(x, "value", x)


def transaction(check, jws):
    decoded = check.verify_and_decode_signed_transaction(jws)
    return {"transactionId": decoded.transactionId, "originalTransactionId": decoded.originalTransactionId,
            "productId": decoded.productId, "type": value(decoded.type),
            "revoked": decoded.revocationDate is not None, "expiresDate": decoded.expiresDate,
            # The library's typed values: None when the field holds a value Apple does not define.
            "inAppOwnershipType": value(decoded.inAppOwnershipType), "revocationReason": value(decoded.revocationReason),
            "appAccountToken": decoded.appAccountToken}


def run_call(client, check, call):
    kind = call["call"]
    if kind == "transaction":
        return transaction(check, client.get_transaction_info(call["id"]).signedTransactionInfo)
    if kind == "history":
        request = TransactionHistoryRequest(
            sort=Order(call["sort"]) if "sort" in call else None,
            productTypes=[ProductType(t) for t in call["productTypes"]] if "productTypes" in call else None,
            revoked=call.get("revoked"))
        pages, revision = [], call.get("revision")
        while True:
            version = GetTransactionHistoryVersion.V1 if call.get("version") == 1 else GetTransactionHistoryVersion.V2
            response = client.get_transaction_history(call["id"], revision, request, version)
            pages.append({"count": len(response.signedTransactions), "hasMore": response.hasMore,
                          "revision": response.revision, "appAppleId": response.appAppleId,
                          "environment": value(response.environment), "bundleId": response.bundleId,
                          "transactions": [transaction(check, jws) for jws in response.signedTransactions]})
            revision = response.revision
            if not response.hasMore or call.get("onePage"):
                return pages
    if kind == "statuses":
        status = [Status(s) for s in call["status"]] if "status" in call else None
        response = client.get_all_subscription_statuses(call["id"], status)
        groups = []
        for group in response.data:
            for last in group.lastTransactions:
                renewal = check.verify_and_decode_renewal_info(last.signedRenewalInfo)
                groups.append({"group": group.subscriptionGroupIdentifier, "status": value(last.status),
                               "originalTransactionId": last.originalTransactionId,
                               "transaction": transaction(check, last.signedTransactionInfo),
                               "autoRenewStatus": value(renewal.autoRenewStatus),
                               "autoRenewProductId": renewal.autoRenewProductId,
                               "expirationIntent": value(renewal.expirationIntent),
                               "isInBillingRetryPeriod": renewal.isInBillingRetryPeriod})
        return {"environment": value(response.environment), "bundleId": response.bundleId, "statuses": groups}
    if kind == "refunds":
        response = client.get_refund_history(call["id"], call.get("revision"))
        return {"hasMore": response.hasMore, "revision": response.revision,
                "transactions": [transaction(check, jws) for jws in response.signedTransactions]}
    if kind == "test":
        token = client.request_test_notification().testNotificationToken
        status = client.get_test_notification_status(token)
        decoded = check.verify_and_decode_notification(status.signedPayload)
        return {"token": token, "type": value(decoded.notificationType), "bundleId": decoded.data.bundleId,
                "attempts": [value(a.sendAttemptResult) for a in (status.sendAttempts or [])]}
    if kind == "testStatus":
        status = client.get_test_notification_status(call["token"])
        return {"attempts": [value(a.sendAttemptResult) for a in (status.sendAttempts or [])]}
    if kind == "extend":
        response = client.extend_subscription_renewal_date(call["id"], ExtendRenewalDateRequest(
            extendByDays=call["days"], extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION,
            requestIdentifier=str(uuid.uuid4())))
        return {"success": response.success, "effectiveDate": response.effectiveDate,
                "originalTransactionId": response.originalTransactionId}
    if kind == "massExtend":
        response = client.extend_renewal_date_for_all_active_subscribers(MassExtendRenewalDateRequest(
            extendByDays=call["days"], extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION,
            requestIdentifier=call["requestIdentifier"], storefrontCountryCodes=call.get("storefronts"),
            productId=call["productId"]))
        return {"requestIdentifier": response.requestIdentifier}
    if kind == "massStatus":
        response = client.get_status_of_subscription_renewal_date_extensions(call["requestIdentifier"], call["productId"])
        return {"requestIdentifier": response.requestIdentifier, "complete": response.complete,
                "completeDate": response.completeDate, "succeededCount": response.succeededCount,
                "failedCount": response.failedCount}
    if kind == "notificationHistory":
        items, token = [], None
        while True:
            response = client.get_notification_history(token, NotificationHistoryRequest(
                startDate=call["start"], endDate=call["end"], transactionId=call.get("transactionId"),
                notificationType=NotificationTypeV2(call["type"]) if "type" in call else None,
                notificationSubtype=Subtype(call["subtype"]) if "subtype" in call else None))
            for item in response.notificationHistory:
                decoded = check.verify_and_decode_notification(item.signedPayload)
                signed = decoded.data.signedTransactionInfo if decoded.data else None
                items.append({"type": value(decoded.notificationType), "subtype": value(decoded.subtype),
                              "transactionId": transaction(check, signed)["transactionId"] if signed else None,
                              "attempts": [value(a.sendAttemptResult) for a in (item.sendAttempts or [])]})
            token = response.paginationToken
            if not response.hasMore:
                return items
    if kind == "appTransaction":
        response = client.get_app_transaction_info(call["id"])
        decoded = check.verify_and_decode_app_transaction(response.signedAppTransactionInfo)
        return {"appTransactionId": decoded.appTransactionId, "bundleId": decoded.bundleId,
                "appAppleId": decoded.appAppleId, "receiptType": value(decoded.receiptType),
                "originalPurchaseDate": decoded.originalPurchaseDate}
    if kind == "setAppAccountToken":
        client.set_app_account_token(call["id"], UpdateAppAccountTokenRequest(appAccountToken=call["token"]))
        return {}
    if kind == "finish":
        client.finish_transaction(call["id"])
        return {}
    if kind == "consumption":
        fields = call["request"]
        client.send_consumption_information(call["id"], ConsumptionRequest(
            customerConsented=fields["customerConsented"], sampleContentProvided=fields["sampleContentProvided"],
            deliveryStatus=DeliveryStatus(fields["deliveryStatus"]), consumptionPercentage=fields.get("consumptionPercentage"),
            refundPreference=RefundPreference(fields["refundPreference"]) if "refundPreference" in fields else None))
        return {}
    if kind == "consumptionV1":
        with warnings.catch_warnings():  # deprecated by Apple for send_consumption_information, still served
            warnings.simplefilter("ignore", DeprecationWarning)
            client.send_consumption_data(call["id"], ConsumptionRequestV1(**call["request"]))
        return {}
    if kind == "retention":
        image, message = uuid.UUID(int=1), uuid.UUID(int=2)
        arguments = {
            "upload_image": (image, b"\x89PNG\r\n\x1a\n"), "delete_image": (image,), "get_image_list": (),
            "upload_message": (message, UploadMessageRequestBody(header="Stay with us", body="Your plan keeps every feature.")),
            "delete_message": (message,), "get_message_list": (),
            "configure_default_message": ("monthly", "en-US", DefaultConfigurationRequest(messageIdentifier=message)),
            "delete_default_message": ("monthly", "en-US"), "get_default_message": ("monthly", "en-US"),
            "configure_realtime_url": (RealtimeUrlRequest(realtimeURL="https://example.com/retention"),),
            "delete_realtime_url": (), "get_realtime_url": (),
            "initiate_performance_test": (PerformanceTestRequest(originalTransactionId="2000000001"),),
            "get_performance_test_results": ("request-1",),
        }[call["method"]]
        getattr(client, call["method"])(*arguments)
        return {}
    if kind == "raw":
        headers = {"Authorization": call["authorization"]} if "authorization" in call else client._get_headers()
        if "host" in call:
            headers["Host"] = call["host"]
        response = requests.request(call.get("method", "GET"), client._base_url + call["path"], headers=headers,
                                    data=json.dumps(call["body"]) if "body" in call else None, timeout=30)
        body = None
        if response.headers.get("content-type") == "application/json":
            body = response.json()
        return {"status": response.status_code, "body": body}
    raise ValueError("unknown call " + kind)


def call_mode(arguments):
    with open(arguments.key, "rb") as handle:
        key = handle.read()
    client = AppStoreServerAPIClient(key, arguments.key_id, arguments.issuer, arguments.bundle_id,
                                     Environment.LOCAL_TESTING)
    client._base_url = f"http://127.0.0.1:{arguments.port}"  # the local server in place of Apple's
    check = verifier(arguments)
    with open(arguments.calls, encoding="utf-8") as handle:
        calls = json.load(handle)
    results = []
    for call in calls:
        try:
            results.append({"result": run_call(client, check, call)})
        except APIException as error:
            results.append({"error": {"status": error.http_status_code, "code": error.raw_api_error,
                                      "message": error.error_message}})
    json.dump(results, sys.stdout, indent=1)
    print()
    return 0


def receive_mode(arguments):
    check = verifier(arguments)
    out = open(arguments.out, "a", encoding="utf-8")

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if arguments.count_only:  # many notifications, fast: the payload's uuid, no verification
                payload = json.loads(body)["signedPayload"].split(".")[1]
                decoded = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
                out.write(json.dumps({"uuid": decoded["notificationUUID"], "type": decoded["notificationType"]}) + "\n")
                out.flush()
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            try:
                decoded = check.verify_and_decode_notification(json.loads(body)["signedPayload"])
                entry = {"type": value(decoded.notificationType), "subtype": value(decoded.subtype),
                         "uuid": decoded.notificationUUID}
                if decoded.summary:  # a mass extension's RENEWAL_EXTENSION SUMMARY: no data
                    summary = decoded.summary
                    entry["summary"] = {"requestIdentifier": summary.requestIdentifier, "productId": summary.productId,
                                        "bundleId": summary.bundleId, "environment": value(summary.environment),
                                        "storefrontCountryCodes": summary.storefrontCountryCodes,
                                        "succeededCount": summary.succeededCount, "failedCount": summary.failedCount}
                else:
                    entry["status"] = value(decoded.data.status)
                if decoded.data and decoded.data.signedTransactionInfo:
                    info = transaction(check, decoded.data.signedTransactionInfo)
                    signed = check.verify_and_decode_signed_transaction(decoded.data.signedTransactionInfo)
                    entry["transactionId"], entry["productId"] = info["transactionId"], info["productId"]
                    entry["inAppOwnershipType"], entry["revocationReason"] = info["inAppOwnershipType"], info["revocationReason"]
                    entry["originalTransactionId"] = info["originalTransactionId"]
                    entry["offerType"], entry["offerIdentifier"] = value(signed.offerType), signed.offerIdentifier
                if decoded.data and decoded.data.rawConsumptionRequestReason is not None:
                    entry["consumptionRequestReason"] = value(decoded.data.consumptionRequestReason)
                if decoded.data and decoded.data.signedRenewalInfo:
                    renewal = check.verify_and_decode_renewal_info(decoded.data.signedRenewalInfo)
                    # What price increases and win-back offers are read from: the library's own enums.
                    entry["priceIncreaseStatus"] = value(renewal.priceIncreaseStatus)
                    entry["expirationIntent"] = value(renewal.expirationIntent)
                    entry["renewalPrice"] = renewal.renewalPrice
                    entry["autoRenewStatus"] = value(renewal.autoRenewStatus)
                    entry["eligibleWinBackOfferIds"] = renewal.eligibleWinBackOfferIds
            except Exception as error:  # a notification the library refuses is the test's failure
                entry = {"refused": repr(error)}
            out.write(json.dumps(entry) + "\n")
            out.flush()
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer((arguments.host, arguments.port), Receiver)
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    print(f"listening {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["call", "receive"])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1", help="receive: the address to listen on")
    parser.add_argument("--key")
    parser.add_argument("--key-id")
    parser.add_argument("--issuer")
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--environment", default="Sandbox")
    parser.add_argument("--app-apple-id", type=int, default=None, help="the app's Apple ID (Production's verifier needs it)")
    parser.add_argument("--calls")
    parser.add_argument("--out")
    parser.add_argument("--count-only", action="store_true", help="receive: note each uuid without verifying")
    arguments = parser.parse_args()
    return call_mode(arguments) if arguments.mode == "call" else receive_mode(arguments)


if __name__ == "__main__":
    sys.exit(main())
