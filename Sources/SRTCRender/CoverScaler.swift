import RTCMedia

/// Scales a picture to *cover* a frame, as a background image is shown: the picture keeps its
/// proportions, fills the whole frame, and what sticks out on one axis is cropped equally on
/// both sides (never stretched).
enum CoverScaler {
    /// `image` (any format) cropped to the frame's aspect ratio around its centre, then scaled to
    /// `width`×`height`, as I420.
    static func cover(_ image: VideoPixelBuffer, width: Int, height: Int) -> VideoPixelBuffer {
        let source = image.toI420()
        let crop = cropRect(imageWidth: source.width, imageHeight: source.height, width: width, height: height)
        guard crop.width != source.width || crop.height != source.height else {
            return source.scaled(width: width, height: height)
        }
        let cropped = source.data.withUnsafeBytes { bytes -> VideoPixelBuffer? in
            let base = bytes.baseAddress!
            let (iw, cw) = (source.width, source.chromaWidth)
            let u = base + source.plane(1).offset, v = base + source.plane(2).offset
            let chromaOffset = (crop.y / 2) * cw + crop.x / 2
            return try? VideoPixelBuffer(format: .i420, width: crop.width, height: crop.height,
                                         copyingPlanes: [base + crop.y * iw + crop.x, u + chromaOffset, v + chromaOffset],
                                         strides: [iw, cw, cw])
        }
        return (cropped ?? source).scaled(width: width, height: height)
    }

    /// The centred part of an `imageWidth`×`imageHeight` picture with the aspect ratio of
    /// `width`×`height`; its origin is even so the chroma planes crop at the same place.
    static func cropRect(imageWidth iw: Int, imageHeight ih: Int, width: Int, height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        // Compare iw/ih with width/height without division: the wider side is cropped.
        if iw * height > width * ih {
            let cropWidth = max(1, min(iw, (ih * width + height / 2) / height))
            return (((iw - cropWidth) / 2) & ~1, 0, cropWidth, ih)
        } else {
            let cropHeight = max(1, min(ih, (iw * height + width / 2) / width))
            return (0, ((ih - cropHeight) / 2) & ~1, iw, cropHeight)
        }
    }
}
