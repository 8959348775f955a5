#include "mesos/resources.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <system_error>
#include <tuple>
#include <utility>

#include <google/protobuf/util/message_differencer.h>

#include "common/roles.hpp"
#include "common/strings.hpp"

namespace mesos {

namespace {

using Interval = std::pair<uint64_t, uint64_t>;  // inclusive [first, second]

// Scalars are fixed-point with three decimal places: stored as whole
// thousandths so that sums and differences are exact.
int64_t toMillis(double value) {
  double scaled = value * 1000.0;
  // Values this large are not resources anyone has; clamp instead of
  // overflowing llround.
  constexpr double kLimit = 4.0e18;
  if (scaled >= kLimit) return static_cast<int64_t>(kLimit);
  if (scaled <= -kLimit) return -static_cast<int64_t>(kLimit);
  return std::llround(scaled);
}

double fromMillis(int64_t millis) { return static_cast<double>(millis) / 1000.0; }

bool sameLabels(const Labels& a, const Labels& b) {
  if (a.labels_size() != b.labels_size()) return false;
  for (int i = 0; i < a.labels_size(); ++i) {
    if (a.labels(i).key() != b.labels(i).key() || a.labels(i).value() != b.labels(i).value() ||
        a.labels(i).has_value() != b.labels(i).has_value()) {
      return false;
    }
  }
  return true;
}

bool sameReservation(const Resource::ReservationInfo& a, const Resource::ReservationInfo& b) {
  return a.type() == b.type() && a.role() == b.role() && a.principal() == b.principal() &&
         a.has_labels() == b.has_labels() && sameLabels(a.labels(), b.labels());
}

// Same name, type, role, reservations, disk, revocable, shared and
// allocation role: such resources merge on addition and are what
// subtraction and contains() match. Both are in the canonical form add()
// keeps (the reservation stack filled in), so the stack decides for the
// older `reservation` field too.
bool sameKind(const Resource& a, const Resource& b) {
  using google::protobuf::util::MessageDifferencer;
  if (a.name() != b.name() || a.type() != b.type() || a.role() != b.role()) return false;
  if (a.has_disk() != b.has_disk() || a.reservations_size() != b.reservations_size() ||
      a.has_revocable() != b.has_revocable() || a.has_shared() != b.has_shared() ||
      a.allocation_info().role() != b.allocation_info().role()) {
    return false;
  }
  for (int i = 0; i < a.reservations_size(); ++i) {
    if (!sameReservation(a.reservations(i), b.reservations(i))) return false;
  }
  if (a.has_disk() && !MessageDifferencer::Equals(a.disk(), b.disk())) return false;
  return true;
}

// The canonical form every Resources holds: the reservation stack filled
// in from the older `role` + `reservation` form (a role with no stack is one
// STATIC reservation, or DYNAMIC with `reservation`'s principal and labels),
// and `role` and `reservation` set from the stack's top. A resource whose two
// forms disagree is left as it is; validate() refuses it.
bool canonical(const Resource& r) {
  if (r.reservations_size() == 0) return r.role() == "*" && !r.has_reservation();
  const auto& top = r.reservations(r.reservations_size() - 1);
  if (!r.has_role() || r.role() != top.role()) return false;
  if (top.type() == Resource::ReservationInfo::DYNAMIC) {
    return r.has_reservation() && r.reservation().principal() == top.principal() &&
           r.reservation().has_principal() == top.has_principal() &&
           r.reservation().has_labels() == top.has_labels() &&
           sameLabels(r.reservation().labels(), top.labels());
  }
  return !r.has_reservation();
}

void canonicalize(Resource* r) {
  if (r->reservations_size() == 0) {
    if (r->role() == "*") {
      r->clear_reservation();
      return;
    }
    auto* reservation = r->add_reservations();
    reservation->set_role(r->role());
    if (r->has_reservation()) {
      reservation->set_type(Resource::ReservationInfo::DYNAMIC);
      if (r->reservation().has_principal()) reservation->set_principal(r->reservation().principal());
      if (r->reservation().has_labels()) *reservation->mutable_labels() = r->reservation().labels();
    } else {
      reservation->set_type(Resource::ReservationInfo::STATIC);
    }
  }
  const auto& top = r->reservations(r->reservations_size() - 1);
  r->set_role(top.role());
  if (top.type() == Resource::ReservationInfo::DYNAMIC) {
    auto* reservation = r->mutable_reservation();
    reservation->Clear();
    if (top.has_principal()) reservation->set_principal(top.principal());
    if (top.has_labels()) *reservation->mutable_labels() = top.labels();
  } else {
    r->clear_reservation();
  }
}

std::vector<Interval> intervals(const Value::Ranges& ranges) {
  std::vector<Interval> out;
  out.reserve(static_cast<size_t>(ranges.range_size()));
  for (const auto& range : ranges.range()) out.emplace_back(range.begin(), range.end());
  return out;
}

// Sorts and merges overlapping and adjacent intervals.
std::vector<Interval> normalize(std::vector<Interval> in) {
  std::sort(in.begin(), in.end());
  std::vector<Interval> out;
  for (const auto& interval : in) {
    if (!out.empty() && (out.back().second == std::numeric_limits<uint64_t>::max() ||
                         interval.first <= out.back().second + 1)) {
      out.back().second = std::max(out.back().second, interval.second);
    } else {
      out.push_back(interval);
    }
  }
  return out;
}

// a \ b, both normalized; the result is normalized.
std::vector<Interval> difference(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  for (Interval current : a) {
    bool remaining = true;
    for (const auto& cut : b) {
      if (cut.second < current.first) continue;
      if (cut.first > current.second) break;
      if (cut.first > current.first) out.emplace_back(current.first, cut.first - 1);
      if (cut.second >= current.second) {
        remaining = false;
        break;
      }
      current.first = cut.second + 1;
    }
    if (remaining) out.push_back(current);
  }
  return out;
}

// True when every interval of `b` lies inside `a` (both normalized).
bool subset(const std::vector<Interval>& b, const std::vector<Interval>& a) {
  for (const auto& interval : b) {
    auto it = std::upper_bound(a.begin(), a.end(), Interval{interval.first, std::numeric_limits<uint64_t>::max()});
    if (it == a.begin()) return false;
    --it;
    if (it->first > interval.first || it->second < interval.second) return false;
  }
  return true;
}

void setIntervals(Value::Ranges* ranges, const std::vector<Interval>& in) {
  ranges->Clear();
  for (const auto& interval : in) {
    auto* range = ranges->add_range();
    range->set_begin(interval.first);
    range->set_end(interval.second);
  }
}

std::set<std::string> items(const Value::Set& set) { return {set.item().begin(), set.item().end()}; }

void setItems(Value::Set* set, const std::set<std::string>& in) {
  set->Clear();
  for (const auto& item : in) set->add_item(item);
}

bool isEmpty(const Resource& resource) {
  switch (resource.type()) {
    case Value::SCALAR: return toMillis(resource.scalar().value()) == 0;
    case Value::RANGES: return resource.ranges().range_size() == 0;
    case Value::SET: return resource.set().item_size() == 0;
    default: return true;
  }
}

std::string trim(const std::string& s) {
  const char* kSpace = " \t\n\r\f\v";
  size_t first = s.find_first_not_of(kSpace);
  if (first == std::string::npos) return "";
  size_t last = s.find_last_not_of(kSpace);
  return s.substr(first, last - first + 1);
}

std::vector<std::string> split(const std::string& s, char delimiter) {
  return internal::strings::split(s, delimiter);
}

std::string formatScalar(double value) {
  int64_t millis = toMillis(value);
  std::string out = millis < 0 ? "-" : "";
  uint64_t magnitude = millis < 0 ? static_cast<uint64_t>(-millis) : static_cast<uint64_t>(millis);
  out += std::to_string(magnitude / 1000);
  uint64_t fraction = magnitude % 1000;
  if (fraction != 0) {
    std::string digits = std::to_string(fraction);
    digits.insert(0, 3 - digits.size(), '0');
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out;
}

std::string formatValue(const Resource& resource) {
  std::string out;
  switch (resource.type()) {
    case Value::SCALAR:
      return formatScalar(resource.scalar().value());
    case Value::RANGES: {
      out = "[";
      for (int i = 0; i < resource.ranges().range_size(); ++i) {
        if (i > 0) out += ", ";
        const auto& range = resource.ranges().range(i);
        out += std::to_string(range.begin()) + "-" + std::to_string(range.end());
      }
      return out + "]";
    }
    case Value::SET: {
      out = "{";
      for (int i = 0; i < resource.set().item_size(); ++i) {
        if (i > 0) out += ", ";
        out += resource.set().item(i);
      }
      return out + "}";
    }
    default:
      return "?";
  }
}

Result<uint64_t> parseUnsigned(const std::string& text) {
  uint64_t value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto [end, ec] = std::from_chars(first, last, value);
  if (text.empty() || ec != std::errc() || end != last) {
    return Error{"'" + text + "' is not a non-negative integer"};
  }
  return value;
}

Result<Resource> parseEntry(const std::string& entry, const std::string& defaultRole) {
  auto fail = [&](const std::string& why) {
    return Error{"invalid resource '" + entry + "': " + why};
  };
  size_t colon = entry.find(':');
  if (colon == std::string::npos) return fail("expected 'name:value' or 'name(role):value'");
  std::string key = trim(entry.substr(0, colon));
  std::string text = trim(entry.substr(colon + 1));

  Resource resource;
  std::string name = key;
  std::string role = defaultRole;
  size_t open = key.find('(');
  if (open != std::string::npos) {
    if (key.back() != ')') return fail("expected ')' after the role");
    name = trim(key.substr(0, open));
    role = trim(key.substr(open + 1, key.size() - open - 2));
    if (role.empty()) return fail("empty role");
  } else if (key.find(')') != std::string::npos) {
    return fail("unbalanced ')' in the name");
  }
  if (name.empty()) return fail("missing name");
  for (char c : name) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')' || c == '[' || c == ']' ||
        c == '{' || c == '}' || c == ',') {
      return fail("invalid character '" + std::string(1, c) + "' in the name");
    }
  }
  for (char c : role) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')') {
      return fail("invalid character '" + std::string(1, c) + "' in the role");
    }
  }
  resource.set_name(name);
  resource.set_role(role);
  if (text.empty()) return fail("missing value");

  if (text.front() == '[') {
    if (text.back() != ']') return fail("expected ']' at the end of the ranges");
    resource.set_type(Value::RANGES);
    std::vector<Interval> list;
    std::string inner = trim(text.substr(1, text.size() - 2));
    if (!inner.empty()) {
      for (const auto& part : split(inner, ',')) {
        std::string range = trim(part);
        size_t dash = range.find('-');
        if (dash == std::string::npos) return fail("expected 'begin-end' in range '" + range + "'");
        auto begin = parseUnsigned(trim(range.substr(0, dash)));
        auto end = parseUnsigned(trim(range.substr(dash + 1)));
        if (!begin) return fail(begin.error().message + " in range '" + range + "'");
        if (!end) return fail(end.error().message + " in range '" + range + "'");
        if (*begin > *end) return fail("range '" + range + "' begins after it ends");
        list.emplace_back(*begin, *end);
      }
    }
    setIntervals(resource.mutable_ranges(), list);
  } else if (text.front() == '{') {
    if (text.back() != '}') return fail("expected '}' at the end of the set");
    resource.set_type(Value::SET);
    std::string inner = trim(text.substr(1, text.size() - 2));
    auto* set = resource.mutable_set();
    if (!inner.empty()) {
      for (const auto& part : split(inner, ',')) {
        std::string item = trim(part);
        if (item.empty()) return fail("empty item in the set");
        set->add_item(item);
      }
    }
  } else {
    resource.set_type(Value::SCALAR);
    double value = 0;
    const char* first = text.data();
    const char* last = text.data() + text.size();
    auto [end, ec] = std::from_chars(first, last, value, std::chars_format::fixed);
    if (ec != std::errc() || end != last) return fail("expected a number, ranges '[a-b]' or a set '{a,b}'");
    resource.mutable_scalar()->set_value(value);
  }

  auto valid = Resources::validate(resource);
  if (!valid) return fail(valid.error().message);
  return resource;
}

}  // namespace

