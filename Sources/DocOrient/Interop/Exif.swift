internal import CExif

#if canImport(Glibc)
    import Glibc
#endif

/// libexif, used only to create an EXIF block where a file has none. Existing blocks are edited
/// in place by `TIFFEditor`, because re-serialising them can move or drop maker notes.
enum ExifBlock {
    /// A minimal TIFF structure (no "Exif\0\0" prefix) holding IFD0 with one orientation entry.
    /// Stands for `exif_data_new` + `exif_entry_initialize` + `exif_data_save_data`.
    static func minimalTIFF(orientation: Orientation) throws -> [UInt8] {
        guard let data = exif_data_new() else { throw DocOrientError(.library, "libexif could not allocate EXIF data") }
        defer { exif_data_unref(data) }
        // Following the specification would add mandatory tags (resolution, YCbCr positioning)
        // whose values docorient cannot know; the block must say only what docorient knows.
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_set_byte_order(data, EXIF_BYTE_ORDER_MOTOROLA)
        guard let entry = exif_entry_new() else {
            throw DocOrientError(.library, "libexif could not allocate an entry")
        }
        defer { exif_entry_unref(entry) }
        guard let ifd0 = data.pointee.ifd.0 else { throw DocOrientError(.library, "libexif created no IFD0") }
        exif_content_add_entry(ifd0, entry)
        exif_entry_initialize(entry, EXIF_TAG_ORIENTATION)
        guard let value = entry.pointee.data, entry.pointee.size >= 2 else {
            throw DocOrientError(.library, "libexif did not initialise the orientation entry")
        }
        exif_set_short(value, EXIF_BYTE_ORDER_MOTOROLA, ExifShort(orientation.exifValue))
        var out: UnsafeMutablePointer<UInt8>?
        var size: UInt32 = 0
        exif_data_save_data(data, &out, &size)
        guard let out else { throw DocOrientError(.library, "libexif could not serialise the EXIF block") }
        defer { free(out) }
        let bytes = Array(UnsafeBufferPointer(start: out, count: Int(size)))
        guard Bytes.hasPrefix(bytes, JPEGStructure.exifHeader) else {
            throw DocOrientError(.library, "libexif produced a block without the Exif header")
        }
        return Array(bytes.dropFirst(JPEGStructure.exifHeader.count))
    }
}
