/// How a fix changes an image: the mode of `docorient fix`, of `POST /v1/fix?mode=` and of each
/// entry in the batch journal (a run in another mode redoes a file).
public enum FixMode: String, Sendable, CaseIterable, Codable {
    /// Rewrite the orientation tag (lossless, instant).
    case tag
    /// Turn the pixels losslessly (JPEG); refused where that would lose partial edge blocks.
    case bake
    /// Turn the pixels, dropping partial edge blocks where a perfect transform is impossible.
    case bakeTrim = "bake-trim"
}
