#include "slave/fetcher_identity.hpp"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mesos::internal::slave::fetcher {

namespace {

Error systemError(const std::string& what, int error) {
  return Error{what + ": " + std::strerror(error)};
}

}  // namespace

Result<Identity> Identity::of(const std::string& user) {
  std::vector<char> buffer(16384);
  passwd entry{};
  passwd* found = nullptr;
  int error = ::getpwnam_r(user.c_str(), &entry, buffer.data(), buffer.size(), &found);
  if (found == nullptr) {
    if (error != 0) return systemError("cannot look up user '" + user + "'", error);
    return Error{"no user '" + user + "' on this machine"};
  }
  if (::geteuid() != 0) {
    return Error{"cannot fetch as user '" + user + "': the fetcher does not run as root"};
  }
  Identity identity;
  identity.switching_ = true;
  identity.user_ = user;
  identity.uid_ = found->pw_uid;
  identity.gid_ = found->pw_gid;
  int count = 64;
  for (;;) {
    identity.groups_.resize(static_cast<size_t>(count));
    int n = count;
    if (::getgrouplist(user.c_str(), identity.gid_, identity.groups_.data(), &n) >= 0) {
      identity.groups_.resize(static_cast<size_t>(n));
      break;
    }
    if (n <= count) return Error{"cannot list the groups of user '" + user + "'"};
    count = n;
  }
  if (::getresgid(&identity.rootGid_[0], &identity.rootGid_[1], &identity.rootGid_[2]) != 0) {
    return systemError("cannot read this process's group ids", errno);
  }
  int n = ::getgroups(0, nullptr);
  if (n < 0) return systemError("cannot list this process's groups", errno);
  identity.rootGroups_.resize(static_cast<size_t>(n));
  if (n > 0 && ::getgroups(n, identity.rootGroups_.data()) < 0) {
    return systemError("cannot list this process's groups", errno);
  }
  return identity;
}

Result<void> Identity::asUser() const {
  if (!switching_) return {};
  // Groups first: only root may set them.
  if (::setgroups(groups_.size(), groups_.data()) != 0) {
    return systemError("cannot take the groups of user '" + user_ + "'", errno);
  }
  if (::setresgid(gid_, gid_, rootGid_[2]) != 0) {
    return systemError("cannot take the group of user '" + user_ + "'", errno);
  }
  if (::setresuid(uid_, uid_, 0) != 0) {
    return systemError("cannot become user '" + user_ + "'", errno);
  }
  return {};
}

Result<void> Identity::asRoot() const {
  if (!switching_) return {};
  if (::setresuid(0, 0, 0) != 0) return systemError("cannot take root's ids back", errno);
  if (::setresgid(rootGid_[0], rootGid_[1], rootGid_[2]) != 0) return systemError("cannot take root's group back", errno);
  if (::setgroups(rootGroups_.size(), rootGroups_.data()) != 0) {
    return systemError("cannot take root's groups back", errno);
  }
  return {};
}

}  // namespace mesos::internal::slave::fetcher
