import CFreeType
import Foundation

/// One glyph as FreeType drew it, placed from the pen on the baseline: `left` pixels to the
/// right, `top` pixels up. Coverage (0–255) for an outline font; premultiplied RGBA for a
/// colour one (emoji), already scaled to the cell's height.
struct GlyphBitmap {
    var width: Int
    var height: Int
    var left: Int
    var top: Int
    var coverage: [UInt8] = []
    var rgba: [UInt8]?
}

/// The fonts a terminal draws with, as Debian ships them: DejaVu Sans Mono (and its bold),
/// then for a character it lacks DejaVu Sans, Droid Sans Fallback (CJK) and Noto Color Emoji
/// — the first that has it, as a terminal's fallback does. The cell is DejaVu Sans Mono's: its
/// advance wide, its ascender to descender tall. Used on one thread at a time (a render).
final class TerminalFont {
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    static let folder = "/usr/share/fonts/truetype/"
    static let regular = folder + "dejavu/DejaVuSansMono.ttf"
    static let bold = folder + "dejavu/DejaVuSansMono-Bold.ttf"
    static let fallbacks = [folder + "dejavu/DejaVuSans.ttf", folder + "droid/DroidSansFallbackFull.ttf",
                            folder + "noto/NotoColorEmoji.ttf"]
    /// The sizes `--font-size` takes (pixels).
    static let sizes = 6...64

    let cellWidth: Int
    let cellHeight: Int
    /// Pixels from the cell's top to the baseline.
    let baseline: Int
    private var library: FT_Library?
    private var faces: [Face] = []
    private var boldFace: Face?
    private var cache: [UInt64: GlyphBitmap?] = [:]

    init(size: Int) throws {
        guard FT_Init_FreeType(&library) == 0, let library else { throw Missing(description: "FreeType could not start") }
        guard let main = Face(library: library, path: Self.regular, size: size) else {
            FT_Done_FreeType(library)
            throw Missing(description: "the font \(Self.regular) is missing (Debian's fonts-dejavu-core)")
        }
        faces = [main] + Self.fallbacks.compactMap { Face(library: library, path: $0, size: size) }
        boldFace = Face(library: library, path: Self.bold, size: size)
        let metrics = main.face.pointee.size.pointee.metrics
        let ascender = Int((metrics.ascender + 63) >> 6), descender = Int((-metrics.descender + 63) >> 6)
        baseline = ascender
        cellHeight = max(4, ascender + descender)
        cellWidth = max(2, main.advance(of: "M") ?? size / 2)
    }

    deinit {
        faces.removeAll()
        boldFace = nil
        if let library { FT_Done_FreeType(library) }
    }

    /// The glyph of `scalar` (bold when asked and the bold face has it), fitted to `cells`
    /// cells' width where a colour glyph is concerned; nil when no font has it.
    func glyph(_ scalar: Unicode.Scalar, bold: Bool, cells: Int) -> GlyphBitmap? {
        let key = UInt64(scalar.value) | (bold ? 1 << 32 : 0) | (UInt64(cells) << 33)
        if let known = cache[key] { return known }
        var drawn: GlyphBitmap?
        if bold, let boldFace, boldFace.has(scalar) { drawn = boldFace.render(scalar, cellHeight: cellHeight, width: cellWidth * cells) }
        if drawn == nil, let face = faces.first(where: { $0.has(scalar) }) {
            drawn = face.render(scalar, cellHeight: cellHeight, width: cellWidth * cells)
        }
        if cache.count > 20_000 { cache.removeAll() }
        cache[key] = drawn
        return drawn
    }

    /// One font file, opened at the size (a bitmap-only colour font at its one strike).
    private final class Face {
        let face: FT_Face
        let isColor: Bool
        let strikeHeight: Int

        init?(library: FT_Library, path: String, size: Int) {
            var opened: FT_Face?
            guard FileManager.default.isReadableFile(atPath: path), FT_New_Face(library, path, 0, &opened) == 0, let opened else { return nil }
            face = opened
            if FT_Set_Pixel_Sizes(face, 0, FT_UInt(size)) != 0 {
                // A colour emoji font has fixed sizes only: its first, scaled when drawn.
                guard face.pointee.num_fixed_sizes > 0, FT_Select_Size(face, 0) == 0 else {
                    FT_Done_Face(face)
                    return nil
                }
                isColor = true
                strikeHeight = max(1, Int(face.pointee.available_sizes.pointee.height))
            } else {
                isColor = false
                strikeHeight = size
            }
        }

