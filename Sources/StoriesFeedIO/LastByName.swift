import StoriesCore
import Foundation

/// The last `limit` names by name among those offered, in a bounded min-heap: a folder's
/// newest files (cameras number them in the order taken) whatever order the file system
/// lists them in, in memory for `limit` names however many are offered.
struct LastByName {
    let limit: Int
    private var heap: [String] = []
    /// How many offered names were not kept.
    private(set) var dropped = 0

    init(keeping limit: Int) { self.limit = max(0, limit) }

    var count: Int { heap.count }

    mutating func offer(_ name: String) {
        if heap.count < limit {
            heap.append(name)
            siftUp(heap.count - 1)
            return
        }
        dropped += 1
        // Full: the new name replaces the smallest kept when it comes after it.
        guard let smallest = heap.first, name > smallest else { return }
        heap[0] = name
        siftDown(0)
    }

    func sorted() -> [String] { heap.sorted() }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child] < heap[parent] else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < heap.count, heap[left] < heap[smallest] { smallest = left }
            if right < heap.count, heap[right] < heap[smallest] { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
