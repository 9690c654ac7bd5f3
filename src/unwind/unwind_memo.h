// What the unwinding of one sample did, state by state, so that the next
// sample of the same thread can take over the frames it shares with it.
//
// libdw steps from a frame's state (its pc, every register set or not, and
// whether it is the first frame or follows a signal frame) to its caller's,
// reading memory through our callback. The frames above a state are thus a
// function of that state and of what the reads return. When a later sample
// reaches a state equal to a recorded one (an ordinary frame in both), and
// its own memory answers every read the recorded unwinding made from there
// on with the same outcome and value, libdw would find the same frames from
// there, and end the same way: they are taken over, not unwound again. The
// outermost frames of a thread (main, its loops, the thread's start) come
// back sample after sample, and are unwound once.
//
// "Equal" states agree on the pc and on the registers the rest of the
// unwinding reads (set or not, and their values; step_uses.h finds them):
// other registers, such as a caller-saved one libdw carries up as the same
// value from the sample's registers, differ from sample to sample and do not
// matter.
//
// The memo is only right for the Dwfl and the mappings it was made with:
// the owner keeps it with the maps' generation and its Dwfl's epoch, and
// uses it only while both are unchanged.
#ifndef PERFTK_UNWIND_UNWIND_MEMO_H_
#define PERFTK_UNWIND_UNWIND_MEMO_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "unwind/step_uses.h"

namespace perftk::unwind {

class UnwindMemo {
 public:
  // A memory read of the unwinding, as our callback answered it.
  struct Read {
    uint64_t addr = 0;
    uint64_t value = 0;  // 0 when !ok
    bool ok = false;
    // Whether the rest of the unwinding depends on the value (a register
    // saved there that nothing later reads does not).
    bool matters = true;
  };
  // How the unwinding ended after its last frame.
  struct Ending {
    bool last_module_ready = true;  // the last frame's pc had its module
    bool guess_dropped = false;     // a frame libdw guessed without CFI was dropped
    int result = 0;                 // dwfl_getthread_frames's result
  };

  // Starts a memo for an unwinding with the given validity stamps. Keeps
  // the buffers.
  void Reset(uint64_t maps_generation, uint64_t epoch);

  uint64_t maps_generation() const { return maps_generation_; }
  uint64_t epoch() const { return epoch_; }

  // Adds state `states()` (its frame, if found, is frame `states()` too),
  // before any read made to step from it. A resumable state (an ordinary
  // frame: not the first, not after a signal frame) comes with its
  // registers: those `known`, which of them are set, and the values of
  // registers 0 .. n - 1 (the same n for every state of a memo; only known
  // ones count); others with no values.
  void AddState(uint64_t pc, const RegisterSet& known, const RegisterSet& set,
                std::span<const uint64_t> values);
  void AddRead(const Read& read) { reads_.push_back(read); }
  size_t states() const { return states_.size(); }

  // The first resumable state at or after `from` with this pc; states()
  // when there is none.
  size_t FindPc(uint64_t pc, size_t from = 0) const;
  // Whether `state` has these registers where it depends on them (all of
  // them known on both sides).
  bool Agrees(size_t state, const RegisterSet& known, const RegisterSet& set,
              std::span<const uint64_t> values) const;
  // Whether all registers `state` depends on are known (else it is not
  // resumable).
  bool Resumable(size_t state) const;
  // The registers of a state the rest of the unwinding depends on (all until
  // set otherwise).
  const RegisterSet& depends(size_t state) const { return states_[state].depends; }
  void set_depends(size_t state, const RegisterSet& depends) { states_[state].depends = depends; }
  // The reads made after state `state` was reached.
  std::span<const Read> ReadsFrom(size_t state) const;
  // The reads of the step from state `state` to the next.
  std::span<Read> StepReads(size_t state);

  // Appends `other`'s states and reads from its state `state` on, and
  // its ending (the frames are the caller's, in step with the states).
  void AppendTail(const UnwindMemo& other, size_t state);

  // The frames found (frame i from state i) and how the unwinding ended;
  // usable says whether a later sample may take over from it (not when the
  // unwinding stopped at a depth limit: the frames above it are unknown).
  std::vector<uint64_t>& frames() { return frames_; }
  const std::vector<uint64_t>& frames() const { return frames_; }
  Ending& ending() { return ending_; }
  const Ending& ending() const { return ending_; }
  bool usable() const { return usable_; }
  void set_usable(bool usable) { usable_ = usable; }

 private:
  struct State {
    uint64_t pc = 0;
    RegisterSet known;
    RegisterSet set;
    RegisterSet depends = RegisterSet::All();
    size_t row = 0;         // index of its first value in rows_, if resumable
    size_t first_read = 0;  // reads_ index of the first read made after it was reached
    bool resumable = false;
  };

  uint64_t maps_generation_ = 0;
  uint64_t epoch_ = 0;
  size_t row_size_ = 0;
  std::vector<State> states_;
  std::vector<uint64_t> rows_;
  std::vector<Read> reads_;
  std::vector<uint64_t> frames_;
  Ending ending_;
  bool usable_ = false;
};

}  // namespace perftk::unwind

#endif  // PERFTK_UNWIND_UNWIND_MEMO_H_
