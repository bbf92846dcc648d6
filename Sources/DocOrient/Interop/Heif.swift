internal import CHeif

/// libheif, used only to decode a HEIF (HEIC, AVIF) image's stored pixels for reading its text.
/// Orientation is read and rewritten by `HEIFStructure` and `HEIFEditor` in Swift, never by libheif.
///
/// Every call makes its own context and frees it before returning, so the functions are safe to
/// call from any number of threads at once.
enum Heif {
    /// Owns one `heif_context` and frees it exactly once.
    private struct Context: ~Copyable {
        let raw: OpaquePointer

        /// Stands for `heif_context_alloc`.
        init() throws {
            guard let made = heif_context_alloc() else {
                throw DocOrientError(.library, "libheif could not allocate a context")
            }
            raw = made
        }

        /// Stands for `heif_context_free`.
        deinit { heif_context_free(raw) }
    }

    /// Owns one `heif_image_handle` and releases it exactly once.
    private struct ImageHandle: ~Copyable {
        let raw: OpaquePointer

        /// The primary image's handle. Stands for `heif_context_get_primary_image_handle`.
        init(primaryOf context: borrowing Context) throws {
            var made: OpaquePointer?
            try check(
                heif_context_get_primary_image_handle(context.raw, &made), "heif_context_get_primary_image_handle",
                "reading the primary image")
            guard let made else { throw DocOrientError(.library, "libheif returned no primary image") }
            raw = made
        }

        /// Stands for `heif_image_handle_release`.
        deinit { heif_image_handle_release(raw) }
    }

    /// Owns one decoded `heif_image` and releases it exactly once.
    private struct Image: ~Copyable {
        let raw: OpaquePointer

        /// Decodes the handle's image to YCbCr (or monochrome), or to interleaved 8-bit RGB when
        /// `rgb`, as stored: the transformative properties (`irot`, `imir`, `clap`) are not
        /// applied, and more than 8 bits per sample are reduced to 8. Stands for
        /// `heif_decoding_options_alloc` + `heif_decode_image` (`ignore_transformations`,
        /// `convert_hdr_to_8bit`; YCbCr, else monochrome; or RGB) + `heif_decoding_options_free`.
        init(decoding handle: borrowing ImageHandle, rgb: Bool) throws {
            guard let options = heif_decoding_options_alloc() else {
                throw DocOrientError(.library, "libheif could not allocate decoding options")
            }
            defer { heif_decoding_options_free(options) }
            options.pointee.ignore_transformations = 1
            options.pointee.convert_hdr_to_8bit = 1
            var made: OpaquePointer?
            // YCbCr in the coded chroma format: the Y plane is the luma the resolver reads, with no
            // colour conversion (libheif 1.15 turns "undefined" into interleaved RGB). A
            // monochrome image has no YCbCr form: it is asked for as it is.
            var status =
                rgb
                ? heif_decode_image(handle.raw, &made, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options)
                : heif_decode_image(handle.raw, &made, heif_colorspace_YCbCr, heif_chroma_undefined, options)
            if !rgb, status.code == heif_error_Unsupported_feature {
                status = heif_decode_image(
                    handle.raw, &made, heif_colorspace_monochrome, heif_chroma_monochrome, options)
            }
            try check(status, "heif_decode_image", "decoding the primary image")
            guard let made else { throw DocOrientError(.library, "libheif decoded no image") }
            raw = made
        }

        /// Stands for `heif_image_release`.
        deinit { heif_image_release(raw) }
    }

    /// libheif's library-wide set-up (decoder plugins), once per process. Stands for `heif_init`.
    private static let initialised: Bool = heif_init(nil).code == heif_error_Ok

    /// Decodes the primary image's luma at full size, as stored (orientation not applied), into a
    /// grey Leptonica image: the same pixels the resolver reads from a JPEG.
    /// - Parameter maxPixels: images larger than this are refused before their pixels are decoded.
    /// - Throws: `.malformed` when libheif cannot read or decode the file, `.limitExceeded`.
    static func decodeGrayPix(_ bytes: [UInt8], maxPixels: Int) throws -> Pix {
        try luma(of: primaryImage(bytes, maxPixels: maxPixels, rgb: false))
    }

