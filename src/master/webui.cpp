// The web UI served by the master: "/" and its static files.
#include "master/master.hpp"

namespace mesos::internal::master {

void Master::installWebUi() {}

}  // namespace mesos::internal::master
