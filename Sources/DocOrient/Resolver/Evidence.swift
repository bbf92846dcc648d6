/// Weights that turn recognised words into a candidate's score (from Models/calibration.json;
/// decision 4).
package struct ScoringWeights: Sendable, Codable, Equatable {
    /// Words below this confidence (0...100) count as noise: upside-down text still yields them.
    package var minWordConfidence: Double
    /// Extra weight of a dictionary word's characters: mirrored and rotated text reads as confident
    /// non-words, upright text as dictionary words.
    package var dictionaryWeight: Double

    package init(minWordConfidence: Double, dictionaryWeight: Double) {
        self.minWordConfidence = minWordConfidence
        self.dictionaryWeight = dictionaryWeight
    }
}

/// What OCR of one candidate (over one or more regions) amounted to.
package struct Evidence: Sendable, Codable, Equatable {
    /// Words with at least one letter or digit.
    var words = 0
    /// Words at or above the confidence floor with at least two letters or digits.
    var confidentWords = 0
    /// Letters and digits in confident words.
    var confidentCharacters = 0
    /// Confidence-weighted letters and digits in confident words.
    var weightedCharacters = 0.0
    /// Confident words from the dictionary with at least three letters.
    package var dictionaryWords = 0
    /// Confidence-weighted letters in those dictionary words.
    var weightedDictionaryCharacters = 0.0
    /// Confident dictionary words with at least `Evidence.longWordLetters` letters.
    var longDictionaryWords = 0
    /// Confident words shaped like an amount: digits (grouped by threes), a decimal point or comma,
    /// two digits ("12.34", "$1,234.56"). Turned upside down the point sits at the top, mirrored the
    /// digits are not digits: wrong reads never show two.
    var amounts = 0
    /// Sum of the confidences of all words.
    var confidenceSum = 0.0
    /// Each distinct confident word (by its text, lower-cased) as the evidence of that word
    /// alone, at its most confident reading: what `distinct` adds up when readings overlap (a
    /// line read by the line stage, again in a window and again in the coarse look).
    var byText: [String: Evidence] = [:]

    private enum CodingKeys: String, CodingKey {
        case words, confidentWords, confidentCharacters, weightedCharacters, dictionaryWords
        case weightedDictionaryCharacters, longDictionaryWords, amounts, confidenceSum
    }

    /// Letters that make a dictionary word long.
    static let longWordLetters = 5

    /// Words that only upright print reads: long dictionary words and amounts. Upside-down,
    /// sideways and mirrored print reads at most one per text window (never two in the exhaustive
    /// reads of two generated sets; decision 2); upright text mostly reads several.
    var tellingWords: Int { longDictionaryWords + amounts }

    /// Whether `text` is shaped like an amount: an optional currency sign, 1-3 digits, groups of
    /// a separator and 3 digits, then a decimal point or comma and exactly 2 digits.
    static func isAmount(_ text: String) -> Bool {
        var chars = Array(text)
        if let first = chars.first, "$€£".contains(first) { chars.removeFirst() }
        guard chars.count >= 4, chars[chars.count - 3] == "." || chars[chars.count - 3] == ",",
            chars.suffix(2).allSatisfy(\.isASCIIDigit)
        else { return false }
        let whole = chars.dropLast(3)
        let groups = whole.split(omittingEmptySubsequences: false) { $0 == "," || $0 == "." }
        guard let lead = groups.first, (1...3).contains(lead.count), lead.allSatisfy(\.isASCIIDigit) else {
            return false
        }
        return groups.dropFirst().allSatisfy { $0.count == 3 && $0.allSatisfy(\.isASCIIDigit) }
    }

    package init() {}

    package init(words recognized: [RecognizedWord], weights: ScoringWeights) {
        self.init(words: recognized, weights: weights, byText: true)
    }

    private init(words recognized: [RecognizedWord], weights: ScoringWeights, byText keepingText: Bool) {
        for word in recognized {
            var alphanumerics = 0
            var letters = 0
            for scalar in word.text.unicodeScalars {
                if scalar.properties.isAlphabetic {
                    letters += 1
                    alphanumerics += 1
                } else if scalar.properties.numericType != nil {
                    alphanumerics += 1
                }
            }
            guard alphanumerics > 0 else { continue }
            words += 1
            confidenceSum += word.confidence
            guard alphanumerics >= 2, word.confidence >= weights.minWordConfidence else { continue }
            if keepingText {
                let single = Evidence(words: [word], weights: weights, byText: false)
                byText.merge([word.text.lowercased(): single], uniquingKeysWith: Self.likelier)
            }
            let weight = word.confidence / 100
            confidentWords += 1
            confidentCharacters += alphanumerics
            weightedCharacters += Double(alphanumerics) * weight
            if Self.isAmount(word.text) { amounts += 1 }
            if word.isFromDictionary, letters >= 3 {
                dictionaryWords += 1
                weightedDictionaryCharacters += Double(letters) * weight
                if letters >= Self.longWordLetters { longDictionaryWords += 1 }
            }
        }
    }

    /// Evidence over both regions.
    package func adding(_ other: Evidence) -> Evidence {
        var sum = self
        sum.words += other.words
        sum.confidentWords += other.confidentWords
        sum.confidentCharacters += other.confidentCharacters
        sum.weightedCharacters += other.weightedCharacters
        sum.dictionaryWords += other.dictionaryWords
        sum.weightedDictionaryCharacters += other.weightedDictionaryCharacters
        sum.longDictionaryWords += other.longDictionaryWords
        sum.amounts += other.amounts
        sum.confidenceSum += other.confidenceSum
        sum.byText.merge(other.byText, uniquingKeysWith: Self.likelier)
        return sum
    }

    /// Of two readings of one word, the more confident.
    private static func likelier(_ a: Evidence, _ b: Evidence) -> Evidence {
        a.weightedCharacters >= b.weightedCharacters ? a : b
    }

    /// The confident words counted once each, however many readings found them (in a fixed
    /// order, so that the sum is the same in every run).
    package var distinct: Evidence {
        byText.keys.sorted().reduce(Evidence()) { $0.adding(byText[$1]!) }
    }

    /// The candidate's score: confident characters, dictionary characters counted extra.
    package func score(_ weights: ScoringWeights) -> Double {
        weightedCharacters + weights.dictionaryWeight * weightedDictionaryCharacters
    }

    /// Mean word confidence, 0 when no word was read.
    var meanConfidence: Double { words == 0 ? 0 : confidenceSum / Double(words) }

    /// Share of confident words that are dictionary words.
    var dictionaryShare: Double { confidentWords == 0 ? 0 : Double(dictionaryWords) / Double(confidentWords) }

    /// Share of confident words that are dictionary words or amounts: what plain text, invoices
    /// and receipts included, mostly reads as.
    var plainShare: Double { confidentWords == 0 ? 0 : Double(dictionaryWords + amounts) / Double(confidentWords) }
}

fileprivate extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
