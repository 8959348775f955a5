# The SDK as framework authors get it (docs/sdk.md): three shared libraries
# built from the objects of the static ones the daemons link, the public
# headers, a CMake package (find_package(Mesos): Mesos::sched, Mesos::exec)
# and mesos.pc for pkg-config.
#
#   libmesos.so        the actor runtime, the wire types, resources, the
#                      ZooKeeper client (everything both drivers need)
#   libmesos-sched.so  the scheduler driver (include/mesos/scheduler.hpp), with
#                      its CRAM-MD5 authenticatee (Cyrus SASL)
#   libmesos-exec.so   the executor driver (include/mesos/executor.hpp)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MESOS_SDK_CORE mesos_process mesos_common mesos_build mesos_proto mesos_zk)
set(MESOS_SDK_PARTS ${MESOS_SDK_CORE} mesos_sched mesos_authentication mesos_exec
  mesos_health_check)
# Their objects go into shared libraries too; the daemons link the same
# objects statically.
set_target_properties(${MESOS_SDK_PARTS} PROPERTIES POSITION_INDEPENDENT_CODE ON)
# Nobody interposes our symbols: let the compiler inline and optimise calls
# within a library as it does for the daemons' own (non-PIC) code.
foreach(part ${MESOS_SDK_PARTS})
  target_compile_options(${part} PRIVATE -fno-semantic-interposition)
endforeach()

function(mesos_sdk_objects target)
  foreach(part ${ARGN})
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:${part}>)
    add_dependencies(${target} ${part})
  endforeach()
endfunction()

set(MESOS_SDK_INCLUDES
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${CMAKE_BINARY_DIR}/proto>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/mesos>)

add_library(mesos SHARED)
mesos_sdk_objects(mesos ${MESOS_SDK_CORE})
target_include_directories(mesos INTERFACE ${MESOS_SDK_INCLUDES})
target_link_libraries(mesos
  PUBLIC protobuf::libprotobuf
  PRIVATE Boost::system OpenSSL::SSL OpenSSL::Crypto glog::glog Threads::Threads ${ZOOKEEPER_LIBRARY})

add_library(mesos-sched SHARED)
mesos_sdk_objects(mesos-sched mesos_sched mesos_authentication)
target_link_libraries(mesos-sched PUBLIC mesos PRIVATE glog::glog ${SASL2_LIBRARY})

add_library(mesos-exec SHARED)
mesos_sdk_objects(mesos-exec mesos_exec mesos_health_check)
target_link_libraries(mesos-exec PUBLIC mesos PRIVATE glog::glog)

foreach(library mesos mesos-sched mesos-exec)
  # Where the programs' RUNPATH ($ORIGIN/../lib, $ORIGIN/../../lib) finds
  # them in the build tree as in an installed prefix (CMakeLists.txt).
  set_target_properties(${library} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/${CMAKE_INSTALL_LIBDIR})
  # A library that misses a symbol fails here, not in a framework's link.
  target_link_options(${library} PRIVATE -Wl,--no-undefined)
  set_target_properties(${library} PROPERTIES
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
endforeach()
set_target_properties(mesos-sched PROPERTIES EXPORT_NAME sched)
set_target_properties(mesos-exec PROPERTIES EXPORT_NAME exec)
# The in-tree frameworks link the names an installed SDK gives.
add_library(Mesos::mesos ALIAS mesos)
add_library(Mesos::sched ALIAS mesos-sched)
add_library(Mesos::exec ALIAS mesos-exec)

install(TARGETS mesos mesos-sched mesos-exec EXPORT MesosTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT sdk)
file(GLOB MESOS_INSTALLED_HEADERS ${CMAKE_SOURCE_DIR}/include/mesos/*.hpp)
install(FILES ${MESOS_INSTALLED_HEADERS} ${CMAKE_BINARY_DIR}/proto/mesos.pb.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mesos COMPONENT sdk)
install(EXPORT MesosTargets NAMESPACE Mesos::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Mesos COMPONENT sdk)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/MesosConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/MesosConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Mesos)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/MesosConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/MesosConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake/MesosConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Mesos COMPONENT sdk)
# mesos.pc names the prefix relative to itself, so that it moves with it.
# `pkg-config --libs mesos` must make a program that starts: its Libs carry
# an rpath to the prefix's libraries (-Wl,-rpath,${libdir}), except where
# the loader looks by itself (/usr/lib for the Debian package). Which of the
# two is installed is decided at install time, for the prefix really used
# (cmake --install --prefix; /usr under cpack, which installs with DESTDIR).
file(RELATIVE_PATH MESOS_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" MESOS_PC_TO_PREFIX "${MESOS_PC_TO_PREFIX}")
set(MESOS_PC_RPATH "")
configure_file(${CMAKE_SOURCE_DIR}/cmake/mesos.pc.in ${CMAKE_BINARY_DIR}/cmake/mesos.pc @ONLY)
set(MESOS_PC_RPATH " -Wl,-rpath,\${libdir}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/mesos.pc.in ${CMAKE_BINARY_DIR}/cmake/rpath/mesos.pc
  @ONLY)
# The loader's own folders: CMake's implicit link folders (/lib, /usr/lib,
# /lib64...) and, on multiarch systems, /lib/<triplet> and /usr/lib/<triplet>.
set(MESOS_LOADER_DIRS ${CMAKE_PLATFORM_IMPLICIT_LINK_DIRECTORIES})
if(CMAKE_LIBRARY_ARCHITECTURE)
  list(APPEND MESOS_LOADER_DIRS
    /lib/${CMAKE_LIBRARY_ARCHITECTURE} /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE})
endif()
string(CONFIGURE [[
  set(libdir "${CMAKE_INSTALL_PREFIX}/@CMAKE_INSTALL_LIBDIR@")
  cmake_path(NORMAL_PATH libdir)
  set(loaderDirs "@MESOS_LOADER_DIRS@")
  list(FIND loaderDirs "${libdir}" found)
  if(NOT found EQUAL -1)
    set(pc "@CMAKE_BINARY_DIR@/cmake/mesos.pc")
  else()
    set(pc "@CMAKE_BINARY_DIR@/cmake/rpath/mesos.pc")
  endif()
  file(INSTALL DESTINATION "${libdir}/pkgconfig" TYPE FILE FILES "${pc}")
]] MESOS_INSTALL_PC @ONLY)
install(CODE "${MESOS_INSTALL_PC}" COMPONENT sdk)
