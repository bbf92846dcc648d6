#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading whole files and replacing them atomically: the only place docorient touches the file system
/// for image data.
package enum FileIO {
    /// Files larger than this are refused before reading (no phone photo comes near it).
    package static let defaultMaxFileBytes = 512 * 1024 * 1024

    /// Reads a regular file completely.
    /// - Throws: `.io` for a missing, unreadable or non-regular file (directory, FIFO, device),
    ///   `.limitExceeded` past `maxBytes`.
    package static func read(_ path: String, maxBytes: Int = defaultMaxFileBytes) throws -> [UInt8] {
        // O_NONBLOCK: opening a FIFO must not wait for a writer; the type check below refuses it.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw ioError("cannot open", path: path) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ioError("cannot stat", path: path) }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            let kind = (st.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a regular file"
            throw DocOrientError(.io, "\(kind), not an image file", path: path)
        }
        guard Int(st.st_size) <= maxBytes else {
            throw DocOrientError(
                .limitExceeded, "file is \(st.st_size) bytes, over the limit of \(maxBytes)", path: path)
        }
        var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR || errno == EAGAIN { continue }
            guard n >= 0 else { throw ioError("cannot read", path: path) }
            if n == 0 { break }  // the file shrank while being read
            done += n
        }
        if done < bytes.count { bytes.removeLast(bytes.count - done) }
        return bytes
    }

    /// Whether the file's permission bits allow nobody to write it. Checked explicitly because
    /// the atomic rename would otherwise replace a read-only file (and root passes `access`).
    package static func isReadOnly(_ path: String) -> Bool {
        guard let st = Syscalls.status(path) else { return false }
        return (st.permissions & 0o222) == 0
    }

    /// Replaces `path` with `bytes` so that a crash at any moment leaves either the old file or
    /// the new one: write a temporary file beside it, fsync, rename over, fsync the directory.
    /// Keeps the mode (and, where permitted, the owner) of `modeFrom` (default: `path` itself).
    /// - Parameter replacing: `path` must still exist at the moment of the rename, so that a file
    ///   deleted while docorient worked on it is not brought back.
    /// - Throws: `.io` on any failure; the temporary file is removed and `path` is untouched.
    package static func writeAtomically(
        _ bytes: [UInt8], to givenPath: String, replacing: Bool = true, modeFrom: String? = nil
    ) throws {
        // Through a symlink, replace the file it points to: renaming over the link itself would
        // turn it into a copy and leave the real file unfixed.
        var path = givenPath
        if replacing, let resolved = realpath(givenPath, nil) {
            path = String(cString: resolved)
            free(resolved)
        }
        let directory = parentDirectory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var template = Array("\(directory)/.\(name).docorient-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw ioError("cannot create a temporary file in \(directory)", path: path) }
        let tempPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var committed = false
        defer {
            if !committed { unlink(tempPath) }
        }
        do {
            defer { close(fd) }
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { throw ioError("cannot write the new file", path: path) }
                done += n
            }
            var st = stat()
            if stat(modeFrom ?? path, &st) == 0 {
                _ = fchmod(fd, st.st_mode & 0o7777)
                _ = fchown(fd, st.st_uid, st.st_gid)
            } else if modeFrom == nil {
                _ = fchmod(fd, 0o644)
            }
            guard fsync(fd) == 0 else { throw ioError("cannot flush the new file to disk", path: path) }
        }
        if replacing, access(path, F_OK) != 0 {
            throw DocOrientError(.io, "the file disappeared while docorient was working on it", path: path)
        }
        guard rename(tempPath, path) == 0 else { throw ioError("cannot replace the file", path: path) }
        committed = true
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            _ = fsync(dfd)
            close(dfd)
        }
    }

    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    static func ioError(_ what: String, path: String) -> DocOrientError {
        DocOrientError(.io, "\(what): \(String(cString: strerror(errno)))", path: path)
    }
}
