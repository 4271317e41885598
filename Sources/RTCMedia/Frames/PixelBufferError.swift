// Errors raised when a pixel buffer is built from sizes or bytes that do not fit together.

/// Why a `VideoPixelBuffer` could not be created.
public enum PixelBufferError: Error, Sendable, Equatable {
    /// Width or height is zero, negative or above `VideoPixelBuffer.maxDimension`.
    case invalidDimensions(width: Int, height: Int)
    /// The byte array's size is not the packed size of the format and dimensions.
    case dataSizeMismatch(expected: Int, actual: Int)
    /// The number of plane pointers or strides does not match the format's plane count.
    case planeCountMismatch(expected: Int, actual: Int)
    /// A plane's stride is shorter than one row of that plane.
    case strideTooSmall(plane: Int, minimum: Int, actual: Int)
}
