import Foundation

/// Limits a server raises for itself.
public enum ProcessLimits {
    /// Raises the soft limit on open files to the hard one (as nginx's `worker_rlimit_nofile`
    /// and Go's runtime do): each held long poll is a descriptor, and a soft limit of 1024
    /// (systemd's and most shells' default) would stop a replica at about a thousand viewers.
    /// The limit now. The hard limit is the operator's (`LimitNOFILE=` under systemd,
    /// `ulimit -Hn`; docs/deploy.md).
    @discardableResult
    public static func raiseOpenFiles() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// What `stories serve` says when the file limit it could raise itself to is low (under
    /// 4 096); nil when it is not.
    public static func openFilesWarning(_ limit: Int) -> String? {
        guard limit < 4096 else { return nil }
        return "stories serve: at most \(limit) open files (ulimit -Hn), so at most about \(max(0, limit - 64)) viewers' connections at once; "
            + "raise it (LimitNOFILE= under systemd: docs/deploy.md)"
    }
}
