#include "cs_etm/etm4_decoder.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "cs_etm/a64_branch.h"

namespace perftk::cs_etm {
namespace {

using T = Etm4PacketType;
using Kind = Etm4Decoder::Step;

constexpr uint64_t kTopOfAddressSpace = ~uint64_t{0} - 0xffff;  // the last 64 KiB

constexpr uint32_t kTrcConfigReturnStack = 1u << 12;
constexpr uint32_t kTrcConfigQElements = 3u << 13;
constexpr uint32_t kTrcIdr0TimestampMarkers = 1u << 23;    // ETE TSMARK
constexpr uint32_t kTrcIdr0CommitTransactions = 1u << 30;  // ETE COMMTRANS

bool IsAtomPacket(Etm4PacketType type) {
  return type == T::kAtomF1 || type == T::kAtomF2 || type == T::kAtomF3 || type == T::kAtomF4 ||
         type == T::kAtomF5 || type == T::kAtomF6;
}

}  // namespace

Etm4Decoder::Etm4Decoder(const TraceSource& source, uint8_t trace_id,
                         DecodeEnvironment& environment, CodeReader& code, CodeBlockCache& blocks)
    : trace_id_(trace_id),
      pid_format_(source.pid_format()),
      max_spec_depth_(static_cast<int>(source.trcidr8)),
      features_(FeaturesOf(source)),
      ete_(source.protocol == TraceProtocol::kEte),
      timestamps_after_marker_(ete_ && Etm4Config::For(source).version() >= 0x51 &&
                               (source.trcidr0 & kTrcIdr0TimestampMarkers) != 0),
      transaction_start_p0_(ete_ && (source.trcidr0 & kTrcIdr0CommitTransactions) == 0),
      environment_(environment),
      code_(code),
      blocks_(blocks),
      block_memo_(kBlockMemoSize) {
  return_stack_.active = (source.trcconfigr & kTrcConfigReturnStack) != 0;
  ResetState();
}

bool Etm4Decoder::Supports(const TraceSource& source) {
  if (source.protocol != TraceProtocol::kEtmV4 && source.protocol != TraceProtocol::kEte) {
    return false;
  }
  const Etm4Config config = Etm4Config::For(source);
  const bool lsp0 = (source.trcconfigr & 0x6) != 0;
  return !config.data_trace && !config.conditional_trace && !lsp0 &&
         (source.trcconfigr & kTrcConfigQElements) == 0 && !config.m_profile;
}

A64TraceFeatures Etm4Decoder::FeaturesOf(const TraceSource& source) {
  // OpenCSD decodes ETE as an Armv8.3+ core's (perftk gives it ARCH_AA64),
  // ETMv4 as TRCIDR1's version says.
  const bool armv8_3 = source.protocol == TraceProtocol::kEte || ((source.trcidr1 >> 4) & 0xf) >= 4;
  return A64TraceFeatures{.armv8_3 = armv8_3,
                          .wfi_wfe_branches = Etm4Config::For(source).wfi_wfe_branches};
}

void Etm4Decoder::StartBlock(const PacketContext& seed) {
  context_ = seed;
  cs_timestamp_ = 0;
  last_span_ = CodeSpan{};              // the address spaces may have changed
  if (++block_memo_generation_ == 0) {  // wrapped: empty every entry for real
    std::fill(block_memo_.begin(), block_memo_.end(), BlockMemo{});
    block_memo_generation_ = 1;
  }
  atom_paths_.Clear();
  ResetState();
}

void Etm4Decoder::Reset() { ResetState(); }

void Etm4Decoder::ResetState() {
  state_ = State::kNoSync;
  is_64bit_ = false;
  spec_depth_ = 0;
  need_context_ = true;
  need_address_ = true;
  pending_address_ = false;
  previous_overflow_ = false;
  timestamp_marker_seen_ = false;
  stack_.clear();
  last_isa_bit_ = 0;
  resolution_ = Resolution{};
}

Etm4Decoder::Step Etm4Decoder::Decode(const Etm4Packet& packet, std::vector<Packet>& out) {
  if (packet.type == T::kTraceInfo && packet.spec_depth > uint32_t{INT32_MAX}) {
    // A depth OpenCSD holds as negative: it commits nothing for 2^31 atoms
    // and is not given the block (waiting_elements.h).
    ++decode_errors_;
    return NotFollowed("a trace info saying 2^31 or more elements are speculative");
  }
  switch (state_) {
    case State::kNoSync:
      Emit(PacketKind::kDiscontinuity, out);
      state_ = State::kWaitSync;
      [[fallthrough]];
    case State::kWaitSync:
      if (packet.type == T::kAsync) state_ = State::kWaitTraceInfo;
      return Kind::kDone;
    case State::kWaitTraceInfo:
      // (ETE's early events and a trace info's TSTATE make elements that
      // perftk ignores, and that never stand between others: not kept.)
      need_context_ = true;
      need_address_ = true;
      if (packet.type == T::kTraceInfo) {
        spec_depth_ = static_cast<int>(packet.spec_depth);
        state_ = State::kDecode;
        return_stack_.Flush();
      }
      return Kind::kDone;
    case State::kDecode:
      break;
  }
  switch (packet.type) {
    case T::kQ:
    case T::kIte:
    case T::kNumberedDataSync:
    case T::kUnnumberedDataSync:
    case T::kNotSync:
      return NotFollowed("a packet the fast decoder does not read");
    default:
      break;
  }
  if (IsAtomPacket(packet.type) && packet.atom_count > 0 && !resolution_.any() &&
      spec_depth_ == max_spec_depth_ && !stack_.has_committable()) {
    // Pushed, then committed at once by the speculation limit, after the
    // addresses, contexts and the like waiting for it: the common case
    // without speculation. (An atom packet without atoms stays on the
    // stack: it takes the long way.)
    if (!stack_.empty()) {
      for (const Element& element : stack_) CommitMarker(element, out);
      stack_.clear();
    }
    return CommitAtomsAtOnce(packet, out);
  }
  DecodePacket(packet);
  if (stack_.size() > kMaxWaiting) {
    ++decode_errors_;
    return NotFollowed("more trace elements wait for a commit than a block of real trace holds");
  }
  if (state_ != State::kDecode || !resolution_.any()) return Kind::kDone;
  if (Resolve(out) == Kind::kNotFollowed) return Kind::kNotFollowed;
  if (state_ == State::kNoSync) {
    // A discard or overflow: OpenCSD says at once that sync is lost, and
    // this packet (not an A-sync) leaves it waiting for one.
    Emit(PacketKind::kDiscontinuity, out);
    state_ = State::kWaitSync;
  }
  return Kind::kDone;
}

// A commit or cancel count as the resolution holds it. A continuation
// field of 5 bytes can say up to 2^32 - 1 elements (corrupt trace does):
// as an int that would be negative, a count that cancels nothing and
// raises the speculation depth. Past INT_MAX it is more elements than any
// stack holds, which Commit and Cancel report as a decode error.
static int ElementCount(uint32_t count) {
  return count > uint32_t{INT32_MAX} ? INT32_MAX : static_cast<int>(count);
}

void Etm4Decoder::DecodePacket(const Etm4Packet& packet) {
  bool is_address = false;
  auto push = [&](Element::Kind kind, bool p0) -> Element& { return stack_.Push(kind, p0); };
  auto push_atoms = [&] {
    Element& element = push(Element::Kind::kAtoms, true);
    element.atom_bits = packet.atom_bits;
    element.atom_count = packet.atom_count;
    spec_depth_ += packet.atom_count;
  };
  auto push_context = [&] {
    Element& element = push(Element::Kind::kContext, false);
    element.context = packet.context;
    element.isa = last_isa_bit_;
  };
  auto push_address = [&] {
    last_isa_bit_ = packet.isa;
    Element& element = push(Element::Kind::kAddress, false);
    element.address = packet.address;
    element.isa = packet.isa;
    is_address = true;
  };
  switch (packet.type) {
    case T::kAsync:
    case T::kIgnore:
    case T::kFunctionReturn:  // a data trace hint on M profiles only
      break;
    case T::kTraceInfo:  // later trace infos only empty the return stack
      return_stack_.Flush();
      break;
    case T::kTraceOn:
      push(Element::Kind::kTraceOn, false);
      break;
    case T::kAtomF1:
    case T::kAtomF2:
    case T::kAtomF3:
    case T::kAtomF4:
    case T::kAtomF5:
    case T::kAtomF6:
      push_atoms();
      break;
    case T::kContext:
      push_context();
      break;
    case T::kAddressContext32Is0:
    case T::kAddressContext32Is1:
    case T::kAddressContext64Is0:
    case T::kAddressContext64Is1:
      last_isa_bit_ = packet.isa;
      push_context();
      push_address();
      break;
    case T::kAddressMatch:
    case T::kShortAddressIs0:
    case T::kShortAddressIs1:
    case T::kLongAddress32Is0:
    case T::kLongAddress32Is1:
    case T::kLongAddress64Is0:
    case T::kLongAddress64Is1:
      push_address();
      break;
    case T::kException: {
      Element& element = push(Element::Kind::kException, true);
      element.exception_number = packet.exception_type;
      element.branch_target = packet.address_interpretation == 0x2;
      pending_address_ = true;  // counted once its address comes
      break;
    }
    case T::kExceptionReturn:
      push(Element::Kind::kExceptionReturn, false);
      break;
    case T::kEvent:
      push(Element::Kind::kEvent, false);
      break;
    case T::kCycleCountF1:
    case T::kCycleCountF2:
    case T::kCycleCountF3:
      push(Element::Kind::kCycleCount, false);
      break;
    case T::kTimestamp:
      push(Element::Kind::kTimestamp, false).timestamp = packet.timestamp;
      break;
    case T::kTimestampMarker:
      push(Element::Kind::kTimestampMarker, false);
      break;
    case T::kTransactionStart:
      push(Element::Kind::kTransaction, transaction_start_p0_);
      spec_depth_ += transaction_start_p0_;
      break;
    case T::kTransactionCommit:
    case T::kTransactionFail:
      push(Element::Kind::kTransaction, false);
      break;
    case T::kSourceAddressMatch:
    case T::kSourceShortAddressIs0:
    case T::kSourceShortAddressIs1:
    case T::kSourceLongAddress32Is0:
    case T::kSourceLongAddress32Is1:
    case T::kSourceLongAddress64Is0:
    case T::kSourceLongAddress64Is1:
      // Not an address the trace goes to: no pending exception is
      // satisfied, the instruction set bit is not kept.
      push(Element::Kind::kSourceAddress, false).address = packet.address;
      ++spec_depth_;
      break;
    case T::kMispredict:
    case T::kCancelF1Mispredict:
    case T::kCancelF2:
    case T::kCancelF3:
      resolution_.mispredict = true;
      if (packet.atom_count > 0) push_atoms();
      resolution_.cancel = ElementCount(packet.cancel);
      break;
    case T::kCancelF1:
      resolution_.cancel = ElementCount(packet.cancel);
      break;
    case T::kCommit:
      resolution_.commit = ElementCount(packet.commit);
      break;
    case T::kOverflow:
      previous_overflow_ = true;
      [[fallthrough]];
    case T::kDiscard:
      spec_depth_ = 0;
      resolution_.discard = true;
      break;
    default:  // errors, and ETE's PE reset (OpenCSD 1.3.3 knows no element
              // for it): the trace is lost until the next A-sync
      BadPacket();
      return;
  }
  if (is_address && pending_address_) {
    ++spec_depth_;  // the exception that waited for it
    pending_address_ = false;
  }
  if (spec_depth_ > max_spec_depth_) resolution_.commit = spec_depth_ - max_spec_depth_;
}

void Etm4Decoder::BadPacket() {
  ++bad_packets_;
  ResetState();
}

Etm4Decoder::Step Etm4Decoder::Resolve(std::vector<Packet>& out) {
  Result result = Result::kOk;
  if (resolution_.commit > 0) result = Commit(out);
  if (result == Result::kOk && resolution_.cancel > 0) result = Cancel();
  if (result == Result::kOk && resolution_.mispredict) result = Mispredict();
  if (result == Result::kOk && resolution_.discard) Discard(out);
  return StepAfter(result);
}

Etm4Decoder::Step Etm4Decoder::StepAfter(Result result) {
  if (result == Result::kNotFollowed) return Kind::kNotFollowed;
  if (result == Result::kError) {
    // OpenCSD goes on from the next A-sync, but which of the elements it
    // made before the error it still sends depends on more than this
    // decoder models (measured on 1.3.3: a context made before an atom's
    // range survives an overrun, the range does not): OpenCSD decodes it.
    ++decode_errors_;
    return NotFollowed(error_why_);
  }
  return Kind::kDone;
}

Etm4Decoder::Result Etm4Decoder::Mispredict() {
  resolution_.mispredict = false;
  // OpenCSD looks for the newest atom with an iterator over its stack (a
  // std::deque, newest first) and erases the addresses it passes without
  // moving the iterator back. libstdc++'s erase shifts the shorter side:
  // for an address in the older half (at size / 2 or more from the
  // newest), the older elements move one place up and the iterator misses
  // the element just older than the address, which is then neither
  // flipped nor erased. For the oldest address, the iterator is left past
  // the end and OpenCSD reads whatever memory lies there.
  size_t newer = 0;  // elements newer than the one looked at
  while (newer < stack_.size()) {
    const size_t size = stack_.size();
    const auto it = stack_.end() - 1 - static_cast<std::ptrdiff_t>(newer);
    if (it->kind == Element::Kind::kAtoms) {
      if (it->atom_count > 0) it->atom_bits ^= uint32_t{1} << (it->atom_count - 1);
      return Result::kOk;
    }
    if (it->kind != Element::Kind::kAddress) {
      ++newer;
      continue;
    }
    if (newer + 1 == size) {
      NotFollowed("a mispredict that reads past OpenCSD's stack");
      return Result::kNotFollowed;
    }
    stack_.erase(it);
    if (newer >= size / 2) ++newer;  // the element after the address is skipped
  }
  // No atom: OpenCSD 1.3.3 then reports an error or not depending on a
  // member it never initializes (m_unseen_spec_elem), so the block is its.
  return Error("a mispredict without an atom");
}

Etm4Decoder::Result Etm4Decoder::Commit(std::vector<Packet>& out) {
  const int requested = resolution_.commit;
  while (resolution_.commit > 0) {
    if (stack_.empty()) return Error("more commits than elements");
    Element& element = stack_.front();
    bool pop = true;
    switch (element.kind) {
      case Element::Kind::kAtoms:
        while (element.atom_count > 0 && resolution_.commit > 0) {
          const bool taken = element.atom_bits & 1;
          element.atom_bits >>= 1;
          --element.atom_count;
          if (const Result r = CommitAtom(taken, out); r != Result::kOk) return r;
          --resolution_.commit;
        }
        pop = element.atom_count == 0;
        break;
      case Element::Kind::kException:
        if (const Result r = PopPendingReturn(); r != Result::kOk) return r;
        if (const Result r = ProcessException(out); r != Result::kOk) return r;
        --resolution_.commit;
        break;
      case Element::Kind::kSourceAddress:  // no return stack pop first
        if (const Result r = ProcessSourceAddress(element.address, out); r != Result::kOk) {
          return r;
        }
        --resolution_.commit;
        break;
      case Element::Kind::kTransaction:
        resolution_.commit -= element.p0;
        break;
      default:
        CommitMarker(element, out);
        break;
    }
    if (pop) stack_.pop_front();
  }
  spec_depth_ -= requested - resolution_.commit;
  return Result::kOk;
}

void Etm4Decoder::CommitMarker(const Element& element, std::vector<Packet>& out) {
  switch (element.kind) {
    case Element::Kind::kTraceOn:
      Emit(PacketKind::kDiscontinuity, out);
      previous_overflow_ = false;
      return_stack_.Flush();
      break;
    case Element::Kind::kAddress:
      return_stack_.pop_pending = false;
      SetAddress(element.address, element.isa);
      need_address_ = false;
      break;
    case Element::Kind::kContext:
      if (element.context.updated) ApplyContext(element, out);
      break;
    case Element::Kind::kTimestamp:
    case Element::Kind::kCycleCount:
    case Element::Kind::kEvent:
    case Element::Kind::kTimestampMarker:
      ProcessTimestampLike(element);
      break;
    case Element::Kind::kExceptionReturn:
      Emit(PacketKind::kExceptionReturn, out);
      break;
    case Element::Kind::kTransaction:  // nothing perftk uses
      break;
    case Element::Kind::kAtoms:
    case Element::Kind::kException:
    case Element::Kind::kSourceAddress:
      break;  // what a commit takes: Commit's
  }
}

Etm4Decoder::Result Etm4Decoder::PopPendingReturn() {
  if (return_stack_.pop_pending) {
    const uint64_t address = return_stack_.Pop();
    if (return_stack_.entries < 0) return Error("a return stack underflow");
    instruction_.address = address;
    instruction_.known = true;
    need_address_ = false;
  }
  return Result::kOk;
}

Etm4Decoder::Result Etm4Decoder::CommitAtom(bool taken, std::vector<Packet>& out) {
  if (const Result r = PopPendingReturn(); r != Result::kOk) return r;
  if (!need_context_ && !need_address_) {
    if (ProcessAtom(taken, out) == Kind::kNotFollowed) return Result::kNotFollowed;
  }
  return Result::kOk;
}

Etm4Decoder::Step Etm4Decoder::CommitAtomsAtOnce(const Etm4Packet& packet,
                                                 std::vector<Packet>& out) {
  const uint8_t followed = QuickAtomsPossible() ? QuickAtomPath(packet, out) : 0;
  uint64_t bits = uint64_t{packet.atom_bits} >> followed;
  for (uint8_t i = followed; i < packet.atom_count; ++i, bits >>= 1) {
    bool pushed = false;
    if (QuickAtom(bits & 1, out, pushed)) continue;
    if (const Result r = CommitAtom(bits & 1, out); r != Result::kOk) return StepAfter(r);
  }
  return Kind::kDone;
}

uint8_t Etm4Decoder::QuickAtomPath(const Etm4Packet& packet, std::vector<Packet>& out) {
  const AtomPathKey key{instruction_.address, packet.atom_bits, packet.atom_count, context_.el,
                        context_.pid};
  const size_t first = out.size();
  if (const AtomPaths::Path* path = atom_paths_.Find(key)) {
    const std::span<const Packet> packets = atom_paths_.PacketsOf(*path);
    if (emit_paths_) {
      Emit(PacketKind::kPath, out).set_path(packets);
    } else {
      AppendReplayed(packets, context_, cs_timestamp_, out);
    }
    for (uint64_t pushes = path->pushes; pushes != 0; pushes &= pushes - 1) {
      return_stack_.Push(packets[static_cast<size_t>(std::countr_zero(pushes))].end);
    }
    instruction_.address = path->end.address;
    instruction_.target = path->end.target;
    instruction_.last = path->end.last;
    need_address_ = path->end.need_address;
    return_stack_.pop_pending = path->end.pop_pending;
    return path->atoms;
  }
  uint64_t pushes = 0;
  uint32_t bits = packet.atom_bits;
  uint8_t followed = 0;
  while (followed < packet.atom_count && followed < AtomPaths::kMaxAtoms) {
    const size_t range = out.size() - first;
    bool pushed = false;
    if (!QuickAtom(bits & 1, out, pushed)) break;
    if (pushed) pushes |= uint64_t{1} << range;
    ++followed;
    bits >>= 1;
  }
  if (followed > 0) {
    atom_paths_.Store(key, followed, std::span<const Packet>(out).subspan(first), pushes,
                      AtomPathEnd{instruction_.address, instruction_.target, instruction_.last,
                                  need_address_, return_stack_.pop_pending});
  }
  return followed;
}

Etm4Decoder::Result Etm4Decoder::Cancel() {
  const int requested = resolution_.cancel;
  std::vector<Element> kept;  // timestamps and the like survive a cancel
  while (resolution_.cancel > 0 && !stack_.empty()) {
    Element& newest = stack_.back();
    if (!newest.p0) {
      if (newest.kind == Element::Kind::kTimestamp || newest.kind == Element::Kind::kCycleCount ||
          newest.kind == Element::Kind::kEvent || newest.kind == Element::Kind::kTimestampMarker) {
        kept.push_back(newest);
      }
      stack_.pop_back();
      continue;
    }
    if (newest.kind == Element::Kind::kAtoms) {
      const int cancelled = std::min<int>(resolution_.cancel, newest.atom_count);
      newest.atom_count = static_cast<uint8_t>(newest.atom_count - cancelled);
      newest.atom_bits &= newest.atom_count >= 32 ? ~0u : (1u << newest.atom_count) - 1;
      resolution_.cancel -= cancelled;
      if (newest.atom_count == 0) stack_.pop_back();
    } else {
      --resolution_.cancel;
      stack_.pop_back();
    }
  }
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) stack_.push_back(*it);
  const bool overrun = resolution_.cancel > 0;
  resolution_.cancel = 0;
  spec_depth_ -= requested;
  return overrun ? Error("more cancels than elements") : Result::kOk;
}

