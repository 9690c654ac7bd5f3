// RunGuarded's hold on deletes: OpenCSD 1.3.3 writes to elements it has
// just deleted and deletes some twice (opencsd_guard.h). These tests do
// what it does, inside guarded calls, and check that the memory stays
// usable until the call (or the block scope) ends and is freed once.
//
// Deliberately touching deleted memory: not in sanitizer builds, whose own
// allocators hold freed memory back instead (and would report the touch).
#include "cs_etm/opencsd_guard.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

struct Element {
  uint64_t words[4];
};

// Allocations of Element's size after the guarded call: a block freed
// twice would come back twice from glibc's cache, or abort the process.
TEST(OpenCsdGuard, DeletesInAGuardedCallWaitForItsEnd) {
  if (!GuardHoldsDeletes()) GTEST_SKIP() << "a sanitizer's allocator holds freed memory itself";
  size_t held_inside = 0;
  uint64_t read_back = 0;
  const int signal = RunGuarded([&] {
    // Through volatile pointers, so that the compiler neither drops the
    // new/delete pair nor assumes deleted storage is never touched.
    Element* volatile element = new Element{};
    delete element;
    // What OpenCSD's commitElements does after a reset deleted the stack.
    Element* volatile stale = element;
    stale->words[3] = 0x5a5a;
    read_back = stale->words[3];
    delete stale;  // and a second delete of the same element
    held_inside = HeldByGuard();
  });
  EXPECT_EQ(signal, 0);
  EXPECT_EQ(read_back, 0x5a5au);
  EXPECT_EQ(held_inside, 2u);
  EXPECT_EQ(HeldByGuard(), 0u);
  // The block was freed once: two allocations of its size are two blocks.
  Element* volatile a = new Element{};
  Element* volatile b = new Element{};
  EXPECT_NE(a, b);
  delete a;
  delete b;
}

TEST(OpenCsdGuard, ABlockScopeHoldsDeletesAcrossGuardedCalls) {
  if (!GuardHoldsDeletes()) GTEST_SKIP() << "a sanitizer's allocator holds freed memory itself";
  Element* element = nullptr;
  {
    const OpenCsdBlockScope scope;
    EXPECT_EQ(RunGuarded([&] { element = new Element{}; }), 0);  // escapes: kept
    EXPECT_EQ(RunGuarded([&] { delete element; }), 0);
    EXPECT_EQ(HeldByGuard(), 1u);
    // Not freed yet: a new block of its size is another one.
    Element* volatile other = new Element{};
    EXPECT_NE(other, element);
    delete other;  // perftk's own delete, outside a guarded call: freed now
    EXPECT_EQ(HeldByGuard(), 1u);
  }
  EXPECT_EQ(HeldByGuard(), 0u);
}

TEST(OpenCsdGuard, PerftkCallbacksFreeAtOnce) {
  size_t held = 0;
  EXPECT_EQ(RunGuarded([&] {
              const PerftkCallbackScope callback;
              Element* volatile element = new Element{};
              delete element;
              held = HeldByGuard();
            }),
            0);
  EXPECT_EQ(held, 0u);
}

}  // namespace
}  // namespace perftk::cs_etm
