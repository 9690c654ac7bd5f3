// Decodes the packets of one ETMv4 or ETE trace source (etm4_packets.h)
// into perftk's Packets (packet.h): the packets the OpenCSD path (decoder.h)
// makes from the same trace, in the same order, with the same contexts and
// timestamps, but following code by blocks (code_blocks.h), not by
// instruction.
//
// Part of the fast decoder (issue 29). It keeps OpenCSD 1.3.3's ETMv4
// decoder's model of the trace: synchronization (an A-sync, then a trace
// info), the P0 element stack with its speculation (commit, cancel,
// mispredict, discard, the speculation depth of TRCIDR8), the return stack
// (TRCCONFIGR.RS), exceptions with their preferred return address,
// overflow, the need for an address and a context before atoms are
// followed, and what happens at the end of the trace. Each OpenCSD element
// becomes what perftk's element callback makes of it: NO_SYNC, TRACE_ON
// and EO_TRACE a discontinuity, PE_CONTEXT a context change (when pid, tid
// or EL change), INSTR_RANGE a range, EXCEPTION and EXCEPTION_RET,
// ADDR_NACC, and TIMESTAMP the timestamp later packets carry.
//
// ETE (docs/ete-in-opencsd.md) as OpenCSD 1.3.3 decodes it: an E atom on
// an ERET is followed by an exception return; source address packets walk
// straight to their instruction; timestamp markers open the gate for
// timestamps (TRCIDR0.TSMARK on ETE 1.1+); transactions take a commit when
// TRCIDR0.COMMTRANS is 0 and make nothing perftk uses; a PE reset is a bad
// packet. Events before the first trace info and a trace info's TSTATE
// make only elements perftk ignores, so they are not kept.
//
// What it does not follow, it says so (Step returns kNotFollowed): AArch32
// code (A32/T32), Q and ITE packets, a mispredict whose search for its
// atom runs past the oldest element, and the decode errors (a commit or
// cancel of more elements than there are, a mispredict without an atom, a
// return stack underflow, an exception without its address), after which
// OpenCSD waits for the next A-sync keeping some of what it made before
// the error and dropping the rest. The block is then OpenCSD's to decode.
#ifndef PERFTK_CS_ETM_ETM4_DECODER_H_
#define PERFTK_CS_ETM_ETM4_DECODER_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "cs_etm/atom_paths.h"
#include "cs_etm/code_blocks.h"
#include "cs_etm/decoder.h"
#include "cs_etm/etm4_packets.h"
#include "cs_etm/metadata.h"
#include "cs_etm/packet.h"

namespace perftk::cs_etm {

// Where the decoder reads code.
class CodeReader {
 public:
  virtual ~CodeReader() = default;
  // The code readable at `address` in the address space `context` names
  // (its el is never kUnknownEl here); an empty span if there is none.
  virtual CodeSpan CodeAt(const PacketContext& context, uint64_t address) = 0;
};

class Etm4Decoder {
 public:
  enum class Step { kDone, kNotFollowed };
  // Elements waiting for a commit past which a block is not followed (a
  // decode error; its trace goes to OpenCSD, whose own bound,
  // waiting_elements.h, is larger): 4 MB of them, where real trace keeps a
  // few dozen.
  static constexpr size_t kMaxWaiting = size_t{1} << 16;

  // `trace_id` is the source's id in the trace (decoder.h, DecoderTraceId).
  Etm4Decoder(const TraceSource& source, uint8_t trace_id, DecodeEnvironment& environment,
              CodeReader& code, CodeBlockCache& blocks);

  // Whether this decoder can follow the source's configuration at all
  // (ETMv4 or ETE; no data trace, conditional trace or Q elements).
  static bool Supports(const TraceSource& source);
  // How the source's trace unit classifies A64 instructions.
  static A64TraceFeatures FeaturesOf(const TraceSource& source);

  // A new block: the decoder starts unsynchronized, in `seed` context (the
  // thread perf says the CPU runs), with no timestamp.
  void StartBlock(const PacketContext& seed);
  // A reset inside the block (four frame syncs): unsynchronized again.
  void Reset();
  // Decodes one packet, appending the packets it makes to `out`.
  Step Decode(const Etm4Packet& packet, std::vector<Packet>& out);
  // Whether atoms replayed from an earlier packet of the block make one
  // kPath packet (for a sink that TakesPaths) rather than copies of their
  // packets. Off at first.
  void set_emit_paths(bool emit) { emit_paths_ = emit; }
  // The end of the block's trace.
  Step EndOfTrace(std::vector<Packet>& out);

  uint8_t trace_id() const { return trace_id_; }
  uint64_t bad_packets() const { return bad_packets_; }
  // Decode errors after which the trace was lost until the next A-sync.
  uint64_t decode_errors() const { return decode_errors_; }
  // What the last kNotFollowed was about.
  const char* not_followed_why() const { return not_followed_why_; }

