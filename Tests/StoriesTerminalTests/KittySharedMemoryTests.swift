import Foundation
import Testing
import StoriesCells
import StoriesCore
import StoriesMedia
@testable import StoriesTerminal

/// kitty on this machine takes pictures through shared memory (issue 48, point 4): the
/// probe's question, its answer, the decision, and the objects themselves.
@Suite struct KittySharedMemoryTests {
    static func replies(_ text: String) -> ProbeReplies {
        var replies = ProbeReplies()
        replies.feed(Array(text.utf8))
        return replies
    }

    @Test func theProbeAsksAndReadsTheAnswer() throws {
        let burst = TerminalProbe.burst(environment: ["TERM": "xterm-kitty"], sharedMemory: "/stories-probe-7")
        let query = KittyGraphics.sharedMemoryQuery(name: "/stories-probe-7", id: 32)
        #expect(burst.contains(query) && query.contains("t=s") && query.contains(Data("/stories-probe-7".utf8).base64EncodedString()))
        #expect(burst.hasSuffix("\u{1B}[c"), "DA1 still last")
        #expect(!TerminalProbe.burst(environment: ["TERM": "xterm-kitty", "TMUX": "/tmp/t,1,0"], sharedMemory: "/x").contains("t=s"),
                "inside tmux: no APC, no offer")
        #expect(!TerminalProbe.burst(environment: ["TERM": "xterm-kitty"]).contains("t=s"), "nothing offered, nothing asked")

