// libFuzzer entry point for the photo decoders and BlurHash. Built by build.sh with one of
// FUZZ_JPEG, FUZZ_PNG, FUZZ_WEBP or FUZZ_BLURHASH defined; not part of the Swift package.
import StoriesCells
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    // Small limits: a fuzzer is not to be stopped by a header that claims gigapixels.
    let limits = MediaLimits(maxBytes: 1 << 20, maxPixels: 4_000_000)
    #if FUZZ_JPEG
    guard ImageFormat.sniff(data) == .jpeg else { return 0 }
    if let image = try? ImageDecoder.decode(data, minimumSize: (16, 16), limits: limits) {
        _ = CellImage(image, width: 8, height: 4, symbols: .quad, depth: .palette256)
    }
    #elseif FUZZ_PNG
    guard ImageFormat.sniff(data) == .png else { return 0 }
    if let image = try? ImageDecoder.decode(data, limits: limits) {
        _ = CellImage(image, width: 8, height: 4, symbols: .half, depth: .sixteen, fit: .fit)
    }
    #elseif FUZZ_WEBP
    guard ImageFormat.sniff(data) == .webp else { return 0 }
    if let image = try? ImageDecoder.decode(data, minimumSize: (16, 16), limits: limits) {
        _ = CellImage(image, width: 8, height: 4, symbols: .half, depth: .palette256)
    }
    #elseif FUZZ_BLURHASH
    let text = String(decoding: data.prefix(200), as: UTF8.self)
    if let image = try? BlurHash.decode(text, width: 12, height: 9, punch: 1.5) {
        _ = BlurHash.encode(image, componentsX: 2, componentsY: 3)
    }
    #endif
    return 0
}