 private:
  enum class State : uint8_t { kNoSync, kWaitSync, kWaitTraceInfo, kDecode };
  // A P0 stack element (OpenCSD's TrcStackElem and its kinds).
  struct Element {
    enum class Kind : uint8_t {
      kTraceOn,
      kAddress,
      kContext,
      kAtoms,
      kException,
      kExceptionReturn,
      kTimestamp,
      kCycleCount,
      kEvent,
      kTimestampMarker,  // ETE
      kTransaction,      // ETE: P0 when a transaction start takes a commit
      kSourceAddress,    // ETE: not P0, yet it takes a commit
    };
    Kind kind = Kind::kAtoms;
    bool p0 = false;
    uint64_t address = 0;    // kAddress, kSourceAddress
    uint8_t isa = 0;         // kAddress; kContext: the instruction set bit last seen
    Etm4Context context;     // kContext
    uint32_t atom_bits = 0;  // kAtoms: the atoms not yet committed, oldest in bit 0
    uint8_t atom_count = 0;
    uint16_t exception_number = 0;  // kException
    bool branch_target = false;     // kException: the return address was a branch target
    uint64_t timestamp = 0;         // kTimestamp
  };
  // What resolving must do after a packet.
  struct Resolution {
    int commit = 0;
    int cancel = 0;
    bool mispredict = false;
    bool discard = false;
    bool any() const { return commit != 0 || cancel != 0 || mispredict || discard; }
  };
  // The return stack (OpenCSD's TrcAddrReturnStack).
  struct ReturnStack {
    bool active = false;
    bool pop_pending = false;
    int head = 0;
    int entries = 0;
    std::array<uint64_t, 16> addresses{};
    void Push(uint64_t address);
    uint64_t Pop();
    void Flush();
  };
  // The last instruction the decoder walked to (OpenCSD's m_instr_info).
  struct Instruction {
    uint64_t address = 0;  // of the next instruction to trace from
    bool known = false;    // the trace has given an address (never forgotten)
    bool a64 = false;      // the instruction set is A64
    A64Instruction last;   // the last instruction walked
    uint64_t target = 0;   // its target, if a direct branch
  };
  enum class Walk : uint8_t { kFound, kNoAccess, kWraps };
  // How resolving went: kError is a decode error after which OpenCSD
  // waits for the next A-sync.
  enum class Result : uint8_t { kOk, kError, kNotFollowed };

  void ResetState();
  void DecodePacket(const Etm4Packet& packet);
  void BadPacket();
  Step Resolve(std::vector<Packet>& out);
  // The Step a resolution that ended in `result` makes: a decode error is
  // counted and hands the block to OpenCSD.
  Step StepAfter(Result result);
  // The return address a return waits for, from the return stack.
  Result PopPendingReturn();
  Result Commit(std::vector<Packet>& out);
  // A committed element that is not P0 (an address, a context, a
  // timestamp...): what it changes or emits.
  void CommitMarker(const Element& element, std::vector<Packet>& out);
  // One atom of a commit.
  Result CommitAtom(bool taken, std::vector<Packet>& out);
  // An atom packet whose atoms the speculation limit commits as soon as
  // they are pushed, after what waits on the stack: committed without it.
  Step CommitAtomsAtOnce(const Etm4Packet& packet, std::vector<Packet>& out);
  Result Cancel();
  Result Mispredict();
  void Discard(std::vector<Packet>& out);
  Step ProcessAtom(bool taken, std::vector<Packet>& out);
  // Whether QuickAtom may follow atoms from here: A64 code from a known
  // address and context, no return stack pop waiting.
  bool QuickAtomsPossible() const {
    return !return_stack_.pop_pending && !need_context_ && !need_address_ && instruction_.a64;
  }
  // ProcessAtom for the common atom: QuickAtomsPossible, a remembered
  // block that ends at a waypoint. False, with nothing done, for any
  // other. `pushed`: whether the range's end went on the return stack.
  bool QuickAtom(bool taken, std::vector<Packet>& out, bool& pushed);
  // The first atoms of `packet` (from QuickAtomsPossible) that QuickAtom
  // follows, replayed from atom_paths_ or followed and kept there; how
  // many.
  uint8_t QuickAtomPath(const Etm4Packet& packet, std::vector<Packet>& out);
  // What a walk that found a waypoint leaves to its atom; whether the
  // range's end went on the return stack.
  bool FollowWaypoint(uint64_t start, uint64_t count, bool taken, std::vector<Packet>& out);
  Result ProcessException(std::vector<Packet>& out);
  // A source address packet's instruction, reached in a straight line.
  Result ProcessSourceAddress(uint64_t source, std::vector<Packet>& out);
  void ProcessTimestampLike(const Element& element);
  void ApplyContext(const Element& element, std::vector<Packet>& out);
  void SetAddress(uint64_t address, uint8_t isa);

