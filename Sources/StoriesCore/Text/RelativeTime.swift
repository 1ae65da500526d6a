import Foundation

/// "now", "5m", "3h", "2d", "3w": how long ago a story item was posted, as the viewer's
/// header shows it. Future dates (clock skew) read "now".
public enum RelativeTime {
    public static func short(from date: Date, to now: Date) -> String {
        let seconds = now.timeIntervalSince(date)
        // Not a number, or before now: "now". Past a million years: held there (no trap).
        guard seconds.isFinite, seconds >= 60 else { return "now" }
        let minutes = Int(min(seconds, 3e13) / 60)
        if minutes < 60 { return "\(minutes)m" }
        let hours = minutes / 60
        if hours < 24 { return "\(hours)h" }
        let days = hours / 24
        if days < 7 { return "\(days)d" }
        return "\(days / 7)w"
    }
}
