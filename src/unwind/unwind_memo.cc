#include "unwind/unwind_memo.h"

#include <algorithm>
#include <bit>

namespace perftk::unwind {

void UnwindMemo::Reset(uint64_t maps_generation, uint64_t epoch) {
  maps_generation_ = maps_generation;
  epoch_ = epoch;
  row_size_ = 0;
  states_.clear();
  rows_.clear();
  reads_.clear();
  frames_.clear();
  ending_ = Ending{};
  usable_ = false;
}

void UnwindMemo::AddState(uint64_t pc, const RegisterSet& known, const RegisterSet& set,
                          std::span<const uint64_t> values) {
  if (row_size_ == 0) row_size_ = values.size();
  State& state = states_.emplace_back();
  state.pc = pc;
  state.first_read = reads_.size();
  state.resumable = !values.empty() && values.size() == row_size_;
  if (!state.resumable) return;
  state.known = known;
  state.set = set;
  state.row = rows_.size();
  rows_.insert(rows_.end(), values.begin(), values.end());
}

size_t UnwindMemo::FindPc(uint64_t pc, size_t from) const {
  for (size_t i = from; i < states_.size(); ++i) {
    if (states_[i].pc == pc && states_[i].resumable) return i;
  }
  return states_.size();
}

bool UnwindMemo::Resumable(size_t state) const {
  const State& s = states_[state];
  return s.resumable && s.depends.SubsetOf(s.known);
}

bool UnwindMemo::Agrees(size_t index, const RegisterSet& known, const RegisterSet& set,
                        std::span<const uint64_t> values) const {
  const State& state = states_[index];
  if (values.size() != row_size_ || !Resumable(index) || !state.depends.SubsetOf(known)) {
    return false;
  }
  const uint64_t* theirs = rows_.data() + state.row;
  for (size_t w = 0; w < 2; ++w) {
    const uint64_t needed = state.depends.word(w);
    if (((state.set.word(w) ^ set.word(w)) & needed) != 0) return false;
    // Registers past the row are never set: agreeing on "unset" was enough.
    for (uint64_t bits = needed & set.word(w); bits != 0; bits &= bits - 1) {
      const size_t regno = w * 64 + static_cast<size_t>(std::countr_zero(bits));
      if (regno < values.size() && values[regno] != theirs[regno]) return false;
    }
  }
  return true;
}

std::span<UnwindMemo::Read> UnwindMemo::StepReads(size_t state) {
  const size_t first = states_[state].first_read;
  const size_t end = state + 1 < states_.size() ? states_[state + 1].first_read : reads_.size();
  return std::span<Read>(reads_.data() + first, end - first);
}

std::span<const UnwindMemo::Read> UnwindMemo::ReadsFrom(size_t state) const {
  const size_t first = states_[state].first_read;
  return std::span<const Read>(reads_.data() + first, reads_.size() - first);
}

void UnwindMemo::AppendTail(const UnwindMemo& other, size_t state) {
  if (row_size_ == 0) row_size_ = other.row_size_;
  const size_t read_shift = reads_.size();
  const size_t first_read = other.states_[state].first_read;
  for (size_t i = state; i < other.states_.size(); ++i) {
    const State& theirs = other.states_[i];
    State& ours = states_.emplace_back(theirs);
    ours.first_read = theirs.first_read - first_read + read_shift;
    ours.resumable = theirs.resumable && other.row_size_ == row_size_;
    if (ours.resumable) {
      ours.row = rows_.size();
      const auto begin = other.rows_.begin() + static_cast<ptrdiff_t>(theirs.row);
      rows_.insert(rows_.end(), begin, begin + static_cast<ptrdiff_t>(row_size_));
    }
  }
  reads_.insert(reads_.end(), other.reads_.begin() + static_cast<ptrdiff_t>(first_read),
                other.reads_.end());
  ending_ = other.ending_;
}

}  // namespace perftk::unwind
