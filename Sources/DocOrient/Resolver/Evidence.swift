/// Weights that turn recognised words into a candidate's score (from Models/calibration.json).
struct ScoringWeights: Sendable, Codable, Equatable {
    /// Words below this confidence (0...100) count as noise: upside-down text still yields them.
    var minWordConfidence: Double
    /// Extra weight of a dictionary word's characters: mirrored and rotated text reads as confident
    /// non-words, upright text as dictionary words.
    var dictionaryWeight: Double
}

/// What OCR of one candidate (over one or more regions) amounted to.
struct Evidence: Sendable, Codable, Equatable {
    /// Words with at least one letter or digit.
    var words = 0
    /// Words at or above the confidence floor with at least two letters or digits.
    var confidentWords = 0
    /// Letters and digits in confident words.
    var confidentCharacters = 0
    /// Confidence-weighted letters and digits in confident words.
    var weightedCharacters = 0.0
    /// Confident words from the dictionary with at least three letters.
    var dictionaryWords = 0
    /// Confidence-weighted letters in those dictionary words.
    var weightedDictionaryCharacters = 0.0
    /// Confident dictionary words with at least `Evidence.longWordLetters` letters. Upside-down,
    /// sideways and mirrored print read as such words at most once per text window (seed-1 set:
    /// 35 of 5,496 wrong reads, never twice); upright text mostly reads several.
    var longDictionaryWords = 0
    /// Sum of the confidences of all words.
    var confidenceSum = 0.0

    /// Letters that make a dictionary word long.
    static let longWordLetters = 5

    init() {}

    init(words recognized: [RecognizedWord], weights: ScoringWeights) {
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
            let weight = word.confidence / 100
            confidentWords += 1
            confidentCharacters += alphanumerics
            weightedCharacters += Double(alphanumerics) * weight
            if word.isFromDictionary, letters >= 3 {
                dictionaryWords += 1
                weightedDictionaryCharacters += Double(letters) * weight
                if letters >= Self.longWordLetters { longDictionaryWords += 1 }
            }
        }
    }

    /// Evidence over both regions.
    func adding(_ other: Evidence) -> Evidence {
        var sum = self
        sum.words += other.words
        sum.confidentWords += other.confidentWords
        sum.confidentCharacters += other.confidentCharacters
        sum.weightedCharacters += other.weightedCharacters
        sum.dictionaryWords += other.dictionaryWords
        sum.weightedDictionaryCharacters += other.weightedDictionaryCharacters
        sum.longDictionaryWords += other.longDictionaryWords
        sum.confidenceSum += other.confidenceSum
        return sum
    }

    /// The candidate's score: confident characters, dictionary characters counted extra.
    func score(_ weights: ScoringWeights) -> Double {
        weightedCharacters + weights.dictionaryWeight * weightedDictionaryCharacters
    }

    /// Mean word confidence, 0 when no word was read.
    var meanConfidence: Double { words == 0 ? 0 : confidenceSum / Double(words) }

    /// Share of confident words that are dictionary words.
    var dictionaryShare: Double { confidentWords == 0 ? 0 : Double(dictionaryWords) / Double(confidentWords) }
}
