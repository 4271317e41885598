#if canImport(Vision) && canImport(CoreVideo)
import CoreVideo
import RTCMedia
import SRTCCore
import Vision

/// Apple Vision person segmentation (`VNGeneratePersonSegmentationRequest`) as the virtual
/// background's segmenter on Apple platforms: the frame goes to Vision as an NV12
/// `CVPixelBuffer`, and Vision's 8-bit mask, at its own resolution, is scaled to the frame.
final class VisionPersonSegmenter: PersonSegmenter {
    private let request: VNGeneratePersonSegmentationRequest
    private let handler = VNSequenceRequestHandler()

    init() {
        request = VNGeneratePersonSegmentationRequest()
        request.qualityLevel = .balanced
        request.outputPixelFormat = kCVPixelFormatType_OneComponent8
    }

    func segment(_ frame: VideoPixelBuffer, into mask: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        let (w, h) = (frame.width, frame.height)
        guard mask.count >= w * h, let input = PixelBufferBridge.cvPixelBuffer(from: frame) else { return false }
        do {
            try handler.perform([request], on: input)
        } catch {
            return false
        }
        guard let result = request.results?.first?.pixelBuffer else { return false }
        CVPixelBufferLockBaseAddress(result, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(result, .readOnly) }
        guard let base = CVPixelBufferGetBaseAddress(result)?.assumingMemoryBound(to: UInt8.self) else { return false }
        let (mw, mh, stride) = (CVPixelBufferGetWidth(result), CVPixelBufferGetHeight(result), CVPixelBufferGetBytesPerRow(result))
        for y in 0..<h {
            let row = base + (y * mh / h) * stride
            for x in 0..<w { mask[y * w + x] = row[x * mw / w] }
        }
        return true
    }

    /// Each request stands alone; nothing crosses frames.
    func reset() {}
}
#endif
