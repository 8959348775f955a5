// Layers, the store and the backends with hand-made layers: whiteouts in
// overlayfs's form and applied by the copy backend, path traversal refused,
// pins and gc, and provisioning that leaves nothing mounted.
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include <gtest/gtest.h>

#include "slave/containerizer/provisioner/backends/backend.hpp"
#include "slave/containerizer/provisioner/backends/overlay.hpp"
#include "slave/containerizer/provisioner/docker/digest.hpp"
#include "slave/containerizer/provisioner/docker/puller.hpp"
#include "slave/containerizer/provisioner/layer_archive.hpp"
#include "slave/containerizer/provisioner/provisioner.hpp"
#include "slave/containerizer/provisioner/store.hpp"
#include "slave/containerizer/rootfs.hpp"
#include "containerizer/provisioner/image_helpers.hpp"
#include "containerizer/provisioner/store_fixture.hpp"

namespace mesos::internal::slave::provisioner {
namespace {

using testing::readText;
using testing::ScratchDir;
using testing::TarEntry;
using testing::tarOf;
using testing::writeText;

bool exists(const std::string& path) {
  struct stat stats {};
  return ::lstat(path.c_str(), &stats) == 0;
}

class LayerStoreTest : public testing::StoreTest {
 protected:
  // Extracting `entries` fails; returns the error.
  std::string refused(const std::vector<TarEntry>& entries) {
    std::string file = scratch_.path() + "/bad.tar";
    writeText(file, tarOf(entries));
    std::string rootfs = scratch_.path() + "/bad-rootfs";
    std::filesystem::create_directories(rootfs);
    auto extracted = extractLayer(file, rootfs);
    EXPECT_FALSE(extracted.ok());
    std::filesystem::remove_all(rootfs);
    return extracted.ok() ? "" : extracted.error().message;
  }

  // A base layer with /d/{a,b}, /gone and /kept, and a top layer that
  // makes /d opaque (adding /d/c) and deletes /gone.
  StoredImage whiteoutImage() {
    std::string base = addLayer({{"d/", '5', "", "", 0755},
                                 {"d/a", '0', "a"},
                                 {"d/b", '0', "b"},
                                 {"gone", '0', "gone"},
                                 {"kept", '0', "kept"}});
    std::string top = addLayer(
        {{"d/", '5', "", "", 0755}, {"d/.wh..wh..opq", '0'}, {"d/c", '0', "c"}, {".wh.gone", '0'}});
    return addImage("test/whiteouts:latest", {base, top});
  }