void Etm4Decoder::Discard(std::vector<Packet>& out) {
  (void)out;
  for (const Element& element : stack_) ProcessTimestampLike(element);
  stack_.clear();
  resolution_ = Resolution{};
  spec_depth_ = 0;
  state_ = State::kNoSync;
  need_context_ = true;
  need_address_ = true;
  pending_address_ = false;
}

Etm4Decoder::Step Etm4Decoder::EndOfTrace(std::vector<Packet>& out) {
  for (const Element& element : stack_) {
    const bool p0_kind = element.kind == Element::Kind::kAtoms ||
                         element.kind == Element::Kind::kTraceOn ||
                         element.kind == Element::Kind::kException ||
                         element.kind == Element::Kind::kExceptionReturn ||
                         (element.kind == Element::Kind::kTransaction && element.p0);
    if (p0_kind) break;  // OpenCSD drops the rest (a source address it skips)
    ProcessTimestampLike(element);
  }
  stack_.clear();
  Emit(PacketKind::kDiscontinuity, out);
  return Kind::kDone;
}

void Etm4Decoder::ProcessTimestampLike(const Element& element) {
  if (element.kind == Element::Kind::kTimestampMarker) {
    timestamp_marker_seen_ = timestamp_marker_seen_ || timestamps_after_marker_;
  } else if (element.kind == Element::Kind::kTimestamp &&
             (!timestamps_after_marker_ || timestamp_marker_seen_)) {
    cs_timestamp_ = element.timestamp;
  }
}

