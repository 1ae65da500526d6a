import CStoriesSupport
import Foundation
import StoriesCells
import StoriesMedia

/// Pictures handed to kitty through POSIX shared memory (issue 48, point 4): the RGB pixels
/// written into an object of this process's own (`/stories-PID-N`, mode 0600, never one that
/// exists), which kitty reads and unlinks (`t=s`). Used only where the probe's `t=s` query
/// was answered OK — a terminal on this machine that reads them; elsewhere pictures go as
/// PNG in the escape sequence, as before.
enum KittySharedMemory {
    /// The probe's offer: a 1×1 picture (3 bytes) kitty is asked whether it can read.
    static let probeName = "/stories-probe-\(getpid())"
    /// The probe's question's id (the kitty graphics query is 31).
    static let queryID = 32

    /// Puts the probe's offer in place; nil when shared memory cannot be had here.
    static func offer() -> String? {
        stories_shm_remove(probeName) // one left by an earlier process of the same PID
        return put([0, 0, 0], name: probeName) ? probeName : nil
    }

    /// Writes `bytes` into a new object `name`; false when it could not be made.
    static func put(_ bytes: [UInt8], name: String) -> Bool {
        bytes.withUnsafeBytes { buffer in stories_shm_put(name, buffer.baseAddress, buffer.count) } == 0
    }

    /// Removes object `name` (nothing when kitty has taken it).
    static func remove(_ name: String) {
        stories_shm_remove(name)
    }

    /// Whether object `name` is still there (the terminal unlinks it once it has read it).
    static func exists(_ name: String) -> Bool {
        access("/dev/shm" + name, F_OK) == 0
    }

    /// A picture's name: this process's, numbered.
    static func name(_ serial: Int) -> String { "/stories-\(getpid())-\(serial)" }

    /// The command that sends `image` as picture `id` through object `name`, once its pixels
    /// are written there; nil when the object could not be made (the caller sends a PNG).
    static func transmit(_ image: RGBImage, id: UInt32, name: String) -> [UInt8]? {
        guard image.width > 0, image.height > 0, put(image.pixels, name: name) else { return nil }
        return KittyGraphics.transmit(sharedMemory: name, width: image.width, height: image.height, id: id)
    }
}
