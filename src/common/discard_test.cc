#include "common/discard.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tarn {
namespace {

TEST(DiscardError, CountsAndHandsEachDroppedErrorToTheSink) {
  std::vector<std::string> seen;
  DiscardSink previous = SetDiscardSink([&](const Status& st, std::string_view what) {
    seen.push_back(std::string(what) + ": " + st.message());
  });
  const int64_t before = DiscardedErrors();
  DiscardError(Status::OK(), "nothing");
  DiscardError(Status::IOError("disk gone"), "deleting x");
  DiscardError(Result<int>(Status::NotFound("no y")), "reading y");
  DiscardError(Result<int>(7), "reading z");
  EXPECT_EQ(DiscardedErrors() - before, 2);
  EXPECT_EQ(seen, (std::vector<std::string>{"deleting x: disk gone", "reading y: no y"}));
  SetDiscardSink(std::move(previous));
  DiscardError(Status::IOError("unseen"), "after");  // no sink: only counted
  EXPECT_EQ(seen.size(), 2u);
  EXPECT_EQ(DiscardedErrors() - before, 3);
}

}  // namespace
}  // namespace tarn
