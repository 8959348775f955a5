// Whose rights the mesos-fetcher helper uses (docs/fetcher.md, "As whom").
// With a user (FetchPlan::runAs, when the slave runs as root and switches
// to the task's user), the helper fetches as that user: local files it
// cannot read are refused, and what lands in the sandbox is the user's.
// Only the cache, which belongs to the slave, is used as root, between
// fetches' steps.
//
// As the user, the real and effective ids are the user's and only the saved
// ones stay root: a program the helper starts (hadoop) is the user through
// and through, and the user's own processes cannot trace the helper.
// Blocking system calls; only the helper process uses it, single-threaded.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "mesos/result.hpp"

namespace mesos::internal::slave::fetcher {

class Identity {
 public:
  // Fetches as this process is: asUser() and asRoot() do nothing.
  Identity() = default;

  // The identity of `user` (its uid, gid and groups). Fails naming the
  // user when it does not exist, or when this process is not root.
  static Result<Identity> of(const std::string& user);

  // Takes the user's ids (see the top comment). Fails naming the step.
  Result<void> asUser() const;
  // Takes root's back (the ids this process started with).
  Result<void> asRoot() const;

  // Runs `step` as root, then takes the user's ids again; returns what it
  // returned, or the error of either switch.
  template <typename F>
  auto rooted(F&& step) const -> decltype(step()) {
    if (auto root = asRoot(); !root) return root.error();
    auto result = step();
    if (auto back = asUser(); !back) return back.error();
    return result;
  }
  // Runs `step` as the user, then takes root's ids again.
  template <typename F>
  auto unrooted(F&& step) const -> decltype(step()) {
    if (auto user = asUser(); !user) return user.error();
    auto result = step();
    if (auto back = asRoot(); !back) return back.error();
    return result;
  }

 private:
  bool switching_ = false;
  std::string user_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  std::vector<gid_t> groups_;      // the user's
  std::vector<gid_t> rootGroups_;  // this process's at the start
  gid_t rootGid_[3] = {0, 0, 0};   // its real, effective and saved gids
};

}  // namespace mesos::internal::slave::fetcher
