import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO
import StoriesCore
import StoriesFeedIO

extension PostgresSeenDatabase {
    /// What a `postgres://` address says, with the password kept apart from what is shown.
    /// It may name several hosts, as libpq's does (`postgres://h1:p1,h2:p2/db`): the store
    /// writes to one of them at a time and, when it fails, looks for the next one that takes
    /// writes (`target_session_attrs=read-write`: not a standby) — a primary that failed over
    /// to its standby is found on the standby's address.
    public struct Address: Sendable, Equatable {
        /// The host written to now (`hosts[current]`), and its port.
        public var host: String
        public var port: Int
        public var user: String
        public var password: String?
        public var database: String
        /// libpq's `sslmode`: disable, prefer (the default), require, verify-full.
        public var tls: String
        /// libpq's `sslrootcert`: a PEM file of the authorities a verify-full server's
        /// certificate may be signed by (nil: the system's).
        public var rootCertificates: String? = nil
        /// Every host the address names, in its order (empty: only `host`).
        public var hosts: [Endpoint] = []
        /// libpq's `target_session_attrs`: `read-write` (or `primary`) takes only a server
        /// that is not a standby; `any` (the default) the first that answers.
        public var readWrite = false
        /// That file's certificates, once read (`readingRootCertificates`).
        var trusted: [NIOSSLCertificate]? = nil

        public struct Endpoint: Sendable, Equatable {
            public var host: String
            public var port: Int
            public init(host: String, port: Int) { self.host = host; self.port = port }
            var shown: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }
        }

        /// The hosts in order (one at least).
        public var endpoints: [Endpoint] { hosts.isEmpty ? [Endpoint(host: host, port: port)] : hosts }

        /// The same address, writing to its `index`th host.
        func at(_ index: Int) -> Address {
            var moved = self
            let endpoints = endpoints
            let endpoint = endpoints[min(max(0, index), endpoints.count - 1)]
            moved.host = endpoint.host
            moved.port = endpoint.port
            return moved
        }

        /// The address with `sslrootcert`'s file read (through `SafeFile`: a regular file,
        /// at most 1 MB; a link is followed, as an operator's own path may be one), or why
        /// it cannot be.
        func readingRootCertificates() throws(SeenStoreFailure) -> Address {
            guard let path = rootCertificates else { return self }
            let data: Data
            do { data = try SafeFile.read(path, maxBytes: 1 << 20, followLinks: true).0 } catch {
                throw SeenStoreFailure("seen store \(shown): sslrootcert \(SafeText.line(path)): \(SafeFile.describe(error, maxBytes: 1 << 20))")
            }
            guard let certificates = try? NIOSSLCertificate.fromPEMBytes([UInt8](data)), !certificates.isEmpty else {
                throw SeenStoreFailure("seen store \(shown): sslrootcert \(SafeText.line(path)): no PEM certificate in it")
            }
            var read = self
            read.trusted = certificates
            return read
        }

        /// The address as it may be printed: no password; every host.
        public var shown: String {
            "postgres://\(user)@\(endpoints.map(\.shown).joined(separator: ","))/\(database)" + (readWrite && endpoints.count > 1 ? "?target_session_attrs=read-write" : "")
        }

        /// The most hosts one address may name.
        static let maxHosts = 8

