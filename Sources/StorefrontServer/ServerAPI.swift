import Foundation
import StoreEngine

/// Apple's error body: `{"errorCode": N, "errorMessage": "…"}` with its HTTP status.
struct APIError: Error {
    var status: Int
    var code: Int
    var message: String

    static let invalidTransactionID = APIError(status: 400, code: 4000006, message: "Invalid transaction id.")
    static let invalidOriginalTransactionID = APIError(status: 400, code: 4000008, message: "Invalid original transaction id.")
    static let transactionNotFound = APIError(status: 404, code: 4040010, message: "Transaction id not found.")
    static let originalTransactionNotFound = APIError(status: 404, code: 4040005, message: "Original transaction id not found.")
    static let invalidRevision = APIError(status: 400, code: 4000005, message: "Invalid request revision.")
    static let invalidSort = APIError(status: 400, code: 4000021, message: "Invalid sort.")
    static let invalidProductType = APIError(status: 400, code: 4000022, message: "Invalid product type.")
    static let invalidProductID = APIError(status: 400, code: 4000023, message: "Invalid product id.")
    static let invalidGroup = APIError(status: 400, code: 4000024, message: "Invalid subscription group identifier.")
    static let invalidOwnership = APIError(status: 400, code: 4000026, message: "Invalid in-app ownership type.")
    static let invalidRevoked = APIError(status: 400, code: 4000030, message: "Invalid revoked.")
    static let invalidStatus = APIError(status: 400, code: 4000031, message: "Invalid status.")
    static let invalidStartDate = APIError(status: 400, code: 4000015, message: "Invalid start date.")
    static let invalidEndDate = APIError(status: 400, code: 4000016, message: "Invalid end date.")
    static let startAfterEnd = APIError(status: 400, code: 4000013, message: "Start date after end date.")
    static let invalidPaginationToken = APIError(status: 400, code: 4000014, message: "Invalid pagination token.")
    static let invalidNotificationType = APIError(status: 400, code: 4000018, message: "Invalid notification type.")
    static let multipleFilters = APIError(status: 400, code: 4000019, message: "Multiple filters supplied.")
    static let invalidTestToken = APIError(status: 400, code: 4000020, message: "Invalid test notification token.")
    static let testNotificationNotFound = APIError(status: 404, code: 4040008, message: "Test notification not found.")
    static let invalidExtendByDays = APIError(status: 400, code: 4000009, message: "Invalid extend by days value.")
    static let invalidExtendReason = APIError(status: 400, code: 4000010, message: "Invalid extend reason code.")
    static let invalidRequestIdentifier = APIError(status: 400, code: 4000011, message: "Invalid request identifier.")
    static let invalidEmptyStorefronts = APIError(status: 400, code: 4000027, message: "Invalid empty storefront country code list.")
    static let invalidStorefront = APIError(status: 400, code: 4000028, message: "Invalid storefront country code.")
    static let statusRequestNotFound = APIError(status: 404, code: 4040009, message: "The server didn't find a subscription-renewal-date extension request for this requestIdentifier and productId combination.")
    static let extensionIneligible = APIError(status: 403, code: 4030004, message: "Subscription extension ineligible.")
    static let startDateTooFarInPast = APIError(status: 400, code: 4000012, message: "Invalid request. The start date is earlier than the allowed start date.")
    static let extensionMaximum = APIError(status: 403, code: 4030005, message: "Subscription max extension.")
    static let extensionFamilyShared = APIError(status: 403, code: 4030007, message: "Subscription extension ineligible for family-shared subscription.")
    static let badRequest = APIError(status: 400, code: 4000000, message: "Bad request.")
    static let notFound = APIError(status: 404, code: 4040000, message: "Not found.")
    static let internalError = APIError(status: 500, code: 5000000, message: "An unknown error occurred.")

    var response: HTTPResponse {
        let body = JSON.object(["errorCode": .integer(code), "errorMessage": .string(message)])
        return HTTPResponse(status: status, body: Array(body.serialized(pretty: false).utf8),
                            headers: [("Content-Type", "application/json")])
    }
}

