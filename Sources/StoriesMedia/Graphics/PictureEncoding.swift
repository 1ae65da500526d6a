import StoriesCells
import Foundation

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

/// A picture as a protocol writes it at the cursor, over `columns` × `rows` cells: the one
/// place `stories print`, `stories play` and the picture layer's sixel and iTerm2 streams
/// choose an encoding. `kittyID`: the id a kitty picture is shown under (nil: none).
public enum PictureEncoding {
    /// `throughTmux`: kitty inside tmux, as placeholders (`KittyPlaceholders.inText`) under
    /// an id of 16…255 made from `kittyID` (the cursor then ends on the last row).
    public static func bytes(_ image: RGBImage, as graphics: GraphicsProtocol, columns: Int, rows: Int, kittyID: UInt32? = nil,
                             cursorStays: Bool = false, throughTmux: Bool = false) -> [UInt8] {
        var palette: SixelPalette?
        return bytes(image, as: graphics, columns: columns, rows: rows, kittyID: kittyID, cursorStays: cursorStays,
                     throughTmux: throughTmux, sixelPalette: &palette)
    }

    /// The same, for pictures that follow each other in one place (a video's frames): sixel
    /// keeps `sixelPalette` from the last while it still shows this one well (`SixelPalette`).
    public static func bytes(_ image: RGBImage, as graphics: GraphicsProtocol, columns: Int, rows: Int, kittyID: UInt32? = nil,
                             cursorStays: Bool = false, throughTmux: Bool = false, sixelPalette: inout SixelPalette?) -> [UInt8] {
        switch graphics {
        case .kitty where throughTmux:
            let id = 16 + (kittyID ?? UInt32.random(in: 0..<240)) % 240
            return ImageEncoder.png(image, fast: true).map { KittyPlaceholders.inText(png: $0, id: id, columns: columns, rows: rows) } ?? []
        case .sixel:
            return SixelEncoder.encode(image, palette: &sixelPalette)
        case .kitty:
            return ImageEncoder.png(image, fast: true).map { KittyGraphics.show(png: $0, id: kittyID, columns: columns, rows: rows, cursorStays: cursorStays) } ?? []
        case .iterm:
            return ImageEncoder.png(image, fast: true).map { ITermImages.inline(png: $0, columns: columns, rows: rows) } ?? []
        case .cells:
            return []
        }
    }
}