Resources::Resources(const Resource& resource) { add(resource); }

Resources::Resources(const google::protobuf::RepeatedPtrField<Resource>& resources) {
  for (const auto& resource : resources) add(resource);
}

Result<Resources> Resources::parse(const std::string& text, const std::string& defaultRole) {
  Resources result;
  std::map<std::string, Value::Type> types;
  for (const auto& part : split(text, ';')) {
    std::string entry = trim(part);
    if (entry.empty()) continue;
    auto resource = parseEntry(entry, defaultRole);
    if (!resource) return resource.error();
    auto [it, inserted] = types.emplace(resource->name(), resource->type());
    if (!inserted && it->second != resource->type()) {
      return Error{"invalid resource '" + entry + "': '" + resource->name() +
                   "' was given earlier with a different type"};
    }
    result.add(*resource);
  }
  return result;
}

namespace {

// For an error only.
std::string named(const Resource& resource) {
  return "resource '" + (resource.name().empty() ? std::string("<unnamed>") : resource.name()) +
         "'";
}

// Resources::validate() but for the role's name: what every Resources
// operation checks of each resource it takes (the role's name is checked
// where resources come in, by validate()).
Result<void> wellFormed(const Resource& resource) {
  auto label = [&] { return named(resource); };
  if (!resource.has_name() || resource.name().empty()) return Error{label() + " has no name"};
  if (!resource.has_type()) return Error{label() + " has no type"};
  if (resource.has_role() && resource.role().empty()) return Error{label() + " has an empty role"};
  switch (resource.type()) {
    case Value::SCALAR: {
      if (!resource.has_scalar() || resource.has_ranges() || resource.has_set()) {
        return Error{label() + " is SCALAR and must carry only a scalar value"};
      }
      double value = resource.scalar().value();
      if (!std::isfinite(value)) return Error{label() + " has a non-finite value"};
      if (value < 0) return Error{label() + " has a negative value " + std::to_string(value)};
      return {};
    }
    case Value::RANGES: {
      if (!resource.has_ranges() || resource.has_scalar() || resource.has_set()) {
        return Error{label() + " is RANGES and must carry only ranges"};
      }
      auto list = intervals(resource.ranges());
      for (const auto& [begin, end] : list) {
        if (begin > end) {
          return Error{label() + " has range " + std::to_string(begin) + "-" + std::to_string(end) +
                       " that begins after it ends"};
        }
      }
      std::sort(list.begin(), list.end());
      for (size_t i = 1; i < list.size(); ++i) {
        if (list[i].first <= list[i - 1].second) {
          return Error{label() + " has overlapping ranges " + std::to_string(list[i - 1].first) + "-" +
                       std::to_string(list[i - 1].second) + " and " + std::to_string(list[i].first) + "-" +
                       std::to_string(list[i].second)};
        }
      }
      return {};
    }
    case Value::SET: {
      if (!resource.has_set() || resource.has_scalar() || resource.has_ranges()) {
        return Error{label() + " is SET and must carry only a set"};
      }
      std::set<std::string> seen;
      for (const auto& item : resource.set().item()) {
        if (!seen.insert(item).second) return Error{label() + " has duplicate item '" + item + "'"};
      }
      return {};
    }
    default:
      return Error{label() + " has unsupported type " + Value::Type_Name(resource.type())};
  }
}

}  // namespace

