#include "common/operations.hpp"

namespace mesos::operations {

namespace {

std::string describe(const Resource& resource) { return Resources(resource).toString(); }

// The resource without its persistent volume (a plain reserved disk).
Resource withoutVolume(const Resource& resource) {
  Resource out = resource;
  if (out.has_disk()) {
    out.mutable_disk()->clear_persistence();
    out.mutable_disk()->clear_volume();
    if (!out.disk().has_source()) out.clear_disk();
  }
  out.clear_shared();
  return out;
}

Result<void> checkVolume(const Resource& volume) {
  auto fail = [&](const std::string& why) {
    return Error{"volume " + describe(volume) + ": " + why};
  };
  if (volume.name() != "disk") return fail("only 'disk' resources can be volumes");
  if (!volume.has_disk() || !volume.disk().has_persistence()) {
    return fail("has no persistence (disk.persistence.id)");
  }
  const std::string& id = volume.disk().persistence().id();
  if (id.empty()) return fail("has an empty persistence id");
  if (id.find('/') != std::string::npos || id == "." || id == "..") {
    return fail("persistence id '" + id + "' must not hold '/' or be '.' or '..'");
  }
  if (!volume.disk().has_volume()) return fail("has no disk.volume (container_path and mode)");
  const std::string& path = volume.disk().volume().container_path();
  if (path.empty()) return fail("has an empty container_path");
  if (path.front() == '/') return fail("container_path '" + path + "' must be relative");
  if (path == ".." || path.rfind("../", 0) == 0 || path.find("/../") != std::string::npos ||
      (path.size() >= 3 && path.compare(path.size() - 3, 3, "/..") == 0)) {
    return fail("container_path '" + path + "' must not leave the sandbox");
  }
  if (volume.disk().volume().mode() != Volume::RW) return fail("a persistent volume's mode must be RW");
  if (volume.disk().volume().has_host_path()) return fail("must not have a host_path");
  if (!Resources::isReserved(volume)) return fail("is not reserved (a volume needs a reserved disk)");
  if (volume.has_revocable()) return fail("a revocable resource cannot be a volume");
  return {};
}

}  // namespace

Result<Conversion> conversion(const Offer::Operation& operation) {
  Conversion out;
  std::string problems;
  auto problem = [&](const std::string& text) {
    problems += (problems.empty() ? "" : "; ") + text;
  };
  auto valid = [&](const Resource& resource) {
    if (auto checked = Resources::validate(resource); !checked) {
      problem(checked.error().message);
      return false;
    }
    return true;
  };
  switch (operation.type()) {
    case Offer::Operation::RESERVE: {
      if (operation.reserve().resources_size() == 0) problem("RESERVE names no resources");
      for (const Resource& resource : operation.reserve().resources()) {
        if (!valid(resource)) continue;
        Resources canonical(resource);
        if (canonical.empty()) continue;
        const Resource& r = *canonical.begin();
        if (!Resources::isDynamicallyReserved(r)) {
          problem("RESERVE of " + describe(r) + ": it carries no DYNAMIC reservation on top");
        } else if (Resources::isPersistentVolume(r)) {
          problem("RESERVE of " + describe(r) + ": a persistent volume cannot be reserved");
        } else {
          out.consumed += Resources::popReservation(r);
          out.converted += r;
        }
      }
      if (operation.reserve().source_size() > 0 &&
          !(Resources(operation.reserve().source()) == out.consumed)) {
        problem("RESERVE's source " + Resources(operation.reserve().source()).toString() +
                " is not what its resources are reserved from (" + out.consumed.toString() + ")");
      }
      break;
    }
    case Offer::Operation::UNRESERVE: {
      if (operation.unreserve().resources_size() == 0) problem("UNRESERVE names no resources");
      for (const Resource& resource : operation.unreserve().resources()) {
        if (!valid(resource)) continue;
        Resources canonical(resource);
        if (canonical.empty()) continue;
        const Resource& r = *canonical.begin();
        if (!Resources::isDynamicallyReserved(r)) {
          problem("UNRESERVE of " + describe(r) + ": it is not dynamically reserved");
        } else if (Resources::isPersistentVolume(r)) {
          problem("UNRESERVE of " + describe(r) +
                  ": it is a persistent volume; DESTROY it first");
        } else {
          out.consumed += r;
          out.converted += Resources::popReservation(r);
        }
      }
      break;
    }
    case Offer::Operation::CREATE: {
      if (operation.create().volumes_size() == 0) problem("CREATE names no volumes");
      for (const Resource& resource : operation.create().volumes()) {
        if (!valid(resource)) continue;
        // Checked in canonical form: a RESERVATION_REFINEMENT framework
        // names the role in `reservations` only.
        Resources canonical(resource);
        if (canonical.empty()) continue;
        if (auto checked = checkVolume(*canonical.begin()); !checked) {
          problem("CREATE of " + checked.error().message);
          continue;
        }
        for (const Resource& other : out.converted) {
          if (other.disk().persistence().id() == resource.disk().persistence().id() &&
              other.role() == canonical.begin()->role()) {
            problem("CREATE names volume '" + resource.disk().persistence().id() + "' twice");
          }
        }
        out.consumed += withoutVolume(*canonical.begin());
        out.converted += canonical;
      }
      break;
    }
    case Offer::Operation::DESTROY: {
      if (operation.destroy().volumes_size() == 0) problem("DESTROY names no volumes");
      for (const Resource& resource : operation.destroy().volumes()) {
        if (!valid(resource)) continue;
        if (!Resources::isPersistentVolume(resource)) {
          problem("DESTROY of " + describe(resource) + ": it is not a persistent volume");
          continue;
        }
        Resources canonical(resource);
        out.consumed += canonical;
        out.converted += withoutVolume(*canonical.begin());
      }
      break;
    }
    case Offer::Operation::LAUNCH:
    case Offer::Operation::LAUNCH_GROUP:
      break;
    default:
      problem("unknown operation type " + std::to_string(static_cast<int>(operation.type())));
  }
  if (!problems.empty()) return Error{problems};
  return out;
}

Result<Resources> apply(const Resources& pool, const Conversion& conversion) {
  if (!pool.contains(conversion.consumed)) {
    return Error{"needs " + conversion.consumed.toString() + " but has only " + pool.toString()};
  }
  return pool - conversion.consumed + conversion.converted;
}

Resources convertTotal(const Resources& total, const Conversion& conversion) {
  return total - conversion.consumed.unallocated() + conversion.converted.unallocated();
}

Resource stripped(const Resource& resource) {
  Resource out = withoutVolume(resource);
  while (Resources::isDynamicallyReserved(out)) out = Resources::popReservation(out);
  return out;
}

Resources checkpointable(const Resources& total) {
  Resources out;
  for (const Resource& resource : total) {
    if (Resources::isDynamicallyReserved(resource) || Resources::isPersistentVolume(resource)) {
      out += resource;
    }
  }
  return out;
}

Result<Resources> applyCheckpointed(const Resources& declared, const Resources& checkpointed) {
  Resources total = declared;
  for (const Resource& resource : checkpointed) {
    Resources base(stripped(resource));
    if (!total.contains(base)) {
      return Error{"checkpointed " + describe(resource) + " needs " + base.toString() +
                   " which the slave's resources (" + total.toString() + ") no longer hold"};
    }
    total = total - base + resource;
  }
  return total;
}

bool hasVolume(const Resources& resources, const std::string& role, const std::string& id) {
  for (const Resource& resource : resources) {
    if (Resources::isPersistentVolume(resource) && resource.role() == role &&
        resource.disk().persistence().id() == id) {
      return true;
    }
  }
  return false;
}

}  // namespace mesos::operations
