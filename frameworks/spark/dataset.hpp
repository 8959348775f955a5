// The logistic-regression data of mesos-spark-lr: generating points with
// known true weights, parsing a block of them, and the per-partition
// arithmetic of one gradient-descent step.
//
// Text format, one point a line: "<label> <x1> ... <xd>\n", label 0 or 1,
// coordinates as decimals. Blocks of the store end at line ends, so a block
// parses on its own.
//
// Determinism: every function here gives bit-identical results for the same
// input on every run and every host (no threads, no reordering, IEEE
// doubles summed in point order), which is what lets the driver promise the
// same answer whichever executor computed which partition.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mesos::frameworks::spark {

struct GenerateOptions {
  uint64_t points = 100000;
  uint32_t dims = 10;
  uint64_t seed = 1;
  // True weights are drawn uniformly from [-scale, scale].
  double scale = 2.0;
};

// The true weights for `options` (a function of dims, seed and scale).
std::vector<double> trueWeights(const GenerateOptions& options);

// Appends `options.points` points to `out`: coordinates standard normal
// (printed with 6 decimals), label 1 with probability sigmoid(w* . x) for
// the true weights w*. The same options always give the same text.
void generatePoints(const GenerateOptions& options, std::string& out);

// The weights as one line of %.17g numbers separated by spaces (exact round
// trip), and back. parseWeights fails (nullopt) on anything but numbers.
std::string formatWeights(const std::vector<double>& weights);
std::optional<std::vector<double>> parseWeights(std::string_view text);

// One partition's points in memory: row-major coordinates and labels.
struct Partition {
  uint32_t dims = 0;
  std::vector<double> x;      // points * dims
  std::vector<uint8_t> y;     // labels, 0 or 1
  size_t points() const { return y.size(); }
  size_t bytes() const { return x.size() * sizeof(double) + y.size(); }
};

// Parses the lines of `text` (empty lines skipped), each with exactly
// `dims` coordinates. On a malformed line returns nullopt and sets *error to
// "line N: <what is wrong>".
std::optional<Partition> parsePartition(std::string_view text, uint32_t dims, std::string* error);

// What one partition contributes to a step at weights w.
struct PartialResult {
  std::vector<double> gradient;  // sum over points of (sigmoid(w.x) - y) x
  double loss = 0;               // sum of the logistic losses
  uint64_t points = 0;
  uint64_t correct = 0;           // points with (w.x > 0) == y
  uint64_t referenceCorrect = 0;  // the same for `reference` weights, if given
};

// REQUIRES: weights.size() == partition.dims, reference empty or the same
// size.
PartialResult computePartial(const Partition& partition, const std::vector<double>& weights,
                             const std::vector<double>& reference);

// Euclidean distance. REQUIRES: same sizes.
double distance(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace mesos::frameworks::spark
