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
                if wordWidth > width {
                    // One pass over the word's graphemes: linear however long it is (a
                    // 400 000-character word once took minutes, cut again from each rest).
                    var chunk = "", used = 0
                    for character in word {
                        let w = DisplayWidth.of(character)
                        guard w <= width else { continue } // wider than a whole line: left out
                        if used + w > width {
                            result.append(chunk)
                            chunk = ""
                            used = 0
                        }
                        chunk.append(character)
                        used += w
                    }
                    word = chunk
                    wordWidth = used
                }
                line = word
                lineWidth = wordWidth
            }
            result.append(line)
        }
        return result
    }
}
