import StoriesCells
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

    /// Sends `png` as picture `id` (not shown yet; nil: no id, for `show`). Empty for an
    /// empty picture.
    public static func transmit(png: Data, id: UInt32?) -> [UInt8] {
        let encoded = Array(png.base64EncodedData())
        guard !encoded.isEmpty else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(encoded.count + encoded.count / chunk * 24 + 64)
        var start = 0
        while start < encoded.count {
            let end = min(encoded.count, start + chunk)
            let more = end < encoded.count ? 1 : 0
            let keys = start == 0 ? "a=t,f=100,t=d,\(id.map { "i=\($0)," } ?? "")q=2,m=\(more)" : "m=\(more),q=2"
            out += Array("\u{1B}_G\(keys);".utf8)
            out += encoded[start..<end]
            out += [0x1B, 0x5C]
            start = end
        }
        return out
    }

    /// Sends picture `id` as `width` × `height` RGB pixels the terminal reads from POSIX
    /// shared-memory object `name` (`t=s`: kitty maps it, reads it and unlinks it) — no
    /// PNG, no base64, one short command, for a terminal on this machine that said it reads
    /// them (the probe's `t=s` query).
    public static func transmit(sharedMemory name: String, width: Int, height: Int, id: UInt32) -> [UInt8] {
        let encoded = Data(name.utf8).base64EncodedString()
        return Array("\u{1B}_Ga=t,f=24,t=s,s=\(width),v=\(height),S=\(width * height * 3),i=\(id),q=2;\(encoded)\u{1B}\\".utf8)
    }

    /// The probe's question whether the terminal reads shared memory (`t=s`) from this
    /// process: a 1×1 picture in object `name`, never shown (`a=q`), answered OK or an error
    /// under id `id` (a terminal elsewhere — over ssh — cannot open the object).
    public static func sharedMemoryQuery(name: String, id: Int) -> String {
        "\u{1B}_Gi=\(id),s=1,v=1,a=q,t=s,f=24;\(Data(name.utf8).base64EncodedString())\u{1B}\\"
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
    /// cells in one command (`a=T`), the cursor left after it as text would be. `id` nil:
    /// none, so it replaces no picture already on screen (an earlier print's).
    /// `cursorStays`: the cursor is left where it was (a video's frames, one over the last,
    /// under one id).
    public static func show(png: Data, id: UInt32?, columns: Int, rows: Int, cursorStays: Bool = false) -> [UInt8] {
        var out = transmit(png: png, id: id)
        guard !out.isEmpty else { return [] }
        // The first command's action becomes "transmit and display", sized in cells.
        if let range = out.firstRange(of: Array("a=t,".utf8)) {
            out.replaceSubrange(range, with: Array("a=T,c=\(columns),r=\(rows),\(cursorStays ? "C=1," : "")".utf8))
        }
        return out
    }
}

/// kitty's Unicode placeholders (kitty 0.28 and later, Ghostty): the picture is given one
/// virtual placement (`U=1`) over its columns × rows of cells, and each cell where it shows
/// is text — U+10EEEE with a combining mark for its row and one for its column, drawn in a
/// foreground colour that is the picture's id. The picture then lives in the cells: it
/// scrolls and clears with them, and the terminal keeps nothing to delete.
public enum KittyPlaceholders {
    /// The placeholder character.
    public static let character: Unicode.Scalar = "\u{10EEEE}"

