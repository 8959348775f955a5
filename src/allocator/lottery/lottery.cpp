#include "allocator/lottery/lottery.hpp"

#include <algorithm>

namespace mesos::allocator {

Lottery::Lottery(std::optional<uint64_t> seed)
    : random_(seed ? *seed : std::random_device{}()) {}

void Lottery::reset(std::vector<std::pair<Client, double>> tickets) {
  clients_.clear();
  cumulative_.clear();
  double sum = 0;
  for (const auto& [client, count] : tickets) {
    if (!(count > 0)) continue;
    sum += count;
    clients_.push_back(client);
    cumulative_.push_back(sum);
  }
}

size_t Lottery::drawIndex(const std::vector<double>& cumulative) {
  std::uniform_real_distribution<double> uniform(0.0, cumulative.back());
  double point = uniform(random_);
  size_t i = std::upper_bound(cumulative.begin(), cumulative.end(), point) - cumulative.begin();
  return std::min(i, cumulative.size() - 1);
}

}  // namespace mesos::allocator