Result<void> Resources::validate(const Resource& resource) {
  if (resource.has_role() && !resource.role().empty() && resource.role() != "*") {
    if (auto valid = roles::validate(resource.role()); !valid) {
      return Error{named(resource) + ": " + valid.error().message};
    }
  }
  if (auto reserved = validateReservations(resource); !reserved) return reserved;
  return wellFormed(resource);
}

Result<void> Resources::validateReservations(const Resource& resource) {
  auto fail = [&](const std::string& why) { return Error{named(resource) + ": " + why}; };
  if (resource.reservations_size() == 0) {
    if (resource.role() == "*" && resource.has_reservation()) {
      return fail("an unreserved resource (role '*') cannot have a reservation");
    }
    return {};
  }
  std::string parent;
  for (int i = 0; i < resource.reservations_size(); ++i) {
    const auto& reservation = resource.reservations(i);
    if (reservation.type() != Resource::ReservationInfo::STATIC &&
        reservation.type() != Resource::ReservationInfo::DYNAMIC) {
      return fail("reservation " + std::to_string(i) + " has no type (STATIC or DYNAMIC)");
    }
    if (!reservation.has_role() || reservation.role() == "*") {
      return fail("reservation " + std::to_string(i) + " has no role (or role '*')");
    }
    if (auto valid = roles::validate(reservation.role()); !valid) {
      return fail(valid.error().message);
    }
    if (reservation.type() == Resource::ReservationInfo::STATIC && i > 0) {
      return fail("a STATIC reservation can only be the first of the stack");
    }
    if (i > 0 && reservation.role().rfind(parent + "/", 0) != 0) {
      return fail("reservation role '" + reservation.role() + "' does not refine '" + parent +
                  "' (it must be a role under it)");
    }
    parent = reservation.role();
  }
  const auto& top = resource.reservations(resource.reservations_size() - 1);
  if (resource.has_role() && resource.role() != top.role()) {
    return fail("role '" + resource.role() + "' is not the role of its last reservation '" +
                top.role() + "'");
  }
  if (resource.has_reservation()) {
    if (top.type() != Resource::ReservationInfo::DYNAMIC) {
      return fail("'reservation' is set but its last reservation is STATIC");
    }
    if (resource.reservation().principal() != top.principal()) {
      return fail("'reservation' names principal '" + resource.reservation().principal() +
                  "' but its last reservation '" + top.principal() + "'");
    }
  }
  return {};
}