  void expectWhiteoutsApplied(const std::string& rootfs) {
    EXPECT_FALSE(exists(rootfs + "/gone"));
    EXPECT_EQ("kept", readText(rootfs + "/kept"));
    EXPECT_FALSE(exists(rootfs + "/d/a"));
    EXPECT_FALSE(exists(rootfs + "/d/b"));
    EXPECT_EQ("c", readText(rootfs + "/d/c"));
    EXPECT_FALSE(exists(rootfs + "/d/.wh..wh..opq"));
    EXPECT_FALSE(exists(rootfs + "/.wh.gone"));
  }
};

TEST_F(LayerStoreTest, WhiteoutsAreStoredInOverlayfsForm) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod and trusted.* xattrs need root";
  StoredImage image = whiteoutImage();
  std::string top = store_->layerRootfs(image.layers[1]);
  struct stat stats {};
  ASSERT_EQ(0, ::lstat((top + "/gone").c_str(), &stats));
  EXPECT_TRUE(S_ISCHR(stats.st_mode));
  EXPECT_EQ(0u, major(stats.st_rdev));
  EXPECT_EQ(0u, minor(stats.st_rdev));
  char value[4] = {0};
  EXPECT_EQ(1, ::lgetxattr((top + "/d").c_str(), kOpaqueXattr, value, sizeof(value)));
  EXPECT_EQ('y', value[0]);
  EXPECT_FALSE(exists(top + "/.wh.gone"));
  EXPECT_FALSE(exists(top + "/d/.wh..wh..opq"));
}

TEST_F(LayerStoreTest, CopyBackendAppliesWhiteouts) {
  StoredImage image = whiteoutImage();
  auto provisioner = Provisioner::create("copy");
  ASSERT_TRUE(provisioner.ok()) << provisioner.error().message;
  std::string dir = scratch_.path() + "/containers/c1";
  auto rootfs = provisioner->provision(*store_, image, dir);
  ASSERT_TRUE(rootfs.ok()) << rootfs.error().message;
  expectWhiteoutsApplied(*rootfs);
  ASSERT_TRUE(provisioner->destroy(dir).ok());
  EXPECT_FALSE(exists(dir));
}

TEST_F(LayerStoreTest, OverlayBackendAppliesWhiteoutsAndUnmountsOnDestroy) {
  if (!OverlayBackend::supported()) GTEST_SKIP() << "overlayfs needs root and kernel support";
  StoredImage image = whiteoutImage();
  auto provisioner = Provisioner::create("overlay");
  ASSERT_TRUE(provisioner.ok()) << provisioner.error().message;
  std::string dir = scratch_.path() + "/containers/c1";
  auto rootfs = provisioner->provision(*store_, image, dir);
  ASSERT_TRUE(rootfs.ok()) << rootfs.error().message;
  EXPECT_EQ(1u, mountsBelow(dir).size());
  expectWhiteoutsApplied(*rootfs);

  // Writes go to the container's upper directory, not to the store.
  writeText(*rootfs + "/kept", "changed");
  EXPECT_EQ("kept", readText(store_->layerRootfs(image.layers[0]) + "/kept"));

  ASSERT_TRUE(provisioner->destroy(dir).ok());
  EXPECT_TRUE(mountsBelow(scratch_.path()).empty());
  EXPECT_EQ(std::string::npos, readText("/proc/self/mountinfo").find(dir));
  EXPECT_FALSE(exists(dir));
}

// For the slave, the overlay backend mounts nothing on the host: it leaves
// the options for the launch helper (rootfs_test.cpp mounts them).
TEST_F(LayerStoreTest, OverlayBackendForAContainerMountsNothingHere) {
  if (!OverlayBackend::supported()) GTEST_SKIP() << "overlayfs needs root and kernel support";
  StoredImage image = whiteoutImage();
  auto provisioner = Provisioner::create("overlay", true);
  ASSERT_TRUE(provisioner.ok()) << provisioner.error().message;
  std::string dir = scratch_.path() + "/containers/c1";
  auto rootfs = provisioner->provision(*store_, image, dir);
  ASSERT_TRUE(rootfs.ok()) << rootfs.error().message;
  EXPECT_TRUE(mountsBelow(scratch_.path()).empty());
  const std::string options = readText(overlayOptionsFile(*rootfs));
  EXPECT_EQ(0u, options.find("lowerdir=" + dir + "/links/1:" + dir + "/links/0,upperdir=" + dir +
                             "/upper,workdir=" + dir + "/work"))
      << options;
  struct stat info {};
  ASSERT_EQ(0, ::stat(overlayOptionsFile(*rootfs).c_str(), &info));
  EXPECT_EQ(0644u, info.st_mode & 07777);
  ASSERT_TRUE(provisioner->destroy(dir).ok());
  EXPECT_FALSE(exists(dir));
}

// Removing a root filesystem never reaches into what is mounted below it:
// the mount goes, what it showed stays.
TEST_F(LayerStoreTest, DestroyUnmountsWhatIsMountedBelowAndKeepsItsFiles) {
  if (::geteuid() != 0) GTEST_SKIP() << "bind mounts need root";
  std::string precious = scratch_.path() + "/precious";
  writeText(precious + "/data", "keep me");
  std::string dir = scratch_.path() + "/containers/c1";
  writeText(dir + "/upper/volume/.keep", "");
  writeText(dir + "/upper/file", "mine");
  ASSERT_EQ(0,
            ::mount(precious.c_str(), (dir + "/upper/volume").c_str(), nullptr, MS_BIND, nullptr));
  ASSERT_EQ(1u, mountsBelow(dir).size());
  ASSERT_TRUE(destroyRootfs(dir).ok());
  EXPECT_FALSE(exists(dir));
  EXPECT_TRUE(mountsBelow(scratch_.path()).empty());
  EXPECT_EQ("keep me", readText(precious + "/data"));
}

TEST_F(LayerStoreTest, BindBackendMountsOneLayerReadOnly) {
  if (::geteuid() != 0) GTEST_SKIP() << "bind mounts need root";
  std::string layer = addLayer({{"etc/", '5', "", "", 0755}, {"etc/hello", '0', "hello"}});
  StoredImage image = addImage("test/one:latest", {layer});
  auto provisioner = Provisioner::create("bind");
  ASSERT_TRUE(provisioner.ok()) << provisioner.error().message;
  std::string dir = scratch_.path() + "/containers/c1";
  auto rootfs = provisioner->provision(*store_, image, dir);
  ASSERT_TRUE(rootfs.ok()) << rootfs.error().message;
  EXPECT_EQ("hello", readText(*rootfs + "/etc/hello"));
  int fd = ::open((*rootfs + "/etc/new").c_str(), O_WRONLY | O_CREAT, 0644);
  EXPECT_EQ(-1, fd);
  EXPECT_EQ(EROFS, errno);
  if (fd >= 0) ::close(fd);
  ASSERT_TRUE(provisioner->destroy(dir).ok());
  EXPECT_TRUE(mountsBelow(scratch_.path()).empty());
  EXPECT_EQ("hello", readText(store_->layerRootfs(layer) + "/etc/hello"));

  StoredImage two = whiteoutImage();
  auto refused = provisioner->provision(*store_, two, dir);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(std::string::npos, refused.error().message.find("single-layer"))
      << refused.error().message;
  EXPECT_FALSE(exists(dir));
}

TEST_F(LayerStoreTest, UnknownBackendIsRefused) {
  auto provisioner = Provisioner::create("aufs");
  ASSERT_FALSE(provisioner.ok());
  EXPECT_NE(std::string::npos, provisioner.error().message.find("aufs"));
  auto chosen = Provisioner::create("");
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(OverlayBackend::supported() ? "overlay" : "copy", chosen->backend());
}

TEST_F(LayerStoreTest, PathTraversalIsRefused) {
  EXPECT_NE(std::string::npos, refused({{"../evil", '0', "x"}}).find("'../evil'"));
  EXPECT_FALSE(exists(scratch_.path() + "/evil"));
  EXPECT_NE(std::string::npos, refused({{"a/../../evil", '0', "x"}}).find(".."));
  EXPECT_NE(std::string::npos, refused({{"/abs", '0', "x"}}).find("absolute"));

  std::string escape = refused({{"link", '2', "", scratch_.path()}, {"link/evil", '0', "x"}});
  EXPECT_NE(std::string::npos, escape.find("symbolic link 'link'")) << escape;
  EXPECT_FALSE(exists(scratch_.path() + "/evil"));

  std::string hardlink = refused({{"h", '1', "", "../../etc/passwd"}});
  EXPECT_NE(std::string::npos, hardlink.find("hard link")) << hardlink;

  // Absolute symbolic links are normal in images (resolved inside the
  // container): they are kept as they are.
  std::string id = addLayer({{"bin/", '5', "", "", 0755}, {"bin/sh", '2', "", "/bin/busybox"}});
  char target[64] = {0};
  ASSERT_GT(::readlink((store_->layerRootfs(id) + "/bin/sh").c_str(), target, sizeof(target)), 0);
  EXPECT_STREQ("/bin/busybox", target);
}

TEST_F(LayerStoreTest, ConcurrentCommitsOfOneLayerKeepTheFirst) {
  std::string id = docker::sha256Of("layer");
  auto first = store_->makeStaging();
  auto second = store_->makeStaging();
  ASSERT_TRUE(first.ok() && second.ok());
  writeText(*first + "/rootfs/file", "first");
  writeText(*second + "/rootfs/file", "second");
  ASSERT_TRUE(store_->commitLayer(id, *first).ok());
  ASSERT_TRUE(store_->commitLayer(id, *second).ok());
  EXPECT_EQ("first", readText(store_->layerRootfs(id) + "/file"));
  EXPECT_FALSE(exists(*second));
}

TEST_F(LayerStoreTest, GcKeepsPinnedLayersAndRemovesTheRest) {
  std::string shared = addLayer({{"shared", '0', "s"}});
  std::string onlyA = addLayer({{"a", '0', "a"}});
  std::string onlyB = addLayer({{"b", '0', "b"}});
  StoredImage a = addImage("r/a:latest", {shared, onlyA});
  StoredImage b = addImage("r/b:latest", {shared, onlyB});
  ASSERT_TRUE(store_->pin("container-1", a.reference).ok());
  auto missing = store_->pin("container-2", "r/none:latest");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(std::string::npos, missing.error().message.find("r/none:latest"));

  // A restarted slave opens the store again: the pin is on disk.
  auto reopened = Store::open(store_->directory());
  ASSERT_TRUE(reopened.ok());
  auto pins = reopened->pins();
  ASSERT_TRUE(pins.ok());
  EXPECT_EQ((std::map<std::string, std::string>{{"container-1", a.reference}}), *pins);

  auto report = reopened->gc();
  ASSERT_TRUE(report.ok()) << report.error().message;
  EXPECT_EQ(std::vector<std::string>{b.reference}, report->images);
  EXPECT_EQ(std::vector<std::string>{onlyB}, report->layers);
  EXPECT_TRUE(store_->hasLayer(shared));
  EXPECT_TRUE(store_->hasLayer(onlyA));
  EXPECT_FALSE(store_->hasLayer(onlyB));
  EXPECT_FALSE(store_->find(b.reference)->has_value());
  EXPECT_TRUE(store_->find(a.reference)->has_value());

  // Nothing more to remove while the pin holds; everything once it goes.
  auto again = store_->gc();
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->layers.empty());
  ASSERT_TRUE(store_->unpin("container-1").ok());
  ASSERT_TRUE(store_->unpin("container-1").ok());
  auto last = store_->gc();
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(std::vector<std::string>{a.reference}, last->images);
  EXPECT_EQ(2u, last->layers.size());
  EXPECT_FALSE(store_->hasLayer(shared));
}

TEST_F(LayerStoreTest, GcKeepsImagesItIsToldToKeep) {
  std::string layer = addLayer({{"x", '0', "x"}});
  StoredImage image = addImage("r/keep:latest", {layer});
  auto report = store_->gc({image.reference});
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->images.empty());
  EXPECT_TRUE(store_->hasLayer(layer));
}

}  // namespace
}  // namespace mesos::internal::slave::provisioner
