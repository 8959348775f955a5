#include "dfs/generate.hpp"

#include <algorithm>

namespace mesos::frameworks::dfs {

namespace {

uint64_t next(uint64_t& state) {
  state += 0x9e3779b97f4a7c15ull;
  uint64_t x = state;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::string vocabularyWord(uint32_t index) {
  // Syllables in base 20: pronounceable, distinct, at least two syllables.
  static const char* kSyllables[] = {"ka", "lo", "mi", "ne", "su", "ta", "ro", "vi", "de", "pu",
                                     "go", "ba", "fe", "hi", "jo", "ku", "ly", "ze", "wa", "xo"};
  std::string word;
  uint32_t value = index;
  do {
    word += kSyllables[value % 20];
    value /= 20;
  } while (value > 0);
  if (word.size() < 4) word += "n";
  return word;
}

TextAnswers generateText(std::ostream& out, const TextOptions& options) {
  TextAnswers answers;
  const uint32_t vocabulary = std::clamp<uint32_t>(options.vocabulary, 1, 1000000);
  const uint64_t perLine = std::max<uint32_t>(options.wordsPerLine, 1);
  uint64_t state = options.seed * 0x2545f4914f6cdd1dull + 7;
  std::string line;
  for (uint64_t i = 0; i < options.lines; ++i) {
    line.clear();
    uint64_t words = 1 + next(state) % (2 * perLine - 1);
    for (uint64_t w = 0; w < words; ++w) {
      // Skewed: the square of a uniform number favours low indexes, so a few
      // words are frequent and many are rare (as in real text).
      double u = static_cast<double>(next(state) >> 11) / 9007199254740992.0;
      uint32_t index = std::min<uint32_t>(static_cast<uint32_t>(u * u * vocabulary), vocabulary - 1);
      std::string word = vocabularyWord(index);
      if (w > 0) line += ' ';
      line += word;
      ++answers.wordCounts[word];
    }
    line += '\n';
    out << line;
    answers.words += words;
    answers.bytes += line.size();
  }
  answers.lines = options.lines;
  return answers;
}

}  // namespace mesos::frameworks::dfs