    /// The marks for the numbers 0, 1, 2, …: the combining characters of class 230 in
    /// Unicode 6.0 without decomposition, less those normalisation may fuse (the kitty
    /// protocol's table, as code points).
    public static let marks: [UInt32] = [
        0x0305, 0x030D, 0x030E, 0x0310, 0x0312, 0x033D, 0x033E, 0x033F, 0x0346, 0x034A, 0x034B, 0x034C,
        0x0350, 0x0351, 0x0352, 0x0357, 0x035B, 0x0363, 0x0364, 0x0365, 0x0366, 0x0367, 0x0368, 0x0369,
        0x036A, 0x036B, 0x036C, 0x036D, 0x036E, 0x036F, 0x0483, 0x0484, 0x0485, 0x0486, 0x0487, 0x0592,
        0x0593, 0x0594, 0x0595, 0x0597, 0x0598, 0x0599, 0x059C, 0x059D, 0x059E, 0x059F, 0x05A0, 0x05A1,
        0x05A8, 0x05A9, 0x05AB, 0x05AC, 0x05AF, 0x05C4, 0x0610, 0x0611, 0x0612, 0x0613, 0x0614, 0x0615,
        0x0616, 0x0617, 0x0657, 0x0658, 0x0659, 0x065A, 0x065B, 0x065D, 0x065E, 0x06D6, 0x06D7, 0x06D8,
        0x06D9, 0x06DA, 0x06DB, 0x06DC, 0x06DF, 0x06E0, 0x06E1, 0x06E2, 0x06E4, 0x06E7, 0x06E8, 0x06EB,
        0x06EC, 0x0730, 0x0732, 0x0733, 0x0735, 0x0736, 0x073A, 0x073D, 0x073F, 0x0740, 0x0741, 0x0743,
        0x0745, 0x0747, 0x0749, 0x074A, 0x07EB, 0x07EC, 0x07ED, 0x07EE, 0x07EF, 0x07F0, 0x07F1, 0x07F3,
        0x0816, 0x0817, 0x0818, 0x0819, 0x081B, 0x081C, 0x081D, 0x081E, 0x081F, 0x0820, 0x0821, 0x0822,
        0x0823, 0x0825, 0x0826, 0x0827, 0x0829, 0x082A, 0x082B, 0x082C, 0x082D, 0x0951, 0x0953, 0x0954,
        0x0F82, 0x0F83, 0x0F86, 0x0F87, 0x135D, 0x135E, 0x135F, 0x17DD, 0x193A, 0x1A17, 0x1A75, 0x1A76,
        0x1A77, 0x1A78, 0x1A79, 0x1A7A, 0x1A7B, 0x1A7C, 0x1B6B, 0x1B6D, 0x1B6E, 0x1B6F, 0x1B70, 0x1B71,
        0x1B72, 0x1B73, 0x1CD0, 0x1CD1, 0x1CD2, 0x1CDA, 0x1CDB, 0x1CE0, 0x1DC0, 0x1DC1, 0x1DC3, 0x1DC4,
        0x1DC5, 0x1DC6, 0x1DC7, 0x1DC8, 0x1DC9, 0x1DCB, 0x1DCC, 0x1DD1, 0x1DD2, 0x1DD3, 0x1DD4, 0x1DD5,
        0x1DD6, 0x1DD7, 0x1DD8, 0x1DD9, 0x1DDA, 0x1DDB, 0x1DDC, 0x1DDD, 0x1DDE, 0x1DDF, 0x1DE0, 0x1DE1,
        0x1DE2, 0x1DE3, 0x1DE4, 0x1DE5, 0x1DE6, 0x1DFE, 0x20D0, 0x20D1, 0x20D4, 0x20D5, 0x20D6, 0x20D7,
        0x20DB, 0x20DC, 0x20E1, 0x20E7, 0x20E9, 0x20F0, 0x2CEF, 0x2CF0, 0x2CF1, 0x2DE0, 0x2DE1, 0x2DE2,
        0x2DE3, 0x2DE4, 0x2DE5, 0x2DE6, 0x2DE7, 0x2DE8, 0x2DE9, 0x2DEA, 0x2DEB, 0x2DEC, 0x2DED, 0x2DEE,
        0x2DEF, 0x2DF0, 0x2DF1, 0x2DF2, 0x2DF3, 0x2DF4, 0x2DF5, 0x2DF6, 0x2DF7, 0x2DF8, 0x2DF9, 0x2DFA,
        0x2DFB, 0x2DFC, 0x2DFD, 0x2DFE, 0x2DFF, 0xA66F, 0xA67C, 0xA67D, 0xA6F0, 0xA6F1, 0xA8E0, 0xA8E1,
        0xA8E2, 0xA8E3, 0xA8E4, 0xA8E5, 0xA8E6, 0xA8E7, 0xA8E8, 0xA8E9, 0xA8EA, 0xA8EB, 0xA8EC, 0xA8ED,
        0xA8EE, 0xA8EF, 0xA8F0, 0xA8F1, 0xAAB0, 0xAAB2, 0xAAB3, 0xAAB7, 0xAAB8, 0xAABE, 0xAABF, 0xAAC1,
        0xFE20, 0xFE21, 0xFE22, 0xFE23, 0xFE24, 0xFE25, 0xFE26, 0x10A0F, 0x10A38, 0x1D185, 0x1D186, 0x1D187,
        0x1D188, 0x1D189, 0x1D1AA, 0x1D1AB, 0x1D1AC, 0x1D1AD, 0x1D242, 0x1D243, 0x1D244,
    ]