void Etm4Decoder::SetAddress(uint64_t address, uint8_t isa) {
  (void)isa;  // with a 64-bit context the instruction set bit does not count
  instruction_.address = address;
  instruction_.known = true;
  instruction_.a64 = is_64bit_;
}

void Etm4Decoder::ApplyContext(const Element& element, std::vector<Packet>& out) {
  const Etm4Context& context = element.context;
  is_64bit_ = context.sixty_four_bit;
  instruction_.a64 = is_64bit_;
  need_context_ = false;
  // What perftk's element callback does with a PE_CONTEXT (decoder.cc).
  PacketContext next = context_;
  if (pid_format_ == PidFormat::kCtxtId && context.context_id_updated) {
    next.tid = static_cast<int32_t>(context.context_id);
  } else if (pid_format_ == PidFormat::kCtxtId2 && context.vmid_updated) {
    next.tid = static_cast<int32_t>(context.vmid);
  }
  if (next.tid != context_.tid) next.pid = environment_.PidOf(next.tid);
  next.el = static_cast<int8_t>(context.el);
  if (next == context_) return;
  context_ = next;
  Emit(PacketKind::kContext, out);
}

inline void Etm4Decoder::EmitRange(uint64_t start, uint64_t end, uint64_t count, bool executed,
                                   std::vector<Packet>& out) {
  const A64Instruction& last = instruction_.last;
  const BranchKind branch = last.waypoint == A64Waypoint::kDirectBranch     ? BranchKind::kDirect
                            : last.waypoint == A64Waypoint::kIndirectBranch ? BranchKind::kIndirect
                                                                            : BranchKind::kNone;
  const bool direct = branch == BranchKind::kDirect;
  // Filled in place (Emit): a Packet built aside and copied in is written
  // a byte at a time and read back 16 at a time, a store-forwarding stall
  // on every range (half of the decoder's time on zlib's trace).
  Packet& range = Emit(PacketKind::kRange, out);  // A64, 4-byte instructions
  range.last_branch = branch;
  range.last_taken = branch != BranchKind::kNone && executed;
  range.last_cond = last.conditional;
  range.has_branch_target = direct;
  range.instr_count = static_cast<uint32_t>(count);
  range.start = start;
  range.end = end;
  range.branch_target = direct ? instruction_.target : 0;
}

