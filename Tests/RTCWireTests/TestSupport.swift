// Helpers shared by the RTCWire tests.

/// Lowercase hex of bytes, for readable failure messages.
func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined()
}
