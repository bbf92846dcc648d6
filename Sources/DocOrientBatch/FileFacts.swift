import DocOrient

/// What identifies a file's state cheaply: a second run compares these to the journal without
/// reading the file. Any write (ours renames a new inode in) or chmod (ctime) changes them.
package struct FileFacts: Sendable, Equatable, Codable {
    /// The file's length in bytes.
    package var size: Int
    /// Last content change (`st_mtim`), in nanoseconds since 1970-01-01 UTC.
    package var modified: Int64
    /// Last status change (`st_ctim`: any write, chmod or chown), in nanoseconds since 1970-01-01
    /// UTC; unlike `modified`, no tool can set it back.
    package var changed: Int64
    /// The inode number: a file replaced by rename (as docorient and most editors write) gets a new one.
    package var inode: UInt64
    /// FNV-1a 64 of the content, hex; empty when not computed.
    package var hash: String

    /// Facts as recorded (a journal's row); `hash` empty when not computed.
    package init(size: Int, modified: Int64, changed: Int64, inode: UInt64, hash: String) {
        self.size = size
        self.modified = modified
        self.changed = changed
        self.inode = inode
        self.hash = hash
    }

    /// Stats `path` (following symlinks); nil when it does not exist or cannot be statted.
    package static func stat(_ path: String, hash bytes: [UInt8]? = nil) -> FileFacts? {
        guard let st = try? FileStatus(path) else { return nil }
        return FileFacts(
            size: st.size, modified: st.modifiedNanoseconds, changed: st.changedNanoseconds, inode: st.inode,
            hash: bytes.map(contentHash) ?? "")
    }

    /// Whether the file is still as recorded (hash not compared: it is not read).
    package func sameState(as other: FileFacts) -> Bool {
        size == other.size && modified == other.modified && changed == other.changed && inode == other.inode
    }

    /// FNV-1a 64-bit: fast, and enough to tell a file's before and after apart in a journal.
    package static func contentHash(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        bytes.withUnsafeBufferPointer { buffer in
            for b in buffer {
                h ^= UInt64(b)
                h = h &* 0x100_0000_01b3
            }
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
