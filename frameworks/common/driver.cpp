#include "common/driver.hpp"

#include <cstdlib>
#include <iostream>

namespace mesos::frameworks {

std::unique_ptr<MesosSchedulerDriver> schedulerDriver(Scheduler* scheduler,
                                                      FrameworkInfo framework,
                                                      const std::string& master,
                                                      const std::string& program,
                                                      bool implicitAcknowledgements) {
  if (std::getenv("MESOS_AUTHENTICATE") == nullptr) {
    return std::make_unique<MesosSchedulerDriver>(scheduler, framework, master,
                                                  implicitAcknowledgements);
  }
  const char* principal = std::getenv("DEFAULT_PRINCIPAL");
  const char* secret = std::getenv("DEFAULT_SECRET");
  if (principal == nullptr || secret == nullptr) {
    std::cerr << program << ": MESOS_AUTHENTICATE is set but "
              << (principal == nullptr ? "DEFAULT_PRINCIPAL" : "DEFAULT_SECRET")
              << " is not: set the principal and secret to authenticate with" << std::endl;
    std::exit(1);
  }
  std::cerr << program << ": authenticating with the master as principal '" << principal << "'"
            << std::endl;
  Credential credential;
  credential.set_principal(principal);
  credential.set_secret(secret);
  framework.set_principal(principal);
  return std::make_unique<MesosSchedulerDriver>(scheduler, framework, master,
                                                implicitAcknowledgements, credential);
}

}  // namespace mesos::frameworks