extension APIError {
    /// Apple's error for an input the engine's faces refuse (``FaceValidation``).
    init(_ error: InputError) {
        self = switch error {
        case .invalidExtendByDays: .invalidExtendByDays
        case .invalidExtendReasonCode: .invalidExtendReason
        case .invalidRequestIdentifier: .invalidRequestIdentifier
        case .invalidTransactionID: .invalidTransactionID
        case .invalidRefundPercentage: .badRequest  // serve refunds nothing: the App Store face's input only
        }
    }

    /// Runs the engine's checks of a request's input, its refusal as Apple's error.
    static func checking(_ check: () throws(InputError) -> Void) throws(APIError) {
        do { try check() } catch { throw APIError(error) }
    }
}

/// The App Store Server API over one store file, on the engine's App Store face.
struct ServerAPI: Sendable {
    private(set) var face: AppStoreFace
    /// The store on a connection of its own, for requests that only read (``isRead(_:)``): they
    /// never queue behind a write that waits for the store's lock (another process's
    /// `clock advance`, a paywall, a backup), as they would on the writes' actor.
    var reads: AppStoreFace?
    let auth: BearerAuthenticator
    /// Get Transaction Info's answers while the store file is unchanged (nil: none kept).
    var answers: AnswerCache?
    static let pageSize = 20

    /// The answer to a Get Transaction Info request from the cache, on the calling thread, when
    /// its token was checked before and the store file is as it was; nil: ask ``respond(_:)``.
    func cachedAnswer(_ request: HTTPRequest) -> HTTPResponse? {
        guard let answers, request.method == "GET", let id = Self.transactionInfoID(request.path),
              let token = BearerAuthenticator.token(request.headers["authorization"]), let known = auth.known(token),
              let state = answers.state() else { return nil }
        return answers.answer(id, token: known, at: state)
    }

