#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The calling thread as a number a reactor thread stores in an atomic at its start, so any
/// thread can ask "am I on it?" without a lock (`EventLoop`, `UDPReceiveLoop`, `SharedUDPThread`).
enum ThreadToken {
    static func current() -> UInt {
        #if canImport(Glibc)
        return UInt(pthread_self())
        #else
        return UInt(bitPattern: pthread_self())
        #endif
    }
}
