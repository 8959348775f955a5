// Generated text with known answers, the input of the MapReduce examples and
// tests: lines of words drawn (skewed, deterministically from a seed) from a
// fixed vocabulary, so that the word counts a wordcount job must find are
// known without running one.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

namespace mesos::frameworks::dfs {

struct TextOptions {
  uint64_t lines = 10000;
  uint32_t wordsPerLine = 8;    // average; each line has 1 .. 2 * wordsPerLine - 1
  uint32_t vocabulary = 1000;   // distinct words, at most 1,000,000
  uint64_t seed = 1;
};

struct TextAnswers {
  std::map<std::string, uint64_t> wordCounts;  // word -> occurrences
  uint64_t lines = 0;
  uint64_t words = 0;
  uint64_t bytes = 0;
};

// The `index`-th word of the vocabulary: lowercase letters, distinct for
// distinct indexes, the same on every run.
std::string vocabularyWord(uint32_t index);

// Writes `options.lines` lines ("w1 w2 ... wn\n") to `out` and returns what
// they contain. The same options always give the same text.
TextAnswers generateText(std::ostream& out, const TextOptions& options);

}  // namespace mesos::frameworks::dfs