// The walk ended at a waypoint: the atom decides where the trace goes
// next, and the range walked is the atom's.
inline bool Etm4Decoder::FollowWaypoint(uint64_t start, uint64_t count, bool taken,
                                        std::vector<Packet>& out) {
  const uint64_t next = instruction_.address;
  const A64Instruction last = instruction_.last;
  bool pushed = false;
  if (taken && last.waypoint == A64Waypoint::kDirectBranch) {
    instruction_.address = instruction_.target;
    pushed = last.role == A64BranchRole::kLink;
    if (pushed) return_stack_.Push(next);
  } else if (taken && last.waypoint == A64Waypoint::kIndirectBranch) {
    need_address_ = true;
    pushed = last.role == A64BranchRole::kLink;
    if (pushed) return_stack_.Push(next);
    if (return_stack_.active) return_stack_.pop_pending = true;
  }
  EmitRange(start, next, count, taken, out);
  // ETE has no exception return packet: OpenCSD makes one of an E atom on
  // an ERET.
  if (ete_ && taken && last.role == A64BranchRole::kExceptionReturn) {
    Emit(PacketKind::kExceptionReturn, out);
  }
  return pushed;
}

inline bool Etm4Decoder::QuickAtom(bool taken, std::vector<Packet>& out, bool& pushed) {
  if (!QuickAtomsPossible()) return false;
  const uint64_t start = instruction_.address;
  const CodeBlock* known = start < kTopOfAddressSpace ? Remembered(start) : nullptr;
  if (known == nullptr || known->span_ended) return false;
  const uint64_t end = start + known->size();
  instruction_.last = known->last;
  instruction_.target = end - 4 + static_cast<uint64_t>(known->target_delta);
  instruction_.address = end;
  pushed = FollowWaypoint(start, known->instructions, taken, out);
  return true;
}

