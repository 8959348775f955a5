// Pieces: small fragments copied into joined pieces, large ones shared, the
// text always in order; joined buffers go back to the pool when the last
// holder is gone, and past the copying budget small fragments are shared.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "master/pieces.hpp"

namespace mesos::test {
namespace {

using internal::master::Fragment;
using internal::master::Pieces;

Fragment text(std::string value) { return std::make_shared<const std::string>(std::move(value)); }

std::string joined(const std::vector<Fragment>& pieces) {
  std::string out;
  for (const Fragment& piece : pieces) out += *piece;
  return out;
}

TEST(PiecesTest, SmallFragmentsAreJoinedAndLargeOnesShared) {
  size_t before = Pieces::heldBytes();
  Fragment large = text(std::string(Pieces::kShareFrom, 'L'));
  std::string expected;
  std::vector<Fragment> pieces;
  {
    Pieces document;
    document.append("[");
    expected += "[";
    for (int i = 0; i < 300; ++i) {
      Fragment small = text("{\"task\":" + std::to_string(i) + std::string(500, ' ') + "}");
      if (i > 0) {
        document.append(",");
        expected += ",";
      }
      document.add(small);
      expected += *small;
      if (i == 150) {
        document.append(",");
        document.add(large);
        expected += "," + *large;
      }
    }
    document.append("]");
    expected += "]";
    pieces = document.take();
  }
  EXPECT_EQ(expected, joined(pieces));
  // ~150 KB of small fragments: a few joined pieces around the shared one.
  EXPECT_LE(pieces.size(), 6u);
  size_t shared = 0;
  for (const Fragment& piece : pieces) shared += piece == large ? 1 : 0;
  EXPECT_EQ(1u, shared);
  EXPECT_GT(Pieces::heldBytes(), before);
  pieces.clear();
  EXPECT_EQ(before, Pieces::heldBytes());
  EXPECT_GT(Pieces::pooledBytes(), 0u);
}

TEST(PiecesTest, PastTheCopyingBudgetSmallFragmentsAreShared) {
  // Hold joined pieces up to the budget.
  std::vector<Fragment> held;
  std::string filler(Pieces::kJoinedBytes, 'x');
  while (Pieces::heldBytes() < Pieces::kCopyingBytes) {
    Pieces document;
    document.append(filler);
    for (Fragment& piece : document.take()) held.push_back(std::move(piece));
  }
  Fragment small = text("{\"slave\":1}");
  Pieces document;
  document.append("[");
  document.add(small);
  document.append(",");
  document.add(small);
  document.append("]");
  std::vector<Fragment> pieces = document.take();
  EXPECT_EQ("[{\"slave\":1},{\"slave\":1}]", joined(pieces));
  ASSERT_EQ(5u, pieces.size());
  EXPECT_EQ(small, pieces[1]);  // shared, not copied
  EXPECT_EQ(small, pieces[3]);
  held.clear();
  // Below the budget again: copied.
  Pieces again;
  again.add(small);
  again.add(small);
  EXPECT_EQ(1u, again.take().size());
}

}  // namespace
}  // namespace mesos::test
