# What `cmake --install` puts where (docs/sdk.md), and the Debian package
# `cpack -G DEB` makes of it. The frameworks install their own programs
# (frameworks/*/CMakeLists.txt).
#   sbin/            the daemons
#   bin/             mesos-local and the tools
#   libexec/mesos/   what the slave and the frameworks start: executors and
#                    helpers (the slave's default --launcher_dir)
#   lib/             the SDK libraries, its CMake package and mesos.pc
#   lib/mesos/       the example allocator module
install(TARGETS mesos-master mesos-slave mesos-agent
  RUNTIME DESTINATION ${CMAKE_INSTALL_SBINDIR} COMPONENT runtime)
install(TARGETS mesos-local mesos-execute test-framework
    mesos-ps mesos-cat mesos-tail mesos-resolve
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(TARGETS mesos-executor mesos-docker-executor mesos-containerizer mesos-fetcher mesos-provisioner test-executor
  RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/mesos COMPONENT runtime)
install(TARGETS mesos_fifo_allocator
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/mesos COMPONENT runtime)

set(CPACK_PACKAGE_NAME mesos)
set(CPACK_PACKAGE_VENDOR "the mesos project")
set(CPACK_PACKAGE_CONTACT "mesos developers <dev@mesos.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "Cluster manager: master and slave daemons, the scheduler and executor SDK, and frameworks")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
# Depends: from the libraries the binaries link (dpkg-shlibdeps), plus what
# the SDK's headers and the tools need at run time.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR})
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libprotobuf-dev, protobuf-compiler")
include(CPack)
