import StoriesCells
import Foundation

/// tmux's passthrough (`allow-passthrough on`): an escape string wrapped as
/// `ESC P tmux; … ESC \` with every ESC inside doubled reaches the terminal outside tmux as
/// it was. Each command is wrapped by itself, so none comes near the most tmux reads of one
/// (a kitty chunk is 4 KB; a whole picture in one would be megabytes).
public enum TmuxPassthrough {
    /// `commands` (escape strings one after another: `ESC _ … ESC \`, `ESC P … ESC \`,
    /// `ESC ] … BEL`) each wrapped; bytes between them are left as they are, and an
    /// unfinished command at the end is dropped.
    public static func wrap(_ commands: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(commands.count + commands.count / 256 + 16)
        var index = 0
        while index < commands.count {
            guard commands[index] == 0x1B, index + 1 < commands.count, [0x5F, 0x50, 0x5D].contains(commands[index + 1]) else {
                out.append(commands[index])
                index += 1
                continue
            }
            // The command's end: ST (ESC \), or BEL for an OSC.
            var end = index + 2
            var found = false
            while end < commands.count {
                if commands[end] == 0x1B, end + 1 < commands.count, commands[end + 1] == 0x5C { end += 2; found = true; break }
                if commands[end] == 0x07, commands[index + 1] == 0x5D { end += 1; found = true; break }
                end += 1
            }
            guard found else { break } // unfinished: dropped, or tmux would read what follows into it
            out += [0x1B, 0x50] + Array("tmux;".utf8)
            for byte in commands[index..<end] {
                if byte == 0x1B { out.append(0x1B) }
                out.append(byte)
            }
            out += [0x1B, 0x5C]
            index = end
        }
        return out
    }
}
