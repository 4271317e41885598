import COpenSSL

/// Collects what OpenSSL writes, one datagram per BIO write, through a custom BIO method.
final class DTLSOutbox {
    private var datagrams: [[UInt8]] = []

    func append(_ bytes: UnsafeRawBufferPointer) { datagrams.append(Array(bytes)) }

    func take() -> [[UInt8]] {
        defer { datagrams.removeAll() }
        return datagrams
    }

    /// The BIO method, made once per process. Its data pointer is an unretained `DTLSOutbox`
    /// that the owning `DTLSEndpoint` keeps alive for as long as the SSL object.
    nonisolated(unsafe) static let method: OpaquePointer = {
        let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "srtc-datagram-outbox")!
        _ = BIO_meth_set_write(method) { bio, data, length in
            guard let bio, let data, length >= 0, let box = BIO_get_data(bio) else { return -1 }
            Unmanaged<DTLSOutbox>.fromOpaque(box).takeUnretainedValue()
                .append(UnsafeRawBufferPointer(start: data, count: Int(length)))
            return length
        }
        _ = BIO_meth_set_ctrl(method) { _, command, _, _ in
            // Flush succeeds; everything else (MTU queries, peer address, timers) is "not supported".
            command == BIO_CTRL_FLUSH ? 1 : 0
        }
        _ = BIO_meth_set_create(method) { bio in
            BIO_set_init(bio, 1)
            return 1
        }
        return method
    }()
}
