/// Reading whole files and replacing them atomically: the only place docorient touches the file system
/// for image data. Its libc calls are `Syscalls`'.
package enum FileIO {
    /// Files larger than this are refused before reading (no phone photo comes near it).
    package static let defaultMaxFileBytes = 512 * 1024 * 1024

    /// Reads a regular file completely.
    /// - Throws: `.io` for a missing, unreadable or non-regular file (directory, FIFO, device),
    ///   `.limitExceeded` past `maxBytes`.
    package static func read(_ path: String, maxBytes: Int = defaultMaxFileBytes) throws -> [UInt8] {
        guard let file = Syscalls.FileDescriptor.openForReading(path) else { throw ioError("cannot open", path: path) }
        guard let status = file.status() else { throw ioError("cannot stat", path: path) }
        guard status.kind == .regular else {
            let kind = status.kind == .directory ? "a directory" : "not a regular file"
            throw DocOrientError(.io, "\(kind), not an image file", path: path)
        }
        guard status.size <= maxBytes else {
            throw DocOrientError(
                .limitExceeded, "file is \(status.size) bytes, over the limit of \(maxBytes)", path: path)
        }
        var bytes = [UInt8](repeating: 0, count: status.size)
        guard let count = file.read(into: &bytes) else { throw ioError("cannot read", path: path) }
        if count < bytes.count { bytes.removeLast(bytes.count - count) }  // the file shrank while being read
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
        let path = replacing ? Syscalls.resolvedPath(givenPath) ?? givenPath : givenPath
        let directory = parentDirectory(of: path)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let tempPath: String
        do {
            guard let file = Syscalls.FileDescriptor.makeTemporary(prefix: "\(directory)/.\(name).docorient-") else {
                throw ioError("cannot create a temporary file in \(directory)", path: path)
            }
            tempPath = file.path
            guard file.write(bytes) else {
                let error = ioError("cannot write the new file", path: path)
                _ = Syscalls.remove(tempPath)
                throw error
            }
            if let model = Syscalls.status(modeFrom ?? path) {
                file.setPermissions(model.permissions)
                file.setOwner(model.owner, group: model.group)
            } else if modeFrom == nil {
                file.setPermissions(0o644)
            }
            guard file.sync() else {
                let error = ioError("cannot flush the new file to disk", path: path)
                _ = Syscalls.remove(tempPath)
                throw error
            }
        }
        if replacing, !Syscalls.exists(path) {
            _ = Syscalls.remove(tempPath)
            throw DocOrientError(.io, "the file disappeared while docorient was working on it", path: path)
        }
        guard Syscalls.rename(tempPath, to: path) else {
            let error = ioError("cannot replace the file", path: path)
            _ = Syscalls.remove(tempPath)
            throw error
        }
        if let folder = Syscalls.FileDescriptor.openDirectory(directory) { _ = folder.sync() }
    }

    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    /// An `.io` error saying `what` failed and why (the last failed call's `errno`).
    static func ioError(_ what: String, path: String) -> DocOrientError {
        DocOrientError(.io, "\(what): \(Syscalls.lastError)", path: path)
    }
}
