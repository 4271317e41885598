/// Why an SFU control call was refused.
public enum SFUError: Error, Sendable, Equatable {
    /// An object with this id already exists.
    case duplicateID(String)
    /// No router with this id.
    case routerNotFound(RouterID)
    /// No transport with this id.
    case transportNotFound(TransportID)
    /// No producer with this id.
    case producerNotFound(ProducerID)
    /// No consumer with this id.
    case consumerNotFound(ConsumerID)
    /// The transport belongs to another router than the producer or consumer.
    case routerMismatch
    /// The RTP parameters cannot be used: the text says which field.
    case invalidParameters(String)
    /// The producer's codec is not one the subscriber's parameters offer.
    case unsupportedCodec(String)
    /// No simulcast layer has this description.
    case unknownLayer(String)
    /// An SSRC is already used by another stream on the same transport.
    case ssrcInUse(UInt32)
    /// The transport could not be created (DTLS setup failed).
    case transportCreationFailed(String)
    /// The worker was stopped.
    case workerStopped
}
