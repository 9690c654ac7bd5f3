#include "cpu_tracer.h"

namespace perftk::etm_gen {

CpuTracer::CpuTracer(uint32_t cpu, uint32_t timestamp_every) : timestamp_every_(timestamp_every) {
  truth_.cpu = cpu;
  truth_.trace_id = TraceIdOfCpu(cpu);
}

EtmContext CpuTracer::ContextOf(const ThreadState& thread) {
  EtmContext context;
  context.el = thread.el;
  context.context_id = static_cast<uint32_t>(thread.tid);
  return context;
}

void CpuTracer::Push(TruthEvent::Kind kind) {
  TruthEvent event;
  event.kind = kind;
  truth_.events.push_back(event);
}

void CpuTracer::EmitTimestamp() {
  encoder_.Timestamp(clock_);
  last_timestamp_ = clock_;
}

void CpuTracer::BeginBuffer(uint64_t time) {
  TruthEvent start;
  start.kind = TruthEvent::Kind::kBlockStart;
  start.time = time;
  truth_.events.push_back(start);
  last_timestamp_ = 0;
  encoder_.ASync();
  encoder_.TraceInfo();
  if (timestamp_every_ != 0) EmitTimestamp();
}

void CpuTracer::Enter(const ThreadState& thread) {
  encoder_.AddressWithContext(thread.pc, ContextOf(thread));
}

void CpuTracer::SwitchTo(const ThreadState& thread, SwitchStyle style) {
  Push(TruthEvent::Kind::kSwitch);
  if (style == SwitchStyle::kAddressWithContext) {
    encoder_.AddressWithContext(thread.pc, ContextOf(thread));
  } else {
    encoder_.Context(ContextOf(thread));
    encoder_.LongAddress(thread.pc);
  }
}

absl::Status CpuTracer::Run(ThreadState& thread, int waypoints) {
  for (int i = 0; i < waypoints; ++i) {
    const TruthContext context{thread.pid, thread.tid, thread.el};
    absl::StatusOr<Step> step = Execute(thread);
    if (!step.ok()) return step.status();
    TruthEvent range;
    range.kind = TruthEvent::Kind::kRange;
    range.start = step->start;
    range.end = step->end;
    range.instructions = step->instructions;
    range.context = context;
    range.taken = step->taken;
    range.cs_timestamp = last_timestamp_;
    truth_.events.push_back(range);
    clock_ += step->instructions;
    switch (step->flow) {
      case Flow::kBranch:
      case Flow::kCall:
      case Flow::kCondBranch:
        encoder_.Atom(step->taken);
        break;
      case Flow::kReturn:
        encoder_.Atom(true);
        encoder_.LongAddress(step->next);
        break;
      case Flow::kExceptionReturn:
        encoder_.Atom(true);
        encoder_.AddressWithContext(step->next, ContextOf(thread));
        break;
      case Flow::kSyscall:
        encoder_.Exception(kExceptionCall, step->end);
        encoder_.AddressWithContext(step->next, ContextOf(thread));
        break;
      case Flow::kNext:
        break;
    }
    ++waypoints_;
    if (timestamp_every_ != 0 && waypoints_ % timestamp_every_ == 0) EmitTimestamp();
  }
  return absl::OkStatus();
}

absl::Status CpuTracer::TraceGap(ThreadState& thread, int untraced) {
  for (int i = 0; i < untraced; ++i) {
    absl::StatusOr<Step> step = Execute(thread);
    if (!step.ok()) return step.status();
    clock_ += step->instructions;
  }
  Push(TruthEvent::Kind::kTraceOn);
  encoder_.TraceOn();
  if (timestamp_every_ != 0) EmitTimestamp();
  encoder_.AddressWithContext(thread.pc, ContextOf(thread));
  return absl::OkStatus();
}

std::vector<uint8_t> CpuTracer::EndBuffer() {
  Push(TruthEvent::Kind::kBlockEnd);
  return encoder_.Take();
}

CpuTruth CpuTracer::TakeTruth() {
  CpuTruth out;
  out.cpu = truth_.cpu;
  out.trace_id = truth_.trace_id;
  out.events.swap(truth_.events);
  return out;
}

}  // namespace perftk::etm_gen