bool Resources::isDynamicallyReserved(const Resource& resource) {
  if (resource.reservations_size() > 0) {
    return resource.reservations(resource.reservations_size() - 1).type() ==
           Resource::ReservationInfo::DYNAMIC;
  }
  return resource.has_reservation();
}

Resource Resources::popReservation(const Resource& resource) {
  Resource out = resource;
  if (!canonical(out)) canonicalize(&out);
  if (out.reservations_size() == 0) return out;
  out.mutable_reservations()->RemoveLast();
  out.set_role(out.reservations_size() == 0 ? "*" : out.reservations(out.reservations_size() - 1).role());
  out.clear_reservation();
  canonicalize(&out);
  return out;
}

Resource Resources::pushReservation(const Resource& resource,
                                    const Resource::ReservationInfo& reservation) {
  Resource out = resource;
  if (!canonical(out)) canonicalize(&out);
  *out.add_reservations() = reservation;
  out.set_role(reservation.role());
  canonicalize(&out);
  return out;
}

void Resources::toFrameworkFormat(Resource* resource, bool refinement) {
  if (refinement) {
    resource->clear_role();
    resource->clear_reservation();
  } else {
    resource->clear_reservations();
  }
}

Result<void> Resources::validate(const google::protobuf::RepeatedPtrField<Resource>& resources) {
  for (const auto& resource : resources) {
    auto valid = validate(resource);
    if (!valid) return valid;
  }
  return {};
}

