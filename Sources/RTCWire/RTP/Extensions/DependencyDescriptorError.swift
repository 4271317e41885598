/// Why an AV1 Dependency Descriptor header extension could not be read (av1-rtp-spec Appendix A).
public enum DependencyDescriptorError: Error, Sendable, Equatable {
    /// The value is shorter than its fields: under the 3 bytes of the mandatory fields, or a field
    /// (structure, mask, custom DTIs, frame diffs, chains) runs past its end (§A.8.2).
    case truncated
    /// The packet refers to a template structure that has not arrived: the stream was joined after
    /// its key frame, or the packet carrying the structure was lost (§A.8.3, template_id).
    case missingStructure
    /// frame_dependency_template_id is outside the current structure's range
    /// (template_id_offset … template_id_offset + TemplateCnt − 1, §A.8.3).
    case unknownTemplate(UInt8)
    /// The structure lists more than 64 templates: 6-bit template ids cannot name them all.
    case tooManyTemplates
    /// A template's spatial id exceeds 3 or its temporal id exceeds 7 (AV1's spatial_id and
    /// temporal_id are 2 and 3 bits, AV1 §6.2.3), so no decode target could hold it.
    case layerOutOfRange
    /// A template or a frame lists more than `DependencyStructure.maxFrameDiffs` (8) referred
    /// frames; an AV1 frame refers to at most 7 reference slots (AV1 §7.20).
    case tooManyFrameDiffs
}
