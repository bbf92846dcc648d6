import SystemPackage

/// Reading whole files and replacing them atomically: the only place docorient touches the file system
/// for image data. Its system calls go through swift-system (`FileDescriptor`, `Stat`), and those
/// it lacks through `Syscalls`; a failed one becomes an `.io` error whose cause is its `Errno`.
package enum FileIO {
    /// Files larger than this are refused before reading (no phone photo comes near it).
    package static let defaultMaxFileBytes = 512 * 1024 * 1024

    /// Reads a regular file completely.
    /// - Throws: `.io` for a missing, unreadable or non-regular file (directory, FIFO, device),
    ///   `.limitExceeded` past `maxBytes`.
    package static func read(_ path: String, maxBytes: Int = defaultMaxFileBytes) throws -> [UInt8] {
        // Non-blocking, so that opening a FIFO does not wait for a writer (it is refused below).
        let file = try systemCall("open", failing: "cannot open", path: path) {
            try FileDescriptor.open(FilePath(path), .readOnly, options: [.nonBlocking, .closeOnExec])
        }
        return try systemCall("close", failing: "cannot close", path: path) {
            try file.closeAfter {
                let status = try systemCall("fstat", failing: "cannot stat", path: path) { try FileStatus(file) }
                guard status.kind == .regular else {
                    let kind = status.kind == .directory ? "a directory" : "not a regular file"
                    throw DocOrientError(.io, "\(kind), not an image file", path: path)
                }
                guard status.size <= maxBytes else {
                    throw DocOrientError(
                        .limitExceeded, "file is \(status.size) bytes, over the limit of \(maxBytes)", path: path)
                }
                var bytes = [UInt8](repeating: 0, count: status.size)
                let count = try systemCall("read", failing: "cannot read", path: path) { try readFully(file, &bytes) }
                if count < bytes.count { bytes.removeLast(bytes.count - count) }  // the file shrank while being read
                return bytes
            }
        }
    }

    /// Reads into `buffer` until it is full or the file ends (interrupted and would-block reads
    /// retried): the number of bytes read.
    private static func readFully(_ file: FileDescriptor, _ buffer: inout [UInt8]) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n: Int
            do {
                n = try buffer.withUnsafeMutableBytes {
                    try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[done...]))
                }
            } catch Errno.resourceTemporarilyUnavailable {
                continue
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// Whether the file's permission bits allow nobody to write it. Checked explicitly because
    /// the atomic rename would otherwise replace a read-only file (and root passes `access`).
    package static func isReadOnly(_ path: String) -> Bool {
        guard let st = try? FileStatus(path) else { return false }
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
        let (file, tempPath) = try systemCall(
            "mkstemp", failing: "cannot create a temporary file in \(directory)", path: path
        ) { try Syscalls.makeTemporary(prefix: "\(directory)/.\(name).docorient-") }
        do {
            try systemCall("close", failing: "cannot close the new file", path: path) {
                try file.closeAfter {
                    try systemCall("write", failing: "cannot write the new file", path: path) {
                        _ = try file.writeAll(bytes)
                    }
                    // Best effort: only root may give a file away, and a mode is kept where permitted.
                    if let model = try? FileStatus(modeFrom ?? path) {
                        try? Syscalls.setPermissions(file, model.permissions)
                        try? Syscalls.setOwner(file, model.owner, group: model.group)
                    } else if modeFrom == nil {
                        try? Syscalls.setPermissions(file, 0o644)
                    }
                    try systemCall("fsync", failing: "cannot flush the new file to disk", path: path) {
                        try Syscalls.sync(file)
                    }
                }
            }
            if replacing, (try? FileStatus(path)) == nil {
                throw DocOrientError(.io, "the file disappeared while docorient was working on it", path: path)
            }
            try systemCall("rename", failing: "cannot replace the file", path: path) {
                try Syscalls.rename(tempPath, to: path)
            }
        } catch {
            try? Syscalls.remove(tempPath)
            throw error
        }
        // The rename is in the folder's entries once the folder is flushed; the file is in place
        // either way, so a folder that cannot be opened or flushed is no failure.
        if let folder = try? FileDescriptor.open(FilePath(directory), .readOnly, options: [.directory, .closeOnExec]) {
            _ = try? folder.closeAfter { try Syscalls.sync(folder) }
        }
    }

    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let dir = String(path[..<slash])
        return dir.isEmpty ? "/" : dir
    }

    /// Runs `body`, which makes the system call `call` on `path`'s behalf; a failure of it (an
    /// `Errno`) becomes an `.io` error saying `what` failed, with the call and its errno as the
    /// cause. Any other error passes through.
    private static func systemCall<R>(
        _ call: String, failing what: String, path: String, _ body: () throws -> R
    ) throws -> R {
        do {
            return try body()
        } catch let errno as Errno {
            throw DocOrientError(.io, what, path: path, cause: .systemCall(call, errno))
        }
    }
}
