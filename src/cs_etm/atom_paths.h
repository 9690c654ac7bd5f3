// Atom packets seen before in a block of trace, and the packets their atoms
// made: what the fast decoder replays instead of following the atoms again.
//
// A trace repeats itself: in a block of zlib's trace 11.5 million atom
// packets are 11.5 thousand distinct (address, atoms) pairs, in Lua's 37.7
// million are 16.8 thousand. From the same address, context and atoms, and
// the same code (one block of trace: the memo of code blocks, the model),
// the atoms that the decoder follows through remembered code blocks make
// the same ranges and leave the same state. Following them is a chain of
// lookups, each waiting for the address the one before computed; a replay
// is one lookup and a copy.
//
// A path holds the atoms of a packet that were followed that way, a prefix
// of the packet's (the rest take the long way each time), the packets they
// made (context and timestamp are the replay's), the ranges whose end went
// on the return stack, and where the trace was left. Direct-mapped; the
// packets live in one pool, bounded, that never moves and only grows within
// a block (a kPath packet points into it until the next block): when it is
// full no more paths are kept until Clear.
#ifndef PERFTK_CS_ETM_ATOM_PATHS_H_
#define PERFTK_CS_ETM_ATOM_PATHS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cs_etm/a64_branch.h"
#include "cs_etm/packet.h"

namespace perftk::cs_etm {

// Where an atom packet started: what its atoms' paths depend on.
struct AtomPathKey {
  uint64_t start = 0;  // the address the first atom follows from
  uint32_t bits = 0;   // the atoms, oldest in bit 0: 1 executed (E), 0 not (N)
  uint8_t count = 0;   // of atoms in the packet
  int8_t el = 0;       // of the context
  int32_t pid = 0;
  bool operator==(const AtomPathKey&) const = default;
};

// The decoder's state after a path.
struct AtomPathEnd {
  uint64_t address = 0;  // of the next instruction to trace from
  uint64_t target = 0;   // the last instruction's direct target
  A64Instruction last;   // the last instruction walked
  bool need_address = false;
  bool pop_pending = false;  // the return stack's
};

class AtomPaths {
 public:
  struct Path {
    AtomPathKey key;
    uint32_t generation = 0;  // 0: empty
    uint8_t atoms = 0;        // the prefix of the key's atoms it replays
    uint8_t packets = 0;      // in the pool from `first`
    uint32_t first = 0;
    uint64_t pushes = 0;  // bit i: packet i's end went on the return stack
    AtomPathEnd end;
  };

  // Packets of at most this many atoms are kept; each atom makes at most
  // two (a range and, on ETE, an exception return), so `pushes` covers them.
  static constexpr uint8_t kMaxAtoms = 32;
  static constexpr size_t kSlots = 1024;
  static constexpr size_t kMaxPackets = 8192;  // in the pool

  AtomPaths() : slots_(kSlots) { pool_.reserve(kMaxPackets); }

  // The path of `key`, or null.
  const Path* Find(const AtomPathKey& key) const {
    const Path& path = slots_[SlotOf(key)];
    return path.generation == generation_ && path.key == key ? &path : nullptr;
  }
  std::span<const Packet> PacketsOf(const Path& path) const {
    return std::span<const Packet>(pool_).subspan(path.first, path.packets);
  }
  // Keeps what following `atoms` (>= 1) atoms of `key` made; replaces the
  // path in its slot (its packets stay in the pool). Does nothing for a key
  // of more than kMaxAtoms atoms, or when the pool is full.
  void Store(const AtomPathKey& key, uint8_t atoms, std::span<const Packet> packets,
             uint64_t pushes, const AtomPathEnd& end) {
    if (key.count > kMaxAtoms || packets.size() > 2 * size_t{kMaxAtoms}) return;
    if (pool_.size() + packets.size() > kMaxPackets) return;
    Path& path = slots_[SlotOf(key)];
    path = Path{key,
                generation_,
                atoms,
                static_cast<uint8_t>(packets.size()),
                static_cast<uint32_t>(pool_.size()),
                pushes,
                end};
    pool_.insert(pool_.end(), packets.begin(), packets.end());
  }
  // Forgets every path (a new block: the code or the model may be
  // another's now); the packets of kPath packets made before are gone.
  void Clear() {
    pool_.clear();
    if (++generation_ == 0) {  // wrapped: empty every slot for real
      std::fill(slots_.begin(), slots_.end(), Path{});
      generation_ = 1;
    }
  }
  size_t pooled_packets() const { return pool_.size(); }

 private:
  static size_t SlotOf(const AtomPathKey& key) {
    const uint64_t mixed =
        (key.start >> 2) ^ (uint64_t{key.bits} * 0x9e3779b97f4a7c15u) ^ key.count;
    return (mixed ^ (mixed >> 29)) & (kSlots - 1);
  }

  std::vector<Path> slots_;
  std::vector<Packet> pool_;
  uint32_t generation_ = 1;  // slots start at 0: empty
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_ATOM_PATHS_H_
