import Foundation

/// A PostgreSQL server of the test's own (Debian's `postgresql` package): a data folder made
/// with `initdb` in a scratch folder, the server on loopback at a free port (127.0.0.1, and
/// 127.0.0.2, an address its certificate does not name), trusting local connections,
/// offering TLS with a certificate for 127.0.0.1 signed by itself. As root (CI) it runs as the `postgres` user, which initdb needs.
///
/// It stops when `finish()` is called or when the test process ends, however it ends: a
/// watching shell reads a pipe only this process holds, and stops the server when it closes.
/// Programs are started with `Child` (posix_spawn, nothing inherited): a server started
/// through Foundation's `Process` kept its `waitUntilExit` from returning.
///
/// `@unchecked Sendable`: everything is set once in `init`; `watcher` and `watch` are used
/// only by `finish()`, which the test that made the server calls once.
public final class TestPostgres: @unchecked Sendable {
    public let port: Int
    public let folder: String
    private let data: String
    private let bin: String
    private let asPostgres: Bool
    /// The write end of the watcher's pipe (closing it stops the server).
    private let watch: Int32
    private let watcher: Child

    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The one server the test process shares (each test takes a database of its own).
    public static func shared() throws -> TestPostgres {
        try sharedServer.get()
    }

    private static let sharedServer: Result<TestPostgres, Unavailable> = Result { () throws(Unavailable) -> TestPostgres in try TestPostgres() }

    /// A new server of its own (a test that stops and starts it). `standbyOf`: a streaming
    /// standby of that server, its data copied with `pg_basebackup` (which also writes how to
    /// follow it), in a folder of its own on a port of its own.
    public init(standbyOf primary: TestPostgres? = nil) throws(Unavailable) {
        guard let bin = Self.binaries() else {
            throw Unavailable(description: "PostgreSQL's initdb and postgres are not installed (Debian's postgresql package; scripts/deps installs it)")
        }
        self.bin = bin
        asPostgres = geteuid() == 0
        folder = "/tmp/stories-pg-\(UUID().uuidString.prefix(8))"
        data = folder + "/data"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if asPostgres {
            _ = Self.run(["/bin/chown", "postgres", folder])
        }
        port = freeLoopbackPort()
        if let primary {
            let copied = Self.run(Self.command(["\(bin)/pg_basebackup", "-D", data, "-h", "127.0.0.1", "-p", String(primary.port), "-U", "postgres",
                                                "-X", "stream", "-R", "--no-sync"], asPostgres))
            guard copied.status == 0 else { throw Unavailable(description: "pg_basebackup failed: \(copied.output.suffix(600))") }
        } else {
            let made = Self.run(Self.command(["\(bin)/initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync", "--no-instructions"], asPostgres))
            guard made.status == 0 else { throw Unavailable(description: "initdb failed: \(made.output.suffix(600))") }
            // TLS offered (not required) with a certificate of its own, signed by itself, for
            // 127.0.0.1: what `sslmode=require` and `verify-full` meet (OpenSSL's command).
            let certificate = Self.run(Self.command(["/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                                                     "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                                                     "-keyout", data + "/server.key", "-out", data + "/server.crt"], asPostgres))
            guard certificate.status == 0, Self.run(Self.command(["/bin/chmod", "600", data + "/server.key"], asPostgres)).status == 0 else {
                throw Unavailable(description: "no certificate for TLS (Debian's openssl package): \(certificate.output.suffix(600))")
            }
        }
        // The watcher: starts the server, then waits for its pipe to close and stops it fast.
        var fds: [Int32] = [-1, -1]
        guard let pipe2 = Child.pipe2, pipe2(&fds, O_CLOEXEC) == 0 else { throw Unavailable(description: "no pipe for the watcher") }
        watch = fds[1]
        let start = Self.command(["\(bin)/postgres", "-D", data, "-p", String(port), "-k", folder, "-c", "listen_addresses=127.0.0.1,127.0.0.2",
                                  "-c", "fsync=off", "-c", "max_connections=200", "-c", "shared_buffers=32MB",
                                  "-c", "ssl=on", "-c", "ssl_cert_file=server.crt", "-c", "ssl_key_file=server.key"], asPostgres)
        let script = "\"$@\" </dev/null >\(folder)/log 2>&1 & cat >/dev/null; kill -INT $(head -1 \(data)/postmaster.pid 2>/dev/null) 2>/dev/null"
        do {
            watcher = try Child(["/bin/sh", "-c", script, "sh"] + start, environment: ProcessInfo.processInfo.environment, stdin: fds[0])
        } catch {
            close(fds[0]); close(fds[1])
            throw Unavailable(description: "the server could not be started: \(error)")
        }
        close(fds[0])
        guard waitUntilReady(seconds: 30) else {
            let log = (try? String(contentsOfFile: folder + "/log", encoding: .utf8)) ?? ""
            throw Unavailable(description: "PostgreSQL did not start on port \(port): \(log.suffix(600))")
        }
    }

