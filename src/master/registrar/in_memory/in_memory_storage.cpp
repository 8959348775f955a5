// --registry=in_memory: nothing is stored; a restarted or newly elected
// master starts from an empty registry (as Apache Mesos's in_memory, for
// tests and throwaway clusters).
#include "master/registrar/storage.hpp"

namespace mesos::internal::master::registrar {

namespace {

class InMemoryStorage : public Storage {
 public:
  std::string describe() const override { return "memory (nothing outlives the master)"; }
  bool durable() const override { return false; }
  process::Future<Result<Contents>> recover(uint32_t shards) override {
    return Result<Contents>(Contents{std::vector<std::string>(shards), {}});
  }
  process::Future<Result<process::Nothing>> write(std::vector<std::pair<uint32_t, std::string>>,
                                                  Nodes) override {
    return Result<process::Nothing>(process::Nothing{});
  }
};

}  // namespace

std::unique_ptr<Storage> inMemoryStorage() { return std::make_unique<InMemoryStorage>(); }

}  // namespace mesos::internal::master::registrar
