#include "elf/debug_files.h"
#include "gtest/gtest.h"

namespace perftk::elf {
namespace {

TEST(DebuglinkCrcTest, IsTheStandardCrc32) {
  EXPECT_EQ(DebuglinkCrc(0, "123456789"), 0xcbf43926u);  // the CRC-32 check value
  EXPECT_EQ(DebuglinkCrc(0, ""), 0u);
}

TEST(DebuglinkCrcTest, ContinuesAcrossPieces) {
  EXPECT_EQ(DebuglinkCrc(DebuglinkCrc(0, "1234"), "56789"), DebuglinkCrc(0, "123456789"));
}

}  // namespace
}  // namespace perftk::elf
