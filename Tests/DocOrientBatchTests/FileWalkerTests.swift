import DocOrientBatch
import Foundation
import Testing

/// The folder walker and shards on their own: no image is opened and no engine loaded.
struct FileWalkerTests {
    /// A fresh folder holding `files` (relative paths, parents made), each a few bytes.
    static func tree(_ files: [String]) throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("walker-\(UUID().uuidString)")
        for file in files {
            let url = root.appendingPathComponent(file)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("not read".utf8).write(to: url)
        }
        return root
    }

    static let images = [
        "a.jpg", "b.JPEG", "c.png", "d.tif", "e.heic", "sub/f.jpg", "sub/g.avif", "sub/deeper/h.png",
    ]

    @Test func aFolderIsWalkedDepthFirstInNameOrderAndNonImagesAreCounted() throws {
        let root = try Self.tree(Self.images + ["notes.txt", "README", "sub/data.csv"])
        defer { try? FileManager.default.removeItem(at: root) }
        let found = FileWalker().walk([root.path])
        let relative = found.files.map { String($0.dropFirst(root.path.count + 1)) }
        #expect(
            relative == ["a.jpg", "b.JPEG", "c.png", "d.tif", "e.heic", "sub/deeper/h.png", "sub/f.jpg", "sub/g.avif"])
        #expect(found.skippedNonImages == 3)
        #expect(found.problems.isEmpty)
    }

    @Test func hiddenEntriesAreSkippedUnlessAskedForAndTheJournalNever() throws {
        let root = try Self.tree(["a.jpg", ".hidden.jpg", ".private/b.jpg", ".docorient-originals/c.jpg"])
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(FileWalker().walk([root.path]).files.count == 1)
        let all = FileWalker(includeHidden: true).walk([root.path]).files.map { ($0 as NSString).lastPathComponent }
        #expect(all.sorted() == [".hidden.jpg", "a.jpg", "b.jpg"])
    }

    @Test func includeAndExcludeGlobsMatchTheRelativePathOrTheName() throws {
        let root = try Self.tree(Self.images)
        defer { try? FileManager.default.removeItem(at: root) }
        let pngs = FileWalker(include: ["*.png"]).walk([root.path]).files.map { ($0 as NSString).lastPathComponent }
        #expect(pngs == ["c.png", "h.png"])
        let outsideSub = FileWalker(exclude: ["sub"]).walk([root.path]).files
        #expect(outsideSub.count == 5 && !outsideSub.contains { $0.contains("/sub/") })
    }

    @Test(arguments: [1, 2, 3, 8])
    func theShardsOfAFolderTakeEveryFileOnceWhereverTheFolderIsMounted(count: Int) throws {
        let names = (0..<40).map { "scan-\($0).jpg" } + Self.images
        let first = try Self.tree(names)
        let second = try Self.tree(names)
        defer {
            try? FileManager.default.removeItem(at: first)
            try? FileManager.default.removeItem(at: second)
        }
        var taken: [String] = []
        for index in 1...count {
            let shard = try #require(Shard("\(index)/\(count)"))
            let here = FileWalker(shard: shard).walk([first.path])
            let there = FileWalker(shard: shard).walk([second.path])
            let relative = here.files.map { String($0.dropFirst(first.path.count + 1)) }
            #expect(relative == there.files.map { String($0.dropFirst(second.path.count + 1)) })
            #expect(here.otherShards == names.count - here.files.count)
            taken += relative
        }
        #expect(taken.sorted() == names.sorted())
    }

    @Test func aShardIsKOfNWithOneAtMostKAtMostN() {
        #expect(Shard("2/8") == Shard("2/8") && Shard("2/8")?.index == 2 && Shard("2/8")?.count == 8)
        for text in ["0/8", "9/8", "1/0", "2", "a/b", "1/2/3", ""] {
            #expect(Shard(text) == nil, "\(text)")
        }
    }
}