void Resources::add(const Resource& given) {
  if (!wellFormed(given) || isEmpty(given)) return;
  std::optional<Resource> upgraded;
  if (!canonical(given)) {
    if (!validateReservations(given)) return;
    upgraded = given;
    canonicalize(&*upgraded);
  }
  const Resource& resource = upgraded ? *upgraded : given;
  std::vector<Resource>& list = mutableList();
  for (auto& existing : list) {
    if (!sameKind(existing, resource)) continue;
    switch (resource.type()) {
      case Value::SCALAR:
        existing.mutable_scalar()->set_value(
            fromMillis(toMillis(existing.scalar().value()) + toMillis(resource.scalar().value())));
        break;
      case Value::RANGES: {
        auto merged = intervals(existing.ranges());
        auto more = intervals(resource.ranges());
        merged.insert(merged.end(), more.begin(), more.end());
        setIntervals(existing.mutable_ranges(), normalize(std::move(merged)));
        break;
      }
      case Value::SET: {
        auto merged = items(existing.set());
        merged.insert(resource.set().item().begin(), resource.set().item().end());
        setItems(existing.mutable_set(), merged);
        break;
      }
      default:
        break;
    }
    return;
  }
  Resource copy = resource;
  if (!copy.has_role()) copy.set_role(copy.role());  // make the default role explicit
  if (!canonical(copy)) canonicalize(&copy);
  switch (copy.type()) {
    case Value::SCALAR:
      copy.mutable_scalar()->set_value(fromMillis(toMillis(copy.scalar().value())));
      break;
    case Value::RANGES:
      setIntervals(copy.mutable_ranges(), normalize(intervals(copy.ranges())));
      break;
    case Value::SET:
      setItems(copy.mutable_set(), items(copy.set()));
      break;
    default:
      break;
  }
  list.push_back(std::move(copy));
}

