import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import NIOSSL
import StoriesCore
import StoriesFeedIO

/// `stories serve --tls-cert FILE --tls-key FILE`: HTTPS itself, for a server that faces a
/// network without a proxy in front.
extension FeedServer {
    /// The server's TLS settings from PEM files: the certificate (and the chain after it) and
    /// its private key, each read the one safe way (at most 1 MB; the key refused when
    /// another user could change it, as the viewers file is), checked together at start.
    static func tlsConfiguration(certificate: String, key: String) throws(FeedError) -> TLSConfiguration {
        let limit = 1 << 20
        let chainBytes: Data, keyBytes: Data
        do { chainBytes = try SafeFile.read(certificate, maxBytes: limit, followLinks: true).0 } catch {
            throw FeedError(file: SafeText.line(certificate), reason: "--tls-cert: \(SafeFile.describe(error, maxBytes: limit))")
        }
        do { keyBytes = try SafeFile.readPrivate(key, maxBytes: limit, followLinks: true) } catch {
            throw FeedError(file: SafeText.line(key), reason: "--tls-key: \(SafeFile.describe(error, maxBytes: limit))")
        }
        guard let chain = try? NIOSSLCertificate.fromPEMBytes([UInt8](chainBytes)), !chain.isEmpty else {
            throw FeedError(file: SafeText.line(certificate), reason: "--tls-cert: no PEM certificate in it")
        }
        guard let privateKey = try? NIOSSLPrivateKey(bytes: [UInt8](keyBytes), format: .pem) else {
            throw FeedError(file: SafeText.line(key), reason: "--tls-key: no PEM private key in it (an encrypted key is not read)")
        }
        let configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
        do { _ = try NIOSSLContext(configuration: configuration) } catch {
            throw FeedError(file: SafeText.line(key), reason: "--tls-key: does not go with the certificate in \(SafeText.line(certificate)) (\(SafeText.line(String(String(describing: error).prefix(200)))))")
        }
        return configuration
    }

    /// HTTP/1.1, in TLS when the server has a certificate.
    static func serverBuilder(_ http1: HTTPServerBuilder, tls: TLSConfiguration?) throws(FeedError) -> HTTPServerBuilder {
        guard let tls else { return http1 }
        do { return try .tls(http1, tlsConfiguration: tls) } catch {
            throw FeedError(file: "--tls-cert", reason: "TLS could not be set up: \(SafeText.line(String(String(describing: error).prefix(200))))")
        }
    }
}
