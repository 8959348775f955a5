// Lottery scheduling (Waldspurger and Weihl, OSDI 1994; the paper's section
// 4.2.1): each offer goes to client i with probability t_i / sum(t), where
// t_i are its tickets (its intended allocation). Seedable, for tests.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace mesos::allocator {

class Lottery {
 public:
  using Client = uint64_t;

  explicit Lottery(std::optional<uint64_t> seed);

  // The clients taking part in the next draws and their tickets (> 0).
  void reset(std::vector<std::pair<Client, double>> tickets);
  bool empty() const { return clients_.empty(); }

  // Draws a client among those for which `eligible(client)` is true, with
  // probability proportional to its tickets; nothing if none is eligible.
  template <typename F>
  std::optional<Client> draw(F&& eligible) {
    if (clients_.empty()) return std::nullopt;
    // Usually the first draw is eligible; a few redraws cover a client or
    // two that filter the slave.
    for (int attempt = 0; attempt < 8; attempt++) {
      size_t i = drawIndex(cumulative_);
      if (eligible(clients_[i])) return clients_[i];
    }
    // Many are ineligible: draw among the eligible ones only.
    std::vector<size_t> indices;
    std::vector<double> cumulative;
    double sum = 0;
    for (size_t i = 0; i < clients_.size(); i++) {
      if (!eligible(clients_[i])) continue;
      sum += cumulative_[i] - (i == 0 ? 0.0 : cumulative_[i - 1]);
      indices.push_back(i);
      cumulative.push_back(sum);
    }
    if (indices.empty()) return std::nullopt;
    return clients_[indices[drawIndex(cumulative)]];
  }

 private:
  // An index into `cumulative` (running sums of tickets), by weight.
  size_t drawIndex(const std::vector<double>& cumulative);

  std::mt19937_64 random_;
  std::vector<Client> clients_;
  std::vector<double> cumulative_;
};

}  // namespace mesos::allocator