Etm4Decoder::Step Etm4Decoder::ProcessAtom(bool taken, std::vector<Packet>& out) {
  if (!instruction_.a64) return NotFollowed("AArch32 code");
  const uint64_t start = instruction_.address;
  uint64_t count = 0;
  const Walk walk = WalkCode(count, nullptr);
  if (walk == Walk::kWraps) return NotFollowed("code at the end of the address space");
  if (walk == Walk::kFound) {
    FollowWaypoint(start, count, taken, out);
    return Kind::kDone;
  }
  need_address_ = true;
  if (count > 0) EmitRange(start, instruction_.address, count, true, out);
  Emit(PacketKind::kNoAccess, out).start = instruction_.address;
  return Kind::kDone;
}

Etm4Decoder::Result Etm4Decoder::ProcessException(std::vector<Packet>& out) {
  const Element exception = stack_.front();
  stack_.pop_front();
  std::optional<Element> context;
  if (!stack_.empty() && stack_.front().kind == Element::Kind::kContext) {
    context = stack_.front();
    stack_.pop_front();
  }
  // OpenCSD stops the block without the return address.
  if (stack_.empty() || stack_.front().kind != Element::Kind::kAddress) {
    return Error("an exception without its address");
  }
  const Element& address = stack_.front();  // popped by Commit
  const uint64_t return_address = address.address;
  if (exception.branch_target) {
    const bool sixty_four = context ? context->context.sixty_four_bit : instruction_.a64;
    instruction_.address = return_address;
    instruction_.known = true;
    instruction_.a64 = address.isa == 0 && sixty_four;
    need_address_ = false;
  }
  if (context) ApplyContext(*context, out);
  bool no_access = false;
  if (instruction_.address != return_address) {
    // With no address ever, OpenCSD walks from uninitialized memory.
    if (!instruction_.known) {
      NotFollowed("an exception before any address");
      return Result::kNotFollowed;
    }
    if (!instruction_.a64) {
      NotFollowed("AArch32 code");
      return Result::kNotFollowed;
    }
    const uint64_t start = instruction_.address;
    uint64_t count = 0;
    const Walk walk = WalkCode(count, &return_address);
    if (walk == Walk::kWraps) {
      NotFollowed("code at the end of the address space");
      return Result::kNotFollowed;
    }
    if (walk == Walk::kFound) {
      EmitRange(start, instruction_.address, count, true, out);
    } else {
      need_address_ = true;
      if (count > 0) EmitRange(start, instruction_.address, count, true, out);
      no_access = true;
    }
  }
  if (no_access) Emit(PacketKind::kNoAccess, out).start = instruction_.address;
  Emit(PacketKind::kException, out).exception_number = exception.exception_number;
  return Result::kOk;
}