        let local = Self.replies("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}_Gi=32;OK\u{1B}\\\u{1B}P>|kitty(0.26.5)\u{1B}\\\u{1B}[?62;22c")
        #expect(local.kittyGraphics == true && local.kittySharedMemory == true)
        let remote = Self.replies("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}_Gi=32;ENOENT:Failed to open\u{1B}\\\u{1B}[?62;22c")
        #expect(remote.kittyGraphics == true && remote.kittySharedMemory == false)
        #expect(Self.replies("\u{1B}[?62;22c").kittySharedMemory == nil)
    }

    @Test func sharedMemoryIsDecidedOnlyForKittyHere() {
        func choice(_ text: String, environment: [String: String] = [:], said: GraphicsProtocol? = nil) -> GraphicsChoice {
            GraphicsFacts(ProbeResult(asked: true, replies: Self.replies(text)), environment: environment, tmux: nil, said: said).decided
        }
        let kitty = "\u{1B}_Gi=31;OK\u{1B}\\\u{1B}_Gi=32;OK\u{1B}\\\u{1B}[?62;22c"
        #expect(choice(kitty).protocol == .kitty && choice(kitty).sharedMemory)
        #expect(!choice("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}_Gi=32;EBADF:no\u{1B}\\\u{1B}[?62;22c").sharedMemory, "over ssh: PNG")
        #expect(!choice(kitty, said: .sixel).sharedMemory, "sixel said: no kitty transport")
        #expect(!GraphicsChoice(.kitty, "x", throughTmux: true, sharedMemory: true).sharedMemory, "never through tmux")
        #expect(!choice(kitty).drawsAlike(GraphicsChoice(.kitty, "x")), "a late answer changes how pictures are sent")
    }

    @Test func aPictureGoesThroughAnObjectOfItsOwn() throws {
        let image = RGBImage(width: 3, height: 2, pixels: Array(0..<18).map { UInt8($0 * 9) })
        let name = KittySharedMemory.name(Int.random(in: 1_000_000..<2_000_000))
        defer { KittySharedMemory.remove(name) }
        let command = try #require(KittySharedMemory.transmit(image, id: 77, name: name))
        let text = String(decoding: command, as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}_Ga=t,f=24,t=s,s=3,v=2,S=18,i=77,q=2;") && text.hasSuffix("\u{1B}\\"))
        #expect(text.contains(Data(name.utf8).base64EncodedString()))
        // What kitty will read: the pixels, in an object only this user may open.
        let path = "/dev/shm" + name
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(image.pixels))
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        // A name in use is never written over.
        #expect(KittySharedMemory.transmit(image, id: 78, name: name) == nil)
        KittySharedMemory.remove(name)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @MainActor @Test func thePictureLayerSendsPixelsThroughSharedMemoryWhereDecided() throws {
        let layer = PictureLayer(graphics: .kitty, sharedMemory: true)
        let picture = PictureLayerTests.picture()
        let region = PictureLayerTests.region(picture)
        _ = layer.prepare(next: [region], height: 10)
        let commands = PictureLayerTests.kittyCommands(layer.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10))
        let transmit = try #require(commands.first { $0.keys["a"] == "t" })
        #expect(transmit.keys["t"] == "s" && transmit.keys["f"] == "24" && transmit.keys["s"] == "20" && transmit.keys["v"] == "30")
        let name = String(decoding: try #require(Data(base64Encoded: transmit.payload)), as: UTF8.self)
        defer { KittySharedMemory.remove(name) }
        #expect(name.hasPrefix("/stories-\(getpid())-"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: "/dev/shm" + name)) == Data(picture.image.pixels))
        #expect(commands.contains { $0.keys["a"] == "p" }, "then placed, as a PNG would be")
        // Not read by the terminal when the pictures go (quitting): removed, not left behind.
        _ = layer.clear()
        #expect(!FileManager.default.fileExists(atPath: "/dev/shm" + name))
        // Not decided (over ssh, through tmux): PNG, as before.
        let png = PictureLayer(graphics: .kitty, throughTmux: true, sharedMemory: true)
        _ = png.prepare(next: [region], height: 10)
        let wrapped = PictureLayerTests.text(png.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10))
        #expect(!wrapped.contains("t=s") && wrapped.contains("f=100"))
    }

    /// A terminal that does not read its objects (behind, or gone) holds at most four: the
    /// next pictures go as PNG until it catches up, and what it never read is removed.
    @MainActor @Test func atMostFourObjectsWaitUnread() throws {
        let layer = PictureLayer(graphics: .kitty, sharedMemory: true)
        var names: [String] = []
        defer { for name in names { KittySharedMemory.remove(name) } }
        func show(_ n: Int) -> (keys: [String: String], payload: String)? {
            var image = RGBImage(width: 20, height: 30)
            image[0, 0] = RGBPixel(UInt8(n), 0, 0)
            let region = PictureLayerTests.region(PixelPicture(image: image, cellWidth: 5, cellHeight: 10))
            _ = layer.prepare(next: [region], height: 10)
            return PictureLayerTests.kittyCommands(layer.finish(next: [region], redrawnRows: [], full: false, width: 20, height: 10))
                .first { $0.keys["a"] == "t" }
        }
        for n in 0..<4 {
            let sent = try #require(show(n))
            #expect(sent.keys["t"] == "s", "picture \(n)")
            names.append(String(decoding: Data(base64Encoded: sent.payload) ?? Data(), as: UTF8.self))
        }
        #expect(names.allSatisfy { KittySharedMemory.exists($0) })
        #expect(try #require(show(4)).keys["f"] == "100", "a fifth unread: PNG")
        KittySharedMemory.remove(names[0]) // the terminal read one
        #expect(try #require(show(5)).keys["t"] == "s", "caught up: shared memory again")
        _ = layer.clear()
        #expect(!names.contains { KittySharedMemory.exists($0) }, "nothing left in /dev/shm")
    }

    /// kitty chosen before its `t=s` answer came (said outright, or an answer after the
    /// window): the late OK changes how pictures are sent, never the protocol.
    @Test func aLateSharedMemoryAnswerChangesOnlyTheTransport() {
        func facts(_ text: String, said: GraphicsProtocol? = nil) -> GraphicsFacts {
            GraphicsFacts(ProbeResult(asked: true, replies: Self.replies(text)), environment: [:], tmux: nil, said: said)
        }
        let early = GraphicsDecision.deciding(facts("\u{1B}_Gi=31;OK\u{1B}\\", said: .kitty), after: nil)
        #expect(early.choice.protocol == .kitty && !early.choice.sharedMemory)
        let late = GraphicsDecision.deciding(facts("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}_Gi=32;OK\u{1B}\\\u{1B}[?62;4c", said: .kitty), after: early)
        #expect(late.choice.protocol == .kitty && late.choice.sharedMemory && late.choice.reason == early.choice.reason)
        // Sixel shown: a late kitty answer with shared memory changes nothing.
        let sixel = GraphicsDecision.deciding(facts("\u{1B}[?62;4c"), after: nil)
        let after = GraphicsDecision.deciding(facts("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}_Gi=32;OK\u{1B}\\\u{1B}[?62;4c"), after: sixel)
        #expect(after.choice == sixel.choice)
    }
}
