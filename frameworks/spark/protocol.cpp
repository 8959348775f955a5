#include "spark/protocol.hpp"

#include <nlohmann/json.hpp>

namespace mesos::frameworks::spark {

using nlohmann::json;

namespace {

// Parses `data` as a JSON object of type `type` (any type when empty);
// nullopt otherwise.
std::optional<json> parseObject(const std::string& data, const char* type) {
  json value = json::parse(data, nullptr, /*allow_exceptions=*/false);
  if (!value.is_object()) return std::nullopt;
  if (type != nullptr) {
    auto it = value.find("type");
    if (it == value.end() || !it->is_string() || it->get<std::string>() != type) {
      return std::nullopt;
    }
  }
  return value;
}

PartialResult partialFrom(const json& value) {
  PartialResult partial;
  partial.gradient = value.at("gradient").get<std::vector<double>>();
  partial.loss = value.at("loss").get<double>();
  partial.points = value.at("points").get<uint64_t>();
  partial.correct = value.at("correct").get<uint64_t>();
  partial.referenceCorrect = value.at("reference_correct").get<uint64_t>();
  return partial;
}

}  // namespace

std::string encode(const PartitionTask& task) {
  return json{{"type", "partition"}, {"root", task.root},   {"file", task.file},
              {"partition", task.partition}, {"dims", task.dims}, {"cache", task.cache},
              {"drop_every", task.dropEvery}}
      .dump();
}

std::string encode(const ComputeRequest& request) {
  return json{{"type", "compute"},
              {"iteration", request.iteration},
              {"weights", request.weights},
              {"reference", request.reference},
              {"partitions", request.partitions}}
      .dump();
}

std::string encode(const Ack& ack) {
  return json{{"type", "ack"}, {"iteration", ack.iteration}, {"partitions", ack.partitions}}
      .dump();
}

std::string encode(const PartitionResult& result) {
  return json{{"type", "result"},
              {"iteration", result.iteration},
              {"partition", result.partition},
              {"gradient", result.partial.gradient},
              {"loss", result.partial.loss},
              {"points", result.partial.points},
              {"correct", result.partial.correct},
              {"reference_correct", result.partial.referenceCorrect},
              {"loaded", result.loaded},
              {"remote", result.remote},
              {"load_ms", result.loadMs},
              {"compute_ms", result.computeMs}}
      .dump();
}

std::string encode(const PartitionFailure& failure) {
  return json{{"type", "failed"},
              {"iteration", failure.iteration},
              {"partition", failure.partition},
              {"message", failure.message}}
      .dump();
}

std::optional<PartitionTask> decodePartitionTask(const std::string& data) {
  try {
    auto value = parseObject(data, "partition");
    if (!value) return std::nullopt;
    PartitionTask task;
    task.root = value->at("root").get<std::string>();
    task.file = value->at("file").get<std::string>();
    task.partition = value->at("partition").get<uint32_t>();
    task.dims = value->at("dims").get<uint32_t>();
    task.cache = value->at("cache").get<bool>();
    task.dropEvery = value->value("drop_every", 0u);
    return task;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::optional<ComputeRequest> decodeComputeRequest(const std::string& data) {
  try {
    auto value = parseObject(data, "compute");
    if (!value) return std::nullopt;
    ComputeRequest request;
    request.iteration = value->at("iteration").get<uint64_t>();
    request.weights = value->at("weights").get<std::vector<double>>();
    request.reference = value->at("reference").get<std::vector<double>>();
    request.partitions = value->at("partitions").get<std::vector<uint32_t>>();
    return request;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::optional<ExecutorMessage> decodeExecutorMessage(const std::string& data) {
  try {
    auto value = parseObject(data, nullptr);
    if (!value || !value->contains("type")) return std::nullopt;
    const std::string type = value->at("type").get<std::string>();
    ExecutorMessage message;
    if (type == "ack") {
      Ack ack;
      ack.iteration = value->at("iteration").get<uint64_t>();
      ack.partitions = value->at("partitions").get<std::vector<uint32_t>>();
      message.ack = std::move(ack);
    } else if (type == "result") {
      PartitionResult result;
      result.iteration = value->at("iteration").get<uint64_t>();
      result.partition = value->at("partition").get<uint32_t>();
      result.partial = partialFrom(*value);
      result.loaded = value->at("loaded").get<bool>();
      result.remote = value->at("remote").get<bool>();
      result.loadMs = value->at("load_ms").get<double>();
      result.computeMs = value->at("compute_ms").get<double>();
      message.result = std::move(result);
    } else if (type == "failed") {
      PartitionFailure failure;
      failure.iteration = value->at("iteration").get<uint64_t>();
      failure.partition = value->at("partition").get<uint32_t>();
      failure.message = value->at("message").get<std::string>();
      message.failure = std::move(failure);
    } else {
      return std::nullopt;
    }
    return message;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace mesos::frameworks::spark