  // Walks from instruction_.address to the next waypoint (or, with
  // `until`, to that address whatever comes before it); the range walked
  // is [start, instruction_.address) of `count` instructions.
  Walk WalkCode(uint64_t& count, const uint64_t* until);
  PacketContext MemoryContext(uint64_t address) const;
  // The code at `address`, from the span read last when it holds it.
  CodeSpan SpanAt(uint64_t address);
  // The block at `address` in the current address space, from the memo
  // when it was found before in this block; false when no code is there.
  bool BlockAt(uint64_t address, CodeBlock& block);
  // Whether code at `address` is the kernel's, in the current context.
  bool InKernel(uint64_t address) const {
    return context_.el == kUnknownEl ? address >= kKernelSpaceStart : context_.el >= 1;
  }
  static size_t MemoSlot(uint64_t address) {
    return ((address >> 2) ^ (address >> 14)) & (kBlockMemoSize - 1);
  }
  // The memo's block at `address`, or null.
  const CodeBlock* Remembered(uint64_t address) const {
    const BlockMemo& memo = block_memo_[MemoSlot(address)];
    const bool kernel = InKernel(address);
    const bool hit = memo.generation == block_memo_generation_ && memo.address == address &&
                     memo.kernel == kernel && memo.pid == (kernel ? -1 : context_.pid);
    return hit ? &memo.block : nullptr;
  }
  Step NotFollowed(const char* why);
  Result Error(const char* why);

  // Packets, as perftk's element callback makes them.
  Packet& Emit(PacketKind kind, std::vector<Packet>& out);
  void EmitRange(uint64_t start, uint64_t end, uint64_t count, bool executed,
                 std::vector<Packet>& out);

  const uint8_t trace_id_;
  const PidFormat pid_format_;
  const int max_spec_depth_;
  const A64TraceFeatures features_;
  const bool ete_;
  // ETE 1.1 with TRCIDR0.TSMARK: timestamps count only after a marker.
  const bool timestamps_after_marker_;
  // ETE with TRCIDR0.COMMTRANS 0: a transaction start is a P0 element.
  const bool transaction_start_p0_;
  DecodeEnvironment& environment_;
  CodeReader& code_;
  CodeBlockCache& blocks_;

  // perftk's view of the source (decoder.cc's Source).
  PacketContext context_;
  uint64_t cs_timestamp_ = 0;

  // OpenCSD's decoder state.
  State state_ = State::kNoSync;
  bool need_context_ = true;
  bool need_address_ = true;
  bool pending_address_ = false;  // an exception waits for its address
  bool previous_overflow_ = false;
  bool timestamp_marker_seen_ = false;
  bool is_64bit_ = false;
  uint8_t last_isa_bit_ = 0;
  int spec_depth_ = 0;
  Resolution resolution_;
  // The P0 stack (oldest first), knowing how many of its elements a
  // commit takes: the P0 ones, and ETE's source addresses.
  class ElementStack {
   public:
    using iterator = std::deque<Element>::iterator;
    Element& Push(Element::Kind kind, bool p0) {
      Element& element = elements_.emplace_back();
      element.kind = kind;
      element.p0 = p0;
      committable_ += TakesCommit(element);
      return element;
    }
    void push_back(const Element& element) {
      elements_.push_back(element);
      committable_ += TakesCommit(element);
    }
    void pop_front() {
      committable_ -= TakesCommit(elements_.front());
      elements_.pop_front();
    }
    void pop_back() {
      committable_ -= TakesCommit(elements_.back());
      elements_.pop_back();
    }
    iterator erase(iterator it) {
      committable_ -= TakesCommit(*it);
      return elements_.erase(it);
    }
    void clear() {
      elements_.clear();
      committable_ = 0;
    }
    Element& front() { return elements_.front(); }
    Element& back() { return elements_.back(); }
    bool empty() const { return elements_.empty(); }
    size_t size() const { return elements_.size(); }
    // Whether a commit would take one of the elements.
    bool has_committable() const { return committable_ != 0; }
    iterator begin() { return elements_.begin(); }
    iterator end() { return elements_.end(); }

   private:
    static bool TakesCommit(const Element& element) {
      return element.p0 || element.kind == Element::Kind::kSourceAddress;
    }
    std::deque<Element> elements_;
    int committable_ = 0;
  };
  ElementStack stack_;
  ReturnStack return_stack_;
  Instruction instruction_;
  // Blocks found in this block of trace, by address: most atoms land
  // where one landed before, and this answers them without reading maps
  // or hashing. Direct-mapped; an entry of another generation is empty.
  struct BlockMemo {
    uint64_t address = 0;
    int32_t pid = 0;
    bool kernel = false;
    uint32_t generation = 0;
    CodeBlock block;
  };
  static constexpr size_t kBlockMemoSize = 4096;
  std::vector<BlockMemo> block_memo_;
  AtomPaths atom_paths_;                // of this block
  bool emit_paths_ = false;             // a replayed path is one kPath packet
  uint32_t block_memo_generation_ = 1;  // entries start at 0: empty
  CodeSpan last_span_;                  // read at last_span_address_, valid for this block
  uint64_t last_span_address_ = 0;
  int32_t last_span_pid_ = 0;
  bool last_span_kernel_ = false;
  uint64_t bad_packets_ = 0;
  uint64_t decode_errors_ = 0;
  const char* not_followed_why_ = "";
  const char* error_why_ = "";
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_ETM4_DECODER_H_