void Resources::subtract(const Resource& given) {
  if (!wellFormed(given) || isEmpty(given)) return;
  std::optional<Resource> upgraded;
  if (!canonical(given)) {
    if (!validateReservations(given)) return;
    upgraded = given;
    canonicalize(&*upgraded);
  }
  const Resource& resource = upgraded ? *upgraded : given;
  std::vector<Resource>& list = mutableList();
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (!sameKind(*it, resource)) continue;
    bool empty = false;
    switch (resource.type()) {
      case Value::SCALAR: {
        int64_t left = toMillis(it->scalar().value()) - toMillis(resource.scalar().value());
        it->mutable_scalar()->set_value(fromMillis(std::max<int64_t>(left, 0)));
        empty = left <= 0;
        break;
      }
      case Value::RANGES: {
        auto left = difference(intervals(it->ranges()), normalize(intervals(resource.ranges())));
        setIntervals(it->mutable_ranges(), left);
        empty = left.empty();
        break;
      }
      case Value::SET: {
        auto left = items(it->set());
        for (const auto& item : resource.set().item()) left.erase(item);
        setItems(it->mutable_set(), left);
        empty = left.empty();
        break;
      }
      default:
        break;
    }
    if (empty) list.erase(it);
    return;
  }
}

bool Resources::contains(const Resources& that) const {
  if (list_ == that.list_) return true;  // one shared list: equal
  for (const auto& wanted : that.list()) {
    bool found = false;
    for (const auto& have : list()) {
      if (!sameKind(have, wanted)) continue;
      switch (wanted.type()) {
        case Value::SCALAR:
          found = toMillis(wanted.scalar().value()) <= toMillis(have.scalar().value());
          break;
        case Value::RANGES:
          found = subset(intervals(wanted.ranges()), intervals(have.ranges()));
          break;
        case Value::SET: {
          auto haveItems = items(have.set());
          found = std::all_of(wanted.set().item().begin(), wanted.set().item().end(),
                              [&](const std::string& item) { return haveItems.count(item) > 0; });
          break;
        }
        default:
          break;
      }
      break;
    }
    if (!found) return false;
  }
  return true;
}

double Resources::scalar(const std::string& name) const {
  int64_t millis = 0;
  for (const auto& resource : list()) {
    if (resource.name() == name && resource.type() == Value::SCALAR) {
      millis += toMillis(resource.scalar().value());
    }
  }
  return fromMillis(millis);
}

Value::Ranges Resources::ranges(const std::string& name) const {
  std::vector<Interval> all;
  for (const auto& resource : list()) {
    if (resource.name() == name && resource.type() == Value::RANGES) {
      auto more = intervals(resource.ranges());
      all.insert(all.end(), more.begin(), more.end());
    }
  }
  Value::Ranges out;
  setIntervals(&out, normalize(std::move(all)));
  return out;
}