Etm4Decoder::Result Etm4Decoder::ProcessSourceAddress(uint64_t source, std::vector<Packet>& out) {
  if (need_context_) {  // OpenCSD reads it with an instruction set left from before
    NotFollowed("a source address before any context");
    return Result::kNotFollowed;
  }
  if (!instruction_.a64) {
    NotFollowed("AArch32 code");
    return Result::kNotFollowed;
  }
  if (source >= kTopOfAddressSpace) {
    NotFollowed("code at the end of the address space");
    return Result::kNotFollowed;
  }
  const CodeSpan span = SpanAt(source);
  if (span.bytes.size() < 4) {  // nothing else changes
    Emit(PacketKind::kNoAccess, out).start = source;
    return Result::kOk;
  }
  const uint32_t word = A64Word(span.bytes.data());
  // From where the trace is, or from the source itself when the address is
  // unknown or behind: every instruction before it ran, none of them was
  // read (OpenCSD counts A64 instructions by bytes).
  const uint64_t end = source + 4;
  const uint64_t start =
      need_address_ || instruction_.address > source ? source : instruction_.address;
  const uint64_t count = (end - start) / 4;
  if (count > UINT32_MAX) {
    NotFollowed("a source address too far from the trace");
    return Result::kNotFollowed;
  }
  need_address_ = false;
  const A64Instruction last = ClassifyA64(word, features_);
  instruction_.last = last;
  instruction_.known = true;
  instruction_.address = end;
  if (last.waypoint == A64Waypoint::kDirectBranch) {
    instruction_.target = A64DirectBranchTarget(word, source).value_or(end);
    instruction_.address = instruction_.target;
    if (last.role == A64BranchRole::kLink) return_stack_.Push(end);
  } else if (last.waypoint == A64Waypoint::kIndirectBranch) {
    need_address_ = true;
    if (last.role == A64BranchRole::kLink) return_stack_.Push(end);
    if (return_stack_.active) return_stack_.pop_pending = true;
  }
  EmitRange(start, end, count, true, out);
  return Result::kOk;
}

