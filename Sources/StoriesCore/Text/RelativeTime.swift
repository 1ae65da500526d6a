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
        // Older than a week: the day itself, as a person would say it ("123w" says little).
        return day(date, now: now)
    }

    /// "3 Nov" in the year of `now`, "3 Nov 2024" in another (this machine's time zone).
    public static func day(_ date: Date, now: Date, timeZone: TimeZone = .current) -> String {
        // Before year 1 (a file's clock gone wrong, a hostile header): no calendar day.
        guard date.timeIntervalSince1970 >= -62_135_596_800 else { return "long ago" }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        let name = months[safe: (parts.month ?? 1) - 1] ?? ""
        let year = parts.year ?? 0
        return year == calendar.component(.year, from: now) ? "\(parts.day ?? 1) \(name)" : "\(parts.day ?? 1) \(name) \(year)"
    }

    public static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