    /// Makes every commit wait until a standby has it (`synchronous_standby_names = '*'`),
    /// once the standby streams; whether it does (within 30 s).
    public func requireSynchronousStandby() -> Bool {
        guard psql("postgres", "ALTER SYSTEM SET synchronous_standby_names = '*'").status == 0,
              psql("postgres", "SELECT pg_reload_conf()").status == 0 else { return false }
        return Wait.until(30, every: 0.1) {
            psql("postgres", "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'").output.trimmingCharacters(in: .whitespacesAndNewlines) == "1"
        }
    }

    /// A standby made the primary (`pg_ctl promote`, waiting until it takes writes).
    public func promote() -> (status: Int32, output: String) {
        Self.run(command(["\(bin)/pg_ctl", "-D", data, "-w", "-t", "30", "promote"]))
    }

    /// `postgres://postgres@127.0.0.1:PORT/NAME?sslmode=disable`
    public func url(_ database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)?sslmode=disable" }

    /// A new empty database; its name.
    public func database() throws -> String {
        let name = "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        let made = psql("postgres", "CREATE DATABASE \(name)")
        guard made.status == 0 else { throw Unavailable(description: "CREATE DATABASE failed: \(made.output)") }
        return name
    }

    /// Runs SQL with psql as the postgres user; its status and output.
    @discardableResult
    public func psql(_ database: String, _ sql: String) -> (status: Int32, output: String) {
        Self.run(["/usr/bin/psql", "-X", "-q", "-t", "-A", "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database,
                  "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    /// Stops the server at once (SIGKILL: as if the machine lost it) or fast (SIGINT).
    public func stop(kill: Bool = false) {
        guard let pid = postmaster() else { return }
        let children = Self.children(of: pid)
        Foundation.kill(pid, kill ? SIGKILL : SIGINT)
        // The postmaster's children notice it gone and leave; the next start needs them gone.
        Wait.until(10, every: 0.02) { ([pid] + children).allSatisfy(Self.isGone) }
    }

    /// Ended, or a zombie waiting to be reaped.
    private static func isGone(_ pid: pid_t) -> Bool {
        guard Foundation.kill(pid, 0) == 0 else { return true }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }

    /// The processes whose parent is `pid` (from /proc).
    private static func children(of pid: pid_t) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let child = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }

    /// Starts the stopped server again, on the same port and data (watched by nothing: the
    /// test that restarts it stops it).
    public func restart() -> Bool {
        let started = Self.run(command(["\(bin)/pg_ctl", "-D", data, "-l", folder + "/log2", "-w", "-t", "30",
                                        "-o", "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1,127.0.0.2 -c fsync=off -c max_connections=200 -c ssl=on -c ssl_cert_file=server.crt -c ssl_key_file=server.key", "start"]))
        return started.status == 0
    }

    /// The server at port (for an `atexit`-less end: the restarted server is stopped here).
    public func finish() {
        stop()
        close(watch)
        watcher.wait()
    }

    private func postmaster() -> pid_t? {
        guard let text = try? String(contentsOfFile: data + "/postmaster.pid", encoding: .utf8),
              let first = text.split(separator: "\n").first, let pid = pid_t(first), pid > 1 else { return nil }
        return pid
    }

    private func waitUntilReady(seconds: Double) -> Bool {
        Wait.until(seconds, every: 0.1) { psql("postgres", "SELECT 1").status == 0 }
    }

    private func command(_ arguments: [String]) -> [String] { Self.command(arguments, asPostgres) }

    private static func command(_ arguments: [String], _ asPostgres: Bool) -> [String] {
        asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + arguments : arguments
    }

    /// The newest `…/postgresql/N/bin` with initdb and postgres.
    static func binaries() -> String? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted(by: >)
        for version in versions {
            let bin = "\(root)/\(version)/bin"
            if FileManager.default.isExecutableFile(atPath: bin + "/initdb"), FileManager.default.isExecutableFile(atPath: bin + "/postgres") { return bin }
        }
        return nil
    }

    /// Runs a program to its end; its status and what it said (both streams, to files: a
    /// server it starts would hold a pipe open after it ends).
    public static func run(_ arguments: [String]) -> (status: Int32, output: String) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("run-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: base + ".out"); try? FileManager.default.removeItem(atPath: base + ".err") }
        let child: Child
        do {
            child = try Child(arguments, environment: ProcessInfo.processInfo.environment, stdout: .file(base + ".out"), stderr: .file(base + ".err"))
        } catch { return (-1, "\(error)") }
        let status = child.wait()
        let said = ((try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? "") + ((try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? "")
        return (status, said)
    }
}