Etm4Decoder::Walk Etm4Decoder::WalkCode(uint64_t& count, const uint64_t* until) {
  uint64_t address = instruction_.address;
  while (true) {
    // Near the top of the address space OpenCSD's memory cache answers
    // with bytes of other addresses (its page arithmetic wraps); no code
    // lives there (the kernel keeps it unmapped).
    if (address >= kTopOfAddressSpace) return Walk::kWraps;
    CodeBlock block;
    if (!BlockAt(address, block)) {
      instruction_.address = address;
      return Walk::kNoAccess;
    }
    const uint64_t end = address + block.size();
    if (until != nullptr && *until > address && *until <= end && (*until - address) % 4 == 0) {
      // The walk ends at `until`, perhaps inside the block.
      const uint64_t walked = (*until - address) / 4;
      count += walked;
      const bool at_waypoint = walked == block.instructions && !block.span_ended;
      instruction_.last = at_waypoint ? block.last : A64Instruction{};
      instruction_.target = *until - 4 + static_cast<uint64_t>(block.target_delta);
      instruction_.address = *until;
      return Walk::kFound;
    }
    count += block.instructions;
    address = end;
    instruction_.last = block.span_ended ? A64Instruction{} : block.last;
    if (!block.span_ended) {
      instruction_.target = end - 4 + static_cast<uint64_t>(block.target_delta);
      if (until == nullptr) {
        instruction_.address = end;
        return Walk::kFound;
      }
    }
  }
}