        deinit { FT_Done_Face(face) }

        func has(_ scalar: Unicode.Scalar) -> Bool { FT_Get_Char_Index(face, FT_ULong(scalar.value)) != 0 }

        func advance(of scalar: Unicode.Scalar) -> Int? {
            guard FT_Load_Char(face, FT_ULong(scalar.value), FT_Int32(FT_LOAD_DEFAULT)) == 0 else { return nil }
            return Int((face.pointee.glyph.pointee.advance.x + 32) >> 6)
        }

        /// FT_LOAD_TARGET_LIGHT, a macro Swift does not import: light hinting (vertical only),
        /// the shapes a terminal's text has.
        static let targetLight = Int((FT_RENDER_MODE_LIGHT.rawValue & 15) << 16)

        func render(_ scalar: Unicode.Scalar, cellHeight: Int, width: Int) -> GlyphBitmap? {
            let flags = isColor ? FT_LOAD_COLOR | FT_LOAD_RENDER : FT_LOAD_RENDER | Self.targetLight
            guard FT_Load_Char(face, FT_ULong(scalar.value), FT_Int32(flags)) == 0 else { return nil }
            let slot = face.pointee.glyph.pointee
            let bitmap = slot.bitmap
            let rows = Int(bitmap.rows), columns = Int(bitmap.width), pitch = Int(bitmap.pitch)
            guard rows > 0, columns > 0, rows <= 4096, columns <= 4096, let buffer = bitmap.buffer else {
                return GlyphBitmap(width: 0, height: 0, left: 0, top: 0)
            }
            func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { pitch >= 0 ? buffer + y * pitch : buffer + (rows - 1 - y) * -pitch }
            switch Int32(bitmap.pixel_mode) {
            case Int32(FT_PIXEL_MODE_GRAY.rawValue):
                var coverage = [UInt8](repeating: 0, count: rows * columns)
                for y in 0..<rows { for x in 0..<columns { coverage[y * columns + x] = row(y)[x] } }
                return GlyphBitmap(width: columns, height: rows, left: Int(slot.bitmap_left), top: Int(slot.bitmap_top), coverage: coverage)
            case Int32(FT_PIXEL_MODE_MONO.rawValue):
                var coverage = [UInt8](repeating: 0, count: rows * columns)
                for y in 0..<rows { for x in 0..<columns where row(y)[x >> 3] & (0x80 >> UInt8(x & 7)) != 0 { coverage[y * columns + x] = 255 } }
                return GlyphBitmap(width: columns, height: rows, left: Int(slot.bitmap_left), top: Int(slot.bitmap_top), coverage: coverage)
            case Int32(FT_PIXEL_MODE_BGRA.rawValue):
                // Scaled (box filter) to fit the cells: the cell's height, at most `width` wide.
                let scale = min(Double(cellHeight) / Double(strikeHeight), Double(width) / Double(columns))
                let w = max(1, Int((Double(columns) * scale).rounded())), h = max(1, Int((Double(rows) * scale).rounded()))
                var rgba = [UInt8](repeating: 0, count: w * h * 4)
                for y in 0..<h {
                    let y0 = y * rows / h, y1 = max(y0 + 1, (y + 1) * rows / h)
                    for x in 0..<w {
                        let x0 = x * columns / w, x1 = max(x0 + 1, (x + 1) * columns / w)
                        var sum = (0, 0, 0, 0)
                        for sy in y0..<y1 {
                            let line = row(sy)
                            for sx in x0..<x1 {
                                sum.0 += Int(line[sx * 4 + 2]); sum.1 += Int(line[sx * 4 + 1]); sum.2 += Int(line[sx * 4]); sum.3 += Int(line[sx * 4 + 3])
                            }
                        }
                        let n = (y1 - y0) * (x1 - x0), i = (y * w + x) * 4
                        rgba[i] = UInt8(sum.0 / n); rgba[i + 1] = UInt8(sum.1 / n); rgba[i + 2] = UInt8(sum.2 / n); rgba[i + 3] = UInt8(sum.3 / n)
                    }
                }
                // Sits on the baseline as the text does: its bottom at the cell's bottom.
                return GlyphBitmap(width: w, height: h, left: 0, top: 0, rgba: rgba)
            default:
                return nil
            }
        }
    }
}