    /// The transaction id of a Get Transaction Info path, `/inApps/v1/transactions/ID`.
    static func transactionInfoID(_ path: String) -> Int64? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 4, parts[0] == "inApps", parts[1] == "v1", parts[2] == "transactions" else { return nil }
        return try? transactionID(String(parts[3]))
    }

    /// Whether a request only reads the store: every GET, and Get Notification History's POST.
    static func isRead(_ request: HTTPRequest) -> Bool {
        request.method == "GET" || (request.method == "POST" && request.path == "/inApps/v1/notifications/history")
    }

    func respond(_ request: HTTPRequest) async -> HTTPResponse {
        if let reads, Self.isRead(request) {
            var reading = self
            (reading.face, reading.reads) = (reads, nil)
            return await reading.respond(request)
        }
        if let answer = await VerifyReceiptAPI.answer(request, face: face) { return answer }  // no bearer token: the body's secret
        // The file as it was before anything is read: what is kept is kept for that state only.
        let state = answers?.state()
        guard await auth.isAuthorized(request.headers["authorization"], keysRead: { answers?.keep(keys: $0, at: state) }) else {
            return HTTPResponse(status: 401, body: Array("Unauthenticated\n".utf8), headers: [("Content-Type", "text/plain")])
        }
        do {
            if let answered = try await transactionEndpoint(request) { return answered }
            let body = try await route(request)
            guard let body else { return HTTPResponse(status: 202) }
            let response = HTTPResponse(status: 200, body: Array(body.serialized(pretty: false).utf8),
                                        headers: [("Content-Type", "application/json")])
            if request.method == "GET", let id = Self.transactionInfoID(request.path) {
                answers?.keep(answer: (id, response), at: state)
            }
            return response
        } catch let error as APIError {
            return error.response
        } catch {
            return APIError.internalError.response
        }
    }

    /// Finds the endpoint; nil means 202 Accepted with no body.
    func route(_ request: HTTPRequest) async throws -> JSON? {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 3, parts[0] == "inApps" else { throw APIError.notFound }
        // "METHOD vN/fixed/parts" and the last part (an id or a token) apart.
        let last = parts[parts.count - 1]
        if request.method == "GET", parts.count == 7, parts[1...4] == ["v1", "subscriptions", "extend", "mass"] {
            return try await massExtensionStatus(productID: parts[5], requestIdentifier: last)
        }
        let head = request.method + " " + parts[1] + "/" + parts[2..<(parts.count - 1)].joined(separator: "/")
        switch head {
        case "GET v1/transactions":
            return try await transactionInfo(last)
        case "GET v1/history", "GET v2/history":
            return try await history(last, request, version1: parts[1] == "v1")
        case "GET v1/subscriptions":
            return try await statuses(last, request)
        case "GET v2/refund/lookup":
            return try await refunds(last, request)
        case "POST v1/subscriptions/extend" where last == "mass":
            return try await massExtend(request)
        case "PUT v1/subscriptions/extend":
            return try await extend(last, request)
        case "PUT v1/transactions/consumption":
            return try await consumptionV1(last, request)
        case "POST v1/notifications" where last == "test":
            return .object(["testNotificationToken": .string(try await face.requestTestNotification())])
        case "GET v1/notifications/test":
            return try await testNotification(last)
        case "POST v1/notifications" where last == "history":
            return try await notificationHistory(request)
        case "GET v1/lookup":
            // The store keeps no order ids (those of Apple's receipt e-mails): every order is unknown.
            return .object(["status": .integer(1), "signedTransactions": .array([])])
        default:
            throw APIError.notFound
        }
    }

    // MARK: - Transactions

    static func transactionID(_ text: String, error: APIError = .invalidTransactionID) throws -> Int64 {
        guard !text.isEmpty, text.count <= 19, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber), let id = Int64(text)
        else { throw error }
        return id
    }

    func transaction(_ text: String) async throws -> Transaction {
        let id = try Self.transactionID(text)
        // One read: a transaction found has its account (no separate look-up of the customer).
        guard let found = try? await face.transaction(anyAccountID: id), found.jwsRepresentation != nil
        else { throw APIError.transactionNotFound }
        return found
    }

    func transactionInfo(_ text: String) async throws -> JSON {
        let transaction = try await transaction(text)
        return .object(["signedTransactionInfo": .string(transaction.jwsRepresentation!)])
    }

    // MARK: - History

    static func revisionToken(_ id: Int64?) -> String { HistoryRevision.token(after: id) }

    static func revision(_ token: String?) throws -> Int64? {
        guard let token else { return nil }
        guard let id = HistoryRevision.id(token) else { throw APIError.invalidRevision }
        return id
    }

    static func date(_ text: String?, error: APIError) throws -> Date? {
        guard let text else { return nil }
        return try RequestDates.date(text, error: error)
    }

    func historyQuery(_ request: HTTPRequest) throws -> HistoryQuery {
        var query = HistoryQuery()
        switch request.values("sort").last {
        case nil, "ASCENDING": query.ascending = true
        case "DESCENDING": query.ascending = false
        default: throw APIError.invalidSort
        }
        query.startDate = try Self.date(request.values("startDate").last, error: .invalidStartDate)
        query.endDate = try Self.date(request.values("endDate").last, error: .invalidEndDate)
        if let start = query.startDate, let end = query.endDate, start > end { throw APIError.startAfterEnd }
        query.productIDs = request.values("productId")
        if query.productIDs.contains(where: \.isEmpty) { throw APIError.invalidProductID }
        query.productTypes = try request.values("productType").map { name in
            guard let type = ProductType.named(name, by: \.historyFilterName) else { throw APIError.invalidProductType }
            return type
        }
        query.subscriptionGroupIDs = request.values("subscriptionGroupIdentifier")
        if query.subscriptionGroupIDs.contains(where: \.isEmpty) { throw APIError.invalidGroup }
        if let name = request.values("inAppOwnershipType").last {
            guard let ownership = Transaction.OwnershipType.named(name, by: \.appStoreName) else { throw APIError.invalidOwnership }
            query.ownershipType = ownership
        }
        switch request.values("revoked").last?.lowercased() {
        case nil: break
        case "true": query.revoked = true
        case "false": query.revoked = false
        default: throw APIError.invalidRevoked
        }
        return query
    }

    /// v2 returns every transaction; v1 (deprecated by Apple) leaves out the consumables the
    /// app has finished, unless refunded or revoked, as Apple's v1 does.
    func history(_ text: String, _ request: HTTPRequest, version1: Bool = false) async throws -> JSON {
        let id = try Self.transactionID(text)
        var query = try historyQuery(request)
        query.excludesFinishedConsumables = version1
        let after = try Self.revision(request.values("revision").last)
        guard let page = try await face.history(of: id, query: query, after: after, pageSize: Self.pageSize) else {
            throw APIError.transactionNotFound
        }
        return .object([
            "revision": .string(Self.revisionToken(page.lastID)),
            "hasMore": .bool(page.hasMore),
            "appAppleId": try await face.payloadAppAppleID().map { .integer($0) },
            "bundleId": .string(face.catalog.bundleID),
            "environment": .string(try await face.environment()),
            "signedTransactions": .array(page.transactions.compactMap { $0.jwsRepresentation.map(JSON.string) }),
        ])
    }

    func refunds(_ text: String, _ request: HTTPRequest) async throws -> JSON {
        let id = try Self.transactionID(text)
        var query = HistoryQuery()
        query.revoked = true
        query.ownershipType = .purchased  // a family member's revoked share refunded nothing
        let after = try Self.revision(request.values("revision").last)
        guard let page = try await face.history(of: id, query: query, after: after, pageSize: Self.pageSize) else {
            throw APIError.transactionNotFound
        }
        return .object([
            "signedTransactions": .array(page.transactions.compactMap { $0.jwsRepresentation.map(JSON.string) }),
            "revision": .string(Self.revisionToken(page.lastID)),
            "hasMore": .bool(page.hasMore),
        ])
    }

    // MARK: - Subscriptions

    func statuses(_ text: String, _ request: HTTPRequest) async throws -> JSON {
        let id = try Self.transactionID(text)
        let wanted = try Set(request.values("status").map { value in
            guard let number = Int(value), (1...5).contains(number) else { throw APIError.invalidStatus }
            return number
        })
        guard let statuses = try await face.statuses(ofCustomerWith: id) else { throw APIError.transactionNotFound }
        var groups: [(String, [JSON])] = []
        for status in statuses where wanted.isEmpty || wanted.contains(status.state.appStoreStatus) {
            let entry = JSON.object([
                "status": .integer(status.state.appStoreStatus),
                "originalTransactionId": .string(String(status.renewalInfo.originalTransactionID)),
                "signedTransactionInfo": status.transaction.jwsRepresentation.map(JSON.string),
                "signedRenewalInfo": status.renewalInfo.jwsRepresentation.map(JSON.string),
            ])
            if let index = groups.firstIndex(where: { $0.0 == status.groupID }) {
                groups[index].1.append(entry)
            } else {
                groups.append((status.groupID, [entry]))
            }
        }
        return .object([
            "environment": .string(try await face.environment()),
            "appAppleId": try await face.payloadAppAppleID().map { .integer($0) },
            "bundleId": .string(face.catalog.bundleID),
            "data": .array(groups.map { .object(["subscriptionGroupIdentifier": .string($0.0), "lastTransactions": .array($0.1)]) }),
        ])
    }

    func extend(_ text: String, _ request: HTTPRequest) async throws -> JSON {
        let id = try Self.transactionID(text, error: .invalidOriginalTransactionID)
        guard let body = try? JSON.parse(request.body) else { throw APIError.badRequest }
        let (days, reasonCode, _) = try Self.extensionTerms(body)
        let extended: RenewalExtension?
        do {
            extended = try await face.extendSubscription(originalTransactionID: id, days: days, reasonCode: reasonCode)
        } catch let error as ExtensionError {
            throw switch error {
            case .ineligible: APIError.extensionIneligible
            case .maximumReached: APIError.extensionMaximum
            case .familyShared: APIError.extensionFamilyShared
            }
        } catch let error as InputError {
            throw APIError(error)
        }
        guard let extended else { throw APIError.originalTransactionNotFound }
        return .object([
            "originalTransactionId": .string(String(extended.originalTransactionID)),
            "webOrderLineItemId": .string(extended.webOrderLineItemID),
            "success": .bool(true),
            "effectiveDate": .integer(Int64((extended.effectiveDate.timeIntervalSince1970 * 1000).rounded())),
        ])
    }

    // MARK: - Notifications

    static func attemptsJSON(_ notification: ServerNotification) -> JSON {
        .array(notification.attempts.map { attempt in
            .object([
                "attemptDate": .integer(Int64((attempt.date.timeIntervalSince1970 * 1000).rounded())),
                "sendAttemptResult": .string(attempt.result.rawValue),
            ])
        })
    }

    func testNotification(_ token: String) async throws -> JSON {
        guard !token.isEmpty, token.count <= 128 else { throw APIError.invalidTestToken }
        guard let found = try await face.testNotification(token: token) else { throw APIError.testNotificationNotFound }
        return .object(["signedPayload": .string(found.signedPayload), "sendAttempts": Self.attemptsJSON(found)])
    }

    /// How far back Get Notification History reaches: Apple keeps 180 days of it in Production, 30 in the sandbox.
    static func notificationHistoryDays(environment: String) -> Double {
        environment == Transaction.AppStoreEnvironment.production.appStoreName ? 180 : 30
    }

    /// Get Notification History's filter and page, read from the request's body and token.
    /// Apart from the async handler: Swift 6.3's release build crashes (LLVM's coroutine
    /// splitting, swifterror) on this parsing inside an async function.
    static func notificationQuery(_ request: HTTPRequest) throws -> (filter: NotificationFilter, after: Int64?) {
        guard let body = try? JSON.parse(request.body) else { throw APIError.badRequest }
        func milliseconds(_ key: String, _ error: APIError) throws -> Date {
            guard case .number(let text)? = body[key] else { throw error }
            return try RequestDates.date(text, error: error)
        }
        var filter = NotificationFilter(startDate: try milliseconds("startDate", .invalidStartDate),
                                        endDate: try milliseconds("endDate", .invalidEndDate))
        if filter.startDate! > filter.endDate! { throw APIError.startAfterEnd }
        if case .string(let type)? = body["notificationType"] {
            guard NotificationType(rawValue: type) != nil else { throw APIError.invalidNotificationType }
            filter.type = type
        }
        if case .string(let subtype)? = body["notificationSubtype"] {
            // A subtype is a filter only with its type: Apple's InvalidNotificationTypeError otherwise.
            guard filter.type != nil else { throw APIError.invalidNotificationType }
            filter.subtype = subtype
        }
        // Apple's transactionId limits the history to that customer: every notification of theirs.
        if case .string(let transaction)? = body["transactionId"] {
            filter.customerTransactionID = try transactionID(transaction)
            if filter.type != nil { throw APIError.multipleFilters }
        }
        if case .bool(let only)? = body["onlyFailures"] { filter.onlyFailures = only }
        var after: Int64?
        if let token = request.values("paginationToken").last {
            guard let bytes = Base64URL.decode(token), let text = String(bytes: bytes, encoding: .utf8), text.hasPrefix("n:"),
                  let id = Int64(text.dropFirst(2)) else { throw APIError.invalidPaginationToken }
            after = id
        }
        return (filter, after)
    }

    func notificationHistory(_ request: HTTPRequest) async throws -> JSON {
        let (filter, after) = try Self.notificationQuery(request)
        let days = Self.notificationHistoryDays(environment: try await face.environment())
        if filter.startDate! < (try await face.now()).addingTimeInterval(-days * 86_400) {
            throw APIError.startDateTooFarInPast
        }
        var found = try await face.notifications(filter, after: after, limit: Self.pageSize + 1)
        let hasMore = found.count > Self.pageSize
        if hasMore { found.removeLast() }
        return .object([
            "notificationHistory": .array(found.map {
                .object(["signedPayload": .string($0.signedPayload), "sendAttempts": Self.attemptsJSON($0)])
            }),
            "hasMore": .bool(hasMore),
            "paginationToken": hasMore ? .string(Base64URL.encode(Array("n:\(found.last!.id)".utf8))) : nil,
        ])
    }
}
