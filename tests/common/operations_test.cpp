// Reservations in their two forms (include/mesos/resources.hpp) and the
// conversions of offer operations (common/operations.hpp), on their own.
#include <gtest/gtest.h>

#include "common/operations.hpp"

namespace mesos::test {
namespace {

Resource scalar(const std::string& name, double value) {
  Resource resource;
  resource.set_name(name);
  resource.set_type(Value::SCALAR);
  resource.mutable_scalar()->set_value(value);
  return resource;
}

Resource::ReservationInfo reservation(Resource::ReservationInfo::Type type,
                                      const std::string& role, const std::string& principal = "") {
  Resource::ReservationInfo out;
  out.set_type(type);
  out.set_role(role);
  if (!principal.empty()) out.set_principal(principal);
  return out;
}

TEST(ReservationFormsTest, TheOlderFormAndTheStackAreOneResource) {
  Resource older = scalar("cpus", 2);
  older.set_role("eng");
  older.mutable_reservation()->set_principal("ops");
  Resource stack = scalar("cpus", 1);
  *stack.add_reservations() = reservation(Resource::ReservationInfo::DYNAMIC, "eng", "ops");
  Resources sum = Resources(older) + Resources(stack);
  ASSERT_EQ(1u, sum.size());
  const Resource& merged = *sum.begin();
  EXPECT_EQ(3, merged.scalar().value());
  EXPECT_EQ("eng", merged.role());
  EXPECT_EQ("ops", merged.reservation().principal());
  ASSERT_EQ(1, merged.reservations_size());
  EXPECT_EQ(Resource::ReservationInfo::DYNAMIC, merged.reservations(0).type());

  // A role without a reservation is STATIC.
  Resource fixed = scalar("mem", 64);
  fixed.set_role("eng");
  Resources statically(fixed);
  ASSERT_EQ(1, statically.begin()->reservations_size());
  EXPECT_EQ(Resource::ReservationInfo::STATIC, statically.begin()->reservations(0).type());
  EXPECT_FALSE(Resources::isDynamicallyReserved(*statically.begin()));
  // And differs from the dynamic reservation of the same role.
  Resource dynamic = scalar("mem", 64);
  dynamic.set_role("eng");
  dynamic.mutable_reservation()->set_principal("ops");
  EXPECT_FALSE(statically.contains(Resources(dynamic)));
}

TEST(ReservationFormsTest, ValidationNamesADisagreementAndABadStack) {
  Resource both = scalar("cpus", 1);
  both.set_role("prod");
  *both.add_reservations() = reservation(Resource::ReservationInfo::DYNAMIC, "eng", "ops");
  auto valid = Resources::validate(both);
  ASSERT_FALSE(valid);
  EXPECT_NE(std::string::npos, valid.error().message.find("role 'prod' is not the role of its"));

  Resource unrefined = scalar("cpus", 1);
  *unrefined.add_reservations() = reservation(Resource::ReservationInfo::STATIC, "eng");
  *unrefined.add_reservations() = reservation(Resource::ReservationInfo::DYNAMIC, "prod", "ops");
  valid = Resources::validate(unrefined);
  ASSERT_FALSE(valid);
  EXPECT_NE(std::string::npos, valid.error().message.find("does not refine 'eng'"));

  Resource untyped = scalar("cpus", 1);
  untyped.add_reservations()->set_role("eng");
  EXPECT_FALSE(Resources::validate(untyped));

  Resource starred = scalar("cpus", 1);
  starred.mutable_reservation()->set_principal("ops");
  EXPECT_FALSE(Resources::validate(starred));
  // Nor does a Resources take what validation refuses.
  EXPECT_TRUE(Resources(both).empty());
}

TEST(ReservationFormsTest, RefinementPushesAndPops) {
  Resource base = scalar("cpus", 1);
  base.set_role("eng");
  Resource refined = Resources::pushReservation(
      base, reservation(Resource::ReservationInfo::DYNAMIC, "eng/backend", "ops"));
  EXPECT_TRUE(Resources::validate(refined));
  EXPECT_EQ("eng/backend", refined.role());
  EXPECT_EQ(2, refined.reservations_size());
  Resource back = Resources::popReservation(refined);
  EXPECT_TRUE(Resources(back) == Resources(base));
  EXPECT_EQ("*", Resources::popReservation(back).role());

  Resource framework = refined;
  Resources::toFrameworkFormat(&framework, true);
  EXPECT_FALSE(framework.has_role());
  EXPECT_EQ(2, framework.reservations_size());
  // Read back, it is the same resource.
  EXPECT_TRUE(Resources(framework) == Resources(refined));
}

Offer::Operation operation(Offer::Operation::Type type, const Resources& resources) {
  Offer::Operation out;
  out.set_type(type);
  for (const Resource& resource : resources) {
    switch (type) {
      case Offer::Operation::RESERVE: *out.mutable_reserve()->add_resources() = resource; break;
      case Offer::Operation::UNRESERVE: *out.mutable_unreserve()->add_resources() = resource; break;
      case Offer::Operation::CREATE: *out.mutable_create()->add_volumes() = resource; break;
      default: *out.mutable_destroy()->add_volumes() = resource; break;
    }
  }
  return out;
}

Resource reservedDisk(double mb) {
  Resource disk = scalar("disk", mb);
  disk.set_role("eng");
  disk.mutable_reservation()->set_principal("ops");
  return disk;
}

Resource volumeOf(double mb, const std::string& id, const std::string& path = "data") {
  Resource volume = reservedDisk(mb);
  volume.mutable_disk()->mutable_persistence()->set_id(id);
  volume.mutable_disk()->mutable_volume()->set_container_path(path);
  volume.mutable_disk()->mutable_volume()->set_mode(Volume::RW);
  return volume;
}

TEST(OperationConversionTest, ReserveCreateDestroyUnreserveComeBackToThePool) {
  Resources pool = Resources::parse("cpus:4;disk:1000").value();
  auto reserve = operations::conversion(operation(Offer::Operation::RESERVE, reservedDisk(400)));
  ASSERT_TRUE(reserve) << reserve.error().message;
  auto reserved = operations::apply(pool, *reserve);
  ASSERT_TRUE(reserved);
  EXPECT_EQ(600, reserved->role("*").scalar("disk"));

  auto create = operations::conversion(operation(Offer::Operation::CREATE, volumeOf(100, "v1")));
  ASSERT_TRUE(create) << create.error().message;
  auto created = operations::apply(*reserved, *create);
  ASSERT_TRUE(created);
  EXPECT_TRUE(operations::hasVolume(*created, "eng", "v1"));
  EXPECT_EQ(1000, created->scalar("disk"));
  // What a slave checkpoints: the reserved disk and the volume.
  EXPECT_EQ(400, operations::checkpointable(*created).scalar("disk"));
  // Applied to what the slave was started with, it gives the same total.
  auto recovered = operations::applyCheckpointed(pool, operations::checkpointable(*created));
  ASSERT_TRUE(recovered) << recovered.error().message;
  EXPECT_TRUE(*recovered == *created) << recovered->toString() << " vs " << created->toString();

  auto unreserveVolume =
      operations::conversion(operation(Offer::Operation::UNRESERVE, volumeOf(100, "v1")));
  ASSERT_FALSE(unreserveVolume);
  EXPECT_NE(std::string::npos, unreserveVolume.error().message.find("DESTROY it first"));

  auto destroy = operations::conversion(operation(Offer::Operation::DESTROY, volumeOf(100, "v1")));
  ASSERT_TRUE(destroy);
  auto destroyed = operations::apply(*created, *destroy);
  ASSERT_TRUE(destroyed);
  EXPECT_FALSE(operations::hasVolume(*destroyed, "eng", "v1"));
  auto unreserve = operations::conversion(operation(Offer::Operation::UNRESERVE, reservedDisk(400)));
  ASSERT_TRUE(unreserve);
  auto back = operations::apply(*destroyed, *unreserve);
  ASSERT_TRUE(back);
  EXPECT_TRUE(*back == pool) << back->toString();
}

// A framework with RESERVATION_REFINEMENT writes the volume's role in
// `reservations` only, with no `role`.
TEST(OperationConversionTest, AVolumeWrittenAsAReservationStackIsCreatedAndDestroyed) {
  Resource disk = scalar("disk", 100);
  *disk.add_reservations() = reservation(Resource::ReservationInfo::DYNAMIC, "eng", "ops");
  Resource volume = disk;
  volume.mutable_disk()->mutable_persistence()->set_id("v1");
  volume.mutable_disk()->mutable_volume()->set_container_path("data");
  volume.mutable_disk()->mutable_volume()->set_mode(Volume::RW);

  // As sent, not through Resources (which would give it a role).
  Offer::Operation creating;
  creating.set_type(Offer::Operation::CREATE);
  *creating.mutable_create()->add_volumes() = volume;
  Offer::Operation destroying;
  destroying.set_type(Offer::Operation::DESTROY);
  *destroying.mutable_destroy()->add_volumes() = volume;

  auto create = operations::conversion(creating);
  ASSERT_TRUE(create) << create.error().message;
  auto created = operations::apply(Resources(disk), *create);
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_TRUE(operations::hasVolume(*created, "eng", "v1")) << created->toString();
  auto destroy = operations::conversion(destroying);
  ASSERT_TRUE(destroy) << destroy.error().message;
  auto destroyed = operations::apply(*created, *destroy);
  ASSERT_TRUE(destroyed) << destroyed.error().message;
  EXPECT_TRUE(*destroyed == Resources(disk)) << destroyed->toString();
}

TEST(OperationConversionTest, BadVolumesAndShortPoolsSayWhy) {
  Resource unreserved = volumeOf(10, "v");
  unreserved.clear_role();
  unreserved.clear_reservation();
  Resource escape = volumeOf(10, "v", "../../etc");
  Resource absolute = volumeOf(10, "v", "/data");
  Resource slash = volumeOf(10, "a/b");
  for (const auto& [volume, words] : std::vector<std::pair<Resource, std::string>>{
           {unreserved, "not reserved"},
           {escape, "must not leave the sandbox"},
           {absolute, "must be relative"},
           {slash, "must not hold '/'"}}) {
    auto conversion = operations::conversion(operation(Offer::Operation::CREATE, volume));
    ASSERT_FALSE(conversion) << words;
    EXPECT_NE(std::string::npos, conversion.error().message.find(words))
        << conversion.error().message;
  }
  Offer::Operation twice = operation(Offer::Operation::CREATE, volumeOf(10, "v"));
  *twice.mutable_create()->add_volumes() = volumeOf(10, "v", "other");
  auto doubled = operations::conversion(twice);
  ASSERT_FALSE(doubled);
  EXPECT_NE(std::string::npos, doubled.error().message.find("twice"));

  auto reserve = operations::conversion(operation(Offer::Operation::RESERVE, reservedDisk(400)));
  ASSERT_TRUE(reserve);
  auto short_ = operations::apply(Resources::parse("disk:100").value(), *reserve);
  ASSERT_FALSE(short_);
  EXPECT_NE(std::string::npos, short_.error().message.find("needs disk(*):400")) << short_.error().message;

  auto lost = operations::applyCheckpointed(Resources::parse("disk:100").value(),
                                            Resources(reservedDisk(400)));
  ASSERT_FALSE(lost);
  EXPECT_NE(std::string::npos, lost.error().message.find("no longer hold"));

  Offer::Operation unknown;
  auto refused = operations::conversion(unknown);
  ASSERT_FALSE(refused);
  EXPECT_NE(std::string::npos, refused.error().message.find("unknown operation type"));
}

}  // namespace
}  // namespace mesos::test
