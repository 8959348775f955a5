#include "spark/dataset.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace mesos::frameworks::spark {

namespace {

// splitmix64: a small generator whose sequence is fixed by its definition
// (the standard library's distributions are not the same everywhere).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Standard normal (Box-Muller).
  double normal() {
    double u = 1.0 - uniform();  // (0, 1]
    double v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }

 private:
  uint64_t state_;
};

double sigmoid(double m) { return 1.0 / (1.0 + std::exp(-m)); }

// log(1 + e^z) without overflow.
double softplus(double z) { return z > 0 ? z + std::log1p(std::exp(-z)) : std::log1p(std::exp(z)); }

const char* skipSpaces(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
  return p;
}

}  // namespace

std::vector<double> trueWeights(const GenerateOptions& options) {
  Random random(options.seed * 2 + 1);
  std::vector<double> weights(options.dims);
  for (double& w : weights) w = (2 * random.uniform() - 1) * options.scale;
  return weights;
}

void generatePoints(const GenerateOptions& options, std::string& out) {
  std::vector<double> truth = trueWeights(options);
  Random random(options.seed * 2 + 2);
  std::vector<double> x(options.dims);
  char buffer[64];
  for (uint64_t i = 0; i < options.points; ++i) {
    double margin = 0;
    for (uint32_t j = 0; j < options.dims; ++j) {
      x[j] = random.normal();
      margin += truth[j] * x[j];
    }
    bool label = random.uniform() < sigmoid(margin);
    out += label ? '1' : '0';
    for (double value : x) {
      auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value,
                                     std::chars_format::fixed, 6);
      out += ' ';
      out.append(buffer, end);
    }
    out += '\n';
  }
}

std::string formatWeights(const std::vector<double>& weights) {
  std::string text;
  char buffer[64];
  for (size_t i = 0; i < weights.size(); ++i) {
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), weights[i],
                                   std::chars_format::general, 17);
    if (i > 0) text += ' ';
    text.append(buffer, end);
  }
  return text;
}

std::optional<std::vector<double>> parseWeights(std::string_view text) {
  std::vector<double> weights;
  const char* p = text.data();
  const char* end = p + text.size();
  while (true) {
    while (p < end && std::isspace(static_cast<unsigned char>(*p))) ++p;
    if (p == end) break;
    double value = 0;
    auto [next, ec] = std::from_chars(p, end, value);
    if (ec != std::errc()) return std::nullopt;
    weights.push_back(value);
    p = next;
  }
  return weights;
}

std::optional<Partition> parsePartition(std::string_view text, uint32_t dims, std::string* error) {
  Partition partition;
  partition.dims = dims;
  // Lines are about 10 bytes a coordinate: reserve to avoid regrowth.
  size_t guess = text.size() / (10 * static_cast<size_t>(dims) + 2) + 1;
  partition.x.reserve(guess * dims);
  partition.y.reserve(guess);
  // strtod reads up to a NUL: copy each line into a terminated buffer.
  std::string line;
  size_t lineNumber = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t stop = text.find('\n', start);
    if (stop == std::string_view::npos) stop = text.size();
    line.assign(text.data() + start, stop - start);
    start = stop + 1;
    ++lineNumber;
    const char* p = skipSpaces(line.data(), line.data() + line.size());
    const char* end = line.data() + line.size();
    if (p == end) continue;
    if ((*p != '0' && *p != '1') || (p + 1 < end && *(p + 1) != ' ' && *(p + 1) != '\t')) {
      *error = "line " + std::to_string(lineNumber) + ": the label must be 0 or 1";
      return std::nullopt;
    }
    partition.y.push_back(static_cast<uint8_t>(*p - '0'));
    ++p;
    for (uint32_t j = 0; j < dims; ++j) {
      p = skipSpaces(p, end);
      char* next = nullptr;
      double value = std::strtod(p, &next);
      if (next == p) {
        *error = "line " + std::to_string(lineNumber) + ": expected " + std::to_string(dims) +
                 " coordinates, found " + std::to_string(j);
        return std::nullopt;
      }
      partition.x.push_back(value);
      p = next;
    }
    if (skipSpaces(p, end) != end) {
      *error = "line " + std::to_string(lineNumber) + ": more than " + std::to_string(dims) +
               " coordinates";
      return std::nullopt;
    }
  }
  return partition;
}

PartialResult computePartial(const Partition& partition, const std::vector<double>& weights,
                             const std::vector<double>& reference) {
  PartialResult result;
  const uint32_t dims = partition.dims;
  result.gradient.assign(dims, 0.0);
  result.points = partition.points();
  const double* x = partition.x.data();
  for (size_t i = 0; i < partition.points(); ++i, x += dims) {
    double margin = 0;
    for (uint32_t j = 0; j < dims; ++j) margin += weights[j] * x[j];
    const bool label = partition.y[i] != 0;
    const double error = sigmoid(margin) - (label ? 1.0 : 0.0);
    for (uint32_t j = 0; j < dims; ++j) result.gradient[j] += error * x[j];
    result.loss += softplus(label ? -margin : margin);
    if ((margin > 0) == label) ++result.correct;
    if (!reference.empty()) {
      double referenceMargin = 0;
      for (uint32_t j = 0; j < dims; ++j) referenceMargin += reference[j] * x[j];
      if ((referenceMargin > 0) == label) ++result.referenceCorrect;
    }
  }
  return result;
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum);
}

}  // namespace mesos::frameworks::spark