    /// Decodes the primary image at full size, as stored, to packed RGB (3 bytes per pixel, as
    /// `TurboJPEG.decodeScaled(rgb: true)`): for previews.
    /// Stands for `heif_image_get_plane_readonly(heif_channel_interleaved)`.
    static func decodeRGB(_ bytes: [UInt8], maxPixels: Int) throws -> Raster {
        let image = try primaryImage(bytes, maxPixels: maxPixels, rgb: true)
        let width = Int(heif_image_get_width(image.raw, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image.raw, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0,
            let plane = heif_image_get_plane_readonly(image.raw, heif_channel_interleaved, &stride),
            Int(stride) >= width * 3
        else {
            throw DocOrientError(.malformed, "the decoded HEIF image has no RGB plane")
        }
        var pixels = [UInt8](repeating: 0, count: width * 3 * height)
        pixels.withUnsafeMutableBufferPointer { out in
            guard let base = out.baseAddress else { return }
            for y in 0..<height { (base + y * width * 3).update(from: plane + y * Int(stride), count: width * 3) }
        }
        return Raster(width: width, height: height, channels: 3, pixels: pixels)
    }

    /// The decoded primary image. The file's bytes are read in place (not copied); the context
    /// and handle that need them are freed before this returns, the decoded image does not.
    private static func primaryImage(_ bytes: [UInt8], maxPixels: Int, rgb: Bool) throws -> Image {
        _ = initialised
        var decoded: Image? = nil
        try bytes.withUnsafeBufferPointer { buffer in
            let context = try Context()
            // The buffer outlives the context: both end with this closure.
            try check(
                heif_context_read_from_memory_without_copy(context.raw, buffer.baseAddress, buffer.count, nil),
                "heif_context_read_from_memory_without_copy", "reading the file")
            let handle = try ImageHandle(primaryOf: context)
            let width = Int(heif_image_handle_get_width(handle.raw))
            let height = Int(heif_image_handle_get_height(handle.raw))
            guard width > 0, height > 0 else {
                throw DocOrientError(.malformed, "the HEIF primary image has no pixels")
            }
            guard width.multipliedReportingOverflow(by: height).partialValue <= maxPixels, width <= maxPixels,
                height <= maxPixels
            else {
                throw DocOrientError(
                    .limitExceeded, "the image is \(width)x\(height), over the limit of \(maxPixels) pixels")
            }
            decoded = try Image(decoding: handle, rgb: rgb)
        }
        switch consume decoded {
        case .some(let image): return image
        case .none: throw DocOrientError(.library, "libheif decoded no image")
        }
    }

    /// The image's Y (or monochrome) plane, copied row by row into a grey image.
    /// Stands for `heif_image_get_width` / `heif_image_get_height` / `heif_image_get_plane_readonly`.
    private static func luma(of image: borrowing Image) throws -> Pix {
        let width = Int(heif_image_get_width(image.raw, heif_channel_Y))
        let height = Int(heif_image_get_height(image.raw, heif_channel_Y))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(image.raw, heif_channel_Y, &stride),
            Int(stride) >= width
        else {
            throw DocOrientError(.malformed, "the decoded HEIF image has no luma plane")
        }
        return try Pix.gray(width: width, height: height) { rows, pitch in
            for y in 0..<height {
                (rows + y * pitch).update(from: plane + y * Int(stride), count: width)
            }
        }
    }

    /// Turns a libheif error struct `call` returned into a thrown `DocOrientError` whose cause is
    /// libheif's message (`heif_error.code` 0 is success).
    private static func check(_ error: heif_error, _ call: String, _ doing: String) throws {
        guard error.code != heif_error_Ok else { return }
        let detail = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        let code: DocOrientError.Code = error.code == heif_error_Memory_allocation_error ? .library : .malformed
        throw DocOrientError(code, "libheif failed \(doing)", cause: .library(call, detail))
    }
}