    /// The virtual placement of picture `id` over `columns` × `rows` cells (nothing is
    /// shown until cells name it).
    public static func place(id: UInt32, columns: Int, rows: Int) -> [UInt8] {
        Array("\u{1B}_Ga=p,U=1,i=\(id),c=\(columns),r=\(rows),C=1,q=2\u{1B}\\".utf8)
    }

    /// Cells `columns` of row `row` of picture `id`: its colour, then a placeholder a cell.
    /// Empty when a number has no mark (more than 297 rows or columns).
    /// `indexed`: the id (below 256) as a colour of the 256 (`38;5`) rather than in 24
    /// bits — what tmux passes on unchanged whatever the terminal outside, where it turns
    /// 24-bit colours into the nearest of 256 for a terminal it does not know to show them.
    public static func cells(id: UInt32, row: Int, columns: Range<Int>, indexed: Bool = false) -> [UInt8] {
        guard id < (indexed ? 256 : 1 << 24), marks.indices.contains(row), columns.lowerBound >= 0, columns.upperBound <= marks.count else { return [] }
        var text = indexed ? "\u{1B}[38;5;\(id)m" : "\u{1B}[38;2;\((id >> 16) & 255);\((id >> 8) & 255);\(id & 255)m"
        var cell = String.UnicodeScalarView()
        for column in columns {
            cell.append(character)
            cell.append(Unicode.Scalar(marks[row]) ?? " ")
            cell.append(Unicode.Scalar(marks[column]) ?? " ")
        }
        text += String(cell)
        return Array(text.utf8)
    }
}

extension KittyPlaceholders {
    /// A picture written at the cursor inside tmux (`stories print`, `stories play`): sent
    /// with its virtual placement through tmux's passthrough, then its `columns` × `rows`
    /// placeholders as text, rows apart by CR LF, the colour reset after each — text tmux
    /// keeps, scrolls and draws again. `id` below 256 (a colour of the 256, which tmux
    /// passes on as it is). Empty when the picture cannot be numbered (more than 297 rows
    /// or columns) or `png` is empty.
    public static func inText(png: Data, id: UInt32, columns: Int, rows: Int) -> [UInt8] {
        guard !png.isEmpty, id < 256, columns > 0, rows > 0, columns <= marks.count, rows <= marks.count else { return [] }
        var out = TmuxPassthrough.wrap(KittyGraphics.transmit(png: png, id: id) + place(id: id, columns: columns, rows: rows))
        for row in 0..<rows {
            if row > 0 { out += [0x0D, 0x0A] }
            out += cells(id: id, row: row, columns: 0..<columns, indexed: true) + Array("\u{1B}[39m".utf8)
        }
        return out
    }
}
