// libFuzzer target for what a camera hands the SDK (V4L2, Linux): MJPEG frames through the
// libjpeg-turbo decoder, and YUYV / NV12 pictures through their I420 conversions. Built by
// `fuzz/run-all` with `swiftc -sanitize=fuzzer,address -parse-as-library`; a crash or failed check
// here is a bug (as is a good frame that no longer decodes after a refused one). Seeds: the MJPEG
// fixtures of CameraFrameConverterTests.
//
// Input: the whole input is one MJPEG frame; the same bytes are also a raw picture whose width,
// height and stride come from its first three bytes.
#if canImport(RTCMedia)
import RTCMedia
#endif
import Foundation

#if os(Linux)   // RTCMedia links libjpeg-turbo (CTurboJPEG) on Linux
nonisolated(unsafe) let decoder = try! JPEGDecoder()
/// A good frame, decoded after every refused one: a refusal must not break the decoder. An array,
/// not `Data`: LeakSanitizer does not see the storage a global `Data` points to (a false leak).
let goodFrame = Array(try! Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("seeds/mjpeg-420-64x48.jpg")))
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func mjpegFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    #if os(Linux)   // RTCMedia links libjpeg-turbo (CTurboJPEG) on Linux
    if let picture = try? decoder.decode(input) {
        precondition(picture.format == .i420 && picture.width > 0 && picture.height > 0, "bad picture")
        precondition(picture.width <= VideoPixelBuffer.maxDimension && picture.height <= VideoPixelBuffer.maxDimension, "oversized")
    } else {
        let picture = try? goodFrame.withUnsafeBytes { try decoder.decode($0) }
        precondition(picture?.width == 64 && picture?.height == 48, "a refused frame broke the decoder")
    }
    #endif
    guard size >= 3 else { return 0 }
    let width = Int(input[0]) % 64 + 1, height = Int(input[1]) % 48 + 1, stride = Int(input[2]) * 2
    let pixels = UnsafeRawBufferPointer(rebasing: input[3...])
    for convert in [VideoPixelBuffer.i420(fromYUYV:width:height:stride:), VideoPixelBuffer.i420(fromNV12:width:height:stride:)] {
        if let picture = try? convert(pixels, width, height, stride) {
            precondition(picture.width == width && picture.height == height, "size changed")
        }
    }
    return 0
}