        /// `postgres://[user[:password]@]host[:port][,host[:port]…]/database[?sslmode=…&target_session_attrs=…]`;
        /// the password may also come from `PGPASSWORD`. Everything is bounded and checked before use.
        public static func parse(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(SeenStoreFailure) -> Address {
            func refuse(_ why: String) -> SeenStoreFailure { SeenStoreFailure("--database: \(why) (postgres://USER[:PASSWORD]@HOST[:PORT][,HOST2[:PORT2]]/DATABASE)") }
            guard text.utf8.count <= 1024 else { throw refuse("the address is longer than 1024 bytes") }
            guard let scheme = ["postgres://", "postgresql://"].first(where: { text.hasPrefix($0) }) else { throw refuse("not a postgres:// address") }
            // The host list, which URLComponents does not read: each host alone, the first
            // in the address that is read as a whole.
            let rest = text.dropFirst(scheme.count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            let userPart = authority.lastIndex(of: "@").map { authority[...$0] } ?? ""
            let hostList = authority[(authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex)...]
            let named = hostList.split(separator: ",", omittingEmptySubsequences: false)
            guard named.count <= maxHosts else { throw refuse("more than \(maxHosts) hosts") }
            var endpoints: [Endpoint] = []
            for each in named {
                if !each.hasPrefix("["), each.filter({ $0 == ":" }).count > 1 {
                    throw refuse("an IPv6 address goes in brackets, as [::1]:5432")
                }
                let portText = each.hasPrefix("[") ? each.drop { $0 != "]" }.dropFirst().drop { $0 != ":" }.dropFirst()
                    : (each.contains(":") ? each.drop { $0 != ":" }.dropFirst() : "")
                if each.contains(":") && !each.hasPrefix("[") || each.hasPrefix("[") && each.contains("]:") {
                    guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                        throw refuse("port '\(SafeText.line(String(portText.prefix(16))))' is not a number from 1 to 65535")
                    }
                }
                // An IPv6 address is written in brackets; the host is the address.
                guard !each.isEmpty, let parts = URLComponents(string: "postgres://\(each)/x"),
                      let host = parts.host.map({ $0.hasPrefix("[") && $0.hasSuffix("]") ? String($0.dropFirst().dropLast()) : $0 }), !host.isEmpty else {
                    throw refuse(named.count > 1 ? "an empty or unreadable host in the list" : "no host")
                }
                let port = parts.port ?? 5432
                guard (1...65535).contains(port) else { throw refuse("port \(port) is not 1…65535") }
                endpoints.append(Endpoint(host: host, port: port))
            }
            let whole = scheme + userPart + (named.first ?? "") + rest.dropFirst(authority.count)
            guard let parts = URLComponents(string: whole), let first = endpoints.first else { throw refuse("not a postgres:// address") }
            let database = String(parts.path.drop(while: { $0 == "/" }))
            guard !database.isEmpty, !database.contains("/") else { throw refuse("no database name after the host") }
            let user = parts.user ?? environment["PGUSER"] ?? environment["USER"] ?? "postgres"
            guard !user.isEmpty else { throw refuse("no user") }
            let password = parts.password ?? environment["PGPASSWORD"]
            var tls = "prefer"
            var rootCertificates: String?
            var readWrite = false
            for item in parts.queryItems ?? [] {
                switch item.name {
                case "sslmode":
                    guard let mode = item.value, ["disable", "prefer", "require", "verify-full"].contains(mode) else {
                        throw refuse("sslmode is one of disable, prefer, require, verify-full")
                    }
                    tls = mode
                case "sslrootcert":
                    guard let path = item.value, !path.isEmpty, path.utf8.count <= 4096, !path.contains("\0") else {
                        throw refuse("sslrootcert is the path of a PEM file of certificates")
                    }
                    rootCertificates = path
                case "target_session_attrs":
                    guard let value = item.value, ["any", "read-write", "primary"].contains(value) else {
                        throw refuse("target_session_attrs is any, read-write or primary")
                    }
                    readWrite = value != "any"
                default:
                    throw refuse("'\(SafeText.line(String(item.name.prefix(32))))' is not understood (only sslmode, sslrootcert and target_session_attrs are)")
                }
            }
            if rootCertificates != nil, tls != "verify-full" {
                throw refuse("sslrootcert is used only with sslmode=verify-full")
            }
            return Address(host: first.host, port: first.port, user: user, password: password, database: database, tls: tls,
                           rootCertificates: rootCertificates, hosts: endpoints.count > 1 ? endpoints : [], readWrite: readWrite)
        }

        /// What `sslmode` asks for: nil for no TLS; else TLS with this configuration (the
        /// server's certificate checked only for verify-full), required or only preferred.
        var tlsSettings: (configuration: TLSConfiguration, required: Bool)? {
            guard tls != "disable" else { return nil }
            var configuration = TLSConfiguration.makeClientConfiguration()
            if tls != "verify-full" { configuration.certificateVerification = .none }
            if let trusted { configuration.trustRoots = .certificates(trusted) }
            return (configuration, tls != "prefer")
        }

        /// The pool's configuration, for the host written to now.
        var configuration: PostgresClient.Configuration {
            let mode: PostgresClient.Configuration.TLS = switch tlsSettings {
            case nil: .disable
            case let settings?: settings.required ? .require(settings.configuration) : .prefer(settings.configuration)
            }
            var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: mode)
            configuration.options.connectTimeout = .seconds(5)
            configuration.options.maximumConnections = PostgresSeenDatabase.poolConnections
            configuration.options.minimumConnections = 1
            // No keep-alive query on idle connections: the pool set a timer after every use
            // of a connection and cancelled it at the next (a task and a sleep for each
            // statement). A connection that died while idle fails its next statement (a 503
            // the client sends again) and is replaced.
            configuration.options.keepAliveBehavior = nil
            return configuration
        }

        /// The same, for one connection of its own (the one that listens, and the look for a
        /// host to write to), to the host written to now.
        func connectionConfiguration() throws -> PostgresConnection.Configuration {
            let mode: PostgresConnection.Configuration.TLS
            if let settings = tlsSettings {
                let context = try NIOSSLContext(configuration: settings.configuration)
                mode = settings.required ? .require(context) : .prefer(context)
            } else {
                mode = .disable
            }
            var configuration = PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: mode)
            configuration.options.connectTimeout = .seconds(endpoints.count > 1 ? 2 : 5)
            return configuration
        }
    }
}
