/// Word wrapping by display width, for captions and text items. Breaks at spaces; a word
/// longer than the width is broken between graphemes; explicit newlines start new lines.
public enum TextWrap {
    public static func lines(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var result: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                var word = String(word)
                var wordWidth = word.displayWidth
                if lineWidth > 0 && lineWidth + 1 + wordWidth <= width {
                    line += " " + word
                    lineWidth += 1 + wordWidth
                    continue
                }
                if lineWidth > 0 {
                    result.append(line)
                    line = ""
                    lineWidth = 0
                }
                while wordWidth > width {
                    let head = word.truncated(toWidth: width, ellipsis: false)
                    result.append(head)
                    word = String(word.dropFirst(head.count))
                    wordWidth = word.displayWidth
                    if head.isEmpty { word = ""; wordWidth = 0 }
                }
                line = word
                lineWidth = wordWidth
            }
            result.append(line)
        }
        return result
    }
}
