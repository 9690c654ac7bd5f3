#include "cs_etm/synthesizer.h"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "absl/strings/str_format.h"

namespace perftk::cs_etm {

struct TraceFlows::State {
  uint8_t trace_id = 0;
  // The previous flow packet: a range, a discontinuity, or nothing yet.
  std::optional<Packet> prev;
  // Counted toward the next sample: instructions, or taken branches with
  // --every-taken.
  uint64_t counted = 0;
  // Ring of taken branches, written backwards from `pos`; `count` valid.
  std::vector<perf::BranchEntry> ring;
  size_t pos = 0;
  size_t count = 0;
};

TraceFlows::TraceFlows() = default;
TraceFlows::~TraceFlows() = default;

SampleSynthesizer::SampleSynthesizer(const ItraceOptions& options,
                                     std::map<uint8_t, uint32_t> cpu_of_trace_id,
                                     DecodeEnvironment& environment, SampleOutput& output)
    : options_(options),
      cpu_of_trace_id_(std::move(cpu_of_trace_id)),
      environment_(environment),
      output_(output) {}

SampleSynthesizer::~SampleSynthesizer() = default;

void SampleSynthesizer::BeginBlock(uint32_t cpu, uint64_t time) {
  BeginBlock(cpu, time, own_flows_, std::nullopt);
}

void SampleSynthesizer::BeginBlock(uint32_t cpu, uint64_t time, TraceFlows& flows,
                                   std::optional<TraceIdSet> ids) {
  block_cpu_ = cpu;
  block_time_ = time;
  flows_ = &flows;
  block_ids_ = ids;
  last_state_ = nullptr;  // of other flows
}

SampleSynthesizer::State& SampleSynthesizer::NewStateOf(uint8_t trace_id) {
  std::unique_ptr<State>& state = flows_->states_[trace_id];
  if (!state) {
    state = std::make_unique<State>();
    state->trace_id = trace_id;
    state->ring.resize(options_.last_branch ? options_.last_branch_size : 0);
  }
  last_state_ = state.get();
  last_id_ = trace_id;
  return *state;
}

absl::Status SampleSynthesizer::Consume(std::span<const Packet> packets) {
  for (const Packet& packet : packets) {
    if (block_ids_ && !block_ids_->test(packet.trace_id)) {
      // The end of trace of a decoder that got no data in this block: its
      // flow may be in the middle of a block on another thread.
      if (packet.kind == PacketKind::kDiscontinuity) continue;
      return absl::InternalError(absl::StrFormat(
          "trace id 0x%x decoded from a block whose frames never switch to it", packet.trace_id));
    }
    State& state = StateOf(packet.trace_id);
    if (packet.kind == PacketKind::kRange && CountRange(state, packet)) continue;
    if (absl::Status s = OnPacket(state, packet); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status SampleSynthesizer::OnPacket(State& state, const Packet& packet) {
  switch (packet.kind) {
    case PacketKind::kRange:
      if (CountRange(state, packet)) break;
      return OnRange(state, packet);
    case PacketKind::kPath:
      return OnPath(state, packet);
    case PacketKind::kDiscontinuity:
      if (absl::Status s = Flush(state, /*reset_ring=*/true); !s.ok()) return s;
      state.prev = packet;
      break;
    case PacketKind::kContext:
      if (state.prev && state.prev->kind == PacketKind::kRange &&
          state.prev->context.tid != packet.context.tid) {
        if (absl::Status s = Flush(state, /*reset_ring=*/true); !s.ok()) return s;
        state.prev.reset();
      }
      break;
    case PacketKind::kException:
      // The range before an exception ends in a branch to the handler.
      if (state.prev && state.prev->kind == PacketKind::kRange) state.prev->last_taken = true;
      break;
    case PacketKind::kExceptionReturn:
    case PacketKind::kNoAccess:
      break;
  }
  return absl::OkStatus();
}

absl::Status SampleSynthesizer::OnPath(State& state, const Packet& path) {
  const std::span<const Packet> packets = path.path();
  uint64_t instructions = 0;
  for (const Packet& made : packets) instructions += made.instr_count;  // 0 but in ranges
  const bool counted_alone =
      !options_.branches && options_.taken_period == 0 &&
      (!options_.instructions || state.counted + instructions < options_.period);
  if (!counted_alone) {
    replayed_.clear();
    AppendReplayed(packets, path.context, path.cs_timestamp, replayed_);
    for (const Packet& packet : replayed_) {
      if (absl::Status s = OnPacket(state, packet); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  // CountRange for each range (ETE's exception returns change nothing).
  bool after_taken = state.prev && state.prev->kind == PacketKind::kRange && state.prev->last_taken;
  uint64_t from = after_taken ? state.prev->last_address() : 0;
  const Packet* last = nullptr;
  for (const Packet& range : packets) {
    if (range.kind != PacketKind::kRange) continue;
    if (after_taken && options_.last_branch) PushBranch(state, from, range.start);
    after_taken = range.last_taken;
    from = range.last_address();
    last = &range;
  }
  if (options_.instructions) state.counted += instructions;
  if (last != nullptr) {
    state.prev = *last;
    state.prev->context = path.context;
    state.prev->cs_timestamp = path.cs_timestamp;
  }
  return absl::OkStatus();
}

absl::Status SampleSynthesizer::EndBlock() {
  for (size_t id = 0; id < flows_->states_.size(); ++id) {
    // Other ids' flows may be in use on other threads: not even a look.
    if (block_ids_ && !block_ids_->test(id)) continue;
    std::unique_ptr<State>& state = flows_->states_[id];
    if (!state) continue;
    if (absl::Status s = EmitFlowEnd(*state); !s.ok()) return s;
    // A new block starts from a reset decoder: no flow continues into it.
    state->prev.reset();
  }
  return absl::OkStatus();
}

inline void SampleSynthesizer::PushBranch(State& state, uint64_t from, uint64_t to) {
  if (state.ring.empty()) return;
  state.pos = (state.pos == 0 ? state.ring.size() : state.pos) - 1;
  state.ring[state.pos] = perf::BranchEntry{from, to, kBranchFlagPredicted};
  if (state.count < state.ring.size()) ++state.count;
}

inline bool SampleSynthesizer::EnterRange(State& state, const Packet& packet) {
  const bool after_taken =
      state.prev && state.prev->kind == PacketKind::kRange && state.prev->last_taken;
  if (after_taken && options_.last_branch) {
    PushBranch(state, state.prev->last_address(), packet.start);
  }
  return after_taken;
}

inline bool SampleSynthesizer::CountRange(State& state, const Packet& packet) {
  if (options_.branches || options_.taken_period != 0) return false;
  if (options_.instructions && state.counted + packet.instr_count >= options_.period) return false;
  // OnRange's work when no sample is due: the branch into this range, the
  // instructions, the range.
  EnterRange(state, packet);
  if (options_.instructions) state.counted += packet.instr_count;
  state.prev = packet;
  return true;
}

absl::Status SampleSynthesizer::OnRange(State& state, const Packet& packet) {
  const bool prev_taken_range = EnterRange(state, packet);
  if (options_.instructions && options_.taken_period != 0) {
    if (prev_taken_range && ++state.counted >= options_.taken_period) {
      if (absl::Status s =
              EmitInstruction(state, packet, packet.start, state.counted, state.counted + 1);
          !s.ok()) {
        return s;
      }
      state.counted = 0;
    }
  } else if (options_.instructions) {
    // Counted here, inline: most ranges complete no period.
    const uint64_t before = state.counted;
    state.counted += packet.instr_count;
    if (state.counted >= options_.period) {
      if (absl::Status s = EmitPeriodSamples(state, packet, before); !s.ok()) return s;
    }
  }
  if (options_.branches && state.prev) {
    if (state.prev->kind == PacketKind::kDiscontinuity) {
      if (absl::Status s = EmitBranch(state, packet, 0, packet.start); !s.ok()) return s;
    } else if (prev_taken_range) {
      if (absl::Status s = EmitBranch(state, *state.prev, state.prev->last_address(), packet.start);
          !s.ok()) {
        return s;
      }
    }
  }
  state.prev = packet;
  return absl::OkStatus();
}

absl::Status SampleSynthesizer::EmitPeriodSamples(State& state, const Packet& packet,
                                                  uint64_t before) {
  uint64_t offset = options_.period - before;  // 1-based index in this packet
  while (state.counted >= options_.period) {
    uint64_t ip = AddressOfInstruction(packet, offset - 1);
    if (absl::Status s = EmitInstruction(state, packet, ip, options_.period); !s.ok()) return s;
    offset += options_.period;
    state.counted -= options_.period;
  }
  return absl::OkStatus();
}

absl::Status SampleSynthesizer::EmitFlowEnd(State& state) {
  if (!options_.last_branch || !options_.instructions || !state.prev ||
      state.prev->kind != PacketKind::kRange) {
    return absl::OkStatus();
  }
  // Sampling by taken branches: with none since the last sample, the stack
  // would only repeat that sample's newest branch.
  if (options_.taken_period != 0 && state.counted == 0) return absl::OkStatus();
  const size_t max_branches = options_.taken_period != 0 ? state.counted + 1 : SIZE_MAX;
  absl::Status s =
      EmitInstruction(state, *state.prev, state.prev->last_address(), state.counted, max_branches);
  state.counted = 0;
  return s;
}

absl::Status SampleSynthesizer::Flush(State& state, bool reset_ring) {
  if (absl::Status s = EmitFlowEnd(state); !s.ok()) return s;
  if (options_.branches && state.prev && state.prev->kind == PacketKind::kRange) {
    if (absl::Status s = EmitBranch(state, *state.prev, state.prev->last_address(), 0); !s.ok()) {
      return s;
    }
  }
  if (reset_ring) {
    state.pos = 0;
    state.count = 0;
  }
  return absl::OkStatus();
}

SynthesizedSample SampleSynthesizer::NewSample(const State& state, SynthesizedSample::Kind kind,
                                               const Packet& packet) const {
  SynthesizedSample sample;
  sample.kind = kind;
  sample.context = packet.context;
  auto cpu = cpu_of_trace_id_.find(state.trace_id);
  sample.cpu = block_cpu_ != kNoCpu ? block_cpu_ : cpu != cpu_of_trace_id_.end() ? cpu->second : 0;
  sample.time = block_time_;
  return sample;
}

absl::Status SampleSynthesizer::EmitInstruction(State& state, const Packet& at, uint64_t ip,
                                                uint64_t period, size_t max_branches) {
  SynthesizedSample sample = NewSample(state, SynthesizedSample::Kind::kInstruction, at);
  sample.ip = ip;
  sample.period = period;
  if (options_.last_branch) {
    const size_t count = std::min(state.count, max_branches);
    sample.branches.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      sample.branches.push_back(state.ring[(state.pos + i) % state.ring.size()]);
    }
  }
  ++emitted_;
  return output_.Emit(sample);
}

absl::Status SampleSynthesizer::EmitBranch(State& state, const Packet& from_packet, uint64_t from,
                                           uint64_t to) {
  SynthesizedSample sample = NewSample(state, SynthesizedSample::Kind::kBranch, from_packet);
  sample.ip = from;
  sample.addr = to;
  sample.period = 1;
  ++emitted_;
  return output_.Emit(sample);
}

uint64_t SampleSynthesizer::AddressOfInstruction(const Packet& packet, uint64_t index) {
  if (packet.isa != Isa::kT32) return packet.start + 4 * index;
  // T32 mixes 2- and 4-byte instructions: walk them.
  uint64_t address = packet.start;
  for (uint64_t i = 0; i < index && address < packet.end; ++i) {
    uint8_t half[2] = {0, 0};
    if (environment_.ReadCode(packet.context, address, 2, half) != 2) return address;
    uint16_t first = static_cast<uint16_t>(half[0] | (half[1] << 8));
    bool wide =
        (first & 0xf800) == 0xf800 || (first & 0xf800) == 0xf000 || (first & 0xf800) == 0xe800;
    address += wide ? 4 : 2;
  }
  return address;
}

}  // namespace perftk::cs_etm