Resources Resources::flatten(const std::string& role) const {
  Resources out;
  for (const auto& resource : list()) {
    Resource copy = resource;
    copy.set_role(role);
    copy.clear_reservation();
    copy.clear_reservations();
    out.add(copy);
  }
  return out;
}

Resources Resources::role(const std::string& role) const {
  Resources out;
  for (const auto& resource : list()) {
    if (resource.role() == role) out.mutableList().push_back(resource);
  }
  return out;
}

Resources Resources::allocatedTo(const std::string& role) const {
  bool same = std::all_of(list().begin(), list().end(), [&](const Resource& resource) {
    return resource.has_allocation_info() && resource.allocation_info().role() == role;
  });
  if (same) return *this;
  Resources out;
  for (const auto& resource : list()) {
    Resource copy = resource;
    copy.mutable_allocation_info()->set_role(role);
    out.add(copy);
  }
  return out;
}

Resources Resources::unallocated() const {
  bool none = std::none_of(list().begin(), list().end(), [](const Resource& resource) {
    return resource.has_allocation_info();
  });
  if (none) return *this;
  Resources out;
  for (const auto& resource : list()) {
    Resource copy = resource;
    copy.clear_allocation_info();
    out.add(copy);
  }
  return out;
}

std::string Resources::allocationRole() const {
  for (const auto& resource : list()) {
    if (resource.has_allocation_info()) return resource.allocation_info().role();
  }
  return {};
}

Resources Resources::allocatedOnlyTo(const std::string& role) const {
  Resources out;
  for (const auto& resource : list()) {
    if (resource.allocation_info().role() == role) out.mutableList().push_back(resource);
  }
  return out;
}

Resources Resources::operator+(const Resources& that) const {
  Resources out = *this;
  out += that;
  return out;
}

Resources Resources::operator-(const Resources& that) const {
  Resources out = *this;
  out -= that;
  return out;
}

Resources& Resources::operator+=(const Resources& that) {
  // Already merged and valid: into nothing, share it.
  if (empty()) {
    list_ = that.list_;
    return *this;
  }
  Resources more = that;  // (that may be *this)
  for (const auto& resource : more.list()) add(resource);
  return *this;
}

Resources& Resources::operator-=(const Resources& that) {
  Resources less = that;  // (that may be *this)
  for (const auto& resource : less.list()) subtract(resource);
  return *this;
}

const std::vector<Resource>& Resources::list() const {
  static const std::vector<Resource> kNone;
  return list_ ? *list_ : kNone;
}

std::vector<Resource>& Resources::mutableList() {
  if (!list_) {
    list_ = std::make_shared<std::vector<Resource>>();
  } else if (list_.use_count() > 1) {
    list_ = std::make_shared<std::vector<Resource>>(*list_);
  }
  return *list_;
}

bool Resources::operator==(const Resources& that) const {
  return size() == that.size() && contains(that) && that.contains(*this);
}

std::string Resources::toString() const {
  std::vector<const Resource*> sorted;
  for (const auto& resource : list()) sorted.push_back(&resource);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Resource* a, const Resource* b) {
    return std::make_tuple(a->name(), a->role(), static_cast<int>(a->type())) <
           std::make_tuple(b->name(), b->role(), static_cast<int>(b->type()));
  });
  std::string out;
  for (const Resource* resource : sorted) {
    if (!out.empty()) out += "; ";
    out += resource->name() + "(" + resource->role() + ")";
    if (resource->has_reservation()) out += "{" + resource->reservation().principal() + "}";
    if (resource->has_disk() && resource->disk().has_persistence()) {
      out += "[" + resource->disk().persistence().id() + "]";
    }
    if (resource->has_revocable()) out += "{REV}";
    out += ":" + formatValue(*resource);
  }
  return out;
}

google::protobuf::RepeatedPtrField<Resource> Resources::proto() const {
  google::protobuf::RepeatedPtrField<Resource> out;
  for (const auto& resource : list()) *out.Add() = resource;
  return out;
}

}  // namespace mesos