Etm4Decoder::Result Etm4Decoder::Error(const char* why) {
  error_why_ = why;
  return Result::kError;
}

Etm4Decoder::Step Etm4Decoder::NotFollowed(const char* why) {
  not_followed_why_ = why;
  return Kind::kNotFollowed;
}

CodeSpan Etm4Decoder::SpanAt(uint64_t address) {
  const PacketContext context = MemoryContext(address);
  const bool kernel = IsKernel(context, address);
  // Within the span read last for the same address space: no lookup.
  if (last_span_.bytes.size() > 0 && last_span_pid_ == context.pid && last_span_kernel_ == kernel &&
      address >= last_span_address_ && address - last_span_address_ < last_span_.bytes.size()) {
    const uint64_t skip = address - last_span_address_;
    return CodeSpan{last_span_.image, last_span_.offset + skip, last_span_.bytes.subspan(skip)};
  }
  last_span_ = code_.CodeAt(context, address);
  last_span_address_ = address;
  last_span_pid_ = context.pid;
  last_span_kernel_ = kernel;
  return last_span_;
}

bool Etm4Decoder::BlockAt(uint64_t address, CodeBlock& block) {
  if (const CodeBlock* known = Remembered(address)) {
    block = *known;
    return true;
  }
  const CodeSpan span = SpanAt(address);
  if (span.bytes.size() < 4) return false;
  block = blocks_.Find(span);
  const bool kernel = InKernel(address);
  block_memo_[MemoSlot(address)] =
      BlockMemo{address, kernel ? -1 : context_.pid, kernel, block_memo_generation_, block};
  return true;
}

PacketContext Etm4Decoder::MemoryContext(uint64_t address) const {
  PacketContext context = context_;
  if (context.el == kUnknownEl) context.el = address >= kKernelSpaceStart ? 1 : 0;
  return context;
}

inline Packet& Etm4Decoder::Emit(PacketKind kind, std::vector<Packet>& out) {
  Packet& packet = out.emplace_back();
  packet.kind = kind;
  packet.trace_id = trace_id_;
  packet.context = context_;
  packet.cs_timestamp = cs_timestamp_;
  return packet;
}

void Etm4Decoder::ReturnStack::Push(uint64_t address) {
  if (!active) return;
  head = (head + 1) & 0xf;
  addresses[head] = address;
  entries = std::min(entries + 1, 16);
  pop_pending = false;
}

uint64_t Etm4Decoder::ReturnStack::Pop() {
  uint64_t address = ~uint64_t{0};
  if (!active) return address;
  if (entries > 0) {
    address = addresses[head];
    head = (head - 1) & 0xf;
  }
  --entries;
  pop_pending = false;
  return address;
}

void Etm4Decoder::ReturnStack::Flush() {
  entries = 0;
  pop_pending = false;
}

}  // namespace perftk::cs_etm
