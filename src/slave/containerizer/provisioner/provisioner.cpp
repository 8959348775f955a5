#include "slave/containerizer/provisioner/provisioner.hpp"

#include <vector>

#include "slave/containerizer/provisioner/backends/bind.hpp"
#include "slave/containerizer/provisioner/backends/copy.hpp"
#include "slave/containerizer/provisioner/backends/overlay.hpp"

namespace mesos::internal::slave::provisioner {

Result<Provisioner> Provisioner::create(const std::string& backend, bool mountInContainer) {
  std::string name = backend;
  if (name.empty()) name = OverlayBackend::supported() ? "overlay" : "copy";
  if (name == "overlay") {
    if (!OverlayBackend::supported()) {
      return Error{
          "--image_provisioner_backend=overlay needs root and a kernel with overlayfs; "
          "use copy"};
    }
    return Provisioner(name, std::make_unique<OverlayBackend>(mountInContainer));
  }
  if (name == "copy") return Provisioner(name, std::make_unique<CopyBackend>());
  if (name == "bind") return Provisioner(name, std::make_unique<BindBackend>());
  return Error{"unknown --image_provisioner_backend '" + backend + "' (overlay, copy or bind)"};
}

Result<std::string> Provisioner::provision(const Store& store, const StoredImage& image,
                                           const std::string& directory) const {
  std::vector<std::string> layers;
  for (const std::string& layer : image.layers) {
    if (!store.hasLayer(layer)) {
      return Error{"layer " + layer + " of '" + image.reference + "' is not in the store"};
    }
    layers.push_back(store.layerRootfs(layer));
  }
  auto rootfs = backend_->provision(layers, directory);
  if (!rootfs) {
    (void)destroyRootfs(directory);
    return Error{"cannot provision '" + image.reference + "' with the " + name_ +
                 " backend: " + rootfs.error().message};
  }
  return rootfs;
}

Result<void> Provisioner::destroy(const std::string& directory) const {
  return destroyRootfs(directory);
}

}  // namespace mesos::internal::slave::provisioner
