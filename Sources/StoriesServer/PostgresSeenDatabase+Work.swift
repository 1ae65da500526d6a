import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import StoriesCore
import StoriesFeedIO

/// How work reaches PostgreSQL, and what its failures are said as.
extension PostgresSeenDatabase {
    // MARK: - Work and its failures

    /// The longest a request waits for PostgreSQL, from its arrival: past it the request is
    /// answered 503 (the pool would otherwise wait for a server that is gone for as long as
    /// it keeps trying). 3 s, so that with the request's own handling, the writes' 25 ms
    /// gathering and a loaded machine the 503 comes within the 4 s docs/deploy.md promises
    /// (tested).
    static let patienceMilliseconds = 3000
    static let patience = DispatchTimeInterval.milliseconds(patienceMilliseconds)

    /// `work`, within `patience`, with PostgreSQL's errors said in words a person can act on.
    /// The work runs on the stores' own queue; past `patience` it is cancelled and left to
    /// end when it will (a pool waiting for a server that is gone does not end at once). A
    /// batch cut short was committed whole or not at all (one statement); the client sends
    /// it again either way.
    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws(SeenStoreFailure) -> T {
        do { return try await Self.run(primary.here, work) } catch {
            primary.failed() // with other hosts, the one to write to is looked for
            throw error
        }
    }

    /// What a request hears when PostgreSQL did not answer within `patience`.
    static func timeout(_ address: Address) -> SeenStoreFailure {
        SeenStoreFailure("cannot reach PostgreSQL at \(SafeText.line(address.host)):\(address.port) (no answer within \(Double(patienceMilliseconds) / 1000) s; is it running?)")
    }

    static func run<T: Sendable>(_ address: Address, _ work: @escaping @Sendable () async throws -> T) async throws(SeenStoreFailure) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, SeenStoreFailure>, Never>) in
            let once = TakenOnce(continuation)
            let task = Task(executorPreference: PostgresStoreLoop.executor) {
                // The result first, then the continuation taken: taken before an `await`, it
                // would be out of the timer's reach, and lost if the work threw.
                let result: Result<T, SeenStoreFailure>
                do { result = .success(try await work()) } catch let failure as SeenStoreFailure {
                    result = .failure(failure)
                } catch {
                    result = .failure(SeenStoreFailure(Self.reason(error, address)))
                }
                once.take()?.resume(returning: result)
            }
            SeenSignals.timers.asyncAfter(deadline: .now() + Self.patience) {
                once.take()?.resume(returning: .failure(timeout(address)))
                task.cancel()
            }
        }
        return try result.get()
    }

    /// A value the first `take()` gets and every later one does not: a continuation (or a
    /// group's) resumed by whichever of the work and its timer ends first.
    /// `@unchecked Sendable`: `value` is touched only under `lock`.
    final class TakenOnce<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value?
        init(_ value: Value) { self.value = value }
        func take() -> Value? { lock.withLock { defer { value = nil }; return value } }
    }

    static func reason(_ error: any Error, _ address: Address) -> String {
        if let transaction = error as? PostgresTransactionError {
            if let inner = transaction.closureError as? SeenStoreFailure { return inner.description }
            if let inner = transaction.closureError ?? transaction.beginError ?? transaction.commitError { return reason(inner, address) }
        }
        guard let failure = error as? PSQLError else {
            if error is CancellationError { return "the work was cancelled (the server is stopping)" }
            // The pool gave up making connections (its error type is not public).
            if String(reflecting: type(of: error)).contains("ConnectionPoolError") {
                return "cannot reach PostgreSQL at \(SafeText.line(address.host)):\(address.port)"
            }
            return SafeText.line(String(describing: error))
        }
        let state = failure.serverInfo?[.sqlState] ?? ""
        let message = SafeText.line(String((failure.serverInfo?[.message] ?? "").prefix(300)))
        switch failure.code {
        case .server:
            switch state {
            case "53100": return "PostgreSQL's disk is full"
            case "25006": return "the database is read-only"
            case "28P01", "28000": return "PostgreSQL refused the user '\(SafeText.line(address.user))' (\(message))"
            case "3D000": return "there is no database '\(SafeText.line(address.database))' (create it, or give another)"
            case "57P01", "57P02", "57P03": return "PostgreSQL is shutting down or starting up (\(message))"
            default: return "PostgreSQL said: \(message) (\(SafeText.line(state)))"
            }
        case .connectionError where failure.underlying is NIOSSLError || failure.underlying is NIOSSLExtraError
            || failure.underlying is BoringSSLError:
            return "TLS with PostgreSQL at \(SafeText.line(address.host)):\(address.port) failed: \(tlsReason(failure.underlying, address))"
        case .connectionError, .serverClosedConnection, .uncleanShutdown:
            return "cannot reach PostgreSQL at \(SafeText.line(address.host)):\(address.port)"
        case .sslUnsupported: return "PostgreSQL at \(SafeText.line(address.host)) does not speak TLS (sslmode=disable to go without)"
        case .poolClosed, .clientClosedConnection: return "the store is closed"
        case .queryCancelled: return "the work was cancelled"
        default: return "PostgreSQL: \(failure.code)"
        }
    }

    /// Why a TLS handshake failed, in words (OpenSSL's own name for it kept in brackets).
    static func tlsReason(_ error: (any Error)?, _ address: Address) -> String {
        let said = SafeText.line(String((error.map { String(describing: $0) } ?? "no reason given").prefix(300)))
        if said.contains("CERTIFICATE_VERIFY_FAILED") {
            let trusted = address.rootCertificates.map { "the certificates in \(SafeText.line($0))" } ?? "an authority this machine trusts (sslrootcert= names a file of others)"
            return "its certificate is not signed by \(trusted) [CERTIFICATE_VERIFY_FAILED]"
        }
        if said.contains("noCertificateToValidate") || said.contains("failedToValidateHostname") || said.contains("ERROR_HOSTNAME") {
            return "its certificate does not name \(SafeText.line(address.host)) [\(said)]"
        }
        return said
    }

    static let quiet: Logger = {
        var logger = Logger(label: "stories.seen.postgres")
        logger.logLevel = .critical
        return logger
    }()
}
