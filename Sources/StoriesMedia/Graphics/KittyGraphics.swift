import Foundation

/// kitty's graphics protocol (issue 31), as the picture layer and `stories print` write it:
/// a picture sent once under an id (PNG, in base64 chunks of 4096), then placed — whole or
/// some of its rows — as often as it is shown, and its placements or the picture itself
/// deleted when it goes. Every command is quiet (`q=2`): the terminal answers nothing, so
/// no answer can reach the input as keys.
/// Spec: https://sw.kovidgoyal.net/kitty/graphics-protocol/
public enum KittyGraphics {
    /// The largest chunk of base64 one command carries (the spec's limit).
    public static let chunk = 4096

    /// Sends `png` as picture `id` (not shown yet). Empty for an empty picture.
    public static func transmit(png: Data, id: UInt32) -> [UInt8] {
        let encoded = Array(png.base64EncodedData())
        guard !encoded.isEmpty else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(encoded.count + encoded.count / chunk * 24 + 64)
        var start = 0
        while start < encoded.count {
            let end = min(encoded.count, start + chunk)
            let more = end < encoded.count ? 1 : 0
            let keys = start == 0 ? "a=t,f=100,t=d,i=\(id),q=2,m=\(more)" : "m=\(more),q=2"
            out += Array("\u{1B}_G\(keys);".utf8)
            out += encoded[start..<end]
            out += [0x1B, 0x5C]
            start = end
        }
        return out
    }

    /// Shows rows `rows` (pixels) of picture `id` at the cursor, over `columns` × `cellRows`
    /// cells, as placement `placement` (placing it again moves it). The cursor stays where
    /// it was (`C=1`).
    public static func place(id: UInt32, placement: UInt32, width: Int, rows: Range<Int>, columns: Int, cellRows: Int) -> [UInt8] {
        Array("\u{1B}_Ga=p,i=\(id),p=\(placement),x=0,y=\(rows.lowerBound),w=\(width),h=\(rows.count),c=\(columns),r=\(cellRows),C=1,q=2\u{1B}\\".utf8)
    }

    /// Takes placement `placement` of picture `id` off the screen; the picture stays sent.
    public static func remove(id: UInt32, placement: UInt32) -> [UInt8] {
        Array("\u{1B}_Ga=d,d=i,i=\(id),p=\(placement),q=2\u{1B}\\".utf8)
    }

    /// Deletes picture `id`: its placements and the terminal's copy of it.
    public static func delete(id: UInt32) -> [UInt8] {
        Array("\u{1B}_Ga=d,d=I,i=\(id),q=2\u{1B}\\".utf8)
    }

    /// A picture for `stories print`: sent and shown at the cursor over `columns` × `rows`
    /// cells in one command (`a=T`), the cursor left after it as text would be.
    /// `cursorStays`: the cursor is left where it was (a video's frames, one over the last).
    public static func show(png: Data, id: UInt32, columns: Int, rows: Int, cursorStays: Bool = false) -> [UInt8] {
        var out = transmit(png: png, id: id)
        guard !out.isEmpty else { return [] }
        // The first command's action becomes "transmit and display", sized in cells.
        if let range = out.firstRange(of: Array("a=t,".utf8)) {
            out.replaceSubrange(range, with: Array("a=T,c=\(columns),r=\(rows),\(cursorStays ? "C=1," : "")".utf8))
        }
        return out
    }
}

/// iTerm2's inline images (OSC 1337 `File=`), which iTerm2, WezTerm and mintty show: the
/// picture as a PNG in base64, stretched over `columns` × `rows` cells. Nothing is kept by
/// the terminal; the picture layer writes it again whenever its cells were written over.
/// Spec: https://iterm2.com/documentation-images.html
public enum ITermImages {
    public static func inline(png: Data, columns: Int, rows: Int) -> [UInt8] {
        guard !png.isEmpty else { return [] }
        var out = Array("\u{1B}]1337;File=inline=1;size=\(png.count);width=\(columns);height=\(rows);preserveAspectRatio=0:".utf8)
        out += Array(png.base64EncodedData())
        out.append(0x07)
        return out
    }
}
