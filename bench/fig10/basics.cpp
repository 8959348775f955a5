#include "basics.hpp"

#include <signal.h>

#include <chrono>

namespace fig10 {

double wallTime() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

mesos::Resource scalar(const std::string& name, double value) {
  mesos::Resource resource;
  resource.set_name(name);
  resource.set_type(mesos::Value::SCALAR);
  resource.mutable_scalar()->set_value(value);
  return resource;
}

double scalarOf(const mesos::Offer& offer, const std::string& name) {
  double total = 0;
  for (const mesos::Resource& resource : offer.resources()) {
    if (resource.name() == name && resource.type() == mesos::Value::SCALAR) {
      total += resource.scalar().value();
    }
  }
  return total;
}

void onStopSignals(void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGHUP, &action, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
}

}  // namespace fig10
