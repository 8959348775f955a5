// Dominant shares (Ghodsi et al., "Dominant Resource Fairness", NSDI 2011):
// the one place they are computed, for the sorter's order, the lottery's
// tickets by guarantee and the allocator's fair-share revocation.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace mesos::allocator {

// The largest fraction `allocation` holds of any one resource of `total`
// (both by scalar index, ScalarNames), over the resources the cluster has
// (total > 0); 0 when there are none. Entries past either vector's end
// count for nothing.
inline double dominantShare(const std::vector<double>& allocation,
                            const std::vector<double>& total) {
  double share = 0.0;
  size_t n = std::min(allocation.size(), total.size());
  for (size_t i = 0; i < n; i++) {
    if (total[i] > 0.0) share = std::max(share, allocation[i] / total[i]);
  }
  return share;
}

}  // namespace mesos::allocator
