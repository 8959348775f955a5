// The slave's command-line flags, with Apache Mesos's names and defaults.
// Every flag can also come from the environment as MESOS_<NAME> (argv wins).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "authentication/http/security_flags.hpp"
#include "common/flags.hpp"
#include "process/upid.hpp"

namespace mesos::internal::slave {

struct Flags : mesos::flags::FlagSet {
  Flags();

  // Checks values that parse but make no sense (an unknown isolation, a
  // zero timeout). Names the flag and the fix.
  Result<void> validate() const override;

  std::optional<std::string> master;      // host:port, master@ip:port
  std::optional<std::string> ip;
  uint16_t port;
  std::optional<std::string> advertise_ip;
  std::optional<uint16_t> advertise_port;
  std::optional<std::string> hostname;
  std::string work_dir;
  std::optional<std::string> resources;
  std::string default_role;
  std::optional<std::string> attributes;
  std::string isolation;
  std::string cgroups_hierarchy;
  std::string cgroups_root;
  bool cgroups_enable_cfs;
  bool cgroups_limit_swap;
  mesos::flags::Duration container_disk_watch_interval;
  bool enforce_container_disk_quota;
  std::string xfs_project_range;
  // network/cni (docs/cni.md).
  std::string network_cni_config_dir;
  std::string network_cni_plugins_dir;
  bool network_cni_root_dir_persist;
  std::string containerizers;
  std::string launcher_dir;
  // The Docker containerizer (docs/docker-containerizer.md).
  std::string docker;
  std::string docker_socket;
  mesos::flags::Duration docker_stop_timeout;
  mesos::flags::Duration docker_remove_delay;
  bool docker_kill_orphans;
  // --containerizers, in order ("mesos", "docker").
  std::vector<std::string> containerizerList() const;
  mesos::flags::Duration executor_registration_timeout;
  mesos::flags::Duration executor_shutdown_grace_period;
  mesos::flags::Duration registration_backoff_factor;
  mesos::flags::Duration zk_session_timeout;
  bool switch_user;
  // Executor tokens (docs/security.md, "Executors").
  std::optional<std::string> executor_secret_key;
  bool authenticate_http_executors;
  // Recovery after a restart (docs/recovery.md).
  std::string recover;  // "reconnect" or "cleanup"
  mesos::flags::Duration recovery_timeout;
  bool strict;
  mesos::flags::Duration executor_reregistration_timeout;
  // Sandbox garbage collection.
  mesos::flags::Duration gc_delay;
  mesos::flags::Duration disk_watch_interval;
  double gc_disk_headroom;
  // The fetcher (docs/fetcher.md).
  mesos::flags::Bytes fetcher_cache_size;
  std::string fetcher_cache_dir;
  std::optional<std::string> hadoop_home;
  std::optional<std::string> frameworks_home;
  // Container images (docs/container-images.md).
  std::optional<std::string> image_providers;
  std::string image_provisioner_backend;
  std::string docker_registry;
  std::string docker_store_dir;
  std::optional<std::string> docker_config;
  // Automatic image garbage collection: an ImageGcConfig as JSON or a file
  // (parseImageGcConfig, slave/images.hpp). Unset: none.
  std::optional<std::string> image_gc_config;
  // Hardening (docs/security.md).
  std::optional<std::string> executor_environment_variables;
  std::optional<std::string> http_allowed_origins;
  // HTTP authentication and authorization (docs/security.md).
  authentication::HttpSecurityFlags security;
  // Authentication with the master (docs/security.md; slave/authentication.cpp).
  std::optional<std::string> credential;
  std::string authenticatee;
  mesos::flags::Duration authentication_backoff_factor;
  mesos::flags::Duration authentication_timeout_min;
  mesos::flags::Duration authentication_timeout_max;
  void addAuthenticationFlags();
  Result<void> validateAuthentication() const;
};

// The master's UPID from --master: "master@ip:port", "host:port" or
// "ip:port" (the actor id is then "master"; a host name is resolved, which
// blocks: call at start-up). ZooKeeper and file URLs are not addresses
// (zk::masterSource() sorts them out first).
Result<process::UPID> parseMaster(const std::string& text);

// The directory holding the running binary (where mesos-executor is
// installed next to mesos-slave); "." if it cannot be found.
std::string defaultLauncherDir();

}  // namespace mesos::internal::slave
