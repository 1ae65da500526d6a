import StoriesCells
import StoriesFeedIO
import Foundation
import StoriesCore

/// BlurHash (the open format Mastodon, Wolt and others use): a picture in 20–30 characters,
/// decoded at once into a soft blur that stands in while the real photo loads.
///
/// A hash is: one base-83 digit for the component counts, one for the largest AC value,
/// four for the average colour (DC), then two per AC component, each a cosine-basis
/// coefficient in linear light.
public enum BlurHash {
    public enum DecodeError: Error, Equatable, Sendable, CustomStringConvertible {
        case tooShort(Int)
        case invalidCharacter(Character)
        case wrongLength(expected: Int, found: Int)

        public var description: String {
            switch self {
            case .tooShort(let n): "a blurhash has at least 6 characters, this has \(n)"
            case .invalidCharacter(let c): "'\(c)' is not a base-83 digit"
            case .wrongLength(let expected, let found): "a blurhash of these components has \(expected) characters, this has \(found)"
            }
        }
    }

    static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")
    static let digitValues: [Character: Int] = Dictionary(uniqueKeysWithValues: digits.enumerated().map { ($1, $0) })

    // MARK: Decoding

    /// The blur at `width`×`height` pixels. `punch` > 1 strengthens the colours.
    public static func decode(_ hash: String, width: Int, height: Int, punch: Double = 1) throws(DecodeError) -> RGBImage {
        let characters = Array(hash)
        guard characters.count >= 6 else { throw .tooShort(characters.count) }
        let sizeFlag = try value(characters[0..<1])
        let countY = sizeFlag / 9 + 1, countX = sizeFlag % 9 + 1
        let expected = 4 + 2 * countX * countY
        guard characters.count == expected else { throw .wrongLength(expected: expected, found: characters.count) }
        let maximum = Double(try value(characters[1..<2]) + 1) / 166 * punch

        var colours: [(Double, Double, Double)] = []
        let dc = try value(characters[2..<6])
        colours.append((srgbToLinear(dc >> 16), srgbToLinear((dc >> 8) & 255), srgbToLinear(dc & 255)))
        for i in 1..<(countX * countY) {
            let ac = try value(characters[(4 + i * 2)..<(6 + i * 2)])
            func component(_ q: Int) -> Double { signedPower((Double(q) - 9) / 9, 2) * maximum }
            colours.append((component(ac / (19 * 19)), component((ac / 19) % 19), component(ac % 19)))
        }

        guard width > 0, height > 0 else { return RGBImage(width: max(0, width), height: max(0, height)) }
        // Cosine tables: one per axis instead of one cos per pixel and component.
        let cosX = (0..<countX).map { i in (0..<width).map { x in cos(Double.pi * Double(x) * Double(i) / Double(width)) } }
        let cosY = (0..<countY).map { j in (0..<height).map { y in cos(Double.pi * Double(y) * Double(j) / Double(height)) } }
        var image = RGBImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                var r = 0.0, g = 0.0, b = 0.0
                for j in 0..<countY {
                    for i in 0..<countX {
                        let basis = cosX[i][x] * cosY[j][y]
                        let c = colours[i + j * countX]
                        r += c.0 * basis; g += c.1 * basis; b += c.2 * basis
                    }
                }
                image[x, y] = RGBPixel(linearToSRGB(r), linearToSRGB(g), linearToSRGB(b))
            }
        }
        return image
    }

    // MARK: Encoding

    /// A hash of `image` with `x`×`y` components (1–9 each; 3×4 suits a portrait photo).
    public static func encode(_ image: RGBImage, componentsX x: Int = 3, componentsY y: Int = 4) -> String {
        let cx = min(9, max(1, x)), cy = min(9, max(1, y))
        let width = image.width, height = image.height
        guard width > 0, height > 0 else { return "" }
        let linear = image.pixels.map { srgbToLinear(Int($0)) }
        var factors: [(Double, Double, Double)] = []
        for j in 0..<cy {
            for i in 0..<cx {
                let normalisation = (i == 0 && j == 0) ? 1.0 : 2.0
                var r = 0.0, g = 0.0, b = 0.0
                for py in 0..<height {
                    let basisY = cos(Double.pi * Double(j) * Double(py) / Double(height))
                    for px in 0..<width {
                        let basis = cos(Double.pi * Double(i) * Double(px) / Double(width)) * basisY
                        let k = (py * width + px) * 3
                        r += basis * linear[k]; g += basis * linear[k + 1]; b += basis * linear[k + 2]
                    }
                }
                let scale = normalisation / Double(width * height)
                factors.append((r * scale, g * scale, b * scale))
            }
        }
        var hash = encode83((cx - 1) + (cy - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        let maximum: Double
        if ac.isEmpty {
            maximum = 1
            hash += encode83(0, length: 1)
        } else {
            let actual = ac.map { max(abs($0.0), abs($0.1), abs($0.2)) }.max() ?? 0
            let quantised = Int(max(0, min(82, (actual * 166 - 0.5).rounded(.down))))
            maximum = Double(quantised + 1) / 166
            hash += encode83(quantised, length: 1)
        }
        let dc = factors[0]
        hash += encode83(Int(linearToSRGB(dc.0)) << 16 | Int(linearToSRGB(dc.1)) << 8 | Int(linearToSRGB(dc.2)), length: 4)
        for factor in ac {
            func q(_ v: Double) -> Int { Int(max(0, min(18, (signedPower(v / maximum, 0.5) * 9 + 9.5).rounded(.down)))) }
            hash += encode83(q(factor.0) * 19 * 19 + q(factor.1) * 19 + q(factor.2), length: 2)
        }
        return hash
    }

    // MARK: Helpers

    static func value(_ characters: ArraySlice<Character>) throws(DecodeError) -> Int {
        var result = 0
        for character in characters {
            guard let digit = digitValues[character] else { throw .invalidCharacter(character) }
            result = result * 83 + digit
        }
        return result
    }

    static func encode83(_ value: Int, length: Int) -> String {
        var result = ""
        for i in 1...length {
            var divisor = 1
            for _ in 0..<(length - i) { divisor *= 83 }
            result.append(digits[(value / divisor) % 83])
        }
        return result
    }

    static func srgbToLinear(_ value: Int) -> Double {
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    static func linearToSRGB(_ value: Double) -> UInt8 {
        let v = max(0, min(1, value))
        let s = v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
        return UInt8(max(0, min(255, (s * 255 + 0.5).rounded(.down))))
    }

    static func signedPower(_ value: Double, _ exponent: Double) -> Double {
        value < 0 ? -pow(-value, exponent) : pow(value, exponent)
    }
}

extension BlurHash {
    /// The hash a feed carries for a photo, or a video's first frame: 4×3 components for a
    /// landscape picture, 3×4 for a portrait one. Decoded at 96 pixels across: the
    /// reference sampling leaks ~2/width of the colour into the first components, so much
    /// smaller inputs tint the blur.
    public static func ofMedia(_ bytes: Data, limits: MediaLimits = .standard) throws(MediaError) -> String {
        let image = try StillDecoder.decode(bytes, minimumSize: (96, 96), limits: limits)
        // The aspect kept, within 1:4 either way: a 1×1 000 000 strip must not ask for a
        // 96×96 000 000 canvas (the components only need the rough shape).
        let height = min(384, max(24, 96 * image.height / max(1, image.width)))
        let small = ImageScaler.scale(image, width: 96, height: height, fit: .fill)
        let portrait = image.height >= image.width
        return encode(small, componentsX: portrait ? 3 : 4, componentsY: portrait ? 4 : 3)
    }

    /// `ofMedia` for a file in a folder, opened the one safe way; nil when it cannot be read
    /// or decoded (a photo folder then shows no placeholder for it).
    public static func ofFile(atPath path: String, limits: MediaLimits = .standard) -> String? {
        try? ofFile(path, limits: limits)
    }

    /// `ofFile(atPath:)` with the reason it gave none, in words.
    public static func ofFile(_ path: String, limits: MediaLimits = .standard) throws -> String {
        let bytes: Data
        do { bytes = try SafeFile.read(path, maxBytes: limits.maxBytes).0 } catch {
            throw MediaError.unreadable(SafeFile.describe(error, maxBytes: limits.maxBytes))
        }
        return try ofMedia(bytes, limits: limits)
    }

    /// The same from a file already open (from its folder's descriptor), with the reason it
    /// gave none in words.
    public static func ofFile(_ file: SafeFile.Opened, limits: MediaLimits = .standard) throws -> String {
        let bytes: Data
        do { bytes = try SafeFile.bounded(file, maxBytes: limits.maxBytes) } catch {
            throw MediaError.unreadable(SafeFile.describe(error, maxBytes: limits.maxBytes))
        }
        return try ofMedia(bytes, limits: limits)
    }
}

extension PhotoFolderCache {
    /// The cache of a photo folder where the app keeps it (`$XDG_CACHE_HOME/stories/folders/`),
    /// working out BlurHashes with the app's decoders; nil when there is no cache folder.
    public static func standard(for folder: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> PhotoFolderCache? {
        standardRoot(environment: environment).map { PhotoFolderCache(feed: folder, root: $0, previewer: { try? BlurHash.ofFile($0) }) }
    }
}
