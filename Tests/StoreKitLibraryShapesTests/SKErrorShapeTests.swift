import Foundation
import StorefrontKit
import Testing

// Errors as libraries build them: from an NSError a delegate handed over, or from a code and user info
// to fake a failure in their tests; then read back as the library's error mapping reads them.

/// The library's mapping of StoreKit 1 errors to its own.
enum PurchaseFailure: Equatable {
    case cancelled, notAllowed, network, other(Int, String)

    init(_ error: any Error) {
        switch error {
        case SKError.paymentCancelled: self = .cancelled
        case SKError.paymentNotAllowed: self = .notAllowed
        case let error as SKError where error.code == .cloudServiceNetworkConnectionFailed: self = .network
        default:
            let error = error as NSError
            self = .other(error.code, error.domain)
        }
    }
}

@Suite("SKError") struct SKErrorShapeTests {
    @Test func anErrorBuiltFromAnNSErrorReadsItsCodeAndUserInfo() throws {
        let nsError = NSError(domain: SKErrorDomain, code: SKError.Code.paymentNotAllowed.rawValue,
                              userInfo: [NSLocalizedDescriptionKey: "Payments are off", "attempt": 3])
        let error = SKError(_nsError: nsError)
        #expect(error.code == .paymentNotAllowed)
        #expect(error.errorCode == 4)
        #expect(error.userInfo["attempt"] as? Int == 3)
        #expect(error.errorUserInfo[NSLocalizedDescriptionKey] as? String == "Payments are off")
        #expect(error.localizedDescription == "Payments are off")
        #expect(error._nsError === nsError)
        #expect(PurchaseFailure(error) == .notAllowed)
    }

    @Test func anErrorBuiltFromACodeAndUserInfoBridgesToNSError() throws {
        let error = SKError(.paymentCancelled, userInfo: [NSLocalizedDescriptionKey: "The user closed the sheet",
                                                           NSUnderlyingErrorKey: NSError(domain: "Mock", code: 9)])
        #expect(error.code == .paymentCancelled && SKError.errorDomain == SKErrorDomain)
        #expect((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.code == 9)
        let bridged = error as NSError
        #expect(bridged.domain == "SKErrorDomain" && bridged.code == 2)
        #expect(bridged.userInfo[NSLocalizedDescriptionKey] as? String == "The user closed the sheet")
        #expect(PurchaseFailure(error) == .cancelled)

        let plain = SKError(.cloudServiceNetworkConnectionFailed)
        #expect(plain.userInfo.isEmpty && plain.code.rawValue == 7)
        #expect(PurchaseFailure(plain) == .network)
        #expect(PurchaseFailure(NSError(domain: "Other", code: 2)) == .other(2, "Other"), "another domain's 2 is not a cancel")
    }

    @Test func aThrownErrorIsCaughtByItsCode() {
        func pay() throws { throw SKError(_nsError: NSError(domain: SKErrorDomain, code: 2)) }
        var caught = false
        do { try pay() } catch SKError.paymentCancelled { caught = true } catch {}
        #expect(caught)
    }

    @Test func equalityFollowsTheBridgedError() {
        #expect(SKError(.paymentInvalid, userInfo: ["a": "1"]) == SKError(.paymentInvalid, userInfo: ["a": "1"]))
        #expect(SKError(.paymentInvalid, userInfo: ["a": "1"]) != SKError(.paymentInvalid, userInfo: ["a": "2"]))
        #expect(SKError(.paymentInvalid) != SKError(.paymentCancelled))
        #expect(Set([SKError(.unknown), SKError(.unknown), SKError(.clientInvalid)]).count == 2)
    }
}
