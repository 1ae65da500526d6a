import StoriesCore

/// Why a picture cannot be shown, typed so the viewer can say it on the item and tests can
/// check it. Never a crash.
public enum MediaError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case fileTooLarge(bytes: Int, limit: Int)
    case tooManyPixels(width: Int, height: Int, limit: Int)
    case unknownFormat
    /// Neither a photo nor a video: what the viewer says of a file it cannot read at all.
    case unknownMedia
    case corrupt(format: ImageFormat, reason: String)
    case outOfMemory(String)
    case unreadable(String)
    /// The source did not answer, for a reason that may pass (a timeout, a refused
    /// connection, a 5xx): nothing is kept of it, and it is asked for again.
    case unreachable(String)
    /// A video that cannot play: the reason as FFmpeg's headers and decoder gave it.
    case video(String)
    /// A container with no video stream (sound alone, say): the reason, as `video`'s. A
    /// voice note's bytes are this, and drawn as their waveform.
    case noPicture(String)

    public var description: String {
        switch self {
        case .empty:
            "the file is empty"
        case .fileTooLarge(let bytes, let limit):
            "the file is \(Self.megabytes(bytes)), more than the \(Self.megabytes(limit)) a photo or video may be"
        case .tooManyPixels(let width, let height, let limit):
            "the image is \(width)×\(height), more than the \(limit / 1_000_000) megapixels a photo may be"
        case .unknownFormat:
            "not a JPEG, PNG or WebP image"
        case .unknownMedia:
            "neither a photo (JPEG, PNG, WebP) nor a video FFmpeg can read"
        case .corrupt(let format, let reason):
            "corrupt \(format.rawValue.uppercased()): \(reason)"
        case .outOfMemory(let detail):
            "not enough memory: \(detail)"
        case .unreadable(let reason):
            "cannot read the file: \(reason)"
        case .unreachable(let reason):
            reason
        case .video(let reason), .noPicture(let reason):
            reason
        }
    }

    /// It may pass: the pipeline keeps no failure, and the app asks again with backoff.
    public var isTransient: Bool {
        if case .unreachable = self { return true }
        return false
    }

    /// A fetch's failure as the media side keeps it: one that may pass stays one.
    public init(fetching error: FeedError) {
        self = error.isTransient ? .unreachable(error.reason) : .unreadable(error.reason)
    }

    static func megabytes(_ bytes: Int) -> String {
        let mb = Double(bytes) / 1_048_576
        return mb >= 10 ? "\(Int(mb.rounded())) MB" : String(format: "%.1f MB", mb)
    }
}
